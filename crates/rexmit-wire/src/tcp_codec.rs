//! Encoding and decoding of TCP segments (RFC 9293 §3.1) and the options rexmit models.
//!
//! Encoding lays options out in the fixed order `TcpOptions::wire_len` counts: MSS, NOP+window
//! scale, NOP NOP+SACK-permitted, NOP NOP+timestamps, NOP NOP+SACK. Decoding accepts any valid
//! layout (RFC 9293 §3.2: EOL, NOPs anywhere, unknown kinds skipped by their length).

use crate::checksum::{pseudo_header_sum, verify_pseudo_header_checksum};
use crate::error::{expect_len, len16, Reader, WireError};
use crate::ipv4::PROTO_TCP;
use crate::payload::Payload;
use crate::tcp::{
    SackBlock, TcpFlags, TcpOptions, TcpSegment, Timestamps, MAX_SACK_BLOCKS, TCP_HEADER_LEN,
    TCP_MAX_OPTIONS_LEN,
};
use std::net::Ipv4Addr;

/// Option kinds (RFC 9293 §3.2, RFC 7323 §2.2 and §3.2, RFC 2018 §2 and §3).
pub mod option_kind {
    pub const EOL: u8 = 0;
    pub const NOP: u8 = 1;
    pub const MSS: u8 = 2;
    pub const WINDOW_SCALE: u8 = 3;
    pub const SACK_PERMITTED: u8 = 4;
    pub const SACK: u8 = 5;
    pub const TIMESTAMPS: u8 = 8;
}
use option_kind::*;

// Largest number of SACK blocks an option can hold: 2 + 8n ≤ 40 (RFC 2018 §3): MAX_SACK_BLOCKS.

impl TcpOptions {
    /// Append the options, NOP-padded to 4-byte alignment, exactly `wire_len()` bytes.
    pub fn encode(&self, out: &mut Vec<u8>) -> Result<(), WireError> {
        let len = self.wire_len();
        if len > TCP_MAX_OPTIONS_LEN {
            return Err(WireError::TooLong {
                what: "TCP options",
                len,
                max: TCP_MAX_OPTIONS_LEN,
            });
        }
        if let Some(mss) = self.mss {
            out.extend_from_slice(&[MSS, 4]);
            out.extend_from_slice(&mss.to_be_bytes());
        }
        if let Some(shift) = self.window_scale {
            out.extend_from_slice(&[NOP, WINDOW_SCALE, 3, shift]);
        }
        if self.sack_permitted {
            out.extend_from_slice(&[NOP, NOP, SACK_PERMITTED, 2]);
        }
        if let Some(ts) = self.timestamps {
            out.extend_from_slice(&[NOP, NOP, TIMESTAMPS, 10]);
            out.extend_from_slice(&ts.tsval.to_be_bytes());
            out.extend_from_slice(&ts.tsecr.to_be_bytes());
        }
        if !self.sack_blocks.is_empty() {
            // Bounded by the 40-byte check above, so the length fits in a byte.
            out.extend_from_slice(&[NOP, NOP, SACK, (2 + 8 * self.sack_blocks.len()) as u8]);
            for b in &self.sack_blocks {
                out.extend_from_slice(&b.left.to_be_bytes());
                out.extend_from_slice(&b.right.to_be_bytes());
            }
        }
        Ok(())
    }

    /// Parse the option bytes of a TCP header (everything between the fixed header and the
    /// data offset).
    pub fn decode(bytes: &[u8]) -> Result<TcpOptions, WireError> {
        let mut opts = TcpOptions::default();
        let mut r = Reader::new(bytes, "TCP options");
        while r.remaining() > 0 {
            let kind = r.u8()?;
            match kind {
                EOL => break, // RFC 9293 §3.2: the rest is padding
                NOP => continue,
                _ => {}
            }
            let name = option_name(kind);
            let len = r.u8().map_err(|_| {
                WireError::bad_length(
                    format!("TCP option {name}"),
                    "kind byte without a length byte",
                )
            })? as usize;
            if len < 2 || len - 2 > r.remaining() {
                return Err(WireError::bad_length(
                    format!("TCP option {name}"),
                    format!(
                        "length {len} does not fit the {} option bytes left",
                        r.remaining() + 2
                    ),
                ));
            }
            let mut v = Reader::new(r.take(len - 2)?, "TCP option value");
            let expect = |want: usize| expect_len(|| format!("TCP option {name}"), len, want);
            match kind {
                MSS => {
                    expect(4)?;
                    opts.mss = Some(v.u16()?);
                }
                WINDOW_SCALE => {
                    expect(3)?;
                    opts.window_scale = Some(v.u8()?);
                }
                SACK_PERMITTED => {
                    expect(2)?;
                    opts.sack_permitted = true;
                }
                TIMESTAMPS => {
                    expect(10)?;
                    opts.timestamps = Some(Timestamps {
                        tsval: v.u32()?,
                        tsecr: v.u32()?,
                    });
                }
                SACK => {
                    if len < 10 || (len - 2) % 8 != 0 {
                        return Err(WireError::bad_length(
                            "TCP option SACK",
                            format!("length {len} is not 2+8n"),
                        ));
                    }
                    let n = (len - 2) / 8;
                    if n > MAX_SACK_BLOCKS {
                        return Err(WireError::bad_length(
                            "TCP option SACK",
                            format!("{n} blocks, at most {MAX_SACK_BLOCKS} fit"),
                        ));
                    }
                    opts.sack_blocks.clear();
                    for _ in 0..n {
                        opts.sack_blocks.push(SackBlock {
                            left: v.u32()?,
                            right: v.u32()?,
                        });
                    }
                }
                _ => {} // unknown option: skipped by its length
            }
        }
        Ok(opts)
    }
}

