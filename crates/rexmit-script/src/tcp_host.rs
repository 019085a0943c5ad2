//! The TCP core under a script: a `rexmit_tcp::Connection`, its packets converted from and to
//! the script's numbering (sequence numbers relative to each side's ISN, as packetdrill writes
//! them), the socket operations, and the `tcp_info` variables assertions read.
//!
//! Numbering: the core's ISN is `LOCAL_ISS` and the script writes our sequence numbers (and
//! the peer's ACKs and SACK blocks of our data) relative to it; the peer's numbers are written
//! as they travel (`REMOTE_OFFSET` 0), so the peer's ISN is whatever its SYN line says.
//! Timestamps: an outbound TS val is not compared (rexmit's clock is 1 ms since the start); the
//! value the script wrote for it is remembered, and an inbound TS ecr equal to such a value is
//! sent as the actual TS val it named (packetdrill's mapping).

use crate::ast::{Dir, EcnSpec, EventKind, TcpOpt, TcpPacket, Val};
use crate::host::{ConnError, Proto, Wire};
use crate::settings::{SetResult, Settings, SockVal};
use crate::tcp_vars;
use rexmit_tcp::{Connection, Event, State, TcpConfig};
use rexmit_time::Time;
use rexmit_wire::{Ecn, Payload, SackBlock, TcpFlags, TcpOptions, TcpSegment, Timestamps};
use std::collections::HashMap;

/// The core's initial sequence number (the script's 0).
pub const LOCAL_ISS: u32 = 1_000_000;
/// The peer's numbers are written as they travel.
pub const REMOTE_OFFSET: u32 = 0;
const SERVER_PORT: u16 = 8080;
const CLIENT_PORT: u16 = 40_000;

#[derive(Default)]
pub struct TcpHost {
    conn: Option<Connection>,
    cfg: Option<TcpConfig>,
    local_port: u16,
    remote_port: u16,
    established: bool,
    peer_closed: bool,
    closed_by_app: bool,
    error: Option<ConnError>,
    /// Script TS val → actual TS val, from matched outbound lines (lookups only).
    ts_map: HashMap<u32, u32>,
}

impl TcpHost {
    pub fn new() -> Self {
        TcpHost::default()
    }

    fn segment(&self, p: &TcpPacket) -> Result<TcpSegment, String> {
        let f = p.flags;
        let mut flags = TcpFlags::default();
        for (on, bit) in [
            (f.syn, TcpFlags::SYN),
            (f.fin, TcpFlags::FIN),
            (f.rst, TcpFlags::RST),
            (f.psh, TcpFlags::PSH),
            (f.ack, TcpFlags::ACK),
            (f.urg, TcpFlags::URG),
            (f.ece, TcpFlags::ECE),
            (f.cwr, TcpFlags::CWR),
        ] {
            if on {
                flags.insert(bit);
            }
        }
        let win = p.win.unwrap_or(0);
        let window = u16::try_from(win)
            .map_err(|_| format!("win {win}: the window field is 16 bits (0..=65535)"))?;
        let mut options = TcpOptions::default();
        for o in p.options.iter().flatten() {
            let any = |what: &str| format!("'*' is for outbound packets only ({what})");
            match o {
                TcpOpt::Nop | TcpOpt::Eol => {}
                TcpOpt::SackOk => options.sack_permitted = true,
                TcpOpt::Mss(Val::Is(m)) => options.mss = Some(*m),
                TcpOpt::Wscale(Val::Is(s)) => options.window_scale = Some(*s),
                TcpOpt::Ts {
                    val: Val::Is(v),
                    ecr: Val::Is(e),
                } => {
                    let ecr = self.ts_map.get(e).copied().unwrap_or(*e);
                    options.timestamps = Some(Timestamps {
                        tsval: *v,
                        tsecr: ecr,
                    });
                }
                TcpOpt::Sack(blocks) => {
                    for &(l, r) in blocks {
                        let b = SackBlock {
                            left: l.wrapping_add(LOCAL_ISS),
                            right: r.wrapping_add(LOCAL_ISS),
                        };
                        if options.sack_blocks.try_push(b).is_err() {
                            return Err("at most 4 SACK blocks fit in a TCP header".into());
                        }
                    }
                }
                TcpOpt::Mss(Val::Any) => return Err(any("mss")),
                TcpOpt::Wscale(Val::Any) => return Err(any("wscale")),
                TcpOpt::Ts { .. } => return Err(any("TS")),
            }
        }
        if options.wire_len() > rexmit_wire::tcp::TCP_MAX_OPTIONS_LEN {
            return Err("the options do not fit in 40 bytes".into());
        }
        Ok(TcpSegment {
            src_port: self.remote_port,
            dst_port: self.local_port,
            seq: p.start.wrapping_add(REMOTE_OFFSET),
            ack: p.ack.map_or(0, |a| a.wrapping_add(LOCAL_ISS)),
            flags,
            window,
            urgent: 0,
            options,
            payload: Payload::zeros(p.len),
        })
    }
}

