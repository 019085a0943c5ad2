//! The sender's per-segment record of outstanding data and the RFC 6675 scoreboard on it:
//! SACKed marks, IsLost (§4), SetPipe (§4) and the retransmission candidates of NextSeg (§4).
//!
//! Owns: one entry per transmitted segment between snd_una and snd_max. Does not own the
//! decision of what to send (the sender combines these candidates with new data, NextSeg rule
//! 2) nor any window arithmetic.

use crate::sacked_runs::SackedRuns;
use rexmit_time::Time;
use std::cell::Cell;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SentSegment {
    /// Stream offsets `[start, end)`; `end` includes the FIN when `fin`.
    pub start: u64,
    pub end: u64,
    pub fin: bool,
    pub sent_at: Time,
    pub rexmits: u32,
    pub sacked: bool,
    /// IsLost() held at the last update, or the segment was declared lost by a timeout.
    pub lost: bool,
    /// Retransmitted since the last timeout (Linux's TCPCB_SACKED_RETRANS, ns-3's m_retrans):
    /// read only with `rtx_marks` (NextSeg and SetPipe by segment instead of by HighRxt).
    pub rtx_mark: bool,
}

impl SentSegment {
    pub fn len(&self) -> u64 {
        self.end - self.start
    }
    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }
}

/// A segment an ACK newly reported as delivered (cumulatively or by SACK), for RACK.
pub use rexmit_transport::rack::Delivered;

impl From<&SentSegment> for Delivered {
    fn from(s: &SentSegment) -> Self {
        Delivered {
            end: s.end,
            sent_at: s.sent_at,
            rexmits: s.rexmits,
        }
    }
}

/// Result of applying the SACK blocks of one ACK.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SackUpdate {
    pub newly_sacked: u64,
    /// RFC 2883 §4 / RFC 3708: the first block reported a duplicate.
    pub dsack: bool,
    /// That block, [start, end).
    pub dsack_range: Option<(u64, u64)>,
    pub delivered: Vec<Delivered>,
    /// The lowest start of a newly SACKed segment never retransmitted (reordering evidence
    /// when below the highest SACKed sequence, `sender/reordering.rs`).
    pub reord_low: Option<u64>,
}

#[derive(Clone, Debug, Default)]
// `repr(C)`, `high_sacked` last: the quiet ACK's "nothing SACKed" test reads it, and the sender
// places its per-ACK fields right after the scoreboard (issue 40 step 6).
#[repr(C)]
pub struct Scoreboard {
    segs: std::collections::VecDeque<SentSegment>,
    /// Skip pointers over the runs of SACKed segments, parallel to `segs`.
    runs: SackedRuns,
    /// SetPipe's sums, kept as segments change (`None`: unknown, counted at the next `pipe`).
    sums: Cell<Option<PipeSums>>,
    /// Every unSACKed segment ending at or below this offset is marked lost, so `update_lost`
    /// need not revisit them (IsLost only ever turns true as SACK information grows).
    lost_frontier: u64,
    /// How many segments are SACKed (RACK reads it on every ACK).
    sacked_count: u32,
    /// Highest SACKed offset (exclusive), 0 when nothing SACKed.
    high_sacked: u64,
}

/// RFC 6675 §4 SetPipe in parts, so that `pipe` costs O(1) instead of a walk over every
/// outstanding segment (issue 40: with 20 000 segments in flight the walk was half of a
/// buffer-sizing run). All are over the unSACKed segments: byte sums and a count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct PipeSums {
    /// Not marked lost (counted once by SetPipe).
    clean: u64,
    /// Carrying the retransmission mark (counted again with `rtx_marks`).
    marked: u64,
    /// Starting below `rxt_at` (counted again below HighRxt).
    below_rxt: u64,
    /// The HighRxt `below_rxt` was summed for.
    rxt_at: u64,
    /// How many are marked lost (a count, not bytes).
    lost: u64,
}

impl PipeSums {
    /// What segment `s` adds to each sum.
    fn parts(s: &SentSegment, rxt_at: u64) -> [u64; 4] {
        if s.sacked {
            return [0; 4];
        }
        let len = s.len();
        [
            if s.lost { 0 } else { len },
            if s.rtx_mark { len } else { 0 },
            if s.start < rxt_at { len } else { 0 },
            u64::from(s.lost),
        ]
    }

