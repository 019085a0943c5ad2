//! TCP segment (RFC 793 / RFC 9293) with the options rexmit models: MSS (RFC 793), window scale
//! and timestamps (RFC 7323), SACK-permitted and SACK (RFC 2018).

use crate::payload::Payload;

pub const TCP_HEADER_LEN: usize = 20;
/// Option space in the TCP header (data offset is 4 bits of 32-bit words: 60 - 20).
pub const TCP_MAX_OPTIONS_LEN: usize = 40;

/// TCP header flags (the low 8 bits of the flags field).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TcpFlags(pub u8);

impl TcpFlags {
    pub const FIN: TcpFlags = TcpFlags(0x01);
    pub const SYN: TcpFlags = TcpFlags(0x02);
    pub const RST: TcpFlags = TcpFlags(0x04);
    pub const PSH: TcpFlags = TcpFlags(0x08);
    pub const ACK: TcpFlags = TcpFlags(0x10);
    pub const URG: TcpFlags = TcpFlags(0x20);
    pub const ECE: TcpFlags = TcpFlags(0x40);
    pub const CWR: TcpFlags = TcpFlags(0x80);

    pub fn contains(self, other: TcpFlags) -> bool {
        self.0 & other.0 == other.0
    }
    pub fn insert(&mut self, other: TcpFlags) {
        self.0 |= other.0;
    }
}

impl std::ops::BitOr for TcpFlags {
    type Output = TcpFlags;
    fn bitor(self, o: TcpFlags) -> TcpFlags {
        TcpFlags(self.0 | o.0)
    }
}

/// A SACK block (RFC 2018 §3): `left` is the first sequence number of the block, `right` the
/// sequence number just after its last byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SackBlock {
    pub left: u32,
    pub right: u32,
}

/// The most SACK blocks a TCP header can carry (RFC 2018 §3: 40 bytes of options hold 2 + 4 × 8).
pub const MAX_SACK_BLOCKS: usize = 4;

/// The SACK blocks of one segment, held inline (no allocation per ACK).
pub type SackBlocks = arrayvec::ArrayVec<SackBlock, MAX_SACK_BLOCKS>;

/// RFC 7323 timestamps option.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Timestamps {
    pub tsval: u32,
    pub tsecr: u32,
}

/// The TCP options rexmit understands. Encoding lays them out in a fixed order, padded with NOPs
/// so that each 4-byte-aligned: MSS, window scale, SACK-permitted, timestamps, SACK blocks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TcpOptions {
    pub mss: Option<u16>,
    pub window_scale: Option<u8>,
    pub sack_permitted: bool,
    pub timestamps: Option<Timestamps>,
    /// SACK blocks in the order they are sent (RFC 2018 §4: the first block reports the most
    /// recently received data).
    pub sack_blocks: SackBlocks,
}

impl TcpOptions {
    /// Encoded length in bytes including NOP padding (always a multiple of 4).
    pub fn wire_len(&self) -> usize {
        let mut n = 0;
        if self.mss.is_some() {
            n += 4; // kind, len, 2-byte value
        }
        if self.window_scale.is_some() {
            n += 4; // NOP, kind, len, shift
        }
        if self.sack_permitted {
            n += 4; // NOP, NOP, kind, len
        }
        if self.timestamps.is_some() {
            n += 12; // NOP, NOP, kind, len, 8 bytes
        }
        n + sack_option_len(self.sack_blocks.len())
    }

    /// How many SACK blocks fit next to the other options present (RFC 2018 §3: 4 without
    /// timestamps, 3 with them).
    pub fn max_sack_blocks(&self) -> usize {
        let other = self.wire_len() - sack_option_len(self.sack_blocks.len());
        // Room for the SACK option's 4 fixed bytes, then 8 per block.
        TCP_MAX_OPTIONS_LEN.saturating_sub(other + 4) / 8
    }
}

/// Bytes of a SACK option carrying `blocks` blocks, as encoded (NOP, NOP, kind, len, 8 per block).
fn sack_option_len(blocks: usize) -> usize {
    if blocks == 0 {
        0
    } else {
        4 + 8 * blocks
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TcpSegment {
    pub src_port: u16,
    pub dst_port: u16,
    pub seq: u32,
    pub ack: u32,
    pub flags: TcpFlags,
    /// The raw 16-bit window field (already shifted by the sender's window scale).
    pub window: u16,
    pub urgent: u16,
    pub options: TcpOptions,
    pub payload: Payload,
}

impl TcpSegment {
    pub fn header_len(&self) -> usize {
        TCP_HEADER_LEN + self.options.wire_len()
    }
    pub fn wire_len(&self) -> usize {
        self.header_len() + self.payload.len()
    }
    /// Sequence space the segment occupies: payload plus one each for SYN and FIN.
    pub fn seq_len(&self) -> u32 {
        self.payload.len() as u32
            + self.flags.contains(TcpFlags::SYN) as u32
            + self.flags.contains(TcpFlags::FIN) as u32
    }
}
