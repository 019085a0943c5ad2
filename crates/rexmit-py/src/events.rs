//! The events a Python congestion controller receives (`plugins.rs`), as frozen Python objects
//! made from the TCP sender's event structs (`rexmit_tcp::cc::events`) field by field. Times are
//! given twice: `now` etc. in seconds (float) and `now_ns` etc. in integer nanoseconds, the
//! simulator's own unit, for arithmetic that must match Rust's exactly. Bytes are integers.

use pyo3::prelude::*;
use rexmit_tcp::cc::{
    AckSample, CcParams, CongestionCause, CongestionEvent, Connected, EcnEcho, IdleRestart,
    RateAck, RecoveryEnd, RecoveryStart, Timeout, Undo, UndoCause,
};
use rexmit_time::{Duration, Time};

fn secs(t: Time) -> f64 {
    t.as_nanos() as f64 * 1e-9
}
fn opt_secs(d: Option<Duration>) -> Option<f64> {
    d.map(|d| d.as_nanos() as f64 * 1e-9)
}
fn opt_ns(d: Option<Duration>) -> Option<u64> {
    d.map(|d| d.as_nanos())
}

/// The cause of a congestion event as Python sees it.
pub fn cause_name(c: CongestionCause) -> &'static str {
    match c {
        CongestionCause::DuplicateAcks => "dupacks",
        CongestionCause::SackLoss => "sack",
        CongestionCause::Rack => "rack",
        CongestionCause::TlpRepair => "tlp",
        CongestionCause::Timeout => "timeout",
        CongestionCause::EcnEcho => "ecn",
    }
}

/// What a controller is built with (`CcParams`) and its own parameters (`cc`).
#[pyclass(frozen, name = "ControllerParams", module = "rexmit._core")]
pub struct PyParams {
    #[pyo3(get)]
    initial_cwnd: u64,
    #[pyo3(get)]
    initial_ssthresh: u64,
    #[pyo3(get)]
    smss: u64,
    #[pyo3(get)]
    byte_counting: bool,
    #[pyo3(get)]
    whole_segments: bool,
    #[pyo3(get)]
    slow_start_limit: u64,
    #[pyo3(get)]
    hystart: bool,
    /// HyStart's detectors (Linux's hystart_detect: 1 ACK train, 2 delay increase, 3 both).
    #[pyo3(get)]
    hystart_detect: u8,
    #[pyo3(get)]
    cubic_alpha_switch: bool,
    #[pyo3(get)]
    cubic_idle_epoch: bool,
    /// The controller's declared parameters by name (defaults filled in).
    #[pyo3(get)]
    cc: PyObject,
}

impl PyParams {
    pub fn new(p: &CcParams, cc: PyObject) -> Self {
        PyParams {
            initial_cwnd: p.initial_cwnd,
            initial_ssthresh: p.initial_ssthresh,
            smss: p.smss,
            byte_counting: p.byte_counting,
            whole_segments: p.whole_segments,
            slow_start_limit: p.slow_start_limit,
            hystart: p.hystart,
            hystart_detect: p.hystart_detect,
            cubic_alpha_switch: p.cubic_alpha_switch,
            cubic_idle_epoch: p.cubic_idle_epoch,
            cc,
        }
    }
}

/// An ACK (`on_delivery`, `on_ack`).
#[pyclass(frozen, name = "Ack", module = "rexmit._core")]
pub struct PyAck {
    #[pyo3(get)]
    now: f64,
    #[pyo3(get)]
    now_ns: u64,
    #[pyo3(get)]
    acked: u64,
    #[pyo3(get)]
    delivered: u64,
    #[pyo3(get)]
    srtt: Option<f64>,
    #[pyo3(get)]
    srtt_ns: Option<u64>,
    #[pyo3(get)]
    min_rtt: Option<f64>,
    #[pyo3(get)]
    min_rtt_ns: Option<u64>,
    #[pyo3(get)]
    rtt: Option<f64>,
    #[pyo3(get)]
    rtt_ns: Option<u64>,
    #[pyo3(get)]
    snd_una: u64,
    #[pyo3(get)]
    snd_nxt: u64,
    /// The ACK carries ECE (ECN negotiated; RFC 3168 §6.1.2).
    #[pyo3(get)]
    ece: bool,
}

impl From<&AckSample> for PyAck {
    fn from(a: &AckSample) -> Self {
        PyAck {
            now: secs(a.now),
            now_ns: a.now.as_nanos(),
            acked: a.acked,
            delivered: a.delivered,
            srtt: opt_secs(a.srtt),
            srtt_ns: opt_ns(a.srtt),
            min_rtt: opt_secs(a.min_rtt),
            min_rtt_ns: opt_ns(a.min_rtt),
            rtt: opt_secs(a.rtt),
            rtt_ns: opt_ns(a.rtt),
            snd_una: a.snd_una,
            snd_nxt: a.snd_nxt,
            ece: a.ece,
        }
    }
}

