//! Where the thin-stream modifications of seed 004 §5 and the two comparison mechanisms (FreeBSD
//! EFR, RFC 5827 early retransmit) hook into the association: packet tracking after each DATA
//! packet, the T3-rtx duration and restart point, the fast-retransmit threshold, the EFR timer
//! and the time-thin counter. The arithmetic lives in `crate::thin`.

use super::timers::Timer;
use super::Association;
use crate::rtx_queue::TsnState;
use crate::stats::RtxCause;
use crate::thin::{self, DUPTHRESH};
use rexmit_time::{Duration, Time};

impl Association {
    /// Seed 004 Fig. 3 thin test; false unless a seed-004 modification needs it.
    pub(super) fn is_thin(&self) -> bool {
        let c = &self.cfg.thin;
        c.needs_thin_test()
            && self
                .tx
                .packets()
                .is_thin(c.thin_threshold_packets, c.thin_loss_rate_term)
    }

    /// The association is thin now (seed 004 Fig. 3), for observation and tests.
    pub fn thin_stream(&self) -> bool {
        self.is_thin()
    }
    /// DATA packets in flight as seed 004 §5.1 counts them (0 unless tracked).
    pub fn packets_in_flight(&self) -> u64 {
        self.tx.packets().in_flight()
    }

    /// The RTO for (re)starting T3-rtx on path `p`.
    pub(super) fn t3_rto(&self, p: usize) -> Duration {
        thin::t3_rto(self.paths[p].rtt(), &self.cfg.thin, self.is_thin())
    }

    /// After a DATA packet with `tsns` went to path `p`: track it, start T3-rtx if it is not
    /// running (RFC 9260 §6.3.2 R1) and the EFR timer.
    pub(super) fn after_data_packet(&mut self, now: Time, p: usize, tsns: &[u32]) {
        if self.cfg.thin.tracks_packets() {
            self.tx.packet_sent(tsns);
        }
        if !self.timers.is_set(Timer::T3Rtx(p)) {
            let at = now + self.t3_rto(p);
            self.timers.set(Timer::T3Rtx(p), at);
        }
        self.efr_rearm(now, p);
        self.account_thin(now);
    }

    /// Earliest transmission time of a chunk in flight on path `p`.
    fn earliest_sent_on(&self, p: usize) -> Option<Time> {
        self.tx
            .rtxq()
            .iter()
            .filter(|e| e.path == p && e.state == TsnState::InFlight)
            .map(|e| e.sent_at)
            .min()
    }

    /// T3-rtx restart on a SACK that acked the earliest outstanding TSN (RFC 9260 §6.3.2 R3):
    /// one RTO from now, or, with seed 004 §5.2's correction while thin, one RTO after the
    /// earliest outstanding chunk was sent (never in the past).
    pub(super) fn t3_restart(&self, now: Time, p: usize, thin: bool) -> Time {
        let rto = self.t3_rto(p);
        if thin && self.cfg.thin.timer_restart_correction {
            if let Some(sent) = self.earliest_sent_on(p) {
                return (sent + rto).max(now);
            }
        }
        now + rto
    }

    /// Why a chunk with `miss` indications is lost now, if it is: RFC 9260 §7.2.4's three,
    /// seed 004 §5.4's one while thin, or RFC 5827's ER_thresh.
    pub(super) fn fr_cause(miss: u32, thin_first: bool, er: Option<u32>) -> Option<RtxCause> {
        if miss >= DUPTHRESH {
            Some(RtxCause::FastRetransmit)
        } else if thin_first && miss >= 1 {
            Some(RtxCause::ThinFastRetransmit)
        } else if er.is_some_and(|t| miss >= t) {
            Some(RtxCause::EarlyRetransmit)
        } else {
            None
        }
    }

    /// RFC 5827 §3.2's ER_thresh for this SACK, when early retransmit applies.
    pub(super) fn er_threshold(&self) -> Option<u32> {
        if !self.cfg.thin.early_retransmit_rfc5827 {
            return None;
        }
        self.tx.packets().er_threshold(self.new_data_sendable())
    }

