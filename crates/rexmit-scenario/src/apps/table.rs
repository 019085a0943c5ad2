//! Reading and writing an app table. Every key has one type whatever the kind, so the table is
//! read key by key into `Slots` (one `Option` per key) and the kind's struct is built from them
//! once the table ends; writing fills the slots from the struct and prints them in key order.
//!
//! Why not `#[serde(tag = "kind")]`: an internally tagged enum buffers the table into serde's
//! private `Content` before it knows the kind, so an error inside (a wrong type, an unknown key)
//! loses the key path that `serde_path_to_error` builds and the TOML line, and
//! `deny_unknown_fields` does not combine with `flatten` (the fields every kind has). Here the
//! visitor reads from the path-tracking `MapAccess` itself: a key the kind already read does not
//! take fails *while its value is read* (`refuse`), so the path ends with the key. Errors found
//! only when the table ends (a missing field; a key read before `kind` that the kind does not
//! take) name their key in the message (`key_error`), which `Scenario::from_toml`/`from_json`
//! move into the path (`move_key_into_path`).

use super::{AppCfg, AppKind, AppTraffic, BurstCfg};
use crate::kinds::{DistCfg, PeriodCfg};
use crate::transport::{SctpCfg, SctpStack, TcpCfg};
use crate::units::{Bytes, DurationStr, RateStr};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;

/// Every key of an app table with its type, in the order `rexmit normalize` writes them.
macro_rules! keys {
    ($($key:ident: $ty:ty),* $(,)?) => {
        /// An app table as read so far (or about to be written): one slot per key.
        #[derive(Default, Serialize)]
        #[serde(rename = "AppCfg")]
        pub(super) struct Slots {
            $(#[serde(skip_serializing_if = "Option::is_none")] pub(super) $key: Option<$ty>,)*
        }

        const KEYS: &[&str] = &[$(stringify!($key)),*];

        impl Slots {
            /// Read the value of `key` into its slot.
            fn read<'de, A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<(), A::Error> {
                match key {
                    $(stringify!($key) => fill(&mut self.$key, key, map),)*
                    _ => refuse(map, format!("unknown field `{key}`")),
                }
            }
        }
    };
}

keys! {
    name: String,
    kind: AppKind,
    from: String,
    to: String,
    to_addr: usize,
    port: u16,
    start: DurationStr,
    start_jitter: DurationStr,
    stop: DurationStr,
    rate: RateStr,
    packet_size: u32,
    jitter: DurationStr,
    on: PeriodCfg,
    off: PeriodCfg,
    bytes: Bytes,
    message_size: u32,
    messages: u64,
    unordered: bool,
    streams: u16,
    warmup: DurationStr,
    source: String,
    interarrival: DistCfg<DurationStr>,
    size: DistCfg<Bytes>,
    burst: BurstCfg,
    response_size: DistCfg<Bytes>,
    max_connections: u16,
    stack: SctpStack,
    tcp: TcpCfg,
    sctp: SctpCfg,
}

/// The keys every kind takes (the fields of `AppCfg` itself).
const COMMON: [&str; 8] = [
    "name",
    "kind",
    "from",
    "to",
    "to_addr",
    "port",
    "start",
    "start_jitter",
];

/// A kind's table: the struct with its doc and fields, each field `req` (required), `opt`
/// (optional) or `part` (a group of fields, itself a `kind_table!`); and how to take it out of
/// the slots (`Err(key)` names a missing required field), put it back, and whether a key is one
/// of its fields. Each field's type must be its key's slot type: the compiler checks it.
macro_rules! kind_table {
    ($(#[$meta:meta])* pub struct $name:ident {
        $($(#[$fmeta:meta])* $field:ident: $mode:ident $ty:ty),* $(,)?
    }) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq)]
        pub struct $name {
            $($(#[$fmeta])* pub $field: kind_table!(@type $mode $ty),)*
        }

        impl $name {
            fn has(key: &str) -> bool {
                $(kind_table!(@has $mode $field $ty, key))||*
            }

            fn take(s: &mut Slots) -> Result<Self, &'static str> {
                Ok($name { $($field: kind_table!(@take $mode $field $ty, s),)* })
            }

            fn put(&self, s: &mut Slots) {
                $(kind_table!(@put $mode $field self, s);)*
            }
        }
    };
    (@type req $ty:ty) => { $ty };
    (@type opt $ty:ty) => { Option<$ty> };
    (@type part $ty:ty) => { $ty };
    (@has part $field:ident $ty:ty, $key:ident) => { <$ty>::has($key) };
    (@has $mode:ident $field:ident $ty:ty, $key:ident) => { $key == stringify!($field) };
    (@take req $field:ident $ty:ty, $s:ident) => { $s.$field.take().ok_or(stringify!($field))? };
    (@take opt $field:ident $ty:ty, $s:ident) => { $s.$field.take() };
    (@take part $field:ident $ty:ty, $s:ident) => { <$ty>::take($s)? };
    (@put req $field:ident $this:ident, $s:ident) => { $s.$field = Some($this.$field.clone()) };
    (@put opt $field:ident $this:ident, $s:ident) => { $s.$field = $this.$field.clone() };
    (@put part $field:ident $this:ident, $s:ident) => { $this.$field.put($s) };
}
pub(super) use kind_table;

