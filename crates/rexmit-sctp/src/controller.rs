//! Congestion control of one destination: RFC 9260 §7.2's rules (`cc::PathCc`, when `cc` is
//! unset) or a controller of the registry TCP uses (`cc = "cubic"`, one instance per
//! destination), told the controller interface's events (`rexmit_tcp::cc::CongestionControl`)
//! by the adapter here. The adapter raises each event where SCTP has one, and decides, as TCP's
//! sender decides "outside recovery", when an acknowledgement may grow the window: RFC 9260
//! §7.2.1–7.2.2 (or RFC 4960's conditions, `cwnd_growth`). Which events exist, which do not and
//! why: docs/congestion_control.md, "SCTP".
//!
//! Owns: the choice between the two, the plugged controller, and what the adapter remembers
//! between events (the open recovery episode, whether T3-rtx fired since the last
//! acknowledgement, the chunks marked lost). Does not own: when each event comes (the
//! association's SACK stages, fast retransmit, T3-rtx; the path's idle restart), flightsize,
//! RTT or the per-path byte counters (`path`).

use crate::cc::{self, PathCc};
use crate::config::{CwndGrowth, SctpConfig};
use rexmit_tcp::cc::registry::{self, CcPlugin};
use rexmit_tcp::cc::{
    AckSample, CcParams, CongestionCause, CongestionControl, CongestionEvent, Connected, EcnEcho,
    IdleRestart, RecoveryEnd, RecoveryStart, Timeout,
};
use rexmit_time::{Duration, Time};
use std::sync::Arc;

/// The congestion controller of one destination.
#[derive(Debug)]
#[cfg_attr(any(test, feature = "fuzzing"), derive(Clone, PartialEq))]
pub enum PathController {
    /// RFC 9260 §7.2 as rexmit implements it (`cc` unset).
    Builtin(PathCc),
    /// A registered controller (`cc = "..."`) behind the adapter.
    Plugged(Box<Plugged>),
}

impl From<PathCc> for PathController {
    fn from(c: PathCc) -> Self {
        PathController::Builtin(c)
    }
}

/// What one SACK did on a destination (`PathController::on_sack`).
#[derive(Clone, Copy, Debug)]
pub struct SackOnPath {
    /// Bytes of chunks acknowledged for the first time on this destination (cumulative ack
    /// and gap blocks).
    pub newly_acked: u64,
    /// Flightsize before the SACK (RFC 9260's "fully utilized" test) and after it.
    pub flight_before: u64,
    pub flight_after: u64,
    /// The SACK advanced the cumulative TSN ack point (or, with CMT's CUC, this destination's
    /// pseudo cumulative ack): RFC 4960's growth condition.
    pub may_grow: bool,
    pub in_fast_recovery: bool,
    pub rule: CwndGrowth,
}

impl PathController {
    /// The controller `cfg` selects for a destination, with initial ssthresh `ssthresh`
    /// (`cfg` must have passed `SctpConfig::validate`).
    pub fn new(cfg: &SctpConfig, ssthresh: u64) -> Self {
        // RFC 9260 §7.2's MTU in cwnd's unit (`cwnd_bytes`).
        let smss = cfg.cc_mtu();
        let Some(name) = &cfg.cc else {
            return PathController::Builtin(
                PathCc::new(smss, cfg.initial_cwnd, ssthresh)
                    .with_slow_start_limit(cfg.slow_start_limit_mtus)
                    .with_fr_ssthresh_floor(cfg.fr_ssthresh_floor_mtus),
            );
        };
        let plugin = registry::lookup(name.as_str())
            .unwrap_or_else(|| panic!("cc {name:?} is not registered (validate first)"));
        let values = registry::resolve(plugin.as_ref(), &cfg.cc_params)
            .unwrap_or_else(|e| panic!("cc_params refused (validate first): {e}"));
        let params = cfg.controller_params(ssthresh);
        PathController::Plugged(Box::new(Plugged {
            cc: plugin.build(&params, &values),
            plugin,
            values,
            params,
            in_recovery: false,
            timed_out: false,
            lost_total: 0,
            told: 0,
        }))
    }

    // --- what the association asks ---

