//! The retransmission queue (seed 000 Fig. 1 "rtxq"): every DATA chunk sent at least once and
//! not yet cumulatively acked, with its acknowledgement state. Owns: per-TSN state and the
//! bytes the queue holds in the send buffer. Does not own: the decisions (SACK processing,
//! fast retransmit, T3), which live in `association` (`send_side` owns this queue).
//!
//! Gap-acked chunks stay (SACK information is advisory, RFC 9260 §6.2.1); nr-gap-acked chunks
//! drop their payload at once and stop counting against the send buffer (NR-SACK draft §5).

use crate::stats::RtxCause;
use crate::tsn::{tsn_le, tsn_lt};
use rexmit_time::{Duration, Time};
use rexmit_wire::{DataChunk, Payload};
use smallvec::SmallVec;
use std::collections::VecDeque;

/// What a T3-rtx expiry marked on a path: chunks, and their bytes (which leave its flight).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TimedOut {
    pub chunks: u64,
    pub bytes: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TsnState {
    /// Sent and neither acked nor presumed lost: counts in its path's flightsize.
    InFlight,
    /// Presumed lost (fast retransmit, T3-rtx) or reneged: waiting to be sent again.
    MarkedForRtx,
    /// Gap-acked: received out of order but renegable, kept in case the receiver reneges.
    GapAcked,
    /// Nr-gap-acked: non-renegable; payload freed, only the TSN remains until cum-acked.
    NrAcked,
}

#[derive(Clone, Debug, PartialEq)]
pub struct RtxEntry {
    pub tsn: u32,
    /// The TSN unwrapped to 64 bits (first-transmission order, for RACK).
    pub seq: u64,
    pub chunk: DataChunk,
    /// User-data bytes of the chunk (its payload length before freeing).
    pub len: u32,
    pub state: TsnState,
    /// Index of the destination of the latest transmission.
    pub path: usize,
    pub sent_at: Time,
    pub tx_count: u32,
    pub miss_indications: u32,
    /// Fast retransmitted already; RFC 9260 §7.2.4 fast retransmits a TSN at most once.
    pub fast_retransmitted: bool,
    /// The next TSN to be assigned when it was last marked for fast retransmission
    /// (`SctpConfig::fast_rtx_again`: FreeBSD's `fast_retran_tsn`).
    pub fast_rtx_next_tsn: u32,
    /// Waiting for the fast-retransmit packet that ignores cwnd (RFC 9260 §7.2.4 step 3).
    pub fast_rtx_pending: bool,
    /// Message number of the user message (for delivery accounting).
    pub msg_id: u64,
    /// Why it was last marked for retransmission.
    pub rtx_cause: RtxCause,
    /// This (first) transmission measures its path's RTT (RFC 9260 §6.3.1 C4).
    pub timed: bool,
    /// Marked for retransmission, the destination chosen then (`cmt.rtx_dest_at_mark`);
    /// `None`: chosen when it is sent.
    pub rtx_to: Option<usize>,
    /// Marked by a T3-rtx expiry under `cmt.no_fr_after_t3`: never fast retransmitted again
    /// (FreeBSD's `no_fr_allowed`).
    pub no_fast_rtx: bool,
}

impl RtxEntry {
    /// The bytes it counts in its path's flightsize and in the bytes a SACK acknowledges
    /// there: its payload plus `overhead` per chunk (RFC 9260 §6.1, §7.2;
    /// `SctpConfig::cwnd_bytes`).
    pub fn flight_len(&self, overhead: u32) -> u64 {
        u64::from(self.len) + u64::from(overhead)
    }

    /// Presumed lost (or reneged): it waits to be sent again, and its miss count starts over.
    fn mark_for_rtx(&mut self, cause: RtxCause) {
        self.state = TsnState::MarkedForRtx;
        self.rtx_cause = cause;
        self.miss_indications = 0;
    }
}

/// What `RtxQueue::scan_gap_blocks` found.
pub(crate) struct GapScan {
    /// Queued TSNs the SACK's gap blocks cover.
    pub covered: u64,
    /// Chunks the nr-gap blocks cover that are not freed yet (for `free`).
    pub to_free: SmallVec<[u32; 16]>,
    /// Gap-acked chunks the gap blocks no longer cover.
    pub missing: SmallVec<[u32; 4]>,
}

