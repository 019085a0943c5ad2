//! The script grammar (packetdrill's, as the paper and its documentation describe it): header
//! option lines, then events, each a time and one of a packet line, a system call, a shell
//! command in backticks or an assertion block `%{ ... }%`. Packet lines are `packet`'s.
//! Errors name the line and column; nothing here panics on any input.

use crate::ast::{Arg, Event, EventKind, Point, Script, Syscall, TimeSpec};
use crate::expr;
use crate::lexer::{expect, integer, Lexer, PResult, ParseError, Pos, Tok};
use crate::packet;

/// Parse a whole script.
pub fn parse(src: &str) -> PResult<Script> {
    let mut lx = Lexer::new(src);
    let mut script = Script::default();
    while lx.at_text("--")? {
        let start = lx.offset();
        lx.rewind(start + 2);
        let (line, pos) = lx.raw_line();
        // A trailing `// comment` is not part of the value.
        let line = line
            .split(" //")
            .next()
            .unwrap_or("")
            .trim_end()
            .to_string();
        let (name, value) = line.split_once('=').unwrap_or((line.as_str(), ""));
        let name = name.trim();
        if name.is_empty() || name.contains(char::is_whitespace) {
            return Err(ParseError::new(
                pos,
                format!("bad option line '--{line}': expected --name=value"),
            ));
        }
        script
            .options
            .push((name.to_string(), value.trim().to_string(), pos));
    }
    loop {
        lx.skip_trivia()?;
        let pos = lx.pos_of(lx.offset());
        if lx.at_end() {
            return Ok(script);
        }
        if lx.at_text("--")? {
            return Err(ParseError::new(
                pos,
                "option lines (--name=value) come before the first event",
            ));
        }
        script.events.push(event(&mut lx, pos)?);
    }
}

/// Exact seconds to nanoseconds (`0.1`, `.25`, `3`), up to nine decimals.
pub fn seconds(text: &str, pos: Pos) -> PResult<u64> {
    let bad = || {
        ParseError::new(
            pos,
            format!("bad time '{text}': expected seconds such as 0.1"),
        )
    };
    let (int, frac) = text.split_once('.').unwrap_or((text, ""));
    if frac.len() > 9 || text.starts_with("0x") || (int.is_empty() && frac.is_empty()) {
        return Err(bad());
    }
    let int: u64 = if int.is_empty() {
        0
    } else {
        int.parse().map_err(|_| bad())?
    };
    let mut ns: u64 = 0;
    for (i, d) in frac.chars().enumerate() {
        let d = d.to_digit(10).ok_or_else(bad)? as u64;
        ns += d * 10u64.pow(8 - i as u32);
    }
    if int > MAX_SECONDS {
        return Err(ParseError::new(
            pos,
            format!("time '{text}' is too large: at most {MAX_SECONDS} seconds"),
        ));
    }
    Ok(int * 1_000_000_000 + ns)
}

/// The largest time a script may write (about 11.6 days).
pub const MAX_SECONDS: u64 = 1_000_000;

fn point(lx: &mut Lexer) -> PResult<Point> {
    let (mut t, mut pos) = lx.token()?;
    let rel = t == Tok::Punct('+');
    if rel {
        (t, pos) = lx.token()?;
    }
    let Tok::Num(n) = t else {
        return Err(ParseError::new(pos, format!("expected a time, found {t}")));
    };
    let ns = seconds(&n, pos)?;
    Ok(if rel { Point::Rel(ns) } else { Point::Abs(ns) })
}

fn time(lx: &mut Lexer) -> PResult<TimeSpec> {
    if lx.at_text("`")? || lx.at_text("%{")? {
        // A command or an assertion block without a time runs where the previous event was.
        return Ok(TimeSpec::At(Point::Rel(0)));
    }
    let (t, _) = lx.peek()?;
    if t == Tok::Punct('*') {
        lx.token()?;
        return Ok(TimeSpec::Any);
    }
    let start = point(lx)?;
    let (t, _) = lx.peek()?;
    Ok(match t {
        Tok::Punct('~') => {
            lx.token()?;
            TimeSpec::Range(start, point(lx)?)
        }
        Tok::Ellipsis => {
            lx.token()?;
            TimeSpec::Blocking(start, point(lx)?)
        }
        _ => TimeSpec::At(start),
    })
}

