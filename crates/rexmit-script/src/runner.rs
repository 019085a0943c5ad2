//! The timeline: events in script order, in virtual time. Owns the clock, the queue of packets
//! the core sent and no line has matched yet, the relative-time base, the tolerance, the one
//! blocking call that may be pending, and the failure reports.
//!
//! Rules (docs/scripts.md):
//! - A relative time counts from the previous event: the time an outbound packet was actually
//!   sent, the start of a blocking call, else the event's own time.
//! - At one instant, script events (inbound packets, calls, assertions) come before the core's
//!   timers due at that instant; an outbound line waits for the core's timers up to the end of
//!   its window.
//! - Outbound lines match the core's packets in the order sent; a packet must fall within the
//!   line's time ± tolerance (or its `a~b` range). One data line may cover several
//!   same-burst segments (Linux's TSO sends one, rexmit several).
//! - A packet the core sent must be matched before the next inbound packet or system call
//!   (`nothing_unmatched`): at one instant the script's order is the core's order.
//! - At the end, a packet sent up to the last event's time that no line matched, or a call
//!   still blocked, fails the script.

use crate::ast::{Dir, Event, EventKind, Point, Script, Syscall, TimeSpec};
use crate::expr::{self, StmtKind, Value};
use crate::host::{Proto, Wire};
use crate::lexer::Pos;
use crate::settings::Settings;
use crate::sockets::{CallOut, Pending, Sockets};
use crate::{sctp_host, tcp_vars};
use rexmit_time::{Duration, Time};
use std::collections::{BTreeMap, VecDeque};

/// How long `*` waits for an outbound packet.
const ANY_TIME_LIMIT: Duration = Duration::from_secs(3600);
/// Where a script's clock ends (a core's own deadlines stay far below the u64 nanosecond end).
const MAX_CLOCK_SECONDS: u64 = 1_000_000_000;
/// Timer expiries at one instant beyond which the core is looping.
const SAME_INSTANT_LIMIT: u32 = 10_000;

/// Why a script stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The core did something else than the script says: the report's lines.
    Failed { pos: Pos, lines: Vec<String> },
    /// The script cannot run (an unknown option or call, an impossible packet).
    Malformed { pos: Pos, msg: String },
}

/// Seconds with six decimals, as packetdrill prints times.
pub fn secs(t: Time) -> String {
    let ns = t.as_nanos();
    format!("{}.{:06}", ns / 1_000_000_000, ns % 1_000_000_000 / 1_000)
}

fn malformed<T>(pos: Pos, msg: impl Into<String>) -> Result<T, Stop> {
    Err(Stop::Malformed {
        pos,
        msg: msg.into(),
    })
}

fn failed<T>(pos: Pos, lines: Vec<String>) -> Result<T, Stop> {
    Err(Stop::Failed { pos, lines })
}

struct Blocked {
    pos: Pos,
    call: Syscall,
    pending: Pending,
    /// The window its return must fall in.
    lo: Time,
    hi: Time,
}

pub struct Runner {
    now: Time,
    base: Time,
    settings: Settings,
    proto: Option<Box<dyn Proto>>,
    socks: Sockets,
    out: VecDeque<(Time, Wire)>,
    blocked: Option<Blocked>,
    locals: BTreeMap<String, Value>,
    /// Timer expiries at `now`, to catch a looping core.
    same_instant: u32,
    last_event: Pos,
    /// With `--trace`: every packet in and out, as script lines with times.
    pub trace: Option<Vec<String>>,
}

impl Runner {
    pub fn new() -> Self {
        Runner {
            now: Time::ZERO,
            base: Time::ZERO,
            settings: Settings::default(),
            proto: None,
            socks: Sockets::new(),
            out: VecDeque::new(),
            blocked: None,
            locals: BTreeMap::new(),
            same_instant: 0,
            last_event: Pos::default(),
            trace: None,
        }
    }

    pub fn run(&mut self, script: &Script) -> Result<(), Stop> {
        for (name, value, pos) in &script.options {
            if let Err(m) = self.settings.option(name, value) {
                return malformed(*pos, m);
            }
        }
        check_protocols(script)?;
        for ev in &script.events {
            self.last_event = ev.pos;
            self.event(ev)?;
        }
        self.finish()
    }

