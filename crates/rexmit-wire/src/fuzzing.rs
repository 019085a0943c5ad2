//! Fuzzing harnesses for the decoders, shared by the cargo-fuzz targets in `fuzz/` and by the
//! corpus replay that runs under plain `cargo test` (`tests/fuzz_corpus.rs`). Not a stable API.
//!
//! Each harness takes arbitrary bytes and panics only on a real bug: a decoder panic, or a
//! packet that decodes but does not survive encode → decode unchanged. Random bytes almost
//! never carry a valid checksum, so each harness also decodes a copy with the checksum fixed,
//! which lets the fuzzer reach the parsers behind it.
//!
//! `Cursor` turns fuzz bytes into the operations of the protocol-core harnesses in
//! `rexmit_tcp::fuzzing` and `rexmit_sctp::fuzzing`.

use crate::checksum::{crc32c, internet_checksum, pseudo_header_sum};
use crate::ipv4::{IpPacket, PROTO_SCTP, PROTO_TCP, PROTO_UDP};
use crate::sctp::SctpPacket;
use crate::tcp::{TcpOptions, TcpSegment};
use std::net::Ipv4Addr;

/// Reads fuzz input as a stream of small integers; past the end every read is zero, so any
/// input is a complete program.
#[derive(Clone, Debug)]
pub struct Cursor<'a> {
    bytes: &'a [u8],
}

impl<'a> Cursor<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Cursor { bytes }
    }
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }
    pub fn u8(&mut self) -> u8 {
        match self.bytes.split_first() {
            Some((&b, rest)) => {
                self.bytes = rest;
                b
            }
            None => 0,
        }
    }
    pub fn u16(&mut self) -> u16 {
        u16::from_be_bytes([self.u8(), self.u8()])
    }
    pub fn u32(&mut self) -> u32 {
        u32::from_be_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }
    pub fn bool(&mut self) -> bool {
        self.u8() & 1 != 0
    }
    /// Up to `n` bytes (fewer at the end of the input).
    pub fn bytes(&mut self, n: usize) -> &'a [u8] {
        let (head, tail) = self.bytes.split_at(n.min(self.bytes.len()));
        self.bytes = tail;
        head
    }
    /// A step to add (wrapping) to a real 32-bit number: mostly within ±16 Ki, sometimes any.
    pub fn step32(&mut self) -> u32 {
        let d = self.u16();
        if d & 1 == 0 {
            (i32::from(d as i16) >> 1) as u32
        } else {
            self.u32()
        }
    }
    /// Run `op` once per operation until the input ends or `max` operations have run (so
    /// every input finishes in bounded time).
    pub fn run_ops(&mut self, max: usize, mut op: impl FnMut(&mut Self)) {
        for _ in 0..max {
            if self.is_empty() {
                break;
            }
            op(self);
        }
    }
    /// What the network does to the packets queued on one direction: hand over the first,
    /// drop it, hand over another one (reordering), or hand over a copy of the first
    /// (duplication). Returns the packet to deliver, if any.
    pub fn network<T: Clone>(&mut self, wire: &mut std::collections::VecDeque<T>) -> Option<T> {
        let (how, k) = (self.u8(), usize::from(self.u8()));
        match how % 4 {
            0 => wire.pop_front(),
            1 => {
                wire.pop_front();
                None
            }
            2 if !wire.is_empty() => wire.remove(k % wire.len()),
            _ => wire.front().cloned(),
        }
    }
    /// A length-prefixed byte string of at most `max` bytes.
    pub fn blob(&mut self, max: usize) -> &'a [u8] {
        let n = usize::from(self.u16()) % (max + 1);
        self.bytes(n)
    }
}

const SRC: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 1);
const DST: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 2);

/// Write a correct TCP or UDP checksum into `segment`, whose checksum field is at `at`.
fn fix_pseudo_header_checksum(
    (src, dst): (Ipv4Addr, Ipv4Addr),
    segment: &mut [u8],
    protocol: u8,
    at: usize,
) {
    if segment.len() < at + 2 || segment.len() > usize::from(u16::MAX) {
        return;
    }
    segment[at..at + 2].fill(0);
    let mut sum = pseudo_header_sum(src, dst, protocol, segment.len() as u16);
    sum.add(segment);
    let ck = sum.finish();
    segment[at..at + 2].copy_from_slice(&ck.to_be_bytes());
}

