//! Congestion-window arithmetic TCP and SCTP share exactly. Owns: the slow-start increase per
//! acknowledgement and the multiplicative decrease with its floor. Does not own: when each
//! applies, nor congestion avoidance, whose rules differ (TCP grows per ACK by SMSS²/cwnd or by
//! bytes, RFC 5681 §3.1 / RFC 3465; SCTP by one MTU per cwnd of partial_bytes_acked, at most one
//! per SACK and only with a fully used cwnd, RFC 9260 §7.2.2).

/// Slow-start growth for one acknowledgement of `acked` new bytes: at most one SMSS (RFC 5681
/// §3.1 with RFC 3465's L = 1 SMSS; RFC 9260 §7.2.1 "by at most one MTU").
pub fn slow_start_increase(acked: u64, smss: u64) -> u64 {
    acked.min(smss)
}

/// Multiplicative decrease: `factor` of `base` (a FlightSize or cwnd in bytes), never below
/// `floor` (RFC 5681 eq. 4: max(FlightSize/2, 2·SMSS); RFC 9260 §7.2.3: max(cwnd/2, 4·MTU); seed
/// 003's generalised AIMD: factor 1 − b).
pub fn decrease(base: u64, factor: f64, floor: u64) -> u64 {
    ((base as f64 * factor) as u64).max(floor)
}

/// `decrease` counted in whole segments of `smss` bytes, as Linux counts its window in packets
/// (`tcp_reno_ssthresh`: max(cwnd >> 1, 2); `cubictcp_recalc_ssthresh`: max(cwnd·717 >> 10,
/// 2)): ⌊⌊base / smss⌋ · factor⌋ segments, at least `floor_segments`. The tolerance keeps a
/// product that is a whole number in exact arithmetic (10 · 0.7) from rounding down to the
/// segment below.
pub fn decrease_segments(base: u64, factor: f64, smss: u64, floor_segments: u64) -> u64 {
    let segments = ((base / smss) as f64 * factor + 1e-9).floor() as u64;
    segments.max(floor_segments) * smss
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_adds_at_most_one_segment_per_ack() {
        assert_eq!(slow_start_increase(3000, 1460), 1460);
        assert_eq!(slow_start_increase(500, 1460), 500);
    }

    #[test]
    fn decrease_in_segments_rounds_down_to_a_whole_segment() {
        // Linux: Reno 7 → 3 (not 3.5), CUBIC 7 → 4 (⌊4.9⌋), 10 → 7 (not 6 from 6.999…).
        assert_eq!(decrease_segments(7 * 1448, 0.5, 1448, 2), 3 * 1448);
        assert_eq!(decrease_segments(7 * 1448, 0.7, 1448, 2), 4 * 1448);
        assert_eq!(decrease_segments(10 * 1448, 0.7, 1448, 2), 7 * 1448);
        assert_eq!(decrease_segments(7 * 1448 + 1000, 0.5, 1448, 2), 3 * 1448);
        assert_eq!(decrease_segments(3 * 1448, 0.5, 1448, 2), 2 * 1448);
        // In bytes the same decreases keep the fractions.
        assert_eq!(decrease(7 * 1448, 0.5, 2 * 1448), 7 * 724);
    }

    #[test]
    fn decrease_halves_down_to_its_floor_and_is_exact_for_halves() {
        assert_eq!(decrease(20_000, 0.5, 2 * 1460), 10_000);
        assert_eq!(decrease(4_000, 0.5, 2 * 1460), 2 * 1460);
        assert_eq!(decrease(12_345, 0.75, 0), 9_258);
        // Halving in f64 equals integer halving for every value a window can take.
        for x in [0u64, 1, 3, 1 << 40, (1 << 53) - 1] {
            assert_eq!(decrease(x, 0.5, 0), x / 2);
        }
    }
}
