//! Loss-detection policies written in Python (issue 36): `rexmit.register_loss(name, cls)`
//! (python/rexmit/plugins.py) registers a `PyLossPlugin` in the TCP core's policy registry;
//! every connection whose `loss` names it gets a `PyLossPolicy`, which asks the instance's
//! `dup_thresh(state)` and `reo_wnd(state)` when the class defines them and runs the RFC rule
//! (`rexmit_tcp::loss::rfc_*`) otherwise.
//!
//! `dup_thresh` must return a whole number of segments in [1, `MAX_DUP_THRESH`], `reo_wnd` a
//! whole number of nanoseconds in [0, `MAX_REO_WND_NS`]. An exception or another answer is a
//! `PluginFailure` (plugins.rs): the policy stops calling Python and answers with the RFC rule,
//! the run stops at once and `run` raises `rexmit.PluginError` with the traceback, the method
//! and the simulated time.

use crate::plugins::{fail, param_dict, param_specs, traceback, PluginFailure, CALLS};
use pyo3::prelude::*;
use rexmit_tcp::loss::{
    rfc_dup_thresh, rfc_reo_wnd, DupThreshState, LossPlugin, LossPolicy, ReoWndState, POLICIES,
};
use rexmit_tcp::named::ParamSpec;
use rexmit_time::{Duration, Time};
use std::cell::Cell;
use std::sync::Arc;

/// The largest duplicate-ACK threshold a policy may answer (the `dup_thresh` option's bound).
pub const MAX_DUP_THRESH: u64 = 1000;
/// The largest reordering window a policy may answer: 1000 s.
pub const MAX_REO_WND_NS: u64 = 1_000_000_000_000;

fn opt_ns(d: Option<Duration>) -> Option<u64> {
    d.map(|d| d.as_nanos())
}

/// What a policy's `dup_thresh` receives (`rexmit_tcp::loss::DupThreshState`).
#[pyclass(frozen, name = "DupThreshState", module = "rexmit._core")]
pub struct PyDupThresh {
    #[pyo3(get)]
    now_ns: u64,
    #[pyo3(get)]
    dup_thresh: u32,
    #[pyo3(get)]
    dupacks: u32,
    #[pyo3(get)]
    outstanding: u32,
    #[pyo3(get)]
    new_data_sendable: bool,
    #[pyo3(get)]
    early_retransmit: bool,
    #[pyo3(get)]
    thin: bool,
    #[pyo3(get)]
    in_recovery: bool,
    #[pyo3(get)]
    dsacks: u64,
}

impl From<&DupThreshState> for PyDupThresh {
    fn from(s: &DupThreshState) -> Self {
        PyDupThresh {
            now_ns: s.now.as_nanos(),
            dup_thresh: s.dup_thresh,
            dupacks: s.dupacks,
            outstanding: s.outstanding,
            new_data_sendable: s.new_data_sendable,
            early_retransmit: s.early_retransmit,
            thin: s.thin,
            in_recovery: s.in_recovery,
            dsacks: s.dsacks,
        }
    }
}

/// What a policy's `reo_wnd` receives (`rexmit_tcp::loss::ReoWndState`); times in integer
/// nanoseconds.
#[pyclass(frozen, name = "ReoWndState", module = "rexmit._core")]
pub struct PyReoWnd {
    #[pyo3(get)]
    now_ns: u64,
    #[pyo3(get)]
    reordering_seen: bool,
    #[pyo3(get)]
    reo_wnd_mult: u32,
    #[pyo3(get)]
    in_recovery: bool,
    #[pyo3(get)]
    segs_sacked: u32,
    #[pyo3(get)]
    dup_thresh: u32,
    #[pyo3(get)]
    rack_rtt_ns: u64,
    #[pyo3(get)]
    min_rtt_ns: Option<u64>,
    #[pyo3(get)]
    srtt_ns: Option<u64>,
    #[pyo3(get)]
    dsacks: u64,
}

impl From<&ReoWndState> for PyReoWnd {
    fn from(s: &ReoWndState) -> Self {
        PyReoWnd {
            now_ns: s.now.as_nanos(),
            reordering_seen: s.reordering_seen,
            reo_wnd_mult: s.reo_wnd_mult,
            in_recovery: s.in_recovery,
            segs_sacked: s.segs_sacked,
            dup_thresh: s.dup_thresh,
            rack_rtt_ns: s.rack_rtt.as_nanos(),
            min_rtt_ns: opt_ns(s.min_rtt),
            srtt_ns: opt_ns(s.srtt),
            dsacks: s.dsacks,
        }
    }
}

/// A registered Python policy class.
struct PyLossPlugin {
    name: String,
    doc: String,
    params: Vec<ParamSpec>,
    factory: Py<PyAny>,
    defines_dup_thresh: bool,
    defines_reo_wnd: bool,
}

impl LossPlugin for PyLossPlugin {
    fn name(&self) -> &str {
        &self.name
    }
    fn doc(&self) -> &str {
        &self.doc
    }
    fn params(&self) -> &[ParamSpec] {
        &self.params
    }
    fn build(&self, values: &[f64]) -> Box<dyn LossPolicy> {
        let mut p = PyLossPolicy {
            name: self.name.clone(),
            dup_thresh: None,
            reo_wnd: None,
            failed: Cell::new(false),
        };
        Python::with_gil(|py| {
            let made =
                param_dict(py, &self.params, values).and_then(|d| self.factory.call1(py, (d,)));
            match made {
                Ok(obj) => {
                    let method = |on: bool, m: &str| on.then(|| obj.getattr(py, m).ok()).flatten();
                    p.dup_thresh = method(self.defines_dup_thresh, "dup_thresh");
                    p.reo_wnd = method(self.defines_reo_wnd, "reo_wnd");
                }
                Err(e) => p.raised(py, "__init__", Time::ZERO, &e),
            }
        });
        Box::new(p)
    }
}

