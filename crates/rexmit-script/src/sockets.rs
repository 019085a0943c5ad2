//! The system calls a script makes, mapped onto the core's API (`host::Proto`): one socket
//! (`socket`, `bind`, `listen` then one `accept`, or `connect`), `write`/`send`/`sendmsg`,
//! `read`/`recv`, `close`/`shutdown`, `setsockopt`/`getsockopt`, `fcntl(F_SETFL, O_NONBLOCK)`.
//! Blocking calls that cannot complete become `Pending` (the runner retries them after every
//! step); non-blocking ones answer EAGAIN / EINPROGRESS as Linux does.

use crate::ast::{Arg, Syscall};
use crate::host::{ConnError, Proto};
use crate::settings::{Settings, SockVal};
use crate::{sctp_host::SctpHost, tcp_host::TcpHost};
use rexmit_time::Time;

/// A blocking call waiting for the core.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pending {
    Accept,
    Connect,
    Read { max: usize },
    Write { left: usize, total: usize },
}

/// What a call did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CallOut {
    /// It returned this value (and errno, with -1).
    Done(i64, Option<&'static str>),
    /// It blocks (a blocking socket and nothing to return yet).
    Blocks(Pending),
    /// `getsockopt` read a value other than the script's: the message says which.
    Mismatch(String),
}

#[derive(Debug, Default)]
pub struct Sockets {
    next_fd: i64,
    sock: Option<i64>,
    listen_fd: Option<i64>,
    conn_fd: Option<i64>,
    accepted: bool,
    nonblocking: Vec<i64>,
}

fn int_arg(a: &Arg) -> Option<i64> {
    match a {
        Arg::Int(v) => Some(*v),
        Arg::List(v) if v.len() == 1 => int_arg(&v[0]),
        _ => None,
    }
}

fn sym(a: &Arg) -> Option<&str> {
    match a {
        Arg::Syms(s) if s.len() == 1 => Some(&s[0]),
        _ => None,
    }
}

/// The byte count of a `sendmsg` message: the sum of its iovec lengths.
fn iov_len(msg: &Arg) -> Option<i64> {
    let Arg::Struct(fields) = msg else {
        return None;
    };
    let (_, iov) = fields
        .iter()
        .find(|(n, _)| n.as_deref() == Some("msg_iov"))?;
    let Arg::List(items) = iov else { return None };
    items
        .iter()
        .map(|it| match it {
            Arg::Struct(f) => f.iter().rev().find_map(|(_, a)| int_arg(a)),
            _ => None,
        })
        .sum()
}

impl Sockets {
    pub fn new() -> Self {
        Sockets {
            next_fd: 3,
            ..Sockets::default()
        }
    }

    fn arg(c: &Syscall, i: usize) -> Result<&Arg, String> {
        c.args
            .get(i)
            .map(|(a, _)| a)
            .ok_or_else(|| format!("{} needs at least {} arguments", c.name, i + 1))
    }

    fn count(c: &Syscall, i: usize) -> Result<usize, String> {
        match Self::arg(c, i)? {
            Arg::Int(v) if *v >= 0 => Ok(*v as usize),
            _ => Err(format!(
                "{}: argument {} must be a byte count",
                c.name,
                i + 1
            )),
        }
    }