/// Write a correct CRC32c into an SCTP packet.
fn fix_crc32c(packet: &mut [u8]) {
    if packet.len() < 12 {
        return;
    }
    packet[8..12].fill(0);
    let crc = crc32c(packet);
    packet[8..12].copy_from_slice(&crc.to_le_bytes());
}

/// IPv4 (RFC 791) with its whole transport: header checksum, total length and transport
/// checksum fixed so that every protocol's decoder is reached.
fn fix_ip_packet(bytes: &mut [u8]) {
    if bytes.len() < 20 {
        return;
    }
    bytes[0] = 0x40 | (bytes[0] & 0x0f).max(5);
    let header_len = usize::from(bytes[0] & 0x0f) * 4;
    if header_len > bytes.len() {
        return;
    }
    let total = bytes.len().min(usize::from(u16::MAX));
    bytes[2..4].copy_from_slice(&(total as u16).to_be_bytes());
    bytes[6] &= 0x40; // no fragments
    bytes[7] = 0;
    let addr = |at: usize| Ipv4Addr::new(bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]);
    let addrs = (addr(12), addr(16));
    bytes[10..12].fill(0);
    let ck = internet_checksum(&bytes[..header_len]);
    bytes[10..12].copy_from_slice(&ck.to_be_bytes());
    let protocol = bytes[9];
    let body = &mut bytes[header_len..total];
    match protocol {
        PROTO_TCP => fix_pseudo_header_checksum(addrs, body, PROTO_TCP, 16),
        PROTO_UDP => {
            if body.len() >= 8 {
                let len = body.len().min(usize::from(u16::MAX)) as u16;
                body[4..6].copy_from_slice(&len.to_be_bytes());
            }
            fix_pseudo_header_checksum(addrs, body, PROTO_UDP, 6)
        }
        PROTO_SCTP => fix_crc32c(body),
        _ => {}
    }
}

/// `IpPacket::decode` on raw bytes and on the same bytes with lengths and checksums fixed.
pub fn ip_packet(data: &[u8]) {
    let _ = IpPacket::decode(data);
    let mut fixed = data.to_vec();
    if let Some(p) = data.last() {
        // Let the last byte pick the protocol, so all three are reached evenly.
        if fixed.len() >= 20 {
            fixed[9] = [PROTO_TCP, PROTO_UDP, PROTO_SCTP][usize::from(*p) % 3];
        }
    }
    fix_ip_packet(&mut fixed);
    if let Ok(p) = IpPacket::decode(&fixed) {
        round_trip(&p, IpPacket::to_bytes, IpPacket::decode);
    }
}

/// `TcpSegment::decode` (fixed header and every option) and `TcpOptions::decode` alone.
pub fn tcp_segment(data: &[u8]) {
    let _ = TcpOptions::decode(data);
    let _ = TcpSegment::decode(data, SRC, DST);
    let mut fixed = data.to_vec();
    fix_pseudo_header_checksum((SRC, DST), &mut fixed, PROTO_TCP, 16);
    if let Ok(s) = TcpSegment::decode(&fixed, SRC, DST) {
        let encode = |s: &TcpSegment| {
            let mut v = Vec::new();
            s.encode(SRC, DST, &mut v).map(|()| v)
        };
        round_trip(&s, encode, |b| TcpSegment::decode(b, SRC, DST));
    }
}

/// `SctpPacket::decode`, which decodes every chunk and INIT parameter.
pub fn sctp_packet(data: &[u8]) {
    let _ = SctpPacket::decode(data);
    let mut fixed = data.to_vec();
    fix_crc32c(&mut fixed);
    if let Ok(p) = SctpPacket::decode(&fixed) {
        let encode = |p: &SctpPacket| {
            let mut v = Vec::new();
            p.encode(&mut v).map(|()| v)
        };
        round_trip(&p, encode, SctpPacket::decode);
    }
}

