//! Encoding and decoding of SCTP packets (RFC 9260 §3): common header with CRC32c, every chunk
//! of `Chunk` (NR-SACK per draft-natarajan-tsvwg-sctp-nrsack §4.1) and INIT/INIT-ACK parameters.
//!
//! Every chunk is padded to 4 bytes, the last one too (RFC 9260 §3.2). Chunk lengths exclude the
//! chunk's trailing padding; INIT parameters are padded inside the chunk except for the last
//! one's padding, which is the chunk's padding (RFC 9260 §3.2 "Chunk Length").

use crate::checksum::{crc32c, Crc32c};
use crate::error::{expect_len, len16, Reader, WireError};
use crate::payload::Payload;
use crate::sctp::{
    chunk_type as ct, pad4, param_type as pt, Chunk, DataChunk, GapBlock, InitChunk, InitParam,
    NrSackChunk, SackChunk, SctpPacket, SCTP_COMMON_HEADER_LEN,
};

/// DATA chunk flags (RFC 9260 §3.3.1, I bit RFC 7053 §3).
const DATA_FLAG_I: u8 = 0x08;
const DATA_FLAG_U: u8 = 0x04;
const DATA_FLAG_B: u8 = 0x02;
const DATA_FLAG_E: u8 = 0x01;
/// T bit of ABORT and SHUTDOWN COMPLETE (RFC 9260 §3.3.7, §3.3.13).
const FLAG_T: u8 = 0x01;
/// The NR-SACK (A)ll flag, set when all out-of-order TSNs are non-renegable: "the third least significant bit in the Chunk Flags field" (seed 000
/// §III.A, Figure 3).
const NR_SACK_FLAG_A: u8 = 0x04;
/// CMT DAC: packets received since the previous SACK (Iyengar et al., CMT delayed-ack
/// algorithm), in the two high flag bits of SACK and NR-SACK chunks as FreeBSD, the reference
/// implementation of CMT, writes them (`cmt_dac_pkts_rcvd << 6`; its sender tests 0x80 for
/// two packets). Not in the low bits: RFC 3540 gives bit 0 of a SACK's flags to the ECN nonce
/// sum, as Wireshark decodes it.
const SACK_FLAGS_DAC_SHIFT: u32 = 6;

fn dac_flags(packets: u8) -> u8 {
    (packets & 0x03) << SACK_FLAGS_DAC_SHIFT
}

fn dac_packets(flags: u8) -> u8 {
    (flags >> SACK_FLAGS_DAC_SHIFT) & 0x03
}
/// Byte offset of the checksum in the common header.
const CHECKSUM_AT: usize = 8;

impl SctpPacket {
    /// Append the packet, computing the CRC32c over it (RFC 9260 §6.8).
    pub fn encode(&self, out: &mut Vec<u8>) -> Result<(), WireError> {
        let start = out.len();
        out.extend_from_slice(&self.src_port.to_be_bytes());
        out.extend_from_slice(&self.dst_port.to_be_bytes());
        out.extend_from_slice(&self.verification_tag.to_be_bytes());
        out.extend_from_slice(&[0; 4]);
        for c in &self.chunks {
            if let Err(e) = c.encode(out) {
                out.truncate(start);
                return Err(e);
            }
        }
        // RFC 9260 Appendix B: the reflected CRC goes on the wire low byte first.
        let crc = crc32c(&out[start..]);
        out[start + CHECKSUM_AT..start + CHECKSUM_AT + 4].copy_from_slice(&crc.to_le_bytes());
        Ok(())
    }

    /// Parse a packet (the whole IP payload), verifying the CRC32c and every chunk length.
    pub fn decode(bytes: &[u8]) -> Result<SctpPacket, WireError> {
        let mut r = Reader::new(bytes, "SCTP common header");
        let src_port = r.u16()?;
        let dst_port = r.u16()?;
        let verification_tag = r.u32()?;
        let ck = r.take(4)?;
        let found = u32::from_le_bytes([ck[0], ck[1], ck[2], ck[3]]);
        // Computed with the checksum field as zeros (RFC 9260 §6.8), without copying the packet.
        let computed = {
            let mut c = Crc32c::new();
            c.update(&bytes[..CHECKSUM_AT]);
            c.update(&[0; 4]);
            c.update(&bytes[CHECKSUM_AT + 4..]);
            c.finish()
        };
        if computed != found {
            return Err(WireError::ChecksumMismatch {
                what: "SCTP: CRC32c checksum",
                computed,
                found,
            });
        }
        let mut chunks = Vec::new();
        while r.remaining() > 0 {
            let c_type = r.u8()?;
            let flags = r.u8().map_err(|_| truncated_chunk(c_type))?;
            let length = usize::from(r.u16().map_err(|_| truncated_chunk(c_type))?);
            if length < 4 || length - 4 > r.remaining() {
                return Err(WireError::bad_length(
                    format!("SCTP chunk {}", chunk_name(c_type)),
                    format!(
                        "length {length} but {} bytes remain in the packet",
                        r.remaining() + 4
                    ),
                ));
            }
            let value = r.take(length - 4)?;
            // Padding of the last chunk may be missing; tolerate that (RFC 9260 §3.2).
            let pad = (pad4(length) - length).min(r.remaining());
            r.take(pad)?;
            chunks.push(Chunk::decode(c_type, flags, length, value)?);
        }
        debug_assert!(bytes.len() >= SCTP_COMMON_HEADER_LEN);
        Ok(SctpPacket {
            src_port,
            dst_port,
            verification_tag,
            chunks,
        })
    }
}