fn option_name(kind: u8) -> String {
    match kind {
        MSS => "MSS".into(),
        WINDOW_SCALE => "window scale".into(),
        SACK_PERMITTED => "SACK-permitted".into(),
        SACK => "SACK".into(),
        TIMESTAMPS => "timestamps".into(),
        k => format!("kind {k}"),
    }
}

impl TcpSegment {
    /// Append the segment with its checksum over the IPv4 pseudo-header (RFC 9293 §3.1).
    pub fn encode(&self, src: Ipv4Addr, dst: Ipv4Addr, out: &mut Vec<u8>) -> Result<(), WireError> {
        let tcp_len = len16("TCP segment", self.wire_len())?;
        let start = out.len();
        out.extend_from_slice(&self.src_port.to_be_bytes());
        out.extend_from_slice(&self.dst_port.to_be_bytes());
        out.extend_from_slice(&self.seq.to_be_bytes());
        out.extend_from_slice(&self.ack.to_be_bytes());
        // Data offset in 32-bit words; wire_len of the options is a multiple of 4 and ≤ 40 is
        // checked by TcpOptions::encode below, so the offset is at most 15.
        let offset_words = (self.header_len() / 4).min(15) as u8;
        out.extend_from_slice(&[offset_words << 4, self.flags.0]);
        out.extend_from_slice(&self.window.to_be_bytes());
        out.extend_from_slice(&[0, 0]); // checksum, filled below
        out.extend_from_slice(&self.urgent.to_be_bytes());
        if let Err(e) = self.options.encode(out) {
            out.truncate(start);
            return Err(e);
        }
        self.payload.write_to(out);
        let mut sum = pseudo_header_sum(src, dst, PROTO_TCP, tcp_len);
        sum.add(&out[start..]);
        out[start + 16..start + 18].copy_from_slice(&sum.finish().to_be_bytes());
        Ok(())
    }

