//! Congestion controllers written in Python (issue 36). `rexmit.register_cc(name, cls)` (in
//! python/rexmit/plugins.py) hands the class and its declared parameters to `register_cc`
//! here, which registers a `PyPlugin` in the TCP core's registry like any plugin; every TCP
//! connection whose `cc` names it gets a `PyController`, which forwards the events the class
//! defines to a Python instance and runs the core's RFC default for the others
//! (`rexmit_tcp::cc::defaults`).
//!
//! The instance keeps its window in `cwnd` and `ssthresh` (bytes) and may set `pacing_rate`
//! (bytes per second, or None); they are read back after every call it receives and checked
//! (a positive whole number of bytes no larger than `MAX_WINDOW`). An exception, or a window
//! that is not one, is a `PluginFailure`: the controller stops calling Python and keeps its
//! last good window, the run loop is asked to stop at once (`rexmit_engine::poke_progress`),
//! and `run` raises `rexmit.PluginError` with the traceback, the event and the simulated time.

use crate::events::*;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rexmit_tcp::cc::registry::{self, CcPlugin, ParamSpec};
use rexmit_tcp::cc::{
    defaults, AckSample, CcParams, CongestionControl, CongestionEvent, Connected, EcnEcho,
    IdleRestart, OwnWrite, RateAck, RecoveryEnd, RecoveryStart, Timeout, Undo,
};
use rexmit_time::Time;
use std::sync::{Arc, Mutex};

/// The largest window a plugin may report: 2^40 bytes (1 TiB), far above any buffer a
/// scenario can give (receive buffers stop at 2^30).
pub const MAX_WINDOW: u64 = 1 << 40;

/// What went wrong in a Python plugin, for `rexmit.PluginError`.
#[derive(Clone, Debug)]
pub struct PluginFailure {
    pub plugin: String,
    pub event: &'static str,
    pub at: Time,
    pub message: String,
}

static FAILURE: Mutex<Option<PluginFailure>> = Mutex::new(None);

/// Calls into Python controllers in this process so far (for the cost benchmark).
pub(crate) static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// How many times Python controllers' methods have been called in this process (a
/// benchmark divides a run's extra time by the calls it made).
#[pyfunction]
pub fn plugin_calls() -> u64 {
    CALLS.load(std::sync::atomic::Ordering::Relaxed)
}

pub(crate) fn fail(f: PluginFailure) {
    let mut slot = FAILURE.lock().unwrap_or_else(|e| e.into_inner());
    // The first failure is the one to report.
    if slot.is_none() {
        *slot = Some(f);
    }
    rexmit_engine::poke_progress();
}

/// A Python exception with its traceback, as `rexmit.PluginError` shows it.
pub(crate) fn traceback(py: Python<'_>, e: &PyErr) -> String {
    py.import("traceback")
        .and_then(|m| m.call_method1("format_exception", (e.clone_ref(py),)))
        .and_then(|lines| lines.extract::<Vec<String>>())
        .map(|lines| lines.concat())
        .unwrap_or_else(|_| e.to_string())
}

/// The failure of this run's plugins, if one failed (taken: the next run starts clean).
pub fn take_failure() -> Option<PluginFailure> {
    FAILURE.lock().unwrap_or_else(|e| e.into_inner()).take()
}

/// The events a class may define, in `Events` bit order.
pub const EVENTS: [&str; 18] = [
    "on_connected",
    "on_lost_syn",
    "on_idle_restart",
    "on_delivery",
    "on_ack",
    "on_rate_ack",
    "on_congestion_event",
    "on_timeout",
    "on_ecn_echo",
    "on_recovery_start",
    "on_recovery_end",
    "on_undo",
    "on_recovery_inflate",
    "on_recovery_dupack",
    "on_recovery_deflate",
    "on_partial_ack",
    "on_prr",
    "on_go_back",
];

fn bit(event: &str) -> u32 {
    1 << EVENTS
        .iter()
        .position(|e| *e == event)
        .expect("a known event")
}

/// A registered Python controller class.
struct PyPlugin {
    name: String,
    doc: String,
    params: Vec<ParamSpec>,
    factory: Py<PyAny>,
    /// Which of `EVENTS` the class defines.
    defined: u32,
    wants_rate_samples: bool,
}