    fn tol(&self) -> Duration {
        self.settings.tolerance
    }

    /// A written time on the clock; relative ones count from `base`. Scripts stay far from
    /// the clock's end (`parser::MAX_SECONDS` per time), but many long steps could add up.
    fn resolve(&self, p: Point, base: Time) -> Time {
        match p {
            Point::Abs(ns) => Time::from_nanos(ns),
            Point::Rel(ns) => base.saturating_add(Duration::from_nanos(ns)),
        }
    }

    fn event(&mut self, ev: &Event) -> Result<(), Stop> {
        let tol = self.tol();
        let (at, lo, hi) = match ev.time {
            TimeSpec::At(p) => {
                let t = self.resolve(p, self.base);
                (
                    t,
                    Time::from_nanos(t.as_nanos().saturating_sub(tol.as_nanos())),
                    t.saturating_add(tol),
                )
            }
            TimeSpec::Range(a, b) => {
                let (a, b) = (self.resolve(a, self.base), self.resolve(b, self.base));
                if b < a {
                    return malformed(ev.pos, "the range's end is before its start");
                }
                (a, a, b)
            }
            TimeSpec::Any => (
                self.base,
                self.base,
                self.base.saturating_add(ANY_TIME_LIMIT),
            ),
            TimeSpec::Blocking(a, b) => {
                let start = self.resolve(a, self.base);
                let end = self.resolve(b, start);
                if end < start {
                    return malformed(ev.pos, "the call's return time is before its start");
                }
                (
                    start,
                    Time::from_nanos(end.as_nanos().saturating_sub(tol.as_nanos())),
                    end.saturating_add(tol),
                )
            }
        };
        if at.saturating_add(tol) < self.base {
            return malformed(
                ev.pos,
                format!(
                    "time {} is before the previous event at {}",
                    secs(at),
                    secs(self.base)
                ),
            );
        }
        if at > Time::from_secs(MAX_CLOCK_SECONDS) {
            return malformed(
                ev.pos,
                format!(
                    "time {} is beyond the script clock's end ({MAX_CLOCK_SECONDS} s)",
                    secs(at)
                ),
            );
        }
        let outbound = matches!(&ev.kind, EventKind::Tcp(p) if p.dir == Dir::Out)
            || matches!(&ev.kind, EventKind::Sctp(p) if p.dir == Dir::Out);
        if outbound {
            return self.expect_out(ev, at, lo, hi);
        }
        let at = at.max(self.now);
        self.advance(at)?;
        if matches!(
            ev.kind,
            EventKind::Tcp(_) | EventKind::Sctp(_) | EventKind::Syscall(_)
        ) {
            self.nothing_unmatched(ev)?;
        }
        match &ev.kind {
            EventKind::Tcp(_) | EventKind::Sctp(_) => {
                let Some(p) = self.proto.as_deref_mut() else {
                    return malformed(ev.pos, "an inbound packet before socket()");
                };
                if let Some(t) = self.trace.as_mut() {
                    t.push(format!("{} {}", secs(at), ev.text));
                }
                if let Err(m) = p.inject(at, &ev.kind) {
                    return malformed(ev.pos, m);
                }
                self.drain()?;
            }
            EventKind::Syscall(c) => {
                let blocking = matches!(ev.time, TimeSpec::Blocking(..));
                self.syscall(ev.pos, c, blocking, lo, hi)?;
            }
            EventKind::Command(cmd) => {
                if self.proto.as_ref().is_some_and(|p| p.exists()) {
                    return malformed(
                        ev.pos,
                        "a sysctl after listen() or connect(): the core takes its options when it is created",
                    );
                }
                if let Err(m) = self.settings.command(cmd) {
                    return malformed(ev.pos, m);
                }
            }
            EventKind::Code(stmts) => self.assertions(stmts)?,
        }
        self.base = at;
        Ok(())
    }