    /// Run `c` at `now`. `Err` is a malformed script (an unsupported call or option).
    pub fn call(
        &mut self,
        proto: &mut Option<Box<dyn Proto>>,
        settings: &mut Settings,
        now: Time,
        c: &Syscall,
    ) -> Result<CallOut, String> {
        if c.name == "socket" {
            return self.socket(proto, c);
        }
        let fd = match Self::arg(c, 0)? {
            Arg::Int(fd) => *fd,
            _ => {
                return Err(format!(
                    "{}: the first argument must be a file descriptor",
                    c.name
                ))
            }
        };
        let Some(p) = proto.as_deref_mut() else {
            return Ok(CallOut::Done(-1, Some("EBADF")));
        };
        let known = [self.sock, self.listen_fd, self.conn_fd].contains(&Some(fd));
        if !known {
            return Ok(CallOut::Done(-1, Some("EBADF")));
        }
        let nonblocking = self.nonblocking.contains(&fd);
        let is_conn = self.conn_fd == Some(fd);
        Ok(match c.name.as_str() {
            "bind" => CallOut::Done(0, None),
            "listen" => {
                if p.exists() {
                    return Err(
                        "listen: the socket already has a core (one connection per script)".into(),
                    );
                }
                p.listen(settings)?;
                self.listen_fd = Some(fd);
                CallOut::Done(0, None)
            }
            "connect" => {
                if p.exists() {
                    return Err(
                        "connect: the socket already has a core (one connection per script)".into(),
                    );
                }
                p.connect(settings, now)?;
                self.conn_fd = Some(fd);
                if nonblocking {
                    CallOut::Done(-1, Some("EINPROGRESS"))
                } else {
                    CallOut::Blocks(Pending::Connect)
                }
            }
            "accept" => {
                if self.listen_fd != Some(fd) {
                    return Ok(CallOut::Done(-1, Some("EINVAL")));
                }
                if self.accepted {
                    return Err(
                        "accept: rexmit runs one connection per script; it was accepted already"
                            .into(),
                    );
                }
                if nonblocking && !p.established() {
                    CallOut::Done(-1, Some("EAGAIN"))
                } else {
                    CallOut::Blocks(Pending::Accept)
                }
            }
            "write" | "send" | "sendto" | "sendmsg" if is_conn => {
                let n = if c.name == "sendmsg" {
                    iov_len(Self::arg(c, 1)?)
                        .filter(|n| *n >= 0)
                        .ok_or("sendmsg: expected {..., msg_iov(N)=[{..., LEN}, ...], ...}")?
                        as usize
                } else {
                    Self::count(c, 2)?
                };
                CallOut::Blocks(Pending::Write { left: n, total: n })
            }
            "read" | "recv" | "recvfrom" if is_conn => CallOut::Blocks(Pending::Read {
                max: Self::count(c, 2)?,
            }),
            "write" | "send" | "sendto" | "sendmsg" | "read" | "recv" | "recvfrom" => {
                CallOut::Done(-1, Some("ENOTCONN"))
            }
            "close" => {
                if is_conn || (self.listen_fd == Some(fd) && !self.accepted) {
                    p.close(now);
                }
                if is_conn {
                    self.conn_fd = None;
                }
                CallOut::Done(0, None)
            }
            "shutdown" => {
                match Self::arg(c, 1).ok().and_then(sym) {
                    Some("SHUT_WR") | Some("SHUT_RDWR") => p.close(now),
                    Some("SHUT_RD") => {}
                    _ => return Err("shutdown: expected SHUT_RD, SHUT_WR or SHUT_RDWR".into()),
                }
                CallOut::Done(0, None)
            }
            "fcntl" => self.fcntl(fd, c)?,
            "setsockopt" => {
                let name = Self::arg(c, 2)
                    .ok()
                    .and_then(sym)
                    .ok_or("setsockopt: expected an option name as the third argument")?;
                let val = Self::arg(c, 3)?;
                let text = match val {
                    Arg::Str(s) => Some(s.as_str()),
                    _ => None,
                };
                if !p.exists() {
                    settings.sockopt(name, int_arg(val), text)?;
                    return Ok(CallOut::Done(0, None));
                }
                let want = match text {
                    Some(t) => SockVal::Text(t.to_string()),
                    None => SockVal::Int(
                        int_arg(val).ok_or("setsockopt: expected a value such as [1]")?,
                    ),
                };
                let now_is = p.sockopt(name);
                if now_is.as_ref() != Some(&want) {
                    return Err(format!(
                        "setsockopt {name} after listen() or connect(): the core takes its options when it is created (set it before)"
                    ));
                }
                CallOut::Done(0, None)
            }
            "getsockopt" => {
                let name = Self::arg(c, 2)
                    .ok()
                    .and_then(sym)
                    .ok_or("getsockopt: expected an option name as the third argument")?;
                let val = Self::arg(c, 3)?;
                if name == "TCP_INFO" {
                    return Ok(tcp_info(p, val));
                }
                let got = p.sockopt(name).ok_or_else(|| {
                    format!("getsockopt {name}: unsupported option (docs/scripts.md)")
                })?;
                let want = match val {
                    Arg::Str(s) => Some(SockVal::Text(s.clone())),
                    Arg::Any => None,
                    v => Some(SockVal::Int(
                        int_arg(v).ok_or("getsockopt: expected [N], \"name\" or ...")?,
                    )),
                };
                match want {
                    Some(w) if w != got => CallOut::Mismatch(format!(
                        "getsockopt {name}: expected {}, actual {}",
                        show(&w),
                        show(&got)
                    )),
                    _ => CallOut::Done(0, None),
                }
            }
            other => {
                return Err(format!(
                    "unsupported system call {other} (docs/scripts.md lists them)"
                ))
            }
        })
    }

    fn socket(
        &mut self,
        proto: &mut Option<Box<dyn Proto>>,
        c: &Syscall,
    ) -> Result<CallOut, String> {
        if self.sock.is_some() {
            return Err(
                "socket: rexmit runs one socket per script (plus the one accept returns)".into(),
            );
        }
        let ty = c.args.get(1).map(|(a, _)| a);
        if !matches!(ty, None | Some(Arg::Any)) && ty.and_then(sym) != Some("SOCK_STREAM") {
            return Err("socket: only SOCK_STREAM sockets are supported".into());
        }
        let protocol = c.args.get(2).map(|(a, _)| a);
        let host: Box<dyn Proto> = match protocol.and_then(sym) {
            None | Some("IPPROTO_TCP") => Box::new(TcpHost::new()),
            Some("IPPROTO_SCTP") => Box::new(SctpHost::new()),
            Some(other) => {
                return Err(format!(
                    "socket: protocol {other} is not supported (IPPROTO_TCP, IPPROTO_SCTP)"
                ))
            }
        };
        *proto = Some(host);
        let fd = self.new_fd();
        self.sock = Some(fd);
        Ok(CallOut::Done(fd, None))
    }