/// The queue's entries are read through `get` and `iter`; they change only through the named
/// operations below, so the byte count and the TSN order cannot be broken from outside.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RtxQueue {
    /// TSN of `entries[0]`.
    front_tsn: u32,
    entries: VecDeque<RtxEntry>,
    /// Bytes held in the send buffer: all entries except nr-acked ones.
    bytes: u64,
    /// Entries in state `GapAcked`: while there are none, no queued byte can be unnecessary
    /// (seed 000 §IV.B), so the RtxQ_Util metrics skip their scan (issue 18: that scan, once
    /// per agent call, was 80% of a seed 004 fairness run whose queue held ~1 000 chunks).
    gap_acked: usize,
    /// Bytes a chunk counts in flightsize beyond its payload (`SctpConfig::cwnd_bytes`).
    flight_overhead: u32,
}

impl RtxQueue {
    pub fn new() -> Self {
        RtxQueue::default()
    }

    /// A queue whose chunks count `overhead` bytes beyond their payload in flightsize
    /// (`SctpConfig::chunk_flight_overhead`).
    pub fn with_flight_overhead(overhead: u32) -> Self {
        RtxQueue {
            flight_overhead: overhead,
            ..RtxQueue::default()
        }
    }

    /// The bytes `e` counts in its path's flightsize (`RtxEntry::flight_len` with this queue's
    /// overhead).
    pub fn flight_len(&self, e: &RtxEntry) -> u64 {
        e.flight_len(self.flight_overhead)
    }

