//! Packet lines. TCP in tcpdump's notation, as packetdrill writes it:
//! `< S. 0:0(0) ack 1 win 65535 <mss 1460,sackOK,TS val 100 ecr 0,nop,wscale 7>` (flags, then
//! `start:end(length)` relative to the sender's ISN, `ack`, `win`, options in any order, `<...>`
//! for any options, `*` for any value of an option). SCTP as a list of chunks:
//! `> sctp: DATA[flgs=BE, len=1016, tsn=1, sid=0, ssn=0, ppid=0]; SACK[...]` with `...` for any
//! value; what each chunk's fields mean is `sctp_host`'s.

use crate::ast::{
    ChunkSpec, Dir, EcnSpec, EventKind, Field, FieldVal, SctpPacket, TcpFlagSpec, TcpOpt,
    TcpPacket, Val,
};
use crate::lexer::{expect, integer, Lexer, PResult, ParseError, Pos, Tok};

/// A packet line after its time: `<` or `>`, then TCP or `sctp:`.
pub fn packet(lx: &mut Lexer) -> PResult<EventKind> {
    let (t, _) = lx.token()?;
    let dir = if t == Tok::Punct('<') {
        Dir::In
    } else {
        Dir::Out
    };
    if lx.at_text("sctp")? {
        lx.token()?;
        expect(lx, ':', "after 'sctp'")?;
        let mut chunks = vec![chunk(lx)?];
        while lx.peek()?.0 == Tok::Punct(';') {
            lx.token()?;
            chunks.push(chunk(lx)?);
        }
        return Ok(EventKind::Sctp(SctpPacket { dir, chunks }));
    }
    Ok(EventKind::Tcp(tcp(lx, dir)?))
}

fn u32_at(lx: &mut Lexer, what: &str) -> PResult<u32> {
    match lx.token()? {
        (Tok::Num(n), p) => Ok(integer(&n, p, u32::MAX as u64, what)? as u32),
        (other, p) => Err(ParseError::new(
            p,
            format!("expected the {what} (a number), found {other}"),
        )),
    }
}

fn flags(word: &str, pos: Pos) -> PResult<TcpFlagSpec> {
    let mut f = TcpFlagSpec::default();
    for c in word.chars() {
        let slot = match c {
            'S' => &mut f.syn,
            'F' => &mut f.fin,
            'R' => &mut f.rst,
            'P' => &mut f.psh,
            '.' => &mut f.ack,
            'U' => &mut f.urg,
            'E' => &mut f.ece,
            'W' => &mut f.cwr,
            _ => {
                return Err(ParseError::new(
                    pos,
                    format!(
                        "bad TCP flags '{word}': expected letters of S F R P U E W and '.' for ACK"
                    ),
                ))
            }
        };
        *slot = true;
    }
    Ok(f)
}

/// `[ect0]` and the like before the flags: the IP ECN field (packetdrill's notation).
fn ecn(lx: &mut Lexer, dir: Dir) -> PResult<Option<EcnSpec>> {
    if lx.peek()?.0 != Tok::Punct('[') {
        return Ok(None);
    }
    let (_, open) = lx.token()?;
    let (word, pos) = lx.raw_until("]", "an ECN codepoint '['", open)?;
    let spec = match word.trim() {
        "noecn" => EcnSpec::NoEcn,
        "ect0" => EcnSpec::Ect0,
        "ect1" => EcnSpec::Ect1,
        "ect01" if dir == Dir::Out => EcnSpec::Ect01,
        "ce" => EcnSpec::Ce,
        other => {
            return Err(ParseError::new(
                pos,
                format!(
                    "bad ECN codepoint [{other}]: expected noecn, ect0, ect1, ce (or ect01 on an outbound packet)"
                ),
            ))
        }
    };
    Ok(Some(spec))
}

