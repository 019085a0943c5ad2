//! Checksums: the Internet checksum (RFC 1071) used by IPv4, UDP and TCP, and CRC32c
//! (RFC 9260 Appendix B) used by SCTP.

use std::net::Ipv4Addr;

/// Running ones'-complement sum of 16-bit big-endian words (RFC 1071 §4.1). Feed it byte
/// slices; an odd trailing byte is carried to the next slice so the pieces may split anywhere.
#[derive(Clone, Copy, Default)]
pub(crate) struct InternetSum {
    sum: u64,
    odd: Option<u8>,
}

impl InternetSum {
    pub(crate) fn add(&mut self, mut bytes: &[u8]) {
        if let (Some(hi), Some((&lo, rest))) = (self.odd, bytes.split_first()) {
            self.sum += u64::from(u16::from_be_bytes([hi, lo]));
            self.odd = None;
            bytes = rest;
        }
        let mut words = bytes.chunks_exact(2);
        for w in &mut words {
            self.sum += u64::from(u16::from_be_bytes([w[0], w[1]]));
        }
        if let [last] = words.remainder() {
            self.odd = Some(*last);
        }
    }
    /// The checksum field value: the complement of the folded sum (an odd final byte is padded
    /// with zero, RFC 1071 §4.1).
    pub(crate) fn finish(self) -> u16 {
        let mut s = self.sum;
        if let Some(hi) = self.odd {
            s += u64::from(hi) << 8;
        }
        while s > 0xffff {
            s = (s & 0xffff) + (s >> 16);
        }
        !(s as u16)
    }
}

/// Internet checksum of one byte string.
pub fn internet_checksum(bytes: &[u8]) -> u16 {
    let mut s = InternetSum::default();
    s.add(bytes);
    s.finish()
}

/// Start a UDP/TCP checksum with the IPv4 pseudo-header (RFC 768; RFC 9293 §3.1).
pub(crate) fn pseudo_header_sum(
    src: Ipv4Addr,
    dst: Ipv4Addr,
    protocol: u8,
    len: u16,
) -> InternetSum {
    let mut s = InternetSum::default();
    s.add(&src.octets());
    s.add(&dst.octets());
    s.add(&[0, protocol]);
    s.add(&len.to_be_bytes());
    s
}

/// Verify a UDP or TCP checksum: the whole `segment` (checksum field included, at byte
/// `checksum_at`) plus the pseudo-header must sum to zero (RFC 1071 §1). On mismatch returns the
/// checksum that should have been sent, for the error message.
pub(crate) fn verify_pseudo_header_checksum(
    src: Ipv4Addr,
    dst: Ipv4Addr,
    protocol: u8,
    segment: &[u8],
    checksum_at: usize,
) -> Result<(), u16> {
    let len = u16::try_from(segment.len()).unwrap_or(u16::MAX);
    let mut sum = pseudo_header_sum(src, dst, protocol, len);
    sum.add(segment);
    if sum.finish() == 0 {
        return Ok(());
    }
    let mut zeroed = pseudo_header_sum(src, dst, protocol, len);
    zeroed.add(segment.get(..checksum_at).unwrap_or_default());
    zeroed.add(segment.get(checksum_at + 2..).unwrap_or_default());
    Err(zeroed.finish())
}

/// CRC32c (Castagnoli, reflected polynomial 0x82F63B78) lookup tables for slicing by 8, built at
/// compile time: `T[0]` is the byte-at-a-time table; `T[k][b]` is the CRC of byte `b` followed by
/// `k` zero bytes, so eight bytes are folded in with eight independent lookups (Kounavis and
/// Berry's "slicing-by-8"), the same value the byte loop gives.
const CRC32C_TABLES: [[u32; 256]; 8] = {
    let mut t = [[0u32; 256]; 8];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 {
                (c >> 1) ^ 0x82F6_3B78
            } else {
                c >> 1
            };
            k += 1;
        }
        t[0][i] = c;
        i += 1;
    }
    let mut k = 1;
    while k < 8 {
        let mut i = 0;
        while i < 256 {
            let prev = t[k - 1][i];
            t[k][i] = (prev >> 8) ^ t[0][(prev & 0xff) as usize];
            i += 1;
        }
        k += 1;
    }
    t
};

/// A CRC32c computed over pieces (`update` as often as needed, then `finish`): the same value as
/// `crc32c` of the pieces joined.
#[derive(Clone, Copy)]
pub(crate) struct Crc32c(u32);

impl Crc32c {
    pub(crate) fn new() -> Self {
        Crc32c(!0)
    }

    pub(crate) fn update(&mut self, bytes: &[u8]) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("sse4.2") {
            // SAFETY: `update_sse42` needs only the SSE4.2 instructions, which the processor
            // running this line has just been found to support.
            self.0 = unsafe { update_sse42(self.0, bytes) };
            return;
        }
        self.0 = update_sliced(self.0, bytes);
    }

    pub(crate) fn finish(self) -> u32 {
        !self.0
    }
}