    /// What one chunk counts in flightsize beyond its payload.
    pub fn flight_overhead(&self) -> u32 {
        self.flight_overhead
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
    pub fn len(&self) -> usize {
        self.entries.len()
    }
    /// Send-buffer bytes the queue occupies (nr-acked chunks excluded).
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
    /// Entries gap-acked (received out of order, renegable), kept as a count.
    pub fn gap_acked(&self) -> usize {
        self.gap_acked
    }

    /// Append a chunk sent for the first time; TSNs must be consecutive.
    pub fn push(&mut self, e: RtxEntry) {
        if self.entries.is_empty() {
            self.front_tsn = e.tsn;
        }
        debug_assert_eq!(
            e.tsn,
            self.front_tsn.wrapping_add(self.entries.len() as u32)
        );
        self.bytes += e.len as u64;
        self.entries.push_back(e);
    }

    fn index(&self, tsn: u32) -> Option<usize> {
        if self.entries.is_empty() || tsn_lt(tsn, self.front_tsn) {
            return None;
        }
        let i = tsn.wrapping_sub(self.front_tsn) as usize;
        (i < self.entries.len()).then_some(i)
    }

    pub fn get(&self, tsn: u32) -> Option<&RtxEntry> {
        self.index(tsn).map(|i| &self.entries[i])
    }
    fn get_mut(&mut self, tsn: u32) -> Option<&mut RtxEntry> {
        self.index(tsn).map(move |i| &mut self.entries[i])
    }

    pub fn highest_tsn(&self) -> Option<u32> {
        self.entries.back().map(|e| e.tsn)
    }

    pub fn iter(&self) -> impl Iterator<Item = &RtxEntry> {
        self.entries.iter()
    }

    // --- transmissions ---

    /// One transmission of `tsn` to path `p` at `now`: in flight there, its miss count started
    /// over, no longer timed. Returns the entry, when this was its first retransmission the
    /// time since its first transmission, and the path whose timed chunk it was, if it was.
    pub(crate) fn on_sent(
        &mut self,
        tsn: u32,
        p: usize,
        now: Time,
    ) -> Option<(&mut RtxEntry, Option<Duration>, Option<usize>)> {
        let i = self.index(tsn)?;
        let e = &mut self.entries[i];
        let first_rtx = (e.tx_count == 1).then(|| now.saturating_since(e.sent_at));
        let was_timed = std::mem::replace(&mut e.timed, false).then_some(e.path);
        self.gap_acked -= (e.state == TsnState::GapAcked) as usize;
        e.state = TsnState::InFlight;
        e.path = p;
        e.rtx_to = None;
        e.sent_at = now;
        e.tx_count += 1;
        e.miss_indications = 0;
        Some((e, first_rtx, was_timed))
    }

    /// The fast-retransmit packet is built: no chunk waits for it any more (RFC 9260 §7.2.4
    /// step 3).
    pub(crate) fn clear_fast_rtx_pending(&mut self) {
        for e in self.entries.iter_mut() {
            e.fast_rtx_pending = false;
        }
    }

    /// A tail loss probe resends `tsn` (RFC 8985 §7.3). None if it is not queued.
    pub(crate) fn mark_probe(&mut self, tsn: u32) -> Option<()> {
        self.get_mut(tsn)?.rtx_cause = RtxCause::Tlp;
        Some(())
    }

    // --- loss ---

    /// `tsn` is lost for fast retransmission with `cause` (RFC 9260 §7.2.4): returns its path
    /// and the bytes that leave that path's flight (its length if it was in flight).
    pub(crate) fn mark_fast_rtx(
        &mut self,
        tsn: u32,
        cause: RtxCause,
        next_tsn: u32,
    ) -> Option<(usize, u64)> {
        let i = self.index(tsn)?;
        let oh = self.flight_overhead;
        let e = &mut self.entries[i];
        let left = if e.state == TsnState::InFlight {
            e.flight_len(oh)
        } else {
            0
        };
        self.gap_acked -= (e.state == TsnState::GapAcked) as usize;
        e.mark_for_rtx(cause);
        e.fast_retransmitted = true;
        e.fast_rtx_next_tsn = next_tsn;
        e.fast_rtx_pending = true;
        Some((e.path, left))
    }

    /// `cmt.rtx_dest_at_mark`: marked chunk `tsn` will be retransmitted to `to`.
    pub(crate) fn bind_rtx_dest(&mut self, tsn: u32, to: usize) {
        if let Some(e) = self.get_mut(tsn) {
            e.rtx_to = Some(to);
        }
    }

    /// `cmt.rtx_dest_at_mark`, T3-rtx expired on path `p`: the marked chunks bound for `p`,
    /// or last sent there and not bound anywhere, go to `to` instead (sctp_mark_all_for_resend
    /// moves every chunk whose `whoTo` is the expiring destination).
    pub(crate) fn rebind_marked(&mut self, p: usize, to: usize) {
        for e in self.entries.iter_mut() {
            if e.state == TsnState::MarkedForRtx && e.rtx_to.unwrap_or(e.path) == p {
                e.rtx_to = Some(to);
            }
        }
    }

    /// T3-rtx expired on path `p` (RFC 9260 §6.3.3 E3): every chunk in flight there is marked
    /// for retransmission, and with `no_fast_rtx` barred from fast retransmission from then on
    /// (`cmt.no_fr_after_t3`). Returns how many were marked.
    pub(crate) fn mark_timed_out(&mut self, p: usize, no_fast_rtx: bool) -> u64 {
        self.mark_timed_out_sent_by(p, Time::MAX, no_fast_rtx)
            .map_or(0, |m| m.chunks)
    }

    /// FreeBSD's T3-rtx expiry on path `p` (sctp_mark_all_for_resend): only the chunks in
    /// flight there that were sent at or before `sent_by` are marked (`no_fast_rtx` as for
    /// `mark_timed_out`). Returns how many and the bytes that leave the path's flight, `None`
    /// if none was marked.
    pub(crate) fn mark_timed_out_sent_by(
        &mut self,
        p: usize,
        sent_by: Time,
        no_fast_rtx: bool,
    ) -> Option<TimedOut> {
        let mut out: Option<TimedOut> = None;
        let oh = self.flight_overhead;
        for e in self.entries.iter_mut() {
            if e.path == p && e.state == TsnState::InFlight && e.sent_at <= sent_by {
                e.mark_for_rtx(RtxCause::Timeout);
                e.no_fast_rtx |= no_fast_rtx;
                let o = out.get_or_insert(TimedOut {
                    chunks: 0,
                    bytes: 0,
                });
                o.chunks += 1;
                o.bytes += e.flight_len(oh);
            }
        }
        out
    }

    /// The receiver dropped `tsn` after acknowledging it (RFC 9260 §6.2.1 D iv): send it
    /// again. Returns whether it was still queued.
    pub(crate) fn mark_reneged(&mut self, tsn: u32) -> bool {
        match self.index(tsn) {
            Some(i) => {
                let e = &mut self.entries[i];
                self.gap_acked -= (e.state == TsnState::GapAcked) as usize;
                e.mark_for_rtx(RtxCause::Reneged);
                true
            }
            None => false,
        }
    }

    /// FreeBSD EFR expiry on path `p` (seed 004 §2): every chunk in flight there, not resent
    /// early or fast before, that was sent `wait` or more before `now` is marked. Returns the
    /// bytes that leave the path's flight, `None` if none was marked.
    pub(crate) fn mark_early(&mut self, p: usize, wait: Duration, now: Time) -> Option<u64> {
        let mut left = None;
        let oh = self.flight_overhead;
        for e in self.entries.iter_mut() {
            if e.path == p
                && e.state == TsnState::InFlight
                && !e.fast_retransmitted
                && e.sent_at + wait <= now
            {
                *left.get_or_insert(0) += e.flight_len(oh);
                e.fast_retransmitted = true;
                e.mark_for_rtx(RtxCause::EarlyFastRetransmit);
            }
        }
        left
    }

    /// Miss indications (RFC 9260 §7.2.4) for the chunks in flight below `limit`: `weight`
    /// says how many one chunk gets (`None`: not counted), `lost` whether its new total makes
    /// it lost and why. Returns the chunks found lost, not yet fast retransmitted (unless
    /// `again`), lowest first.
    pub(crate) fn count_misses(
        &mut self,
        limit: u32,
        again: bool,
        mut weight: impl FnMut(&RtxEntry) -> Option<u32>,
        mut lost: impl FnMut(u32) -> Option<RtxCause>,
    ) -> SmallVec<[(u32, RtxCause); 4]> {
        let mut found = SmallVec::new();
        for e in self.entries.iter_mut() {
            // The entries are in TSN order: none after this one is below `limit` (issue 18:
            // the walk went on to the end of the queue at every SACK).
            if !tsn_lt(e.tsn, limit) {
                break;
            }
            // FreeBSD's CMT skips a chunk a timeout marked (`no_fr_allowed`).
            if e.state != TsnState::InFlight || e.no_fast_rtx {
                continue;
            }
            let Some(w) = weight(e) else {
                continue;
            };
            e.miss_indications += w;
            if e.fast_retransmitted && !again {
                continue;
            }
            if let Some(c) = lost(e.miss_indications) {
                found.push((e.tsn, c));
            }
        }
        found
    }

    // --- acknowledgements ---

    /// A SACK's gap and nr-gap blocks (RFC 9260 §6.2.1 D iv; NR-SACK draft §5.1): `covers` says
    /// whether a TSN is in a gap block and in an nr-gap block (asked once per queued chunk,
    /// lowest first); `newly` sees each chunk acknowledged for the first time, before it
    /// becomes gap-acked. Freeing nr-acked chunks and resending missing ones is the caller's
    /// decision (`free`, `mark_reneged`).
    /// `blocks`: the SACK has any gap or nr-gap block.
    pub(crate) fn scan_gap_blocks(
        &mut self,
        blocks: bool,
        mut covers: impl FnMut(u32) -> (bool, bool),
        mut newly: impl FnMut(&RtxEntry),
    ) -> GapScan {
        let mut scan = GapScan {
            covered: 0,
            to_free: SmallVec::new(),
            missing: SmallVec::new(),
        };
        // Without blocks nothing is covered, and without gap-acked chunks none goes missing:
        // the pass below would change nothing (issue 18: it ran over the whole queue at every
        // SACK).
        if !blocks && self.gap_acked == 0 {
            return scan;
        }
        for e in self.entries.iter_mut() {
            let (gap, nr) = covers(e.tsn);
            scan.covered += gap as u64;
            match e.state {
                TsnState::InFlight | TsnState::MarkedForRtx if gap => {
                    newly(e);
                    e.state = TsnState::GapAcked;
                    self.gap_acked += 1;
                    e.fast_rtx_pending = false;
                    if nr {
                        scan.to_free.push(e.tsn);
                    }
                }
                TsnState::GapAcked if nr => scan.to_free.push(e.tsn),
                TsnState::GapAcked if !gap => scan.missing.push(e.tsn),
                _ => {}
            }
        }
        scan
    }

    /// Mark `tsn` non-renegably acked and free its payload. Returns false if already freed.
    pub fn free(&mut self, tsn: u32) -> bool {
        let Some(i) = self.index(tsn) else {
            return false;
        };
        let e = &mut self.entries[i];
        if e.state == TsnState::NrAcked {
            return false;
        }
        self.gap_acked -= (e.state == TsnState::GapAcked) as usize;
        e.state = TsnState::NrAcked;
        e.chunk.payload = Payload::empty();
        self.bytes -= e.len as u64;
        true
    }

    /// Remove every entry with TSN <= `cum`, handing each to `each` (cum-acked, RFC 9260 §6.2.1 D).
    pub fn cum_ack(&mut self, cum: u32, mut each: impl FnMut(RtxEntry)) {
        while let Some(front) = self.entries.front() {
            if !tsn_le(front.tsn, cum) {
                break;
            }
            let e = self.entries.pop_front().expect("front exists");
            if e.state != TsnState::NrAcked {
                self.bytes -= e.len as u64;
            }
            self.gap_acked -= (e.state == TsnState::GapAcked) as usize;
            self.front_tsn = e.tsn.wrapping_add(1);
            each(e);
        }
    }

    /// (TSN, state, user bytes) of every entry, lowest TSN first, as a vector (tests; the
    /// metrics layer reads `Association::rtx_queue_iter` and `gap_acked`, seed 000 §IV.B).
    pub fn snapshot(&self) -> Vec<(u32, TsnState, u32)> {
        self.entries
            .iter()
            .map(|e| (e.tsn, e.state, e.len))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(tsn: u32) -> RtxEntry {
        RtxEntry {
            tsn,
            seq: tsn as u64,
            chunk: DataChunk {
                immediate: false,
                unordered: true,
                beginning: true,
                ending: true,
                tsn,
                stream_id: 0,
                ssn: 0,
                ppid: 0,
                payload: Payload::zeros(100),
            },
            len: 100,
            state: TsnState::InFlight,
            path: 0,
            sent_at: Time::ZERO,
            tx_count: 1,
            miss_indications: 0,
            fast_retransmitted: false,
            fast_rtx_next_tsn: 0,
            fast_rtx_pending: false,
            rtx_to: None,
            no_fast_rtx: false,
            msg_id: 0,
            rtx_cause: RtxCause::Timeout,
            timed: false,
        }
    }

    #[test]
    fn nr_acked_chunks_leave_the_buffer_at_once_and_cum_ack_removes_the_rest() {
        let mut q = RtxQueue::new();
        for t in u32::MAX - 1..=u32::MAX {
            q.push(entry(t));
        }
        q.push(entry(0));
        assert_eq!(q.bytes(), 300);
        assert!(q.free(0));
        assert!(!q.free(0));
        assert_eq!(q.bytes(), 200);
        let mut gone = 0;
        q.cum_ack(u32::MAX, |_| gone += 1);
        assert_eq!(gone, 2);
        assert_eq!(q.bytes(), 0);
        assert_eq!(q.snapshot(), vec![(0, TsnState::NrAcked, 100)]);
        q.cum_ack(0, |_| {});
        assert!(q.is_empty());
    }

    fn queue(n: u32) -> RtxQueue {
        let mut q = RtxQueue::new();
        for t in 1..=n {
            q.push(entry(t));
        }
        q
    }

    #[test]
    fn fast_retransmit_takes_only_in_flight_bytes_out_of_the_flight() {
        let mut q = queue(2);
        assert_eq!(
            q.mark_fast_rtx(1, RtxCause::FastRetransmit, 2),
            Some((0, 100))
        );
        assert_eq!(
            q.mark_fast_rtx(1, RtxCause::FastRetransmit, 2),
            Some((0, 0))
        );
        assert_eq!(q.mark_fast_rtx(9, RtxCause::FastRetransmit, 2), None);
        let e = q.get(1).unwrap();
        assert!(e.fast_retransmitted && e.fast_rtx_pending);
        assert_eq!(e.state, TsnState::MarkedForRtx);
        q.clear_fast_rtx_pending();
        assert!(!q.get(1).unwrap().fast_rtx_pending);
        assert_eq!(
            q.bytes(),
            200,
            "marking never changes what the buffer holds"
        );
    }

    #[test]
    fn early_retransmit_skips_chunks_already_resent_fast_and_timeouts_mark_the_rest() {
        let mut q = queue(3);
        q.mark_fast_rtx(1, RtxCause::FastRetransmit, 2);
        q.on_sent(1, 0, Time::from_millis(5));
        let wait = Duration::from_millis(1);
        assert_eq!(q.mark_early(0, wait, Time::from_millis(10)), Some(200));
        assert_eq!(q.mark_early(0, wait, Time::from_millis(10)), None);
        assert_eq!(q.get(1).unwrap().state, TsnState::InFlight);
        assert_eq!(q.mark_timed_out(0, false), 1);
        assert_eq!(q.mark_timed_out(0, false), 0, "nothing left in flight");
        assert_eq!(q.get(1).unwrap().rtx_cause, RtxCause::Timeout);
    }

    /// FreeBSD's T3-rtx marks only chunks sent long enough ago (sctp_mark_all_for_resend).
    #[test]
    fn a_freebsd_timeout_marks_only_chunks_sent_by_the_bound() {
        let mut q = queue(3);
        q.on_sent(3, 0, Time::from_millis(50));
        let by = Time::from_millis(20);
        assert_eq!(
            q.mark_timed_out_sent_by(0, by, false),
            Some(TimedOut {
                chunks: 2,
                bytes: 200
            }),
            "TSNs 1 and 2"
        );
        assert_eq!(q.get(3).unwrap().state, TsnState::InFlight);
        assert_eq!(q.mark_timed_out_sent_by(0, by, false), None);
    }

    #[test]
    fn a_timeout_moves_the_marked_chunks_bound_for_its_path_and_a_send_unbinds() {
        // sctp_mark_all_for_resend moves every chunk whose `whoTo` is the expiring path.
        let mut q = queue(4);
        q.on_sent(3, 1, Time::ZERO);
        q.on_sent(4, 1, Time::ZERO);
        for t in 1..=4 {
            q.mark_fast_rtx(t, RtxCause::FastRetransmit, 5);
        }
        q.bind_rtx_dest(1, 1); // last sent on 0, bound for 1
        q.bind_rtx_dest(3, 0); // last sent on 1, bound for 0
        q.rebind_marked(1, 2);
        let to: Vec<_> = (1..=4).map(|t| q.get(t).unwrap().rtx_to).collect();
        assert_eq!(
            to,
            vec![Some(2), None, Some(0), Some(2)],
            "TSN 4: sent on 1, unbound"
        );
        q.on_sent(1, 2, Time::ZERO);
        assert_eq!(q.get(1).unwrap().rtx_to, None);
    }

    #[test]
    fn a_gap_scan_acks_once_and_reports_chunks_no_longer_covered() {
        let mut q = queue(3);
        let mut newly = Vec::new();
        let scan = q.scan_gap_blocks(true, |t| (t >= 2, t == 3), |e| newly.push(e.tsn));
        assert_eq!((scan.covered, newly), (2, vec![2, 3]));
        assert_eq!(scan.to_free.as_slice(), &[3]);
        let again = q.scan_gap_blocks(true, |t| (t == 3, false), |_| panic!("acked before"));
        assert_eq!(
            again.missing.as_slice(),
            &[2],
            "TSN 2 gap-acked before, missing now"
        );
        assert!(q.mark_reneged(2) && !q.mark_reneged(9));
        assert_eq!(q.get(2).unwrap().state, TsnState::MarkedForRtx);
    }

    #[test]
    fn misses_count_only_below_the_limit_and_only_in_flight_chunks() {
        let mut q = queue(5);
        q.scan_gap_blocks(true, |t| (t == 2, false), |_| {});
        // RFC 9260 §7.2.4: TSNs below the highest newly acked one (4 here) get a miss; 2 is
        // gap-acked, 4 and 5 are at or above the limit. Three misses make 1 and 3 lost.
        let lost = |m: u32| (m >= 3).then_some(RtxCause::FastRetransmit);
        for _ in 0..2 {
            assert!(q.count_misses(4, false, |_| Some(1), lost).is_empty());
        }
        let found = q.count_misses(4, false, |_| Some(1), lost);
        assert_eq!(found.iter().map(|f| f.0).collect::<Vec<_>>(), vec![1, 3]);
        let misses: Vec<u32> = q.iter().map(|e| e.miss_indications).collect();
        assert_eq!(misses, vec![3, 0, 3, 0, 0]);
    }

    #[test]
    fn a_sack_without_blocks_still_finds_gap_acked_chunks_missing() {
        let mut q = queue(3);
        // Nothing gap-acked, no blocks: nothing to do (the pass is skipped).
        let none = q.scan_gap_blocks(false, |_| panic!("not scanned"), |_| panic!("not acked"));
        assert_eq!((none.covered, none.missing.len(), q.gap_acked()), (0, 0, 0));
        q.scan_gap_blocks(true, |t| (t >= 2, false), |_| {});
        assert_eq!(q.gap_acked(), 2);
        // A SACK without blocks after gap acks: both are missing now (reneged or stale).
        let gone = q.scan_gap_blocks(false, |_| (false, false), |_| {});
        assert_eq!(gone.missing.as_slice(), &[2, 3]);
        assert!(q.mark_reneged(2) && q.free(3));
        assert_eq!(q.gap_acked(), 0);
    }
}