/// The kinds: `AppKind` (the value of `kind`) and `AppTraffic` (a kind with its table).
macro_rules! app_kinds {
    ($($(#[$doc:meta])* $variant:ident = $text:literal ($cfg:ident)),* $(,)?) => {
        #[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
        pub enum AppKind {
            $($(#[$doc])* #[serde(rename = $text)] $variant,)*
        }

        impl AppKind {
            pub const ALL: &'static [AppKind] = &[$(AppKind::$variant),*];

            /// The TOML spelling.
            pub fn name(self) -> &'static str {
                match self {
                    $(AppKind::$variant => $text,)*
                }
            }

            /// Whether an app of this kind has the key `key`.
            pub fn has(self, key: &str) -> bool {
                table::is_common(key)
                    || match self {
                        $(AppKind::$variant => $cfg::has(key),)*
                    }
            }
        }

        /// An app's kind with the fields of that kind.
        #[derive(Clone, Debug, PartialEq)]
        pub enum AppTraffic {
            $($variant($cfg),)*
        }

        impl AppTraffic {
            pub fn kind(&self) -> AppKind {
                match self {
                    $(AppTraffic::$variant(_) => AppKind::$variant,)*
                }
            }

            fn take(kind: AppKind, s: &mut Slots) -> Result<Self, &'static str> {
                Ok(match kind {
                    $(AppKind::$variant => AppTraffic::$variant($cfg::take(s)?),)*
                })
            }

            fn put(&self, s: &mut Slots) {
                match self {
                    $(AppTraffic::$variant(c) => c.put(s),)*
                }
            }
        }
    };
}
pub(super) use app_kinds;

pub(super) fn is_common(key: &str) -> bool {
    COMMON.contains(&key)
}

/// Read the value of `key` into `slot`, which must still be empty (JSON allows a key twice).
fn fill<'de, T: Deserialize<'de>, A: MapAccess<'de>>(
    slot: &mut Option<T>,
    key: &str,
    map: &mut A,
) -> Result<(), A::Error> {
    if slot.is_some() {
        return refuse(map, format!("duplicate field `{key}`"));
    }
    *slot = Some(map.next_value()?);
    Ok(())
}

/// Fail with `msg` while reading the value of the key just read, so that the error's path (and
/// its TOML line) is the key's.
fn refuse<'de, A: MapAccess<'de>, T>(map: &mut A, msg: String) -> Result<T, A::Error> {
    struct Refuse(String);
    impl<'de> DeserializeSeed<'de> for Refuse {
        type Value = std::convert::Infallible;
        fn deserialize<D: Deserializer<'de>>(self, _: D) -> Result<Self::Value, D::Error> {
            Err(de::Error::custom(self.0))
        }
    }
    match map.next_value_seed(Refuse(msg))? {}
}

/// Marks the key at the start of a message about one key of the table, given once the table has
/// been read (a unit separator: never part of a key or of a message).
const KEY_MARK: char = '\u{1f}';

fn key_error<E: de::Error>(key: &str, msg: impl fmt::Display) -> E {
    E::custom(format!("{KEY_MARK}{key}{KEY_MARK}{msg}"))
}

/// An error's path and message, with the key named by `key_error` moved into the path.
pub(crate) fn move_key_into_path(path: String, msg: String) -> (String, String) {
    match msg
        .strip_prefix(KEY_MARK)
        .and_then(|m| m.split_once(KEY_MARK))
    {
        Some((key, rest)) if path.is_empty() => (key.to_string(), rest.to_string()),
        Some((key, rest)) => (format!("{path}.{key}"), rest.to_string()),
        None => (path, msg),
    }
}

fn quoted(keys: impl Iterator<Item = &'static str>) -> String {
    keys.map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `key` is no key of any kind.
fn unknown(kind: Option<AppKind>, key: &str) -> String {
    match kind {
        None => format!(
            "unknown field `{key}`, expected one of {}",
            quoted(KEYS.iter().copied())
        ),
        Some(k) => format!(
            "unknown field `{key}`, expected one of the fields of kind {:?}: {}",
            k.name(),
            quoted(KEYS.iter().copied().filter(|f| k.has(f)))
        ),
    }
}

/// `key` is a key of other kinds than `kind`.
fn misplaced(kind: AppKind, key: &str) -> String {
    let users: Vec<&str> = AppKind::ALL
        .iter()
        .filter(|k| k.has(key))
        .map(|k| k.name())
        .collect();
    let kinds = if users.len() == 1 { "kind" } else { "kinds" };
    format!(
        "not a field of kind {:?} ({key} is used by {kinds} {})",
        kind.name(),
        users.join(", ")
    )
}

impl<'de> Deserialize<'de> for AppCfg {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(AppVisitor)
    }
}

