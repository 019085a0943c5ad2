//! What a scenario selects by name (issue 36): a registry of plugins of one kind — congestion
//! controllers (`cc = "vegas"`, `cc::registry`), loss-detection policies (`loss = "rfc"`,
//! `loss::registry`) — each with its declared parameters (`cc_params = { alpha = 2 }`), checked
//! against their ranges before a run starts. Built-ins are registered exactly as a plugin is.
//!
//! A registry is one per process, like Linux's list of congestion-control modules or ns-3's
//! type registry: a scenario names a plugin, so the name must mean the same thing wherever the
//! scenario is read. Owns: names, parameter schemas. Does not own: what a plugin does.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, OnceLock, RwLock};

/// One numeric parameter of a plugin: its name in the parameter table, what it means, its
/// default and its allowed range.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamSpec {
    pub name: String,
    pub doc: String,
    pub default: f64,
    pub min: f64,
    pub max: f64,
    /// Whether `min` (`max`) itself is allowed.
    pub min_inclusive: bool,
    pub max_inclusive: bool,
    /// Whole numbers only.
    pub integer: bool,
}

impl ParamSpec {
    /// A parameter in [min, max] (`open_min`/`open_max` with `(`).
    pub fn new(name: &str, doc: &str, default: f64, min: f64, max: f64) -> Self {
        ParamSpec {
            name: name.to_string(),
            doc: doc.to_string(),
            default,
            min,
            max,
            min_inclusive: true,
            max_inclusive: true,
            integer: false,
        }
    }
    /// `min` itself is not allowed.
    pub fn open_min(mut self) -> Self {
        self.min_inclusive = false;
        self
    }
    /// `max` itself is not allowed.
    pub fn open_max(mut self) -> Self {
        self.max_inclusive = false;
        self
    }
    /// Whole numbers only.
    pub fn integer(mut self) -> Self {
        self.integer = true;
        self
    }

    /// The range as errors and the docs write it: `(0, 1000]`.
    pub fn allowed(&self) -> String {
        format!(
            "{}{}, {}{}{}",
            if self.min_inclusive { "[" } else { "(" },
            self.min,
            self.max,
            if self.max_inclusive { "]" } else { ")" },
            if self.integer { " (whole numbers)" } else { "" }
        )
    }

    pub fn allows(&self, v: f64) -> bool {
        v.is_finite()
            && (v > self.min || (self.min_inclusive && v == self.min))
            && (v < self.max || (self.max_inclusive && v == self.max))
            && (!self.integer || v.fract() == 0.0)
    }
}

/// The name of a registered plugin (`TcpConfig::cc`, `TcpConfig::loss`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PluginName(Arc<str>);

impl PluginName {
    pub fn new(name: &str) -> Self {
        PluginName(name.into())
    }
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<&str> for PluginName {
    fn from(s: &str) -> Self {
        PluginName::new(s)
    }
}

impl fmt::Display for PluginName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl rexmit_options::Show for PluginName {
    fn show(&self) -> String {
        self.0.to_string()
    }
}

/// The parameter values a configuration gives its plugin (`cc_params`), by name.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ParamMap(pub BTreeMap<String, f64>);

impl ParamMap {
    /// `[("a", 2.0), ("b", 0.25)]` as a map.
    pub fn of(values: &[(&str, f64)]) -> Self {
        ParamMap(values.iter().map(|(k, v)| (k.to_string(), *v)).collect())
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn get(&self, name: &str) -> Option<f64> {
        self.0.get(name).copied()
    }
    pub fn set(&mut self, name: &str, v: f64) {
        self.0.insert(name.to_string(), v);
    }
}

impl rexmit_options::Show for ParamMap {
    fn show(&self) -> String {
        let inner: Vec<String> = self.0.iter().map(|(k, v)| format!("{k} = {v}")).collect();
        format!("{{ {} }}", inner.join(", "))
    }
}

/// Why parameters were refused: the key (`cc_params.alpha`), the allowed values, what was given.
pub type ParamError = rexmit_options::ConfigError;

/// What every plugin declares: its name, a one-line doc, its parameters.
pub trait Declares {
    fn plugin_name(&self) -> &str;
    fn plugin_doc(&self) -> &str;
    fn plugin_params(&self) -> &[ParamSpec];
}

/// One kind of plugin: the scenario key that names one (`cc`), its parameter table's key
/// (`cc_params`), and what errors call one ("controller").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kind {
    pub key: &'static str,
    pub params_key: &'static str,
    pub noun: &'static str,
}

/// Why a registration was refused (the second field: what the registry holds, "controller").
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegisterError {
    /// A built-in has this name; built-ins cannot be replaced.
    Builtin(String, &'static str),
    /// A plugin has this name already and `replace` was not asked for.
    Taken(String, &'static str),
    /// The name cannot be written in a scenario: empty, or not [a-z0-9_] (lowercase ASCII).
    BadName(String, &'static str),
}

impl fmt::Display for RegisterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegisterError::Builtin(n, noun) => write!(f, "{n:?} is a built-in {noun}"),
            RegisterError::Taken(n, noun) => write!(
                f,
                "a {noun} named {n:?} is registered already (register again with replace=True to change it)"
            ),
            RegisterError::BadName(n, noun) => write!(
                f,
                "{n:?} is not a {noun} name: use lowercase letters, digits and _"
            ),
        }
    }
}

impl std::error::Error for RegisterError {}

type Table<P> = BTreeMap<String, Arc<P>>;

/// The plugins of one kind by name, the built-ins first registered by `builtins`.
pub struct Registry<P: ?Sized + Declares + Send + Sync + 'static> {
    kind: Kind,
    builtins: fn() -> Vec<Arc<P>>,
    table: OnceLock<RwLock<Table<P>>>,
    builtin_names: OnceLock<Vec<String>>,
}

