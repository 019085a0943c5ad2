//! SCTP chunk lines and `rexmit_wire` chunks, both ways: which fields each chunk name takes
//! (checked before a script runs), building an inbound chunk from its fields, comparing an
//! outbound chunk with its line, and writing a chunk the way a line would. TSNs of our data are
//! written relative to `Numbering::tsn_offset`; the peer's as they travel.

use crate::ast::{ChunkSpec, FieldVal};
use rexmit_wire::sctp::chunk_type;
use rexmit_wire::{
    Chunk, DataChunk, GapBlock, InitChunk, InitParam, NrSackChunk, Payload, SackChunk,
};

/// The fields (and parameters) each chunk takes; `...` is allowed everywhere.
const CHUNKS: &[(&str, &[&str])] = &[
    ("DATA", &["flgs", "len", "tsn", "sid", "ssn", "ppid"]),
    ("INIT", INIT_FIELDS),
    ("INIT_ACK", INIT_FIELDS),
    ("SACK", &["flgs", "cum_tsn", "a_rwnd", "gaps", "dups"]),
    (
        "NR_SACK",
        &["flgs", "cum_tsn", "a_rwnd", "gaps", "nr_gaps", "dups"],
    ),
    ("HEARTBEAT", &["flgs", "HEARTBEAT_INFORMATION"]),
    ("HEARTBEAT_ACK", &["flgs", "HEARTBEAT_INFORMATION"]),
    ("ABORT", &["flgs"]),
    ("SHUTDOWN", &["flgs", "cum_tsn"]),
    ("SHUTDOWN_ACK", &["flgs"]),
    ("SHUTDOWN_COMPLETE", &["flgs"]),
    ("COOKIE_ECHO", &["flgs", "len", "val"]),
    ("COOKIE_ACK", &["flgs"]),
];
const INIT_FIELDS: &[&str] = &[
    "flgs",
    "tag",
    "a_rwnd",
    "os",
    "is",
    "tsn",
    "STATE_COOKIE",
    "SUPPORTED_EXTENSIONS",
];
const PARAMS: &[(&str, &[&str])] = &[
    ("STATE_COOKIE", &["len", "val"]),
    ("HEARTBEAT_INFORMATION", &["len", "val"]),
    ("SUPPORTED_EXTENSIONS", &["types"]),
];

/// Check a chunk line's names before the script runs.
pub fn validate(c: &ChunkSpec) -> Result<(), (crate::lexer::Pos, String)> {
    let Some((_, fields)) = CHUNKS.iter().find(|(n, _)| *n == c.name) else {
        let names: Vec<&str> = CHUNKS.iter().map(|(n, _)| *n).collect();
        return Err((
            c.pos,
            format!("unknown SCTP chunk {} ({})", c.name, names.join(", ")),
        ));
    };
    for f in &c.fields {
        if f.name == "..." {
            continue;
        }
        if !fields.contains(&f.name.as_str()) {
            return Err((
                f.pos,
                format!("{} has no field {} ({})", c.name, f.name, fields.join(", ")),
            ));
        }
        if let FieldVal::Nested(p) = &f.value {
            let (_, pf) = PARAMS
                .iter()
                .find(|(n, _)| *n == p.name)
                .expect("listed above");
            for g in &p.fields {
                if g.name != "..." && !pf.contains(&g.name.as_str()) {
                    return Err((
                        g.pos,
                        format!("{} has no field {} ({})", p.name, g.name, pf.join(", ")),
                    ));
                }
            }
        } else if PARAMS.iter().any(|(n, _)| *n == f.name) {
            return Err((
                f.pos,
                format!("{} is a parameter: write {}[...]", f.name, f.name),
            ));
        }
    }
    Ok(())
}

