//! Per-destination congestion control of RFC 9260 §7.2 (same as RFC 4960 §7.2): slow start,
//! congestion avoidance with partial_bytes_acked, no growth unless cwnd is fully used, the
//! reductions on fast retransmit and T3-rtx, and Max.Burst. What every destination runs unless
//! `cc` names a registered controller (`controller.rs`). Owns: cwnd, ssthresh,
//! partial_bytes_acked of one destination. Does not own: flightsize (the association counts
//! it per path) or loss detection.
//!
//! Where the RFC says "MTU" this module uses `smss`, the largest DATA payload of a packet
//! (see `SctpConfig::max_data_payload`), because cwnd and flightsize count user-data bytes.

pub use crate::config::initial_window;
use crate::config::CwndGrowth;
use rexmit_transport::window;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathCc {
    cwnd: u64,
    ssthresh: u64,
    partial_bytes_acked: u64,
    smss: u64,
    /// Slow start's largest increase per SACK, in MTUs (`slow_start_limit_mtus`).
    ss_limit_mtus: u64,
    /// ssthresh's floor after a fast retransmit, in MTUs (`fr_ssthresh_floor_mtus`).
    fr_floor_mtus: u64,
}

impl PathCc {
    /// RFC 9260 §7.2.1: initial cwnd = min(4·MTU, max(2·MTU, 4380)) unless overridden.
    pub fn new(smss: u64, initial_cwnd: Option<u64>, ssthresh: u64) -> Self {
        let iw = initial_window(smss, initial_cwnd);
        PathCc {
            cwnd: iw,
            ssthresh,
            partial_bytes_acked: 0,
            smss,
            ss_limit_mtus: 1,
            fr_floor_mtus: 4,
        }
    }

    /// A fast retransmit cuts ssthresh to max(cwnd/2, `mtus`·MTU) (RFC 9260 §7.2.3: 4;
    /// FreeBSD's `sctp_cwnd_update_after_fr`: 2).
    pub fn with_fr_ssthresh_floor(mut self, mtus: u32) -> Self {
        self.fr_floor_mtus = u64::from(mtus.max(1));
        self
    }

    /// Slow start may grow cwnd by up to `mtus` MTUs per SACK (RFC 9260 §7.2.1: 1; FreeBSD
    /// applies RFC 3465's L = 2).
    pub fn with_slow_start_limit(mut self, mtus: u32) -> Self {
        self.ss_limit_mtus = u64::from(mtus.max(1));
        self
    }

    /// Slow start's increase for `newly_acked` bytes.
    fn slow_start_increase(&self, newly_acked: u64) -> u64 {
        window::slow_start_increase(newly_acked, self.ss_limit_mtus * self.smss)
    }

    pub fn cwnd(&self) -> u64 {
        self.cwnd
    }
    pub fn ssthresh(&self) -> u64 {
        self.ssthresh
    }
    pub fn partial_bytes_acked(&self) -> u64 {
        self.partial_bytes_acked
    }
    pub fn smss(&self) -> u64 {
        self.smss
    }

    /// RFC 9260 §7.2.1: the initial ssthresh, set when the association is established (the
    /// peer's advertised receiver window unless the scenario gives one).
    pub fn set_initial_ssthresh(&mut self, ssthresh: u64) {
        self.ssthresh = ssthresh;
    }

    /// A window state for unit tests of the rules that read cwnd and ssthresh.
    #[cfg(test)]
    pub(crate) fn set_for_test(&mut self, cwnd: u64, ssthresh: u64) {
        self.cwnd = cwnd;
        self.ssthresh = ssthresh;
    }

    /// RFC 9260 §6.1 B: new data may go out while flightsize < cwnd.
    pub fn can_send(&self, flight: u64) -> bool {
        flight < self.cwnd
    }

    /// One SACK's effect. `newly_acked`: bytes of chunks acknowledged for the first time on
    /// this destination (cum ack and gap blocks); `may_grow`: the SACK advanced the cumulative
    /// TSN ack point (or, with CMT's CUC, this destination's pseudo cumulative ack);
    /// `flight_before`: flightsize before the SACK (the "fully utilised" test); `rule`: which
    /// RFC's conditions apply (`CwndGrowth`).
    pub fn on_ack(
        &mut self,
        newly_acked: u64,
        flight_before: u64,
        flight_after: u64,
        may_grow: bool,
        in_fast_recovery: bool,
        rule: CwndGrowth,
    ) {
        let fully_utilised = flight_before >= self.cwnd;
        if rule == CwndGrowth::Rfc9260 {
            if newly_acked > 0 {
                self.grow_rfc9260(newly_acked, fully_utilised, in_fast_recovery);
            }
        } else if newly_acked > 0 && may_grow && !in_fast_recovery {
            if self.cwnd <= self.ssthresh {
                // §7.2.1 slow start: grow by at most one MTU, only when cwnd was fully used.
                if fully_utilised {
                    self.cwnd += self.slow_start_increase(newly_acked);
                }
            } else {
                // §7.2.2 congestion avoidance.
                self.partial_bytes_acked += newly_acked;
                if self.partial_bytes_acked >= self.cwnd && fully_utilised {
                    self.partial_bytes_acked -= self.cwnd;
                    self.cwnd += self.smss;
                }
            }
        }
        if flight_after == 0 {
            // §7.2.2: all data acknowledged resets partial_bytes_acked.
            self.partial_bytes_acked = 0;
        }
    }

