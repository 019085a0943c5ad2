//! One destination transport address of a multihomed association (RFC 9260 §8): its RTO,
//! congestion controller, flightsize, the bytes sent there, error counter, reachability
//! (active / potentially failed / inactive) and heartbeat bookkeeping. Owns: the per-path
//! numbers and the state transitions on errors and acknowledgements. Does not own: the choice
//! of path for data (`cmt` and the association), the window rules (`controller`).

use crate::controller::PathController;
use rexmit_tcp::cc::AckSample;
use rexmit_time::{Duration, Time};
use rexmit_transport::{RtoConfig, RttEstimator};
use std::net::Ipv4Addr;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathState {
    Active,
    /// CMT-PF: timed out; probed with heartbeats, no new data until confirmed.
    PotentiallyFailed,
    /// Error counter exceeded Path.Max.Retrans (RFC 9260 §8.2).
    Inactive,
}

/// What an error or acknowledgement did to the path's reachability.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transition {
    None,
    /// Became potentially failed (CMT-PF): probe it, but it is not reported down.
    PotentiallyFailed,
    /// Became inactive: unreachable (RFC 9260 §8.2).
    Down,
    /// An inactive path answered again.
    Up,
}

/// One destination. Its fields are private: the association reads them through the accessors
/// and changes them only through the named state changes below, each citing its rule.
/// `Clone` and `PartialEq` for the checked polls of tests and fuzzing (a plugged controller
/// is copied frozen: `controller::Plugged`).
#[derive(Debug)]
#[cfg_attr(any(test, feature = "fuzzing"), derive(Clone, PartialEq))]
pub struct Path {
    /// A chunk sent here is being timed (RFC 9260 §6.3.1 C4: one RTT measurement per round
    /// trip per destination).
    rtt_pending: bool,
    remote: Ipv4Addr,
    local: Ipv4Addr,
    state: PathState,
    /// Consecutive unacknowledged retransmissions / heartbeats (RFC 9260 §8.2).
    error_count: u32,
    /// When the current run of errors began: acks of data sent before it do not prove the
    /// path works now (they answer transmissions from before the trouble).
    errors_since: Option<Time>,
    rtt: RttEstimator,
    cc: PathController,
    /// Bytes of DATA in flight to this destination.
    flight: u64,
    /// Bytes of DATA sent to this destination so far, retransmissions included (a plugged
    /// controller's snd_nxt; its snd_una is this minus the flight).
    sent: u64,
    /// The HEARTBEAT awaiting its ACK: (nonce, sent at). Its deadlines are in the
    /// association's timer table.
    hb_outstanding: Option<(u64, Time)>,
    hb_nonce: u64,
    last_sent: Time,
    /// RTOs of the current idle period whose cwnd decay has been applied (RFC 9260 §7.2.1: one
    /// halving per RTO, however often the sender looks).
    idle_rtos_applied: u64,
    /// CMT per-destination fast recovery exit point.
    fr_exit: Option<u32>,
    /// New-data packets sent in the current transmit opportunity (RFC 9260 Max.Burst).
    burst_sent: u32,
}

impl Path {
    pub fn new(
        local: Ipv4Addr,
        remote: Ipv4Addr,
        rto: RtoConfig,
        cc: impl Into<PathController>,
    ) -> Self {
        Path {
            remote,
            local,
            state: PathState::Active,
            error_count: 0,
            errors_since: None,
            rtt: RttEstimator::new(rto),
            cc: cc.into(),
            flight: 0,
            sent: 0,
            hb_outstanding: None,
            hb_nonce: 0,
            last_sent: Time::ZERO,
            rtt_pending: false,
            idle_rtos_applied: 0,
            fr_exit: None,
            burst_sent: 0,
        }
    }

    // --- reads ---

    /// The peer's address of this destination.
    pub fn remote(&self) -> Ipv4Addr {
        self.remote
    }
    /// Our address the path leaves from.
    pub fn local(&self) -> Ipv4Addr {
        self.local
    }
    pub fn state(&self) -> PathState {
        self.state
    }
    /// Consecutive errors (RFC 9260 §8.2).
    pub fn error_count(&self) -> u32 {
        self.error_count
    }
    pub fn rtt(&self) -> &RttEstimator {
        &self.rtt
    }
    /// The congestion controller, which owns cwnd and ssthresh and their rules
    /// (`controller.rs`); flightsize stays here.
    pub fn cc(&self) -> &PathController {
        &self.cc
    }
    pub(crate) fn cc_mut(&mut self) -> &mut PathController {
        &mut self.cc
    }
    /// Flightsize: bytes of DATA in flight to this destination (RFC 9260 §6.1).
    pub fn flight(&self) -> u64 {
        self.flight
    }
    /// When DATA last went to this destination (or the association was established).
    pub fn last_sent(&self) -> Time {
        self.last_sent
    }
    /// CMT: this destination's fast recovery exit point, while in fast recovery.
    pub fn fr_exit(&self) -> Option<u32> {
        self.fr_exit
    }
    /// A HEARTBEAT to this destination awaits its ACK.
    pub fn heartbeat_outstanding(&self) -> bool {
        self.hb_outstanding.is_some()
    }