/// How the script numbers our TSNs, and what inbound lines with `...` echo back.
#[derive(Clone, Debug, Default)]
pub struct Numbering {
    /// actual TSN = script TSN + offset.
    pub tsn_offset: u32,
    /// The cookie of our last INIT ACK (an inbound COOKIE_ECHO with `val=...` returns it).
    pub our_cookie: Vec<u8>,
    /// The info of our last HEARTBEAT (an inbound HEARTBEAT_ACK with `val=...` echoes it).
    pub our_hb_info: Vec<u8>,
}

fn field<'a>(c: &'a ChunkSpec, name: &str) -> Option<&'a FieldVal> {
    c.fields.iter().find(|f| f.name == name).map(|f| &f.value)
}

/// An integer field of an inbound chunk; `default` for `...` or when absent.
fn int(c: &ChunkSpec, name: &str, default: u64, max: u64) -> Result<u64, String> {
    match field(c, name) {
        None | Some(FieldVal::Any) => Ok(default),
        Some(FieldVal::Int(v)) if *v <= max => Ok(*v),
        Some(_) => Err(format!("{}: {name} must be a number in 0..={max}", c.name)),
    }
}

/// DATA flag letters (RFC 9260 §3.3.1, RFC 7053): I 0x08, U 0x04, B 0x02, E 0x01.
fn data_flags(v: Option<&FieldVal>) -> Result<Option<u8>, String> {
    Ok(match v {
        None | Some(FieldVal::Any) => None,
        Some(FieldVal::Int(x)) if *x <= 0x0f => Some(*x as u8),
        Some(FieldVal::Word(w)) => {
            let mut f = 0;
            for ch in w.chars() {
                f |= match ch {
                    'I' => 8,
                    'U' => 4,
                    'B' => 2,
                    'E' => 1,
                    _ => return Err(format!("DATA flgs={w}: letters of I, U, B, E")),
                };
            }
            Some(f)
        }
        Some(_) => return Err("DATA flgs: letters of I, U, B, E, or a number".into()),
    })
}

fn list(c: &ChunkSpec, name: &str) -> Result<Option<Vec<FieldVal>>, String> {
    match field(c, name) {
        None | Some(FieldVal::Any) => Ok(None),
        Some(FieldVal::List(v)) => Ok(Some(v.clone())),
        Some(_) => Err(format!("{}: {name} must be a list [..]", c.name)),
    }
}

fn gaps(c: &ChunkSpec, name: &str) -> Result<Vec<GapBlock>, String> {
    list(c, name)?
        .unwrap_or_default()
        .iter()
        .map(|g| match g {
            FieldVal::Block(s, e) if *s <= 0xffff && *e <= 0xffff => Ok(GapBlock {
                start: *s as u16,
                end: *e as u16,
            }),
            _ => Err(format!(
                "{}: {name} holds blocks start:end (offsets from cum_tsn)",
                c.name
            )),
        })
        .collect()
}

fn u32s(c: &ChunkSpec, name: &str) -> Result<Vec<u32>, String> {
    list(c, name)?
        .unwrap_or_default()
        .iter()
        .map(|g| match g {
            FieldVal::Int(v) if *v <= u32::MAX as u64 => Ok(*v as u32),
            _ => Err(format!("{}: {name} holds numbers", c.name)),
        })
        .collect()
}

/// The bytes of a `[len=N, val=...]` parameter: `default` for `val=...` when no length is
/// given; N - 4 zero bytes (the parameter header is 4 bytes) otherwise.
fn param_bytes(c: &ChunkSpec, pname: &str, default: &[u8]) -> Result<Vec<u8>, String> {
    let Some(FieldVal::Nested(p)) = field(c, pname) else {
        return Ok(default.to_vec());
    };
    match field(p, "len") {
        Some(FieldVal::Int(n)) if *n >= 4 && *n <= 4096 => Ok(vec![0; *n as usize - 4]),
        None | Some(FieldVal::Any) => Ok(default.to_vec()),
        Some(_) => Err(format!(
            "{pname}: len must be 4..=4096 (the parameter header included)"
        )),
    }
}