/// A congestion event (`on_congestion_event`): `cause` is "dupacks", "sack", "rack", "tlp",
/// "timeout" or "ecn"; `base` what the decrease applies to.
#[pyclass(frozen, name = "CongestionEvent", module = "rexmit._core")]
pub struct PyCongestion {
    #[pyo3(get)]
    now: f64,
    #[pyo3(get)]
    now_ns: u64,
    #[pyo3(get)]
    cause: &'static str,
    #[pyo3(get)]
    base: u64,
    #[pyo3(get)]
    smss: u64,
}

impl From<&CongestionEvent> for PyCongestion {
    fn from(e: &CongestionEvent) -> Self {
        PyCongestion {
            now: secs(e.now),
            now_ns: e.now.as_nanos(),
            cause: cause_name(e.cause),
            base: e.base,
            smss: e.smss,
        }
    }
}

/// A retransmission timeout (`on_timeout`); `ssthresh_to_keep(computed)` applies RFC 5681
/// §3.1's rule as the default does.
#[pyclass(frozen, name = "Timeout", module = "rexmit._core")]
pub struct PyTimeout {
    pub ev: Timeout,
    #[pyo3(get)]
    now: f64,
    #[pyo3(get)]
    now_ns: u64,
    #[pyo3(get)]
    base: u64,
    #[pyo3(get)]
    smss: u64,
    #[pyo3(get)]
    repeated: bool,
    #[pyo3(get)]
    in_recovery: bool,
    #[pyo3(get)]
    prior_ssthresh: u64,
    #[pyo3(get)]
    lost_total: u64,
}

#[pymethods]
impl PyTimeout {
    fn ssthresh_to_keep(&self, computed: u64) -> u64 {
        self.ev.ssthresh_to_keep(computed)
    }
    /// The congestion event this timeout is, for a controller's decrease.
    fn congestion_event(&self) -> PyCongestion {
        PyCongestion::from(&self.ev.congestion_event())
    }
}

impl From<&Timeout> for PyTimeout {
    fn from(t: &Timeout) -> Self {
        PyTimeout {
            ev: *t,
            now: secs(t.now),
            now_ns: t.now.as_nanos(),
            base: t.base,
            smss: t.smss,
            repeated: t.repeated,
            in_recovery: t.in_recovery,
            prior_ssthresh: t.prior_ssthresh,
            lost_total: t.lost_total,
        }
    }
}

/// The peer echoed a congestion mark (`on_ecn_echo`, RFC 3168 §6.1.2): at most once per
/// window of data; `congestion_event()` is the event the default hands to
/// `on_congestion_event` (cause "ecn").
#[pyclass(frozen, name = "EcnEcho", module = "rexmit._core")]
pub struct PyEcnEcho {
    pub ev: EcnEcho,
    #[pyo3(get)]
    now: f64,
    #[pyo3(get)]
    now_ns: u64,
    #[pyo3(get)]
    base: u64,
    #[pyo3(get)]
    smss: u64,
}

#[pymethods]
impl PyEcnEcho {
    fn congestion_event(&self) -> PyCongestion {
        PyCongestion::from(&self.ev.congestion_event())
    }
}

impl From<&EcnEcho> for PyEcnEcho {
    fn from(e: &EcnEcho) -> Self {
        PyEcnEcho {
            ev: *e,
            now: secs(e.now),
            now_ns: e.now.as_nanos(),
            base: e.base,
            smss: e.smss,
        }
    }
}

/// A window reduction was found spurious (`on_undo`; `tcp.undo`, `tcp.frto`): `cause` is
/// "dsack" (RFC 3708), "timestamps" (RFC 3522) or "frto" (RFC 5682); `prior_cwnd` and
/// `prior_ssthresh` are the controller's values just before the reduction.
#[pyclass(frozen, name = "Undo", module = "rexmit._core")]
pub struct PyUndo {
    #[pyo3(get)]
    now: f64,
    #[pyo3(get)]
    now_ns: u64,
    #[pyo3(get)]
    cause: &'static str,
    #[pyo3(get)]
    prior_cwnd: u64,
    #[pyo3(get)]
    prior_ssthresh: u64,
}

impl From<&Undo> for PyUndo {
    fn from(u: &Undo) -> Self {
        PyUndo {
            now: secs(u.now),
            now_ns: u.now.as_nanos(),
            cause: match u.cause {
                UndoCause::Dsack => "dsack",
                UndoCause::Timestamps => "timestamps",
                UndoCause::Frto => "frto",
            },
            prior_cwnd: u.prior_cwnd,
            prior_ssthresh: u.prior_ssthresh,
        }
    }
}

/// The handshake completed (`on_connected`).
#[pyclass(frozen, name = "Connected", module = "rexmit._core")]
pub struct PyConnected {
    #[pyo3(get)]
    now: f64,
    #[pyo3(get)]
    now_ns: u64,
    #[pyo3(get)]
    smss: u64,
    #[pyo3(get)]
    srtt: Option<f64>,
    #[pyo3(get)]
    min_rtt: Option<f64>,
}

