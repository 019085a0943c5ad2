//! The sending half of a connection: sequence pointers, send buffer, scoreboard, RTO timer,
//! the events its congestion controller hears, and the choice of the next data segment.
//!
//! Owns: snd_una/snd_nxt/snd_max, the peer's window, RFC 6298 timer management and Karn's
//! rule, an ACK's processing in named stages (`ack`), and transmission selection (new data,
//! go-back-N after Tahoe-style resets, RFC 6675 NextSeg during SACK recovery, pacing:
//! `transmit`). Does not own the reactions to duplicate ACKs, partial ACKs and timeouts —
//! those are the `recovery` module's, one file per algorithm —, the window — the controller
//! (`cc`) owns it: the sender asks for it and tells events, never writes it —, nor the
//! deadlines, which live in the connection's `TimerTable` (`crate::timers`) and are passed in.

mod ack;
mod idle;
mod reordering;
mod transmit;
mod undo;
mod validation;

use crate::cc::{
    AckSample, CongestionCause, CongestionControl, CongestionEvent, Connected, ControllerFactory,
    RecoveryEnd, RecoveryStart, Timeout,
};
use crate::config::{DecreaseBase, RecoveryAlgorithm, RtoRearm, TcpConfig};
use crate::delivery_rate::DeliveryRate;
use crate::ecn::Reaction;
use crate::loss::LossPolicy;
use crate::recovery::undo::Undo;
use crate::recovery::{AckFacts, Actions, Cwnd, Recovery};
use crate::sack_scoreboard::Scoreboard;
use crate::send_buffer::SendBuffer;
use crate::stats::{RecoveryEpisode, RetransmitCause, TcpStats};
use crate::timers::{Timer, TimerTable};
use rexmit_time::{Duration, Time};
use rexmit_transport::rack::{LossScan, Rack};
use rexmit_transport::RttEstimator;
use std::sync::Arc;

/// What recovery's answer (`Sender::apply`) was given for.
#[derive(Clone, Copy, Debug)]
enum Occasion<'a> {
    /// An ACK of new data, with what the controller grows from.
    NewAck(&'a AckSample),
    /// A duplicate ACK or a RACK loss mark.
    Loss,
    /// A retransmission timeout.
    Timeout,
}

/// What the connection should put in the next data segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataTx {
    pub start: u64,
    /// Payload bytes (the FIN, if any, comes after them).
    pub len: u64,
    pub fin: bool,
    pub rexmit: Option<RetransmitCause>,
    /// A zero-window probe or the SWS override's (RFC 9293 §3.8.6.1), not ECN-capable
    /// (RFC 3168 §6.1.6).
    pub window_probe: bool,
}

/// The fields of an incoming ACK the sender needs, converted to offsets.
#[derive(Clone, Debug, Default)]
pub struct AckInput {
    pub ack: u64,
    /// Peer's sequence offset of the segment (for RFC 9293 SND.WL1).
    pub seq: u64,
    /// Peer's window in bytes (already scaled).
    pub window: u64,
    pub sack: crate::receiver::OffsetBlocks,
    /// The segment carries data, SYN or FIN (then it is never a RFC 5681 duplicate ACK).
    pub has_data_or_flags: bool,
    /// RTT measured from the echoed timestamp (RFC 7323 §4.1), when timestamps are in use.
    pub ts_rtt: Option<Duration>,
    /// The echoed timestamp (TSecr, RFC 7323 §3.2), when timestamps are in use and it is set:
    /// Eifel detection of a spurious retransmission (RFC 3522).
    pub ts_ecr: Option<u32>,
    /// ECE set, ECN negotiated (RFC 3168 §6.1.2).
    pub ece: bool,
}