fn truncated_chunk(c_type: u8) -> WireError {
    WireError::bad_length(
        format!("SCTP chunk {}", chunk_name(c_type)),
        "chunk header truncated",
    )
}

/// The name Wireshark and the RFCs use for a chunk type, for error messages.
pub fn chunk_name(c_type: u8) -> String {
    match c_type {
        ct::DATA => "DATA".into(),
        ct::INIT => "INIT".into(),
        ct::INIT_ACK => "INIT-ACK".into(),
        ct::SACK => "SACK".into(),
        ct::HEARTBEAT => "HEARTBEAT".into(),
        ct::HEARTBEAT_ACK => "HEARTBEAT-ACK".into(),
        ct::ABORT => "ABORT".into(),
        ct::SHUTDOWN => "SHUTDOWN".into(),
        ct::SHUTDOWN_ACK => "SHUTDOWN-ACK".into(),
        ct::ERROR => "ERROR".into(),
        ct::COOKIE_ECHO => "COOKIE-ECHO".into(),
        ct::COOKIE_ACK => "COOKIE-ACK".into(),
        ct::SHUTDOWN_COMPLETE => "SHUTDOWN-COMPLETE".into(),
        ct::NR_SACK => "NR-SACK".into(),
        ct::ECNE => "ECNE".into(),
        ct::CWR => "CWR".into(),
        t => format!("type {t}"),
    }
}

fn put_gap_blocks(out: &mut Vec<u8>, blocks: &[GapBlock]) {
    for g in blocks {
        out.extend_from_slice(&g.start.to_be_bytes());
        out.extend_from_slice(&g.end.to_be_bytes());
    }
}

fn put_u32s(out: &mut Vec<u8>, values: &[u32]) {
    for v in values {
        out.extend_from_slice(&v.to_be_bytes());
    }
}

fn count16(what: &'static str, n: usize) -> Result<u16, WireError> {
    u16::try_from(n).map_err(|_| WireError::TooLong {
        what,
        len: n,
        max: u16::MAX as usize,
    })
}

impl Chunk {
    fn flags(&self) -> u8 {
        match self {
            Chunk::Data(d) => {
                let mut f = 0;
                for (set, bit) in [
                    (d.immediate, DATA_FLAG_I),
                    (d.unordered, DATA_FLAG_U),
                    (d.beginning, DATA_FLAG_B),
                    (d.ending, DATA_FLAG_E),
                ] {
                    if set {
                        f |= bit;
                    }
                }
                f
            }
            Chunk::Sack(s) => dac_flags(s.dac_packets),
            Chunk::NrSack(s) => {
                dac_flags(s.dac_packets)
                    | if s.all_non_renegable {
                        NR_SACK_FLAG_A
                    } else {
                        0
                    }
            }
            Chunk::Abort { t_bit: true, .. } | Chunk::ShutdownComplete { t_bit: true } => FLAG_T,
            Chunk::Unknown { flags, .. } => *flags,
            _ => 0,
        }
    }