    /// May carry new data (CMT-PF keeps potentially-failed paths for heartbeats only).
    pub fn usable(&self) -> bool {
        self.state == PathState::Active
    }

    /// RFC 9260 §6.1 B: new data may go out while flightsize < cwnd.
    pub fn can_send(&self) -> bool {
        self.cc.can_send(self.flight)
    }

    /// An acknowledgement of data sent at `sent_at` proves the path works now: it was sent
    /// after the current run of errors began, or there is none (RFC 9260 §8.3).
    pub fn ack_is_fresh(&self, sent_at: Time) -> bool {
        !matches!(self.errors_since, Some(t) if sent_at < t)
    }

    // --- flightsize (RFC 9260 §6.1) ---

    /// A DATA chunk of `len` bytes went to this destination at `now`.
    pub fn on_data_sent(&mut self, now: Time, len: u64) {
        self.flight += len;
        self.sent += len;
        self.last_sent = now;
        self.idle_rtos_applied = 0;
    }

    /// `len` bytes left the flight: acknowledged, or presumed lost and marked for
    /// retransmission (§7.2.4, §6.3.3), or taken back for a tail loss probe.
    pub fn leave_flight(&mut self, len: u64) {
        self.flight -= len;
    }

    /// T3-rtx expiry (§6.3.3 E3): everything in flight here was marked for retransmission.
    pub fn clear_flight(&mut self) {
        self.flight = 0;
    }

    /// Association established: idle time (cwnd decay, heartbeats) counts from `now`.
    pub fn start_idle_clock(&mut self, now: Time) {
        self.last_sent = now;
        self.idle_rtos_applied = 0;
    }

    /// RFC 9260 §7.2.1: before new data on an idle destination (nothing in flight), cwnd
    /// decays once per RTO it was idle since `last_sent`; the RTOs already applied in this
    /// idle period are not applied again when the sender looks twice with nothing to send.
    pub fn restart_after_idle(&mut self, now: Time) {
        if let Some(idle_rtos) = self.idle_decay_due(now) {
            let idle = now.saturating_since(self.last_sent);
            self.cc
                .on_idle(now, idle_rtos - self.idle_rtos_applied, idle);
            self.idle_rtos_applied = idle_rtos;
        }
    }

    /// What a SACK that newly acknowledged `acked` bytes sent here tells a plugged controller
    /// (`AckSample`): this path's RTT estimates, `rtt` the SACK's sample (the newest chunk
    /// sent once among those it newly acknowledged here, Karn's rule), and as round
    /// boundaries this path's byte counters: snd_nxt the bytes sent here so far, snd_una those
    /// of them no longer in flight (acknowledged, or marked for retransmission).
    pub fn ack_sample(&self, now: Time, acked: u64, rtt: Option<Duration>) -> AckSample {
        AckSample {
            now,
            acked,
            delivered: acked,
            srtt: self.rtt.srtt(),
            min_rtt: self.rtt.min_rtt(),
            rtt,
            snd_una: self.sent - self.flight,
            snd_nxt: self.sent,
            // The SCTP core does not model ECN (docs/congestion_control.md, "SCTP").
            ece: false,
        }
    }

    /// Bytes of DATA sent here so far, retransmissions included (a plugged controller's
    /// snd_nxt and recovery point).
    pub fn bytes_sent(&self) -> u64 {
        self.sent
    }

    /// The RTOs this destination has been idle at `now` (§7.2.1), when more than those already
    /// applied: `restart_after_idle` would decay cwnd now.
    pub(crate) fn idle_decay_due(&self, now: Time) -> Option<u64> {
        if self.flight != 0 {
            return None;
        }
        let rto = self.rtt.rto().as_nanos().max(1);
        let idle_rtos = now.saturating_since(self.last_sent).as_nanos() / rto;
        (idle_rtos > self.idle_rtos_applied).then_some(idle_rtos)
    }

    // --- RTO (RFC 9260 §6.3) ---

    /// §6.3.1 C2-C4: a round-trip measurement (of the chunk being timed).
    pub fn on_rtt_sample(&mut self, r: Duration) {
        self.rtt.on_sample(r);
        self.rtt_pending = false;
    }

    /// Any chunk sent once and newly acknowledged bounds the minimum RTT (for RACK), timed or
    /// not.
    pub fn on_min_rtt_sample(&mut self, r: Duration) {
        self.rtt.on_min_rtt_sample(r);
    }