// Laid out in declaration order (`repr(C)`), coldest first and hottest last, because the
// connection places its own per-segment fields right after the sender (`Connection`; issue 40
// step 6, a connection's hot block, pinned by `connection::hot_block`). From the front: the
// configuration and rarely used state; what only an ACK of new data or a send reads (counters,
// switches, the scoreboard, whose SACK test is its last field); what every ACK reads (the
// `None` tests of the boxed RACK, delivery-rate and reordering state, the send window, the
// undo marker); what every segment, poll and timer reads (the recovery episode, the sequence
// variables, the controller, the RTT estimator's RTO inputs, the send buffer's extent).
#[repr(C)]
pub struct Sender {
    /// Builds the controller instead of `TcpConfig::cc` (`use_controller`).
    factory: Option<Arc<dyn ControllerFactory>>,
    /// ECN (RFC 3168 §6.1.2): when an echo reduces the window, and the CWR flag.
    pub(crate) ecn: Reaction,
    /// Index into `TcpStats::recoveries` of the open episode, when it is recorded there.
    episode_stats: Option<usize>,
    initial_window: u64,
    /// Cause recorded for go-back-N resends from snd_nxt below snd_max.
    go_back_cause: RetransmitCause,
    rto_rearm: RtoRearm,
    /// DupThresh and RACK's reordering window (`loss`; the scenario's `loss` option).
    loss: Box<dyn crate::loss::LossPolicy>,
    last_data_sent: Option<Time>,
    paced_sent: u64,
    /// Growth only while cwnd-limited (`tcp.cwnd_limited_growth`, `sender/validation.rs`).
    cwnd_use: Option<validation::CwndUse>,
    /// How far the last ACK of new data moved snd_una (RFC 6582 §4.1 ACK heuristic).
    last_ack_advance: u64,
    /// New data sent beyond cwnd by limited transmit since snd_una last advanced (RFC 3042).
    lt_bytes: u64,
    /// Segments marked lost on the connection so far, a segment again each time it is marked
    /// again after a resend (Linux tp->lost): what BBR's long-term sampler counts.
    lost_total: u64,
    /// D-SACK blocks received (what a loss-detection policy is told).
    dsacks: u64,
    dupacks: u32,
    /// Retransmission timeouts since snd_una last advanced (RFC 9293 §3.8.3 R2 count).
    pub(crate) consecutive_timeouts: u32,
    dup_thresh: u32,
    /// Restart after idle (`tcp.idle_restart`, `sender/idle.rs`), the initial window IW it
    /// restarts from, and when data (new or resent) was last sent.
    idle_restart: crate::config::IdleRestartRule,
    decrease_base: DecreaseBase,
    limited_transmit: bool,
    early_retransmit: bool,
    thin_linear_timeouts: bool,
    thin_dupack: bool,
    nagle: bool,
    /// RFC 8985 §6 RACK marks losses (else RFC 6675 IsLost) and pipe counts its marks.
    rack_detection: bool,
    /// RFC 8985 §7 tail loss probes.
    tlp: bool,
    /// Go-back-N resends at most cwnd / SMSS segments ahead of the ACKs, however small they
    /// are (`WindowUnit::Segments`: Linux counts cwnd in packets).
    go_back_in_packets: bool,
    pub(crate) sb: Scoreboard,
    /// RACK-TLP state when RACK or TLP is on (SACK recovery only).
    rack: Option<Box<Rack>>,
    /// Delivery-rate samples, kept only for controllers that ask (BBR).
    rate: Option<Box<DeliveryRate>>,
    /// Linux's adaptive reordering degree, with `adaptive_reordering` (reordering.rs).
    reordering: Option<Box<reordering::Reordering>>,
    snd_wl1: u64,
    snd_wl2: u64,
    /// Largest window the peer ever offered (RFC 9293 §3.8.6.2.1 Max(SND.WND)).
    max_snd_wnd: u64,
    snd_wnd: u64,
    /// Undo of a spurious reduction and F-RTO (`recovery::undo`, `sender/undo.rs`).
    undo: Undo,
    /// Loss-recovery state and rules (`recovery`): episode, recover, HighRxt, RescueRxt, PRR.
    rec: Recovery,
    /// The time of the latest ACK or timer: what a loss-detection policy is told when it is
    /// asked while sending.
    now: Time,
    pub(crate) smss: u64,
    pub(crate) cc: Box<dyn CongestionControl>,
    /// A retransmission that goes out regardless of cwnd (fast retransmit, partial ACK, RTO).
    pending_rexmit: Option<(u64, RetransmitCause)>,
    /// Pacing (controllers with a pacing rate): the earliest time the next data segment may
    /// leave (Linux's tcp_wstamp_ns), whether a transmission is waiting for it, and how many
    /// new segments went out (Linux paces from the tenth on).
    pace_at: Time,
    probe_now: bool,
    /// RACK's reordering timer (RFC 8985 §6.3) and the probe timeout (§7.2).
    /// The probe timeout fired: the next transmission is a tail loss probe.
    tlp_pending: bool,
    /// Offset of our FIN once the application closed.
    pub(crate) fin_at: Option<u64>,
    pub(crate) snd_una: u64,
    pub(crate) snd_nxt: u64,
    pub(crate) snd_max: u64,
    pub(crate) rtt: RttEstimator,
    pub(crate) buf: SendBuffer,
}

