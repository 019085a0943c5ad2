//! Congestion controllers by name (issue 36): the registry a scenario's `cc = "name"` is looked
//! up in, and each controller's declared parameters (`cc_params = { alpha = 2 }`), checked
//! against their ranges before a run starts. Built-ins are registered exactly as a plugin is:
//! a `CcPlugin` (name, doc, parameters, a function that builds the controller) handed to
//! `register`. A plugin written in Rust outside this crate calls `register` once before it
//! runs scenarios; one written in Python is registered through `rexmit.register_cc`, which
//! wraps it in a `CcPlugin` of its own (crate `rexmit-py`).
//!
//! The registry is one per process, like Linux's list of congestion-control modules or ns-3's
//! type registry: a scenario names a controller, so the name must mean the same thing
//! wherever the scenario is read. Owns: names, parameter schemas, building. Does not own: any
//! controller's behaviour.

use super::{CcAlgorithm, CcParams, CongestionControl};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, OnceLock, RwLock};

/// One numeric parameter of a controller: its name in `cc_params`, what it means, its
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

/// A controller that scenarios can name.
pub trait CcPlugin: Send + Sync {
    /// The name scenarios use (`cc = "vegas"`).
    fn name(&self) -> &str;
    /// One line: what it is and where it is specified.
    fn doc(&self) -> &str {
        ""
    }
    /// Its parameters, in the order `build` receives their values.
    fn params(&self) -> &[ParamSpec] {
        &[]
    }
    /// A controller for one connection; `values` follow `params()` (defaults filled in).
    fn build(&self, p: &CcParams, values: &[f64]) -> Box<dyn CongestionControl>;
    /// `Some`: the controller reacts to ECN marks only, so it needs `ecn = "on"`, and the
    /// receiver echoes them this way (DCTCP, RFC 8257 §3.2). `None` (the default): it runs
    /// with or without ECN, and an ECN receiver echoes as RFC 3168 §6.1.3.
    fn ecn_feedback(&self) -> Option<crate::ecn::Feedback> {
        None
    }
}

/// The name of a registered controller (`TcpConfig::cc`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CcName(Arc<str>);

impl CcName {
    pub fn new(name: &str) -> Self {
        CcName(name.into())
    }
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<&str> for CcName {
    fn from(s: &str) -> Self {
        CcName::new(s)
    }
}

impl From<CcAlgorithm> for CcName {
    fn from(a: CcAlgorithm) -> Self {
        CcName::new(rexmit_options::Choice::name(a))
    }
}

impl PartialEq<CcAlgorithm> for CcName {
    fn eq(&self, a: &CcAlgorithm) -> bool {
        self.as_str() == rexmit_options::Choice::name(*a)
    }
}

impl fmt::Display for CcName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl rexmit_options::Show for CcName {
    fn show(&self) -> String {
        self.0.to_string()
    }
}

/// The parameter values a configuration gives its controller (`cc_params`), by name.
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

/// Why `cc`/`cc_params` were refused: the key (`cc`, `cc_params.alpha`), the allowed values,
/// what was given.
pub type ParamError = rexmit_options::ConfigError;

/// The values `plugin` is built with: `given` where set, its defaults elsewhere; or the first
/// key that is not one of its parameters or is out of its range.
pub fn resolve(plugin: &dyn CcPlugin, given: &ParamMap) -> Result<Vec<f64>, ParamError> {
    let specs = plugin.params();
    if let Some(unknown) = given
        .0
        .keys()
        .find(|k| !specs.iter().any(|s| &s.name == *k))
    {
        let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
        let allowed = if names.is_empty() {
            format!("none: cc = \"{}\" has no parameters", plugin.name())
        } else {
            format!(
                "a parameter of cc = \"{}\": {}",
                plugin.name(),
                names.join(", ")
            )
        };
        return Err(ParamError::new(
            format!("cc_params.{unknown}"),
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
                    format!("cc_params.{}", s.name),
                    s.allowed(),
                    &v,
                ))
            }
        })
        .collect()
}