impl From<&Connected> for PyConnected {
    fn from(c: &Connected) -> Self {
        PyConnected {
            now: secs(c.now),
            now_ns: c.now.as_nanos(),
            smss: c.smss,
            srtt: opt_secs(c.srtt),
            min_rtt: opt_secs(c.min_rtt),
        }
    }
}

/// Loss recovery began (`on_recovery_start`) or ended (`on_recovery_end`).
#[pyclass(frozen, name = "Recovery", module = "rexmit._core")]
pub struct PyRecovery {
    #[pyo3(get)]
    now: f64,
    #[pyo3(get)]
    now_ns: u64,
    /// At the start: what began it (as `CongestionEvent.cause`); at the end: None.
    #[pyo3(get)]
    cause: Option<&'static str>,
    #[pyo3(get)]
    recovery_point: Option<u64>,
    /// At the end: whether a timeout ended it.
    #[pyo3(get)]
    by_timeout: Option<bool>,
}

impl From<&RecoveryStart> for PyRecovery {
    fn from(r: &RecoveryStart) -> Self {
        PyRecovery {
            now: secs(r.now),
            now_ns: r.now.as_nanos(),
            cause: Some(cause_name(r.cause)),
            recovery_point: Some(r.recovery_point),
            by_timeout: None,
        }
    }
}

impl From<&RecoveryEnd> for PyRecovery {
    fn from(r: &RecoveryEnd) -> Self {
        PyRecovery {
            now: secs(r.now),
            now_ns: r.now.as_nanos(),
            cause: None,
            recovery_point: None,
            by_timeout: Some(r.by_timeout),
        }
    }
}

/// The connection restarts after an idle period (`on_idle_restart`).
#[pyclass(frozen, name = "IdleRestart", module = "rexmit._core")]
pub struct PyIdle {
    #[pyo3(get)]
    now: f64,
    #[pyo3(get)]
    now_ns: u64,
    #[pyo3(get)]
    idle: f64,
    #[pyo3(get)]
    restart_window: u64,
    #[pyo3(get)]
    ssthresh_floor: u64,
}

impl From<&IdleRestart> for PyIdle {
    fn from(i: &IdleRestart) -> Self {
        PyIdle {
            now: secs(i.now),
            now_ns: i.now.as_nanos(),
            idle: i.idle.as_nanos() as f64 * 1e-9,
            restart_window: i.restart_window,
            ssthresh_floor: i.ssthresh_floor,
        }
    }
}

/// An ACK with its delivery-rate sample (`on_rate_ack`, for controllers that set
/// `wants_rate_samples`).
#[pyclass(frozen, name = "RateAck", module = "rexmit._core")]
pub struct PyRateAck {
    #[pyo3(get)]
    now: f64,
    #[pyo3(get)]
    now_ns: u64,
    /// Bytes per second of this sample, None when it is not valid.
    #[pyo3(get)]
    delivery_rate: Option<u64>,
    #[pyo3(get)]
    sample_delivered: u64,
    #[pyo3(get)]
    interval_ns: u64,
    #[pyo3(get)]
    prior_in_flight: u64,
    #[pyo3(get)]
    sample_rtt: Option<f64>,
    #[pyo3(get)]
    delivered: u64,
    #[pyo3(get)]
    in_flight: u64,
    #[pyo3(get)]
    losses: u64,
    #[pyo3(get)]
    lost_total: u64,
    /// "open", "recovery" or "loss".
    #[pyo3(get)]
    ca_state: &'static str,
    #[pyo3(get)]
    srtt: Option<f64>,
}

impl From<&RateAck> for PyRateAck {
    fn from(r: &RateAck) -> Self {
        PyRateAck {
            now: secs(r.now),
            now_ns: r.now.as_nanos(),
            delivery_rate: r.rs.rate(),
            sample_delivered: r.rs.delivered,
            interval_ns: r.rs.interval.as_nanos(),
            prior_in_flight: r.rs.prior_in_flight,
            sample_rtt: opt_secs(r.rs.rtt),
            delivered: r.delivered,
            in_flight: r.in_flight,
            losses: r.losses,
            lost_total: r.lost_total,
            ca_state: match r.ca_state {
                rexmit_tcp::cc::CaState::Open => "open",
                rexmit_tcp::cc::CaState::Recovery => "recovery",
                rexmit_tcp::cc::CaState::Loss => "loss",
            },
            srtt: opt_secs(r.srtt),
        }
    }
}

/// Register the event classes in the module.
pub fn add(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyParams>()?;
    m.add_class::<PyAck>()?;
    m.add_class::<PyCongestion>()?;
    m.add_class::<PyTimeout>()?;
    m.add_class::<PyEcnEcho>()?;
    m.add_class::<PyUndo>()?;
    m.add_class::<PyConnected>()?;
    m.add_class::<PyRecovery>()?;
    m.add_class::<PyIdle>()?;
    m.add_class::<PyRateAck>()?;
    Ok(())
}
