//! ECN for SCTP (RFC 9260 Appendix A, which follows RFC 3168 §6.1 with chunks instead of TCP
//! header bits):
//! - negotiation: each end lists ECN Capable in its INIT / INIT ACK (`cfg.ecn`); both did,
//!   and the association is ECN-capable;
//! - the sender marks packets carrying new DATA ECT(0); retransmissions and packets without
//!   DATA go Not-ECT (RFC 3168 §6.1.5, §6.1.4);
//! - the receiver of a CE-marked packet carrying DATA puts an ECNE chunk with the lowest TSN of
//!   that packet in front of every SACK it sends until a CWR chunk for that TSN or a later one
//!   arrives;
//! - the sender answers an ECNE with a CWR chunk in its next packet and reduces the cwnd of
//!   the destination the echoed TSN went to as for a fast retransmit (RFC 9260 §7.2.3), at
//!   most once per window of data: an echo for a TSN it had already sent when it last reduced
//!   for an echo there changes nothing, nor does one during that destination's fast recovery;
//!   a SACK in the packet of an ECNE grows no window (RFC 3168 §6.1.2).

use super::{Association, Outgoing};
use crate::tsn::tsn_lt;
use rexmit_time::Time;
use rexmit_wire::sctp::pad4;
use rexmit_wire::{Chunk, DataChunk, Ecn};

/// Bytes of an ECNE or CWR chunk (RFC 9260 Appendix A: header and one TSN).
const ECN_CHUNK_LEN: usize = 8;

#[derive(Clone, Debug, Default)]
#[cfg_attr(any(test, feature = "fuzzing"), derive(PartialEq))]
pub(super) struct EcnState {
    negotiated: bool,
    /// Receiver: the lowest TSN of a CE-marked packet that no CWR has answered yet.
    echo: Option<u32>,
    /// Sender: the ECNE's TSN to answer with a CWR in the next packet.
    cwr: Option<u32>,
    /// Sender: the packet being processed carried an ECNE (its SACK grows no window).
    echo_heard: bool,
    /// Sender, per destination: the highest TSN sent when its window was last reduced for an
    /// echo (RFC 3168 §6.1.2: at most one reduction per window of data).
    reduced_through: Vec<Option<u32>>,
}

impl EcnState {
    pub(super) fn negotiated(&self) -> bool {
        self.negotiated
    }

    pub(super) fn echo_heard(&self) -> bool {
        self.echo_heard
    }

    /// A new packet arrives: whether it echoes congestion is its own.
    pub(super) fn new_packet(&mut self) {
        self.echo_heard = false;
    }
}

impl Association {
    /// The handshake's outcome: both ends offered ECN.
    pub(super) fn set_ecn(&mut self, negotiated: bool) {
        self.ecn.negotiated = negotiated;
        self.stats.ecn_negotiated = negotiated;
    }

    /// A packet carrying `data` arrived with IP ECN codepoint `ecn`.
    pub(super) fn ecn_on_data_packet(&mut self, ecn: Ecn, data: &[&DataChunk]) {
        if !self.ecn.negotiated || ecn != Ecn::Ce {
            return;
        }
        let Some(lowest) = data
            .iter()
            .map(|d| d.tsn)
            .reduce(|a, b| if tsn_lt(b, a) { b } else { a })
        else {
            return;
        };
        self.stats.ecn_ce_received += 1;
        // One echo at a time: a later mark before the CWR is the same congestion signal
        // (RFC 3168 §6.1.3 keeps ECE set until CWR, whatever arrives meanwhile).
        self.ecn.echo.get_or_insert(lowest);
    }

    /// An ECNE chunk for `tsn` arrived (RFC 9260 Appendix A).
    pub(super) fn on_ecne(&mut self, now: Time, tsn: u32) {
        if !self.ecn.negotiated {
            return;
        }
        self.stats.ecn_ece_received += 1;
        self.ecn.echo_heard = true;
        // The CWR answers the newest echo heard.
        self.ecn.cwr = Some(match self.ecn.cwr {
            Some(c) if tsn_lt(tsn, c) => c,
            _ => tsn,
        });
        // The destination the echoed TSN went to; an echo repeated after its TSN was
        // acknowledged finds none and reduces nothing (it belongs to a window reduced for).
        let Some(p) = self.tx.rtxq().get(tsn).map(|e| e.path) else {
            return;
        };
        if self.ecn.reduced_through.len() <= p {
            self.ecn.reduced_through.resize(p + 1, None);
        }
        let same_window = self.ecn.reduced_through[p].is_some_and(|t| !tsn_lt(t, tsn));
        if same_window || self.in_fr(p) {
            return;
        }
        self.paths[p].cc_mut().on_ecn_echo(now);
        self.stats.ecn_reductions += 1;
        let highest_sent = self.tx.next_tsn().wrapping_sub(1);
        self.ecn.reduced_through[p] = Some(highest_sent);
    }

    /// A CWR chunk for `tsn` arrived: the echo it answers (or an older one) stops.
    pub(super) fn on_cwr(&mut self, tsn: u32) {
        if self.ecn.echo.is_some_and(|e| !tsn_lt(tsn, e)) {
            self.ecn.echo = None;
        }
    }

    /// The ECN chunks of an outgoing packet `o`: the CWR waiting to go first, and an ECNE in
    /// front of a SACK or NR-SACK while an echo is pending. Only on packets of an established
    /// association (`vtag` the peer's), never on the handshake's. A chunk that would not fit
    /// the path MTU (a full DATA chunk fills it) goes in a packet of its own, next.
    pub(super) fn add_ecn_chunks(&mut self, o: &mut Outgoing) {
        if !self.ecn.negotiated {
            return;
        }
        let budget = self.packet_budget();
        let mut used: usize = o.chunks.iter().map(|c| pad4(c.length())).sum();
        let mut alone = Vec::new();
        if let Some(e) = self.ecn.echo {
            if let Some(i) = o
                .chunks
                .iter()
                .position(|c| matches!(c, Chunk::Sack(_) | Chunk::NrSack(_)))
            {
                let c = Chunk::Ecne { lowest_tsn: e };
                if used + ECN_CHUNK_LEN <= budget {
                    used += ECN_CHUNK_LEN;
                    o.chunks.insert(i, c);
                } else {
                    alone.push(c);
                }
            }
        }
        if let Some(t) = self.ecn.cwr.take() {
            let c = Chunk::Cwr { lowest_tsn: t };
            if used + ECN_CHUNK_LEN <= budget {
                o.chunks.insert(0, c);
            } else {
                alone.push(c);
            }
            self.stats.ecn_cwr_sent += 1;
        }
        if !alone.is_empty() {
            self.ctrl.push_front(Outgoing {
                src: o.src,
                dst: o.dst,
                vtag: o.vtag,
                chunks: alone,
            });
        }
    }
}
