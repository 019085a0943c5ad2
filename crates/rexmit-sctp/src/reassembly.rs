//! Received but undelivered user data: fragment reassembly (RFC 9260 §6.9) and per-stream
//! ordered delivery by SSN, unordered delivery as soon as a message is complete (§6.6).
//! Owns: the payloads held by the receiver (they count against a_rwnd) and the next expected
//! SSN of each inbound stream. Does not own: acknowledgement state (`receiver_map`).

use rexmit_wire::payload::PayloadJoiner;
use rexmit_wire::{DataChunk, Payload};
use smallvec::SmallVec;
use std::collections::BTreeMap;
use std::ops::RangeInclusive;

/// Messages one arriving chunk makes deliverable (usually none or one).
pub type DeliveredList = SmallVec<[Delivered; 2]>;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delivered {
    pub stream: u16,
    pub ssn: u16,
    pub unordered: bool,
    pub ppid: u32,
    pub payload: Payload,
    /// Unwrapped TSN positions of the fragments (now non-renegable): always consecutive.
    pub positions: RangeInclusive<u64>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reassembly {
    chunks: BTreeMap<u64, DataChunk>,
    bytes: u64,
    next_ssn: Vec<u16>,
    /// Complete ordered messages waiting for earlier SSNs: (stream, ssn) → fragment positions.
    ready: BTreeMap<(u16, u16), RangeInclusive<u64>>,
}

impl Reassembly {
    pub fn new(streams: u16) -> Self {
        Reassembly {
            next_ssn: vec![0; streams as usize],
            ..Default::default()
        }
    }

    pub fn streams(&self) -> u16 {
        self.next_ssn.len() as u16
    }
    /// Bytes held (undelivered), subtracted from the advertised window.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    fn same_message(a: &DataChunk, b: &DataChunk) -> bool {
        a.stream_id == b.stream_id && a.unordered == b.unordered && (a.unordered || a.ssn == b.ssn)
    }

    /// Fragment positions of the complete message containing `pos`, if it is complete.
    fn complete_run(&self, pos: u64) -> Option<RangeInclusive<u64>> {
        let c = self.chunks.get(&pos)?;
        let mut start = pos;
        while !self.chunks.get(&start)?.beginning {
            let prev = self.chunks.get(&(start - 1))?;
            if prev.ending || !Self::same_message(prev, c) {
                return None;
            }
            start -= 1;
        }
        let mut end = pos;
        while !self.chunks.get(&end)?.ending {
            let next = self.chunks.get(&(end + 1))?;
            if next.beginning || !Self::same_message(next, c) {
                return None;
            }
            end += 1;
        }
        Some(start..=end)
    }

    fn take(&mut self, positions: RangeInclusive<u64>) -> Option<Delivered> {
        let mut joined = PayloadJoiner::default();
        let mut head = None;
        for p in positions.clone() {
            let c = self.chunks.remove(&p)?;
            self.bytes -= c.payload.len() as u64;
            head.get_or_insert((c.stream_id, c.ssn, c.unordered, c.ppid));
            joined.push(c.payload);
        }
        let (stream, ssn, unordered, ppid) = head?;
        Some(Delivered {
            stream,
            ssn,
            unordered,
            ppid,
            payload: joined.finish(),
            positions,
        })
    }

    fn whole(pos: u64, c: DataChunk) -> Delivered {
        Delivered {
            stream: c.stream_id,
            ssn: c.ssn,
            unordered: c.unordered,
            ppid: c.ppid,
            payload: c.payload,
            positions: pos..=pos,
        }
    }

    /// Deliver the ordered messages of `stream` that wait for nothing earlier (§6.6).
    fn drain_ready(&mut self, stream: u16, out: &mut DeliveredList) {
        loop {
            let next = self.next_ssn[stream as usize];
            let Some(run) = self.ready.remove(&(stream, next)) else {
                break;
            };
            out.extend(self.take(run));
            self.next_ssn[stream as usize] = next.wrapping_add(1);
        }
    }

    /// Store a newly received chunk at `pos` (stream already validated) and return the
    /// messages that become deliverable.
    pub fn insert(&mut self, pos: u64, chunk: DataChunk) -> DeliveredList {
        let (stream, ssn, unordered) = (chunk.stream_id, chunk.ssn, chunk.unordered);
        let mut out = DeliveredList::new();
        if stream as usize >= self.next_ssn.len() {
            return out;
        }
        // An unfragmented message that waits for nothing is delivered without being stored.
        if chunk.beginning && chunk.ending {
            if unordered {
                out.push(Self::whole(pos, chunk));
                return out;
            }
            if ssn == self.next_ssn[stream as usize] {
                // A complete message stored earlier under the same SSN gives way, as below.
                self.ready.remove(&(stream, ssn));
                out.push(Self::whole(pos, chunk));
                self.next_ssn[stream as usize] = ssn.wrapping_add(1);
                self.drain_ready(stream, &mut out);
                return out;
            }
        }
        self.bytes += chunk.payload.len() as u64;
        self.chunks.insert(pos, chunk);
        let Some(run) = self.complete_run(pos) else {
            return out;
        };
        if unordered {
            out.extend(self.take(run));
            return out;
        }
        self.ready.insert((stream, ssn), run);
        self.drain_ready(stream, &mut out);
        out
    }

    /// Drop the chunk at `pos` (reneging). A complete ordered message it belonged to becomes
    /// incomplete again and completes when the chunk is retransmitted.
    pub fn renege(&mut self, pos: u64) -> bool {
        let Some(c) = self.chunks.remove(&pos) else {
            return false;
        };
        self.bytes -= c.payload.len() as u64;
        if !c.unordered {
            self.ready.remove(&(c.stream_id, c.ssn));
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frag(stream: u16, ssn: u16, unordered: bool, b: bool, e: bool, len: u32) -> DataChunk {
        DataChunk {
            immediate: false,
            unordered,
            beginning: b,
            ending: e,
            tsn: 0,
            stream_id: stream,
            ssn,
            ppid: 7,
            payload: Payload::zeros(len),
        }
    }

    #[test]
    fn ordered_waits_for_earlier_ssn_unordered_does_not() {
        let mut r = Reassembly::new(2);
        assert!(r.insert(2, frag(0, 1, false, true, true, 10)).is_empty());
        let d = r.insert(3, frag(0, 0, true, true, true, 5));
        assert_eq!(d.len(), 1);
        assert!(d[0].unordered);
        assert_eq!(r.bytes(), 10);
        let d = r.insert(1, frag(0, 0, false, true, true, 20));
        assert_eq!(d.iter().map(|m| m.ssn).collect::<Vec<_>>(), vec![0, 1]);
        assert_eq!(r.bytes(), 0);
    }

    #[test]
    fn fragments_reassemble_in_any_arrival_order() {
        let mut r = Reassembly::new(1);
        assert!(r.insert(12, frag(0, 0, false, false, true, 3)).is_empty());
        assert!(r.insert(10, frag(0, 0, false, true, false, 4)).is_empty());
        let d = r.insert(11, frag(0, 0, false, false, false, 4));
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].payload.len(), 11);
        assert_eq!(d[0].positions, 10..=12);
    }

    #[test]
    fn reneged_fragment_breaks_a_ready_message_until_it_returns() {
        let mut r = Reassembly::new(1);
        r.insert(5, frag(0, 1, false, true, false, 4));
        r.insert(6, frag(0, 1, false, false, true, 4));
        assert!(r.renege(6));
        assert_eq!(r.bytes(), 4);
        assert!(r.insert(4, frag(0, 0, false, true, true, 1)).len() == 1);
        let d = r.insert(6, frag(0, 1, false, false, true, 4));
        assert_eq!(d.len(), 1);
    }
}