impl std::fmt::Debug for Sender {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sender")
            .field("snd_una", &self.snd_una)
            .field("snd_nxt", &self.snd_nxt)
            .field("snd_max", &self.snd_max)
            .field("cwnd", &self.cc.window())
            .field("ssthresh", &self.cc.ssthresh())
            .finish()
    }
}

impl Sender {
    /// A sender whose first data byte is stream offset 1 (offset 0 is the SYN).
    pub fn new(cfg: &TcpConfig, smss: u64) -> Self {
        Sender::with_plugins(cfg, smss, cfg.build_cc(smss), cfg.build_loss())
    }

    /// `new` with its controller and loss-detection policy already built (`SharedConfig`
    /// builds them without a registry lookup).
    pub fn with_plugins(
        cfg: &TcpConfig,
        smss: u64,
        cc: Box<dyn CongestionControl>,
        loss: Box<dyn LossPolicy>,
    ) -> Self {
        Sender {
            rec: Recovery::new(cfg.recovery, cfg.tahoe_recover_guard, cfg.prr)
                .with_prr_unit(cfg.window_unit_bytes(smss))
                .with_rtx_marks(cfg.rtx_marks),
            episode_stats: None,
            dup_thresh: cfg.dup_thresh,
            limited_transmit: cfg.limited_transmit,
            early_retransmit: cfg.early_retransmit,
            thin_linear_timeouts: cfg.thin_linear_timeouts,
            thin_dupack: cfg.thin_dupack,
            nagle: cfg.nagle,
            smss,
            snd_una: 1,
            snd_nxt: 1,
            snd_max: 1,
            buf: SendBuffer::new(1, cfg.send_buffer),
            sb: Scoreboard::default(),
            fin_at: None,
            snd_wnd: 0,
            max_snd_wnd: 0,
            snd_wl1: 0,
            snd_wl2: 0,
            cc,
            factory: None,
            rtt: RttEstimator::new(cfg.rto.clone()),
            rto_rearm: cfg.rto_rearm,
            decrease_base: cfg.decrease_base,
            probe_now: false,
            dupacks: 0,
            lt_bytes: 0,
            last_ack_advance: 0,
            consecutive_timeouts: 0,
            pending_rexmit: None,
            lost_total: 0,
            go_back_cause: RetransmitCause::Timeout,
            go_back_in_packets: cfg.window_unit == crate::config::WindowUnit::Segments,
            rack: ((cfg.rack || cfg.tlp) && cfg.recovery == RecoveryAlgorithm::Sack)
                .then(|| Box::new(Rack::new())),
            rack_detection: cfg.rack && cfg.recovery == RecoveryAlgorithm::Sack,
            tlp: cfg.tlp && cfg.recovery == RecoveryAlgorithm::Sack,
            undo: Undo::new(
                cfg.undo,
                cfg.frto && cfg.recovery == RecoveryAlgorithm::Sack,
            )
            .with_ssthresh_floor(cfg.undo_ssthresh_floor),
            idle_restart: cfg.idle_restart,
            initial_window: cfg.initial_window(smss),
            last_data_sent: None,
            cwnd_use: cfg.cwnd_limited_growth.then(validation::CwndUse::default),
            loss,
            dsacks: 0,
            reordering: cfg.adaptive_reordering.then(|| {
                Box::new(reordering::Reordering::new(
                    cfg.dup_thresh,
                    cfg.max_reordering,
                ))
            }),
            now: Time::ZERO,
            tlp_pending: false,
            rate: None,
            pace_at: Time::ZERO,
            paced_sent: 0,
            ecn: Reaction::default(),
        }
    }