/// One connection's Python policy: the instance's bound methods.
struct PyLossPolicy {
    name: String,
    dup_thresh: Option<Py<PyAny>>,
    reo_wnd: Option<Py<PyAny>>,
    failed: Cell<bool>,
}

impl PyLossPolicy {
    fn raised(&self, py: Python<'_>, event: &'static str, at: Time, e: &PyErr) {
        self.failure(event, at, traceback(py, e));
    }

    fn failure(&self, event: &'static str, at: Time, message: String) {
        self.failed.set(true);
        fail(PluginFailure {
            plugin: self.name.clone(),
            event,
            at,
            message,
        });
    }

    /// Call `method` with `state` and read a whole number in [lo, hi] back; None (the
    /// failure recorded) otherwise.
    fn ask<S: pyo3::PyClass + Into<pyo3::PyClassInitializer<S>>>(
        &self,
        method: &Py<PyAny>,
        event: &'static str,
        at: Time,
        state: S,
        (lo, hi, unit): (u64, u64, &str),
    ) -> Option<u64> {
        CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Python::with_gil(|py| {
            let got = Py::new(py, state).and_then(|s| method.call1(py, (s,)));
            let v = match got {
                Ok(v) => v,
                Err(e) => {
                    self.raised(py, event, at, &e);
                    return None;
                }
            };
            match v.extract::<u64>(py) {
                Ok(n) if (lo..=hi).contains(&n) => Some(n),
                _ => {
                    let shown = v
                        .bind(py)
                        .repr()
                        .map_or_else(|_| "?".to_string(), |r| r.to_string());
                    self.failure(
                        event,
                        at,
                        format!(
                            "the policy's {event} returned {shown}: allowed a whole number of \
                             {unit} in [{lo}, {hi}]"
                        ),
                    );
                    None
                }
            }
        })
    }
}

impl LossPolicy for PyLossPolicy {
    fn name(&self) -> &str {
        &self.name
    }
    fn dup_thresh(&self, s: &DupThreshState) -> u32 {
        match self.dup_thresh.as_ref().filter(|_| !self.failed.get()) {
            Some(m) => self
                .ask(
                    m,
                    "dup_thresh",
                    s.now,
                    PyDupThresh::from(s),
                    (1, MAX_DUP_THRESH, "segments"),
                )
                .map_or_else(|| rfc_dup_thresh(s), |n| n as u32),
            None => rfc_dup_thresh(s),
        }
    }
    fn reo_wnd(&self, s: &ReoWndState) -> Duration {
        match self.reo_wnd.as_ref().filter(|_| !self.failed.get()) {
            Some(m) => self
                .ask(
                    m,
                    "reo_wnd",
                    s.now,
                    PyReoWnd::from(s),
                    (0, MAX_REO_WND_NS, "nanoseconds"),
                )
                .map_or_else(|| rfc_reo_wnd(s), Duration::from_nanos),
            None => rfc_reo_wnd(s),
        }
    }
}

/// Register Python policy class `factory` as `name`; `params` as `register_cc` takes them;
/// `defined`: which of `dup_thresh`, `reo_wnd` the class has. Raises ValueError naming the
/// problem.
#[pyfunction]
#[pyo3(signature = (name, factory, params, defined, doc = "", replace = false))]
#[allow(clippy::type_complexity)]
pub fn register_loss(
    name: &str,
    factory: Py<PyAny>,
    params: Vec<(String, String, f64, f64, f64, bool, bool, bool)>,
    defined: Vec<String>,
    doc: &str,
    replace: bool,
) -> PyResult<()> {
    use pyo3::exceptions::PyValueError;
    POLICIES
        .check_name(name, replace)
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let has = |m: &str| defined.iter().any(|d| d == m);
    if !has("dup_thresh") && !has("reo_wnd") {
        return Err(PyValueError::new_err(format!(
            "loss-detection policy {name:?}: the class must define dup_thresh or reo_wnd"
        )));
    }
    let plugin = PyLossPlugin {
        name: name.to_string(),
        doc: doc.to_string(),
        params: param_specs("loss-detection policy", name, params)?,
        factory,
        defines_dup_thresh: has("dup_thresh"),
        defines_reo_wnd: has("reo_wnd"),
    };
    POLICIES
        .register(Arc::new(plugin), replace)
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The registered loss-detection policies: (name, doc, built-in) per name.
#[pyfunction]
pub fn loss_policies() -> Vec<(String, String, bool)> {
    POLICIES
        .names()
        .into_iter()
        .filter_map(|n| {
            let p = POLICIES.lookup(&n)?;
            let builtin = POLICIES.is_builtin(&n);
            Some((n, p.doc().to_string(), builtin))
        })
        .collect()
}

/// Register the functions and state classes in the module.
pub fn add(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(register_loss, m)?)?;
    m.add_function(wrap_pyfunction!(loss_policies, m)?)?;
    m.add_class::<PyDupThresh>()?;
    m.add_class::<PyReoWnd>()?;
    Ok(())
}