/// `given` with every parameter of `plugin` written out (what `rexmit normalize` shows).
pub fn complete(plugin: &dyn CcPlugin, given: &ParamMap) -> Result<ParamMap, ParamError> {
    let values = resolve(plugin, given)?;
    Ok(ParamMap(
        plugin
            .params()
            .iter()
            .zip(values)
            .map(|(s, v)| (s.name.clone(), v))
            .collect(),
    ))
}

type Table = BTreeMap<String, Arc<dyn CcPlugin>>;

fn table() -> &'static RwLock<Table> {
    static REGISTRY: OnceLock<RwLock<Table>> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let mut t = Table::new();
        for p in super::builtins() {
            t.insert(p.name().to_string(), p);
        }
        RwLock::new(t)
    })
}

/// Why a registration was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegisterError {
    /// A built-in has this name; built-ins cannot be replaced.
    Builtin(String),
    /// A plugin has this name already and `replace` was not asked for.
    Taken(String),
    /// The name cannot be written in a scenario: empty, or not [a-z0-9_] (lowercase ASCII).
    BadName(String),
}

impl fmt::Display for RegisterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegisterError::Builtin(n) => write!(f, "{n:?} is a built-in controller"),
            RegisterError::Taken(n) => write!(
                f,
                "a controller named {n:?} is registered already (register again with replace=True to change it)"
            ),
            RegisterError::BadName(n) => write!(
                f,
                "{n:?} is not a controller name: use lowercase letters, digits and _"
            ),
        }
    }
}

impl std::error::Error for RegisterError {}

/// Register `plugin` under its name; `replace`: a plugin (never a built-in) of that name is
/// replaced (a notebook cell run twice).
pub fn register(plugin: Arc<dyn CcPlugin>, replace: bool) -> Result<(), RegisterError> {
    let name = plugin.name().to_string();
    check_name(&name, replace)?;
    let mut t = table().write().unwrap_or_else(|e| e.into_inner());
    if t.contains_key(&name) && !replace {
        return Err(RegisterError::Taken(name));
    }
    t.insert(name, plugin);
    Ok(())
}

/// Whether `name` could be registered now (`register`'s checks on the name alone): a bridge
/// checks it before it inspects what it registers.
pub fn check_name(name: &str, replace: bool) -> Result<(), RegisterError> {
    let ok = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    if !ok {
        return Err(RegisterError::BadName(name.to_string()));
    }
    if is_builtin(name) {
        return Err(RegisterError::Builtin(name.to_string()));
    }
    if !replace && lookup(name).is_some() {
        return Err(RegisterError::Taken(name.to_string()));
    }
    Ok(())
}

/// Whether `name` is one of the controllers that come with rexmit (`cc::builtins`: the
/// original `CcAlgorithm`s and those declared as plugins in their own files); they cannot be
/// replaced.
pub fn is_builtin(name: &str) -> bool {
    static NAMES: OnceLock<Vec<String>> = OnceLock::new();
    NAMES
        .get_or_init(|| {
            super::builtins()
                .iter()
                .map(|p| p.name().to_string())
                .collect()
        })
        .iter()
        .any(|n| n == name)
}

/// The controller registered as `name`.
pub fn lookup(name: &str) -> Option<Arc<dyn CcPlugin>> {
    table()
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .get(name)
        .cloned()
}

/// Every registered name, sorted.
pub fn names() -> Vec<String> {
    table()
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .keys()
        .cloned()
        .collect()
}

/// A built-in controller as a plugin: its algorithm, doc and parameters.
pub struct Builtin {
    pub alg: CcAlgorithm,
    pub doc: &'static str,
    pub params: Vec<ParamSpec>,
}

impl CcPlugin for Builtin {
    fn name(&self) -> &str {
        rexmit_options::Choice::name(self.alg)
    }
    fn doc(&self) -> &str {
        self.doc
    }
    fn params(&self) -> &[ParamSpec] {
        &self.params
    }
    fn build(&self, p: &CcParams, values: &[f64]) -> Box<dyn CongestionControl> {
        self.alg.build(p, values)
    }
}