    /// §6.3.1 C4: a first transmission goes here; whether it is to be timed (no other chunk
    /// on this path is).
    pub fn time_this_chunk(&mut self) -> bool {
        !std::mem::replace(&mut self.rtt_pending, true)
    }

    /// The chunk being timed here was sent again (Karn, §6.3.1 C5): it measures nothing, so
    /// the next first transmission is timed instead.
    pub fn timed_chunk_resent(&mut self) {
        self.rtt_pending = false;
    }

    /// §6.3.3 E2 (and T1/T2-init, §5.1, §9.2): double the RTO.
    pub fn back_off_rto(&mut self) {
        self.rtt.back_off();
    }

    /// Seed 004 §5.3: linear timeouts while thin (the RTO is not doubled).
    pub fn reset_rto_backoff(&mut self) {
        self.rtt.reset_backoff();
    }

    // --- Max.Burst (RFC 9260 §6.1 D, RFC 4960 §6.1 D) ---

    /// A transmit opportunity begins: no packets of it sent yet; `clamp`: `Some(max_burst)`
    /// applies RFC 4960's rule of lowering cwnd to flightsize + Max.Burst·MTU.
    pub fn open_burst_round(&mut self, clamp: Option<u32>) {
        self.burst_sent = 0;
        if let Some(mb) = clamp {
            self.cc.clamp_burst(self.flight, mb);
        }
    }

    /// One new-data packet of this transmit opportunity went out.
    pub fn count_burst_packet(&mut self) {
        self.burst_sent += 1;
    }

    /// RFC 9260 §6.1 D: `max_burst` new-data packets went out in this transmit opportunity.
    pub fn burst_exhausted(&self, max_burst: u32) -> bool {
        self.burst_sent >= max_burst
    }

    // --- CMT fast recovery per destination (RFC 9260 §7.2.4) ---

    /// Fast recovery begins here, to end once nothing sent here up to `exit` is unacked.
    pub fn enter_fast_recovery(&mut self, exit: u32) {
        self.fr_exit = Some(exit);
    }

    /// §7.2.4: fast recovery on this destination is over (or abandoned on T3-rtx expiry).
    pub fn exit_fast_recovery(&mut self) {
        self.fr_exit = None;
    }

    // --- heartbeats (RFC 9260 §8.3) ---

    /// A HEARTBEAT goes out at `now`: returns the nonce its ACK must echo.
    pub fn heartbeat_sent(&mut self, now: Time) -> u64 {
        self.hb_nonce += 1;
        let nonce = self.hb_nonce;
        self.hb_outstanding = Some((nonce, now));
        nonce
    }

    /// A HEARTBEAT ACK from `from` echoing `nonce` arrived at `now`: if it answers the
    /// outstanding HEARTBEAT, that one is done, its round trip is an RTT sample and the path
    /// is acknowledged (`on_ack`); returns the transition, `None` for an ACK to ignore.
    pub fn on_heartbeat_ack(
        &mut self,
        now: Time,
        nonce: u64,
        from: Ipv4Addr,
    ) -> Option<Transition> {
        let (expected, sent) = self.hb_outstanding?;
        if expected != nonce || self.remote != from {
            return None;
        }
        self.hb_outstanding = None;
        self.rtt.on_sample(now.saturating_since(sent));
        Some(self.on_ack())
    }

    /// The outstanding HEARTBEAT went unanswered for an RTO (§8.3): it is given up and the
    /// RTO doubled; the caller counts the error (`on_error`).
    pub fn heartbeat_timed_out(&mut self) {
        self.hb_outstanding = None;
        self.rtt.back_off();
    }

    // --- reachability (RFC 9260 §8.2) ---

    /// One more error (T3-rtx or unanswered heartbeat). `pf_threshold`: `Some(n)` when CMT-PF
    /// is on.
    pub fn on_error(
        &mut self,
        now: Time,
        path_max_retrans: u32,
        pf_threshold: Option<u32>,
    ) -> Transition {
        self.error_count += 1;
        self.errors_since.get_or_insert(now);
        match self.state {
            PathState::Inactive => Transition::None,
            _ if self.error_count > path_max_retrans => {
                self.state = PathState::Inactive;
                Transition::Down
            }
            PathState::Active if pf_threshold.is_some_and(|t| self.error_count > t) => {
                self.state = PathState::PotentiallyFailed;
                Transition::PotentiallyFailed
            }
            _ => Transition::None,
        }
    }

