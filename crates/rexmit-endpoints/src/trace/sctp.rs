//! Recording an SCTP sender: each DATA chunk with its destination and why it went, each SACK or
//! NR-SACK with its gap and nr-gap blocks, and per-path state samples on change.
//!
//! Paths are indexed as the association lists them (0 = the primary destination). Why a chunk
//! went again is its retransmission-queue entry's last marking (`Association::rtx_entry`).

use super::{sat, BlockKind, Cause, TraceRef};
use rexmit_sctp::{Association, RtxCause};
use rexmit_time::Time;
use rexmit_wire::sctp::{Chunk, GapBlock};
use rexmit_wire::SctpPacket;
use std::net::Ipv4Addr;

/// An SCTP sender's trace; TSNs relative to the initial TSN (the first DATA chunk is 1).
pub struct SctpTrace {
    pub trace: TraceRef,
    initial_tsn: u32,
}

fn cause(c: RtxCause) -> Cause {
    match c {
        RtxCause::Timeout => Cause::Timeout,
        RtxCause::FastRetransmit => Cause::FastRetransmit,
        RtxCause::ThinFastRetransmit => Cause::ThinFastRetransmit,
        RtxCause::EarlyRetransmit => Cause::EarlyRetransmit,
        RtxCause::EarlyFastRetransmit => Cause::EarlyFastRetransmit,
        RtxCause::Reneged => Cause::Reneged,
        RtxCause::Rack => Cause::Rack,
        RtxCause::Tlp => Cause::Tlp,
    }
}

impl SctpTrace {
    pub fn new(trace: TraceRef, initial_tsn: u32) -> Self {
        SctpTrace { trace, initial_tsn }
    }

    fn rel(&self, tsn: u32) -> u64 {
        tsn.wrapping_sub(self.initial_tsn) as u64 + 1
    }

    fn path(a: &Association, remote: Ipv4Addr) -> usize {
        a.paths()
            .iter()
            .position(|p| p.remote() == remote)
            .unwrap_or(0)
    }

    /// A packet to `dst` was just emitted.
    pub fn on_sent(&self, now: Time, dst: Ipv4Addr, packet: &SctpPacket, a: &Association) {
        let path = Self::path(a, dst);
        let mut tr = self.trace.borrow_mut();
        for c in &packet.chunks {
            if let Chunk::Data(d) = c {
                let why = match a.rtx_entry(d.tsn) {
                    Some(e) if e.tx_count > 1 => cause(e.rtx_cause),
                    _ => Cause::New,
                };
                let tsn = self.rel(d.tsn);
                tr.sent(now, tsn, tsn + 1, why, path);
            }
        }
    }

    /// A packet from `src` arrived; record its SACK or NR-SACK chunks.
    pub fn on_packet(&self, now: Time, src: Ipv4Addr, packet: &SctpPacket, a: &Association) {
        let path = Self::path(a, src);
        for c in &packet.chunks {
            let (cum, rwnd, gaps, nr_gaps): (u32, u32, &[GapBlock], &[GapBlock]) = match c {
                Chunk::Sack(s) => (s.cum_tsn_ack, s.a_rwnd, &s.gap_blocks, &[]),
                Chunk::NrSack(s) => (s.cum_tsn_ack, s.a_rwnd, &s.gap_blocks, &s.nr_gap_blocks),
                _ => continue,
            };
            let cum = self.rel(cum);
            let mut tr = self.trace.borrow_mut();
            tr.ack(now, cum + 1, rwnd as u64, path);
            // RFC 9260 §3.3.4: a block covers cum + start ..= cum + end.
            for (kind, blocks) in [(BlockKind::Gap, gaps), (BlockKind::NrGap, nr_gaps)] {
                for g in blocks {
                    tr.block(now, kind, cum + g.start as u64, cum + g.end as u64 + 1);
                }
            }
        }
    }

    /// Sample every path's state (each written only when it changed).
    pub fn on_state(&self, now: Time, a: &Association) {
        let st = a.stats();
        let rtxq = a.rtx_queue_bytes();
        // Fast recovery: per destination under CMT (its `fr_exit`), else the association's.
        let per_path = a.paths().iter().any(|p| p.fr_exit().is_some());
        let whole = a.in_fast_recovery() && !per_path;
        let mut tr = self.trace.borrow_mut();
        for (i, p) in a.paths().iter().enumerate() {
            let recovery = whole || p.fr_exit().is_some();
            let timeouts = st.paths.get(i).map_or(0, |s| s.timeouts);
            let row = [
                p.cc().cwnd(),
                sat(p.cc().ssthresh()),
                p.flight(),
                p.flight(),
                rtxq,
                p.rtt().rto().as_nanos(),
                p.rtt().srtt().map_or(0, |d| d.as_nanos()),
                recovery as u64,
                timeouts,
            ];
            tr.state(now, i, row);
        }
    }
}
