//! Linux's adaptive reordering degree (`tp->reordering`, the `linux` profile's
//! `adaptive_reordering`): the duplicate threshold starts at `dup_thresh` and rises to the
//! largest reordering the connection has shown, in segments, up to `max_reordering` (Linux's
//! net.ipv4.tcp_max_reordering, 300).
//!
//! Reordering shows when data never retransmitted is acknowledged for the first time — by a
//! SACK block or by the cumulative ACK, without having been SACKed — below the start of the
//! highest SACKed segment ("fack"): it arrived after data sent later. Its degree is that
//! distance in segments, rounded up. A retransmission timeout before fast recovery began, with at least
//! `dup_thresh` segments SACKed, says the degree was overestimated (the duplicate ACKs did not
//! trigger recovery when they should have): it falls back to `dup_thresh`.
//!
//! What is left out: the non-SACK estimate (Linux's tcp_check_reno_reordering), and lowering
//! the degree when an undo finds the recovery spurious.

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Reordering {
    /// The degree in force: the duplicate threshold loss detection uses.
    degree: u32,
    /// The configured threshold it starts from and falls back to.
    initial: u32,
    /// Its ceiling.
    max: u32,
    /// Times reordering was seen (Linux's reord_seen).
    seen: u64,
}

impl Reordering {
    pub(crate) fn new(initial: u32, max: u32) -> Self {
        Reordering {
            degree: initial,
            initial,
            max: max.max(initial),
            seen: 0,
        }
    }

    pub(crate) fn degree(&self) -> u32 {
        self.degree
    }

    pub(crate) fn seen(&self) -> u64 {
        self.seen
    }

    /// One ACK's evidence: each `(low, fack)` pair is the lowest start of data it acknowledged
    /// for the first time, never retransmitted, and the start of the highest SACKed segment
    /// to compare with. Reordering when `low` lies below `fack`; the ACK counts once.
    pub(crate) fn observe(&mut self, evidence: &[(Option<u64>, u64)], smss: u64) {
        let Some(distance) = evidence
            .iter()
            .filter_map(|&(low, fack)| low.filter(|&l| l < fack).map(|l| fack - l))
            .max()
        else {
            return;
        };
        let segments = u32::try_from(distance.div_ceil(smss.max(1))).unwrap_or(u32::MAX);
        if segments > self.degree {
            self.degree = segments.min(self.max);
        }
        self.seen += 1;
    }

    /// A retransmission timeout: outside loss recovery with at least the configured threshold
    /// of segments SACKed, the degree was too high; it returns to the configured one.
    pub(crate) fn on_timeout(&mut self, in_recovery: bool, sacked_segments: u32) {
        if !in_recovery && sacked_segments >= self.initial {
            self.degree = self.degree.min(self.initial);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_degree_rises_to_the_distance_in_segments_and_stops_at_the_ceiling() {
        let mut r = Reordering::new(3, 10);
        r.observe(&[(Some(10_000), 10_000), (None, 10_000)], 1000); // not below fack
        assert_eq!((r.degree(), r.seen()), (3, 0));
        r.observe(&[(Some(7_500), 10_000)], 1000); // 2.5 segments: 3, not above 3
        assert_eq!((r.degree(), r.seen()), (3, 1));
        r.observe(&[(Some(4_200), 10_000), (Some(9_000), 10_000)], 1000); // 5.8 -> 6, once
        assert_eq!((r.degree(), r.seen()), (6, 2));
        r.observe(&[(Some(5_000), 10_000)], 1000); // smaller: kept
        assert_eq!(r.degree(), 6);
        r.observe(&[(Some(0), 50_000)], 1000); // 50: ceiling 10
        assert_eq!((r.degree(), r.seen()), (10, 4));
    }

    #[test]
    fn a_timeout_before_recovery_with_enough_sacked_resets_the_degree() {
        let mut r = Reordering::new(3, 300);
        r.observe(&[(Some(0), 20_000)], 1000);
        assert_eq!(r.degree(), 20);
        r.on_timeout(true, 10);
        assert_eq!(r.degree(), 20, "in recovery: kept");
        r.on_timeout(false, 2);
        assert_eq!(r.degree(), 20, "fewer than dup_thresh SACKed: kept");
        r.on_timeout(false, 3);
        assert_eq!(r.degree(), 3);
    }
}
