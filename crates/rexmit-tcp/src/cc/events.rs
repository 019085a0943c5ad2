//! What the sender tells a congestion controller (`CongestionControl`): plain data, `Copy`, so
//! that a bridge to another language can convert each event field by field. When the sender
//! raises each one, and in which order, is in docs/congestion_control.md.

use crate::delivery_rate::RateSample;
use rexmit_time::{Duration, Time};

/// The handshake completed (`CongestionControl::on_connected`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Connected {
    pub now: Time,
    /// The segment size the connection uses (the controller was built for it).
    pub smss: u64,
    /// RFC 6298 SRTT and the minimum RTT after the handshake's sample, if it gave one (not
    /// after a retransmitted SYN: RFC 6298 §3, Karn).
    pub srtt: Option<Duration>,
    pub min_rtt: Option<Duration>,
}

/// What an ACK tells the controller (`on_delivery` on an ACK of new data or a duplicate ACK;
/// `on_ack` when the window may grow).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckSample {
    pub now: Time,
    /// Bytes newly acknowledged cumulatively by this ACK.
    pub acked: u64,
    /// Bytes this ACK reports as having left the network (cumulative + newly SACKed, or one
    /// SMSS for a duplicate ACK without SACK). Bandwidth estimators use it.
    pub delivered: u64,
    pub srtt: Option<Duration>,
    pub min_rtt: Option<Duration>,
    /// The RTT this ACK measured (timestamp echo, else its newest never-retransmitted
    /// segment, RFC 6298 §3 Karn), if any.
    pub rtt: Option<Duration>,
    /// snd_una after the ACK and snd_nxt (round boundaries for HyStart).
    pub snd_una: u64,
    pub snd_nxt: u64,
    /// The ACK carries ECE and ECN was negotiated (RFC 3168 §6.1.2; DCTCP counts the bytes
    /// such ACKs acknowledge, RFC 8257 §3.3). The window does not grow on it (`on_ack` is
    /// not called).
    pub ece: bool,
}

/// The loss-recovery state an ACK leaves the sender in (Linux's ca_state as BBR reads it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaState {
    Open,
    /// Fast recovery (duplicate ACKs, SACK or RACK).
    Recovery,
    /// Recovery after a retransmission timeout.
    Loss,
}

/// What a rate-based controller (BBR) learns from one ACK, after loss recovery handled it
/// (`on_rate_ack`, only for controllers whose `wants_rate_samples` is true).
#[derive(Clone, Copy, Debug)]
pub struct RateAck {
    pub now: Time,
    pub rs: RateSample,
    /// Bytes delivered on the connection so far (C.delivered).
    pub delivered: u64,
    /// Bytes in flight after the ACK (pipe).
    pub in_flight: u64,
    /// Segments this ACK newly marked lost (Linux rs->losses).
    pub losses: u64,
    /// Segments marked lost on the connection so far, by ACKs, the RACK reordering timer and
    /// timeouts alike (Linux tp->lost).
    pub lost_total: u64,
    pub ca_state: CaState,
    pub srtt: Option<Duration>,
}

/// Why the sender reports a congestion event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CongestionCause {
    /// DupThresh duplicate ACKs: RFC 5681 §3.2 step 2 (Tahoe, Reno), RFC 6582 §3.2 step 2
    /// (NewReno), RFC 6675 §5 step (4) `DupAcks >= DupThresh` (SACK).
    DuplicateAcks,
    /// RFC 6675 §5 step (4) `IsLost(HighACK + 1)`: the SACK scoreboard marked the first
    /// unacknowledged segment lost before DupThresh duplicate ACKs arrived.
    SackLoss,
    /// RFC 8985 §6.2 step 5: RACK marked a segment lost (on an ACK or its reordering timer).
    Rack,
    /// RFC 8985 §7.4.2: only the tail-loss probe arrived, so it repaired a loss: the
    /// congestion response of a fast recovery without entering one, from cwnd.
    TlpRepair,
    /// A retransmission timeout. The sender reports timeouts through `on_timeout`; this cause
    /// reaches `on_congestion_event` only from the trait's default `on_timeout` (and a
    /// built-in's own), and starts the recovery episode of a SACK sender after a timeout.
    Timeout,
    /// RFC 3168 §6.1.2: the peer echoed a congestion mark (ECE). The sender raises
    /// `on_ecn_echo`; this cause reaches `on_congestion_event` from its default.
    EcnEcho,
}

/// A congestion event (`on_congestion_event`): set ssthresh and reduce cwnd (RFC 5681 §3.1
/// eq. 4 and §3.2 step 2, each controller with its own decrease).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CongestionEvent {
    pub now: Time,
    pub cause: CongestionCause,
    /// What the decrease applies to (`DecreaseBase`): RFC 5681 FlightSize — at a fast
    /// retransmit without the data limited transmit sent, RFC 3042 §2 — or cwnd. A TLP repair
    /// always decreases from cwnd (RFC 8985 §7.4.2).
    pub base: u64,
    pub smss: u64,
}

