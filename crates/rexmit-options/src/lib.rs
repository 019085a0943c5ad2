//! One declaration per option (issue 35). A protocol core declares each of its options once, in
//! an *option table*: a `macro_rules!` macro that holds, per option, its doc line, type,
//! default (the RFC's), the Linux profile's value where it differs, its unit, and its allowed
//! range with the text an error shows. Everything else is derived from that table by handing it
//! to a generator macro (the "X-macro" pattern):
//!
//! - here, `config_table!` makes the core's configuration struct, its `Default`, the Linux
//!   profile's values (`linux_values`), the range checks (`Table::check_ranges`) and a walk over
//!   every option with its value (`Table::visit`, which the option list in the docs is made from);
//! - in `rexmit-scenario`, a second generator makes the scenario's mirror of the same table (the
//!   serde struct of `tcp = { ... }`), its mapping onto the core struct and the reverse map that
//!   `rexmit normalize` prints.
//!
//! A table is written as
//!
//! ```text
//! #[macro_export]
//! macro_rules! tcp_option_table {
//!     ($generator:path { $($head:tt)* }) => { $generator! { $($head)* ;
//!         public {
//!             /// Duplicate ACK threshold (RFC 5681 §3.2).
//!             opt dup_thresh: u32 = 3, unit = segments, check = (1..=1000).contains(dup_thresh) => "1..=1000";
//!             /// RTO bounds (RFC 6298 §2).
//!             table rto: RtoConfig = RtoConfig::tcp(), linux = ..., unit = table;
//!         }
//!         internal { /* options the core has but scenarios do not set */ }
//!     } };
//! }
//! ```
//!
//! `opt` declares a value, `table` a nested table (a struct declared by a table of its own). A
//! `check` expression sees the option's value by its name, as a reference. Checks that relate
//! two options live in the struct's `Relations` impl, next to it. Why a declarative macro and not
//! a derive or a build script: docs/architecture.md, "Options".
//!
//! Owns: the generator, the error type of a refused value, and how values are shown. Does not
//! own: any option (each core declares its own) or the scenario syntax (`rexmit-scenario`).

use std::fmt;

pub use rexmit_time::Duration;

/// A value outside its allowed range: the option's key (dotted inside nested tables, as a
/// scenario writes it: `rto.min`), the allowed range as the table states it, and the value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    pub field: String,
    pub allowed: String,
    pub got: String,
}

impl ConfigError {
    pub fn new(field: impl Into<String>, allowed: impl Into<String>, got: &dyn Show) -> Self {
        ConfigError {
            field: field.into(),
            allowed: allowed.into(),
            got: got.show(),
        }
    }

    /// The same error one table up: `min` inside `rto` becomes `rto.min`.
    pub fn under(mut self, table: &str) -> Self {
        self.field = format!("{table}.{}", self.field);
        self
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} is outside the allowed range {}",
            self.field, self.got, self.allowed
        )
    }
}

impl std::error::Error for ConfigError {}

/// `Err` naming `field` unless `ok`: the checks of `Relations` impls.
pub fn require(
    ok: bool,
    field: &str,
    allowed: impl Into<String>,
    got: &dyn Show,
) -> Result<(), ConfigError> {
    if ok {
        Ok(())
    } else {
        Err(ConfigError::new(field, allowed, got))
    }
}

/// How a value is written in error messages and in the option list.
pub trait Show {
    fn show(&self) -> String;
}

macro_rules! show_by_display {
    ($($t:ty),*) => { $(impl Show for $t { fn show(&self) -> String { self.to_string() } })* };
}
show_by_display!(u8, u16, u32, u64, usize, i64, f64, bool, Duration);

impl<T: Show> Show for Option<T> {
    fn show(&self) -> String {
        match self {
            Some(v) => v.show(),
            None => "none".to_string(),
        }
    }
}