    /// Serve the core's timers due before `to` (exclusive), then stand at `to`.
    fn advance(&mut self, to: Time) -> Result<(), Stop> {
        while let Some(d) = self.proto.as_ref().and_then(|p| p.poll_timeout()) {
            if d >= to {
                break;
            }
            self.fire(d)?;
        }
        self.set_now(to);
        Ok(())
    }

    fn set_now(&mut self, t: Time) {
        if t > self.now {
            self.now = t;
            self.same_instant = 0;
        }
    }

    /// Serve the timer due at `d`.
    fn fire(&mut self, d: Time) -> Result<(), Stop> {
        self.set_now(d);
        self.same_instant += 1;
        if self.same_instant > SAME_INSTANT_LIMIT {
            return failed(
                self.last_event,
                vec![format!(
                    "the core's timer fires again and again at {} (a bug in the core)",
                    secs(self.now)
                )],
            );
        }
        let now = self.now;
        if let Some(p) = self.proto.as_deref_mut() {
            p.handle_timeout(now);
        }
        self.drain()
    }

    /// Collect what the core sends now; complete a blocked call that can return.
    fn drain(&mut self) -> Result<(), Stop> {
        let now = self.now;
        loop {
            let Some(p) = self.proto.as_deref_mut() else {
                return Ok(());
            };
            let mut sent = Vec::new();
            p.drain(now, &mut sent);
            if let Some(t) = self.trace.as_mut() {
                for w in &sent {
                    t.push(format!("{} > {}", secs(now), p.format(w)));
                }
            }
            self.out.extend(sent.into_iter().map(|w| (now, w)));
            let Some(mut b) = self.blocked.take() else {
                return Ok(());
            };
            let before = b.pending;
            match self.socks.retry(p, now, &mut b.pending) {
                // It returned: what it wrote goes out in the next round.
                Some(result) => self.returned(&b, result)?,
                // A write took some bytes: send them, then try again.
                None if b.pending != before => self.blocked = Some(b),
                None => {
                    self.blocked = Some(b);
                    return Ok(());
                }
            }
        }
    }

