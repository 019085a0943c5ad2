//! The scenario's side of "one declaration per option" (crate `rexmit-options`): `mirror_table!`
//! turns a core's option table (`rexmit_tcp::tcp_option_table`, `rexmit_sctp::sctp_option_table`,
//! ...) into the serde struct a scenario writes (`tcp = { ... }`: the same keys, in the same
//! order, each optional), the mapping of its set keys onto the core's struct, the reverse map
//! that `rexmit normalize` prints, and the list of keys a table sets. Ranges are not checked
//! here: the core's table checks them, and its errors come back with the key path.
//!
//! How a value is written depends on the option's unit: `bytes` as `Bytes` ("64KiB" or an
//! integer), `time` as `DurationStr` ("200ms"), `time_or_off` the same with "0s" for none,
//! `bytes_or_auto` as `Bytes` with unset for the core's rule, `choice` by name (`Named`),
//! `table` as the nested table's own mirror; anything else as the core's type.

use crate::error::{Result, ScenarioError};
use crate::units::{Bytes, DurationStr};
use rexmit_options::Choice;
use rexmit_time::Duration;
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// A core enum written by its name (`recovery = "sack"`); the names are declared next to the
/// variants (`rexmit_options::choices!`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Named<E>(pub E);

impl<E: Choice> Serialize for Named<E> {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.0.name())
    }
}

impl<'de, E: Choice> Deserialize<'de> for Named<E> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V<E>(std::marker::PhantomData<E>);
        impl<E: Choice> de::Visitor<'_> for V<E> {
            type Value = Named<E>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "one of {}", quoted(E::NAMES))
            }
            fn visit_str<Er: de::Error>(self, s: &str) -> std::result::Result<Named<E>, Er> {
                E::from_name(s)
                    .map(Named)
                    .ok_or_else(|| Er::unknown_variant(s, E::NAMES))
            }
        }
        d.deserialize_str(V(std::marker::PhantomData))
    }
}