/// Our sequence number in the script's numbering.
fn rel_local(seq: u32) -> u32 {
    seq.wrapping_sub(LOCAL_ISS)
}

fn rel_remote(seq: u32) -> u32 {
    seq.wrapping_sub(REMOTE_OFFSET)
}

fn flags_text(f: TcpFlags) -> String {
    let mut s = String::new();
    for (bit, c) in [
        (TcpFlags::SYN, 'S'),
        (TcpFlags::FIN, 'F'),
        (TcpFlags::RST, 'R'),
        (TcpFlags::PSH, 'P'),
        (TcpFlags::URG, 'U'),
        (TcpFlags::ECE, 'E'),
        (TcpFlags::CWR, 'W'),
        (TcpFlags::ACK, '.'),
    ] {
        if f.contains(bit) {
            s.push(c);
        }
    }
    s
}

/// The ECN field as a script writes it (`[ect0]` ...).
fn ecn_text(e: Ecn) -> &'static str {
    match e {
        Ecn::NotEct => "[noecn]",
        Ecn::Ect0 => "[ect0]",
        Ecn::Ect1 => "[ect1]",
        Ecn::Ce => "[ce]",
    }
}

/// A segment as a script line writes it (relative numbers; options without their NOPs); the
/// ECN field first when the packet is ECN-capable.
pub fn format_segment(s: &TcpSegment, ecn: Ecn) -> String {
    let start = rel_local(s.seq);
    let len = s.payload.len() as u32;
    let prefix = if ecn == Ecn::NotEct {
        String::new()
    } else {
        format!("{} ", ecn_text(ecn))
    };
    let mut out = format!(
        "{prefix}{} {start}:{}({len})",
        flags_text(s.flags),
        start.wrapping_add(len)
    );
    if s.flags.contains(TcpFlags::ACK) {
        out += &format!(" ack {}", rel_remote(s.ack));
    }
    out += &format!(" win {}", s.window);
    let o = &s.options;
    let mut opts = Vec::new();
    if let Some(m) = o.mss {
        opts.push(format!("mss {m}"));
    }
    if o.sack_permitted {
        opts.push("sackOK".into());
    }
    if let Some(t) = o.timestamps {
        opts.push(format!("TS val {} ecr {}", t.tsval, t.tsecr));
    }
    if let Some(w) = o.window_scale {
        opts.push(format!("wscale {w}"));
    }
    if !o.sack_blocks.is_empty() {
        let b: Vec<String> = o
            .sack_blocks
            .iter()
            .map(|b| format!("{}:{}", rel_remote(b.left), rel_remote(b.right)))
            .collect();
        opts.push(format!("sack {}", b.join(" ")));
    }
    if !opts.is_empty() {
        out += &format!(" <{}>", opts.join(","));
    }
    out
}