    /// Append the chunk and its padding to a multiple of 4 bytes.
    pub fn encode(&self, out: &mut Vec<u8>) -> Result<(), WireError> {
        let length = len16("SCTP chunk length", self.length())?;
        let start = out.len();
        out.extend_from_slice(&[self.chunk_type(), self.flags()]);
        out.extend_from_slice(&length.to_be_bytes());
        match self {
            Chunk::Data(d) => {
                out.extend_from_slice(&d.tsn.to_be_bytes());
                out.extend_from_slice(&d.stream_id.to_be_bytes());
                out.extend_from_slice(&d.ssn.to_be_bytes());
                out.extend_from_slice(&d.ppid.to_be_bytes());
                d.payload.write_to(out);
            }
            Chunk::Init(i) | Chunk::InitAck(i) => {
                out.extend_from_slice(&i.initiate_tag.to_be_bytes());
                out.extend_from_slice(&i.a_rwnd.to_be_bytes());
                out.extend_from_slice(&i.outbound_streams.to_be_bytes());
                out.extend_from_slice(&i.inbound_streams.to_be_bytes());
                out.extend_from_slice(&i.initial_tsn.to_be_bytes());
                for p in &i.params {
                    p.encode(out)?;
                }
            }
            Chunk::Sack(s) => {
                out.extend_from_slice(&s.cum_tsn_ack.to_be_bytes());
                out.extend_from_slice(&s.a_rwnd.to_be_bytes());
                out.extend_from_slice(
                    &count16("SACK gap blocks", s.gap_blocks.len())?.to_be_bytes(),
                );
                out.extend_from_slice(
                    &count16("SACK duplicate TSNs", s.dup_tsns.len())?.to_be_bytes(),
                );
                put_gap_blocks(out, &s.gap_blocks);
                put_u32s(out, &s.dup_tsns);
            }
            Chunk::NrSack(s) => {
                // NR-SACK draft §4.1: counts N, M, X, a reserved word, then gap blocks,
                // NR gap blocks and duplicate TSNs.
                out.extend_from_slice(&s.cum_tsn_ack.to_be_bytes());
                out.extend_from_slice(&s.a_rwnd.to_be_bytes());
                out.extend_from_slice(
                    &count16("NR-SACK gap blocks", s.gap_blocks.len())?.to_be_bytes(),
                );
                out.extend_from_slice(
                    &count16("NR-SACK NR gap blocks", s.nr_gap_blocks.len())?.to_be_bytes(),
                );
                out.extend_from_slice(
                    &count16("NR-SACK duplicate TSNs", s.dup_tsns.len())?.to_be_bytes(),
                );
                out.extend_from_slice(&[0, 0]);
                put_gap_blocks(out, &s.gap_blocks);
                put_gap_blocks(out, &s.nr_gap_blocks);
                put_u32s(out, &s.dup_tsns);
            }
            Chunk::Heartbeat { info } | Chunk::HeartbeatAck { info } => {
                // RFC 9260 §3.3.5: one Heartbeat Info TLV (type 1).
                out.extend_from_slice(&pt::HEARTBEAT_INFO.to_be_bytes());
                out.extend_from_slice(
                    &len16("HEARTBEAT info length", 4 + info.len())?.to_be_bytes(),
                );
                out.extend_from_slice(info);
            }
            Chunk::Shutdown { cum_tsn_ack: t }
            | Chunk::Ecne { lowest_tsn: t }
            | Chunk::Cwr { lowest_tsn: t } => out.extend_from_slice(&t.to_be_bytes()),
            Chunk::Abort { causes: v, .. }
            | Chunk::CookieEcho { cookie: v }
            | Chunk::Unknown { value: v, .. } => out.extend_from_slice(v),
            Chunk::ShutdownAck | Chunk::ShutdownComplete { .. } | Chunk::CookieAck => {}
        }
        debug_assert_eq!(pad4(out.len() - start), pad4(self.length()));
        out.resize(start + pad4(self.length()), 0);
        Ok(())
    }