    /// Use controllers built by `factory` instead of the one `TcpConfig::cc` selects (one
    /// written outside this crate, through the public `CongestionControl` trait). Call before
    /// the handshake: the controller is rebuilt now, and again if the handshake changes the
    /// segment size.
    pub fn use_controller(&mut self, cfg: &TcpConfig, factory: Arc<dyn ControllerFactory>) {
        self.cc = factory.build(&cfg.controller_params(self.smss));
        self.factory = Some(factory);
    }

    fn build_controller(&self, cfg: &TcpConfig) -> Box<dyn CongestionControl> {
        match &self.factory {
            Some(f) => f.build(&cfg.controller_params(self.smss)),
            None => cfg.build_cc(self.smss),
        }
    }

    /// Handshake results: segment size, whether SACK is in use, the peer's first window.
    pub fn on_established(
        &mut self,
        now: Time,
        cfg: &TcpConfig,
        smss: u64,
        sack_ok: bool,
        wnd: u64,
        peer_seq: u64,
    ) {
        if smss != self.smss {
            self.smss = smss;
            self.cc = self.build_controller(cfg);
            self.rec.prr_unit = cfg.window_unit_bytes(smss);
            self.initial_window = cfg.initial_window(smss);
        }
        if self.cc.wants_rate_samples() {
            self.rate = Some(Box::default());
        }
        self.cc.on_connected(&Connected {
            now,
            smss,
            srtt: self.rtt.srtt(),
            min_rtt: self.rtt.min_rtt(),
        });
        if self.rec.alg == RecoveryAlgorithm::Sack && !sack_ok {
            // Without SACK from the peer, RFC 6675 cannot run: NewReno is its fallback.
            self.rec.fall_back_to_newreno();
            self.rack = None;
            self.rack_detection = false;
            self.tlp = false;
            self.undo = Undo::new(cfg.undo, false).with_ssthresh_floor(cfg.undo_ssthresh_floor);
        }
        self.snd_wnd = wnd;
        self.max_snd_wnd = wnd;
        self.snd_wl1 = peer_seq;
        self.snd_wl2 = self.snd_una;
    }

    /// The application writes (called before its data joins the send buffer). Delivery-rate
    /// samples (draft-cheng-iccrg-delivery-rate-estimation §3.4, Linux
    /// tcp_rate_check_app_limited): with less than one segment unsent, room in cwnd and every
    /// segment marked lost already resent, the connection is application-limited until what
    /// is in flight now has been delivered.
    pub(crate) fn on_app_write(&mut self) {
        if self.rate.is_none() {
            return;
        }
        let pipe = self.pipe();
        let unsent = self.buf.end().saturating_sub(self.snd_max);
        let lost_unsent = if self.rack_detection {
            self.sb.first_lost().is_some()
        } else {
            self.rec.in_episode() && self.rec.next_seg_lost(&self.sb).is_some()
        };
        if unsent < self.smss && pipe < self.cc.window() && !lost_unsent {
            if let Some(r) = self.rate.as_mut() {
                r.mark_app_limited(pipe);
            }
        }
    }

    /// RFC 5681 FlightSize.
    pub fn flight_size(&self) -> u64 {
        self.snd_max - self.snd_una
    }

    /// FlightSize for the ssthresh of a fast retransmit: RFC 5681 §3.2 step 2 leaves out the
    /// data sent by limited transmit (RFC 3042 §2).
    fn flight_size_before_limited_transmit(&self) -> u64 {
        self.flight_size() - self.lt_bytes.min(self.flight_size())
    }