/// The ECN field of an outbound packet against the line's `[...]`, when written.
fn check_ecn(p: &TcpPacket, ecn: Ecn) -> Result<(), String> {
    let ok = match p.ecn {
        None => true,
        Some(EcnSpec::NoEcn) => ecn == Ecn::NotEct,
        Some(EcnSpec::Ect0) => ecn == Ecn::Ect0,
        Some(EcnSpec::Ect1) => ecn == Ecn::Ect1,
        Some(EcnSpec::Ect01) => matches!(ecn, Ecn::Ect0 | Ecn::Ect1),
        Some(EcnSpec::Ce) => ecn == Ecn::Ce,
    };
    if ok {
        return Ok(());
    }
    let want = match p.ecn {
        Some(EcnSpec::Ect01) => "[ect01]",
        Some(EcnSpec::NoEcn) | None => "[noecn]",
        Some(EcnSpec::Ect0) => "[ect0]",
        Some(EcnSpec::Ect1) => "[ect1]",
        Some(EcnSpec::Ce) => "[ce]",
    };
    Err(format!(
        "bad outbound ECN field: expected {want}, actual {}",
        ecn_text(ecn)
    ))
}

fn check_flags(p: &TcpPacket, s: &TcpSegment, last: bool) -> Result<(), String> {
    let f = p.flags;
    // PSH is not compared: rexmit never sets it (Linux sets it on the last segment of a write).
    let want = [
        (f.syn, TcpFlags::SYN, "SYN"),
        (f.fin && last, TcpFlags::FIN, "FIN"),
        (f.rst, TcpFlags::RST, "RST"),
        (f.ack, TcpFlags::ACK, "ACK"),
        (f.urg, TcpFlags::URG, "URG"),
        (f.ece, TcpFlags::ECE, "ECE"),
        (f.cwr, TcpFlags::CWR, "CWR"),
    ];
    for (on, bit, name) in want {
        if on != s.flags.contains(bit) {
            return Err(format!(
                "bad outbound TCP flags: {name} expected {}, actual {}",
                if on { "set" } else { "clear" },
                if on { "clear" } else { "set" }
            ));
        }
    }
    Ok(())
}

