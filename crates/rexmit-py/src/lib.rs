//! The compiled module `rexmit._core`: the only bridge between Python and the Rust simulator.
//!
//! Scenarios cross the boundary as JSON text (the one schema lives in rexmit-scenario); results
//! come back as JSON for tables plus plain lists for time series. Every Rust error becomes a
//! typed Python exception, and no panic crosses the boundary: it is caught and raised as
//! `rexmit.InternalError`.

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use rexmit_scenario::{Scenario, ScenarioError as RsScenarioError};
use std::panic::{catch_unwind, AssertUnwindSafe};

mod events;
mod loss_plugins;
mod plugins;

/// The simulator's heap allocator (issue 18): packets, segments and connections are allocated
/// and freed at every step, and in runs with short-lived connections (HTTP cross traffic)
/// glibc's malloc cost ≈ 3% of the instructions and more in time. Measured with mimalloc
/// against glibc on the same build: a seed 004 HTTP run −2.1% instructions and median user
/// time −11% over 10 alternating runs, a seed 000 CMT run −0.9% and −5%; results identical
/// (allocation never feeds a result). Python's own objects keep Python's allocator.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

create_exception!(
    _core,
    ScenarioError,
    PyValueError,
    "A scenario is malformed or impossible; `path` names the key."
);
create_exception!(
    _core,
    InternalError,
    PyException,
    "A bug in rexmit (please report it with the scenario)."
);
create_exception!(
    _core,
    PluginError,
    PyException,
    "A congestion-control plugin raised an exception or reported a window that is not one; the message has its traceback, the event and the simulated time."
);
create_exception!(
    _core,
    EmulationUnavailable,
    PyException,
    "This machine cannot emulate (no root, no /dev/net/tun or no `ip`); the message says which."
);
create_exception!(
    _core,
    EmulationError,
    PyException,
    "Setting up an emulation run failed (a namespace, TUN device or socket)."
);

fn scenario_err(py: Python<'_>, e: RsScenarioError) -> PyErr {
    let err = ScenarioError::new_err(e.to_string());
    let v = err.value(py);
    // Attributes are best effort: the message already carries the path.
    let _ = v.setattr("path", e.path.clone());
    let _ = v.setattr("detail", e.message.clone());
    err
}

fn guard<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            Err(InternalError::new_err(format!(
                "internal error (please report it with your scenario): {msg}"
            )))
        }
    }
}

fn parse(py: Python<'_>, text: &str, format: &str) -> PyResult<Scenario> {
    match format {
        "toml" => Scenario::from_toml(text),
        "json" => Scenario::from_json(text),
        other => {
            return Err(PyValueError::new_err(format!(
                "format must be \"toml\" or \"json\", got {other:?}"
            )))
        }
    }
    .map_err(|e| scenario_err(py, e))
}

/// Parse and validate a scenario (TOML or JSON text); returns the normalized scenario as JSON.
/// Also builds it (without running), so names, routes and ports are checked too.
#[pyfunction]
#[pyo3(signature = (text, format = "toml"))]
fn validate(py: Python<'_>, text: &str, format: &str) -> PyResult<String> {
    guard(|| {
        let s = parse(py, text, format)?;
        // Building checks names, routes, ports and pcap targets; no file is opened.
        rexmit_scenario::build::check(&s).map_err(|e| scenario_err(py, e))?;
        Ok(s.to_json())
    })
}

/// A scenario as "toml" or "json" (`to_format`, named in the error otherwise).
fn render(s: &Scenario, to_format: &str) -> PyResult<String> {
    match to_format {
        "toml" => Ok(s.to_toml()),
        "json" => Ok(s.to_json()),
        other => Err(PyValueError::new_err(format!(
            "to_format must be \"toml\" or \"json\", got {other:?}"
        ))),
    }
}

/// Convert a scenario between formats (validating it): "toml" <-> "json".
#[pyfunction]
#[pyo3(signature = (text, from_format, to_format))]
fn convert(py: Python<'_>, text: &str, from_format: &str, to_format: &str) -> PyResult<String> {
    guard(|| render(&parse(py, text, from_format)?, to_format))
}

/// The scenario with every default written out (each TCP/SCTP app's settings as its core runs
/// them, the guards' defaults), as "toml" or "json"; for showing (`rexmit normalize`) and for
/// the `scenario.toml` of a run.
#[pyfunction]
#[pyo3(signature = (text, from_format, to_format = "toml"))]
fn with_defaults(
    py: Python<'_>,
    text: &str,
    from_format: &str,
    to_format: &str,
) -> PyResult<String> {
    guard(|| {
        let s = parse(py, text, from_format)?
            .with_defaults()
            .map_err(|e| scenario_err(py, e))?;
        render(&s, to_format)
    })
}

/// Packet transmissions the scenario's links could carry over its stop time (full rate,
/// 1500-byte packets): the work a busy run may take, for a note before long runs.
#[pyfunction]
#[pyo3(signature = (text, format = "toml"))]
fn work_estimate(py: Python<'_>, text: &str, format: &str) -> PyResult<f64> {
    guard(|| {
        let s = parse(py, text, format)?;
        rexmit_scenario::build::work_estimate(&s).map_err(|e| scenario_err(py, e))
    })
}