    /// What a congestion response decreases from (`DecreaseBase`): FlightSize (without the data
    /// limited transmit sent, RFC 3042 §2, when `before_limited_transmit`) or cwnd.
    fn decrease_base(&self, before_limited_transmit: bool) -> u64 {
        match self.decrease_base {
            DecreaseBase::Cwnd => self.cc.window(),
            DecreaseBase::FlightSize if before_limited_transmit => {
                self.flight_size_before_limited_transmit()
            }
            DecreaseBase::FlightSize => self.flight_size(),
        }
    }

    pub fn pipe(&self) -> u64 {
        if self.rack_detection {
            self.sb.in_flight()
        } else if self.rec.alg == RecoveryAlgorithm::Sack {
            self.sb.pipe(self.rec.high_rxt(), self.rec.rtx_marks)
        } else {
            self.flight_size()
        }
    }

    pub fn in_recovery(&self) -> bool {
        self.rec.in_episode()
    }

    /// RFC 9293 SND.WND.
    pub fn snd_wnd(&self) -> u64 {
        self.snd_wnd
    }

    /// Every byte written, and the FIN if requested, has been acknowledged.
    pub fn all_acked(&self) -> bool {
        self.snd_una >= self.buf.end() && !matches!(self.fin_at, Some(f) if self.snd_una <= f)
    }

    pub fn fin_acked(&self) -> bool {
        self.fin_at.is_some_and(|f| self.snd_una > f)
    }

    /// Thin-stream test: fewer than 4 segments in flight.
    pub fn is_thin(&self) -> bool {
        self.sb.len() < 4
    }

    /// Unsent data (or an unsent FIN) is waiting.
    fn has_unsent(&self) -> bool {
        self.snd_max < self.buf.end() || self.fin_at.is_some_and(|f| self.snd_max <= f)
    }

    /// The configured duplicate threshold, or with `adaptive_reordering` the reordering
    /// degree it rose to (Linux's tp->reordering).
    fn dup_thresh_in_force(&self) -> u32 {
        self.reordering
            .as_ref()
            .map_or(self.dup_thresh, |r| r.degree())
    }

    /// Duplicate-ACK threshold in force, from the loss-detection policy (the built-in's:
    /// thin-stream and RFC 5827 early retransmit lower the configured one, `loss::Rfc`).
    pub fn effective_dup_thresh(&self) -> u32 {
        // RFC 5827: fewer than 4 segments outstanding and no new segment sendable.
        let can_send_new =
            self.has_unsent() && self.snd_max + self.smss <= self.snd_una + self.snd_wnd;
        self.loss.dup_thresh(&crate::loss::DupThreshState {
            now: self.now,
            dup_thresh: self.dup_thresh_in_force(),
            dupacks: self.dupacks,
            outstanding: self.sb.len() as u32,
            new_data_sendable: can_send_new,
            early_retransmit: self.early_retransmit,
            thin: self.thin_dupack && self.is_thin(),
            in_recovery: self.rec.in_episode(),
            dsacks: self.dsacks,
        })
    }

    /// RACK's reordering window from the loss-detection policy (RFC 8985 §6.2 step 4 in the
    /// built-in), or None without RACK loss detection (`rack` off, TLP alone included).
    fn reo_wnd(&self, now: Time, in_recovery: bool, segs_sacked: u32) -> Option<Duration> {
        let rack = self.rack.as_ref().filter(|_| self.rack_detection)?;
        Some(self.loss.reo_wnd(&crate::loss::ReoWndState {
            now,
            reordering_seen: rack.reordering_seen,
            reo_wnd_mult: rack.reo_wnd_mult,
            in_recovery,
            segs_sacked,
            dup_thresh: self.dup_thresh_in_force(),
            rack_rtt: rack.rtt,
            min_rtt: self.rtt.min_rtt(),
            srtt: self.rtt.srtt(),
            dsacks: self.dsacks,
        }))
    }

    fn arm_rto(&self, now: Time, t: &mut TimerTable) {
        t.set(Timer::Retransmit, now + self.rtt.rto());
    }

