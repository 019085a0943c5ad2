//! SCTP packet (RFC 9260 §3): common header plus chunks, and the NR-SACK chunk of
//! draft-natarajan-tsvwg-sctp-nrsack. The CRC32c checksum is computed when encoding and checked
//! when decoding.

use crate::payload::Payload;
use std::net::Ipv4Addr;

pub const SCTP_COMMON_HEADER_LEN: usize = 12;
pub const DATA_CHUNK_HEADER_LEN: usize = 16;

/// Chunk type numbers (RFC 9260 §3.2; NR-SACK from the NR-SACK draft).
pub mod chunk_type {
    pub const DATA: u8 = 0;
    pub const INIT: u8 = 1;
    pub const INIT_ACK: u8 = 2;
    pub const SACK: u8 = 3;
    pub const HEARTBEAT: u8 = 4;
    pub const HEARTBEAT_ACK: u8 = 5;
    pub const ABORT: u8 = 6;
    pub const SHUTDOWN: u8 = 7;
    pub const SHUTDOWN_ACK: u8 = 8;
    pub const ERROR: u8 = 9;
    pub const COOKIE_ECHO: u8 = 10;
    pub const COOKIE_ACK: u8 = 11;
    /// ECN Echo and CWR (RFC 9260 Appendix A).
    pub const ECNE: u8 = 12;
    pub const CWR: u8 = 13;
    pub const SHUTDOWN_COMPLETE: u8 = 14;
    pub const NR_SACK: u8 = 16;
}

/// Parameter type numbers used in INIT and INIT-ACK (RFC 9260 §3.3.2, RFC 5061 §4.2.7).
pub mod param_type {
    pub const HEARTBEAT_INFO: u16 = 1;
    pub const IPV4_ADDRESS: u16 = 5;
    pub const STATE_COOKIE: u16 = 7;
    pub const COOKIE_PRESERVATIVE: u16 = 9;
    pub const SUPPORTED_ADDRESS_TYPES: u16 = 12;
    pub const SUPPORTED_EXTENSIONS: u16 = 0x8008;
    /// ECN Capable (RFC 9260 Appendix A): no value.
    pub const ECN_CAPABLE: u16 = 0x8000;
}

#[inline]
pub fn pad4(n: usize) -> usize {
    (n + 3) & !3
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SctpPacket {
    pub src_port: u16,
    pub dst_port: u16,
    pub verification_tag: u32,
    pub chunks: Vec<Chunk>,
}

impl SctpPacket {
    /// Total length: common header plus every chunk including its padding (RFC 9260 §3.2:
    /// every chunk, the last one too, is padded to a multiple of 4 bytes).
    pub fn wire_len(&self) -> usize {
        SCTP_COMMON_HEADER_LEN + self.chunks.iter().map(|c| pad4(c.length())).sum::<usize>()
    }
}

/// DATA chunk (RFC 9260 §3.3.1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataChunk {
    /// I bit (RFC 7053): ask for an immediate SACK.
    pub immediate: bool,
    /// U bit: unordered.
    pub unordered: bool,
    /// B bit: first fragment of a user message.
    pub beginning: bool,
    /// E bit: last fragment of a user message.
    pub ending: bool,
    pub tsn: u32,
    pub stream_id: u16,
    pub ssn: u16,
    pub ppid: u32,
    pub payload: Payload,
}

/// A gap ack block as carried on the wire: offsets from the cumulative TSN ack
/// (RFC 9260 §3.3.4): the block covers TSNs cum_tsn_ack+start ..= cum_tsn_ack+end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GapBlock {
    pub start: u16,
    pub end: u16,
}

/// SACK chunk (RFC 9260 §3.3.4).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SackChunk {
    pub cum_tsn_ack: u32,
    pub a_rwnd: u32,
    pub gap_blocks: Vec<GapBlock>,
    pub dup_tsns: Vec<u32>,
    /// CMT delayed ack (DAC, Iyengar et al.): DATA packets received since the previous SACK
    /// (0–3), carried in the chunk flags' two low bits; 0 when DAC is off.
    pub dac_packets: u8,
}

/// NR-SACK chunk (draft-natarajan-tsvwg-sctp-nrsack §4.1): like SACK, plus non-renegable gap
/// blocks. `all_non_renegable` is the 'A' flag bit: every out-of-order TSN reported is
/// non-renegable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NrSackChunk {
    pub all_non_renegable: bool,
    pub cum_tsn_ack: u32,
    pub a_rwnd: u32,
    pub gap_blocks: Vec<GapBlock>,
    pub nr_gap_blocks: Vec<GapBlock>,
    pub dup_tsns: Vec<u32>,
    /// CMT DAC packet count, as in `SackChunk`.
    pub dac_packets: u8,
}

/// A variable-length parameter of INIT / INIT-ACK.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InitParam {
    Ipv4Address(Ipv4Addr),
    StateCookie(Vec<u8>),
    CookiePreservative(u32),
    /// Address types supported (RFC 9260 §3.3.2.1.6), e.g. [5] for IPv4.
    SupportedAddressTypes(Vec<u16>),
    /// Chunk types the sender supports beyond the base protocol (RFC 5061 §4.2.7), e.g. [16]
    /// for NR-SACK.
    SupportedExtensions(Vec<u8>),
    /// The sender supports ECN (RFC 9260 Appendix A).
    EcnCapable,
    /// A parameter rexmit does not interpret, kept so it can be re-encoded.
    Unknown {
        param_type: u16,
        value: Vec<u8>,
    },
}