/// Run a scenario. `progress(now_s, stop_s, events, wall_s)` is called about every 0.25 s of
/// wall time; returning False stops the run (results are then marked partial). Ctrl-C does the
/// same. Returns a dict: `results` (JSON text: summary, flows, links, nodes, pcap_files),
/// `series` (list of dicts with name, t_ns, values) and `tables` (list of dicts with table,
/// flow, columns: (name, little-endian u64 bytes) pairs).
#[pyfunction]
#[pyo3(signature = (text, format = "toml", out_dir = None, progress = None))]
fn run<'py>(
    py: Python<'py>,
    text: &str,
    format: &str,
    out_dir: Option<std::path::PathBuf>,
    progress: Option<PyObject>,
) -> PyResult<Bound<'py, PyDict>> {
    check_progress(py, &progress)?;
    let s = guard(|| parse(py, text, format))?;
    with_progress(py, progress, &s, |cb| {
        rexmit_scenario::run::run(&s, out_dir.as_deref(), cb).map_err(|e| scenario_err(py, e))
    })
}

/// Run a scenario with the hosts of its `[emulation] real_hosts` real (Linux TCP in network
/// namespaces behind TUN devices), the rest simulated in real time. Same arguments and result
/// as `run`; `results` also has `emulation` (lateness, namespaces, sysctls, socket options).
/// Raises `EmulationUnavailable` when the machine cannot emulate (no root, no /dev/net/tun).
#[pyfunction]
#[pyo3(signature = (text, format = "toml", out_dir = None, progress = None))]
fn emulate<'py>(
    py: Python<'py>,
    text: &str,
    format: &str,
    out_dir: Option<std::path::PathBuf>,
    progress: Option<PyObject>,
) -> PyResult<Bound<'py, PyDict>> {
    check_progress(py, &progress)?;
    let s = guard(|| parse(py, text, format))?;
    with_progress(py, progress, &s, |cb| {
        rexmit_emulate::emulate(&s, out_dir.as_deref(), cb).map_err(|e| match e {
            rexmit_emulate::EmulationError::Scenario(e) => scenario_err(py, e),
            rexmit_emulate::EmulationError::Unavailable(why) => EmulationUnavailable::new_err(why),
            e @ rexmit_emulate::EmulationError::Setup(_) => EmulationError::new_err(e.to_string()),
        })
    })
}

/// Why this machine cannot emulate, or None when it can.
#[pyfunction]
fn emulation_unavailable() -> Option<String> {
    rexmit_emulate::unavailable_reason()
}

/// A `progress` that is not callable is refused before the run: a short run never calls it, so
/// `progress=5` would otherwise pass unnoticed.
fn check_progress(py: Python<'_>, progress: &Option<PyObject>) -> PyResult<()> {
    match progress {
        Some(cb) if !cb.bind(py).is_callable() => Err(PyTypeError::new_err(format!(
            "progress: expected a function progress(now_s, stop_s, events, wall_s) or None, not {}",
            cb.bind(py).get_type().name()?
        ))),
        _ => Ok(()),
    }
}

/// Drive `f` with a progress callback that checks Ctrl-C and calls `progress`; package the
/// results as `run` documents.
fn with_progress<'py>(
    py: Python<'py>,
    progress: Option<PyObject>,
    scenario: &Scenario,
    f: impl FnOnce(
        &mut dyn FnMut(rexmit_engine::Progress) -> bool,
    ) -> PyResult<rexmit_scenario::RunResults>,
) -> PyResult<Bound<'py, PyDict>> {
    let mut callback_error: Option<PyErr> = None;
    // A failure left by an earlier run is not this run's.
    let _ = plugins::take_failure();
    let results = guard(|| {
        f(&mut |p: rexmit_engine::Progress| {
            if let Some(f) = plugins::take_failure() {
                callback_error = Some(plugin_err(&f, scenario));
                return false;
            }
            if let Err(e) = py.check_signals() {
                callback_error = Some(e);
                return false;
            }
            let Some(cb) = &progress else { return true };
            match cb.call1(
                py,
                (
                    p.now.as_secs_f64(),
                    p.stop_time.as_secs_f64(),
                    p.events,
                    p.wall.as_secs_f64(),
                ),
            ) {
                Ok(v) => v.bind(py).is_none() || v.bind(py).is_truthy().unwrap_or(true),
                Err(e) => {
                    callback_error = Some(e);
                    false
                }
            }
        })
    });
    // A plugin that failed near the end may not have met a progress call.
    if let Some(f) = plugins::take_failure() {
        callback_error.get_or_insert_with(|| plugin_err(&f, scenario));
    }
    let results = match (results, callback_error.take()) {
        (_, Some(e)) if e.is_instance_of::<PluginError>(py) => return Err(e),
        (Ok(r), e) => {
            callback_error = e;
            r
        }
        (Err(e), _) => return Err(e),
    };
    if let Some(e) = callback_error {
        // A KeyboardInterrupt must reach the caller; partial results are on the exception.
        let json =
            serde_json::to_string(&results).map_err(|e| InternalError::new_err(e.to_string()))?;
        let _ = e.value(py).setattr("partial_results", json);
        return Err(e);
    }
    let d = PyDict::new(py);
    // Per-flow tables (message latencies, traces: up to millions of rows) go beside the JSON as
    // little-endian u64 bytes, which Python reads without parsing.
    let mut results = results;
    let tables = std::mem::take(&mut results.tables);
    let json =
        serde_json::to_string(&results).map_err(|e| InternalError::new_err(e.to_string()))?;
    d.set_item("results", json)?;
    let tables_out = PyList::empty(py);
    for t in &tables {
        let item = PyDict::new(py);
        item.set_item("table", &t.table)?;
        item.set_item("flow", &t.flow)?;
        let cols = PyList::empty(py);
        for (name, values) in &t.columns {
            let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
            cols.append((name, PyBytes::new(py, &bytes)))?;
        }
        item.set_item("columns", cols)?;
        tables_out.append(item)?;
    }
    d.set_item("tables", tables_out)?;
    let series = PyList::empty(py);
    for s in &results.series {
        let item = PyDict::new(py);
        item.set_item("name", &s.name)?;
        item.set_item("t_ns", &s.t_ns)?;
        item.set_item("values", &s.values)?;
        series.append(item)?;
    }
    d.set_item("series", series)?;
    Ok(d)
}

