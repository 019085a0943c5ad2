//! Recording a TCP sender: each data segment with why it went, each ACK with its SACK and
//! D-SACK blocks and the peer's window, and state samples on change.
//!
//! Why a segment went is read from the core's retransmission counters around one
//! `poll_transmit` (one segment per call), so the core needs no trace hook.

use super::{sat, BlockKind, Cause, TraceRef};
use crate::truth::SeqUnwrap;
use rexmit_tcp::{Connection, TcpStats};
use rexmit_time::Time;
use rexmit_wire::{TcpFlags, TcpSegment};

/// Counters that tell why the next segment is sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TxCounters([u64; 6]);

impl TxCounters {
    pub fn of(st: &TcpStats) -> Self {
        TxCounters([
            st.retransmits_fast,
            st.retransmits_timeout,
            st.retransmits_rack,
            st.retransmits_tlp,
            st.retransmits_rescue,
            st.tlp_probes,
        ])
    }

    /// What changed from `self` to `after`, across one transmitted segment.
    fn cause(self, after: TxCounters) -> Cause {
        let d: [bool; 6] = std::array::from_fn(|i| after.0[i] > self.0[i]);
        match d {
            [_, _, _, _, true, _] => Cause::Rescue,
            [true, ..] => Cause::FastRetransmit,
            [_, true, ..] => Cause::Timeout,
            [_, _, true, ..] => Cause::Rack,
            [_, _, _, true, ..] => Cause::Tlp,
            [.., true] => Cause::TlpNewData,
            _ => Cause::New,
        }
    }
}

/// A TCP sender's trace and its sequence-number unwrapping (relative to the ISN).
pub struct TcpTrace {
    pub trace: TraceRef,
    seq: SeqUnwrap,
}

impl TcpTrace {
    pub fn new(trace: TraceRef, iss: u32) -> Self {
        TcpTrace {
            trace,
            seq: SeqUnwrap::new(iss),
        }
    }

    /// Relative sequence number (the first data byte is 1).
    fn rel(&mut self, seq: u32) -> u64 {
        self.seq.offset(seq) + 1
    }

    /// `seg` was just emitted; `before` are the counters before `poll_transmit`.
    pub fn on_sent(&mut self, now: Time, seg: &TcpSegment, before: TxCounters, conn: &Connection) {
        let len = seg.payload.len() as u64 + seg.flags.contains(TcpFlags::FIN) as u64;
        if len == 0 || seg.flags.contains(TcpFlags::SYN) {
            return;
        }
        let cause = before.cause(TxCounters::of(conn.stats()));
        let start = self.rel(seg.seq);
        self.trace
            .borrow_mut()
            .sent(now, start, start + len, cause, 0);
    }

    /// An acknowledgement arrived and the core has processed it.
    pub fn on_ack(&mut self, now: Time, seg: &TcpSegment, conn: &Connection) {
        if !seg.flags.contains(TcpFlags::ACK) || seg.flags.contains(TcpFlags::SYN) {
            return;
        }
        let cum = self.rel(seg.ack);
        let mut tr = self.trace.borrow_mut();
        tr.ack(now, cum, conn.snd_wnd(), 0);
        let blocks = &seg.options.sack_blocks;
        for (i, b) in blocks.iter().enumerate() {
            let (l, r) = (self.seq.offset(b.left) + 1, self.seq.offset(b.right) + 1);
            // RFC 2883 §4: a first block below the cumulative ACK, or inside the second block,
            // reports a duplicate.
            let dsack = i == 0
                && (r <= cum
                    || blocks.get(1).is_some_and(|n| {
                        let (nl, nr) = (self.seq.offset(n.left) + 1, self.seq.offset(n.right) + 1);
                        nl <= l && r <= nr
                    }));
            let kind = if dsack {
                BlockKind::Dsack
            } else {
                BlockKind::Sack
            };
            tr.block(now, kind, l, r);
        }
    }

    /// Sample the sender's state (written only when it changed).
    pub fn on_state(&mut self, now: Time, conn: &Connection) {
        let st = conn.stats();
        let in_recovery = conn.in_recovery();
        let flight = conn.flight_size();
        let row = [
            conn.cwnd(),
            sat(conn.ssthresh()),
            flight,
            if in_recovery { conn.pipe() } else { flight },
            st.rtx_queue_bytes,
            st.rto.as_nanos(),
            st.srtt.map_or(0, |d| d.as_nanos()),
            in_recovery as u64,
            st.timeouts,
        ];
        self.trace.borrow_mut().state(now, 0, row);
    }
}
