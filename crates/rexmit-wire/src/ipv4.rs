//! IPv4 header (RFC 791) and the IP packet that every simulated link carries.

use crate::sctp::SctpPacket;
use crate::tcp::TcpSegment;
use crate::udp::UdpDatagram;
use std::net::Ipv4Addr;

pub const IPV4_HEADER_LEN: usize = 20;
pub const PROTO_TCP: u8 = 6;
pub const PROTO_UDP: u8 = 17;
pub const PROTO_SCTP: u8 = 132;

/// The fields of an option-less IPv4 header that a simulation sets. Version, IHL, total length,
/// protocol and checksum are derived when encoding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ipv4Header {
    pub src: Ipv4Addr,
    pub dst: Ipv4Addr,
    /// DSCP (high six bits) and ECN field (low two bits, `Ecn`).
    pub tos: u8,
    pub identification: u16,
    pub dont_fragment: bool,
    pub ttl: u8,
}

impl Ipv4Header {
    pub fn new(src: Ipv4Addr, dst: Ipv4Addr) -> Self {
        Ipv4Header {
            src,
            dst,
            tos: 0,
            identification: 0,
            dont_fragment: true,
            ttl: 64,
        }
    }
}

/// The ECN field of the IPv4 header (RFC 3168 §5): the two low bits of the TOS octet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ecn {
    /// 00: the sender is not ECN-capable.
    NotEct = 0b00,
    /// 01: ECN-capable transport, ECT(1).
    Ect1 = 0b01,
    /// 10: ECN-capable transport, ECT(0).
    Ect0 = 0b10,
    /// 11: Congestion Experienced, set by a router instead of dropping the packet.
    Ce = 0b11,
}

impl Ecn {
    pub fn from_bits(bits: u8) -> Ecn {
        match bits & 0b11 {
            0b00 => Ecn::NotEct,
            0b01 => Ecn::Ect1,
            0b10 => Ecn::Ect0,
            _ => Ecn::Ce,
        }
    }

    /// Whether a router that would drop the packet to signal congestion may mark it instead:
    /// ECT(0) and ECT(1) (RFC 3168 §5: routers treat them as equivalent), and CE, which only an
    /// ECN-capable packet can carry (RFC 3168 §5: a CE packet stays CE).
    pub fn is_ecn_capable(self) -> bool {
        self != Ecn::NotEct
    }
}

impl Ipv4Header {
    pub fn ecn(&self) -> Ecn {
        Ecn::from_bits(self.tos)
    }

    /// Set the ECN field, keeping the DSCP.
    pub fn set_ecn(&mut self, ecn: Ecn) {
        self.tos = (self.tos & !0b11) | ecn as u8;
    }
}

/// The transport-layer content of an IP packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Transport {
    Udp(UdpDatagram),
    Tcp(TcpSegment),
    Sctp(SctpPacket),
}

impl Transport {
    pub fn protocol(&self) -> u8 {
        match self {
            Transport::Udp(_) => PROTO_UDP,
            Transport::Tcp(_) => PROTO_TCP,
            Transport::Sctp(_) => PROTO_SCTP,
        }
    }
    pub fn wire_len(&self) -> usize {
        match self {
            Transport::Udp(u) => u.wire_len(),
            Transport::Tcp(t) => t.wire_len(),
            Transport::Sctp(s) => s.wire_len(),
        }
    }
    pub fn src_port(&self) -> u16 {
        match self {
            Transport::Udp(u) => u.src_port,
            Transport::Tcp(t) => t.src_port,
            Transport::Sctp(s) => s.src_port,
        }
    }
    pub fn dst_port(&self) -> u16 {
        match self {
            Transport::Udp(u) => u.dst_port,
            Transport::Tcp(t) => t.dst_port,
            Transport::Sctp(s) => s.dst_port,
        }
    }
}

/// An IPv4 packet: header plus transport content. This is what simulated links carry; it encodes
/// to exactly the bytes a real stack would put on the wire.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IpPacket {
    pub header: Ipv4Header,
    pub transport: Transport,
}

impl IpPacket {
    pub fn new(src: Ipv4Addr, dst: Ipv4Addr, transport: Transport) -> Self {
        IpPacket {
            header: Ipv4Header::new(src, dst),
            transport,
        }
    }
    /// Total length on the wire (the IPv4 total-length field).
    pub fn wire_len(&self) -> usize {
        IPV4_HEADER_LEN + self.transport.wire_len()
    }
}