    /// Carry out recovery's answer, in the order `recovery::Actions` documents: the
    /// controller hears the congestion event, the episode's start, the window change, the
    /// episode's end and the ACK it may grow from, in that order.
    fn apply(
        &mut self,
        a: Actions,
        on: Occasion<'_>,
        now: Time,
        st: &mut TcpStats,
        t: &mut TimerTable,
    ) {
        if a.began {
            self.undo_begin();
        }
        if let Some(d) = a.decrease {
            // RFC 3168 §6.1.2: a loss in the window an ECN echo already reduced for is the
            // same congestion; recovery runs from the reduced window.
            if !self.ecn.covers_loss(self.snd_una) {
                self.cc.on_congestion_event(&CongestionEvent {
                    now,
                    cause: d.cause,
                    base: d.base,
                    smss: self.smss,
                });
                self.ecn.on_loss_reduction(self.snd_max);
            }
            if a.began {
                self.recovery_started(now, d.cause);
            }
        }
        if let Some(c) = a.cwnd {
            self.change_window(c);
        }
        if a.began {
            st.fast_retransmits += 1;
            st.recoveries.push(RecoveryEpisode {
                start: now,
                end: None,
            });
            self.episode_stats = Some(st.recoveries.len() - 1);
            if let Some(rack) = self.rack.as_mut() {
                // RFC 8985 §7.2: no probe during recovery.
                rack.tlp_end_seq = None;
                t.stop(Timer::TailLossProbe);
            }
            if self.rto_rearm != RtoRearm::NewAck && self.snd_max > self.snd_una {
                // The fast retransmission gets a full RTO (RFC 6675 §6 latitude; ns-2,
                // Linux and FreeBSD re-arm).
                self.arm_rto(now, t);
            }
        }
        if a.ended {
            if let Some(rack) = self.rack.as_mut() {
                rack.on_recovery_end();
            }
            if let Some(i) = self.episode_stats.take() {
                st.recoveries[i].end = Some(now);
            }
            self.cc.on_recovery_end(&RecoveryEnd {
                now,
                by_timeout: matches!(on, Occasion::Timeout),
            });
        }
        if let (true, Occasion::NewAck(sample)) = (a.grow, on) {
            // RFC 3168 §6.1.2: "The sending TCP SHOULD NOT increase the congestion window in
            // response to the receipt of an ECN-Echo ACK packet."
            if !sample.ece && self.cwnd_limited() {
                self.cc.on_ack(sample);
            }
        }
        if let Some(cause) = a.go_back {
            // Go back N: resend from snd_una (`transmit`).
            self.go_back_cause = cause;
            self.snd_nxt = self.snd_una;
        }
        if a.retransmit.is_some() {
            self.pending_rexmit = a.retransmit;
        }
    }

    /// The controller hears that a loss-recovery episode began.
    fn recovery_started(&mut self, now: Time, cause: CongestionCause) {
        let recovery_point = self.rec.recovery_point().unwrap_or(self.snd_max);
        self.cc.on_recovery_start(&RecoveryStart {
            now,
            cause,
            recovery_point,
        });
    }

    /// The named window change loss recovery asked for, told to the controller (whose
    /// default for each is the RFC's rule).
    fn change_window(&mut self, c: Cwnd) {
        let smss = self.smss;
        match c {
            Cwnd::Inflate { dupacks } => self.cc.on_recovery_inflate(dupacks, smss),
            Cwnd::InflateOne => self.cc.on_recovery_dupack(smss),
            Cwnd::Deflate => self.cc.on_recovery_deflate(),
            Cwnd::PartialAck { acked } => self.cc.on_partial_ack(acked, smss),
            Cwnd::GoBack => self.cc.on_go_back(smss),
        }
    }

    /// RFC 5681 §3.1: after a lost SYN the initial window is one segment.
    pub(crate) fn after_lost_syn(&mut self) {
        self.cc.on_lost_syn(self.smss);
    }