/// A decoded value that can be encoded again must decode to itself. (Encoding may refuse a
/// decoded value, e.g. TCP options that only fit because the sender laid them out tighter.)
fn round_trip<T, E>(
    value: &T,
    encode: impl Fn(&T) -> Result<Vec<u8>, E>,
    decode: impl Fn(&[u8]) -> Result<T, crate::WireError>,
) where
    T: PartialEq + std::fmt::Debug,
{
    let Ok(bytes) = encode(value) else {
        return;
    };
    match decode(&bytes) {
        Ok(again) => assert_eq!(&again, value, "decode(encode(x)) != x"),
        Err(e) => panic!("re-encoded value does not decode: {e}\n{value:?}"),
    }
}

/// Put a packet built by a protocol core through the wire and back: what a core hands out must
/// encode, and decode to itself. Returns the decoded packet (a core must cope with exactly what
/// the wire can carry).
pub fn through_the_wire_tcp(seg: &TcpSegment) -> TcpSegment {
    let mut v = Vec::new();
    seg.encode(SRC, DST, &mut v)
        .unwrap_or_else(|e| panic!("a core built a segment that does not encode: {e}"));
    let back = TcpSegment::decode(&v, SRC, DST).expect("encoded segment decodes");
    assert_eq!(&back, seg);
    back
}

/// A forged segment as the wire would carry it, or `None` if it cannot be encoded (e.g. more
/// options than fit in 40 bytes).
pub fn encodable_tcp(seg: &TcpSegment) -> Option<TcpSegment> {
    let mut v = Vec::new();
    seg.encode(SRC, DST, &mut v).ok()?;
    TcpSegment::decode(&v, SRC, DST).ok()
}

/// A forged packet as the wire would carry it, or `None` if it cannot be encoded.
pub fn encodable_sctp(p: &SctpPacket) -> Option<SctpPacket> {
    let mut v = Vec::new();
    p.encode(&mut v).ok()?;
    SctpPacket::decode(&v).ok()
}

/// Like `through_the_wire_tcp`, for SCTP.
pub fn through_the_wire_sctp(p: &SctpPacket) -> SctpPacket {
    let mut v = Vec::new();
    p.encode(&mut v)
        .unwrap_or_else(|e| panic!("a core built a packet that does not encode: {e}"));
    let back = SctpPacket::decode(&v).expect("encoded packet decodes");
    assert_eq!(&back, p);
    back
}

/// Decode fuzz bytes as a TCP segment after fixing its checksum (for injecting arbitrary
/// decodable segments into a core).
pub fn decodable_tcp(bytes: &[u8]) -> Option<TcpSegment> {
    let mut fixed = bytes.to_vec();
    fix_pseudo_header_checksum((SRC, DST), &mut fixed, PROTO_TCP, 16);
    TcpSegment::decode(&fixed, SRC, DST).ok()
}

/// Decode fuzz bytes as an SCTP packet after fixing its CRC32c.
pub fn decodable_sctp(bytes: &[u8]) -> Option<SctpPacket> {
    let mut fixed = bytes.to_vec();
    fix_crc32c(&mut fixed);
    SctpPacket::decode(&fixed).ok()
}

/// Feed every file of a committed corpus directory, in name order, to `harness`; returns how
/// many files ran. The corpus lives in `fuzz/corpus/<target>/` at the repository root.
pub fn replay_corpus(manifest_dir: &str, target: &str, harness: impl Fn(&[u8])) -> usize {
    let dir = std::path::Path::new(manifest_dir)
        .join("../../fuzz/corpus")
        .join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("corpus {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    for f in &files {
        let bytes = std::fs::read(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| harness(&bytes)));
        if let Err(e) = run {
            eprintln!("corpus input {} failed", f.display());
            std::panic::resume_unwind(e);
        }
    }
    files.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursor_reads_zeros_past_the_end() {
        let mut c = Cursor::new(&[1, 2, 3]);
        assert_eq!(c.u16(), 0x0102);
        assert_eq!(c.u32(), 0x0300_0000);
        assert!(c.is_empty());
        assert_eq!(c.blob(10), &[] as &[u8]);
    }

    #[test]
    fn harnesses_reach_the_transport_decoders() {
        for (_, p) in crate::samples::sample_packets() {
            let b = p.to_bytes().unwrap();
            ip_packet(&b);
            let mut fixed = b.clone();
            fix_ip_packet(&mut fixed);
            assert_eq!(IpPacket::decode(&fixed).unwrap(), p);
        }
    }
}