fn tcp(lx: &mut Lexer, dir: Dir) -> PResult<TcpPacket> {
    let ecn = ecn(lx, dir)?;
    let (word, wpos) = lx.raw_word()?;
    let flags = flags(&word, wpos)?;
    let start = u32_at(lx, "start sequence number")?;
    expect(lx, ':', "between the start and end sequence numbers")?;
    let end = u32_at(lx, "end sequence number")?;
    let lpos = expect(lx, '(', "before the payload length")?;
    let len = u32_at(lx, "payload length")?;
    expect(lx, ')', "after the payload length")?;
    if end.wrapping_sub(start) != len {
        return Err(ParseError::new(
            lpos,
            format!("{start}:{end}({len}): the length must be end - start"),
        ));
    }
    let mut p = TcpPacket {
        dir,
        ecn,
        flags,
        start,
        end,
        len,
        ack: None,
        win: None,
        options: None,
    };
    loop {
        match lx.peek()?.0 {
            Tok::Ident(k) if k == "ack" => {
                lx.token()?;
                p.ack = Some(u32_at(lx, "acknowledgement number")?);
            }
            Tok::Ident(k) if k == "win" => {
                lx.token()?;
                p.win = Some(u32_at(lx, "window")?);
            }
            Tok::Punct('<') => {
                lx.token()?;
                p.options = options(lx)?;
            }
            _ => break,
        }
    }
    if p.flags.ack && p.ack.is_none() && dir == Dir::In {
        return Err(ParseError::new(
            wpos,
            "an inbound packet with '.' (ACK) needs 'ack N'",
        ));
    }
    if p.win.is_none() && dir == Dir::In {
        return Err(ParseError::new(
            wpos,
            "an inbound packet needs 'win N' (the raw window field)",
        ));
    }
    Ok(p)
}

fn val<T: TryFrom<u64>>(lx: &mut Lexer, what: &str, max: u64) -> PResult<Val<T>> {
    match lx.token()? {
        (Tok::Punct('*'), _) => Ok(Val::Any),
        (Tok::Num(n), p) => {
            let v = integer(&n, p, max, what)?;
            T::try_from(v)
                .map(Val::Is)
                .map_err(|_| ParseError::new(p, format!("{what} out of range")))
        }
        (other, p) => Err(ParseError::new(
            p,
            format!("expected the {what} (a number or *), found {other}"),
        )),
    }
}

/// The option list after its `<`; `None` for `<...>`.
fn options(lx: &mut Lexer) -> PResult<Option<Vec<TcpOpt>>> {
    if lx.peek()?.0 == Tok::Ellipsis {
        lx.token()?;
        expect(lx, '>', "after '<...'")?;
        return Ok(None);
    }
    let mut out = Vec::new();
    loop {
        let (t, pos) = lx.token()?;
        let Tok::Ident(name) = t else {
            return Err(ParseError::new(
                pos,
                format!("expected a TCP option name, found {t}"),
            ));
        };
        out.push(match name.as_str() {
            "nop" => TcpOpt::Nop,
            "eol" => TcpOpt::Eol,
            "sackOK" => TcpOpt::SackOk,
            "mss" => TcpOpt::Mss(val(lx, "MSS", u16::MAX as u64)?),
            "wscale" => TcpOpt::Wscale(val(lx, "window scale", u8::MAX as u64)?),
            "sack" => {
                let mut blocks = Vec::new();
                while let Tok::Num(_) = lx.peek()?.0 {
                    let l = u32_at(lx, "SACK block start")?;
                    expect(lx, ':', "inside a SACK block")?;
                    blocks.push((l, u32_at(lx, "SACK block end")?));
                }
                TcpOpt::Sack(blocks)
            }
            "TS" => {
                match lx.token()? {
                    (Tok::Ident(v), _) if v == "val" => {}
                    (other, p) => {
                        return Err(ParseError::new(
                            p,
                            format!("expected 'val' after TS, found {other}"),
                        ))
                    }
                }
                let v = val(lx, "TS val", u32::MAX as u64)?;
                match lx.token()? {
                    (Tok::Ident(e), _) if e == "ecr" => {}
                    (other, p) => {
                        return Err(ParseError::new(
                            p,
                            format!("expected 'ecr' after TS val, found {other}"),
                        ))
                    }
                }
                TcpOpt::Ts {
                    val: v,
                    ecr: val(lx, "TS ecr", u32::MAX as u64)?,
                }
            }
            other => {
                return Err(ParseError::new(
                    pos,
                    format!(
                    "unsupported TCP option '{other}' (nop, eol, mss, wscale, sackOK, sack, TS)"
                ),
                ))
            }
        });
        let (t, p) = lx.token()?;
        match t {
            Tok::Punct(',') => {}
            Tok::Punct('>') => return Ok(Some(out)),
            other => {
                return Err(ParseError::new(
                    p,
                    format!("expected ',' or '>' in the options, found {other}"),
                ))
            }
        }
    }
}