impl<P: ?Sized + Declares + Send + Sync + 'static> Registry<P> {
    pub const fn new(kind: Kind, builtins: fn() -> Vec<Arc<P>>) -> Self {
        Registry {
            kind,
            builtins,
            table: OnceLock::new(),
            builtin_names: OnceLock::new(),
        }
    }

    pub fn kind(&self) -> Kind {
        self.kind
    }

    fn table(&self) -> &RwLock<Table<P>> {
        self.table.get_or_init(|| {
            let mut t = Table::new();
            for p in (self.builtins)() {
                t.insert(p.plugin_name().to_string(), p);
            }
            RwLock::new(t)
        })
    }

    /// Register `plugin` under its name; `replace`: a plugin (never a built-in) of that name
    /// is replaced (a notebook cell run twice).
    pub fn register(&self, plugin: Arc<P>, replace: bool) -> Result<(), RegisterError> {
        let name = plugin.plugin_name().to_string();
        self.check_name(&name, replace)?;
        let mut t = self.table().write().unwrap_or_else(|e| e.into_inner());
        if t.contains_key(&name) && !replace {
            return Err(RegisterError::Taken(name, self.kind.noun));
        }
        t.insert(name, plugin);
        Ok(())
    }

    /// Whether `name` could be registered now (`register`'s checks on the name alone): a
    /// bridge checks it before it inspects what it registers.
    pub fn check_name(&self, name: &str, replace: bool) -> Result<(), RegisterError> {
        let noun = self.kind.noun;
        let ok = !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
        if !ok {
            return Err(RegisterError::BadName(name.to_string(), noun));
        }
        if self.is_builtin(name) {
            return Err(RegisterError::Builtin(name.to_string(), noun));
        }
        if !replace && self.lookup(name).is_some() {
            return Err(RegisterError::Taken(name.to_string(), noun));
        }
        Ok(())
    }

    /// Whether `name` is one that comes with rexmit; built-ins cannot be replaced.
    pub fn is_builtin(&self, name: &str) -> bool {
        self.builtin_names
            .get_or_init(|| {
                (self.builtins)()
                    .iter()
                    .map(|p| p.plugin_name().to_string())
                    .collect()
            })
            .iter()
            .any(|n| n == name)
    }

    /// The plugin registered as `name`.
    pub fn lookup(&self, name: &str) -> Option<Arc<P>> {
        self.table()
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(name)
            .cloned()
    }

    /// Every registered name, sorted.
    pub fn names(&self) -> Vec<String> {
        self.table()
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .keys()
            .cloned()
            .collect()
    }

    /// The values `plugin` is built with: `given` where set, its defaults elsewhere; or the
    /// first key that is not one of its parameters or is out of its range.
    pub fn resolve<Q: ?Sized + Declares>(
        &self,
        plugin: &Q,
        given: &ParamMap,
    ) -> Result<Vec<f64>, ParamError> {
        let Kind {
            key, params_key, ..
        } = self.kind;
        let specs = plugin.plugin_params();
        if let Some(unknown) = given
            .0
            .keys()
            .find(|k| !specs.iter().any(|s| &s.name == *k))
        {
            let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
            let name = plugin.plugin_name();
            let allowed = if names.is_empty() {
                format!("none: {key} = \"{name}\" has no parameters")
            } else {
                format!("a parameter of {key} = \"{name}\": {}", names.join(", "))
            };
            return Err(ParamError::new(
                format!("{params_key}.{unknown}"),
                allowed,
                &given.0[unknown],
            ));
        }
        specs
            .iter()
            .map(|s| {
                let v = given.get(&s.name).unwrap_or(s.default);
                if s.allows(v) {
                    Ok(v)
                } else {
                    Err(ParamError::new(
                        format!("{params_key}.{}", s.name),
                        s.allowed(),
                        &v,
                    ))
                }
            })
            .collect()
    }

    /// `given` with every parameter of `plugin` written out (what `rexmit normalize` shows).
    pub fn complete<Q: ?Sized + Declares>(
        &self,
        plugin: &Q,
        given: &ParamMap,
    ) -> Result<ParamMap, ParamError> {
        let values = self.resolve(plugin, given)?;
        Ok(ParamMap(
            plugin
                .plugin_params()
                .iter()
                .zip(values)
                .map(|(s, v)| (s.name.clone(), v))
                .collect(),
        ))
    }

    /// The plugin `name` and its values for `given`: what a configuration that passed its
    /// checks builds from (`check` is the same without the plugin).
    pub fn select(&self, name: &str, given: &ParamMap) -> Result<(Arc<P>, Vec<f64>), ParamError> {
        let Some(plugin) = self.lookup(name) else {
            let names = self.names().join(", ");
            return Err(ParamError::new(
                self.kind.key,
                format!("one of {names}"),
                &PluginName::new(name),
            ));
        };
        let values = self.resolve(plugin.as_ref(), given)?;
        Ok((plugin, values))
    }
}