    pub fn cwnd(&self) -> u64 {
        match self {
            PathController::Builtin(c) => c.cwnd(),
            PathController::Plugged(p) => p.cc.window(),
        }
    }
    pub fn ssthresh(&self) -> u64 {
        match self {
            PathController::Builtin(c) => c.ssthresh(),
            PathController::Plugged(p) => p.cc.ssthresh(),
        }
    }
    /// RFC 9260 §7.2.2 partial_bytes_acked; a plugged controller keeps no such counter (0).
    pub fn partial_bytes_acked(&self) -> u64 {
        match self {
            PathController::Builtin(c) => c.partial_bytes_acked(),
            PathController::Plugged(_) => 0,
        }
    }
    /// The MTU of the window rules: the largest DATA payload of a packet.
    pub fn smss(&self) -> u64 {
        match self {
            PathController::Builtin(c) => c.smss(),
            PathController::Plugged(p) => p.params.smss,
        }
    }
    /// The plugged controller's name; `None` for RFC 9260's rules.
    pub fn plugged_name(&self) -> Option<&str> {
        match self {
            PathController::Builtin(_) => None,
            PathController::Plugged(p) => Some(p.cc.name()),
        }
    }
    /// A registered controller runs here (`cc` is set).
    pub fn is_plugged(&self) -> bool {
        matches!(self, PathController::Plugged(_))
    }
    /// RFC 9260 §6.1 B: new data may go out while flightsize < cwnd.
    pub fn can_send(&self, flight: u64) -> bool {
        flight < self.cwnd()
    }

    /// A window state for unit tests of the rules that read cwnd and ssthresh.
    #[cfg(test)]
    pub(crate) fn set_for_test(&mut self, cwnd: u64, ssthresh: u64) {
        if let PathController::Builtin(c) = self {
            c.set_for_test(cwnd, ssthresh);
        }
    }

    // --- what the association tells ---

    /// RFC 9260 §7.2.1: the initial ssthresh, known once the peer's a_rwnd is (before any
    /// event). A plugged controller is built again with it: the interface has no event that
    /// sets ssthresh.
    pub(crate) fn set_initial_ssthresh(&mut self, ssthresh: u64) {
        match self {
            PathController::Builtin(c) => c.set_initial_ssthresh(ssthresh),
            PathController::Plugged(p) => {
                p.params.initial_ssthresh = ssthresh;
                p.cc = p.plugin.build(&p.params, &p.values);
            }
        }
    }

    /// The association is established; `rtt`: the handshake's round trip, when it measured
    /// one (`on_connected`).
    pub(crate) fn on_connected(&mut self, now: Time, rtt: Option<Duration>) {
        if let PathController::Plugged(p) = self {
            let smss = p.params.smss;
            p.tell().on_connected(&Connected {
                now,
                smss,
                srtt: rtt,
                min_rtt: rtt,
            });
        }
    }

    /// A SACK newly acknowledged data sent here (`ack.acked` > 0), before loss detection:
    /// `on_delivery`, for estimators.
    pub(crate) fn on_delivery(&mut self, ack: &AckSample) {
        if let PathController::Plugged(p) = self {
            p.timed_out = false;
            p.tell().on_delivery(ack);
        }
    }

    /// The window growth of one SACK (RFC 9260 §7.2.1, §7.2.2). A plugged controller hears
    /// `on_ack` when the RFC lets cwnd grow: data newly acknowledged, cwnd fully used before
    /// the SACK, and not in fast recovery while cwnd ≤ ssthresh (RFC 4960: also only on a
    /// SACK that advances the cumulative ack, never in fast recovery). `ack` is built only
    /// for a plugged controller.
    pub(crate) fn on_sack(&mut self, s: &SackOnPath, ack: Option<AckSample>) {
        match self {
            PathController::Builtin(c) => c.on_ack(
                s.newly_acked,
                s.flight_before,
                s.flight_after,
                s.may_grow,
                s.in_fast_recovery,
                s.rule,
            ),
            PathController::Plugged(p) => {
                let cwnd = p.cc.window();
                let slow_start = cwnd <= p.cc.ssthresh();
                let grows = s.newly_acked > 0
                    && s.flight_before >= cwnd
                    && match s.rule {
                        CwndGrowth::Rfc9260 => !(s.in_fast_recovery && slow_start),
                        CwndGrowth::Rfc4960 => s.may_grow && !s.in_fast_recovery,
                    };
                if let Some(ack) = ack.filter(|_| grows) {
                    p.tell().on_ack(&ack);
                }
            }
        }
    }