    /// RFC 6298 §5.4–5.5 and RFC 5681 §3.1 after a retransmission timeout.
    fn on_retransmission_timeout(&mut self, now: Time, st: &mut TcpStats, t: &mut TimerTable) {
        st.timeouts += 1;
        self.consecutive_timeouts += 1;
        if let Some(r) = self.reordering.as_mut() {
            r.on_timeout(self.rec.in_episode(), self.sb.sacked_segments());
            st.reordering = r.degree();
        }
        let fast_recovery_before = self.rec.in_episode() && !self.rec.after_rto();
        if !fast_recovery_before && self.consecutive_timeouts == 1 {
            // A new reduction (Linux tcp_enter_loss outside recovery); one inside a fast
            // recovery keeps the window from before that recovery's.
            self.undo_begin();
        }
        // What the timeout declares lost is marked (RACK) or counted (the others) before the
        // controller hears of it, as Linux's tcp_timeout_mark_lost (bbr_set_state reads
        // tp->lost).
        let reo_wnd = self.reo_wnd(now, self.rec.in_episode(), self.sb.sacked_segments());
        if let (Some(rack), Some(reo_wnd)) = (self.rack.as_ref(), reo_wnd) {
            // RFC 8985 §6.3: the head, and what was sent more than RACK.rtt + reo_wnd ago.
            self.lost_total += self
                .sb
                .mark_lost_on_rto(|s| rack.expired_on_rto(now, reo_wnd, s.sent_at));
        } else {
            // Every segment neither SACKed nor marked yet is lost now.
            self.lost_total += self.sb.unmarked_outstanding();
        }
        // The controller's decrease and loss window; RFC 5681 §3.1's rule on which ssthresh
        // stands after it is `Timeout::ssthresh_to_keep`.
        self.cc.on_timeout(&Timeout {
            now,
            base: self.decrease_base(false),
            smss: self.smss,
            repeated: self.consecutive_timeouts > 1,
            in_recovery: self.rec.in_episode(),
            prior_ssthresh: self.cc.ssthresh(),
            lost_total: self.lost_total,
        });
        self.ecn.on_loss_reduction(self.snd_max);
        // RFC 6298 §5.5 back off, unless the thin-stream option keeps timeouts linear.
        if !(self.thin_linear_timeouts && self.is_thin()) {
            self.rtt.back_off();
        }
        self.dupacks = 0;
        if self.rec.alg == RecoveryAlgorithm::Sack && !self.rack_detection {
            // RFC 6675 §5.1: everything not SACKed is presumed lost.
            self.sb.mark_all_lost();
        }
        let first_unsacked = self
            .sb
            .segments()
            .find(|x| !x.sacked)
            .map(|x| (x.start, x.end));
        let a = self.rec.on_timeout(&AckFacts {
            first_unsacked,
            ..self.facts(now, 0)
        });
        self.apply(a, Occasion::Timeout, now, st, t);
        if self.rec.in_episode() {
            // SACK recovery after the timeout (RFC 6675 §5.1).
            self.recovery_started(now, CongestionCause::Timeout);
            self.frto_on_timeout(fast_recovery_before, self.snd_max);
        }
    }

    /// RFC 6298 §5.4–5.6 and the persist timer.
    pub fn on_timeout(&mut self, now: Time, st: &mut TcpStats, t: &mut TimerTable) {
        self.now = now;
        // A probe due with the RTO goes first and re-arms it (RFC 8985 §7.2–7.3).
        if t.is_due(Timer::TailLossProbe, now) {
            self.fire_pto(now, t);
        }
        if t.is_due(Timer::Retransmit, now) {
            t.stop(Timer::Retransmit);
            if self.snd_max > self.snd_una {
                self.on_retransmission_timeout(now, st, t);
                self.arm_rto(now, t);
            }
        }
        if t.is_due(Timer::Persist, now) {
            t.stop(Timer::Persist);
            self.probe_now = true;
        }
        if t.is_due(Timer::Pacing, now) {
            t.stop(Timer::Pacing);
        }
        if t.is_due(Timer::RackReorder, now) {
            // RFC 8985 §6.3: the reordering timer re-runs loss detection.
            let in_recovery = self.rec.in_episode();
            let reo_wnd = self.reo_wnd(now, in_recovery, self.sb.sacked_segments());
            if let (Some(rack), Some(reo_wnd)) = (self.rack.as_mut(), reo_wnd) {
                let scan = detect_rack_loss(rack, now, &mut self.sb, reo_wnd, &mut self.lost_total);
                t.put(Timer::RackReorder, scan.timer);
                if scan.newly_lost {
                    self.on_rack_loss(now, st, t);
                }
            }
        }
    }

