//! The receiver's out-of-order queue: data above rcv_nxt held until the gap before it fills.
//!
//! Owns the held payloads and the merged block view used for SACK generation. Does not decide
//! what is acceptable (the receiver trims to the window first) nor which blocks to report.

use crate::payload_util::slice;
use rexmit_wire::Payload;
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default)]
pub struct Reassembly {
    /// Non-overlapping pieces keyed by start offset.
    pieces: BTreeMap<u64, Payload>,
    /// The same bytes as maximal contiguous blocks, start → end (what SACK blocks report).
    blocks: BTreeMap<u64, u64>,
    bytes: u64,
}

impl Reassembly {
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
    pub fn is_empty(&self) -> bool {
        self.pieces.is_empty()
    }

    /// Store `[start, start + p.len())`. Returns the first sub-range that was already held
    /// (a duplicate, for RFC 2883 D-SACK), if any.
    pub fn insert(&mut self, start: u64, p: &Payload) -> Option<(u64, u64)> {
        let end = start + p.len() as u64;
        if start == end {
            return None;
        }
        // Common case: the segment lands in a gap, touching no held piece.
        let before_ends = self
            .pieces
            .range(..=start)
            .next_back()
            .map(|(&s, q)| s + q.len() as u64);
        let after_starts = self.pieces.range(start..).next().map(|(&s, _)| s);
        if before_ends.is_none_or(|e| e <= start) && after_starts.is_none_or(|s| s >= end) {
            self.bytes += end - start;
            self.pieces.insert(start, p.clone());
            self.add_block(start, end);
            self.check_blocks();
            return None;
        }
        let mut first_dup = None;
        let mut cursor = start;
        // Pieces that may overlap: the one starting at or before `start`, and all inside.
        let first = self
            .pieces
            .range(..=start)
            .next_back()
            .map(|(&s, _)| s)
            .unwrap_or(start);
        let overlapping: Vec<(u64, u64)> = self
            .pieces
            .range(first..end)
            .map(|(&s, q)| (s, s + q.len() as u64))
            .collect();
        let mut fresh = Vec::new();
        for (s, e) in overlapping {
            if e <= cursor {
                continue;
            }
            if s > cursor {
                fresh.push((cursor, s));
            }
            let ds = s.max(cursor);
            let de = e.min(end);
            if ds < de && first_dup.is_none() {
                first_dup = Some((ds, de));
            }
            cursor = cursor.max(e);
        }
        if cursor < end {
            fresh.push((cursor, end));
        }
        for (s, e) in fresh {
            self.bytes += e - s;
            self.pieces
                .insert(s, slice(p, (s - start) as usize, (e - s) as usize));
            self.add_block(s, e);
        }
        self.check_blocks();
        first_dup
    }

    /// Debug check (small queues only, to keep debug runs linear): the block view is exactly
    /// the pieces merged.
    fn check_blocks(&self) {
        #[cfg(debug_assertions)]
        if self.pieces.len() <= 64 {
            let mut merged: Vec<(u64, u64)> = Vec::new();
            for (&s, p) in &self.pieces {
                let e = s + p.len() as u64;
                match merged.last_mut() {
                    Some(last) if last.1 == s => last.1 = e,
                    _ => merged.push((s, e)),
                }
            }
            let blocks: Vec<(u64, u64)> = self.blocks.iter().map(|(&s, &e)| (s, e)).collect();
            debug_assert_eq!(
                merged, blocks,
                "reassembly blocks disagree with the held pieces"
            );
        }
    }

    /// Merge the newly held range `[s, e)` (overlapping nothing held) into the block view.
    fn add_block(&mut self, s: u64, e: u64) {
        let mut left = s;
        if let Some((&ps, &pe)) = self.blocks.range(..s).next_back() {
            if pe == s {
                left = ps;
            }
        }
        let right = match self.blocks.remove(&e) {
            Some(ne) => ne,
            None => e,
        };
        self.blocks.insert(left, right);
    }

    /// The maximal contiguous block containing offset `seq`.
    pub fn block_containing(&self, seq: u64) -> Option<(u64, u64)> {
        let (&s, &e) = self.blocks.range(..=seq).next_back()?;
        (seq < e).then_some((s, e))
    }

    /// Remove the pieces that start exactly at `rcv_nxt` and continue contiguously, handing
    /// each to `take` in order.
    pub fn pop_in_order(&mut self, mut rcv_nxt: u64, mut take: impl FnMut(Payload)) {
        // The block starting here goes whole: its pieces are contiguous.
        self.blocks.remove(&rcv_nxt);
        while let Some(p) = self.pieces.remove(&rcv_nxt) {
            rcv_nxt += p.len() as u64;
            self.bytes -= p.len() as u64;
            take(p);
        }
        self.check_blocks();
    }

    /// Highest offset held (exclusive), if any.
    pub fn high(&self) -> Option<u64> {
        self.pieces
            .iter()
            .next_back()
            .map(|(&s, p)| s + p.len() as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_inserts_keep_each_byte_once_and_report_duplicates() {
        let mut r = Reassembly::default();
        assert!(r.insert(10, &Payload::from_bytes(&[10, 11, 12])).is_none());
        assert!(r.insert(20, &Payload::zeros(5)).is_none());
        let dups = r.insert(8, &Payload::from_bytes(&[8, 9, 10, 11, 12, 13, 14]));
        assert_eq!(dups, Some((10, 13)));
        assert_eq!(r.bytes(), 7 + 5);
        assert_eq!(r.block_containing(12), Some((8, 15)));
        assert_eq!(r.block_containing(15), None);
        assert_eq!(r.insert(21, &Payload::zeros(2)), Some((21, 23)));
        // Touching pieces on both sides without overlapping them: no duplicate.
        assert_eq!(r.insert(15, &Payload::zeros(5)), None);
        assert_eq!(r.block_containing(16), Some((8, 25)));
        let mut got = Vec::new();
        r.pop_in_order(8, |p| got.push(p));
        let bytes: Vec<u8> = got.iter().flat_map(|p| p.to_vec()).collect();
        assert_eq!(
            bytes,
            [vec![8, 9, 10, 11, 12, 13, 14], vec![0; 10]].concat()
        );
        assert_eq!(r.bytes(), 0);
        assert_eq!(r.high(), None);
    }
}