    /// An acknowledgement of data or a heartbeat sent to this path (RFC 9260 §8.3).
    pub fn on_ack(&mut self) -> Transition {
        self.error_count = 0;
        self.errors_since = None;
        let was = self.state;
        self.state = PathState::Active;
        if was == PathState::Inactive {
            Transition::Up
        } else {
            Transition::None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::PathCc;

    fn path() -> Path {
        Path::new(
            Ipv4Addr::new(10, 0, 0, 1),
            Ipv4Addr::new(10, 0, 1, 1),
            RtoConfig::sctp(),
            PathCc::new(1452, None, u64::MAX),
        )
    }

    /// RFC 9260 §7.2.1: an idle destination's cwnd halves once per RTO of idleness (down to
    /// 4·MTU), however many times the sender looks for something to send in between.
    #[test]
    fn idle_decay_applies_each_rto_once() {
        let mtu = 1452;
        let mut p = Path::new(
            Ipv4Addr::new(10, 0, 0, 1),
            Ipv4Addr::new(10, 0, 1, 1),
            RtoConfig::sctp(), // RTO.Initial 3 s: no sample taken here
            PathCc::new(mtu, Some(32 * mtu), u64::MAX),
        );
        p.on_data_sent(Time::ZERO, mtu);
        p.clear_flight();
        let s = |x: u64| Time::ZERO + Duration::from_millis(x);
        p.restart_after_idle(s(2_900));
        assert_eq!(p.cc().cwnd(), 32 * mtu, "less than one RTO idle");
        p.restart_after_idle(s(4_000));
        assert_eq!(p.cc().cwnd(), 16 * mtu, "one RTO: one halving");
        p.restart_after_idle(s(5_000));
        p.restart_after_idle(s(5_900));
        assert_eq!(p.cc().cwnd(), 16 * mtu, "the same RTO is not applied again");
        p.restart_after_idle(s(6_100));
        assert_eq!(p.cc().cwnd(), 8 * mtu, "a second RTO: a second halving");
        p.restart_after_idle(s(30_000));
        assert_eq!(p.cc().cwnd(), 4 * mtu, "never below 4·MTU");
        p.on_data_sent(s(30_000), mtu);
        p.clear_flight();
        p.restart_after_idle(s(31_000));
        assert_eq!(p.cc().cwnd(), 4 * mtu);
    }

    #[test]
    fn path_goes_down_after_path_max_retrans_and_up_on_ack() {
        let mut p = path();
        for _ in 0..5 {
            assert_eq!(p.on_error(Time::ZERO, 5, None), Transition::None);
        }
        assert_eq!(p.on_error(Time::ZERO, 5, None), Transition::Down);
        assert_eq!(p.state(), PathState::Inactive);
        assert_eq!(p.on_ack(), Transition::Up);
        assert_eq!(p.error_count(), 0);
    }

    #[test]
    fn cmt_pf_marks_potentially_failed_after_threshold() {
        let mut p = path();
        assert_eq!(p.on_error(Time::ZERO, 5, Some(1)), Transition::None);
        assert_eq!(
            p.on_error(Time::ZERO, 5, Some(1)),
            Transition::PotentiallyFailed
        );
        assert_eq!(p.state(), PathState::PotentiallyFailed);
        assert!(!p.usable());
        assert_eq!(p.on_ack(), Transition::None, "back from PF silently");
        assert!(p.usable());
    }

    #[test]
    fn heartbeat_ack_counts_only_with_its_nonce_and_address() {
        let mut p = path();
        p.on_error(Time::ZERO, 5, None);
        let t0 = Time::from_nanos(1_000_000);
        let nonce = p.heartbeat_sent(t0);
        assert!(p.heartbeat_outstanding());
        let later = Time::from_nanos(21_000_000);
        assert_eq!(p.on_heartbeat_ack(later, nonce + 1, p.remote()), None);
        assert_eq!(p.on_heartbeat_ack(later, nonce, p.local()), None);
        assert_eq!(p.error_count(), 1, "ignored ACKs clear nothing");
        assert_eq!(
            p.on_heartbeat_ack(later, nonce, p.remote()),
            Some(Transition::None)
        );
        assert!(!p.heartbeat_outstanding());
        assert_eq!(p.error_count(), 0, "§8.3: the ACK clears the error counter");
        assert_eq!(p.rtt().srtt(), Some(later.saturating_since(t0)));
        assert_eq!(
            p.on_heartbeat_ack(later, nonce, p.remote()),
            None,
            "answered once"
        );
    }

    #[test]
    fn burst_round_restarts_the_packet_count_and_flight_follows_sends() {
        let mut p = path();
        p.on_data_sent(Time::ZERO, 3000);
        p.count_burst_packet();
        assert!(p.burst_exhausted(1));
        p.open_burst_round(None);
        assert!(!p.burst_exhausted(1));
        p.leave_flight(1000);
        assert_eq!(p.flight(), 2000);
        p.clear_flight();
        assert_eq!(p.flight(), 0);
    }
}