/// Fold `bytes` into the running (not yet complemented) CRC `crc`, eight bytes a step.
fn update_sliced(mut crc: u32, bytes: &[u8]) -> u32 {
    let t = &CRC32C_TABLES;
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        let lo = crc ^ u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
        crc = t[7][(lo & 0xff) as usize]
            ^ t[6][((lo >> 8) & 0xff) as usize]
            ^ t[5][((lo >> 16) & 0xff) as usize]
            ^ t[4][(lo >> 24) as usize]
            ^ t[3][w[4] as usize]
            ^ t[2][w[5] as usize]
            ^ t[1][w[6] as usize]
            ^ t[0][w[7] as usize];
    }
    for &b in words.remainder() {
        crc = t[0][((crc ^ u32::from(b)) & 0xff) as usize] ^ (crc >> 8);
    }
    crc
}

/// `update_sliced` by the processor's CRC32 instruction, which computes exactly this CRC
/// (Castagnoli's polynomial, reflected; Intel SSE4.2 `crc32`), eight bytes at a time.
///
/// # Safety
/// Only on a processor with SSE4.2 (an `unsafe fn` rather than a safe `#[target_feature]` one,
/// which needs Rust 1.86: the workspace builds with 1.80).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse4.2")]
unsafe fn update_sse42(crc: u32, bytes: &[u8]) -> u32 {
    use std::arch::x86_64::{_mm_crc32_u64, _mm_crc32_u8};
    let mut c = u64::from(crc);
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        let v = u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
        c = _mm_crc32_u64(c, v);
    }
    let mut crc = c as u32;
    for &b in words.remainder() {
        crc = _mm_crc32_u8(crc, b);
    }
    crc
}

/// CRC32c of `bytes` as RFC 3720 §B.4 states it (initial value all ones, final complement).
/// SCTP stores this value least-significant byte first in the checksum field
/// (RFC 9260 Appendix B: the reflected CRC's first byte on the wire is its low byte).
pub fn crc32c(bytes: &[u8]) -> u32 {
    let mut c = Crc32c::new();
    c.update(bytes);
    c.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    // RFC 3720 §B.4 known answers.
    #[test]
    fn crc32c_rfc3720_vectors() {
        assert_eq!(crc32c(&[0u8; 32]), 0x8A91_36AA);
        assert_eq!(crc32c(&[0xffu8; 32]), 0x62A8_AB43);
        let inc: Vec<u8> = (0u8..32).collect();
        assert_eq!(crc32c(&inc), 0x46DD_794E);
        let dec: Vec<u8> = (0u8..32).rev().collect();
        assert_eq!(crc32c(&dec), 0x113F_DB5C);
        // iSCSI Read (10) command PDU.
        #[rustfmt::skip]
        let pdu = [
            0x01, 0xc0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0x14, 0, 0, 0, 0, 0, 0x04, 0, 0, 0, 0, 0x14, 0, 0, 0, 0x18,
            0x28, 0, 0, 0, 0, 0, 0, 0, 0x02, 0, 0, 0, 0, 0, 0, 0,
        ];
        assert_eq!(crc32c(&pdu), 0xD9963A56);
        assert_eq!(crc32c(b"123456789"), 0xE306_9283);
    }

    /// The byte-at-a-time definition (RFC 3720 §B.4's algorithm), for the sliced one to match.
    fn crc32c_bytewise(bytes: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &b in bytes {
            crc = CRC32C_TABLES[0][((crc ^ u32::from(b)) & 0xff) as usize] ^ (crc >> 8);
        }
        !crc
    }

    #[test]
    fn sliced_crc32c_equals_bytewise_at_every_length_and_split() {
        let data: Vec<u8> = (0..300u32).map(|i| (i * 167 + 13) as u8).collect();
        for len in 0..data.len() {
            assert_eq!(
                crc32c(&data[..len]),
                crc32c_bytewise(&data[..len]),
                "len {len}"
            );
            // The portable path, whichever `crc32c` took.
            assert_eq!(
                !update_sliced(!0, &data[..len]),
                crc32c_bytewise(&data[..len]),
                "len {len}"
            );
        }
        for cut in 0..data.len() {
            let mut c = Crc32c::new();
            c.update(&data[..cut]);
            c.update(&data[cut..]);
            assert_eq!(c.finish(), crc32c_bytewise(&data), "cut at {cut}");
        }
    }

    // The worked example of RFC 1071 §3: words 0001 f203 f4f5 f6f7 sum to ddf2.
    #[test]
    fn internet_checksum_rfc1071_example() {
        let b = [0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7];
        assert_eq!(internet_checksum(&b), !0xddf2);
    }

    #[test]
    fn split_sums_equal_whole_sum() {
        let data: Vec<u8> = (0u8..=200).collect();
        for cut in 0..data.len() {
            let mut s = InternetSum::default();
            s.add(&data[..cut]);
            s.add(&data[cut..]);
            assert_eq!(s.finish(), internet_checksum(&data), "cut at {cut}");
        }
    }

    #[test]
    fn odd_length_pads_with_zero() {
        assert_eq!(
            internet_checksum(&[0x12, 0x34, 0x56]),
            internet_checksum(&[0x12, 0x34, 0x56, 0])
        );
    }
}