/// An enum whose variants are chosen by name in scenario files (`recovery = "sack"`); made by
/// `choices!`, which declares each variant's name next to it.
pub trait Choice: Copy + PartialEq + Sized + 'static {
    /// The names, in declaration order.
    const NAMES: &'static [&'static str];
    /// The variants, in the same order.
    const VARIANTS: &'static [Self];

    fn name(self) -> &'static str {
        let i = Self::VARIANTS
            .iter()
            .position(|v| *v == self)
            .expect("every variant is listed");
        Self::NAMES[i]
    }

    fn from_name(name: &str) -> Option<Self> {
        let i = Self::NAMES.iter().position(|n| *n == name)?;
        Some(Self::VARIANTS[i])
    }
}

/// An enum of named choices: `choices! { /// doc \n pub enum E { /// doc \n A = "a", ... } }`
/// declares the enum (Clone, Copy, Debug, PartialEq, Eq, and what its own attributes derive,
/// e.g. `#[derive(Default)]` with `#[default]` on a variant) and its `Choice` and `Show` impls.
#[macro_export]
macro_rules! choices {
    (
        $(#[$meta:meta])*
        pub enum $Name:ident {
            $( $(#[$vmeta:meta])* $Variant:ident = $text:literal ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum $Name {
            $( $(#[$vmeta])* $Variant, )*
        }
        impl $crate::Choice for $Name {
            const NAMES: &'static [&'static str] = &[$($text),*];
            const VARIANTS: &'static [Self] = &[$($Name::$Variant),*];
        }
        impl $crate::Show for $Name {
            fn show(&self) -> String {
                $crate::Choice::name(*self).to_string()
            }
        }
    };
}

/// One option as `Table::visit` reports it.
#[derive(Clone, Debug)]
pub struct Row {
    /// The key as a scenario writes it (`rto.min`).
    pub key: String,
    /// The doc comment of its declaration.
    pub doc: &'static str,
    /// The table's unit word (`bytes`, `time`, `segments`, `flag`, `choice`, ...).
    pub unit: &'static str,
    /// The allowed range as errors state it; for a choice, its names.
    pub allowed: String,
    /// The value in the visited struct.
    pub value: String,
    /// Set by scenarios (`public`), or fixed by the core (`internal`).
    pub public: bool,
}

/// What `config_table!` derives for a struct.
pub trait Table {
    /// Every option's own range (nested tables' relations included), in table order.
    fn check_ranges(&self) -> Result<(), ConfigError>;
    /// Every option with its value, nested tables flattened under their key.
    fn visit(&self, prefix: &str, f: &mut dyn FnMut(Row));
}

/// The checks that relate options of one table to each other (written by hand, next to the
/// table: `initial_ssthresh >= 2 * mss`).
pub trait Relations {
    fn check_relations(&self) -> Result<(), ConfigError> {
        Ok(())
    }
}

/// Ranges, then relations.
pub fn validate<T: Table + Relations>(t: &T) -> Result<(), ConfigError> {
    t.check_ranges()?;
    t.check_relations()
}

/// The key of `name` inside `prefix` ("" at the top).
pub fn key(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}.{name}")
    }
}

/// The generator of a core's configuration struct from its option table (module docs).
#[macro_export]
macro_rules! config_table {
    (
        $(#[$meta:meta])*
        pub struct $Name:ident ;
        public {
            $( $(#[doc = $doc:literal])* $kind:ident $field:ident : $ty:ty = $default:expr
               $(, linux = $linux:expr)? , unit = $unit:ident
               $(, check = $check:expr => $allowed:literal)?
               $(, relation = $relation:literal)?
               $(, shown = $shown:expr)? ; )*
        }
        internal {
            $( $(#[doc = $idoc:literal])* $ikind:ident $ifield:ident : $ity:ty = $idefault:expr
               $(, linux = $ilinux:expr)? , unit = $iunit:ident
               $(, check = $icheck:expr => $iallowed:literal)?
               $(, relation = $irelation:literal)? ; )*
        }
    ) => {
        $(#[$meta])*
        pub struct $Name {
            $( $(#[doc = $doc])* pub $field: $ty, )*
            $( $(#[doc = $idoc])* pub $ifield: $ity, )*
        }

        impl Default for $Name {
            /// The RFC defaults: each option's declared default.
            fn default() -> Self {
                $Name {
                    $( $field: $default, )*
                    $( $ifield: $idefault, )*
                }
            }
        }

        impl $Name {
            /// The Linux profile: each option's declared Linux value, its default where the
            /// table gives none.
            #[allow(dead_code)]
            pub fn linux_values() -> Self {
                $Name {
                    $( $field: $crate::__first!($($linux,)? $default), )*
                    $( $ifield: $crate::__first!($($ilinux,)? $idefault), )*
                }
            }
        }

        impl $crate::Table for $Name {
            fn check_ranges(&self) -> Result<(), $crate::ConfigError> {
                $( $crate::__check!($kind, &self.$field, $field $(, $check => $allowed)?); )*
                $( $crate::__check!($ikind, &self.$ifield, $ifield $(, $icheck => $iallowed)?); )*
                Ok(())
            }

            fn visit(&self, prefix: &str, f: &mut dyn FnMut($crate::Row)) {
                $( $crate::__visit!($kind, $unit, $ty, &self.$field, prefix, $field, true,
                    concat!($($doc, "\n",)* ""),
                    $crate::__allowed(&[$($allowed,)? $($relation)?]), f); )*
                $( $crate::__visit!($ikind, $iunit, $ity, &self.$ifield, prefix, $ifield, false,
                    concat!($($idoc, "\n",)* ""),
                    $crate::__allowed(&[$($iallowed,)? $($irelation)?]), f); )*
            }
        }
    };
}

/// The allowed-range text of the option list: the option's own range and, where another option
/// bounds it, that relation (`Relations` checks it).
#[doc(hidden)]
pub fn __allowed(parts: &[&str]) -> String {
    parts
        .iter()
        .filter(|p| !p.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join("; ")
}

#[doc(hidden)]
#[macro_export]
macro_rules! __first {
    ($a:expr $(, $rest:expr)*) => {
        $a
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __check {
    (opt, $v:expr, $f:ident) => {};
    (opt, $v:expr, $f:ident, $check:expr => $allowed:literal) => {{
        let $f = $v;
        if !($check) {
            return Err($crate::ConfigError::new(stringify!($f), $allowed, $f));
        }
    }};
    (table, $v:expr, $f:ident) => {{
        let t = $v;
        $crate::Table::check_ranges(t).map_err(|e| e.under(stringify!($f)))?;
        $crate::Relations::check_relations(t).map_err(|e| e.under(stringify!($f)))?;
    }};
}

#[doc(hidden)]
#[macro_export]
macro_rules! __visit {
    (table, $unit:ident, $ty:ty, $v:expr, $prefix:expr, $f:ident, $public:expr, $doc:expr, $allowed:expr, $out:expr) => {
        $crate::Table::visit($v, &$crate::key($prefix, stringify!($f)), $out)
    };
    (opt, choice, $ty:ty, $v:expr, $prefix:expr, $f:ident, $public:expr, $doc:expr, $allowed:expr, $out:expr) => {
        $out($crate::Row {
            key: $crate::key($prefix, stringify!($f)),
            doc: $doc,
            unit: "choice",
            allowed: $crate::__allowed(&[&<$ty as $crate::Choice>::NAMES.join(" | "), &$allowed]),
            value: $crate::Show::show($v),
            public: $public,
        })
    };
    (opt, $unit:ident, $ty:ty, $v:expr, $prefix:expr, $f:ident, $public:expr, $doc:expr, $allowed:expr, $out:expr) => {
        $out($crate::Row {
            key: $crate::key($prefix, stringify!($f)),
            doc: $doc,
            unit: stringify!($unit),
            allowed: $allowed.to_string(),
            value: $crate::Show::show($v),
            public: $public,
        })
    };
}

#[cfg(test)]
mod tests;
