//! Ground truth about which data reached the receiver, kept by the simulator (never shown to
//! a protocol core).

/// Byte ranges (sequence-space offsets from the initial sequence number, so no wrap-around)
/// that have arrived at least once, as a sorted list of disjoint half-open intervals.
#[derive(Default, Debug, Clone)]
pub struct ArrivedRanges {
    ranges: Vec<(u64, u64)>,
}

impl ArrivedRanges {
    /// Record `[start, end)`; returns how many of its bytes had already arrived.
    pub fn insert(&mut self, start: u64, end: u64) -> u64 {
        if start >= end {
            return 0;
        }
        let mut dup = 0;
        let (mut s, mut e) = (start, end);
        // Merge every overlapping or adjacent range into [s, e).
        let first = self.ranges.partition_point(|r| r.1 < start);
        let mut last = first;
        while last < self.ranges.len() && self.ranges[last].0 <= end {
            let (rs, re) = self.ranges[last];
            dup += re.min(end).saturating_sub(rs.max(start));
            s = s.min(rs);
            e = e.max(re);
            last += 1;
        }
        self.ranges.splice(first..last, [(s, e)]);
        dup
    }

    /// Bytes covered.
    pub fn total(&self) -> u64 {
        self.ranges.iter().map(|(s, e)| e - s).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_duplicate_bytes_and_merges() {
        let mut a = ArrivedRanges::default();
        assert_eq!(a.insert(0, 100), 0);
        assert_eq!(a.insert(200, 300), 0);
        assert_eq!(a.insert(50, 250), 100); // 50..100 and 200..250 were there
        assert_eq!(a.total(), 300);
        assert_eq!(a.insert(0, 300), 300);
        assert_eq!(a.insert(300, 301), 0);
        assert_eq!(a.total(), 301);
    }
}