    /// Loss found by miss indications or RACK (RFC 9260 §7.2.4 step 2, §7.2.3), outside fast
    /// recovery: `on_congestion_event` from cwnd, then `on_recovery_start` with the path's
    /// `recovery_point` (its bytes sent so far). `recovery_point` `None`: a tail loss probe
    /// repaired a loss (RFC 8985 §7.4.2), the decrease without an episode.
    pub(crate) fn on_loss(
        &mut self,
        now: Time,
        cause: CongestionCause,
        recovery_point: Option<u64>,
    ) {
        match self {
            PathController::Builtin(c) => c.on_fast_retransmit(),
            PathController::Plugged(p) => {
                let ev = CongestionEvent {
                    now,
                    cause,
                    base: p.cc.window(),
                    smss: p.params.smss,
                };
                p.tell().on_congestion_event(&ev);
                if let Some(recovery_point) = recovery_point {
                    p.in_recovery = true;
                    p.tell().on_recovery_start(&RecoveryStart {
                        now,
                        cause,
                        recovery_point,
                    });
                }
            }
        }
    }

    /// An ECN echo (RFC 9260 Appendix A) outside fast recovery, at most once per window: the
    /// built-in reduces as for a fast retransmit; a plugged controller hears `on_ecn_echo`
    /// from cwnd (its default: the congestion event with cause `EcnEcho`).
    pub(crate) fn on_ecn_echo(&mut self, now: Time) {
        match self {
            PathController::Builtin(c) => c.on_ecn_echo(),
            PathController::Plugged(p) => {
                let ev = EcnEcho {
                    now,
                    base: p.cc.window(),
                    smss: p.params.smss,
                };
                p.tell().on_ecn_echo(&ev);
            }
        }
    }

    /// Fast recovery ended on this destination: its exit point was acknowledged, or a T3-rtx
    /// expiry (`by_timeout`) cancelled it. `on_recovery_end` if an episode is open here.
    pub(crate) fn on_recovery_end(&mut self, now: Time, by_timeout: bool) {
        if let PathController::Plugged(p) = self {
            if std::mem::take(&mut p.in_recovery) {
                p.tell().on_recovery_end(&RecoveryEnd { now, by_timeout });
            }
        }
    }

    /// `chunks` sent here were marked lost (fast retransmit, RACK or T3-rtx): counted for
    /// `Timeout::lost_total`.
    pub(crate) fn count_lost(&mut self, chunks: u64) {
        if let PathController::Plugged(p) = self {
            p.lost_total += chunks;
        }
    }

    /// T3-rtx expiry (RFC 9260 §7.2.3, §6.3.3 E1): `on_timeout` from cwnd, `repeated` when
    /// T3-rtx already expired here since data sent here was last newly acknowledged. The
    /// association ends the recovery episode after it (`on_recovery_end`).
    pub(crate) fn on_t3_expiry(&mut self, now: Time) {
        match self {
            PathController::Builtin(c) => c.on_t3_expiry(),
            PathController::Plugged(p) => {
                let ev = Timeout {
                    now,
                    base: p.cc.window(),
                    smss: p.params.smss,
                    repeated: p.timed_out,
                    in_recovery: p.in_recovery,
                    prior_ssthresh: p.cc.ssthresh(),
                    lost_total: p.lost_total,
                };
                p.timed_out = true;
                p.tell().on_timeout(&ev);
            }
        }
    }

    /// RFC 9260 §7.2.1: new data goes to a destination idle for `rtos` more RTOs (`idle`
    /// since data last went there). The built-in halves cwnd per RTO down to 4·MTU; a plugged
    /// controller hears `on_idle_restart` with that decayed window as RW (its default: cwnd =
    /// min(cwnd, RW), the same rule).
    pub(crate) fn on_idle(&mut self, now: Time, rtos: u64, idle: Duration) {
        match self {
            PathController::Builtin(c) => c.on_idle(rtos),
            PathController::Plugged(p) => {
                let restart_window = cc::idle_window(p.cc.window(), p.params.smss, rtos);
                p.tell().on_idle_restart(&IdleRestart {
                    now,
                    idle,
                    restart_window,
                    // RFC 9260 §7.2.1 leaves ssthresh alone.
                    ssthresh_floor: 0,
                });
            }
        }
    }

    /// FreeBSD early fast retransmit (seed 004 §2): cwnd one MTU lower. Refused with a
    /// plugged controller (`SctpConfig::validate`): the interface has no event for it.
    pub(crate) fn on_early_fast_retransmit(&mut self) {
        if let PathController::Builtin(c) = self {
            c.on_early_fast_retransmit();
        }
    }