impl CcPlugin for PyPlugin {
    fn name(&self) -> &str {
        &self.name
    }
    fn doc(&self) -> &str {
        &self.doc
    }
    fn params(&self) -> &[ParamSpec] {
        &self.params
    }
    fn build(&self, p: &CcParams, values: &[f64]) -> Box<dyn CongestionControl> {
        let mut c = PyController {
            obj: None,
            methods: Vec::new(),
            name: self.name.clone(),
            defined: self.defined,
            wants_rate_samples: self.wants_rate_samples,
            cwnd: p.initial_cwnd.max(1),
            ssthresh: p.initial_ssthresh,
            pacing: None,
            now: Time::ZERO,
            failed: false,
        };
        Python::with_gil(|py| {
            let made = (|| -> PyResult<Py<PyAny>> {
                let cc = param_dict(py, &self.params, values)?;
                let params = Py::new(py, PyParams::new(p, cc.into_any().unbind()))?;
                self.factory.call1(py, (params,))
            })();
            match made {
                Ok(obj) => {
                    // The instance's bound methods of the events its class defines, looked up
                    // once: a call per event then costs no attribute lookup.
                    c.methods = EVENTS
                        .iter()
                        .map(|e| {
                            (self.defined & bit(e) != 0)
                                .then(|| obj.getattr(py, *e).ok())
                                .flatten()
                        })
                        .collect();
                    c.obj = Some(obj);
                    c.pull(py, "__init__");
                }
                Err(e) => c.raised(py, "__init__", e),
            }
        });
        Box::new(c)
    }
}

/// One connection's Python controller.
struct PyController {
    obj: Option<Py<PyAny>>,
    /// Bound methods of the instance, indexed as `EVENTS` (None: not defined).
    methods: Vec<Option<Py<PyAny>>>,
    name: String,
    defined: u32,
    wants_rate_samples: bool,
    cwnd: u64,
    ssthresh: u64,
    pacing: Option<u64>,
    /// The time of the latest event with one, for error messages.
    now: Time,
    failed: bool,
}

impl std::fmt::Debug for PyController {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PyController")
            .field("name", &self.name)
            .field("cwnd", &self.cwnd)
            .field("ssthresh", &self.ssthresh)
            .finish()
    }
}

impl PyController {
    fn defines(&self, event: &str) -> bool {
        !self.failed && self.defined & bit(event) != 0
    }