    /// Parse a segment (the whole IP payload) and verify its checksum.
    pub fn decode(bytes: &[u8], src: Ipv4Addr, dst: Ipv4Addr) -> Result<TcpSegment, WireError> {
        let mut r = Reader::new(bytes, "TCP header");
        let src_port = r.u16()?;
        let dst_port = r.u16()?;
        let seq = r.u32()?;
        let ack = r.u32()?;
        let offset_byte = r.u8()?;
        let flags = TcpFlags(r.u8()?);
        let window = r.u16()?;
        let found = r.u16()?;
        let urgent = r.u16()?;
        let header_len = usize::from(offset_byte >> 4) * 4;
        if header_len < TCP_HEADER_LEN || header_len > bytes.len() {
            return Err(WireError::bad_length(
                "TCP header",
                format!(
                    "data offset {header_len} bytes but the segment has {}",
                    bytes.len()
                ),
            ));
        }
        len16("TCP segment", bytes.len())?;
        verify_pseudo_header_checksum(src, dst, PROTO_TCP, bytes, 16).map_err(|computed| {
            WireError::ChecksumMismatch {
                what: "TCP: checksum",
                computed: u32::from(computed),
                found: u32::from(found),
            }
        })?;
        let options = TcpOptions::decode(r.take(header_len - TCP_HEADER_LEN)?)?;
        Ok(TcpSegment {
            src_port,
            dst_port,
            seq,
            ack,
            flags,
            window,
            urgent,
            options,
            payload: Payload::from_bytes(r.rest()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn syn() -> TcpSegment {
        TcpSegment {
            src_port: 40000,
            dst_port: 80,
            seq: 0x0102_0304,
            ack: 0,
            flags: TcpFlags::SYN,
            window: 65535,
            urgent: 0,
            options: TcpOptions {
                mss: Some(1460),
                window_scale: Some(7),
                sack_permitted: true,
                timestamps: Some(Timestamps {
                    tsval: 0x1122_3344,
                    tsecr: 0,
                }),
                sack_blocks: Default::default(),
            },
            payload: Payload::empty(),
        }
    }

    #[test]
    fn syn_with_options_byte_by_byte() {
        let src = Ipv4Addr::new(10, 0, 0, 1);
        let dst = Ipv4Addr::new(10, 0, 0, 2);
        let mut out = Vec::new();
        syn().encode(src, dst, &mut out).unwrap();
        #[rustfmt::skip]
        let mut expected = vec![
            0x9c, 0x40, 0x00, 0x50,             // ports 40000 → 80
            0x01, 0x02, 0x03, 0x04,             // seq
            0x00, 0x00, 0x00, 0x00,             // ack
            0xb0, 0x02,                         // data offset 11 words, SYN
            0xff, 0xff,                         // window
            0x00, 0x00,                         // checksum (patched below)
            0x00, 0x00,                         // urgent
            0x02, 0x04, 0x05, 0xb4,             // MSS 1460
            0x01, 0x03, 0x03, 0x07,             // NOP, window scale 7
            0x01, 0x01, 0x04, 0x02,             // NOP NOP SACK-permitted
            0x01, 0x01, 0x08, 0x0a,             // NOP NOP timestamps
            0x11, 0x22, 0x33, 0x44, 0, 0, 0, 0, // tsval, tsecr
        ];
        // Checksum by hand: pseudo-header + header words with checksum zero.
        let mut sum: u32 = 0x0a00 + 0x0001 + 0x0a00 + 0x0002 + 6 + expected.len() as u32;
        for w in expected.chunks(2) {
            sum += u32::from(u16::from_be_bytes([w[0], w[1]]));
        }
        while sum > 0xffff {
            sum = (sum & 0xffff) + (sum >> 16);
        }
        let ck = !(sum as u16);
        expected[16..18].copy_from_slice(&ck.to_be_bytes());
        assert_eq!(out, expected);
        assert_eq!(TcpSegment::decode(&out, src, dst).unwrap(), syn());
    }

    #[test]
    fn options_round_trip_with_four_sack_blocks() {
        let o = TcpOptions {
            sack_blocks: (0..4)
                .map(|i| SackBlock {
                    left: i * 100,
                    right: i * 100 + 50,
                })
                .collect(),
            ..Default::default()
        };
        let mut b = Vec::new();
        o.encode(&mut b).unwrap();
        assert_eq!(b.len(), o.wire_len());
        assert_eq!(b.len(), 36);
        assert_eq!(TcpOptions::decode(&b).unwrap(), o);
    }

    #[test]
    fn too_many_options_are_rejected() {
        let o = TcpOptions {
            timestamps: Some(Timestamps { tsval: 1, tsecr: 2 }),
            sack_blocks: std::iter::repeat_n(SackBlock { left: 1, right: 2 }, 4).collect(),
            ..Default::default()
        };
        let e = o.encode(&mut Vec::new()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "TCP options: length 48 exceeds the maximum 40"
        );
    }

    #[test]
    fn decode_accepts_any_valid_layout() {
        // Timestamps first, unaligned MSS, an unknown option (kind 30, len 4), then EOL + junk.
        let b = [
            8, 10, 0, 0, 0, 5, 0, 0, 0, 6, 2, 4, 0x05, 0xb4, 1, 30, 4, 9, 9, 0, 0xee, 0xee,
        ];
        let o = TcpOptions::decode(&b).unwrap();
        assert_eq!(o.mss, Some(1460));
        assert_eq!(o.timestamps, Some(Timestamps { tsval: 5, tsecr: 6 }));
        assert!(o.sack_blocks.is_empty());
    }

    #[test]
    fn decode_rejects_bad_lengths() {
        let e = TcpOptions::decode(&[5, 11, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]).unwrap_err();
        assert_eq!(e.to_string(), "TCP option SACK: length 11 is not 2+8n");
        let e = TcpOptions::decode(&[2, 3, 0, 0]).unwrap_err();
        assert_eq!(e.to_string(), "TCP option MSS: length 3, expected 4");
        assert!(TcpOptions::decode(&[30, 1]).is_err());
        assert!(TcpOptions::decode(&[30, 9, 0]).is_err());
        assert!(TcpOptions::decode(&[2]).is_err());
    }

    #[test]
    fn corrupted_checksum_is_reported() {
        let src = Ipv4Addr::new(1, 2, 3, 4);
        let dst = Ipv4Addr::new(5, 6, 7, 8);
        let mut out = Vec::new();
        syn().encode(src, dst, &mut out).unwrap();
        out[4] ^= 0x40;
        let e = TcpSegment::decode(&out, src, dst).unwrap_err();
        assert!(e.to_string().starts_with("TCP: checksum mismatch"), "{e}");
    }
}
