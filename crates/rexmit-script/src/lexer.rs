//! Tokens of the script language, read on demand by the parser: numbers, names, strings,
//! punctuation, and the raw pieces whose insides are not tokens (a shell command in backticks,
//! an assertion block `%{ ... }%`, an option line `--name=value`, a packet's flags word).
//! Owns positions (line and column of every token) and comments (`//` to the end of the line,
//! `/* ... */`). Does not own what a token means.

use std::fmt;

/// A place in the script, 1-based.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// A malformed script: where, and what was wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub pos: Pos,
    pub msg: String,
}

impl ParseError {
    pub fn new(pos: Pos, msg: impl Into<String>) -> Self {
        ParseError {
            pos,
            msg: msg.into(),
        }
    }
}

pub type PResult<T> = Result<T, ParseError>;

#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// Decimal digits with an optional fraction (`0.100`, `.1`), or hex (`0x1f`); kept as text
    /// so that times are read exactly.
    Num(String),
    Ident(String),
    Str(String),
    /// `...`
    Ellipsis,
    Punct(char),
    Eof,
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::Num(s) | Tok::Ident(s) => write!(f, "'{s}'"),
            Tok::Str(s) => write!(f, "\"{s}\""),
            Tok::Ellipsis => write!(f, "'...'"),
            Tok::Punct(c) => write!(f, "'{c}'"),
            Tok::Eof => write!(f, "the end of the script"),
        }
    }
}

pub struct Lexer<'a> {
    src: &'a str,
    at: usize,
    line_starts: Vec<usize>,
}

impl<'a> Lexer<'a> {
    pub fn new(src: &'a str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(src.match_indices('\n').map(|(i, _)| i + 1));
        Lexer {
            src,
            at: 0,
            line_starts,
        }
    }

    /// The position of byte offset `off`.
    pub fn pos_of(&self, off: usize) -> Pos {
        let line = self.line_starts.partition_point(|&s| s <= off) - 1;
        let start = self.line_starts[line];
        let col = self.src[start..off.min(self.src.len())].chars().count() + 1;
        Pos {
            line: line as u32 + 1,
            col: col as u32,
        }
    }

    pub fn offset(&self) -> usize {
        self.at
    }

    /// The source between two offsets.
    pub fn slice(&self, from: usize, to: usize) -> &'a str {
        self.src.get(from..to).unwrap_or("")
    }

    pub fn rewind(&mut self, off: usize) {
        self.at = off;
    }

    /// The text of line `line` (1-based), without its end.
    pub fn line_text(&self, line: u32) -> &'a str {
        let i = (line as usize).saturating_sub(1);
        let Some(&start) = self.line_starts.get(i) else {
            return "";
        };
        let end = self.line_starts.get(i + 1).map_or(self.src.len(), |&e| e);
        self.src[start..end].trim_end_matches(['\n', '\r'])
    }

    fn rest(&self) -> &'a str {
        &self.src[self.at..]
    }

    /// Skip blanks, line ends and comments.
    pub fn skip_trivia(&mut self) -> PResult<()> {
        loop {
            let r = self.rest();
            let trimmed = r.trim_start();
            self.at += r.len() - trimmed.len();
            if trimmed.starts_with("//") {
                self.at += trimmed.find('\n').unwrap_or(trimmed.len());
            } else if let Some(body) = trimmed.strip_prefix("/*") {
                let start = self.at;
                match body.find("*/") {
                    Some(i) => self.at += i + 4,
                    None => {
                        return Err(ParseError::new(
                            self.pos_of(start),
                            "comment '/*' is never closed by '*/'",
                        ))
                    }
                }
            } else {
                return Ok(());
            }
        }
    }

    /// Nothing but blanks and comments is left (call after `skip_trivia`).
    pub fn at_end(&self) -> bool {
        self.at >= self.src.len()
    }

    /// Whether the next non-blank text starts with `s` (after comments).
    pub fn at_text(&mut self, s: &str) -> PResult<bool> {
        self.skip_trivia()?;
        Ok(self.rest().starts_with(s))
    }

    /// The next token and where it starts.
    pub fn token(&mut self) -> PResult<(Tok, Pos)> {
        self.skip_trivia()?;
        let start = self.at;
        let pos = self.pos_of(start);
        let r = self.rest();
        let Some(c) = r.chars().next() else {
            return Ok((Tok::Eof, pos));
        };
        let tok = if r.starts_with("...") {
            self.at += 3;
            Tok::Ellipsis
        } else if c.is_ascii_digit()
            || (c == '.' && r[1..].starts_with(|d: char| d.is_ascii_digit()))
        {
            let hex = r.starts_with("0x") || r.starts_with("0X");
            let n = if hex {
                2 + r[2..]
                    .find(|d: char| !d.is_ascii_hexdigit())
                    .unwrap_or(r.len() - 2)
            } else {
                let mut dot = false;
                r.find(|d: char| {
                    if d == '.' && !dot {
                        dot = true;
                        return false;
                    }
                    !d.is_ascii_digit()
                })
                .unwrap_or(r.len())
            };
            // "1..." is the number 1 then an ellipsis, not "1." then "..".
            let n = if !hex && r[..n].ends_with('.') && r[n - 1..].starts_with("...") {
                n - 1
            } else {
                n
            };
            self.at += n;
            Tok::Num(r[..n].to_string())
        } else if c.is_ascii_alphabetic() || c == '_' {
            let n = r
                .find(|d: char| !(d.is_ascii_alphanumeric() || d == '_'))
                .unwrap_or(r.len());
            self.at += n;
            Tok::Ident(r[..n].to_string())
        } else if c == '"' {
            match r[1..].find('"') {
                Some(i) => {
                    self.at += i + 2;
                    Tok::Str(r[1..=i].to_string())
                }
                None => return Err(ParseError::new(pos, "string is never closed by '\"'")),
            }
        } else if "+-*=,:()[]{}<>|~;.!/%&`".contains(c) {
            self.at += 1;
            Tok::Punct(c)
        } else {
            return Err(ParseError::new(pos, format!("unexpected character {c:?}")));
        };
        Ok((tok, pos))
    }

    /// The next token without consuming it.
    pub fn peek(&mut self) -> PResult<(Tok, Pos)> {
        let at = self.at;
        let t = self.token();
        self.at = at;
        t
    }

    /// The next run of non-blank characters (a packet's flags: `S.`, `P.`, `.`), with its
    /// position.
    pub fn raw_word(&mut self) -> PResult<(String, Pos)> {
        self.skip_trivia()?;
        let pos = self.pos_of(self.at);
        let r = self.rest();
        let n = r.find(char::is_whitespace).unwrap_or(r.len());
        self.at += n;
        Ok((r[..n].to_string(), pos))
    }

    /// Everything from here up to `close` (not included), which is consumed; for backticks,
    /// `%{ ... }%` and an errno's description. `what` names the construct in the error.
    pub fn raw_until(&mut self, close: &str, what: &str, open: Pos) -> PResult<(String, Pos)> {
        let pos = self.pos_of(self.at);
        let r = self.rest();
        match r.find(close) {
            Some(i) => {
                self.at += i + close.len();
                Ok((r[..i].to_string(), pos))
            }
            None => Err(ParseError::new(
                open,
                format!("{what} is never closed by '{close}'"),
            )),
        }
    }

    /// The rest of the current line (an option line's value).
    pub fn raw_line(&mut self) -> (String, Pos) {
        let pos = self.pos_of(self.at);
        let r = self.rest();
        let n = r.find('\n').unwrap_or(r.len());
        self.at += n;
        (r[..n].trim_end().to_string(), pos)
    }
}