/// `NAME[field=value, ...]`.
fn chunk(lx: &mut Lexer) -> PResult<ChunkSpec> {
    let (t, pos) = lx.token()?;
    let Tok::Ident(name) = t else {
        return Err(ParseError::new(
            pos,
            format!("expected an SCTP chunk name (DATA, SACK, ...), found {t}"),
        ));
    };
    chunk_body(lx, name, pos)
}

/// A chunk or parameter whose name was read: `[` fields `]`; a field is `name=value`, `...`
/// (any further fields) or a parameter `NAME[...]`.
fn chunk_body(lx: &mut Lexer, name: String, pos: Pos) -> PResult<ChunkSpec> {
    expect(lx, '[', &format!("after {name}"))?;
    let mut fields = Vec::new();
    if lx.peek()?.0 == Tok::Punct(']') {
        lx.token()?;
        return Ok(ChunkSpec { name, pos, fields });
    }
    loop {
        let (t, fpos) = lx.token()?;
        let value = match &t {
            Tok::Ellipsis => FieldVal::Any,
            Tok::Ident(f) => match lx.peek()?.0 {
                Tok::Punct('=') => {
                    lx.token()?;
                    field_value(lx)?
                }
                Tok::Punct('[') => FieldVal::Nested(Box::new(chunk_body(lx, f.clone(), fpos)?)),
                other => {
                    return Err(ParseError::new(
                        fpos,
                        format!("expected '=' or '[' after {f}, found {other}"),
                    ))
                }
            },
            other => {
                return Err(ParseError::new(
                    fpos,
                    format!("expected a field name in {name}[...], found {other}"),
                ))
            }
        };
        let fname = match t {
            Tok::Ident(f) => f,
            _ => "...".into(),
        };
        fields.push(Field {
            name: fname,
            pos: fpos,
            value,
        });
        let (t, p) = lx.token()?;
        match t {
            Tok::Punct(',') => {}
            Tok::Punct(']') => return Ok(ChunkSpec { name, pos, fields }),
            other => {
                return Err(ParseError::new(
                    p,
                    format!("expected ',' or ']' in {name}[...], found {other}"),
                ))
            }
        }
    }
}