    /// RFC 9260 §7.2.1 and §7.2.2 (the RFC 4960 errata of RFC 8540 §3.22 and §3.26).
    fn grow_rfc9260(&mut self, newly_acked: u64, fully_utilised: bool, in_fast_recovery: bool) {
        if self.cwnd <= self.ssthresh {
            // §7.2.1: "only if the current congestion window is being fully utilized and the
            // data sender is not in Fast Recovery"; by at most one MTU.
            if fully_utilised && !in_fast_recovery {
                self.cwnd += self.slow_start_increase(newly_acked);
            }
            return;
        }
        // §7.2.2: every newly acknowledged byte counts; with cwnd not fully used,
        // partial_bytes_acked stops at cwnd, so cwnd grows at most one MTU per RTT.
        self.partial_bytes_acked += newly_acked;
        if self.partial_bytes_acked > self.cwnd && !fully_utilised {
            self.partial_bytes_acked = self.cwnd;
        }
        if self.partial_bytes_acked >= self.cwnd && fully_utilised {
            self.partial_bytes_acked -= self.cwnd;
            self.cwnd += self.smss;
        }
    }

    /// §7.2.3 / §7.2.4 step 2: loss detected by fast retransmit.
    pub fn on_fast_retransmit(&mut self) {
        self.halve(self.fr_floor_mtus);
    }

    /// RFC 9260 Appendix A: an ECN echo reduces as a loss found by fast retransmit does
    /// (RFC 3168 §6.1.2), without retransmitting anything; §7.2.3's floor of 4·MTU.
    pub fn on_ecn_echo(&mut self) {
        self.halve(4);
    }

    /// §7.2.3: ssthresh = max(cwnd/2, `floor_mtus`·MTU), cwnd = ssthresh.
    fn halve(&mut self, floor_mtus: u64) {
        self.ssthresh = window::decrease(self.cwnd, 0.5, floor_mtus * self.smss);
        self.cwnd = self.ssthresh;
        self.partial_bytes_acked = 0;
    }

    /// §7.2.3 / §6.3.3 E1: T3-rtx expiry.
    pub fn on_t3_expiry(&mut self) {
        self.ssthresh = window::decrease(self.cwnd, 0.5, 4 * self.smss);
        self.cwnd = self.smss;
        self.partial_bytes_acked = 0;
    }

    /// FreeBSD early fast retransmit (seed 004 §2): "reduces the congestion window by one"
    /// MTU, no slow start.
    pub fn on_early_fast_retransmit(&mut self) {
        self.cwnd = self.cwnd.saturating_sub(self.smss).max(self.smss);
        self.partial_bytes_acked = 0;
    }

    /// §7.2.1: after `rtos` RTOs without sending, cwnd decays to max(cwnd/2, 4·MTU) per RTO
    /// (never growing by it).
    pub fn on_idle(&mut self, rtos: u64) {
        self.cwnd = idle_window(self.cwnd, self.smss, rtos);
    }

    /// RFC 4960 §6.1 D: Max.Burst applied by lowering cwnd.
    pub fn clamp_burst(&mut self, flight: u64, max_burst: u32) {
        let limit = flight + max_burst as u64 * self.smss;
        if max_burst > 0 && limit < self.cwnd {
            self.cwnd = limit;
        }
    }
}

/// RFC 9260 §7.2.1: `cwnd` after `rtos` RTOs of idleness, halved per RTO down to
/// max(cwnd/2, 4·MTU) (never raised by it).
pub fn idle_window(mut cwnd: u64, smss: u64, rtos: u64) -> u64 {
    for _ in 0..rtos.min(64) {
        let decayed = window::decrease(cwnd, 0.5, 4 * smss);
        if decayed >= cwnd {
            break;
        }
        cwnd = decayed;
    }
    cwnd
}

#[cfg(test)]
mod tests {
    use super::*;
    const M: u64 = 1452;

    #[test]
    fn slow_start_grows_one_mtu_only_when_fully_utilised() {
        let mut c = PathCc::new(M, None, u64::MAX);
        assert_eq!(c.cwnd, 4380);
        c.on_ack(2 * M, 4380, 0, true, false, CwndGrowth::Rfc4960);
        assert_eq!(c.cwnd, 4380 + M);
        c.on_ack(M, 100, 0, true, false, CwndGrowth::Rfc4960);
        assert_eq!(c.cwnd, 4380 + M, "not fully utilised: no growth");
        c.on_ack(M, 10_000, 0, false, false, CwndGrowth::Rfc4960);
        assert_eq!(c.cwnd, 4380 + M, "no cum-ack advance: no growth");
    }