/// An inbound chunk from its line (the packet header's
/// verification tag is the caller's).
pub fn build(c: &ChunkSpec, n: &Numbering) -> Result<Chunk, String> {
    let tsn_in = |v: u64| (v as u32).wrapping_add(n.tsn_offset);
    let max32 = u32::MAX as u64;
    Ok(match c.name.as_str() {
        "DATA" => {
            let f = data_flags(field(c, "flgs"))?.unwrap_or(3);
            let len = match field(c, "len") {
                Some(FieldVal::Int(l)) if (17..=65_535).contains(l) => *l as u32 - 16,
                _ => return Err("DATA: len=N (the chunk length, 16-byte header included, at least 17) is required".into()),
            };
            Chunk::Data(DataChunk {
                immediate: f & 8 != 0,
                unordered: f & 4 != 0,
                beginning: f & 2 != 0,
                ending: f & 1 != 0,
                tsn: int(c, "tsn", 0, max32)? as u32,
                stream_id: int(c, "sid", 0, 0xffff)? as u16,
                ssn: int(c, "ssn", 0, 0xffff)? as u16,
                ppid: int(c, "ppid", 0, max32)? as u32,
                payload: Payload::zeros(len),
            })
        }
        "INIT" | "INIT_ACK" => {
            let mut params = Vec::new();
            if let Some(FieldVal::Nested(p)) = field(c, "SUPPORTED_EXTENSIONS") {
                let types = u32s(p, "types")?;
                params.push(InitParam::SupportedExtensions(
                    types.iter().map(|t| *t as u8).collect(),
                ));
            }
            if c.name == "INIT_ACK" {
                params.push(InitParam::StateCookie(param_bytes(
                    c,
                    "STATE_COOKIE",
                    b"rexmit-script-cookie",
                )?));
            }
            let init = InitChunk {
                initiate_tag: int(c, "tag", 1, max32)? as u32,
                a_rwnd: int(c, "a_rwnd", 65_536, max32)? as u32,
                outbound_streams: int(c, "os", 10, 0xffff)? as u16,
                inbound_streams: int(c, "is", 10, 0xffff)? as u16,
                initial_tsn: int(c, "tsn", 1, max32)? as u32,
                params,
            };
            if c.name == "INIT" {
                Chunk::Init(init)
            } else {
                Chunk::InitAck(init)
            }
        }
        "SACK" => Chunk::Sack(SackChunk {
            cum_tsn_ack: tsn_in(int(c, "cum_tsn", 0, max32)?),
            a_rwnd: int(c, "a_rwnd", 65_536, max32)? as u32,
            gap_blocks: gaps(c, "gaps")?,
            dup_tsns: u32s(c, "dups")?
                .into_iter()
                .map(|t| tsn_in(t as u64))
                .collect(),
            dac_packets: 0,
        }),
        "NR_SACK" => Chunk::NrSack(NrSackChunk {
            all_non_renegable: false,
            cum_tsn_ack: tsn_in(int(c, "cum_tsn", 0, max32)?),
            a_rwnd: int(c, "a_rwnd", 65_536, max32)? as u32,
            gap_blocks: gaps(c, "gaps")?,
            nr_gap_blocks: gaps(c, "nr_gaps")?,
            dup_tsns: u32s(c, "dups")?
                .into_iter()
                .map(|t| tsn_in(t as u64))
                .collect(),
            dac_packets: 0,
        }),
        "HEARTBEAT" => Chunk::Heartbeat {
            info: param_bytes(c, "HEARTBEAT_INFORMATION", &[0; 8])?,
        },
        "HEARTBEAT_ACK" => Chunk::HeartbeatAck {
            info: param_bytes(c, "HEARTBEAT_INFORMATION", &n.our_hb_info)?,
        },
        "ABORT" => Chunk::Abort {
            t_bit: int(c, "flgs", 0, 1)? == 1,
            causes: Vec::new(),
        },
        "SHUTDOWN" => Chunk::Shutdown {
            cum_tsn_ack: tsn_in(int(c, "cum_tsn", 0, max32)?),
        },
        "SHUTDOWN_ACK" => Chunk::ShutdownAck,
        "SHUTDOWN_COMPLETE" => Chunk::ShutdownComplete {
            t_bit: int(c, "flgs", 0, 1)? == 1,
        },
        "COOKIE_ECHO" => match field(c, "val") {
            None | Some(FieldVal::Any) => Chunk::CookieEcho {
                cookie: n.our_cookie.clone(),
            },
            Some(_) => {
                return Err(
                    "COOKIE_ECHO: write val=... (the cookie of the core's INIT_ACK is echoed)"
                        .into(),
                )
            }
        },
        "COOKIE_ACK" => Chunk::CookieAck,
        other => return Err(format!("unknown SCTP chunk {other}")),
    })
}