fn field_value(lx: &mut Lexer) -> PResult<FieldVal> {
    let (t, pos) = lx.token()?;
    Ok(match t {
        Tok::Ellipsis => FieldVal::Any,
        Tok::Num(n) => FieldVal::Int(integer(&n, pos, u64::MAX, "value")?),
        Tok::Ident(w) => FieldVal::Word(w),
        Tok::Punct('[') => {
            let mut items = Vec::new();
            if lx.peek()?.0 == Tok::Punct(']') {
                lx.token()?;
                return Ok(FieldVal::List(items));
            }
            loop {
                let (t, p) = lx.token()?;
                let item = match t {
                    Tok::Ellipsis => FieldVal::Any,
                    Tok::Num(n) => {
                        let a = integer(&n, p, u64::MAX, "value")?;
                        if lx.peek()?.0 == Tok::Punct(':') {
                            lx.token()?;
                            match lx.token()? {
                                (Tok::Num(m), q) => {
                                    FieldVal::Block(a, integer(&m, q, u64::MAX, "block end")?)
                                }
                                (other, q) => {
                                    return Err(ParseError::new(
                                        q,
                                        format!("expected a block end, found {other}"),
                                    ))
                                }
                            }
                        } else {
                            FieldVal::Int(a)
                        }
                    }
                    other => {
                        return Err(ParseError::new(
                            p,
                            format!("expected a number or a:b in the list, found {other}"),
                        ))
                    }
                };
                items.push(item);
                let (t, p) = lx.token()?;
                match t {
                    Tok::Punct(',') => {}
                    Tok::Punct(']') => break,
                    other => {
                        return Err(ParseError::new(
                            p,
                            format!("expected ',' or ']' in the list, found {other}"),
                        ))
                    }
                }
            }
            FieldVal::List(items)
        }
        other => {
            return Err(ParseError::new(
                pos,
                format!("expected a value (a number, a name, [..] or ...), found {other}"),
            ))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(src: &str) -> EventKind {
        let mut lx = Lexer::new(src);
        packet(&mut lx).unwrap()
    }

    #[test]
    fn tcp_lines() {
        let EventKind::Tcp(p) = one("> S. 0:0(0) ack 1 <mss 1460,nop,nop,sackOK,nop,wscale 7>")
        else {
            panic!()
        };
        assert!(p.flags.syn && p.flags.ack && !p.flags.fin);
        assert_eq!((p.ack, p.win), (Some(1), None));
        assert_eq!(
            p.options.unwrap(),
            vec![
                TcpOpt::Mss(Val::Is(1460)),
                TcpOpt::Nop,
                TcpOpt::Nop,
                TcpOpt::SackOk,
                TcpOpt::Nop,
                TcpOpt::Wscale(Val::Is(7))
            ]
        );
        let EventKind::Tcp(p) =
            one("< . 1:1(0) ack 1001 win 257 <nop,nop,sack 2001:3001 4001:5001,TS val 5 ecr *>")
        else {
            panic!()
        };
        assert_eq!(p.win, Some(257));
        let o = p.options.unwrap();
        assert_eq!(o[2], TcpOpt::Sack(vec![(2001, 3001), (4001, 5001)]));
        assert_eq!(
            o[3],
            TcpOpt::Ts {
                val: Val::Is(5),
                ecr: Val::Any
            }
        );
        let EventKind::Tcp(p) = one("> P. 1:4381(4380) ack 1 <...>") else {
            panic!()
        };
        assert_eq!((p.len, p.options), (4380, None));
    }

    #[test]
    fn ecn_codepoints_before_the_flags() {
        let ecn = |s: &str| match one(s) {
            EventKind::Tcp(p) => p.ecn,
            _ => panic!(),
        };
        assert_eq!(ecn("< [ce] . 1:1001(1000) ack 1 win 10"), Some(EcnSpec::Ce));
        assert_eq!(ecn("> [ect01] . 1:1001(1000) ack 1"), Some(EcnSpec::Ect01));
        assert_eq!(ecn("> [noecn] SEW 0:0(0)"), Some(EcnSpec::NoEcn));
        assert_eq!(ecn("> . 1:1(0) ack 1"), None);
        let e = |s: &str| packet(&mut Lexer::new(s)).unwrap_err().msg;
        assert!(e("< [ect01] . 1:1(0) ack 1 win 10").contains("outbound packet"));
        assert!(e("> [ect2] . 1:1(0) ack 1").contains("bad ECN codepoint [ect2]"));
    }

    #[test]
    fn tcp_errors() {
        let e = |s: &str| packet(&mut Lexer::new(s)).unwrap_err();
        assert!(e("< . 1:1(0) win 10").msg.contains("needs 'ack N'"));
        assert!(e("< S 0:0(0)").msg.contains("needs 'win N'"));
        assert!(e("> . 1:10(3) ack 1").msg.contains("end - start"));
        assert!(e("> X 1:1(0)").msg.contains("bad TCP flags"));
        assert_eq!(e("> . 1:1(0) ack 1 <md5 1>").pos.col, 19);
    }

    #[test]
    fn sctp_lines() {
        let EventKind::Sctp(p) = one(
            "< sctp: INIT_ACK[flgs=0, tag=2, a_rwnd=1500, os=1, is=1, tsn=1, STATE_COOKIE[len=4, val=...]]; SACK[flgs=0, cum_tsn=3, a_rwnd=1500, gaps=[2:3, 5:5], dups=[]]",
        ) else {
            panic!()
        };
        assert_eq!(p.dir, Dir::In);
        assert_eq!(p.chunks.len(), 2);
        let FieldVal::Nested(c) = &p.chunks[0].fields[6].value else {
            panic!()
        };
        assert_eq!(c.name, "STATE_COOKIE");
        assert_eq!(c.fields[1].value, FieldVal::Any);
        assert_eq!(
            p.chunks[1].fields[3].value,
            FieldVal::List(vec![FieldVal::Block(2, 3), FieldVal::Block(5, 5)])
        );
        let EventKind::Sctp(p) =
            one("> sctp: DATA[flgs=BE, len=1016, tsn=1, sid=0, ssn=0, ppid=...]")
        else {
            panic!()
        };
        assert_eq!(p.chunks[0].fields[0].value, FieldVal::Word("BE".into()));
    }
}
