//! The retransmission queue (seed 000 Fig. 1 "rtxq"): every DATA chunk sent at least once and
//! not yet cumulatively acked, with its acknowledgement state. Owns: per-TSN state and the
//! bytes the queue holds in the send buffer. Does not own: the decisions (SACK processing,
//! fast retransmit, T3), which live in `association` (`send_side` owns this queue).
//!
//! Gap-acked chunks stay (SACK information is advisory, RFC 9260 §6.2.1); nr-gap-acked chunks
//! drop their payload at once and stop counting against the send buffer (NR-SACK draft §5).

use crate::stats::RtxCause;
use crate::tsn::{tsn_le, tsn_lt};
use rexmit_time::Time;
use rexmit_wire::{DataChunk, Payload};
use std::collections::VecDeque;

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

#[derive(Clone, Debug)]
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
    /// Waiting for the fast-retransmit packet that ignores cwnd (RFC 9260 §7.2.4 step 3).
    pub fast_rtx_pending: bool,
    /// Message number of the user message (for delivery accounting).
    pub msg_id: u64,
    /// Why it was last marked for retransmission.
    pub rtx_cause: RtxCause,
}

#[derive(Clone, Debug, Default)]
pub struct RtxQueue {
    /// TSN of `entries[0]`.
    front_tsn: u32,
    entries: VecDeque<RtxEntry>,
    /// Bytes held in the send buffer: all entries except nr-acked ones.
    bytes: u64,
}

impl RtxQueue {
    pub fn new() -> Self {
        RtxQueue::default()
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
    pub fn get_mut(&mut self, tsn: u32) -> Option<&mut RtxEntry> {
        self.index(tsn).map(move |i| &mut self.entries[i])
    }

    pub fn highest_tsn(&self) -> Option<u32> {
        self.entries.back().map(|e| e.tsn)
    }

    pub fn iter(&self) -> impl Iterator<Item = &RtxEntry> {
        self.entries.iter()
    }
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut RtxEntry> {
        self.entries.iter_mut()
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
            self.front_tsn = e.tsn.wrapping_add(1);
            each(e);
        }
    }

    /// (TSN, state, user bytes) of every entry, lowest TSN first: what the metrics layer needs
    /// to tell necessary from unnecessary data (seed 000 §IV.B).
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
            fast_rtx_pending: false,
            msg_id: 0,
            rtx_cause: RtxCause::Timeout,
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
}