fn quoted(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// How a scenario value of type `Self` sets a core value of type `C`, and back.
pub trait MirrorOf<C>: Sized {
    /// Set `into` from this value; `key` is the option's key path, for errors.
    fn merge(&self, into: &mut C, key: &str) -> Result<()>;
    /// The value as `rexmit normalize` writes it (`None`: left out).
    fn from_core(c: &C) -> Option<Self>;
}

/// Plain values (counts, flags, sizes written as integers): the same type on both sides.
impl<T: Clone> MirrorOf<T> for T {
    fn merge(&self, into: &mut T, _key: &str) -> Result<()> {
        *into = self.clone();
        Ok(())
    }
    fn from_core(c: &T) -> Option<T> {
        Some(c.clone())
    }
}

impl<E: Choice> MirrorOf<E> for Named<E> {
    fn merge(&self, into: &mut E, _key: &str) -> Result<()> {
        *into = self.0;
        Ok(())
    }
    fn from_core(c: &E) -> Option<Self> {
        Some(Named(*c))
    }
}

/// TOML integers stop at 2^63 − 1: larger byte counts mean "no limit" and are left out.
fn shown_bytes(v: u64) -> Option<Bytes> {
    (v <= i64::MAX as u64).then_some(Bytes(v))
}

impl MirrorOf<u64> for Bytes {
    fn merge(&self, into: &mut u64, _key: &str) -> Result<()> {
        *into = self.0;
        Ok(())
    }
    fn from_core(c: &u64) -> Option<Self> {
        shown_bytes(*c)
    }
}

impl MirrorOf<usize> for Bytes {
    fn merge(&self, into: &mut usize, key: &str) -> Result<()> {
        *into = usize::try_from(self.0)
            .map_err(|_| ScenarioError::new(key, format!("{} is too large", self.0)))?;
        Ok(())
    }
    fn from_core(c: &usize) -> Option<Self> {
        shown_bytes(*c as u64)
    }
}

impl MirrorOf<u32> for Bytes {
    fn merge(&self, into: &mut u32, key: &str) -> Result<()> {
        *into = u32::try_from(self.0)
            .map_err(|_| ScenarioError::new(key, format!("{} is above 4 GiB", self.0)))?;
        Ok(())
    }
    fn from_core(c: &u32) -> Option<Self> {
        shown_bytes(*c as u64)
    }
}

/// `bytes_or_auto`: unset keeps the core's rule (`None`), which normalize leaves out.
impl MirrorOf<Option<u64>> for Bytes {
    fn merge(&self, into: &mut Option<u64>, _key: &str) -> Result<()> {
        *into = Some(self.0);
        Ok(())
    }
    fn from_core(c: &Option<u64>) -> Option<Self> {
        c.and_then(shown_bytes)
    }
}

impl MirrorOf<Duration> for DurationStr {
    fn merge(&self, into: &mut Duration, _key: &str) -> Result<()> {
        *into = self.0;
        Ok(())
    }
    fn from_core(c: &Duration) -> Option<Self> {
        Some(DurationStr(*c))
    }
}

/// `time_or_off`: "0s" is none (heartbeats off).
impl MirrorOf<Option<Duration>> for DurationStr {
    fn merge(&self, into: &mut Option<Duration>, _key: &str) -> Result<()> {
        *into = (!self.0.is_zero()).then_some(self.0);
        Ok(())
    }
    fn from_core(c: &Option<Duration>) -> Option<Self> {
        Some(DurationStr(c.unwrap_or(Duration::ZERO)))
    }
}

/// A congestion controller or loss-detection policy by name (`cc = "vegas"`, `loss = "rfc"`):
/// the core checks that it is registered.
impl MirrorOf<rexmit_tcp::cc::registry::CcName> for String {
    fn merge(&self, into: &mut rexmit_tcp::cc::registry::CcName, _key: &str) -> Result<()> {
        *into = rexmit_tcp::cc::registry::CcName::new(self);
        Ok(())
    }
    fn from_core(c: &rexmit_tcp::cc::registry::CcName) -> Option<Self> {
        Some(c.as_str().to_string())
    }
}

/// SCTP's controller (`sctp.cc = "cubic"`): unset keeps RFC 9260 §7.2's rules, which
/// normalize leaves out.
impl MirrorOf<Option<rexmit_tcp::cc::registry::CcName>> for String {
    fn merge(&self, into: &mut Option<rexmit_tcp::cc::registry::CcName>, _key: &str) -> Result<()> {
        *into = Some(rexmit_tcp::cc::registry::CcName::new(self));
        Ok(())
    }
    fn from_core(c: &Option<rexmit_tcp::cc::registry::CcName>) -> Option<Self> {
        c.as_ref().map(|c| c.as_str().to_string())
    }
}

/// A controller's parameters (`cc_params = { alpha = 2 }`), checked by the core against the
/// controller's declared ranges; left out of normalize when the controller has none.
impl MirrorOf<rexmit_tcp::cc::registry::ParamMap> for std::collections::BTreeMap<String, f64> {
    fn merge(&self, into: &mut rexmit_tcp::cc::registry::ParamMap, _key: &str) -> Result<()> {
        into.0 = self.clone();
        Ok(())
    }
    fn from_core(c: &rexmit_tcp::cc::registry::ParamMap) -> Option<Self> {
        (!c.is_empty()).then(|| c.0.clone())
    }
}

/// The mirror of a core struct that is a nested table (`rto`, `cmt`, ...).
pub trait Mirrored {
    type Cfg;
}

/// Keys a table writes besides its core table's options (`profile`, `thin.all`): applied by
/// hand before the options, left unset by the reverse map.
pub trait Extras<C> {
    fn apply_extras(&self, _core: &mut C, _path: &str) -> Result<()> {
        Ok(())
    }
}

/// The key of `name` inside the table at `path`.
pub fn key(path: &str, name: &str) -> String {
    rexmit_options::key(path, name)
}

#[doc(hidden)]
#[macro_export]
macro_rules! __mirror_ty {
    (bytes, $t:ty) => { $crate::units::Bytes };
    (bytes_or_auto, $t:ty) => { $crate::units::Bytes };
    (time, $t:ty) => { $crate::units::DurationStr };
    (time_or_off, $t:ty) => { $crate::units::DurationStr };
    (choice, $t:ty) => { $crate::mirror::Named<$t> };
    (controller, $t:ty) => { String };
    (policy, $t:ty) => { String };
    (params, $t:ty) => { std::collections::BTreeMap<String, f64> };
    (table, $t:ty) => { <$t as $crate::mirror::Mirrored>::Cfg };
    ($unit:ident, $t:ty) => { $t };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __mirror_from {
    ($c:expr, $f:ident) => {
        $crate::mirror::MirrorOf::from_core(&$c.$f)
    };
    ($c:expr, $f:ident, $shown:expr) => {
        if ($shown)($c) {
            $crate::mirror::MirrorOf::from_core(&$c.$f)
        } else {
            None
        }
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __mirror_keys {
    (table, $v:expr, $key:expr, $out:expr) => {
        $v.set_keys(&$key, $out)
    };
    ($unit:ident, $v:expr, $key:expr, $out:expr) => {
        $out.push($key)
    };
}

/// The mirror of an option table (module docs). Invoked through the table's macro:
/// `rexmit_tcp::tcp_option_table!(mirror_table { pub struct TcpCfg for TcpConfig { profile: ... } })`.
#[macro_export]
macro_rules! mirror_table {
    (
        $(#[$meta:meta])*
        pub struct $Name:ident for $Core:ty {} ;
        $($rest:tt)*
    ) => {
        $crate::mirror_table!($(#[$meta])* pub struct $Name for $Core { @none } ; $($rest)*);
        impl $crate::mirror::Extras<$Core> for $Name {}
    };
    (
        $(#[$meta:meta])*
        pub struct $Name:ident for $Core:ty { $( @none )? $( $(#[doc = $edoc:literal])* $efield:ident : $ety:ty ),* $(,)? } ;
        public {
            $( $(#[doc = $doc:literal])* $kind:ident $field:ident : $ty:ty = $default:expr
               $(, linux = $linux:expr)? , unit = $unit:ident
               $(, check = $check:expr => $allowed:literal)?
               $(, relation = $relation:literal)?
               $(, shown = $shown:expr)? ; )*
        }
        internal { $($internal:tt)* }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, Default, serde::Deserialize, serde::Serialize, PartialEq)]
        #[serde(deny_unknown_fields)]
        pub struct $Name {
            $(
                $(#[doc = $edoc])*
                #[serde(default, skip_serializing_if = "Option::is_none")]
                pub $efield: Option<$ety>,
            )*
            $(
                $(#[doc = $doc])*
                #[serde(default, skip_serializing_if = "Option::is_none")]
                pub $field: Option<$crate::__mirror_ty!($unit, $ty)>,
            )*
        }

        impl $crate::mirror::Mirrored for $Core {
            type Cfg = $Name;
        }

        impl $Name {
            /// Set `c` from this table: its extra keys first, then every option it sets.
            /// `path` is the table's key path (`apps[0].tcp`), for errors.
            pub fn apply(&self, c: &mut $Core, path: &str) -> $crate::error::Result<()> {
                $crate::mirror::Extras::apply_extras(self, c, path)?;
                $(
                    if let Some(v) = &self.$field {
                        $crate::mirror::MirrorOf::merge(
                            v, &mut c.$field, &$crate::mirror::key(path, stringify!($field)))?;
                    }
                )*
                Ok(())
            }

            /// `c` with every option written out (`rexmit normalize`); extra keys unset.
            pub fn from_core(c: &$Core) -> Self {
                $Name {
                    $( $efield: None, )*
                    $( $field: $crate::__mirror_from!(c, $field $(, $shown)?), )*
                }
            }

            /// The keys of the options this table sets, nested ones as `rto.min`, in table
            /// order (extra keys not included).
            pub fn set_keys(&self, prefix: &str, out: &mut Vec<String>) {
                $(
                    if let Some(v) = &self.$field {
                        let _ = v;
                        $crate::__mirror_keys!($unit, v, $crate::mirror::key(prefix, stringify!($field)), out);
                    }
                )*
            }
        }

        impl $crate::mirror::MirrorOf<$Core> for $Name {
            fn merge(&self, into: &mut $Core, key: &str) -> $crate::error::Result<()> {
                self.apply(into, key)
            }
            fn from_core(c: &$Core) -> Option<Self> {
                Some($Name::from_core(c))
            }
        }
    };
}