    /// A blocked call returned `result` now.
    fn returned(&self, b: &Blocked, result: (i64, Option<&'static str>)) -> Result<(), Stop> {
        self.check_result(b.pos, &b.call, result)?;
        if self.now < b.lo || self.now > b.hi {
            return failed(
                b.pos,
                vec![
                    format!(
                        "timing error: {} returned at {}",
                        b.call.name,
                        secs(self.now)
                    ),
                    format!("expected between {} and {}", secs(b.lo), secs(b.hi)),
                ],
            );
        }
        Ok(())
    }

    fn check_result(
        &self,
        pos: Pos,
        c: &Syscall,
        (ret, errno): (i64, Option<&'static str>),
    ) -> Result<(), Stop> {
        let want = c.ret;
        let ok_ret = want.is_none_or(|w| w == ret);
        let ok_errno = c.errno.is_none() || c.errno.as_deref() == errno;
        if ok_ret && ok_errno {
            return Ok(());
        }
        let show = |r: Option<i64>, e: Option<&str>| {
            let r = r.map_or("...".to_string(), |r| r.to_string());
            e.map_or(r.clone(), |e| format!("{r} {e}"))
        };
        failed(
            pos,
            vec![
                format!(
                    "{} returned an unexpected result at {}",
                    c.name,
                    secs(self.now)
                ),
                format!("expected: {}", show(want, c.errno.as_deref())),
                format!("actual:   {}", show(Some(ret), errno)),
            ],
        )
    }

    fn syscall(
        &mut self,
        pos: Pos,
        c: &Syscall,
        blocking: bool,
        lo: Time,
        hi: Time,
    ) -> Result<(), Stop> {
        if let Some(b) = &self.blocked {
            return malformed(
                pos,
                format!(
                    "{} while {} (line {}) is blocked: one blocking call at a time",
                    c.name, b.call.name, b.pos.line
                ),
            );
        }
        let out = match self
            .socks
            .call(&mut self.proto, &mut self.settings, self.now, c)
        {
            Ok(o) => o,
            Err(m) => return malformed(pos, m),
        };
        match out {
            CallOut::Done(ret, errno) => {
                self.drain()?;
                self.check_result(pos, c, (ret, errno))?;
                if blocking {
                    self.returned_at_start(pos, c, lo, hi)?;
                }
            }
            CallOut::Mismatch(m) => {
                return failed(pos, vec![format!("{m} (at {})", secs(self.now))])
            }
            CallOut::Blocks(pending) => {
                self.blocked = Some(Blocked {
                    pos,
                    call: c.clone(),
                    pending,
                    lo,
                    hi,
                });
                self.drain()?;
                if let Some(b) = &self.blocked {
                    if !blocking {
                        let name = b.call.name.clone();
                        return failed(
                            pos,
                            vec![format!(
                                "{name} would block at {} (a blocking socket): write its time as start...end, or make the socket non-blocking",
                                secs(self.now)
                            )],
                        );
                    }
                }
            }
        }
        Ok(())
    }

    /// A call written `start...end` that returned at once: it must have been due at once.
    fn returned_at_start(&self, pos: Pos, c: &Syscall, lo: Time, hi: Time) -> Result<(), Stop> {
        if self.now < lo || self.now > hi {
            return failed(
                pos,
                vec![
                    format!(
                        "timing error: {} returned at once, at {}",
                        c.name,
                        secs(self.now)
                    ),
                    format!("expected between {} and {}", secs(lo), secs(hi)),
                ],
            );
        }
        Ok(())
    }

    /// The next packet the core sends, waiting for its timers up to `hi`.
    fn next_out(&mut self, hi: Time) -> Result<Option<(Time, Wire)>, Stop> {
        loop {
            if let Some(x) = self.out.pop_front() {
                return Ok(Some(x));
            }
            let Some(d) = self.proto.as_ref().and_then(|p| p.poll_timeout()) else {
                return Ok(None);
            };
            if d > hi {
                return Ok(None);
            }
            self.fire(d.max(self.now))?;
        }
    }

    fn expect_out(&mut self, ev: &Event, at: Time, lo: Time, hi: Time) -> Result<(), Stop> {
        if self.proto.is_none() {
            return malformed(ev.pos, "an outbound packet before socket()");
        }
        let text = ev.text.trim_start_matches(['<', '>']).trim_start();
        let script_line = format!("script packet: {} {text}", secs(at));
        let Some((t0, w0)) = self.next_out(hi)? else {
            let next = self.proto.as_ref().and_then(|p| p.poll_timeout());
            let idle = match next {
                Some(t) => format!("the core's next timer is at {}", secs(t)),
                None => "the core has no timer running".into(),
            };
            return failed(
                ev.pos,
                vec![
                    format!("expected outbound packet not sent by {} ({idle})", secs(hi)),
                    script_line,
                ],
            );
        };
        let mut got = vec![w0];
        let mut times = vec![t0];
        loop {
            let p = self.proto.as_deref().expect("checked");
            if !p.wants_more(&ev.kind, &got) {
                break;
            }
            match self.next_out(hi)? {
                Some((t, w)) => {
                    got.push(w);
                    times.push(t);
                }
                None => break,
            }
        }
        let p = self.proto.as_deref_mut().expect("checked");
        let actual: Vec<String> = got
            .iter()
            .zip(&times)
            .map(|(w, t)| format!("actual packet: {} {}", secs(*t), p.format(w)))
            .collect();
        if let Err(why) = p.check(&ev.kind, &got) {
            let mut lines = vec![why, script_line];
            lines.extend(actual);
            return failed(ev.pos, lines);
        }
        if let Some(t) = times.iter().find(|t| **t < lo || **t > hi) {
            let mut lines = vec![
                format!(
                    "timing error: expected outbound packet between {} and {}, sent at {}",
                    secs(lo),
                    secs(hi),
                    secs(*t)
                ),
                script_line,
            ];
            lines.extend(actual);
            return failed(ev.pos, lines);
        }
        self.base = *times.last().expect("one at least");
        Ok(())
    }

    /// Before a packet is injected or a call made, every packet the core sent earlier must have
    /// been matched: a line that comes later in the script cannot take it (stricter than
    /// packetdrill, which only compares times; here every event at one instant is ordered).
    fn nothing_unmatched(&self, ev: &Event) -> Result<(), Stop> {
        let Some((t, w)) = self.out.front() else {
            return Ok(());
        };
        let p = self.proto.as_deref().expect("a packet was sent");
        let mut lines = vec![
            "unexpected outbound packet: the core sent it before this line, and no line before matched it".to_string(),
            format!("actual packet: {} {}", secs(*t), p.format(w)),
        ];
        for (t, w) in self.out.iter().skip(1).take(4) {
            lines.push(format!("actual packet: {} {}", secs(*t), p.format(w)));
        }
        failed(ev.pos, lines)
    }

    fn var(&self, name: &str) -> Option<Value> {
        if let Some(v) = self.locals.get(name) {
            return Some(*v);
        }
        let c = tcp_vars::constant(name).or_else(|| sctp_host::constant(name));
        c.or_else(|| self.proto.as_ref()?.var(name)).map(Value::Num)
    }

    fn assertions(&mut self, stmts: &[expr::Stmt]) -> Result<(), Stop> {
        for s in stmts {
            let eval = |e: &expr::Expr| expr::eval(e, &|n| self.var(n));
            let err = |e: expr::EvalError| {
                let pos = e.pos.unwrap_or(s.pos);
                if e.msg.starts_with("unknown name")
                    && self.proto.as_ref().is_none_or(|p| !p.exists())
                {
                    Stop::Malformed {
                        pos,
                        msg: format!("{} (no connection yet: assertions read the core after listen() or connect())", e.msg),
                    }
                } else {
                    Stop::Malformed { pos, msg: e.msg }
                }
            };
            match &s.kind {
                StmtKind::Pass => {}
                StmtKind::Assign(n, e) => {
                    let v = eval(e).map_err(err)?;
                    self.locals.insert(n.clone(), v);
                }
                StmtKind::Assert(e, msg) => {
                    let v = eval(e).map_err(err)?;
                    if expr::holds(v) {
                        continue;
                    }
                    let mut lines = vec![format!(
                        "assertion failed at {}: {}",
                        secs(self.now),
                        s.text
                    )];
                    let mut names = Vec::new();
                    expr::names(e, &mut names);
                    for n in names {
                        if tcp_vars::constant(&n)
                            .or_else(|| sctp_host::constant(&n))
                            .is_some()
                        {
                            continue;
                        }
                        if let Some(v) = self.var(&n) {
                            lines.push(format!("  {n} = {v}"));
                        }
                    }
                    if let Some(m) = msg {
                        let v = eval(m).map_err(err)?;
                        lines.push(format!("  message: {v}"));
                    }
                    return failed(s.pos, lines);
                }
            }
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<(), Stop> {
        if let Some(b) = self.blocked.take() {
            return failed(
                b.pos,
                vec![format!(
                    "{} never returned (still blocked at the end, {})",
                    b.call.name,
                    secs(self.now)
                )],
            );
        }
        if let Some((t, w)) = self.out.pop_front() {
            let p = self.proto.as_deref().expect("a packet was sent");
            let mut lines = vec![
                "unexpected outbound packet: the script ended without a line for it".to_string(),
                format!("actual packet: {} {}", secs(t), p.format(&w)),
            ];
            for (t, w) in self.out.iter().take(4) {
                lines.push(format!("actual packet: {} {}", secs(*t), p.format(w)));
            }
            return failed(self.last_event, lines);
        }
        Ok(())
    }
}

/// One protocol per script: the packet lines must be of the socket's protocol, and SCTP
/// chunk lines must name known chunks and fields.
fn check_protocols(script: &Script) -> Result<(), Stop> {
    let mut tcp = None;
    for ev in &script.events {
        let this = match &ev.kind {
            EventKind::Tcp(_) => true,
            EventKind::Sctp(p) => {
                if let Err((pos, msg)) = sctp_host::validate(p) {
                    return malformed(pos, msg);
                }
                false
            }
            _ => continue,
        };
        match tcp {
            None => tcp = Some(this),
            Some(t) if t != this => {
                return malformed(ev.pos, "TCP and SCTP packet lines in one script");
            }
            _ => {}
        }
    }
    Ok(())
}