    /// Decode one chunk from its header fields and its value (the bytes after the 4-byte chunk
    /// header, without padding).
    fn decode(c_type: u8, flags: u8, length: usize, value: &[u8]) -> Result<Chunk, WireError> {
        let name = chunk_name(c_type);
        let what = || format!("SCTP chunk {name}");
        let exact = |want: usize| expect_len(what, length, want);
        let at_least = |min: usize| -> Result<(), WireError> {
            if length >= min {
                Ok(())
            } else {
                Err(WireError::bad_length(
                    what(),
                    format!("length {length} is below the minimum {min}"),
                ))
            }
        };
        let mut r = Reader::new(value, "SCTP chunk value");
        Ok(match c_type {
            ct::DATA => {
                at_least(16)?;
                Chunk::Data(DataChunk {
                    immediate: flags & DATA_FLAG_I != 0,
                    unordered: flags & DATA_FLAG_U != 0,
                    beginning: flags & DATA_FLAG_B != 0,
                    ending: flags & DATA_FLAG_E != 0,
                    tsn: r.u32()?,
                    stream_id: r.u16()?,
                    ssn: r.u16()?,
                    ppid: r.u32()?,
                    payload: Payload::from_bytes(r.rest()),
                })
            }
            ct::INIT | ct::INIT_ACK => {
                at_least(20)?;
                let mut init = InitChunk {
                    initiate_tag: r.u32()?,
                    a_rwnd: r.u32()?,
                    outbound_streams: r.u16()?,
                    inbound_streams: r.u16()?,
                    initial_tsn: r.u32()?,
                    params: Vec::new(),
                };
                while r.remaining() > 0 {
                    init.params.push(InitParam::decode(&mut r, &name)?);
                }
                if c_type == ct::INIT {
                    Chunk::Init(init)
                } else {
                    Chunk::InitAck(init)
                }
            }
            ct::SACK => {
                at_least(16)?;
                let cum_tsn_ack = r.u32()?;
                let a_rwnd = r.u32()?;
                let n = usize::from(r.u16()?);
                let x = usize::from(r.u16()?);
                let need = 16 + 4 * (n + x);
                if need != length {
                    return Err(WireError::bad_length(
                        what(),
                        format!(
                            "length {length} but {n} gap blocks and {x} duplicate TSNs need {need}"
                        ),
                    ));
                }
                Chunk::Sack(SackChunk {
                    cum_tsn_ack,
                    a_rwnd,
                    gap_blocks: read_gap_blocks(&mut r, n)?,
                    dup_tsns: read_u32s(&mut r, x)?,
                    dac_packets: dac_packets(flags),
                })
            }
            ct::NR_SACK => {
                at_least(20)?;
                let cum_tsn_ack = r.u32()?;
                let a_rwnd = r.u32()?;
                let n = usize::from(r.u16()?);
                let m = usize::from(r.u16()?);
                let x = usize::from(r.u16()?);
                r.u16()?; // reserved
                let need = 20 + 4 * (n + m + x);
                if need != length {
                    return Err(WireError::bad_length(
                        what(),
                        format!(
                            "length {length} but {n} gap blocks, {m} NR gap blocks and {x} duplicate TSNs need {need}"
                        ),
                    ));
                }
                Chunk::NrSack(NrSackChunk {
                    all_non_renegable: flags & NR_SACK_FLAG_A != 0,
                    cum_tsn_ack,
                    a_rwnd,
                    gap_blocks: read_gap_blocks(&mut r, n)?,
                    nr_gap_blocks: read_gap_blocks(&mut r, m)?,
                    dup_tsns: read_u32s(&mut r, x)?,
                    dac_packets: dac_packets(flags),
                })
            }
            ct::HEARTBEAT | ct::HEARTBEAT_ACK => {
                at_least(8)?;
                let p_type = r.u16()?;
                let p_len = usize::from(r.u16()?);
                if p_type != pt::HEARTBEAT_INFO {
                    return Err(WireError::Unsupported {
                        what: "SCTP HEARTBEAT",
                        detail: format!("parameter type {p_type}, expected Heartbeat Info (1)"),
                    });
                }
                if p_len != length - 4 {
                    return Err(WireError::bad_length(
                        what(),
                        format!(
                            "Heartbeat Info length {p_len} but the chunk carries {}",
                            length - 4
                        ),
                    ));
                }
                let info = r.rest().to_vec();
                if c_type == ct::HEARTBEAT {
                    Chunk::Heartbeat { info }
                } else {
                    Chunk::HeartbeatAck { info }
                }
            }
            ct::ABORT => Chunk::Abort {
                t_bit: flags & FLAG_T != 0,
                causes: value.to_vec(),
            },
            ct::SHUTDOWN => {
                exact(8)?;
                Chunk::Shutdown {
                    cum_tsn_ack: r.u32()?,
                }
            }
            ct::SHUTDOWN_ACK => {
                exact(4)?;
                Chunk::ShutdownAck
            }
            ct::SHUTDOWN_COMPLETE => {
                exact(4)?;
                Chunk::ShutdownComplete {
                    t_bit: flags & FLAG_T != 0,
                }
            }
            ct::COOKIE_ECHO => Chunk::CookieEcho {
                cookie: value.to_vec(),
            },
            ct::COOKIE_ACK => {
                exact(4)?;
                Chunk::CookieAck
            }
            ct::ECNE => {
                // RFC 9260 Appendix A: 8 bytes. FreeBSD's ECNE (usrsctp's `struct
                // sctp_ecne_chunk`) adds a 32-bit count of packets since the last CWR, 12
                // bytes; read as the same echo (a re-encoding writes RFC 9260's 8).
                if length != 12 {
                    exact(8)?;
                }
                Chunk::Ecne {
                    lowest_tsn: r.u32()?,
                }
            }
            ct::CWR => {
                exact(8)?;
                Chunk::Cwr {
                    lowest_tsn: r.u32()?,
                }
            }
            _ => Chunk::Unknown {
                chunk_type: c_type,
                flags,
                value: value.to_vec(),
            },
        })
    }
}