/// A retransmission timeout (`on_timeout`), with what the sender knows at that moment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timeout {
    pub now: Time,
    /// As `CongestionEvent::base`: FlightSize (everything outstanding) or cwnd.
    pub base: u64,
    pub smss: u64,
    /// Not the first timeout since snd_una last advanced (RFC 5681 §3.1: ssthresh is set only
    /// when the segment has not been resent by the timer before).
    pub repeated: bool,
    /// A loss-recovery episode was open; the timeout ends it (`on_recovery_end` follows).
    pub in_recovery: bool,
    /// The controller's ssthresh before the timeout.
    pub prior_ssthresh: u64,
    /// Segments marked lost on the connection so far, those the timeout declares lost
    /// included (Linux tp->lost, which tcp_enter_loss updates before the controller hears).
    pub lost_total: u64,
}

impl Timeout {
    /// The congestion event a timeout is for a controller's decrease (RFC 5681 §3.1 eq. 4).
    pub fn congestion_event(&self) -> CongestionEvent {
        CongestionEvent {
            now: self.now,
            cause: CongestionCause::Timeout,
            base: self.base,
            smss: self.smss,
        }
    }

    /// The ssthresh to keep after a controller computed `computed` (RFC 5681 §3.1): ssthresh
    /// is set to *no more than* eq. 4, and only when the segment has not been resent by the
    /// timer before. Inside a loss-recovery episode FlightSize also counts the data sent
    /// during recovery, so eq. 4 alone would raise ssthresh above what the episode's
    /// congestion response set: keep the smaller (Linux keeps the recovery's ssthresh, ns-2
    /// halves its already halved cwnd). A repeated timeout keeps ssthresh as it was.
    pub fn ssthresh_to_keep(&self, computed: u64) -> u64 {
        if self.repeated {
            self.prior_ssthresh
        } else if self.in_recovery {
            computed.min(self.prior_ssthresh)
        } else {
            computed
        }
    }
}

/// The peer echoed a congestion mark and the window may be reduced (`on_ecn_echo`; RFC 3168
/// §6.1.2): raised at most once per window of data, never during a loss recovery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EcnEcho {
    pub now: Time,
    /// As `CongestionEvent::base`: FlightSize or cwnd (`DecreaseBase`).
    pub base: u64,
    pub smss: u64,
}

impl EcnEcho {
    /// The congestion event an echo is for a controller's decrease (RFC 3168 §6.1.2: "treated
    /// just as a congestion loss"), cause `EcnEcho`.
    pub fn congestion_event(&self) -> CongestionEvent {
        CongestionEvent {
            now: self.now,
            cause: CongestionCause::EcnEcho,
            base: self.base,
            smss: self.smss,
        }
    }
}

/// A loss-recovery episode began (`on_recovery_start`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecoveryStart {
    pub now: Time,
    /// What began it: duplicate ACKs, SACK loss marking or RACK (fast recovery), or
    /// `Timeout` (SACK recovery after a timeout, RFC 6675 §5.1).
    pub cause: CongestionCause,
    /// RFC 6675 RecoveryPoint / RFC 6582 `recover`: the episode ends when snd_una reaches it.
    pub recovery_point: u64,
}

/// A loss-recovery episode ended (`on_recovery_end`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecoveryEnd {
    pub now: Time,
    /// Ended by a retransmission timeout (`on_timeout` came just before) rather than by the
    /// cumulative ACK reaching its recovery point (Reno: by the first ACK of new data).
    pub by_timeout: bool,
}

/// No data was sent for longer than an RTO and nothing is outstanding; data is about to go
/// (`on_idle_restart`, `tcp.idle_restart`: RFC 5681 §4.1, Linux tcp_cwnd_restart).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IdleRestart {
    pub now: Time,
    /// How long nothing was sent.
    pub idle: Duration,
    /// cwnd is set to no more than this: RFC 5681 §4.1 RW = min(IW, cwnd), or Linux's cwnd
    /// halved once per RTO of idleness and not below RW.
    pub restart_window: u64,
    /// ssthresh is raised to at least this (Linux: 3/4 of cwnd before the restart, as
    /// tcp_current_ssthresh; RFC 5681: 0, ssthresh stays).
    pub ssthresh_floor: u64,
}

/// New data goes out with nothing outstanding (`on_tx_start`; Linux's CA_EVENT_TX_START).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TxStart {
    pub now: Time,
    /// Since the last data segment was sent.
    pub idle: Duration,
}

/// How a window reduction was found spurious (`Undo::cause`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UndoCause {
    /// Every retransmission since the reduction was reported duplicate by a D-SACK (RFC 3708
    /// detection; Linux tcp_try_undo_dsack).
    Dsack,
    /// The ACK echoes a timestamp older than the first retransmission: the original arrived
    /// (RFC 3522 Eifel detection; Linux tcp_packet_delayed).
    Timestamps,
    /// After a retransmission timeout, data sent before it and never retransmitted was
    /// acknowledged (RFC 5682 F-RTO, SACK-enhanced; Linux tcp_frto = 2).
    Frto,
}

/// A window reduction was spurious (`on_undo`): the window before it may be restored (RFC 4015
/// Eifel response; Linux tcp_undo_cwnd_reduction).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Undo {
    pub now: Time,
    pub cause: UndoCause,
    /// cwnd and ssthresh just before the reduction (a congestion event, or the timeout).
    pub prior_cwnd: u64,
    pub prior_ssthresh: u64,
}