    /// `before` replaced by `after` (a segment's parts).
    fn apply(&mut self, before: [u64; 4], after: [u64; 4]) {
        self.clean = self.clean + after[0] - before[0];
        self.marked = self.marked + after[1] - before[1];
        self.below_rxt = self.below_rxt + after[2] - before[2];
        self.lost = self.lost + after[3] - before[3];
    }
}

impl Scoreboard {
    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }
    pub fn len(&self) -> usize {
        self.segs.len()
    }
    pub fn segments(&self) -> impl Iterator<Item = &SentSegment> {
        self.segs.iter()
    }
    pub fn high_sacked(&self) -> u64 {
        self.high_sacked
    }
    /// Where the highest SACKed segment starts (Linux's "fack" of its reordering estimate), 0
    /// when nothing is SACKed.
    pub fn highest_sacked_start(&self) -> u64 {
        if self.high_sacked == 0 {
            return 0;
        }
        let i = self.segs.partition_point(|s| s.end < self.high_sacked);
        self.segs
            .get(i)
            .filter(|s| s.sacked && s.end == self.high_sacked)
            .map_or(0, |s| s.start)
    }
    /// Some outstanding segment is SACKed (RFC 8985 RACK.segs_sacked > 0), in O(1): the
    /// highest SACKed offset is forgotten once the cumulative ACK passes it.
    pub fn any_sacked(&self) -> bool {
        self.high_sacked > 0
    }
    pub fn first(&self) -> Option<&SentSegment> {
        self.segs.front()
    }

    fn index_of(&self, start: u64) -> Option<usize> {
        let i = self.segs.partition_point(|s| s.start < start);
        (i < self.segs.len() && self.segs[i].start == start).then_some(i)
    }

    pub fn get(&self, start: u64) -> Option<&SentSegment> {
        self.index_of(start).map(|i| &self.segs[i])
    }

    /// Change segment `i` through `f`, keeping SetPipe's sums.
    #[inline]
    fn change(&mut self, i: usize, f: impl FnOnce(&mut SentSegment)) {
        let s = &mut self.segs[i];
        match self.sums.get_mut() {
            Some(sums) => {
                let before = PipeSums::parts(s, sums.rxt_at);
                f(s);
                sums.apply(before, PipeSums::parts(s, sums.rxt_at));
            }
            None => f(s),
        }
    }

    /// Record a new segment (appended at snd_max).
    pub fn push(&mut self, seg: SentSegment) {
        if let Some(sums) = self.sums.get_mut() {
            sums.apply([0; 4], PipeSums::parts(&seg, sums.rxt_at));
        }
        // The runs' byte counts (`update_lost`) take the segments to tile the sequence space.
        debug_assert!(
            self.segs.back().is_none_or(|b| b.end == seg.start),
            "segment {}..{} does not follow the last",
            seg.start,
            seg.end
        );
        self.runs.push(seg.sacked, self.segs.len());
        self.sacked_count += u32::from(seg.sacked);
        self.segs.push_back(seg);
    }

    /// Record a retransmission of the segment starting at `start`.
    pub fn on_retransmit(&mut self, start: u64, now: Time) -> Option<SentSegment> {
        let i = self.index_of(start)?;
        self.change(i, |s| {
            s.rexmits += 1;
            s.sent_at = now;
            s.rtx_mark = true;
        });
        Some(self.segs[i].clone())
    }

    /// Remove everything below the cumulative ACK `ack`, showing each fully acknowledged
    /// segment to `acked` in order (a segment cut by the ACK is trimmed, not shown).
    pub fn on_cum_ack(&mut self, ack: u64, mut acked: impl FnMut(&SentSegment)) {
        while let Some(s) = self.segs.front() {
            if s.end > ack {
                break;
            }
            acked(s);
            if let Some(sums) = self.sums.get_mut() {
                sums.apply(PipeSums::parts(s, sums.rxt_at), [0; 4]);
            }
            self.sacked_count -= u32::from(s.sacked);
            self.segs.pop_front();
            self.runs.pop_front(self.sacked_count > 0);
        }
        if self.segs.front().is_some_and(|f| f.start < ack) {
            self.change(0, |front| front.start = ack);
        }
    }

    /// Apply SACK blocks (already converted to offsets, in the order received).
    pub fn on_sack(&mut self, blocks: &[(u64, u64)], snd_una: u64) -> SackUpdate {
        let mut up = SackUpdate::default();
        for (i, &(l, r)) in blocks.iter().enumerate() {
            if l >= r {
                continue;
            }
            // RFC 3708 §2: a first block below the cumulative ACK, or inside the second block,
            // is a D-SACK and not new information.
            if i == 0 && (r <= snd_una || blocks.get(1).is_some_and(|&(l2, r2)| l >= l2 && r <= r2))
            {
                up.dsack = true;
                up.dsack_range = Some((l, r));
                continue;
            }
            // SACKed segments are passed over (`SackedRuns`): nothing about them can change.
            let mut i = self
                .runs
                .next_unsacked(self.segs.partition_point(|s| s.end <= l));
            while i < self.segs.len() {
                let s = &self.segs[i];
                if s.start >= r {
                    break;
                }
                // Only whole segments count as SACKed.
                if s.start >= l && s.end <= r {
                    self.change(i, |s| {
                        s.sacked = true;
                        s.lost = false;
                    });
                    self.runs.mark(i, self.segs.len());
                    self.sacked_count += 1;
                    let s = &self.segs[i];
                    up.newly_sacked += s.len();
                    up.delivered.push(Delivered::from(s));
                    if s.rexmits == 0 {
                        up.reord_low = Some(up.reord_low.map_or(s.start, |l| l.min(s.start)));
                    }
                    self.high_sacked = self.high_sacked.max(s.end);
                }
                i = self.runs.next_unsacked(i + 1);
            }
        }
        up
    }

    /// RFC 6675 §4 IsLost for every segment: a segment is lost when DupThresh SACKed
    /// segments, or more than (DupThresh − 1)·SMSS SACKed bytes, lie above it. Walks down from
    /// the highest SACKed segment (nothing above it can be lost) until the condition holds,
    /// then marks the unSACKed segments below down to the lost frontier: amortised cost per
    /// ACK is the segments it newly marks plus those between the top SACKed ones. Returns how
    /// many segments it newly marked.
    pub fn update_lost(&mut self, dup_thresh: u32, smss: u64) -> u64 {
        let mut marked = 0;
        // Nothing SACKed (high_sacked 0): no segment lies below one, so none can be marked;
        // skip the search (issue 40 step 7: the common ACK).
        let top = if self.high_sacked == 0 {
            0
        } else {
            self.segs.partition_point(|s| s.start < self.high_sacked)
        };
        // Segments ending at or below the frontier (a prefix: ends increase) are not visited.
        let floor = if top == 0 {
            0
        } else {
            self.segs.partition_point(|s| s.end <= self.lost_frontier)
        };
        let (mut count, mut bytes) = (0u32, 0u64);
        let mut from = None;
        // Down from the top, a run of SACKed segments at a time (`SackedRuns`): each run adds
        // its segments and bytes, then the unSACKed segment below it is tested.
        let mut i = top;
        while i > floor {
            let unsacked = self.runs.prev_unsacked(i - 1);
            let run_lo = unsacked.map_or(0, |u| u + 1).max(floor);
            if run_lo < i {
                count += (i - run_lo) as u32;
                bytes += self.run_bytes(run_lo, i);
            }
            match unsacked {
                Some(u) if u >= floor => {
                    if count >= dup_thresh || bytes > (dup_thresh as u64 - 1) * smss {
                        from = Some(u);
                        break;
                    }
                    i = u;
                }
                _ => break,
            }
        }
        if let Some(i) = from {
            let old = self.lost_frontier;
            self.lost_frontier = old.max(self.segs[i].end);
            // The unSACKed segments from `i` down to the old frontier, below which every
            // unSACKed segment is marked already.
            let mut next = Some(i);
            while let Some(j) = next.and_then(|j| self.runs.prev_unsacked(j)) {
                if self.segs[j].end <= old {
                    break;
                }
                if !self.segs[j].lost {
                    self.change(j, |s| s.lost = true);
                    marked += 1;
                }
                next = j.checked_sub(1);
            }
        }
        #[cfg(debug_assertions)]
        self.check_lost(dup_thresh, smss);
        marked
    }

    /// The unSACKed segments from index `from` on, in order, with their indices: SACKed runs
    /// are passed over in one step each (`SackedRuns`).
    fn unsacked_from(&self, from: usize) -> impl Iterator<Item = (usize, &SentSegment)> + '_ {
        let mut i = self.runs.next_unsacked(from);
        std::iter::from_fn(move || {
            let s = self.segs.get(i)?;
            let at = i;
            i = self.runs.next_unsacked(i + 1);
            Some((at, s))
        })
    }

    /// Bytes of segments `lo .. hi`: the segments tile the sequence space (`push`).
    fn run_bytes(&self, lo: usize, hi: usize) -> u64 {
        let bytes = self.segs[hi - 1].end - self.segs[lo].start;
        debug_assert_eq!(bytes, self.segs.range(lo..hi).map(|s| s.len()).sum::<u64>());
        bytes
    }

    /// Debug check: the flags agree with IsLost computed from scratch (set-only semantics).
    #[cfg(debug_assertions)]
    fn check_lost(&self, dup_thresh: u32, smss: u64) {
        for (i, s) in self.segs.iter().enumerate() {
            debug_assert_eq!(
                self.runs.next_unsacked(i) == i,
                !s.sacked,
                "the SACKed runs disagree with segment {}..{}",
                s.start,
                s.end
            );
        }
        let (mut count, mut bytes) = (0u32, 0u64);
        for s in self.segs.iter().rev() {
            if s.sacked {
                count += 1;
                bytes += s.len();
            } else if count >= dup_thresh || bytes > (dup_thresh as u64 - 1) * smss {
                debug_assert!(s.lost, "segment {}..{} should be lost", s.start, s.end);
            }
        }
    }

    /// IsLost of the first outstanding segment (RFC 6675 §5 entry condition).
    pub fn first_is_lost(&self) -> bool {
        self.segs.front().is_some_and(|s| s.lost && !s.sacked)
    }

    /// Segments neither SACKed nor marked lost: what a timeout newly declares lost.
    pub fn unmarked_outstanding(&self) -> u64 {
        self.segs.iter().filter(|s| !s.sacked && !s.lost).count() as u64
    }

    /// RFC 8985 §6.3 after a retransmission timeout with RACK: the segment at SND.UNA and
    /// every other unSACKed one for which `expired` holds are lost (the others, sent within
    /// RACK.rtt + RACK.reo_wnd, may still arrive). Returns how many were newly marked.
    pub fn mark_lost_on_rto(&mut self, expired: impl Fn(&SentSegment) -> bool) -> u64 {
        self.sums.set(None);
        let mut marked = 0;
        for (i, s) in self.segs.iter_mut().enumerate() {
            if !s.sacked && !s.lost && (i == 0 || expired(s)) {
                s.lost = true;
                s.rtx_mark = false;
                marked += 1;
            }
        }
        marked
    }

    /// Forget every loss mark (a timeout or a reduction found spurious, `recovery::undo`).
    pub fn unmark_lost(&mut self) {
        self.sums.set(None);
        for s in self.segs.iter_mut() {
            s.lost = false;
        }
        self.lost_frontier = 0;
    }

    /// Declare every unSACKed segment lost (after a retransmission timeout).
    pub fn mark_all_lost(&mut self) {
        self.sums.set(None);
        for s in self.segs.iter_mut().filter(|s| !s.sacked) {
            s.lost = true;
            s.rtx_mark = false;
        }
        self.lost_frontier = self.segs.back().map_or(self.lost_frontier, |s| s.end);
    }

    /// RFC 6675 §4 SetPipe: unSACKed segments not lost count once, and once more if they lie
    /// below HighRxt (they were retransmitted); with `marks`, once more if they carry the
    /// retransmission mark instead (`rtx_marks`).
    pub fn pipe(&self, high_rxt: u64, marks: bool) -> u64 {
        let mut sums = self.known_sums();
        if !marks && sums.rxt_at != high_rxt {
            self.move_rxt(&mut sums, high_rxt);
        }
        self.sums.set(Some(sums));
        let pipe = sums.clean + if marks { sums.marked } else { sums.below_rxt };
        debug_assert_eq!(
            pipe,
            self.pipe_by_walk(high_rxt, marks),
            "SetPipe's sums drifted"
        );
        pipe
    }

    /// SetPipe's sums from every segment.
    fn count_sums(&self, rxt_at: u64) -> PipeSums {
        let mut sums = PipeSums {
            rxt_at,
            ..PipeSums::default()
        };
        for s in &self.segs {
            sums.apply([0; 4], PipeSums::parts(s, rxt_at));
        }
        sums
    }

    /// `below_rxt` for HighRxt `to`: only the segments between the old and the new HighRxt are
    /// read (HighRxt moves up a segment per retransmission, back to HighACK once per episode).
    fn move_rxt(&self, sums: &mut PipeSums, to: u64) {
        let (lo, hi) = (sums.rxt_at.min(to), sums.rxt_at.max(to));
        let from = self.segs.partition_point(|s| s.start < lo);
        let between: u64 = self
            .segs
            .range(from..)
            .take_while(|s| s.start < hi)
            .filter(|s| !s.sacked)
            .map(|s| s.len())
            .sum();
        if to > sums.rxt_at {
            sums.below_rxt += between;
        } else {
            sums.below_rxt -= between;
        }
        sums.rxt_at = to;
    }

    /// SetPipe by a walk over every segment (what the sums must equal).
    fn pipe_by_walk(&self, high_rxt: u64, marks: bool) -> u64 {
        let mut pipe = 0;
        for s in self.segs.iter().filter(|s| !s.sacked) {
            if !s.lost {
                pipe += s.len();
            }
            if (marks && s.rtx_mark) || (!marks && s.start < high_rxt) {
                pipe += s.len();
            }
        }
        pipe
    }

    /// Bytes in flight when losses are marked explicitly (RACK, RFC 8985): unSACKed segments
    /// not marked lost; a retransmission clears the mark, so it counts once.
    pub fn in_flight(&self) -> u64 {
        let clean = self.known_sums().clean;
        debug_assert_eq!(
            clean,
            self.segs
                .iter()
                .filter(|s| !s.sacked && !s.lost)
                .map(|s| s.len())
                .sum::<u64>(),
            "SetPipe's sums drifted"
        );
        clean
    }

    /// SetPipe's sums, counted now if unknown (for HighRxt 0, moved when `pipe` needs it).
    fn known_sums(&self) -> PipeSums {
        let sums = self.sums.get().unwrap_or_else(|| self.count_sums(0));
        self.sums.set(Some(sums));
        sums
    }

    /// Whether a retransmission is still in flight (Linux retrans_out > 0): resent and not
    /// SACKed; with RACK (`rack_marks`, whose marks clear on resend) not marked lost again.
    /// RFC 6675's IsLost marks stay on a resent segment, which pipe counts (§4 SetPipe S2).
    pub fn any_retransmission_in_flight(&self, rack_marks: bool) -> bool {
        self.segs
            .iter()
            .any(|s| s.rexmits > 0 && !s.sacked && !(rack_marks && s.lost))
    }

    /// RFC 8985 §6.2 step 5's candidates: the unSACKed segments not marked lost that `before`
    /// says were sent before the most recently delivered one, as (index, send time, end), in
    /// order, in `out` (cleared first). SACKed segments are passed over by their runs, and the
    /// walk ends at the first segment never retransmitted that was not sent before: segments
    /// never retransmitted were sent in order of sequence, and a retransmission is later than
    /// its first sending, so every segment after that one was sent no earlier and is not a
    /// candidate either (issue 40: RACK read every outstanding segment on every ACK).
    pub fn rack_candidates(
        &self,
        before: impl Fn(Time, u64) -> bool,
        out: &mut Vec<(usize, Time, u64)>,
    ) {
        out.clear();
        for (i, s) in self.unsacked_from(0) {
            let sent_before = before(s.sent_at, s.end);
            if !sent_before && s.rexmits == 0 {
                break;
            }
            if sent_before && !s.lost {
                out.push((i, s.sent_at, s.end));
            }
        }
        debug_assert_eq!(
            *out,
            self.segs
                .iter()
                .enumerate()
                .filter(|(_, s)| !s.sacked && !s.lost && before(s.sent_at, s.end))
                .map(|(i, s)| (i, s.sent_at, s.end))
                .collect::<Vec<_>>(),
            "RACK's candidates"
        );
    }

    /// RACK found segment `i` lost (`rack_candidates`). A retransmission RACK finds lost may go
    /// again (Linux's tcp_mark_skb_lost clears TCPCB_SACKED_RETRANS): `rtx_marks`.
    pub fn mark_rack_lost(&mut self, i: usize) {
        self.change(i, |s| {
            s.lost = true;
            s.rtx_mark = false;
        });
    }

    /// The first segment marked lost and not yet retransmitted since (RACK mode).
    pub fn first_lost(&self) -> Option<&SentSegment> {
        // None marked: no walk over the segments in flight (issue 40, RACK in recovery).
        if self.known_sums().lost == 0 {
            debug_assert!(!self.segs.iter().any(|s| s.lost && !s.sacked));
            return None;
        }
        let found = self.unsacked_from(0).map(|(_, s)| s).find(|s| s.lost);
        debug_assert_eq!(found, self.segs.iter().find(|s| s.lost && !s.sacked));
        found
    }

    pub fn clear_lost(&mut self, start: u64) {
        if let Some(i) = self.index_of(start) {
            self.change(i, |s| s.lost = false);
            self.lost_frontier = self.lost_frontier.min(start);
        }
    }

    /// Every segment, to change (RACK's marks): SetPipe's sums are counted again afterwards.
    /// The SACKed marks must not be changed here (they are `on_sack`'s: `SackedRuns`).
    pub fn segments_mut(&mut self) -> impl Iterator<Item = &mut SentSegment> {
        self.sums.set(None);
        self.segs.iter_mut()
    }

    pub fn last(&self) -> Option<&SentSegment> {
        self.segs.back()
    }

    pub fn sacked_segments(&self) -> u32 {
        debug_assert_eq!(
            self.sacked_count as usize,
            self.segs.iter().filter(|s| s.sacked).count(),
            "SACKed segments miscounted"
        );
        self.sacked_count
    }

    pub fn sacked_bytes(&self) -> u64 {
        self.segs.iter().filter(|s| s.sacked).map(|s| s.len()).sum()
    }

    /// NextSeg rule (1): the first unSACKed segment above HighRxt, below the highest SACKed
    /// octet (1.b), for which IsLost holds. Rule (3) when `require_lost` is false. After a
    /// timeout every unSACKed segment is lost and (1.b) is waived (`below_sacked` false), so
    /// that the holes are resent in order even when nothing was SACKed. With `marks` a segment
    /// retransmitted since the last timeout is passed over too (`rtx_marks`: Linux and ns-3
    /// keep that mark across recovery episodes, where HighRxt restarts at HighACK).
    pub fn next_hole(
        &self,
        high_rxt: u64,
        require_lost: bool,
        below_sacked: bool,
        marks: bool,
    ) -> Option<&SentSegment> {
        let limit = if below_sacked {
            self.high_sacked
        } else {
            u64::MAX
        };
        // Segments are in order of start: those below HighRxt are skipped by a binary search,
        // and SACKed ones by their runs, not visited (issue 40: a scan from SND.UNA cost
        // O(window) per call in recovery).
        let candidate = |s: &SentSegment| (s.lost || !require_lost) && !(marks && s.rtx_mark);
        let found = self
            .unsacked_from(self.segs.partition_point(|s| s.start < high_rxt))
            .map(|(_, s)| s)
            .take_while(|s| s.start < limit)
            .find(|s| candidate(s));
        debug_assert_eq!(
            found,
            self.segs
                .iter()
                .find(|s| !s.sacked && s.start >= high_rxt && s.start < limit && candidate(s)),
            "NextSeg's search"
        );
        found
    }

    /// NextSeg rule (4): the segment holding the highest outstanding unSACKed octet.
    pub fn highest_unsacked(&self) -> Option<&SentSegment> {
        let last = self.segs.len().checked_sub(1)?;
        let found = self.runs.prev_unsacked(last).map(|i| &self.segs[i]);
        debug_assert_eq!(found, self.segs.iter().rev().find(|s| !s.sacked));
        found
    }

    /// Clear SACK state after the cumulative ACK passes it (RFC 6675 keeps nothing below HighACK).
    pub fn reset_high_sacked_below(&mut self, snd_una: u64) {
        if self.high_sacked <= snd_una {
            self.high_sacked = 0;
        }
    }
}