fn read_gap_blocks(r: &mut Reader<'_>, n: usize) -> Result<Vec<GapBlock>, WireError> {
    (0..n)
        .map(|_| {
            Ok(GapBlock {
                start: r.u16()?,
                end: r.u16()?,
            })
        })
        .collect()
}

fn read_u32s(r: &mut Reader<'_>, n: usize) -> Result<Vec<u32>, WireError> {
    (0..n).map(|_| r.u32()).collect()
}

impl InitParam {
    pub fn param_type(&self) -> u16 {
        match self {
            InitParam::Ipv4Address(_) => pt::IPV4_ADDRESS,
            InitParam::StateCookie(_) => pt::STATE_COOKIE,
            InitParam::CookiePreservative(_) => pt::COOKIE_PRESERVATIVE,
            InitParam::SupportedAddressTypes(_) => pt::SUPPORTED_ADDRESS_TYPES,
            InitParam::SupportedExtensions(_) => pt::SUPPORTED_EXTENSIONS,
            InitParam::EcnCapable => pt::ECN_CAPABLE,
            InitParam::Unknown { param_type, .. } => *param_type,
        }
    }

    /// Append the parameter TLV and its padding (RFC 9260 §3.2.1).
    pub fn encode(&self, out: &mut Vec<u8>) -> Result<(), WireError> {
        let start = out.len();
        out.extend_from_slice(&self.param_type().to_be_bytes());
        out.extend_from_slice(&len16("SCTP parameter length", self.length())?.to_be_bytes());
        match self {
            InitParam::Ipv4Address(a) => out.extend_from_slice(&a.octets()),
            InitParam::EcnCapable => {}
            InitParam::CookiePreservative(inc) => out.extend_from_slice(&inc.to_be_bytes()),
            InitParam::SupportedAddressTypes(types) => {
                for t in types {
                    out.extend_from_slice(&t.to_be_bytes());
                }
            }
            InitParam::StateCookie(v)
            | InitParam::SupportedExtensions(v)
            | InitParam::Unknown { value: v, .. } => out.extend_from_slice(v),
        }
        out.resize(start + pad4(self.length()), 0);
        Ok(())
    }

    /// Read one parameter and its padding (absent after the last parameter, RFC 9260 §3.2).
    fn decode(r: &mut Reader<'_>, chunk: &str) -> Result<InitParam, WireError> {
        let p_type = r.u16()?;
        let p_len = usize::from(r.u16()?);
        let what = || format!("SCTP {chunk} parameter {p_type:#06x}");
        if p_len < 4 || p_len - 4 > r.remaining() {
            return Err(WireError::bad_length(
                what(),
                format!(
                    "length {p_len} but {} bytes remain in the chunk",
                    r.remaining() + 4
                ),
            ));
        }
        let mut v = Reader::new(r.take(p_len - 4)?, "SCTP parameter value");
        let pad = (pad4(p_len) - p_len).min(r.remaining());
        r.take(pad)?;
        let exact = |want: usize| expect_len(what, p_len, want);
        Ok(match p_type {
            pt::IPV4_ADDRESS => {
                exact(8)?;
                InitParam::Ipv4Address(v.u32()?.into())
            }
            pt::STATE_COOKIE => InitParam::StateCookie(v.rest().to_vec()),
            pt::COOKIE_PRESERVATIVE => {
                exact(8)?;
                InitParam::CookiePreservative(v.u32()?)
            }
            pt::SUPPORTED_ADDRESS_TYPES => {
                if p_len % 2 != 0 {
                    return Err(WireError::bad_length(
                        what(),
                        format!("length {p_len} is not 4+2n"),
                    ));
                }
                let mut types = Vec::new();
                while v.remaining() > 0 {
                    types.push(v.u16()?);
                }
                InitParam::SupportedAddressTypes(types)
            }
            pt::SUPPORTED_EXTENSIONS => InitParam::SupportedExtensions(v.rest().to_vec()),
            pt::ECN_CAPABLE => {
                exact(4)?;
                InitParam::EcnCapable
            }
            _ => InitParam::Unknown {
                param_type: p_type,
                value: v.rest().to_vec(),
            },
        })
    }
}

#[cfg(test)]
#[path = "sctp_codec_tests.rs"]
mod tests;
