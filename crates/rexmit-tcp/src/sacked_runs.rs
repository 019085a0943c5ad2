//! `SackedRuns`: skip pointers over the runs of SACKed segments of the scoreboard, so that a
//! search for the next (or previous) unSACKed segment jumps over a run instead of visiting it.
//!
//! Why (issue 40): in SACK recovery with a large window (seed 003's buffer-sizing runs hold
//! 20 000 segments in flight) every ACK walked the runs its SACK blocks cover and the run below
//! the highest SACKed segment, though those segments were SACKed already and nothing about them
//! could change: ≈ 40% of such a run's instructions. A segment's SACKed mark is set once and
//! never cleared while it is on the scoreboard, so a run only grows, and a pointer "the next k
//! segments are SACKed" stays true until the segments leave at the front.
//!
//! Layout: one pair of jumps per segment, parallel to the scoreboard's segments (pushed and
//! popped with them). `fwd[i] = k > 0`: segments `i .. i + k` are SACKed; `back[i] = k > 0`:
//! segments `i + 1 − k ..= i` are SACKed (a jump past the front ends at the front). 0: segment
//! `i` is not SACKed. Searches shorten the jumps they follow (path compression), through
//! `Cell`s so that read-only searches compress too.

use std::cell::Cell;
use std::collections::VecDeque;

#[derive(Clone, Debug, Default)]
pub(crate) struct SackedRuns {
    /// (`fwd`, `back`) per segment; empty while no segment is SACKed (the common case costs
    /// nothing then: no push or pop per segment).
    jumps: VecDeque<[Cell<u32>; 2]>,
}

const FWD: usize = 0;
const BACK: usize = 1;

impl SackedRuns {
    /// A segment appended after the `len` segments held.
    pub(crate) fn push(&mut self, sacked: bool, len: usize) {
        if self.jumps.is_empty() {
            if !sacked {
                return;
            }
            self.unsacked(len);
        }
        let k = u32::from(sacked);
        self.jumps.push_back([Cell::new(k), Cell::new(k)]);
    }

    /// The first segment left the scoreboard; `any_sacked`: some segment still is SACKed.
    pub(crate) fn pop_front(&mut self, any_sacked: bool) {
        if any_sacked {
            self.jumps.pop_front();
        } else if !self.jumps.is_empty() {
            // Freed, not kept: a connection between loss episodes holds no jumps (memory per
            // connection, issue 40's target).
            self.jumps = VecDeque::new();
        }
    }

    /// Segment `i` of the `len` held was SACKed.
    pub(crate) fn mark(&mut self, i: usize, len: usize) {
        if self.jumps.is_empty() {
            self.unsacked(len);
        }
        self.jumps[i][FWD].set(1);
        self.jumps[i][BACK].set(1);
    }

    /// Jumps for `len` segments none of which is SACKed (from the empty state).
    fn unsacked(&mut self, len: usize) {
        self.jumps.resize_with(len, || [Cell::new(0), Cell::new(0)]);
    }

    /// The first segment at or after `i` not SACKed, or the number of segments if none.
    pub(crate) fn next_unsacked(&self, i: usize) -> usize {
        let fwd = |x: usize| &self.jumps[x][FWD];
        let len = self.jumps.len();
        let mut j = i;
        while j < len && fwd(j).get() > 0 {
            j += fwd(j).get() as usize;
        }
        // Point every segment of the path straight at `j`.
        let mut x = i;
        while x < j {
            let next = x + fwd(x).get() as usize;
            fwd(x).set((j - x) as u32);
            x = next;
        }
        j
    }

    /// The last segment at or before `i` not SACKed, or `None` if every one is.
    pub(crate) fn prev_unsacked(&self, i: usize) -> Option<usize> {
        if self.jumps.is_empty() {
            return Some(i);
        }
        // Positions shifted up by one, so that "before the front" is 0.
        let back = |x: usize| &self.jumps[x - 1][BACK];
        let mut j = i + 1;
        while j > 0 && back(j).get() > 0 {
            j = j.saturating_sub(back(j).get() as usize);
        }
        let mut x = i + 1;
        while x > j {
            let next = x.saturating_sub(back(x).get() as usize);
            back(x).set((x - j) as u32);
            x = next;
        }
        j.checked_sub(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The searches agree with a plain scan over random marks, before and after segments leave
    /// at the front and new ones arrive.
    #[test]
    fn searches_agree_with_a_scan() {
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let mut runs = SackedRuns::default();
        let mut sacked: VecDeque<bool> = VecDeque::new();
        for round in 0..1_500 {
            match next() % 10 {
                0..=2 => {
                    let s = next() % 4 == 0;
                    runs.push(s, sacked.len());
                    sacked.push_back(s);
                }
                3 if !sacked.is_empty() => {
                    sacked.pop_front();
                    runs.pop_front(sacked.iter().any(|s| *s));
                }
                _ if !sacked.is_empty() => {
                    let i = (next() % sacked.len() as u64) as usize;
                    if !sacked[i] {
                        runs.mark(i, sacked.len());
                        sacked[i] = true;
                    }
                }
                _ => {}
            }
            if round % 25 != 0 {
                continue;
            }
            for i in 0..sacked.len() {
                let want_next = (i..sacked.len())
                    .find(|&j| !sacked[j])
                    .unwrap_or(sacked.len());
                assert_eq!(
                    runs.next_unsacked(i),
                    want_next,
                    "round {round}, next from {i}"
                );
                let want_prev = (0..=i).rev().find(|&j| !sacked[j]);
                assert_eq!(
                    runs.prev_unsacked(i),
                    want_prev,
                    "round {round}, prev from {i}"
                );
            }
        }
    }
}