fn name_of(c: &Chunk) -> &'static str {
    match c.chunk_type() {
        chunk_type::DATA => "DATA",
        chunk_type::INIT => "INIT",
        chunk_type::INIT_ACK => "INIT_ACK",
        chunk_type::SACK => "SACK",
        chunk_type::NR_SACK => "NR_SACK",
        chunk_type::HEARTBEAT => "HEARTBEAT",
        chunk_type::HEARTBEAT_ACK => "HEARTBEAT_ACK",
        chunk_type::ABORT => "ABORT",
        chunk_type::SHUTDOWN => "SHUTDOWN",
        chunk_type::SHUTDOWN_ACK => "SHUTDOWN_ACK",
        chunk_type::SHUTDOWN_COMPLETE => "SHUTDOWN_COMPLETE",
        chunk_type::COOKIE_ECHO => "COOKIE_ECHO",
        chunk_type::COOKIE_ACK => "COOKIE_ACK",
        _ => "UNKNOWN",
    }
}

/// A chunk's fields in the script's numbering, in line order.
fn fields_of(c: &Chunk, n: &Numbering) -> Vec<(&'static str, String)> {
    let tsn = |t: u32| t.wrapping_sub(n.tsn_offset).to_string();
    let blocks = |g: &[GapBlock]| {
        let v: Vec<String> = g.iter().map(|b| format!("{}:{}", b.start, b.end)).collect();
        format!("[{}]", v.join(", "))
    };
    let nums = |d: &[u32], map: bool| {
        let v: Vec<String> = d
            .iter()
            .map(|t| if map { tsn(*t) } else { t.to_string() })
            .collect();
        format!("[{}]", v.join(", "))
    };
    match c {
        Chunk::Data(d) => {
            let mut f = String::new();
            for (on, ch) in [
                (d.immediate, 'I'),
                (d.unordered, 'U'),
                (d.beginning, 'B'),
                (d.ending, 'E'),
            ] {
                if on {
                    f.push(ch);
                }
            }
            if f.is_empty() {
                f.push('0');
            }
            vec![
                ("flgs", f),
                ("len", (16 + d.payload.len()).to_string()),
                ("tsn", tsn(d.tsn)),
                ("sid", d.stream_id.to_string()),
                ("ssn", d.ssn.to_string()),
                ("ppid", d.ppid.to_string()),
            ]
        }
        Chunk::Init(i) | Chunk::InitAck(i) => vec![
            ("flgs", "0".into()),
            ("tag", i.initiate_tag.to_string()),
            ("a_rwnd", i.a_rwnd.to_string()),
            ("os", i.outbound_streams.to_string()),
            ("is", i.inbound_streams.to_string()),
            ("tsn", i.initial_tsn.wrapping_sub(n.tsn_offset).to_string()),
        ],
        Chunk::Sack(s) => vec![
            ("flgs", "0".into()),
            ("cum_tsn", s.cum_tsn_ack.to_string()),
            ("a_rwnd", s.a_rwnd.to_string()),
            ("gaps", blocks(&s.gap_blocks)),
            ("dups", nums(&s.dup_tsns, false)),
        ],
        Chunk::NrSack(s) => vec![
            ("flgs", (s.all_non_renegable as u8).to_string()),
            ("cum_tsn", s.cum_tsn_ack.to_string()),
            ("a_rwnd", s.a_rwnd.to_string()),
            ("gaps", blocks(&s.gap_blocks)),
            ("nr_gaps", blocks(&s.nr_gap_blocks)),
            ("dups", nums(&s.dup_tsns, false)),
        ],
        Chunk::Abort { t_bit, .. } | Chunk::ShutdownComplete { t_bit } => {
            vec![("flgs", (*t_bit as u8).to_string())]
        }
        Chunk::Shutdown { cum_tsn_ack } => {
            vec![("flgs", "0".into()), ("cum_tsn", cum_tsn_ack.to_string())]
        }
        Chunk::CookieEcho { cookie } => vec![
            ("flgs", "0".into()),
            ("len", (4 + cookie.len()).to_string()),
        ],
        _ => vec![("flgs", "0".into())],
    }
}