/// `rexmit.PluginError` for a plugin's failure: what, where, when.
fn plugin_err(f: &plugins::PluginFailure, scenario: &Scenario) -> PyErr {
    use rexmit_scenario::schema::Transport;
    let flows: Vec<&str> = scenario
        .apps
        .iter()
        .filter(|a| match a.transport() {
            Transport::Tcp(Some(t)) => t.cc.as_deref() == Some(f.plugin.as_str()),
            Transport::Sctp(Some(t)) => t.cc.as_deref() == Some(f.plugin.as_str()),
            _ => false,
        })
        .map(|a| a.name.as_str())
        .collect();
    PluginError::new_err(format!(
        "congestion-control plugin {:?} failed in {} at simulated time {:.9} s (flow {}):\n{}",
        f.plugin,
        f.event,
        f.at.as_nanos() as f64 * 1e-9,
        flows.join(", "),
        f.message.trim_end()
    ))
}

/// Run a packetdrill-style script (`rexmit script`, docs/scripts.md) against the TCP or SCTP
/// core: (status, report, trace), status "passed", "failed" (the core did something else) or
/// "malformed" (the script cannot run); the report is empty when it passed; the trace lists
/// every packet in and out when `trace` is set.
#[pyfunction]
#[pyo3(signature = (text, name = "script.pkt", trace = false))]
fn run_script(text: &str, name: &str, trace: bool) -> PyResult<(String, String, Vec<String>)> {
    guard(|| {
        let o = rexmit_script::run_str_with(text, name, trace);
        let status = match o.status {
            rexmit_script::Status::Passed => "passed",
            rexmit_script::Status::Failed => "failed",
            rexmit_script::Status::Malformed => "malformed",
        };
        Ok((status.to_string(), o.report, o.trace))
    })
}

/// Test hook: panics inside the FFI guard, so tests can check that a Rust panic reaches
/// Python as `InternalError` and leaves the interpreter usable.
#[pyfunction]
fn _panic_for_test(msg: &str) -> PyResult<()> {
    guard(|| -> PyResult<()> { panic!("{msg}") })
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // Set by build.rs: the short git revision of the build, "unknown" outside a checkout.
    m.add("__git_revision__", env!("REXMIT_GIT_REVISION"))?;
    let py = m.py();
    for (name, ty) in [
        ("ScenarioError", py.get_type::<ScenarioError>()),
        ("InternalError", py.get_type::<InternalError>()),
        ("PluginError", py.get_type::<PluginError>()),
        (
            "EmulationUnavailable",
            py.get_type::<EmulationUnavailable>(),
        ),
        ("EmulationError", py.get_type::<EmulationError>()),
    ] {
        // The classes must name their real module, or pickle (sweep workers sending an error
        // back) cannot find them: `_core.ScenarioError` is not importable, this is.
        ty.setattr("__module__", "rexmit._core")?;
        m.add(name, ty)?;
    }
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(convert, m)?)?;
    m.add_function(wrap_pyfunction!(with_defaults, m)?)?;
    m.add_function(wrap_pyfunction!(work_estimate, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(emulate, m)?)?;
    m.add_function(wrap_pyfunction!(emulation_unavailable, m)?)?;
    m.add_function(wrap_pyfunction!(run_script, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_test, m)?)?;
    m.add_function(wrap_pyfunction!(plugins::register_cc, m)?)?;
    m.add_function(wrap_pyfunction!(plugins::controllers, m)?)?;
    m.add_function(wrap_pyfunction!(plugins::plugin_calls, m)?)?;
    events::add(m)?;
    loss_plugins::add(m)?;
    Ok(())
}