    fn new_fd(&mut self) -> i64 {
        let fd = self.next_fd;
        self.next_fd += 1;
        fd
    }

    fn fcntl(&mut self, fd: i64, c: &Syscall) -> Result<CallOut, String> {
        let nonblocking = self.nonblocking.contains(&fd);
        match Self::arg(c, 1).ok().and_then(sym) {
            Some("F_SETFL") => {
                let on = match Self::arg(c, 2)? {
                    Arg::Syms(s) => s.iter().any(|f| f == "O_NONBLOCK"),
                    Arg::Int(v) => v & 0o4000 != 0,
                    _ => {
                        return Err("fcntl F_SETFL: expected flags such as O_RDWR|O_NONBLOCK".into())
                    }
                };
                self.nonblocking.retain(|f| *f != fd);
                if on {
                    self.nonblocking.push(fd);
                }
                Ok(CallOut::Done(0, None))
            }
            // O_RDWR = 2, O_NONBLOCK = 0o4000 (Linux).
            Some("F_GETFL") => Ok(CallOut::Done(
                2 | if nonblocking { 0o4000 } else { 0 },
                None,
            )),
            _ => Err("fcntl: only F_SETFL and F_GETFL are supported".into()),
        }
    }

    /// Try a blocking call again; its result once it can complete. `nonblocking` calls never
    /// wait: they answer EAGAIN.
    pub fn retry(
        &mut self,
        p: &mut dyn Proto,
        now: Time,
        pending: &mut Pending,
    ) -> Option<(i64, Option<&'static str>)> {
        let nonblocking = self
            .conn_fd
            .or(self.listen_fd)
            .is_some_and(|fd| self.nonblocking.contains(&fd));
        match pending {
            Pending::Connect => {
                if p.established() {
                    return Some((0, None));
                }
                match p.error() {
                    Some(ConnError::Reset) => Some((-1, Some("ECONNREFUSED"))),
                    Some(ConnError::TimedOut) => Some((-1, Some("ETIMEDOUT"))),
                    None => None,
                }
            }
            Pending::Accept => p.established().then(|| {
                self.accepted = true;
                let fd = self.new_fd();
                self.conn_fd = Some(fd);
                (fd, None)
            }),
            Pending::Read { max } => {
                if let Some(n) = p.read(*max) {
                    return Some((n as i64, None));
                }
                if p.peer_closed() {
                    return Some((0, None));
                }
                match p.error() {
                    Some(ConnError::Reset) => return Some((-1, Some("ECONNRESET"))),
                    Some(ConnError::TimedOut) => return Some((-1, Some("ETIMEDOUT"))),
                    None => {}
                }
                nonblocking.then_some((-1, Some("EAGAIN")))
            }
            Pending::Write { left, total } => {
                let took = match p.write(now, *left) {
                    Ok(n) => n,
                    Err(errno) => return Some((-1, Some(errno))),
                };
                *left -= took;
                if *left == 0 {
                    return Some((*total as i64, None));
                }
                if nonblocking {
                    let done = *total - *left;
                    return Some(if done == 0 {
                        (-1, Some("EAGAIN"))
                    } else {
                        (done as i64, None)
                    });
                }
                None
            }
        }
    }
}

fn show(v: &SockVal) -> String {
    match v {
        SockVal::Int(i) => format!("[{i}]"),
        SockVal::Text(t) => format!("\"{t}\""),
    }
}

/// `getsockopt(fd, SOL_TCP, TCP_INFO, {tcpi_snd_cwnd=10, ...}, ...)`: each named field
/// compared with the variable of the same name.
fn tcp_info(p: &dyn Proto, val: &Arg) -> CallOut {
    let Arg::Struct(fields) = val else {
        return CallOut::Mismatch("getsockopt TCP_INFO: expected {tcpi_NAME=VALUE, ...}".into());
    };
    for (name, v) in fields {
        let (Some(name), Some(want)) = (name, int_arg(v)) else {
            continue;
        };
        match p.var(name) {
            Some(got) if got == want as f64 => {}
            Some(got) => {
                return CallOut::Mismatch(format!(
                    "getsockopt TCP_INFO: {name} expected {want}, actual {got}"
                ))
            }
            None => return CallOut::Mismatch(format!("getsockopt TCP_INFO: unknown field {name}")),
        }
    }
    CallOut::Done(0, None)
}
