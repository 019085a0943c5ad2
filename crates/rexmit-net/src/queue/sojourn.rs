//! Sojourn times of the packets that left a queue, kept as a log-linear histogram so that a
//! quantile (the p99 of the link metrics) costs constant memory however long the run.
//!
//! Values below 64 ns have a bucket each (exact); above, every power of two is cut into 64
//! equal buckets, so a bucket is at most 1/64 of its lower bound wide and a quantile reported
//! as its bucket's midpoint is within 1/128 (0.8%) of the exact order statistic.

use rexmit_time::Duration;

/// Sub-buckets per power of two: 2^SUB_BITS.
const SUB_BITS: u32 = 6;
const SUB: u64 = 1 << SUB_BITS;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct SojournHistogram {
    /// Counts per bucket, grown to the largest bucket seen.
    counts: Vec<u64>,
    n: u64,
}

/// The bucket of `v` nanoseconds.
fn bucket(v: u64) -> usize {
    if v < SUB {
        return v as usize;
    }
    let shift = 63 - v.leading_zeros() - SUB_BITS;
    let mantissa = v >> shift; // in SUB..2·SUB
    ((shift as u64 + 1) * SUB + (mantissa - SUB)) as usize
}

/// The values bucket `b` holds: `lo..hi`.
fn bounds(b: usize) -> (u64, u64) {
    let b = b as u64;
    if b < SUB {
        return (b, b + 1);
    }
    let shift = b / SUB - 1;
    let mantissa = b % SUB + SUB;
    (mantissa << shift, (mantissa + 1) << shift)
}

impl SojournHistogram {
    pub fn record(&mut self, d: Duration) {
        let b = bucket(d.as_nanos());
        if b >= self.counts.len() {
            self.counts.resize(b + 1, 0);
        }
        self.counts[b] += 1;
        self.n += 1;
    }

    /// Packets recorded.
    pub fn count(&self) -> u64 {
        self.n
    }

    /// The `q`-quantile (0 < q ≤ 1) by nearest rank: the smallest recorded value with at least
    /// ⌈q·n⌉ values at or below it, as the midpoint of its bucket; `None` when empty.
    pub fn quantile(&self, q: f64) -> Option<Duration> {
        if self.n == 0 {
            return None;
        }
        let rank = ((q * self.n as f64).ceil() as u64).clamp(1, self.n);
        let mut seen = 0;
        for (b, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let (lo, hi) = bounds(b);
                return Some(Duration::from_nanos(lo + (hi - 1 - lo) / 2));
            }
        }
        unreachable!("the counts sum to n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_tile_the_values_without_gaps() {
        let mut prev_hi = 0;
        for b in 0..40 * SUB as usize {
            let (lo, hi) = bounds(b);
            assert_eq!(lo, prev_hi, "bucket {b}");
            assert_eq!(bucket(lo), b);
            assert_eq!(bucket(hi - 1), b);
            // At most 1/64 of the lower bound wide (exact below 64 ns).
            assert!(
                hi - lo == 1 || (hi - lo) * SUB <= lo,
                "bucket {b}: {lo}..{hi}"
            );
            prev_hi = hi;
        }
    }

    #[test]
    fn p99_is_within_one_part_in_128_of_the_exact_order_statistic() {
        // 10 000 sojourn times spread over five decades (a deterministic scramble).
        let mut h = SojournHistogram::default();
        let mut v: Vec<u64> = (0..10_000u64)
            .map(|i| 1_000 + (i * 7_919 % 10_000) * (i % 97 + 1) * 1_013)
            .collect();
        for &x in &v {
            h.record(Duration::from_nanos(x));
        }
        v.sort_unstable();
        for q in [0.5, 0.9, 0.99, 1.0] {
            let exact = v[(q * v.len() as f64).ceil() as usize - 1] as f64;
            let got = h.quantile(q).unwrap().as_nanos() as f64;
            assert!(
                (got - exact).abs() <= exact / 128.0,
                "q {q}: {got} vs {exact}"
            );
        }
        assert_eq!(h.count(), 10_000);
        assert_eq!(SojournHistogram::default().quantile(0.99), None);
    }

    #[test]
    fn small_values_are_exact() {
        let mut h = SojournHistogram::default();
        for x in [0, 0, 3, 63] {
            h.record(Duration::from_nanos(x));
        }
        assert_eq!(h.quantile(0.5), Some(Duration::ZERO));
        assert_eq!(h.quantile(0.75), Some(Duration::from_nanos(3)));
        assert_eq!(h.quantile(0.99), Some(Duration::from_nanos(63)));
    }
}
