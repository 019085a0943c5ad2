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
use crate::named::{Declares, Kind, Registry};
pub use crate::named::{ParamError, ParamMap, ParamSpec, RegisterError};
use std::sync::Arc;

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

impl<'a> Declares for dyn CcPlugin + 'a {
    fn plugin_name(&self) -> &str {
        self.name()
    }
    fn plugin_doc(&self) -> &str {
        self.doc()
    }
    fn plugin_params(&self) -> &[ParamSpec] {
        self.params()
    }
}

/// The name of a registered controller (`TcpConfig::cc`).
pub type CcName = crate::named::PluginName;

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

/// The controllers by name.
pub static CONTROLLERS: Registry<dyn CcPlugin> = Registry::new(
    Kind {
        key: "cc",
        params_key: "cc_params",
        noun: "controller",
    },
    super::builtins,
);

/// The values `plugin` is built with: `given` where set, its defaults elsewhere; or the first
/// key that is not one of its parameters or is out of its range.
pub fn resolve(plugin: &dyn CcPlugin, given: &ParamMap) -> Result<Vec<f64>, ParamError> {
    CONTROLLERS.resolve(plugin, given)
}

/// `given` with every parameter of `plugin` written out (what `rexmit normalize` shows).
pub fn complete(plugin: &dyn CcPlugin, given: &ParamMap) -> Result<ParamMap, ParamError> {
    CONTROLLERS.complete(plugin, given)
}

/// Register `plugin` under its name; `replace`: a plugin (never a built-in) of that name is
/// replaced (a notebook cell run twice).
pub fn register(plugin: Arc<dyn CcPlugin>, replace: bool) -> Result<(), RegisterError> {
    CONTROLLERS.register(plugin, replace)
}

/// Whether `name` could be registered now (`register`'s checks on the name alone).
pub fn check_name(name: &str, replace: bool) -> Result<(), RegisterError> {
    CONTROLLERS.check_name(name, replace)
}

/// Whether `name` is one of the controllers that come with rexmit (`cc::builtins`: the
/// original `CcAlgorithm`s and those declared as plugins in their own files); they cannot be
/// replaced.
pub fn is_builtin(name: &str) -> bool {
    CONTROLLERS.is_builtin(name)
}

/// The controller registered as `name`.
pub fn lookup(name: &str) -> Option<Arc<dyn CcPlugin>> {
    CONTROLLERS.lookup(name)
}

/// Every registered name, sorted.
pub fn names() -> Vec<String> {
    CONTROLLERS.names()
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
