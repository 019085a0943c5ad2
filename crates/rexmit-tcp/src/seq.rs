//! 32-bit TCP sequence numbers and their mapping to 64-bit stream offsets.
//!
//! On the wire, sequence numbers are 32 bits and wrap (RFC 9293 §3.4: all arithmetic is modulo
//! 2^32). Inside the core every position is a `u64` offset from the initial sequence number
//! (offset 0 is the SYN, the first data byte is offset 1), which never wraps during a simulation.
//! This module owns the two conversions; nothing else in the crate compares wire numbers.

/// Maps between wire sequence numbers and stream offsets for one direction of a connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeqSpace {
    /// Initial sequence number of this direction (the SYN's sequence number).
    pub isn: u32,
}

impl SeqSpace {
    pub fn new(isn: u32) -> Self {
        SeqSpace { isn }
    }

    /// Wire sequence number of stream offset `off` (wraps modulo 2^32).
    pub fn wire(self, off: u64) -> u32 {
        self.isn.wrapping_add(off as u32)
    }

    /// Offset of wire number `w`, taking the representative nearest to `reference` (RFC 9293
    /// §3.4 comparisons are only meaningful within 2^31 of each other). Returns `None` when the
    /// nearest representative would lie before the start of the stream.
    pub fn unwrap(self, w: u32, reference: u64) -> Option<u64> {
        let delta = w.wrapping_sub(self.wire(reference)) as i32 as i64;
        let off = reference as i64 + delta;
        if off < 0 {
            None
        } else {
            Some(off as u64)
        }
    }
}

/// RFC 9293 §3.4 modular "less than" on wire numbers, for callers that only hold wire values.
pub fn seq_lt(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) < 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_around_maps_both_ways() {
        let s = SeqSpace::new(u32::MAX - 10);
        assert_eq!(s.wire(0), u32::MAX - 10);
        assert_eq!(s.wire(11), 0);
        assert_eq!(s.wire(20), 9);
        assert_eq!(s.unwrap(9, 5), Some(20));
        assert_eq!(s.unwrap(u32::MAX - 10, 3), Some(0));
        // Several wraps later the nearest representative is still found.
        let far = 5u64 << 32;
        assert_eq!(s.unwrap(s.wire(far + 7), far), Some(far + 7));
        assert_eq!(s.unwrap(s.wire(far - 7), far), Some(far - 7));
    }

    #[test]
    fn before_stream_start_is_none() {
        let s = SeqSpace::new(1000);
        assert_eq!(s.unwrap(990, 0), None);
        assert!(seq_lt(u32::MAX, 0));
        assert!(!seq_lt(0, u32::MAX));
    }
}
