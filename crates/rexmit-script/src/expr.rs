//! The assertion language inside `%{ ... }%`: a small, Python-like subset, enough for the
//! checks packetdrill scripts write over `tcp_info` (`assert tcpi_snd_cwnd == 10`,
//! `assert 190000 <= tcpi_rto <= 210000, tcpi_rto`). Statements, one per line or separated
//! by `;`: `assert EXPR [, EXPR]`, `NAME = EXPR`, `pass`. Expressions: numbers, `True`/`False`,
//! names, `+ - * / // % | &`, comparisons (chained as in Python), `and or not`, parentheses and
//! `abs() min() max()`. Owns parsing and evaluation; the names' values come from the caller.

use crate::lexer::{PResult, ParseError, Pos};
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    Num(f64),
    Bool(bool),
}

impl Value {
    fn num(self) -> f64 {
        match self {
            Value::Num(x) => x,
            Value::Bool(b) => b as u8 as f64,
        }
    }
    fn truthy(self) -> bool {
        match self {
            Value::Num(x) => x != 0.0,
            Value::Bool(b) => b,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Num(x) if x.fract() == 0.0 && x.abs() < 1e18 => write!(f, "{}", *x as i64),
            Value::Num(x) => write!(f, "{x}"),
            Value::Bool(b) => write!(f, "{}", if *b { "True" } else { "False" }),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Mod,
    BitOr,
    BitAnd,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Lit(Value),
    Var(String, Pos),
    Neg(Box<Expr>),
    Not(Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Arith(Op, Box<Expr>, Box<Expr>),
    /// `a < b <= c`: the first operand, then each comparison and its right operand.
    Compare(Box<Expr>, Vec<(Op, Expr)>),
    Call(String, Vec<Expr>, Pos),
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    Assert(Expr, Option<Expr>),
    Assign(String, Expr),
    Pass,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub pos: Pos,
    /// The statement's source text, for failure reports.
    pub text: String,
    pub kind: StmtKind,
}

#[derive(Clone, Debug, PartialEq)]
enum T {
    Num(f64),
    Name(String),
    Op(&'static str),
    Newline,
    End,
}

/// Tokens of a block with their byte offsets in it.
fn tokenize(src: &str, at: impl Fn(usize) -> Pos) -> PResult<Vec<(T, usize)>> {
    const OPS: [&str; 20] = [
        "==", "!=", "<=", ">=", "//", "<", ">", "+", "-", "*", "/", "%", "(", ")", ",", "=", ";",
        ":", "|", "&",
    ];
    let mut out = Vec::new();
    let mut i = 0;
    while i < src.len() {
        let r = &src[i..];
        let c = r.chars().next().expect("not at the end");
        if c == '\n' {
            out.push((T::Newline, i));
            i += 1;
        } else if c.is_whitespace() {
            i += c.len_utf8();
        } else if c == '#' {
            i += r.find('\n').unwrap_or(r.len());
        } else if c.is_ascii_digit()
            || (c == '.' && r[1..].starts_with(|d: char| d.is_ascii_digit()))
        {
            let n = r
                .find(|d: char| !(d.is_ascii_alphanumeric() || d == '.' || d == '_'))
                .unwrap_or(r.len());
            let text = r[..n].replace('_', "");
            let v = if let Some(h) = text.strip_prefix("0x") {
                u64::from_str_radix(h, 16).ok().map(|v| v as f64)
            } else {
                text.parse::<f64>().ok()
            };
            let v = v.ok_or_else(|| ParseError::new(at(i), format!("bad number {:?}", &r[..n])))?;
            out.push((T::Num(v), i));
            i += n;
        } else if c.is_ascii_alphabetic() || c == '_' {
            let n = r
                .find(|d: char| !(d.is_ascii_alphanumeric() || d == '_'))
                .unwrap_or(r.len());
            out.push((T::Name(r[..n].to_string()), i));
            i += n;
        } else if let Some(op) = OPS.iter().find(|o| r.starts_with(**o)) {
            out.push((T::Op(op), i));
            i += op.len();
        } else {
            return Err(ParseError::new(
                at(i),
                format!("unexpected character {c:?} in an assertion block"),
            ));
        }
    }
    out.push((T::End, src.len()));
    Ok(out)
}

struct P<'a, F: Fn(usize) -> Pos> {
    toks: Vec<(T, usize)>,
    i: usize,
    src: &'a str,
    at: F,
}

impl<F: Fn(usize) -> Pos> P<'_, F> {
    fn peek(&self) -> &T {
        &self.toks[self.i].0
    }
    fn pos(&self) -> Pos {
        (self.at)(self.toks[self.i].1)
    }
    fn bump(&mut self) -> T {
        let t = self.toks[self.i].0.clone();
        if self.i + 1 < self.toks.len() {
            self.i += 1;
        }
        t
    }
    fn eat_op(&mut self, op: &str) -> bool {
        if matches!(self.peek(), T::Op(o) if *o == op) {
            self.bump();
            true
        } else {
            false
        }
    }
    fn eat_name(&mut self, n: &str) -> bool {
        if matches!(self.peek(), T::Name(x) if x == n) {
            self.bump();
            true
        } else {
            false
        }
    }
    fn err<X>(&self, what: &str) -> PResult<X> {
        let found = match self.peek() {
            T::Num(x) => format!("{}", Value::Num(*x)),
            T::Name(n) => format!("'{n}'"),
            T::Op(o) => format!("'{o}'"),
            T::Newline => "the end of the line".into(),
            T::End => "the end of the block".into(),
        };
        Err(ParseError::new(
            self.pos(),
            format!("expected {what}, found {found}"),
        ))
    }

    fn block(&mut self) -> PResult<Vec<Stmt>> {
        let mut out = Vec::new();
        loop {
            while matches!(self.peek(), T::Newline) || self.eat_op(";") {
                if matches!(self.peek(), T::Newline) {
                    self.bump();
                }
            }
            if matches!(self.peek(), T::End) {
                return Ok(out);
            }
            let start = self.toks[self.i].1;
            let pos = self.pos();
            let kind = self.stmt()?;
            let end = self.toks[self.i].1;
            out.push(Stmt {
                pos,
                text: self.src[start..end].trim().to_string(),
                kind,
            });
            match self.peek() {
                T::Newline | T::End => {}
                T::Op(";") => {}
                _ => return self.err("the end of the statement"),
            }
        }
    }

    fn stmt(&mut self) -> PResult<StmtKind> {
        if self.eat_name("assert") {
            let e = self.expr()?;
            let msg = if self.eat_op(",") {
                Some(self.expr()?)
            } else {
                None
            };
            return Ok(StmtKind::Assert(e, msg));
        }
        if self.eat_name("pass") {
            return Ok(StmtKind::Pass);
        }
        if let T::Name(n) = self.peek().clone() {
            if matches!(self.toks.get(self.i + 1), Some((T::Op("="), _))) {
                self.bump();
                self.bump();
                return Ok(StmtKind::Assign(n, self.expr()?));
            }
        }
        self.err("'assert', 'pass' or an assignment")
    }

    fn expr(&mut self) -> PResult<Expr> {
        let mut l = self.and()?;
        while self.eat_name("or") {
            l = Expr::Or(Box::new(l), Box::new(self.and()?));
        }
        Ok(l)
    }
    fn and(&mut self) -> PResult<Expr> {
        let mut l = self.not()?;
        while self.eat_name("and") {
            l = Expr::And(Box::new(l), Box::new(self.not()?));
        }
        Ok(l)
    }
    fn not(&mut self) -> PResult<Expr> {
        if self.eat_name("not") {
            return Ok(Expr::Not(Box::new(self.not()?)));
        }
        self.compare()
    }
    fn compare(&mut self) -> PResult<Expr> {
        let first = self.bitor()?;
        let mut rest = Vec::new();
        loop {
            let op = match self.peek() {
                T::Op("==") => Op::Eq,
                T::Op("!=") => Op::Ne,
                T::Op("<") => Op::Lt,
                T::Op("<=") => Op::Le,
                T::Op(">") => Op::Gt,
                T::Op(">=") => Op::Ge,
                _ => break,
            };
            self.bump();
            rest.push((op, self.bitor()?));
        }
        Ok(if rest.is_empty() {
            first
        } else {
            Expr::Compare(Box::new(first), rest)
        })
    }
    fn bitor(&mut self) -> PResult<Expr> {
        let mut l = self.bitand()?;
        while self.eat_op("|") {
            l = Expr::Arith(Op::BitOr, Box::new(l), Box::new(self.bitand()?));
        }
        Ok(l)
    }
    fn bitand(&mut self) -> PResult<Expr> {
        let mut l = self.sum()?;
        while self.eat_op("&") {
            l = Expr::Arith(Op::BitAnd, Box::new(l), Box::new(self.sum()?));
        }
        Ok(l)
    }
    fn sum(&mut self) -> PResult<Expr> {
        let mut l = self.term()?;
        loop {
            let op = match self.peek() {
                T::Op("+") => Op::Add,
                T::Op("-") => Op::Sub,
                _ => return Ok(l),
            };
            self.bump();
            l = Expr::Arith(op, Box::new(l), Box::new(self.term()?));
        }
    }
    fn term(&mut self) -> PResult<Expr> {
        let mut l = self.unary()?;
        loop {
            let op = match self.peek() {
                T::Op("*") => Op::Mul,
                T::Op("/") => Op::Div,
                T::Op("//") => Op::FloorDiv,
                T::Op("%") => Op::Mod,
                _ => return Ok(l),
            };
            self.bump();
            l = Expr::Arith(op, Box::new(l), Box::new(self.unary()?));
        }
    }
    fn unary(&mut self) -> PResult<Expr> {
        if self.eat_op("-") {
            return Ok(Expr::Neg(Box::new(self.unary()?)));
        }
        self.atom()
    }
    fn atom(&mut self) -> PResult<Expr> {
        let pos = self.pos();
        match self.peek().clone() {
            T::Num(x) => {
                self.bump();
                Ok(Expr::Lit(Value::Num(x)))
            }
            T::Name(n) if n == "True" || n == "False" => {
                self.bump();
                Ok(Expr::Lit(Value::Bool(n == "True")))
            }
            T::Name(n) => {
                self.bump();
                if self.eat_op("(") {
                    let mut args = Vec::new();
                    if !self.eat_op(")") {
                        loop {
                            args.push(self.expr()?);
                            if self.eat_op(")") {
                                break;
                            }
                            if !self.eat_op(",") {
                                return self.err("',' or ')'");
                            }
                        }
                    }
                    return Ok(Expr::Call(n, args, pos));
                }
                Ok(Expr::Var(n, pos))
            }
            T::Op("(") => {
                self.bump();
                let e = self.expr()?;
                if !self.eat_op(")") {
                    return self.err("')'");
                }
                Ok(e)
            }
            _ => self.err("a number, a name or '('"),
        }
    }
}

/// Parse the inside of `%{ ... }%`; `at` maps a byte offset of `src` to its script position.
pub fn parse_block(src: &str, at: impl Fn(usize) -> Pos) -> PResult<Vec<Stmt>> {
    let toks = tokenize(src, &at)?;
    P {
        toks,
        i: 0,
        src,
        at,
    }
    .block()
}

/// Why evaluation stopped: an unknown name or function, or a division by zero.
#[derive(Clone, Debug, PartialEq)]
pub struct EvalError {
    pub pos: Option<Pos>,
    pub msg: String,
}

fn arith(op: Op, a: f64, b: f64) -> Result<f64, EvalError> {
    let zero = || EvalError {
        pos: None,
        msg: "division by zero".into(),
    };
    Ok(match op {
        Op::Add => a + b,
        Op::Sub => a - b,
        Op::Mul => a * b,
        Op::Div if b == 0.0 => return Err(zero()),
        Op::Div => a / b,
        Op::FloorDiv | Op::Mod if b == 0.0 => return Err(zero()),
        Op::FloorDiv => (a / b).floor(),
        Op::Mod => a - b * (a / b).floor(),
        Op::BitOr | Op::BitAnd if a.fract() != 0.0 || b.fract() != 0.0 || a < 0.0 || b < 0.0 => {
            return Err(EvalError {
                pos: None,
                msg: "| and & take non-negative integers".into(),
            })
        }
        Op::BitOr => (a as u64 | b as u64) as f64,
        Op::BitAnd => (a as u64 & b as u64) as f64,
        _ => unreachable!("comparison in arith"),
    })
}

fn compare(op: Op, a: f64, b: f64) -> bool {
    match op {
        Op::Eq => a == b,
        Op::Ne => a != b,
        Op::Lt => a < b,
        Op::Le => a <= b,
        Op::Gt => a > b,
        Op::Ge => a >= b,
        _ => unreachable!("arithmetic in compare"),
    }
}

/// Evaluate `e`; names are looked up with `var`.
pub fn eval(e: &Expr, var: &dyn Fn(&str) -> Option<Value>) -> Result<Value, EvalError> {
    Ok(match e {
        Expr::Lit(v) => *v,
        Expr::Var(n, pos) => var(n).ok_or_else(|| EvalError {
            pos: Some(*pos),
            msg: format!("unknown name '{n}' (docs/scripts.md lists the tcp_info fields)"),
        })?,
        Expr::Neg(x) => Value::Num(-eval(x, var)?.num()),
        Expr::Not(x) => Value::Bool(!eval(x, var)?.truthy()),
        Expr::And(a, b) => {
            let l = eval(a, var)?;
            if l.truthy() {
                eval(b, var)?
            } else {
                l
            }
        }
        Expr::Or(a, b) => {
            let l = eval(a, var)?;
            if l.truthy() {
                l
            } else {
                eval(b, var)?
            }
        }
        Expr::Arith(op, a, b) => Value::Num(arith(*op, eval(a, var)?.num(), eval(b, var)?.num())?),
        Expr::Compare(first, rest) => {
            let mut l = eval(first, var)?.num();
            for (op, r) in rest {
                let r = eval(r, var)?.num();
                if !compare(*op, l, r) {
                    return Ok(Value::Bool(false));
                }
                l = r;
            }
            Value::Bool(true)
        }
        Expr::Call(f, args, pos) => {
            let vals = args
                .iter()
                .map(|a| eval(a, var).map(Value::num))
                .collect::<Result<Vec<_>, _>>()?;
            let bad = |msg: String| EvalError {
                pos: Some(*pos),
                msg,
            };
            match (f.as_str(), vals.as_slice()) {
                ("abs", [x]) => Value::Num(x.abs()),
                ("min", [_, ..]) => Value::Num(vals.iter().copied().fold(f64::INFINITY, f64::min)),
                ("max", [_, ..]) => {
                    Value::Num(vals.iter().copied().fold(f64::NEG_INFINITY, f64::max))
                }
                ("abs" | "min" | "max", _) => {
                    return Err(bad(format!("{f}() got {} arguments", vals.len())))
                }
                _ => {
                    return Err(bad(format!(
                        "unknown function '{f}' (abs, min and max exist)"
                    )))
                }
            }
        }
    })
}

/// The names an expression reads, in order of appearance, each once (for failure reports).
pub fn names(e: &Expr, out: &mut Vec<String>) {
    match e {
        Expr::Lit(_) => {}
        Expr::Var(n, _) => {
            if !out.contains(n) {
                out.push(n.clone());
            }
        }
        Expr::Neg(x) | Expr::Not(x) => names(x, out),
        Expr::And(a, b) | Expr::Or(a, b) | Expr::Arith(_, a, b) => {
            names(a, out);
            names(b, out);
        }
        Expr::Compare(a, rest) => {
            names(a, out);
            for (_, r) in rest {
                names(r, out);
            }
        }
        Expr::Call(_, args, _) => args.iter().for_each(|a| names(a, out)),
    }
}

/// Whether a value passes `assert`.
pub fn holds(v: Value) -> bool {
    v.truthy()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(src: &str, env: &[(&str, f64)]) -> Vec<bool> {
        let stmts = parse_block(src, |_| Pos::default()).unwrap();
        let var = |n: &str| {
            env.iter()
                .find(|(k, _)| *k == n)
                .map(|(_, v)| Value::Num(*v))
        };
        stmts
            .iter()
            .map(|s| match &s.kind {
                StmtKind::Assert(e, _) => holds(eval(e, &var).unwrap()),
                _ => true,
            })
            .collect()
    }

    #[test]
    fn python_like_comparisons_and_arithmetic() {
        let env = [("tcpi_snd_cwnd", 10.0), ("tcpi_rto", 204_000.0)];
        assert_eq!(
            run(
                "assert tcpi_snd_cwnd == 10\nassert 200000 <= tcpi_rto <= 210000, tcpi_rto; assert 7 // 2 == 3 and 7 % 2 == 1\n assert not tcpi_snd_cwnd < 5 or False",
                &env
            ),
            [true, true, true, true]
        );
        assert_eq!(run("assert 1 < 3 < 2", &env), [false]);
        assert_eq!(
            run("assert max(1, tcpi_snd_cwnd) - abs(-2) == 8", &env),
            [true]
        );
    }

    #[test]
    fn errors_name_the_place() {
        let at = |off: usize| Pos {
            line: 1,
            col: off as u32 + 1,
        };
        let e = parse_block("assert tcpi_x ==", at).unwrap_err();
        assert!(e.msg.contains("expected a number"), "{e:?}");
        assert_eq!(e.pos.col, 17);
        let e = parse_block("assert 1 $ 2", at).unwrap_err();
        assert_eq!(e.pos.col, 10);
        let s = parse_block("assert 1 / 0", at).unwrap();
        let StmtKind::Assert(x, _) = &s[0].kind else {
            panic!()
        };
        assert_eq!(eval(x, &|_| None).unwrap_err().msg, "division by zero");
        let s = parse_block("assert nope == 1", at).unwrap();
        let StmtKind::Assert(x, _) = &s[0].kind else {
            panic!()
        };
        let err = eval(x, &|_| None).unwrap_err();
        assert_eq!(err.pos.map(|p| p.col), Some(8));
    }
}