    /// Previously unsent data could go out now (RFC 5827 §3.2 condition): data waits and the
    /// primary's cwnd and the peer's window have room.
    fn new_data_sendable(&self) -> bool {
        let Some(front) = self.tx.queue().front() else {
            return false;
        };
        self.paths[self.primary].can_send()
            && front.chunk.payload.len() as u64 <= self.tx.peer_rwnd()
    }

    /// How long a chunk on `p` waits before EFR resends it: SRTT + RTTVAR ("a timer that
    /// closely follows RTT + RTTVAR", seed 004 §2), at least the clock granularity above SRTT
    /// and at least `efr_min` (FreeBSD's early_fast_retran_msec). Without the granularity term
    /// a constant path RTT drives RTTVAR to 0 and the timer to the very instant the SACK
    /// arrives; without the floor every chunk whose SACK is a little late is resent, and when
    /// every chunk has been resent Karn's rule leaves no RTT sample to undo T3-rtx's backoff
    /// (the 60 s stalls of issue 19 §4). None before the first RTT measurement.
    fn efr_wait(&self, p: usize) -> Option<Duration> {
        let rtt = self.paths[p].rtt();
        let srtt = rtt.srtt()?;
        let var = rtt.rttvar().max(rtt.config().granularity);
        Some((srtt + var).max(self.cfg.thin.efr_min))
    }

    /// FreeBSD EFR (seed 004 §2, §7.5): while flightsize < cwnd on `p`, a timer runs to the
    /// moment the earliest chunk in flight has waited `efr_wait` ("a timer for every outgoing
    /// packet", kept as one timer at the earliest of them). A chunk that has waited that long
    /// already makes the timer due at once (`now`), never in the past.
    pub(super) fn efr_rearm(&mut self, now: Time, p: usize) {
        if !self.cfg.thin.early_fast_retransmit {
            return;
        }
        let path = &self.paths[p];
        // Chunks EFR (or fast retransmit) already resent are not timed again: like fast
        // retransmit, EFR resends a TSN at most once (RFC 9260 §7.2.4), so queueing delay
        // above the wait cannot make it resend the same chunks in a loop.
        let earliest = self
            .tx
            .rtxq()
            .iter()
            .filter(|e| e.path == p && e.state == TsnState::InFlight && !e.fast_retransmitted)
            .map(|e| e.sent_at)
            .min();
        let deadline = match self.efr_wait(p) {
            Some(wait) if path.flight() > 0 && path.can_send() => {
                earliest.map(|t| (t + wait).max(now))
            }
            _ => None,
        };
        if p < self.paths.len() {
            self.timers.put(Timer::EarlyFastRtx(p), deadline);
        }
    }

    /// EFR expiry on `p`: if the window is still not fully used, retransmit every chunk that
    /// could have been acknowledged meanwhile and shrink cwnd by one MTU, without slow start
    /// (seed 004 §2).
    pub(super) fn on_efr_expiry(&mut self, now: Time, p: usize) {
        self.timers.stop(Timer::EarlyFastRtx(p));
        let Some(wait) = self.efr_wait(p) else {
            return;
        };
        if self.paths[p].can_send() {
            if let Some(left) = self.tx.mark_early(p, wait, now) {
                self.paths[p].leave_flight(left);
                self.paths[p].cc_mut().on_early_fast_retransmit();
                self.stats.efr_expiries += 1;
            }
        }
        self.efr_rearm(now, p);
    }

    /// Accumulate the time the association is thin (seed 004 Fig. 3).
    pub(super) fn account_thin(&mut self, now: Time) {
        if !self.cfg.thin.tracks_packets() {
            return;
        }
        let thin = self.tx.packets().is_thin(
            self.cfg.thin.thin_threshold_packets,
            self.cfg.thin.thin_loss_rate_term,
        );
        crate::stats::track_period(
            thin,
            now,
            &mut self.stats.thin_since,
            &mut self.stats.thin_time,
        );
    }
}