    /// Call `event` on the instance with `args`, then read its window back.
    fn call<A>(&mut self, event: &'static str, args: A)
    where
        A: for<'py> IntoPyObject<'py, Target = pyo3::types::PyTuple>,
    {
        if self.failed {
            return;
        }
        CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let i = EVENTS
            .iter()
            .position(|e| *e == event)
            .expect("a known event");
        Python::with_gil(|py| {
            let Some(Some(method)) = self.methods.get(i) else {
                return;
            };
            match method.call1(py, args) {
                Ok(_) => self.pull(py, event),
                Err(e) => self.raised(py, event, e),
            }
        });
    }

    /// Read `cwnd`, `ssthresh` and `pacing_rate` from the instance after `event`.
    fn pull(&mut self, py: Python<'_>, event: &'static str) {
        let Some(obj) = self.obj.as_ref().map(|o| o.bind(py).clone()) else {
            return;
        };
        let name = |attr: &str| match attr {
            "cwnd" => pyo3::intern!(py, "cwnd"),
            "ssthresh" => pyo3::intern!(py, "ssthresh"),
            _ => pyo3::intern!(py, "pacing_rate"),
        };
        let read = |attr: &str, max: u64| -> Result<Option<u64>, String> {
            let v = match obj.getattr(name(attr)) {
                Ok(v) => v,
                Err(_) if attr == "pacing_rate" => return Ok(None),
                Err(_) => return Err(format!("has no attribute `{attr}`")),
            };
            if attr == "pacing_rate" && v.is_none() {
                return Ok(None);
            }
            let out_of_range = |x: &dyn std::fmt::Display| {
                format!("set `{attr}` to {x}: allowed a number of bytes in [1, {max}]")
            };
            // Whole numbers exactly (a u64 as f64 would round above 2^53), floats floored.
            if let Ok(n) = v.extract::<u64>() {
                return if (1..=max).contains(&n) {
                    Ok(Some(n))
                } else {
                    Err(out_of_range(&n))
                };
            }
            let x: f64 = v
                .extract()
                .map_err(|_| format!("set `{attr}` to {v:?}, which is not a number"))?;
            if !x.is_finite() || x < 1.0 || x > max as f64 {
                return Err(out_of_range(&x));
            }
            Ok(Some(x as u64))
        };
        let got = (|| {
            Ok::<_, String>((
                read("cwnd", MAX_WINDOW)?.expect("cwnd is read"),
                read("ssthresh", u64::MAX)?.expect("ssthresh is read"),
                read("pacing_rate", u64::MAX)?,
            ))
        })();
        match got {
            Ok((cwnd, ssthresh, pacing)) => {
                self.cwnd = cwnd;
                self.ssthresh = ssthresh;
                self.pacing = pacing;
            }
            Err(why) => {
                self.failed = true;
                fail(PluginFailure {
                    plugin: self.name.clone(),
                    event,
                    at: self.now,
                    message: format!("the controller {why} (in {event})"),
                });
            }
        }
    }

    fn raised(&mut self, py: Python<'_>, event: &'static str, e: PyErr) {
        self.failed = true;
        fail(PluginFailure {
            plugin: self.name.clone(),
            event,
            at: self.now,
            message: traceback(py, &e),
        });
    }

    /// Tell the instance a window the core's default computed.
    fn push(&mut self, attr: &str, v: u64) {
        if self.failed {
            return;
        }
        Python::with_gil(|py| {
            if let Some(obj) = self.obj.as_ref() {
                if let Err(e) = obj.setattr(py, attr, v) {
                    self.raised(py, "setting the window", e);
                }
            }
        });
    }
}

impl CongestionControl for PyController {
    fn window(&self) -> u64 {
        self.cwnd
    }
    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }
    fn pacing_rate(&self) -> Option<u64> {
        self.pacing
    }
    fn wants_rate_samples(&self) -> bool {
        self.wants_rate_samples
    }
    fn name(&self) -> &str {
        &self.name
    }
    fn store_cwnd(&mut self, cwnd: u64, _: OwnWrite) {
        self.cwnd = cwnd;
        self.push("cwnd", cwnd);
    }
    fn store_ssthresh(&mut self, ssthresh: u64, _: OwnWrite) {
        self.ssthresh = ssthresh;
        self.push("ssthresh", ssthresh);
    }
    fn on_connected(&mut self, ev: &Connected) {
        self.now = ev.now;
        if self.defines("on_connected") {
            self.call("on_connected", (PyConnected::from(ev),));
        }
    }
    fn on_lost_syn(&mut self, smss: u64) {
        if self.defines("on_lost_syn") {
            self.call("on_lost_syn", (smss,));
        } else {
            defaults::on_lost_syn(self, smss);
        }
    }
    fn on_idle_restart(&mut self, ev: &IdleRestart) {
        self.now = ev.now;
        if self.defines("on_idle_restart") {
            self.call("on_idle_restart", (PyIdle::from(ev),));
        } else {
            defaults::on_idle_restart(self, ev);
        }
    }
    fn on_delivery(&mut self, ack: &AckSample) {
        self.now = ack.now;
        if self.defines("on_delivery") {
            self.call("on_delivery", (PyAck::from(ack),));
        }
    }
    fn on_ack(&mut self, ack: &AckSample) {
        self.now = ack.now;
        self.call("on_ack", (PyAck::from(ack),));
    }
    fn on_rate_ack(&mut self, ack: &RateAck) {
        self.now = ack.now;
        if self.defines("on_rate_ack") {
            self.call("on_rate_ack", (PyRateAck::from(ack),));
        }
    }
    fn on_congestion_event(&mut self, ev: &CongestionEvent) {
        self.now = ev.now;
        self.call("on_congestion_event", (PyCongestion::from(ev),));
    }
    fn on_timeout(&mut self, ev: &Timeout) {
        self.now = ev.now;
        if self.defines("on_timeout") {
            self.call("on_timeout", (PyTimeout::from(ev),));
        } else {
            defaults::on_timeout(self, ev);
        }
    }
    fn on_ecn_echo(&mut self, ev: &EcnEcho) {
        self.now = ev.now;
        if self.defines("on_ecn_echo") {
            self.call("on_ecn_echo", (PyEcnEcho::from(ev),));
        } else {
            defaults::on_ecn_echo(self, ev);
        }
    }
    fn on_recovery_start(&mut self, ev: &RecoveryStart) {
        self.now = ev.now;
        if self.defines("on_recovery_start") {
            self.call("on_recovery_start", (PyRecovery::from(ev),));
        }
    }
    fn on_recovery_end(&mut self, ev: &RecoveryEnd) {
        self.now = ev.now;
        if self.defines("on_recovery_end") {
            self.call("on_recovery_end", (PyRecovery::from(ev),));
        }
    }
    fn on_undo(&mut self, ev: &Undo) {
        self.now = ev.now;
        if self.defines("on_undo") {
            self.call("on_undo", (PyUndo::from(ev),));
        } else {
            defaults::on_undo(self, ev);
        }
    }
    fn on_recovery_inflate(&mut self, dupacks: u32, smss: u64) {
        if self.defines("on_recovery_inflate") {
            self.call("on_recovery_inflate", (dupacks, smss));
        } else {
            defaults::on_recovery_inflate(self, dupacks, smss);
        }
    }
    fn on_recovery_dupack(&mut self, smss: u64) {
        if self.defines("on_recovery_dupack") {
            self.call("on_recovery_dupack", (smss,));
        } else {
            defaults::on_recovery_dupack(self, smss);
        }
    }
    fn on_recovery_deflate(&mut self) {
        if self.defines("on_recovery_deflate") {
            self.call("on_recovery_deflate", ());
        } else {
            defaults::on_recovery_deflate(self);
        }
    }
    fn on_partial_ack(&mut self, acked: u64, smss: u64) {
        if self.defines("on_partial_ack") {
            self.call("on_partial_ack", (acked, smss));
        } else {
            defaults::on_partial_ack(self, acked, smss);
        }
    }
    fn on_prr(&mut self, pipe: u64, sndcnt: u64) {
        if self.defines("on_prr") {
            self.call("on_prr", (pipe, sndcnt));
        } else {
            defaults::on_prr(self, pipe, sndcnt);
        }
    }
    fn on_go_back(&mut self, smss: u64) {
        if self.defines("on_go_back") {
            self.call("on_go_back", (smss,));
        } else {
            defaults::on_go_back(self, smss);
        }
    }
}