fn check_options(
    want: &[TcpOpt],
    s: &TcpSegment,
    ts_map: &mut HashMap<u32, u32>,
) -> Result<(), String> {
    let o = &s.options;
    let (mut mss, mut ws, mut sack_ok, mut ts, mut sack) = (None, None, false, None, None);
    for w in want {
        match w {
            TcpOpt::Nop | TcpOpt::Eol => {}
            TcpOpt::Mss(v) => mss = Some(*v),
            TcpOpt::Wscale(v) => ws = Some(*v),
            TcpOpt::SackOk => sack_ok = true,
            TcpOpt::Ts { val, ecr } => ts = Some((*val, *ecr)),
            TcpOpt::Sack(b) => sack = Some(b.clone()),
        }
    }
    let bad = |what: &str, e: String, a: String| {
        Err(format!(
            "bad outbound TCP option {what}: expected {e}, actual {a}"
        ))
    };
    let show = |x: Option<String>| x.unwrap_or_else(|| "none".into());
    match (mss, o.mss) {
        (None, None) | (Some(Val::Any), Some(_)) => {}
        (Some(Val::Is(a)), Some(b)) if a == b => {}
        (e, a) => {
            return bad(
                "mss",
                show(e.map(|v| fmt_val(&v))),
                show(a.map(|v| v.to_string())),
            )
        }
    }
    match (ws, o.window_scale) {
        (None, None) | (Some(Val::Any), Some(_)) => {}
        (Some(Val::Is(a)), Some(b)) if a == b => {}
        (e, a) => {
            return bad(
                "wscale",
                show(e.map(|v| fmt_val(&v))),
                show(a.map(|v| v.to_string())),
            )
        }
    }
    if sack_ok != o.sack_permitted {
        return bad("sackOK", yes_no(sack_ok), yes_no(o.sack_permitted));
    }
    match (ts, o.timestamps) {
        (None, None) => {}
        (Some((val, ecr)), Some(t)) => {
            if let Val::Is(v) = val {
                ts_map.insert(v, t.tsval);
            }
            if let Val::Is(e) = ecr {
                if e != t.tsecr {
                    return bad("TS ecr", e.to_string(), t.tsecr.to_string());
                }
            }
        }
        (e, a) => return bad("TS", yes_no(e.is_some()), yes_no(a.is_some())),
    }
    let actual: Vec<(u32, u32)> = o
        .sack_blocks
        .iter()
        .map(|b| (rel_remote(b.left), rel_remote(b.right)))
        .collect();
    let blocks = |b: &[(u32, u32)]| {
        b.iter()
            .map(|(l, r)| format!("{l}:{r}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let expected = sack.unwrap_or_default();
    if expected != actual {
        let e = if expected.is_empty() {
            "none".into()
        } else {
            blocks(&expected)
        };
        let a = if actual.is_empty() {
            "none".into()
        } else {
            blocks(&actual)
        };
        return bad("sack", e, a);
    }
    Ok(())
}

fn fmt_val<T: std::fmt::Display>(v: &Val<T>) -> String {
    match v {
        Val::Is(x) => x.to_string(),
        Val::Any => "*".into(),
    }
}

fn yes_no(b: bool) -> String {
    if b { "present" } else { "absent" }.into()
}

fn segments(got: &[Wire]) -> Vec<(&TcpSegment, Ecn)> {
    got.iter()
        .filter_map(|w| match w {
            Wire::Tcp(s, e) => Some((s, *e)),
            Wire::Sctp(_) => None,
        })
        .collect()
}

impl Proto for TcpHost {
    fn exists(&self) -> bool {
        self.conn.is_some()
    }

    fn listen(&mut self, settings: &Settings) -> SetResult<()> {
        let cfg = settings.tcp_config()?;
        self.local_port = SERVER_PORT;
        self.remote_port = CLIENT_PORT;
        self.conn = Some(Connection::listen(cfg.clone(), SERVER_PORT, LOCAL_ISS));
        self.cfg = Some(cfg);
        Ok(())
    }

    fn connect(&mut self, settings: &Settings, now: Time) -> SetResult<()> {
        let cfg = settings.tcp_config()?;
        self.local_port = CLIENT_PORT;
        self.remote_port = SERVER_PORT;
        self.conn = Some(Connection::connect(
            cfg.clone(),
            CLIENT_PORT,
            SERVER_PORT,
            LOCAL_ISS,
            now,
        ));
        self.cfg = Some(cfg);
        Ok(())
    }

    fn established(&self) -> bool {
        self.established
    }

    fn error(&self) -> Option<ConnError> {
        self.error
    }

    fn write(&mut self, now: Time, n: usize) -> Result<usize, &'static str> {
        let Some(c) = self.conn.as_mut() else {
            return Err("ENOTCONN");
        };
        if self.error.is_some() || self.closed_by_app {
            return Err("EPIPE");
        }
        if matches!(c.state(), State::Listen | State::Closed) {
            return Err("ENOTCONN");
        }
        Ok(c.send(now, n))
    }

    fn read(&mut self, n: usize) -> Option<usize> {
        let c = self.conn.as_mut()?;
        (c.readable() > 0).then(|| c.recv(n).len())
    }

    fn peer_closed(&self) -> bool {
        self.peer_closed
    }

    fn close(&mut self, now: Time) {
        self.closed_by_app = true;
        if let Some(c) = self.conn.as_mut() {
            c.close(now);
        }
    }

    fn sockopt(&self, name: &str) -> Option<SockVal> {
        let cfg = self.cfg.as_ref()?;
        let smss = self.conn.as_ref().map_or(cfg.mss as u64, |c| c.smss());
        Settings::tcp_sockopt_value(name, cfg, smss)
    }

    fn poll_timeout(&self) -> Option<Time> {
        self.conn.as_ref()?.poll_timeout()
    }

    fn handle_timeout(&mut self, now: Time) {
        if let Some(c) = self.conn.as_mut() {
            c.handle_timeout(now);
        }
    }

    fn drain(&mut self, now: Time, out: &mut Vec<Wire>) {
        let Some(c) = self.conn.as_mut() else { return };
        while let Some((s, ecn)) = c.poll_transmit_ecn(now) {
            out.push(Wire::Tcp(s, ecn));
        }
        while let Some(e) = c.poll_event() {
            match e {
                Event::Connected => self.established = true,
                Event::PeerClosed => self.peer_closed = true,
                Event::Reset => self.error = Some(ConnError::Reset),
                Event::TimedOut => self.error = Some(ConnError::TimedOut),
                Event::Delivered { .. } | Event::SendBufferSpace | Event::Closed => {}
            }
        }
    }

    fn inject(&mut self, now: Time, pkt: &EventKind) -> Result<(), String> {
        let EventKind::Tcp(p) = pkt else {
            return Err("an SCTP packet in a TCP script".into());
        };
        debug_assert_eq!(p.dir, Dir::In);
        let seg = self.segment(p)?;
        let ecn = match p.ecn {
            None | Some(EcnSpec::NoEcn) => Ecn::NotEct,
            Some(EcnSpec::Ect0) => Ecn::Ect0,
            Some(EcnSpec::Ect1) => Ecn::Ect1,
            Some(EcnSpec::Ce) => Ecn::Ce,
            Some(EcnSpec::Ect01) => return Err("[ect01] is for outbound packets only".into()),
        };
        let Some(c) = self.conn.as_mut() else {
            return Err(
                "an inbound packet before listen() or connect(): no core to take it".into(),
            );
        };
        c.handle_segment_ecn(now, &seg, ecn);
        Ok(())
    }

    fn check(&mut self, expected: &EventKind, got: &[Wire]) -> Result<(), String> {
        let EventKind::Tcp(p) = expected else {
            return Err("expected an SCTP packet, the core is TCP".into());
        };
        let segs = segments(got);
        let mut next = p.start;
        for (i, &(s, ecn)) in segs.iter().enumerate() {
            let last = i + 1 == segs.len();
            check_ecn(p, ecn)?;
            check_flags(p, s, last)?;
            let start = rel_local(s.seq);
            if start != next {
                let what = if i == 0 {
                    "sequence number".to_string()
                } else {
                    format!("sequence number of segment {} of the burst", i + 1)
                };
                return Err(format!(
                    "bad outbound TCP {what}: expected {next}, actual {start}"
                ));
            }
            next = start.wrapping_add(s.payload.len() as u32);
            if let (Some(a), true) = (p.ack, s.flags.contains(TcpFlags::ACK)) {
                let actual = rel_remote(s.ack);
                if a != actual {
                    return Err(format!(
                        "bad outbound TCP ack: expected {a}, actual {actual}"
                    ));
                }
            }
            if let Some(w) = p.win {
                if w != s.window as u32 {
                    return Err(format!(
                        "bad outbound TCP window: expected {w}, actual {}",
                        s.window
                    ));
                }
            }
            if let Some(opts) = &p.options {
                check_options(opts, s, &mut self.ts_map)?;
            }
        }
        let len = next.wrapping_sub(p.start);
        if len != p.len {
            let n = segs.len();
            let pieces = if n > 1 {
                format!(" ({n} segments)")
            } else {
                String::new()
            };
            return Err(format!(
                "bad outbound TCP payload length: expected {}, actual {len}{pieces}",
                p.len
            ));
        }
        Ok(())
    }

    fn wants_more(&self, expected: &EventKind, got: &[Wire]) -> bool {
        let EventKind::Tcp(p) = expected else {
            return false;
        };
        let segs = segments(got);
        let sent: u64 = segs.iter().map(|(s, _)| s.payload.len() as u64).sum();
        let data = segs
            .iter()
            .all(|(s, _)| !s.payload.is_empty() && !s.flags.contains(TcpFlags::FIN));
        data && segs.len() == got.len() && sent < p.len as u64
    }

    fn format(&self, w: &Wire) -> String {
        match w {
            Wire::Tcp(s, ecn) => format_segment(s, *ecn),
            Wire::Sctp(_) => "an SCTP packet".into(),
        }
    }

    fn var(&self, name: &str) -> Option<f64> {
        tcp_vars::value(self.conn.as_ref()?, name)
    }
}