fn event(lx: &mut Lexer, pos: Pos) -> PResult<Event> {
    let time = time(lx)?;
    lx.skip_trivia()?;
    let from = lx.offset();
    let kind = if lx.at_text("`")? {
        let open = lx.pos_of(lx.offset());
        lx.rewind(lx.offset() + 1);
        let (cmd, _) = lx.raw_until("`", "a shell command '`'", open)?;
        EventKind::Command(cmd.trim().to_string())
    } else if lx.at_text("%{")? {
        let open = lx.pos_of(lx.offset());
        lx.rewind(lx.offset() + 2);
        let base = lx.offset();
        let (code, _) = lx.raw_until("}%", "an assertion block '%{'", open)?;
        let stmts = expr::parse_block(&code, |off| lx.pos_of(base + off))?;
        EventKind::Code(stmts)
    } else {
        let (t, tpos) = lx.peek()?;
        match t {
            Tok::Punct('<') | Tok::Punct('>') => packet::packet(lx)?,
            Tok::Ident(_) => EventKind::Syscall(syscall(lx)?),
            other => {
                return Err(ParseError::new(
                    tpos,
                    format!(
                        "expected a packet ('<' or '>'), a system call, a `command` or %{{ ... }}% after the time, found {other}"
                    ),
                ))
            }
        }
    };
    if matches!(time, TimeSpec::Any)
        && !matches!(&kind, EventKind::Tcp(p) if p.dir == crate::ast::Dir::Out)
        && !matches!(&kind, EventKind::Sctp(p) if p.dir == crate::ast::Dir::Out)
    {
        return Err(ParseError::new(
            pos,
            "the time '*' is for outbound packets ('>') only",
        ));
    }
    if matches!(time, TimeSpec::Blocking(..)) && !matches!(kind, EventKind::Syscall(_)) {
        return Err(ParseError::new(
            pos,
            "a 'start...end' time is for blocking system calls only",
        ));
    }
    let text = lx
        .slice(from, lx.offset())
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    Ok(Event {
        pos,
        time,
        kind,
        text,
    })
}

fn syscall(lx: &mut Lexer) -> PResult<Syscall> {
    let (t, pos) = lx.token()?;
    let Tok::Ident(name) = t else {
        return Err(ParseError::new(pos, "expected a system call name"));
    };
    expect(lx, '(', &format!("after '{name}'"))?;
    let mut args = Vec::new();
    if lx.peek()?.0 == Tok::Punct(')') {
        lx.token()?;
    } else {
        loop {
            let p = lx.peek()?.1;
            args.push((arg(lx)?, p));
            let (t, p) = lx.token()?;
            match t {
                Tok::Punct(',') => {}
                Tok::Punct(')') => break,
                other => {
                    return Err(ParseError::new(
                        p,
                        format!("expected ',' or ')' in the arguments of {name}, found {other}"),
                    ))
                }
            }
        }
    }
    expect(
        lx,
        '=',
        &format!("and the expected result after {name}(...)"),
    )?;
    let (t, p) = lx.token()?;
    let ret = match t {
        Tok::Ellipsis => None,
        Tok::Punct('-') => match lx.token()? {
            (Tok::Num(n), p) => Some(-(integer(&n, p, i64::MAX as u64, "result")? as i64)),
            (other, p) => {
                return Err(ParseError::new(
                    p,
                    format!("expected a number after '-', found {other}"),
                ))
            }
        },
        Tok::Num(n) => Some(integer(&n, p, i64::MAX as u64, "result")? as i64),
        other => {
            return Err(ParseError::new(
                p,
                format!("expected the result of {name} (a number or ...), found {other}"),
            ))
        }
    };
    let mut errno = None;
    if let (Tok::Ident(e), _) = lx.peek()? {
        if e.starts_with('E')
            && e.chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
        {
            lx.token()?;
            errno = Some(e);
            if lx.peek()?.0 == Tok::Punct('(') {
                let (_, open) = lx.token()?;
                lx.raw_until(")", "an errno's description '('", open)?;
            }
        }
    }
    Ok(Syscall {
        name,
        args,
        ret,
        errno,
    })
}