/// Register a Python controller class (`rexmit.register_cc` calls this). `params`: (name, doc,
/// default, min, max, min_inclusive, max_inclusive, integer) per parameter; `defined`: the
/// event methods the class has. Raises ValueError naming the problem.
#[pyfunction]
#[pyo3(signature = (name, factory, params, defined, wants_rate_samples = false, doc = "", replace = false))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)]
pub fn register_cc(
    name: &str,
    factory: Py<PyAny>,
    params: Vec<(String, String, f64, f64, f64, bool, bool, bool)>,
    defined: Vec<String>,
    wants_rate_samples: bool,
    doc: &str,
    replace: bool,
) -> PyResult<()> {
    use pyo3::exceptions::PyValueError;
    registry::check_name(name, replace).map_err(|e| PyValueError::new_err(e.to_string()))?;
    for required in ["on_ack", "on_congestion_event"] {
        if !defined.iter().any(|d| d == required) {
            return Err(PyValueError::new_err(format!(
                "controller {name:?}: the class must define {required}"
            )));
        }
    }
    let mut bits = 0;
    for d in &defined {
        if !EVENTS.contains(&d.as_str()) {
            return Err(PyValueError::new_err(format!(
                "controller {name:?}: {d:?} is not an event (events: {})",
                EVENTS.join(", ")
            )));
        }
        bits |= bit(d);
    }
    let specs = param_specs("controller", name, params)?;
    let plugin = PyPlugin {
        name: name.to_string(),
        doc: doc.to_string(),
        params: specs,
        factory,
        defined: bits,
        wants_rate_samples,
    };
    registry::register(Arc::new(plugin), replace).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// A parameter table as `register_cc`/`register_loss` receive it, as specs, each default
/// checked against its range (`what` and `name` name the plugin in the error).
#[allow(clippy::type_complexity)]
pub(crate) fn param_specs(
    what: &str,
    name: &str,
    params: Vec<(String, String, f64, f64, f64, bool, bool, bool)>,
) -> PyResult<Vec<ParamSpec>> {
    let specs = params
        .into_iter()
        .map(
            |(n, d, default, min, max, min_inc, max_inc, integer)| ParamSpec {
                name: n,
                doc: d,
                default,
                min,
                max,
                min_inclusive: min_inc,
                max_inclusive: max_inc,
                integer,
            },
        )
        .collect::<Vec<_>>();
    for s in &specs {
        if !s.allows(s.default) {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "{what} {name:?}: the default {} of parameter {:?} is outside its range {}",
                s.default,
                s.name,
                s.allowed()
            )));
        }
    }
    Ok(specs)
}

/// The plugin's parameters as the Python dict its class receives (whole-number ones as int).
pub(crate) fn param_dict<'py>(
    py: Python<'py>,
    specs: &[ParamSpec],
    values: &[f64],
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (s, v) in specs.iter().zip(values) {
        if s.integer {
            d.set_item(&s.name, *v as i64)?;
        } else {
            d.set_item(&s.name, *v)?;
        }
    }
    Ok(d)
}

/// The registered controllers: (name, doc, built-in) per name.
#[pyfunction]
pub fn controllers() -> Vec<(String, String, bool)> {
    registry::names()
        .into_iter()
        .filter_map(|n| {
            let p = registry::lookup(&n)?;
            let builtin = registry::is_builtin(&n);
            Some((n, p.doc().to_string(), builtin))
        })
        .collect()
}
