//! Encoding and decoding of IPv4 packets (RFC 791 §3.1) and UDP datagrams (RFC 768), and the
//! dispatch to the TCP and SCTP codecs.
//!
//! Rexmit sends option-less headers (IHL 5) and never fragments; decoding skips IPv4 options
//! and rejects fragments and unknown protocols.

use crate::checksum::{internet_checksum, pseudo_header_sum, verify_pseudo_header_checksum};
use crate::error::{len16, Reader, WireError};
use crate::ipv4::{
    IpPacket, Ipv4Header, Transport, IPV4_HEADER_LEN, PROTO_SCTP, PROTO_TCP, PROTO_UDP,
};
use crate::payload::Payload;
use crate::sctp::SctpPacket;
use crate::tcp::TcpSegment;
use crate::udp::{UdpDatagram, UDP_HEADER_LEN};
use std::net::Ipv4Addr;

const FLAG_DF: u16 = 0x4000;
const FLAG_MF: u16 = 0x2000;
const FRAGMENT_OFFSET_MASK: u16 = 0x1fff;

impl IpPacket {
    /// Append the encoded packet: IPv4 header with its checksum, then the transport.
    pub fn encode(&self, out: &mut Vec<u8>) -> Result<(), WireError> {
        let total = len16("IPv4 total length", self.wire_len())?;
        let start = out.len();
        let h = &self.header;
        out.extend_from_slice(&[0x45, h.tos]); // version 4, IHL 5
        out.extend_from_slice(&total.to_be_bytes());
        out.extend_from_slice(&h.identification.to_be_bytes());
        let flags = if h.dont_fragment { FLAG_DF } else { 0 };
        out.extend_from_slice(&flags.to_be_bytes());
        out.extend_from_slice(&[h.ttl, self.transport.protocol(), 0, 0]);
        out.extend_from_slice(&h.src.octets());
        out.extend_from_slice(&h.dst.octets());
        let ck = internet_checksum(&out[start..]);
        out[start + 10..start + 12].copy_from_slice(&ck.to_be_bytes());
        let result = match &self.transport {
            Transport::Udp(u) => u.encode(h.src, h.dst, out),
            Transport::Tcp(t) => t.encode(h.src, h.dst, out),
            Transport::Sctp(s) => s.encode(out),
        };
        if result.is_err() {
            out.truncate(start);
        }
        result
    }

    pub fn to_bytes(&self) -> Result<Vec<u8>, WireError> {
        let mut v = Vec::with_capacity(self.wire_len());
        self.encode(&mut v)?;
        Ok(v)
    }

    /// Parse an IPv4 packet, verifying every checksum and length. Bytes after the IPv4 total
    /// length (link-layer padding) are ignored.
    pub fn decode(bytes: &[u8]) -> Result<IpPacket, WireError> {
        let mut r = Reader::new(bytes, "IPv4 header");
        let ver_ihl = r.u8()?;
        if ver_ihl >> 4 != 4 {
            return Err(WireError::Unsupported {
                what: "IPv4",
                detail: format!("version {}", ver_ihl >> 4),
            });
        }
        let header_len = usize::from(ver_ihl & 0x0f) * 4;
        let tos = r.u8()?;
        let total = usize::from(r.u16()?);
        let identification = r.u16()?;
        let flags_frag = r.u16()?;
        let ttl = r.u8()?;
        let protocol = r.u8()?;
        let found = r.u16()?;
        let src = Ipv4Addr::from(r.u32()?);
        let dst = Ipv4Addr::from(r.u32()?);
        if header_len < IPV4_HEADER_LEN || total < header_len || total > bytes.len() {
            return Err(WireError::bad_length(
                "IPv4",
                format!(
                    "header length {header_len}, total length {total}, {} bytes received",
                    bytes.len()
                ),
            ));
        }
        let header = bytes.get(..header_len).unwrap_or_default();
        if internet_checksum(header) != 0 {
            let computed = {
                let mut z = header.to_vec();
                z[10] = 0;
                z[11] = 0;
                internet_checksum(&z)
            };
            return Err(WireError::ChecksumMismatch {
                what: "IPv4: header checksum",
                computed: u32::from(computed),
                found: u32::from(found),
            });
        }
        if flags_frag & (FLAG_MF | FRAGMENT_OFFSET_MASK) != 0 {
            return Err(WireError::Unsupported {
                what: "IPv4",
                detail: "fragments are not supported".into(),
            });
        }
        let body = bytes.get(header_len..total).unwrap_or_default();
        let transport = match protocol {
            PROTO_UDP => Transport::Udp(UdpDatagram::decode(body, src, dst)?),
            PROTO_TCP => Transport::Tcp(TcpSegment::decode(body, src, dst)?),
            PROTO_SCTP => Transport::Sctp(SctpPacket::decode(body)?),
            p => {
                return Err(WireError::Unsupported {
                    what: "IPv4",
                    detail: format!("unknown protocol {p}"),
                })
            }
        };
        let header = Ipv4Header {
            src,
            dst,
            tos,
            identification,
            dont_fragment: flags_frag & FLAG_DF != 0,
            ttl,
        };
        Ok(IpPacket { header, transport })
    }
}