    /// RFC 4960 §6.1 D's Max.Burst, applied by lowering cwnd. Refused with a plugged
    /// controller (`SctpConfig::validate`): it would write the controller's window.
    pub(crate) fn clamp_burst(&mut self, flight: u64, max_burst: u32) {
        if let PathController::Builtin(c) = self {
            c.clamp_burst(flight, max_burst);
        }
    }
}

/// The congestion event's cause for a chunk found lost by `cause` (`fast_retransmit`): RACK's,
/// or miss indications — three (RFC 9260 §7.2.4), one while thin (seed 004 §5.4), RFC 5827's
/// lowered threshold — which are SCTP's duplicate ACKs.
pub(crate) fn congestion_cause(cause: crate::stats::RtxCause) -> CongestionCause {
    match cause {
        crate::stats::RtxCause::Rack => CongestionCause::Rack,
        _ => CongestionCause::DuplicateAcks,
    }
}

/// A registered controller on one destination, with what the adapter remembers.
pub struct Plugged {
    cc: Box<dyn CongestionControl>,
    /// What built it, to build it again with the handshake's ssthresh.
    plugin: Arc<dyn CcPlugin>,
    values: Vec<f64>,
    params: CcParams,
    /// An episode is open: `on_recovery_start` was told, `on_recovery_end` not yet.
    in_recovery: bool,
    /// T3-rtx expired here since data sent here was last newly acknowledged (RFC 5681 §3.1's
    /// "resent by the timer before": `Timeout::repeated`).
    timed_out: bool,
    /// Chunks sent here marked lost so far (`Timeout::lost_total`).
    lost_total: u64,
    /// Events told so far. An empty poll tells none: the checked poll of tests and fuzzing
    /// compares it (see `Clone`).
    told: u64,
}

impl Plugged {
    /// The controller, counting the event about to be told.
    fn tell(&mut self) -> &mut dyn CongestionControl {
        self.told += 1;
        self.cc.as_mut()
    }
}

impl std::fmt::Debug for Plugged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Plugged")
            .field("cc", &self.cc)
            .field("in_recovery", &self.in_recovery)
            .field("timed_out", &self.timed_out)
            .field("lost_total", &self.lost_total)
            .field("told", &self.told)
            .finish()
    }
}

/// For the checked poll of tests and fuzzing only (`Association::poll_transmit_checked`): a
/// controller cannot be copied (a Python one least of all), so the copy holds a frozen one
/// that answers the window of the moment and ignores what it is told. The copy's `told`
/// still counts, so a full path that tells the controller anything fails the check.
#[cfg(any(test, feature = "fuzzing"))]
impl Clone for Plugged {
    fn clone(&self) -> Self {
        Plugged {
            cc: Box::new(Frozen {
                name: self.cc.name().to_string(),
                cwnd: self.cc.window(),
                ssthresh: self.cc.ssthresh(),
            }),
            plugin: self.plugin.clone(),
            values: self.values.clone(),
            params: self.params,
            in_recovery: self.in_recovery,
            timed_out: self.timed_out,
            lost_total: self.lost_total,
            told: self.told,
        }
    }
}

/// Equal adapters with controllers showing the same window (the checked poll's comparison).
#[cfg(any(test, feature = "fuzzing"))]
impl PartialEq for Plugged {
    fn eq(&self, o: &Self) -> bool {
        (self.cc.name(), self.cc.window(), self.cc.ssthresh())
            == (o.cc.name(), o.cc.window(), o.cc.ssthresh())
            && (self.in_recovery, self.timed_out, self.lost_total, self.told)
                == (o.in_recovery, o.timed_out, o.lost_total, o.told)
    }
}

/// The copy's controller (see `Clone for Plugged`).
#[cfg(any(test, feature = "fuzzing"))]
#[derive(Debug)]
struct Frozen {
    name: String,
    cwnd: u64,
    ssthresh: u64,
}

#[cfg(any(test, feature = "fuzzing"))]
impl CongestionControl for Frozen {
    fn window(&self) -> u64 {
        self.cwnd
    }
    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }
    fn name(&self) -> &str {
        &self.name
    }
    fn store_cwnd(&mut self, _: u64, _: rexmit_tcp::cc::OwnWrite) {}
    fn store_ssthresh(&mut self, _: u64, _: rexmit_tcp::cc::OwnWrite) {}
    fn on_ack(&mut self, _: &AckSample) {}
    fn on_congestion_event(&mut self, _: &CongestionEvent) {}
}
