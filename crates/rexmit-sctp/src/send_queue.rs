//! Unsent user data: messages accepted by `send`, already fragmented, waiting for their first
//! transmission, plus the per-stream SSN counters. Owns: SSN assignment and the bytes of
//! unsent data. Does not own: TSNs (assigned when a chunk is first sent) or the buffer limit,
//! which covers this queue and the retransmission queue together (seed 000 Fig. 1).

use crate::fragment;
use rexmit_wire::{DataChunk, Payload};
use std::collections::VecDeque;

#[derive(Clone, Debug, PartialEq)]
pub struct PendingChunk {
    /// TSN is filled in when the chunk is first transmitted.
    pub chunk: DataChunk,
    pub msg_id: u64,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct SendQueue {
    queue: VecDeque<PendingChunk>,
    bytes: u64,
    next_ssn: Vec<u16>,
    next_msg_id: u64,
}

impl SendQueue {
    pub fn new(streams: u16) -> Self {
        SendQueue {
            queue: VecDeque::new(),
            bytes: 0,
            next_ssn: vec![0; streams as usize],
            next_msg_id: 0,
        }
    }

    pub fn set_streams(&mut self, streams: u16) {
        self.next_ssn.resize(streams as usize, 0);
    }
    pub fn streams(&self) -> u16 {
        self.next_ssn.len() as u16
    }

    pub fn bytes(&self) -> u64 {
        self.bytes
    }
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }
    /// Chunks queued (fragments count one each).
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// Queue a message; returns its message number. DATA chunks carry its low 32 bits as
    /// their PPID so the receiving side can name each delivered message (latency is measured
    /// outside). Capture tools then read low PPIDs as registered protocols (PPID 1 is IUA):
    /// decode them as data (tshark `-d sctp.ppi==1-100000,data`).
    pub fn push(&mut self, stream: u16, msg: &Payload, unordered: bool, max_fragment: u32) -> u64 {
        let id = self.next_msg_id;
        self.next_msg_id += 1;
        let ssn = if unordered {
            0
        } else {
            let s = &mut self.next_ssn[stream as usize];
            let v = *s;
            *s = s.wrapping_add(1);
            v
        };
        let parts = fragment::split(msg, max_fragment);
        let n = parts.len();
        for (i, payload) in parts.into_iter().enumerate() {
            self.bytes += payload.len() as u64;
            self.queue.push_back(PendingChunk {
                chunk: DataChunk {
                    immediate: false,
                    unordered,
                    beginning: i == 0,
                    ending: i + 1 == n,
                    tsn: 0,
                    stream_id: stream,
                    ssn,
                    ppid: id as u32,
                    payload,
                },
                msg_id: id,
            });
        }
        id
    }

    pub fn front(&self) -> Option<&PendingChunk> {
        self.queue.front()
    }

    pub fn pop(&mut self) -> Option<PendingChunk> {
        let c = self.queue.pop_front()?;
        self.bytes -= c.chunk.payload.len() as u64;
        Some(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordered_messages_get_consecutive_ssns_per_stream_and_fragments_share_them() {
        let mut q = SendQueue::new(2);
        q.push(0, &Payload::zeros(10), false, 100);
        q.push(1, &Payload::zeros(250), false, 100);
        q.push(0, &Payload::zeros(10), false, 100);
        q.push(0, &Payload::zeros(10), true, 100);
        assert_eq!(q.bytes(), 280);
        let v: Vec<_> = std::iter::from_fn(|| q.pop())
            .map(|c| {
                (
                    c.chunk.stream_id,
                    c.chunk.ssn,
                    c.chunk.beginning,
                    c.chunk.ending,
                )
            })
            .collect();
        assert_eq!(
            v,
            vec![
                (0, 0, true, true),
                (1, 0, true, false),
                (1, 0, false, false),
                (1, 0, false, true),
                (0, 1, true, true),
                (0, 0, true, true)
            ]
        );
        assert_eq!(q.bytes(), 0);
    }
}
