//! Ground truth kept by the simulator (never shown to a protocol core): which data reached
//! the receiver, and how many times the sender put each byte or chunk on the wire.

use std::collections::BTreeMap;

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
        // In-order arrival (issue 40 step 7), what nearly every data segment is: at or above the
        // end of the highest range, it overlaps nothing and can meet only that range, so it
        // extends it or starts a new one, as the merge below would.
        match self.ranges.last_mut() {
            Some(r) if r.1 == start => {
                r.1 = end;
                return 0;
            }
            Some(r) if r.1 > start => {}
            _ => {
                self.ranges.push((start, end));
                return 0;
            }
        }
        self.merge(start, end)
    }

    /// `insert` by merging every range that overlaps or touches `[start, end)`.
    fn merge(&mut self, start: u64, end: u64) -> u64 {
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

/// Turns 32-bit TCP sequence numbers into 64-bit offsets from the byte after an initial
/// sequence number (so no wrap-around), given offsets seen so far are close together.
#[derive(Clone, Copy, Debug, Default)]
pub struct SeqUnwrap {
    /// Sequence number of the SYN (offset 0 is the byte after it).
    isn: u32,
    last: u64,
}

impl SeqUnwrap {
    pub fn new(isn: u32) -> Self {
        SeqUnwrap { isn, last: 0 }
    }

    pub fn offset(&mut self, seq: u32) -> u64 {
        let rel = seq.wrapping_sub(self.isn.wrapping_add(1));
        let last = self.last;
        // The 64-bit offset congruent to `rel` nearest to the last one seen.
        let base = last & !0xFFFF_FFFF;
        let off = [base.wrapping_sub(1 << 32), base, base + (1 << 32)]
            .iter()
            .map(|b| b.wrapping_add(rel as u64))
            .min_by_key(|o| o.abs_diff(last))
            .expect("three candidates");
        self.last = self.last.max(off);
        off
    }
}

/// How many times each byte offset has been transmitted, as runs of equal counts: `runs` maps
/// a run's first offset to its count, a run reaching to the next key (the last run, count 0,
/// to infinity). Offsets below `floor` are forgotten.
#[derive(Debug, Clone)]
pub struct TxCounts {
    runs: BTreeMap<u64, u32>,
    floor: u64,
}

impl Default for TxCounts {
    fn default() -> Self {
        TxCounts {
            runs: BTreeMap::from([(0, 0)]),
            floor: 0,
        }
    }
}

impl TxCounts {
    /// Make `x` the first offset of a run.
    fn split(&mut self, x: u64) {
        let (&k, &c) = self
            .runs
            .range(..=x)
            .next_back()
            .expect("a run starts at or below the floor");
        if k != x {
            self.runs.insert(x, c);
        }
    }

    /// Drop the run starting at `x` if it continues the run before it.
    fn merge_at(&mut self, x: u64) {
        let here = self.runs.get(&x).copied();
        let before = self.runs.range(..x).next_back().map(|(_, &c)| c);
        if here.is_some() && here == before {
            self.runs.remove(&x);
        }
    }

    /// Bytes `[start, end)` went on the wire once more.
    pub fn add(&mut self, start: u64, end: u64) {
        let start = start.max(self.floor);
        if start >= end {
            return;
        }
        self.split(start);
        self.split(end);
        for (_, c) in self.runs.range_mut(start..end) {
            *c = c.saturating_add(1);
        }
        self.merge_at(end);
        self.merge_at(start);
    }

    /// Most transmissions of any byte in `[start, end)` (0 if none was sent).
    pub fn max(&self, start: u64, end: u64) -> u32 {
        let start = start.max(self.floor);
        if start >= end {
            return 0;
        }
        let first = self.runs.range(..=start).next_back().map_or(0, |(_, &c)| c);
        self.runs
            .range(start..end)
            .map(|(_, &c)| c)
            .fold(first, u32::max)
    }

    /// Forget offsets below `off` (they will never be asked about again).
    pub fn forget_below(&mut self, off: u64) {
        if off <= self.floor {
            return;
        }
        self.split(off);
        self.runs = self.runs.split_off(&off);
        self.floor = off;
    }

    /// Runs kept (for tests of the memory bound).
    pub fn runs(&self) -> usize {
        self.runs.len()
    }
}

/// Transmissions per SCTP TSN, counted from the association's initial TSN.
#[derive(Debug, Clone, Default)]
pub struct ChunkTx {
    initial_tsn: u32,
    counts: Vec<u8>,
}

impl ChunkTx {
    pub fn new(initial_tsn: u32) -> Self {
        ChunkTx {
            initial_tsn,
            counts: Vec::new(),
        }
    }

    /// `tsn` went on the wire once more; returns how many times it has been sent.
    pub fn sent(&mut self, tsn: u32) -> u32 {
        let i = tsn.wrapping_sub(self.initial_tsn) as usize;
        if i >= self.counts.len() {
            self.counts.resize(i + 1, 0);
        }
        self.counts[i] = self.counts[i].saturating_add(1);
        self.counts[i] as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The in-order shortcut of `ArrivedRanges::insert` leaves the same ranges and counts the
    /// same duplicates as the general merge, on random arrivals (in order, late, repeated).
    #[test]
    fn arrived_ranges_shortcut_agrees_with_the_merge() {
        let (mut fast, mut full) = (ArrivedRanges::default(), ArrivedRanges::default());
        let mut rng = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = 0;
        for _ in 0..20_000 {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let len = 1 + rng % 50;
            let start = match rng >> 60 {
                0..=9 => next,
                10..=11 => next + len,
                _ => next.saturating_sub((rng >> 8) % 300),
            };
            let end = start + len;
            next = next.max(end);
            let dup_full = if start < end {
                full.merge(start, end)
            } else {
                0
            };
            assert_eq!(fast.insert(start, end), dup_full, "[{start}, {end})");
            assert_eq!(fast.ranges, full.ranges);
        }
        assert!(fast.ranges.len() > 1, "{:?}", fast.ranges);
    }

    #[test]
    fn tx_counts_track_retransmitted_ranges() {
        let mut t = TxCounts::default();
        // First transmissions of three segments merge into one run.
        t.add(0, 100);
        t.add(100, 200);
        t.add(200, 300);
        assert_eq!(t.runs(), 2);
        assert_eq!(t.max(0, 300), 1);
        assert_eq!(t.max(300, 400), 0);
        // Retransmit [100, 200) twice and [150, 160) once more.
        t.add(100, 200);
        t.add(100, 200);
        t.add(150, 160);
        assert_eq!(t.max(0, 100), 1);
        assert_eq!(t.max(0, 101), 3);
        assert_eq!(t.max(150, 151), 4);
        assert_eq!(t.max(160, 200), 3);
        assert_eq!(t.max(200, 300), 1);
        t.forget_below(200);
        assert_eq!(t.max(0, 300), 1, "forgotten bytes count as nothing");
        assert_eq!(t.runs(), 2);
        t.add(0, 250); // a late retransmission of forgotten bytes counts only from the floor
        assert_eq!(t.max(200, 250), 2);
        assert_eq!(t.max(250, 300), 1);
    }

    #[test]
    fn seq_unwrap_crosses_the_32_bit_boundary() {
        let mut u = SeqUnwrap::new(u32::MAX - 10);
        assert_eq!(u.offset(u32::MAX - 9), 0);
        assert_eq!(u.offset(5), 15);
        assert_eq!(
            u.offset(u32::MAX - 5),
            4,
            "an old retransmission stays below"
        );
    }

    #[test]
    fn chunk_tx_counts_per_tsn_across_wrap() {
        let mut c = ChunkTx::new(u32::MAX - 1);
        assert_eq!(c.sent(u32::MAX - 1), 1);
        assert_eq!(c.sent(0), 1);
        assert_eq!(c.sent(0), 2);
        assert_eq!(c.sent(u32::MAX), 1);
    }

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
