//! Seed 002 §V.A burst mitigation for recovery after a tail loss probe: the adaptive burst
//! limit and the per-transmit-opportunity packet credit that applies it. Owns: the limit's
//! state and arithmetic. Does not own: when a tail recovery starts or ends, or which losses
//! it saw (`association::rack_glue` decides and reports them).
//!
//! Limits are kept in quarter-MTU units so that the paper's steps (1 MTU, 0.25 MTU) are exact
//! integers.

/// Quarter-MTU units per packet.
pub const Q: u32 = 4;

/// Seed 002 §V.A: "Initially, SCTP's default burst limit of four MTUs is applied and kept
/// during the first RTT. For all subsequent transmissions during the tail loss recovery, the
/// limit is set to two MTUs per burst."
pub const INITIAL_Q: u32 = 4 * Q;
pub const INCREASE_Q: u32 = 2 * Q;
/// "reduced by a single MTU until a minimum of two MTUs"
pub const MIN_INITIAL_Q: u32 = 2 * Q;
/// "reduced by 0.25 until a minimum of 1.25"
pub const MIN_INCREASE_Q: u32 = 5;
/// "As soon as the sender has performed 16 tail loss recovery operations without additional
/// packet loss, the burst limit is reset to its initial values [4/2]."
pub const CLEAN_RECOVERIES_TO_RESET: u32 = 16;

/// The adaptive limit, carried from one tail recovery to the next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdaptiveBurst {
    initial_q: u32,
    increase_q: u32,
    clean_recoveries: u32,
}

impl Default for AdaptiveBurst {
    fn default() -> Self {
        AdaptiveBurst {
            initial_q: INITIAL_Q,
            increase_q: INCREASE_Q,
            clean_recoveries: 0,
        }
    }
}

impl AdaptiveBurst {
    /// The limit (quarter MTUs per opportunity) in the first recovery round trip or after it.
    pub fn limit_q(&self, first_rtt: bool) -> u32 {
        if first_rtt {
            self.initial_q
        } else {
            self.increase_q
        }
    }

    /// (initial, increase) in MTUs, for reports and tests.
    pub fn limits(&self) -> (f64, f64) {
        (
            self.initial_q as f64 / Q as f64,
            self.increase_q as f64 / Q as f64,
        )
    }

    /// A retransmission of this tail recovery was lost again. `first_rtt`: it had been sent in
    /// the recovery's first round trip, so the initial burst was too large; otherwise the
    /// increase was too fast.
    pub fn on_lost_retransmission(&mut self, first_rtt: bool) {
        if first_rtt {
            self.initial_q = self.initial_q.saturating_sub(Q).max(MIN_INITIAL_Q);
        } else {
            self.increase_q = self.increase_q.saturating_sub(1).max(MIN_INCREASE_Q);
        }
    }

    /// A tail recovery ended; `had_loss`: some of its retransmissions were lost.
    pub fn on_recovery_end(&mut self, had_loss: bool) {
        if had_loss {
            self.clean_recoveries = 0;
            return;
        }
        self.clean_recoveries += 1;
        if self.clean_recoveries >= CLEAN_RECOVERIES_TO_RESET {
            *self = AdaptiveBurst::default();
        }
    }
}

/// Packets allowed in the current transmit opportunity. A fractional limit (1.25 MTU) carries
/// its remainder to the next opportunity, so 1.25 MTU means 5 packets per 4 opportunities.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BurstCredit {
    left_q: u32,
}

impl BurstCredit {
    /// A new transmit opportunity with limit `limit_q`: whole packets unused in the last one
    /// are forfeited (a burst limit is per opportunity), the fraction carries over.
    pub fn open(&mut self, limit_q: u32) {
        self.left_q = self.left_q % Q + limit_q;
    }

    /// May one more packet go out now?
    pub fn allows(&self) -> bool {
        self.left_q >= Q
    }

    pub fn take(&mut self) {
        self.left_q = self.left_q.saturating_sub(Q);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn packets_per_opportunity(limit_q: u32, rounds: usize) -> Vec<u32> {
        let mut c = BurstCredit::default();
        (0..rounds)
            .map(|_| {
                c.open(limit_q);
                let mut n = 0;
                while c.allows() {
                    c.take();
                    n += 1;
                }
                n
            })
            .collect()
    }

    #[test]
    fn limits_start_at_4_then_2_and_step_down_to_2_and_1_25() {
        let mut a = AdaptiveBurst::default();
        assert_eq!(a.limits(), (4.0, 2.0));
        a.on_lost_retransmission(true);
        assert_eq!(a.limits(), (3.0, 2.0));
        a.on_lost_retransmission(true);
        a.on_lost_retransmission(true);
        assert_eq!(a.limits(), (2.0, 2.0), "initial stops at 2 MTU");
        a.on_lost_retransmission(false);
        assert_eq!(a.limits(), (2.0, 1.75));
        for _ in 0..5 {
            a.on_lost_retransmission(false);
        }
        assert_eq!(a.limits(), (2.0, 1.25), "increase stops at 1.25 MTU");
    }

    #[test]
    fn sixteen_clean_recoveries_reset_the_limits_and_a_lossy_one_restarts_the_count() {
        let mut a = AdaptiveBurst::default();
        a.on_lost_retransmission(true);
        a.on_lost_retransmission(false);
        for _ in 0..15 {
            a.on_recovery_end(false);
        }
        a.on_recovery_end(true);
        for _ in 0..15 {
            a.on_recovery_end(false);
        }
        assert_eq!(a.limits(), (3.0, 1.75), "15 clean since the lossy one");
        a.on_recovery_end(false);
        assert_eq!(a.limits(), (4.0, 2.0));
    }

    #[test]
    fn fractional_limits_carry_their_remainder() {
        assert_eq!(packets_per_opportunity(4 * Q, 3), vec![4, 4, 4]);
        assert_eq!(packets_per_opportunity(5, 8), vec![1, 1, 1, 2, 1, 1, 1, 2]);
        assert_eq!(packets_per_opportunity(7, 4), vec![1, 2, 2, 2]);
    }
}