    /// FreeBSD's slow start (net.inet.sctp.abc_l_var = 2, RFC 3465 §2.2's L): a SACK of two
    /// full chunks adds two MTUs where RFC 9260 §7.2.1 adds one.
    #[test]
    fn slow_start_limit_of_two_mtus_lets_a_delayed_sack_add_two() {
        let mut c = PathCc::new(M, None, u64::MAX).with_slow_start_limit(2);
        c.on_ack(2 * M, 4380, 0, true, false, CwndGrowth::Rfc4960);
        assert_eq!(c.cwnd, 4380 + 2 * M);
        c.on_ack(3 * M, 10_000, 0, true, false, CwndGrowth::Rfc4960);
        assert_eq!(c.cwnd, 4380 + 4 * M, "still at most two MTUs per SACK");
    }

    #[test]
    fn fast_retransmit_halves_to_at_least_four_mtus_and_t3_drops_to_one() {
        let mut c = PathCc::new(M, Some(8 * M), u64::MAX);
        c.on_fast_retransmit();
        assert_eq!((c.cwnd, c.ssthresh), (4 * M, 4 * M));
        c.cwnd = 20 * M;
        c.on_t3_expiry();
        assert_eq!((c.cwnd, c.ssthresh), (M, 10 * M));
    }

    #[test]
    fn idle_decay_halves_per_rto_down_to_four_mtus_only() {
        let mut c = PathCc::new(M, Some(20 * M), u64::MAX);
        c.on_idle(1);
        assert_eq!(c.cwnd, 10 * M);
        c.on_idle(5);
        assert_eq!(c.cwnd, 4 * M);
        let mut small = PathCc::new(M, None, u64::MAX);
        small.on_idle(3);
        assert_eq!(small.cwnd, 4380, "decay never raises cwnd");
    }

    #[test]
    fn congestion_avoidance_adds_one_mtu_per_cwnd_acked() {
        let mut c = PathCc::new(M, Some(5 * M), 4 * M);
        for _ in 0..4 {
            c.on_ack(M, 5 * M, 4 * M, true, false, CwndGrowth::Rfc4960);
        }
        assert_eq!(c.cwnd, 5 * M);
        c.on_ack(M, 5 * M, 4 * M, true, false, CwndGrowth::Rfc4960);
        assert_eq!((c.cwnd, c.partial_bytes_acked), (6 * M, 0));
    }

    /// RFC 9260 §7.2.1: a fully used cwnd grows in slow start on a SACK that only reports gap
    /// blocks (the cumulative TSN ack point stays), but not in fast recovery.
    #[test]
    fn rfc9260_slow_start_needs_a_full_window_not_a_moving_cumulative_ack() {
        let r = CwndGrowth::Rfc9260;
        let mut c = PathCc::new(M, None, u64::MAX);
        c.on_ack(M, 4380, 3000, false, false, r);
        assert_eq!(c.cwnd, 4380 + M, "gap-acked data grows cwnd");
        c.on_ack(M, 10_000, 0, false, true, r);
        assert_eq!(c.cwnd, 4380 + M, "not in fast recovery");
        c.on_ack(M, 100, 0, true, false, r);
        assert_eq!(c.cwnd, 4380 + M, "not fully utilised");
    }

    /// RFC 9260 §7.2.2 (RFC 8540 §3.26): with cwnd not fully used, partial_bytes_acked stops at
    /// cwnd; the next SACK of a full window then adds one MTU.
    #[test]
    fn rfc9260_partial_bytes_acked_is_capped_at_cwnd_while_cwnd_is_not_full() {
        let r = CwndGrowth::Rfc9260;
        let mut c = PathCc::new(M, Some(4 * M), 2 * M);
        for _ in 0..6 {
            c.on_ack(M, 2 * M, M, false, false, r);
        }
        assert_eq!(
            (c.cwnd, c.partial_bytes_acked),
            (4 * M, 4 * M),
            "capped, no growth"
        );
        c.on_ack(M, 4 * M, 3 * M, false, false, r);
        assert_eq!((c.cwnd, c.partial_bytes_acked), (5 * M, M));
        // RFC 4960 as written counts only SACKs that move the cumulative ack, uncapped.
        let mut old = PathCc::new(M, Some(4 * M), 2 * M);
        for _ in 0..6 {
            old.on_ack(M, 2 * M, M, true, false, CwndGrowth::Rfc4960);
        }
        assert_eq!((old.cwnd, old.partial_bytes_acked), (4 * M, 6 * M));
    }
}