/// One system call argument (strace notation).
fn arg(lx: &mut Lexer) -> PResult<Arg> {
    let (t, pos) = lx.token()?;
    Ok(match t {
        Tok::Ellipsis => Arg::Any,
        Tok::Num(n) => Arg::Int(integer(&n, pos, i64::MAX as u64, "argument")? as i64),
        Tok::Punct('-') => match lx.token()? {
            (Tok::Num(n), p) => Arg::Int(-(integer(&n, p, i64::MAX as u64, "argument")? as i64)),
            (other, p) => {
                return Err(ParseError::new(p, format!("expected a number after '-', found {other}")))
            }
        },
        Tok::Str(s) => Arg::Str(s),
        Tok::Punct('[') => {
            let mut items = Vec::new();
            if lx.peek()?.0 == Tok::Punct(']') {
                lx.token()?;
            } else {
                loop {
                    items.push(arg(lx)?);
                    let (t, p) = lx.token()?;
                    match t {
                        Tok::Punct(',') => {}
                        Tok::Punct(']') => break,
                        other => {
                            return Err(ParseError::new(p, format!("expected ',' or ']', found {other}")))
                        }
                    }
                }
            }
            Arg::List(items)
        }
        Tok::Punct('{') => structure(lx)?,
        Tok::Ident(first) => {
            if lx.peek()?.0 == Tok::Punct('(') {
                // A macro-like value such as htons(8080): only its name is kept.
                lx.token()?;
                skip_nested(lx, ')')?;
            }
            let mut syms = vec![first];
            while lx.peek()?.0 == Tok::Punct('|') {
                lx.token()?;
                match lx.token()? {
                    (Tok::Ident(s), _) => syms.push(s),
                    (other, p) => {
                        return Err(ParseError::new(p, format!("expected a name after '|', found {other}")))
                    }
                }
            }
            Arg::Syms(syms)
        }
        other => {
            return Err(ParseError::new(
                pos,
                format!("expected an argument (a number, a name, \"string\", [..], {{..}} or ...), found {other}"),
            ))
        }
    })
}

/// Skip tokens up to the `close` that balances an already consumed opener.
fn skip_nested(lx: &mut Lexer, close: char) -> PResult<()> {
    let mut depth = 1;
    loop {
        let (t, p) = lx.token()?;
        match t {
            Tok::Punct('(') | Tok::Punct('[') | Tok::Punct('{') => depth += 1,
            Tok::Punct(')') | Tok::Punct(']') | Tok::Punct('}') => {
                depth -= 1;
                if depth == 0 {
                    return Ok(());
                }
            }
            Tok::Eof => return Err(ParseError::new(p, format!("missing '{close}'"))),
            _ => {}
        }
    }
}

