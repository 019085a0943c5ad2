//! Wire formats of every packet rexmit puts on a simulated link, with exact encode/decode.
//!
//! Owns: IPv4, UDP, TCP (with MSS, window scale, SACK-permitted, SACK and timestamp options),
//! SCTP (common header with CRC32c, and the chunks rexmit's SCTP uses, NR-SACK included), and a
//! pcap file writer. Does not own: any protocol behaviour.
//!
//! Decoding untrusted bytes returns a `WireError`; it never panics.
//!
//! ```
//! use rexmit_wire::{IpPacket, Payload, Transport, UdpDatagram};
//! use std::net::Ipv4Addr;
//!
//! let udp = UdpDatagram { src_port: 1, dst_port: 2, payload: Payload::zeros(10) };
//! let p = IpPacket::new(Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 0, 2), Transport::Udp(udp));
//! let bytes = p.to_bytes()?;
//! assert_eq!(bytes.len(), p.wire_len());
//! assert_eq!(IpPacket::decode(&bytes)?, p);
//! # Ok::<(), rexmit_wire::WireError>(())
//! ```
//!
//! Layout: the types live in `ipv4`, `udp`, `tcp`, `sctp`; their encode/decode in the private
//! `ip_codec` (IPv4 and UDP), `tcp_codec` and `sctp_codec`; checksums in `checksum`.

pub mod checksum;
mod error;
mod ip_codec;
pub mod ipv4;
pub mod payload;
pub mod pcap;
pub mod sctp;
mod sctp_codec;
pub mod tcp;
mod tcp_codec;
pub mod udp;

#[doc(hidden)]
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
#[doc(hidden)]
pub mod samples;

pub use error::WireError;
pub use ipv4::{Ecn, IpPacket, Ipv4Header, Transport};
pub use payload::Payload;
pub use pcap::PcapWriter;
pub use sctp::{
    Chunk, DataChunk, GapBlock, InitChunk, InitParam, NrSackChunk, SackChunk, SctpPacket,
};
pub use sctp_codec::chunk_name;
pub use tcp::{
    SackBlock, SackBlocks, TcpFlags, TcpOptions, TcpSegment, Timestamps, MAX_SACK_BLOCKS,
};
pub use tcp_codec::option_kind;
pub use udp::UdpDatagram;