impl InitParam {
    /// Parameter length without padding (type + length + value).
    pub fn length(&self) -> usize {
        4 + match self {
            InitParam::Ipv4Address(_) => 4,
            InitParam::StateCookie(c) => c.len(),
            InitParam::CookiePreservative(_) => 4,
            InitParam::SupportedAddressTypes(t) => 2 * t.len(),
            InitParam::SupportedExtensions(e) => e.len(),
            InitParam::EcnCapable => 0,
            InitParam::Unknown { value, .. } => value.len(),
        }
    }
}

/// INIT and INIT-ACK share this layout (RFC 9260 §3.3.2 and §3.3.3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InitChunk {
    pub initiate_tag: u32,
    pub a_rwnd: u32,
    pub outbound_streams: u16,
    pub inbound_streams: u16,
    pub initial_tsn: u32,
    pub params: Vec<InitParam>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Chunk {
    Data(DataChunk),
    Init(InitChunk),
    InitAck(InitChunk),
    Sack(SackChunk),
    NrSack(NrSackChunk),
    /// HEARTBEAT with its Heartbeat Info parameter value (opaque to the receiver).
    Heartbeat {
        info: Vec<u8>,
    },
    HeartbeatAck {
        info: Vec<u8>,
    },
    /// ABORT; `t_bit` is the T flag (RFC 9260 §3.3.7); `causes` are the raw error causes.
    Abort {
        t_bit: bool,
        causes: Vec<u8>,
    },
    Shutdown {
        cum_tsn_ack: u32,
    },
    ShutdownAck,
    ShutdownComplete {
        t_bit: bool,
    },
    CookieEcho {
        cookie: Vec<u8>,
    },
    CookieAck,
    /// ECN Echo (RFC 9260 Appendix A): the lowest TSN of a packet that arrived marked CE.
    Ecne {
        lowest_tsn: u32,
    },
    /// Congestion Window Reduced (RFC 9260 Appendix A): the TSN of the ECNE answered.
    Cwr {
        lowest_tsn: u32,
    },
    /// Any other chunk, kept raw.
    Unknown {
        chunk_type: u8,
        flags: u8,
        value: Vec<u8>,
    },
}

impl Chunk {
    pub fn chunk_type(&self) -> u8 {
        use chunk_type::*;
        match self {
            Chunk::Data(_) => DATA,
            Chunk::Init(_) => INIT,
            Chunk::InitAck(_) => INIT_ACK,
            Chunk::Sack(_) => SACK,
            Chunk::NrSack(_) => NR_SACK,
            Chunk::Heartbeat { .. } => HEARTBEAT,
            Chunk::HeartbeatAck { .. } => HEARTBEAT_ACK,
            Chunk::Abort { .. } => ABORT,
            Chunk::Shutdown { .. } => SHUTDOWN,
            Chunk::ShutdownAck => SHUTDOWN_ACK,
            Chunk::ShutdownComplete { .. } => SHUTDOWN_COMPLETE,
            Chunk::CookieEcho { .. } => COOKIE_ECHO,
            Chunk::CookieAck => COOKIE_ACK,
            Chunk::Ecne { .. } => ECNE,
            Chunk::Cwr { .. } => CWR,
            Chunk::Unknown { chunk_type, .. } => *chunk_type,
        }
    }

    /// The chunk length field: header plus value, without trailing padding.
    pub fn length(&self) -> usize {
        match self {
            Chunk::Data(d) => DATA_CHUNK_HEADER_LEN + d.payload.len(),
            // RFC 9260 §3.2: the length includes the padding of every parameter but the last.
            Chunk::Init(i) | Chunk::InitAck(i) => {
                let padded: usize = i.params.iter().map(|p| pad4(p.length())).sum();
                let last_pad = i.params.last().map_or(0, |p| pad4(p.length()) - p.length());
                20 + padded - last_pad
            }
            Chunk::Sack(s) => 16 + 4 * s.gap_blocks.len() + 4 * s.dup_tsns.len(),
            Chunk::NrSack(s) => {
                20 + 4 * s.gap_blocks.len() + 4 * s.nr_gap_blocks.len() + 4 * s.dup_tsns.len()
            }
            // Heartbeat Info parameter: 4-byte parameter header + info.
            Chunk::Heartbeat { info } | Chunk::HeartbeatAck { info } => 4 + 4 + info.len(),
            Chunk::Abort { causes, .. } => 4 + causes.len(),
            Chunk::Shutdown { .. } | Chunk::Ecne { .. } | Chunk::Cwr { .. } => 8,
            Chunk::ShutdownAck | Chunk::ShutdownComplete { .. } | Chunk::CookieAck => 4,
            Chunk::CookieEcho { cookie } => 4 + cookie.len(),
            Chunk::Unknown { value, .. } => 4 + value.len(),
        }
    }
}
