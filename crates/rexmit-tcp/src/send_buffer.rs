//! The send buffer: data the application wrote that is not yet cumulatively acknowledged
//! (unsent data plus the retransmission queue), bounded by a byte limit.
//!
//! Owns the bytes (or just their count, for synthetic data). Does not own per-segment
//! transmission state; that is `sack_scoreboard::Scoreboard`.

use rexmit_wire::Payload;
use std::collections::VecDeque;

#[derive(Clone, Debug)]
// `repr(C)`, `start` and `len` last: every poll reads them, and the connection's per-segment
// fields follow the send buffer (issue 40 step 6).
#[repr(C)]
pub struct SendBuffer {
    /// Real bytes, once the application wrote any; synthetic data is then stored as zeros.
    bytes: Option<VecDeque<u8>>,
    limit: u64,
    /// Stream offset of the first byte held.
    start: u64,
    len: u64,
}

impl SendBuffer {
    pub fn new(start: u64, limit: usize) -> Self {
        SendBuffer {
            start,
            len: 0,
            bytes: None,
            limit: limit as u64,
        }
    }
    pub fn start(&self) -> u64 {
        self.start
    }
    /// Stream offset just after the last byte written.
    pub fn end(&self) -> u64 {
        self.start + self.len
    }
    pub fn len(&self) -> u64 {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub fn free(&self) -> u64 {
        self.limit.saturating_sub(self.len)
    }

    /// Append `len` synthetic bytes; returns how many fit.
    pub fn push_synthetic(&mut self, len: usize) -> usize {
        let n = (len as u64).min(self.free());
        if let Some(b) = &mut self.bytes {
            b.resize(b.len() + n as usize, 0);
        }
        self.len += n;
        n as usize
    }

    /// Append real bytes; returns how many fit.
    pub fn push_bytes(&mut self, data: &[u8]) -> usize {
        let n = (data.len() as u64).min(self.free()) as usize;
        let len = self.len as usize;
        let b = self
            .bytes
            .get_or_insert_with(|| VecDeque::from(vec![0; len]));
        b.extend(&data[..n]);
        self.len += n as u64;
        n
    }

    /// The payload for stream offsets `[from, from + len)`, which must be held.
    pub fn payload(&self, from: u64, len: usize) -> Payload {
        debug_assert!(from >= self.start && from + len as u64 <= self.end());
        match &self.bytes {
            None => Payload::zeros(len as u32),
            Some(b) => {
                let off = (from - self.start) as usize;
                let v: Vec<u8> = b.range(off..off + len).copied().collect();
                Payload::from_bytes(&v)
            }
        }
    }

    /// Drop bytes before `to` (cumulatively acknowledged).
    pub fn release_to(&mut self, to: u64) {
        if to <= self.start {
            return;
        }
        let n = (to - self.start).min(self.len);
        if let Some(b) = &mut self.bytes {
            b.drain(..n as usize);
        }
        self.start += n;
        self.len -= n;
    }
}

/// Offsets of the fields the connection's layout test follows (`connection::hot_block`).
#[cfg(test)]
pub(crate) fn field_offsets() -> Vec<(&'static str, usize)> {
    field_offsets!(SendBuffer; bytes, limit, start, len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limit_bounds_accepted_bytes_and_release_frees_space() {
        let mut sb = SendBuffer::new(1, 10);
        assert_eq!(sb.push_synthetic(7), 7);
        assert_eq!(sb.push_bytes(&[1, 2, 3, 4, 5]), 3);
        assert_eq!(sb.free(), 0);
        assert_eq!(sb.payload(6, 5).to_vec(), vec![0, 0, 1, 2, 3]);
        sb.release_to(8);
        assert_eq!((sb.start(), sb.len(), sb.free()), (8, 3, 7));
        assert_eq!(sb.payload(8, 3).to_vec(), vec![1, 2, 3]);
    }
}
