//! Wire formats of every packet rexmit puts on a simulated link, with exact encode/decode.
//!
//! Owns: IPv4, UDP, TCP (with MSS, window scale, SACK-permitted, SACK and timestamp options),
//! SCTP (common header with CRC32c, and the chunks rexmit's SCTP uses, NR-SACK included), and a
//! pcap file writer. Does not own: any protocol behaviour.
//!
//! Decoding untrusted bytes returns a `WireError`; it never panics.

pub mod ipv4;
pub mod payload;
pub mod sctp;
pub mod tcp;
pub mod udp;

pub use ipv4::{IpPacket, Ipv4Header, Transport};
pub use payload::Payload;
pub use sctp::{Chunk, DataChunk, GapBlock, InitChunk, InitParam, NrSackChunk, SackChunk, SctpPacket};
pub use tcp::{SackBlock, TcpFlags, TcpOptions, TcpSegment, Timestamps};
pub use udp::UdpDatagram;