/// A chunk as a line writes it.
pub fn format(c: &Chunk, n: &Numbering) -> String {
    let f: Vec<String> = fields_of(c, n)
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    format!("{}[{}]", name_of(c), f.join(", "))
}

fn field_text(v: &FieldVal) -> String {
    match v {
        FieldVal::Any => "...".into(),
        FieldVal::Int(i) => i.to_string(),
        FieldVal::Word(w) => w.clone(),
        FieldVal::Block(a, b) => format!("{a}:{b}"),
        FieldVal::List(items) => {
            let v: Vec<String> = items.iter().map(field_text).collect();
            format!("[{}]", v.join(", "))
        }
        FieldVal::Nested(p) => format!("{}[...]", p.name),
    }
}

/// Compare an outbound chunk with its line; record what later lines echo.
pub fn check(want: &ChunkSpec, got: &Chunk, n: &mut Numbering) -> Result<(), String> {
    let name = name_of(got);
    if want.name != name {
        return Err(format!(
            "bad outbound SCTP chunk: expected {}, actual {name}",
            want.name
        ));
    }
    // Mappings first: the INIT/INIT ACK's tsn names our first TSN.
    if let (Chunk::Init(i) | Chunk::InitAck(i), Some(FieldVal::Int(t))) = (got, field(want, "tsn"))
    {
        n.tsn_offset = i.initial_tsn.wrapping_sub(*t as u32);
    }
    match got {
        Chunk::InitAck(i) => {
            if let Some(c) = rexmit_sctp::handshake::state_cookie(&i.params) {
                n.our_cookie = c.to_vec();
            }
        }
        Chunk::Heartbeat { info } => n.our_hb_info = info.clone(),
        _ => {}
    }
    let actual = fields_of(got, n);
    for f in &want.fields {
        if matches!(f.value, FieldVal::Any | FieldVal::Nested(_)) {
            continue;
        }
        // Our tag is the core's choice: the line's tag only names it.
        if f.name == "tag" {
            continue;
        }
        let Some((_, a)) = actual.iter().find(|(k, _)| *k == f.name) else {
            continue;
        };
        let e = match (&f.value, f.name.as_str()) {
            (v, "flgs") if name == "DATA" => match data_flags(Some(v))? {
                Some(bits) => fields_of(&flag_probe(bits), n)[0].1.clone(),
                None => continue,
            },
            (v, _) => field_text(v),
        };
        if &e != a {
            return Err(format!(
                "bad outbound SCTP {name} {}: expected {e}, actual {a}",
                f.name
            ));
        }
    }
    Ok(())
}

/// A DATA chunk with these flag bits, for writing flags the way `fields_of` does.
fn flag_probe(bits: u8) -> Chunk {
    Chunk::Data(DataChunk {
        immediate: bits & 8 != 0,
        unordered: bits & 4 != 0,
        beginning: bits & 2 != 0,
        ending: bits & 1 != 0,
        tsn: 0,
        stream_id: 0,
        ssn: 0,
        ppid: 0,
        payload: Payload::empty(),
    })
}