/// Offsets of the fields the connection's layout test follows (`connection::hot_block`).
#[cfg(test)]
pub(crate) fn field_offsets() -> Vec<(&'static str, usize)> {
    field_offsets!(Scoreboard; segs, runs, sums, lost_frontier, sacked_count, high_sacked)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(n: u64) -> Scoreboard {
        let mut sb = Scoreboard::default();
        for i in 0..n {
            sb.push(SentSegment {
                start: 1 + i * 100,
                end: 101 + i * 100,
                fin: false,
                sent_at: Time::ZERO,
                rexmits: 0,
                sacked: false,
                lost: false,
                rtx_mark: false,
            });
        }
        sb
    }

    #[test]
    fn is_lost_needs_dupthresh_sacked_segments_above() {
        let mut sb = board(6);
        sb.on_sack(&[(101, 301)], 1);
        assert_eq!(sb.update_lost(3, 100), 0);
        assert!(!sb.first_is_lost());
        sb.on_sack(&[(401, 501), (101, 301)], 1);
        // One segment newly marked (what the sender's lost total counts), then none again.
        assert_eq!(sb.update_lost(3, 100), 1);
        assert_eq!(sb.update_lost(3, 100), 0);
        assert!(sb.first_is_lost());
        // Segment 301 has only one SACKed segment above it.
        assert!(!sb.get(301).unwrap().lost);
        // Pipe: 1 lost (not counted), 301 and 501 in flight.
        assert_eq!(sb.pipe(1, false), 200);
        // After retransmitting the first segment (HighRxt = 101) it counts again.
        assert_eq!(sb.pipe(101, false), 300);
        assert_eq!(sb.next_hole(1, true, true, false).unwrap().start, 1);
        assert_eq!(sb.next_hole(101, true, true, false), None);
        assert_eq!(sb.next_hole(101, false, true, false).unwrap().start, 301);
        assert_eq!(sb.highest_unsacked().unwrap().start, 501);
    }

    #[test]
    fn retransmission_marks_outlast_high_rxt_until_a_timeout() {
        // Segments 1 and 301 lost (SACKs above each), both retransmitted in one episode.
        let mut sb = board(8);
        sb.on_sack(&[(101, 301), (401, 801)], 1);
        sb.update_lost(3, 100);
        assert!(sb.get(1).unwrap().lost && sb.get(301).unwrap().lost);
        sb.on_retransmit(1, Time::from_millis(1));
        sb.on_retransmit(301, Time::from_millis(2));
        // A new episode restarts HighRxt at HighACK (1): RFC 6675's NextSeg offers segment 1
        // again, the marks (Linux, ns-3) offer nothing; SetPipe counts the two resent
        // segments twice only with the marks (they are still lost, so once in all).
        assert_eq!(sb.next_hole(1, true, true, false).unwrap().start, 1);
        assert_eq!(sb.next_hole(1, true, true, true), None);
        assert_eq!(sb.pipe(1, false), 0);
        assert_eq!(sb.pipe(1, true), 200);
        // A timeout clears the marks: everything unSACKed is lost and resent in order.
        sb.mark_all_lost();
        assert_eq!(sb.next_hole(1, true, false, true).unwrap().start, 1);
        assert_eq!(sb.pipe(1, true), 0);
    }

    #[test]
    fn dsack_blocks_are_recognised_not_counted() {
        let mut sb = board(4);
        let mut acked = Vec::new();
        sb.on_cum_ack(101, |s| acked.push(s.start));
        assert_eq!(acked, [1]);
        let up = sb.on_sack(&[(1, 101)], 101);
        assert_eq!(
            up,
            SackUpdate {
                newly_sacked: 0,
                dsack: true,
                dsack_range: Some((1, 101)),
                delivered: vec![],
                reord_low: None,
            }
        );
        let up = sb.on_sack(&[(301, 401)], 101);
        assert_eq!(up.newly_sacked, 100);
        assert_eq!(up.reord_low, Some(301), "never retransmitted");
        let up = sb.on_sack(&[(301, 401), (301, 401)], 101);
        assert!(up.dsack);
    }
}
