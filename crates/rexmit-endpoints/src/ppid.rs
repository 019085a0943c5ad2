//! Message identity off the wire. The SCTP core numbers the messages of an association in their
//! DATA chunks' Payload Protocol Identifier, and the message log uses that number to match a
//! delivered message with its send time. On the wire a counter is wrong: Wireshark decodes
//! PPID 1, 2, 3 ... as IUA, M2UA, M3UA ... and marks the payloads malformed. So the sending
//! adapter replaces every DATA chunk's PPID by `WIRE_PPID` (0, "unspecified": plain data,
//! RFC 9260 §3.3.1) and keeps the number here, by TSN; the receiving adapter of the same
//! association puts it back before its core sees the chunk. Simulator-side only, like the
//! rest of `SharedTruth`: neither core reads the other's state through it.

use rexmit_wire::{Chunk, SctpPacket};
use std::collections::VecDeque;

/// The PPID every simulated DATA chunk carries on the wire.
pub const WIRE_PPID: u32 = 0;

/// The core's PPID of each TSN from the oldest the receiver may still need on.
#[derive(Default, Debug)]
pub struct PpidByTsn {
    /// TSN of `ppids[0]`.
    base: Option<u32>,
    ppids: VecDeque<u32>,
}

impl PpidByTsn {
    /// The sender puts `packet` on the wire: remember and replace its DATA chunks' PPIDs.
    pub fn strip(&mut self, packet: &mut SctpPacket) {
        for c in &mut packet.chunks {
            if let Chunk::Data(d) = c {
                let base = *self.base.get_or_insert(d.tsn);
                // TSNs are assigned consecutively; a retransmission finds its entry in place,
                // one below the window (already cumulatively acknowledged) is not needed.
                let idx = d.tsn.wrapping_sub(base) as usize;
                if idx < 1 << 31 {
                    if idx >= self.ppids.len() {
                        self.ppids.resize(idx + 1, WIRE_PPID);
                    }
                    self.ppids[idx] = d.ppid;
                }
                d.ppid = WIRE_PPID;
            }
        }
    }

    /// The receiver got `packet`: give its DATA chunks their PPIDs back.
    pub fn restore(&self, packet: &mut SctpPacket) {
        let Some(base) = self.base else { return };
        for c in &mut packet.chunks {
            if let Chunk::Data(d) = c {
                if let Some(p) = self.ppids.get(d.tsn.wrapping_sub(base) as usize) {
                    d.ppid = *p;
                }
            }
        }
    }

    /// Forget the TSNs up to `cum_tsn` (the receiver's cumulative TSN): a copy arriving later
    /// is a duplicate the receiver discards without reading its PPID.
    pub fn forget_through(&mut self, cum_tsn: u32) {
        let Some(base) = self.base.as_mut() else {
            return;
        };
        while !self.ppids.is_empty() && (cum_tsn.wrapping_sub(*base) as i32) >= 0 {
            self.ppids.pop_front();
            *base = base.wrapping_add(1);
        }
    }

    /// Entries kept (for tests of the pruning).
    pub fn len(&self) -> usize {
        self.ppids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ppids.is_empty()
    }
}