/// `{name=value, name(..)=value, value}` after its `{`.
fn structure(lx: &mut Lexer) -> PResult<Arg> {
    let mut fields = Vec::new();
    if lx.peek()?.0 == Tok::Punct('}') {
        lx.token()?;
        return Ok(Arg::Struct(fields));
    }
    loop {
        let at = lx.offset();
        let mut name = None;
        if let (Tok::Ident(n), _) = lx.token()? {
            match lx.peek()?.0 {
                Tok::Punct('=') => {
                    lx.token()?;
                    name = Some(n);
                }
                Tok::Punct('(') => {
                    // msg_iov(1)=[...]: the count in parentheses is the list's length.
                    lx.token()?;
                    skip_nested(lx, ')')?;
                    expect(lx, '=', &format!("after {n}(...)"))?;
                    name = Some(n);
                }
                _ => lx.rewind(at),
            }
        } else {
            lx.rewind(at);
        }
        fields.push((name, arg(lx)?));
        let (t, p) = lx.token()?;
        match t {
            Tok::Punct(',') => {}
            Tok::Punct('}') => return Ok(Arg::Struct(fields)),
            other => {
                return Err(ParseError::new(
                    p,
                    format!("expected ',' or '}}', found {other}"),
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::Dir;

    #[test]
    fn times_and_events() {
        let s = parse(
            "--tolerance_usecs=10000\n// a comment\n0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n\
             +.1 write(4, ..., 1000) = 1000\n*  > . 1:1(0) ack 1\n0.1~0.2 > . 1:1(0) ack 1\n\
             +0...0.2 read(4, ..., 100) = -1 EAGAIN (Resource temporarily unavailable)\n\
             `sysctl -q net.ipv4.tcp_sack=0`\n+0 %{ assert tcpi_snd_cwnd == 10 }%\n",
        )
        .unwrap();
        assert_eq!(s.options[0].0, "tolerance_usecs");
        assert_eq!(s.options[0].1, "10000");
        let times: Vec<TimeSpec> = s.events.iter().map(|e| e.time).collect();
        assert_eq!(
            times,
            vec![
                TimeSpec::At(Point::Abs(0)),
                TimeSpec::At(Point::Rel(100_000_000)),
                TimeSpec::Any,
                TimeSpec::Range(Point::Abs(100_000_000), Point::Abs(200_000_000)),
                TimeSpec::Blocking(Point::Rel(0), Point::Abs(200_000_000)),
                TimeSpec::At(Point::Rel(0)),
                TimeSpec::At(Point::Rel(0)),
            ]
        );
        let EventKind::Syscall(c) = &s.events[4].kind else {
            panic!()
        };
        assert_eq!((c.ret, c.errno.as_deref()), (Some(-1), Some("EAGAIN")));
        assert_eq!(s.events[2].pos, Pos { line: 5, col: 1 });
        assert!(matches!(&s.events[2].kind, EventKind::Tcp(p) if p.dir == Dir::Out));
        assert!(
            matches!(&s.events[5].kind, EventKind::Command(c) if c == "sysctl -q net.ipv4.tcp_sack=0")
        );
    }

    #[test]
    fn structured_arguments() {
        let s = parse(
            "0 sendmsg(4, {msg_name(...)=..., msg_iov(1)=[{..., 1000}], msg_flags=0}, 0) = 1000\n\
             0 setsockopt(3, SOL_SOCKET, SO_SNDBUF, [20000], 4) = 0\n\
             0 fcntl(3, F_SETFL, O_RDWR|O_NONBLOCK) = 0\n",
        )
        .unwrap();
        let EventKind::Syscall(c) = &s.events[0].kind else {
            panic!()
        };
        let Arg::Struct(f) = &c.args[1].0 else {
            panic!()
        };
        assert_eq!(f[1].0.as_deref(), Some("msg_iov"));
        assert_eq!(
            f[1].1,
            Arg::List(vec![Arg::Struct(vec![
                (None, Arg::Any),
                (None, Arg::Int(1000))
            ])])
        );
        let EventKind::Syscall(c) = &s.events[2].kind else {
            panic!()
        };
        assert_eq!(
            c.args[2].0,
            Arg::Syms(vec!["O_RDWR".into(), "O_NONBLOCK".into()])
        );
    }

    #[test]
    fn errors_name_line_and_column() {
        let e = parse("0 socket(..., SOCK_STREAM IPPROTO_TCP) = 3").unwrap_err();
        assert_eq!(e.pos, Pos { line: 1, col: 27 });
        let e = parse("0 socket() = 3\n+0.1x write(4) = 1").unwrap_err();
        assert_eq!(e.pos.line, 2);
        let e = parse("0 write(4, ..., 10) = 10\n--late=1").unwrap_err();
        assert!(e.msg.contains("before the first event"));
        let e = parse("* write(4, ..., 10) = 10").unwrap_err();
        assert!(e.msg.contains("outbound"));
        assert_eq!(
            seconds("0.0000000001", Pos::default())
                .unwrap_err()
                .pos
                .line,
            0
        );
        assert_eq!(seconds(".5", Pos::default()), Ok(500_000_000));
    }
}
