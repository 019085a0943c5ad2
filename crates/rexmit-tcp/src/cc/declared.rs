//! A controller declared for the registry in its own file: its name, one-line doc, parameters
//! and a function that builds it from its starting `Window` and its parameter values. The
//! controllers after the original built-ins (Vegas, Veno, Illinois, H-TCP, Hybla, YeAH, BIC,
//! TCP-LP, LEDBAT) are registered this way, exactly as a plugin from outside the crate is
//! (`registry::CcPlugin`); `CcAlgorithm` stays the list of the original built-ins.

use super::registry::{CcPlugin, ParamSpec};
use super::{CcParams, CongestionControl, Window};
use crate::ecn::Feedback;
use std::sync::Arc;

/// Builds a controller from its window and its parameter values (in declaration order).
pub(crate) type Build = fn(Window, &[f64]) -> Box<dyn CongestionControl>;

pub(crate) struct Declared {
    pub name: &'static str,
    pub doc: &'static str,
    pub params: Vec<ParamSpec>,
    pub build: Build,
}

impl Declared {
    pub fn registered(self) -> Arc<dyn CcPlugin> {
        Arc::new(self)
    }

    /// Registered as a controller that needs ECN with receivers echoing as `feedback`
    /// (`CcPlugin::ecn_feedback`).
    pub fn registered_with_ecn(self, feedback: Feedback) -> Arc<dyn CcPlugin> {
        Arc::new(WithEcn(self, feedback))
    }
}

/// A declared controller that needs ECN (`Declared::registered_with_ecn`).
struct WithEcn(Declared, Feedback);

impl CcPlugin for WithEcn {
    fn name(&self) -> &str {
        self.0.name()
    }
    fn doc(&self) -> &str {
        self.0.doc()
    }
    fn params(&self) -> &[ParamSpec] {
        self.0.params()
    }
    fn build(&self, p: &CcParams, values: &[f64]) -> Box<dyn CongestionControl> {
        self.0.build(p, values)
    }
    fn ecn_feedback(&self) -> Option<Feedback> {
        Some(self.1)
    }
}

impl CcPlugin for Declared {
    fn name(&self) -> &str {
        self.name
    }
    fn doc(&self) -> &str {
        self.doc
    }
    fn params(&self) -> &[ParamSpec] {
        &self.params
    }
    fn build(&self, p: &CcParams, values: &[f64]) -> Box<dyn CongestionControl> {
        (self.build)(Window::from_params(p), values)
    }
}

/// A whole-number parameter in [min, max].
pub(crate) fn count(name: &str, doc: &str, default: f64, min: f64, max: f64) -> ParamSpec {
    ParamSpec::new(name, doc, default, min, max).integer()
}

/// A switch: 0 (off) or 1 (on).
pub(crate) fn switch(name: &str, doc: &str, on: bool) -> ParamSpec {
    count(name, doc, if on { 1.0 } else { 0.0 }, 0.0, 1.0)
}