/// An integer (decimal or 0x hex) that fits `max`.
pub fn integer(text: &str, pos: Pos, max: u64, what: &str) -> PResult<u64> {
    let v = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => text.parse::<u64>().ok(),
    };
    match v {
        Some(v) if v <= max => Ok(v),
        _ => Err(ParseError::new(
            pos,
            format!("bad {what} '{text}': expected an integer in 0..={max}"),
        )),
    }
}

/// `expect(lx, ')')`: the next token must be this punctuation.
pub fn expect(lx: &mut Lexer<'_>, c: char, what: &str) -> PResult<Pos> {
    let (t, pos) = lx.token()?;
    if t == Tok::Punct(c) {
        Ok(pos)
    } else {
        Err(ParseError::new(
            pos,
            format!("expected '{c}' {what}, found {t}"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        let mut l = Lexer::new(s);
        let mut v = Vec::new();
        loop {
            let (t, _) = l.token().unwrap();
            if t == Tok::Eof {
                return v;
            }
            v.push(t);
        }
    }

    #[test]
    fn numbers_times_and_ellipses() {
        use Tok::*;
        assert_eq!(
            toks("+.1 0.100...0.2 1:1001(1000) 0x1F"),
            vec![
                Punct('+'),
                Num(".1".into()),
                Num("0.100".into()),
                Ellipsis,
                Num("0.2".into()),
                Num("1".into()),
                Punct(':'),
                Num("1001".into()),
                Punct('('),
                Num("1000".into()),
                Punct(')'),
                Num("0x1F".into()),
            ]
        );
        assert_eq!(
            toks("0...1"),
            vec![Num("0".into()), Ellipsis, Num("1".into())]
        );
    }

    #[test]
    fn comments_and_positions() {
        let mut l = Lexer::new("// c\n  /* x\n y */ foo");
        let (t, p) = l.token().unwrap();
        assert_eq!(t, Tok::Ident("foo".into()));
        assert_eq!(p, Pos { line: 3, col: 7 });
        assert_eq!(l.line_text(3), " y */ foo");
        let mut l = Lexer::new("/* open");
        assert_eq!(l.token().unwrap_err().pos, Pos { line: 1, col: 1 });
    }

    #[test]
    fn raw_pieces() {
        let mut l = Lexer::new(" S. 0:0(0)");
        assert_eq!(l.raw_word().unwrap().0, "S.");
        let mut l = Lexer::new("sysctl -q a=1` rest");
        let (s, _) = l.raw_until("`", "command", Pos::default()).unwrap();
        assert_eq!(s, "sysctl -q a=1");
        assert_eq!(l.token().unwrap().0, Tok::Ident("rest".into()));
    }
}
