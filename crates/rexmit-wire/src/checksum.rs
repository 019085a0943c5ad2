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

/// CRC32c (Castagnoli, reflected polynomial 0x82F63B78) lookup table, built at compile time.
const CRC32C_TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
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
        table[i] = c;
        i += 1;
    }
    table
};

/// CRC32c of `bytes` as RFC 3720 §B.4 states it (initial value all ones, final complement).
/// SCTP stores this value least-significant byte first in the checksum field
/// (RFC 9260 Appendix B: the reflected CRC's first byte on the wire is its low byte).
pub fn crc32c(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc = CRC32C_TABLE[((crc ^ u32::from(b)) & 0xff) as usize] ^ (crc >> 8);
    }
    !crc
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