impl UdpDatagram {
    /// Append the datagram with its checksum over the IPv4 pseudo-header (RFC 768).
    pub fn encode(&self, src: Ipv4Addr, dst: Ipv4Addr, out: &mut Vec<u8>) -> Result<(), WireError> {
        let len = len16("UDP length", self.wire_len())?;
        let start = out.len();
        out.extend_from_slice(&self.src_port.to_be_bytes());
        out.extend_from_slice(&self.dst_port.to_be_bytes());
        out.extend_from_slice(&len.to_be_bytes());
        out.extend_from_slice(&[0, 0]);
        self.payload.write_to(out);
        let mut sum = pseudo_header_sum(src, dst, PROTO_UDP, len);
        sum.add(&out[start..]);
        // RFC 768: a computed zero is sent as all ones; zero means "no checksum".
        let ck = match sum.finish() {
            0 => 0xffff,
            c => c,
        };
        out[start + 6..start + 8].copy_from_slice(&ck.to_be_bytes());
        Ok(())
    }

    /// Parse a datagram (the whole IP payload); verify its checksum unless it is zero.
    pub fn decode(bytes: &[u8], src: Ipv4Addr, dst: Ipv4Addr) -> Result<UdpDatagram, WireError> {
        let mut r = Reader::new(bytes, "UDP header");
        let src_port = r.u16()?;
        let dst_port = r.u16()?;
        let len = r.u16()?;
        let found = r.u16()?;
        if usize::from(len) != bytes.len() {
            return Err(WireError::bad_length(
                "UDP",
                format!(
                    "length field {len} but the IP payload is {} bytes",
                    bytes.len()
                ),
            ));
        }
        if found != 0 {
            verify_pseudo_header_checksum(src, dst, PROTO_UDP, bytes, 6).map_err(|computed| {
                WireError::ChecksumMismatch {
                    what: "UDP: checksum",
                    computed: u32::from(computed),
                    found: u32::from(found),
                }
            })?;
        }
        debug_assert!(bytes.len() >= UDP_HEADER_LEN);
        Ok(UdpDatagram {
            src_port,
            dst_port,
            payload: Payload::from_bytes(r.rest()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn udp_packet() -> IpPacket {
        let mut p = IpPacket::new(
            Ipv4Addr::new(192, 168, 0, 1),
            Ipv4Addr::new(192, 168, 0, 199),
            Transport::Udp(UdpDatagram {
                src_port: 5000,
                dst_port: 6000,
                payload: Payload::from_bytes(b"hello"),
            }),
        );
        p.header.identification = 0x1c46;
        p
    }

    // Header checksum worked by hand for the header below:
    // 4500 0021 1c46 4000 4011 0000 c0a8 0001 c0a8 00c7
    // sum = 4500+0021+1c46+4000+4011+c0a8+0001+c0a8+00c7 = 0x2_6390 → 0x6392 → checksum 0x9c6d.
    #[test]
    fn ipv4_header_checksum_known_answer() {
        let b = udp_packet().to_bytes().unwrap();
        #[rustfmt::skip]
        let expected_header = [
            0x45, 0x00, 0x00, 0x21, 0x1c, 0x46, 0x40, 0x00, 0x40, 0x11, 0x9c, 0x6d,
            192, 168, 0, 1, 192, 168, 0, 199,
        ];
        assert_eq!(&b[..20], &expected_header);
        assert_eq!(IpPacket::decode(&b).unwrap(), udp_packet());
    }

    #[test]
    fn ecn_field_is_the_low_two_bits_of_the_tos_octet() {
        // RFC 3168 §5: Not-ECT 00, ECT(1) 01, ECT(0) 10, CE 11; the DSCP above is kept.
        let mut p = udp_packet();
        p.header.tos = 0b1011_1000; // DSCP 46 (EF), Not-ECT
        for (ecn, bits) in [
            (crate::Ecn::NotEct, 0b00),
            (crate::Ecn::Ect1, 0b01),
            (crate::Ecn::Ect0, 0b10),
            (crate::Ecn::Ce, 0b11),
        ] {
            p.header.set_ecn(ecn);
            let b = p.to_bytes().unwrap();
            assert_eq!(b[1], 0b1011_1000 | bits, "{ecn:?}");
            let back = IpPacket::decode(&b).unwrap();
            assert_eq!(back.header.ecn(), ecn);
            assert_eq!(back.header.tos >> 2, 46);
            assert_eq!(ecn.is_ecn_capable(), bits != 0);
        }
    }

    #[test]
    fn header_checksum_mismatch_is_reported() {
        let mut b = udp_packet().to_bytes().unwrap();
        b[8] = 63; // TTL changed without fixing the checksum
        let e = IpPacket::decode(&b).unwrap_err();
        assert!(
            e.to_string().starts_with("IPv4: header checksum mismatch"),
            "{e}"
        );
    }

    #[test]
    fn ipv4_options_are_skipped() {
        let b = udp_packet().to_bytes().unwrap();
        let mut with_opts = Vec::new();
        with_opts.extend_from_slice(&b[..20]);
        with_opts.extend_from_slice(&[1, 1, 1, 0]); // NOP NOP NOP EOL
        with_opts.extend_from_slice(&b[20..]);
        with_opts[0] = 0x46;
        let total = (with_opts.len() as u16).to_be_bytes();
        with_opts[2..4].copy_from_slice(&total);
        with_opts[10..12].copy_from_slice(&[0, 0]);
        let ck = internet_checksum(&with_opts[..24]);
        with_opts[10..12].copy_from_slice(&ck.to_be_bytes());
        assert_eq!(IpPacket::decode(&with_opts).unwrap(), udp_packet());
    }

    #[test]
    fn trailing_link_padding_is_ignored() {
        let mut b = udp_packet().to_bytes().unwrap();
        b.extend_from_slice(&[0; 7]);
        assert_eq!(IpPacket::decode(&b).unwrap(), udp_packet());
    }

    #[test]
    fn unknown_protocol_and_fragments_are_errors() {
        let mut b = udp_packet().to_bytes().unwrap();
        b[9] = 47;
        b[10..12].copy_from_slice(&[0, 0]);
        let ck = internet_checksum(&b[..20]);
        b[10..12].copy_from_slice(&ck.to_be_bytes());
        assert_eq!(
            IpPacket::decode(&b).unwrap_err().to_string(),
            "IPv4: unknown protocol 47"
        );

        let mut b = udp_packet().to_bytes().unwrap();
        b[6] = 0x20; // MF
        b[10..12].copy_from_slice(&[0, 0]);
        let ck = internet_checksum(&b[..20]);
        b[10..12].copy_from_slice(&ck.to_be_bytes());
        assert_eq!(
            IpPacket::decode(&b).unwrap_err().to_string(),
            "IPv4: fragments are not supported"
        );
    }

    #[test]
    fn udp_zero_checksum_means_none_and_bad_checksum_is_rejected() {
        let mut b = udp_packet().to_bytes().unwrap();
        b[26..28].copy_from_slice(&[0, 0]);
        assert_eq!(IpPacket::decode(&b).unwrap(), udp_packet());
        b[26] = 0x12;
        let e = IpPacket::decode(&b).unwrap_err();
        assert!(e.to_string().starts_with("UDP: checksum mismatch"), "{e}");
    }

    #[test]
    fn oversized_packet_is_an_encode_error() {
        let p = IpPacket::new(
            Ipv4Addr::LOCALHOST,
            Ipv4Addr::LOCALHOST,
            Transport::Udp(UdpDatagram {
                src_port: 1,
                dst_port: 2,
                payload: Payload::zeros(65_520),
            }),
        );
        let e = p.to_bytes().unwrap_err();
        assert_eq!(
            e.to_string(),
            "IPv4 total length: length 65548 exceeds the maximum 65535"
        );
    }
}