struct AppVisitor;

impl<'de> Visitor<'de> for AppVisitor {
    type Value = AppCfg;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an app table: name, kind, from, to and the fields of its kind")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<AppCfg, A::Error> {
        let mut s = Slots::default();
        // Keys read before `kind`: checked against the kind once the table ends.
        let mut before_kind = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            let Some(&key) = KEYS.iter().find(|k| **k == key) else {
                return refuse(&mut map, unknown(s.kind, &key));
            };
            match s.kind {
                Some(kind) if !kind.has(key) => return refuse(&mut map, misplaced(kind, key)),
                Some(_) => {}
                None => before_kind.push(key),
            }
            s.read(key, &mut map)?;
        }
        let kind = s.kind.take().ok_or_else(|| {
            key_error::<A::Error>(
                "kind",
                format!(
                    "is required: one of {}",
                    quoted(AppKind::ALL.iter().map(|k| k.name()))
                ),
            )
        })?;
        if let Some(key) = before_kind.iter().find(|k| !kind.has(k)) {
            return Err(key_error(key, misplaced(kind, key)));
        }
        let need = |v: Option<String>, key: &str| {
            v.ok_or_else(|| key_error::<A::Error>(key, "is required"))
        };
        Ok(AppCfg {
            name: need(s.name.take(), "name")?,
            from: need(s.from.take(), "from")?,
            to: need(s.to.take(), "to")?,
            to_addr: s.to_addr.take().unwrap_or(0),
            port: s.port.take(),
            start: s
                .start
                .take()
                .unwrap_or(DurationStr(rexmit_time::Duration::ZERO)),
            start_jitter: s.start_jitter.take(),
            traffic: AppTraffic::take(kind, &mut s).map_err(|key| {
                key_error::<A::Error>(key, format!("is required for kind {:?}", kind.name()))
            })?,
        })
    }
}

impl Serialize for AppCfg {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let mut s = Slots {
            name: Some(self.name.clone()),
            kind: Some(self.kind()),
            from: Some(self.from.clone()),
            to: Some(self.to.clone()),
            to_addr: Some(self.to_addr),
            port: self.port,
            start: Some(self.start),
            start_jitter: self.start_jitter,
            ..Slots::default()
        };
        self.traffic.put(&mut s);
        s.serialize(ser)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The keys each kind takes besides the common ones: the schema as it was before the kinds
    /// had their own tables (the `used` lists of `validate::app`), pinned.
    #[test]
    fn each_kind_takes_exactly_its_keys() {
        let messages = "stop messages warmup source interarrival size burst";
        for (kind, own) in [
            (AppKind::UdpCbr, "stop rate packet_size jitter".to_string()),
            (AppKind::UdpOnoff, "stop rate packet_size on off".into()),
            (AppKind::UdpRandom, "stop interarrival size".into()),
            (AppKind::TcpBulk, "bytes warmup tcp".into()),
            (
                AppKind::SctpBulk,
                "message_size messages unordered streams warmup stack sctp".into(),
            ),
            (AppKind::TcpMessages, format!("{messages} tcp")),
            (
                AppKind::SctpMessages,
                format!("{messages} unordered streams stack sctp"),
            ),
            (
                AppKind::Http,
                "stop warmup interarrival response_size max_connections tcp".into(),
            ),
        ] {
            let mut want: Vec<&str> = COMMON.iter().copied().chain(own.split(' ')).collect();
            want.sort();
            let mut got: Vec<&str> = KEYS.iter().copied().filter(|k| kind.has(k)).collect();
            got.sort();
            assert_eq!(got, want, "{}", kind.name());
        }
    }

    #[test]
    fn a_key_named_after_the_table_is_read_moves_into_the_path() {
        let e: serde_json::Error = key_error("rate", "is required");
        let shown = e.to_string();
        assert_eq!(
            move_key_into_path("apps[0]".into(), shown.clone()),
            ("apps[0].rate".to_string(), "is required".to_string())
        );
        assert_eq!(
            move_key_into_path(String::new(), shown),
            ("rate".to_string(), "is required".to_string())
        );
        let plain = ("apps[0]".to_string(), "missing".to_string());
        assert_eq!(move_key_into_path(plain.0.clone(), plain.1.clone()), plain);
    }
}