    /// RFC 8985 §7.3: send a probe, then re-arm the RTO.
    fn fire_pto(&mut self, now: Time, t: &mut TimerTable) {
        t.stop(Timer::TailLossProbe);
        if !self.rec.in_episode() && !self.sb.is_empty() {
            self.tlp_pending = true;
            self.arm_rto(now, t);
        }
    }
}

/// RFC 8985 §6.2 step 5 over the scoreboard: unSACKed segments not yet marked lost; each
/// one marked counts in `lost_total`.
fn detect_rack_loss(
    rack: &Rack,
    now: Time,
    sb: &mut Scoreboard,
    reo_wnd: Duration,
    lost_total: &mut u64,
) -> LossScan {
    // Only the segments that can be found lost are offered (`Scoreboard::rack_candidates`),
    // not every outstanding one: the others are passed over by the step's first test anyway.
    let mut candidates = Vec::new();
    sb.rack_candidates(|at, end| rack.sent_before_latest(at, end), &mut candidates);
    rack.detect_loss(
        now,
        reo_wnd,
        candidates.iter(),
        |&&(_, at, end)| Some((at, end)),
        |&(i, _, _)| {
            sb.mark_rack_lost(i);
            *lost_total += 1;
        },
    )
}

/// Offsets of the fields the connection's layout test follows (`connection::hot_block`),
/// nested ones by their path.
#[cfg(test)]
pub(crate) fn field_offsets() -> Vec<(String, usize)> {
    use std::mem::offset_of;
    let mut v: Vec<(String, usize)> = field_offsets!(
        Sender;
        now, snd_una, snd_nxt, snd_max, smss, snd_wnd, max_snd_wnd, snd_wl1, snd_wl2,
        last_ack_advance, lt_bytes, lost_total, dsacks, dupacks, consecutive_timeouts, dup_thresh,
        limited_transmit, early_retransmit, thin_dupack, nagle, probe_now, tlp_pending, tlp,
        rack_detection, go_back_in_packets, pending_rexmit, last_data_sent, pace_at, paced_sent, cc,
        loss, fin_at, idle_restart, decrease_base, cwnd_use, rack, reordering, rate,
    )
    .into_iter()
    .map(|(n, o)| (n.to_string(), o))
    .collect();
    let rec = offset_of!(Sender, rec);
    let rtt = offset_of!(Sender, rtt);
    let nested = [
        (
            "rec",
            rec,
            field_offsets!(Recovery; alg, episode, recover, high_rxt, rescue_rxt, prr),
        ),
        // What an RTO query reads: the RTT estimator's first 56 bytes; what a sample writes:
        // bytes 56 to 119 (pinned by `rexmit_transport::rtt`'s
        // `an_rto_query_reads_the_first_56_bytes`).
        (
            "rtt",
            rtt,
            vec![
                ("rto", 0),
                ("rto_end", 55),
                ("sample", 56),
                ("sample_end", 119),
            ],
        ),
        (
            "undo",
            offset_of!(Sender, undo),
            crate::recovery::undo::field_offsets(),
        ),
        (
            "sb",
            offset_of!(Sender, sb),
            crate::sack_scoreboard::field_offsets(),
        ),
        (
            "buf",
            offset_of!(Sender, buf),
            crate::send_buffer::field_offsets(),
        ),
    ];
    for (outer, at, fields) in nested {
        v.extend(
            fields
                .into_iter()
                .map(|(n, o)| (format!("{outer}.{n}"), at + o)),
        );
    }
    v
}
