//! The usrsctp stack of one simulation run.
//!
//! usrsctp is one global instance per process. A run takes it for its whole life
//! (`StackRun::open`): the stack is initialised without threads, its clock set to the run's
//! start and its random source seeded from the run; when the run's last agent is dropped,
//! every socket is aborted, the stack's timers are run out, and `usrsctp_finish` returns the
//! process to a clean state, so the next run (in this process) starts from exactly the same
//! stack state and repeats bit for bit. Runs in other threads wait; a second run opened in the
//! thread that holds one is an error.
//!
//! Packets: the stack hands every packet it sends to `conn_output`, which only queues it; after
//! each call into the stack, the queue is sorted into the mailboxes of the run's endpoints by
//! the packet's source port (every endpoint of a run has its own port inside the stack). The
//! agent that owns a mailbox puts its packets on the simulated wire. Timers: the stack's clock
//! advances (`usrsctp_handle_timers`) in whole milliseconds to the simulated time of whichever
//! agent calls first at a given instant; the agents with an open association call at every
//! simulated millisecond, so timer output leaves on the millisecond it is due.

pub use crate::error::StackError;
use crate::ffi::{ConnOutput, Socket, SCTPSTAT_WORDS};
use crate::lease::Lease;
use crate::library::{lib, Lib};
pub use crate::outbox::Outgoing;
use crate::redirect;
use rexmit_time::Time;
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::ffi::c_void;

/// The wall-clock date usrsctp sees at simulated time zero (2020-01-01T00:00:00Z): any fixed
/// date would do; it only has to be the same in every run.
pub const EPOCH_US: u64 = 1_577_836_800 * 1_000_000;

/// An endpoint (one socket's association end) of a run, indexing its mailbox.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EndpointId(pub u32);

/// The stack-wide counters attributed to one endpoint (see `StackRun::with_stats`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub fast_retransmits: u64,
    pub timeouts: u64,
    pub retransmitted_chunks: u64,
    /// Window reductions for ECN echoes (FreeBSD's `sctps_ecnereducedcwnd`).
    pub ecn_reductions: u64,
}

impl Counters {
    fn add_delta(&mut self, before: &[u32; SCTPSTAT_WORDS], after: &[u32; SCTPSTAT_WORDS]) {
        use crate::ffi::stat;
        let d = |i: usize| after[i].wrapping_sub(before[i]) as u64;
        self.fast_retransmits += d(stat::SENDFASTRETRANS);
        self.timeouts += d(stat::TIMODATA) + d(stat::TIMOWINDOWPROBE);
        self.retransmitted_chunks += d(stat::SENDRETRANSDATA);
        self.ecn_reductions += d(stat::ECNEREDUCEDCWND);
    }
    fn is_zero(&self) -> bool {
        *self == Counters::default()
    }
}

struct Endpoint {
    port: u16,
    /// IPv4 endpoints: the addresses bound (their packets are found by source address and
    /// port); empty for AF_CONN endpoints (found by port, unique in the run).
    addrs: Vec<std::net::Ipv4Addr>,
    /// The association's socket, once there is one.
    sock: Option<crate::socket::Sock>,
    mailbox: VecDeque<Outgoing>,
    counters: Counters,
}

struct RunState {
    /// The millisecond the stack's timers have been advanced to.
    stack_ms: u64,
    endpoints: Vec<Endpoint>,
    sockets: Vec<*mut Socket>,
    /// IPv4 addresses made the stack's interface addresses.
    ip_addrs: Vec<std::net::Ipv4Addr>,
    next_addr: usize,
    next_port: u16,
    /// Stack-wide settings as the first app set them (name, value).
    sysctls: Vec<(&'static str, u32)>,
    /// Counters of timer ticks whose retransmissions came from several endpoints at once.
    unattributed: Counters,
    /// Packets the stack sent to no endpoint of this run (should stay 0).
    orphans: u64,
    /// Every packet the stack sent, as it sent it, when asked (`record_stack_packets`).
    recorded: Option<Vec<Outgoing>>,
}

/// The stack, taken by one simulation run (shared by its agents through `Rc`).
pub struct StackRun {
    lib: &'static Lib,
    state: RefCell<RunState>,
    /// Set while a stack call is in progress (a re-entrant call would be a bug).
    in_call: Cell<bool>,
    _lease: Lease,
}

impl StackRun {
    /// Take the process's stack for a run whose randomness comes from `seed`.
    pub fn open(seed: u64) -> Result<std::rc::Rc<StackRun>, StackError> {
        let lib = lib()?;
        let lease = Lease::acquire()?;
        if INITIALISED.load(std::sync::atomic::Ordering::Relaxed) && !release(lib, 0) {
            return Err(StackError::Stuck);
        }
        redirect::set_now_us(EPOCH_US);
        redirect::seed_random(seed);
        // SAFETY: no usrsctp instance exists (the previous run finished it); no threads.
        unsafe { (lib.init_nothreads)(0, Some(crate::outbox::conn_output as ConnOutput), None) };
        INITIALISED.store(true, std::sync::atomic::Ordering::Relaxed);
        // ECN is off unless an app's `sctp.ecn` turns it on for its sockets (SCTP_ECN_SUPPORTED,
        // apply.rs); the run's IPv4 addresses are all local to the stack, which must still
        // checksum every packet.
        for (name, value) in [("ecn_enable", 0), ("no_csum_on_loopback", 0)] {
            lib.set_sysctl(name, value)
                .map_err(|what| StackError::Call {
                    what,
                    errno: libc::EINVAL,
                })?;
        }
        Ok(std::rc::Rc::new(StackRun {
            lib,
            state: RefCell::new(RunState {
                stack_ms: 0,
                endpoints: Vec::new(),
                sockets: Vec::new(),
                ip_addrs: Vec::new(),
                next_addr: 0x1000,
                next_port: 1,
                sysctls: Vec::new(),
                unattributed: Counters::default(),
                orphans: 0,
                recorded: None,
            }),
            in_call: Cell::new(false),
            _lease: lease,
        }))
    }

    pub fn lib(&self) -> &'static Lib {
        self.lib
    }

    /// Whether the stack's random source is the run's seed (see `redirect.rs`).
    pub fn random_seeded(&self) -> bool {
        self.lib.random_seeded
    }

    /// A new endpoint with its own port inside the stack.
    pub fn add_endpoint(&self) -> Result<(EndpointId, u16), StackError> {
        let mut s = self.state.borrow_mut();
        if s.next_port == u16::MAX {
            return Err(StackError::Call {
                what: "a port for another endpoint (65534 per run)".into(),
                errno: libc::EADDRINUSE,
            });
        }
        let port = s.next_port;
        s.next_port += 1;
        s.endpoints.push(Endpoint {
            port,
            addrs: Vec::new(),
            sock: None,
            mailbox: VecDeque::new(),
            counters: Counters::default(),
        });
        Ok((EndpointId(s.endpoints.len() as u32 - 1), port))
    }

    /// A new IPv4 endpoint bound to `addrs` and `port` (the app's own, as on the wire); the
    /// addresses become the stack's interface addresses.
    pub fn add_ip_endpoint(
        &self,
        addrs: &[std::net::Ipv4Addr],
        port: u16,
    ) -> Result<EndpointId, StackError> {
        let inet = self.lib.inet.as_ref().map_err(|e| StackError::Call {
            what: format!(
                "IPv4 hosting inside usrsctp (needed for several paths) is unavailable: {e}"
            ),
            errno: libc::EAFNOSUPPORT,
        })?;
        let mut s = self.state.borrow_mut();
        for a in addrs {
            if !s.ip_addrs.contains(a) {
                s.ip_addrs.push(*a);
                inet.add_address(*a);
            }
        }
        s.endpoints.push(Endpoint {
            port,
            addrs: addrs.to_vec(),
            sock: None,
            mailbox: VecDeque::new(),
            counters: Counters::default(),
        });
        Ok(EndpointId(s.endpoints.len() as u32 - 1))
    }

    /// A new AF_CONN address (an opaque token), registered with the stack.
    pub fn add_address(&self) -> usize {
        let addr = {
            let mut s = self.state.borrow_mut();
            s.next_addr += 1;
            s.next_addr
        };
        // SAFETY: registering an opaque address value; the stack never dereferences it.
        unsafe { (self.lib.register_address)(addr as *mut c_void) };
        addr
    }

    /// The socket of endpoint `ep`'s association (for crediting its timer events).
    pub fn set_socket(&self, ep: EndpointId, so: crate::socket::Sock) {
        if let Some(e) = self.state.borrow_mut().endpoints.get_mut(ep.0 as usize) {
            e.sock = Some(so);
        }
    }

    /// Remember a socket so the run closes it at the end.
    pub fn adopt(&self, so: crate::socket::Sock) {
        self.state.borrow_mut().sockets.push(so.0);
    }

    /// Set a stack-wide setting for this run; a second app asking for another value is refused.
    pub fn set_stack_wide(
        &self,
        option: &'static str,
        sysctl: &'static str,
        value: u32,
    ) -> Result<(), StackError> {
        let mut s = self.state.borrow_mut();
        if let Some((_, v)) = s.sysctls.iter().find(|(n, _)| *n == sysctl) {
            if *v != value {
                return Err(StackError::Conflict {
                    option,
                    detail: format!(
                        "net.inet.sctp.{sysctl} is {v} for an earlier app, {value} for this one"
                    ),
                });
            }
            return Ok(());
        }
        self.lib
            .set_sysctl(sysctl, value)
            .map_err(|detail| StackError::Conflict { option, detail })?;
        s.sysctls.push((sysctl, value));
        Ok(())
    }

    /// Run `f` (a call into the stack) at simulated time `now` on behalf of endpoint `ep`:
    /// the clock is set, the stack's counters that change are credited to `ep`, and what the
    /// stack sent is sorted into mailboxes.
    pub fn call<R>(&self, now: Time, ep: EndpointId, f: impl FnOnce(&'static Lib) -> R) -> R {
        assert!(!self.in_call.replace(true), "re-entrant usrsctp call");
        redirect::set_now_us(EPOCH_US + now.as_nanos() / 1000);
        let before = self.lib.stats();
        let r = f(self.lib);
        let after = self.lib.stats();
        self.in_call.set(false);
        let mut s = self.state.borrow_mut();
        if let Some(e) = s.endpoints.get_mut(ep.0 as usize) {
            e.counters.add_delta(&before, &after);
        }
        s.sort_outbox();
        r
    }

    /// Advance the stack's timers to `now` (whole milliseconds), one millisecond at a time so
    /// every timer fires on its own millisecond.
    pub fn advance(&self, now: Time) {
        let target = now.as_nanos() / 1_000_000;
        loop {
            let ms = self.state.borrow().stack_ms;
            if ms >= target {
                return;
            }
            assert!(!self.in_call.replace(true), "re-entrant usrsctp call");
            redirect::set_now_us(EPOCH_US + (ms + 1) * 1000);
            let before = self.lib.stats();
            // SAFETY: the stack is initialised; timers run their callbacks synchronously.
            unsafe { (self.lib.handle_timers)(1) };
            let after = self.lib.stats();
            self.in_call.set(false);
            let mut s = self.state.borrow_mut();
            s.stack_ms = ms + 1;
            let senders = s.sort_outbox();
            let mut delta = Counters::default();
            delta.add_delta(&before, &after);
            if !delta.is_zero() {
                // A timer's retransmissions come out of the endpoint whose timer fired; one that
                // ended the association sent its ABORT; a retransmission timer that found nothing
                // old enough to resend (FreeBSD marks only chunks older than SRTT + 4·RTTVAR)
                // belongs to the one endpoint with data outstanding.
                let owner = match (senders.data.as_slice(), senders.any.as_slice()) {
                    ([one], _) | ([], [one]) => Some(*one),
                    ([], []) => s.only_endpoint_with_data_outstanding(self.lib),
                    _ => None,
                };
                match owner {
                    Some(ep) => add(&mut s.endpoints[ep.0 as usize].counters, delta),
                    None => add(&mut s.unattributed, delta),
                }
            }
        }
    }

    /// Take the packets the stack sent for endpoint `ep`.
    pub fn take_mail(&self, ep: EndpointId) -> VecDeque<Outgoing> {
        let mut s = self.state.borrow_mut();
        s.endpoints
            .get_mut(ep.0 as usize)
            .map(|e| std::mem::take(&mut e.mailbox))
            .unwrap_or_default()
    }

    pub fn counters(&self, ep: EndpointId) -> Counters {
        self.state
            .borrow()
            .endpoints
            .get(ep.0 as usize)
            .map(|e| e.counters)
            .unwrap_or_default()
    }

    /// Counters of timer ticks that several endpoints' retransmissions shared.
    pub fn unattributed(&self) -> Counters {
        self.state.borrow().unattributed
    }

    pub fn orphans(&self) -> u64 {
        self.state.borrow().orphans
    }

    /// Keep a copy of every packet the stack sends from now on, before any renaming (to check
    /// the wire codec against the stack's own bytes).
    pub fn record_stack_packets(&self) {
        self.state
            .borrow_mut()
            .recorded
            .get_or_insert_with(Vec::new);
    }

    /// The packets recorded so far.
    pub fn take_recorded(&self) -> Vec<Outgoing> {
        self.state
            .borrow_mut()
            .recorded
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }
}

/// The endpoints that sent something during one stack call: DATA, and anything.
#[derive(Default)]
struct Senders {
    data: Vec<EndpointId>,
    any: Vec<EndpointId>,
}

fn add(c: &mut Counters, d: Counters) {
    c.fast_retransmits += d.fast_retransmits;
    c.timeouts += d.timeouts;
    c.retransmitted_chunks += d.retransmitted_chunks;
    c.ecn_reductions += d.ecn_reductions;
}

impl RunState {
    fn only_endpoint_with_data_outstanding(&self, lib: &'static Lib) -> Option<EndpointId> {
        let mut found = None;
        for (i, e) in self.endpoints.iter().enumerate() {
            let unacked = e
                .sock
                .and_then(|s| s.status(lib))
                .map_or(0, |st| st.sstat_unackdata);
            if unacked > 0 {
                if found.is_some() {
                    return None;
                }
                found = Some(EndpointId(i as u32));
            }
        }
        found
    }

    /// Move the packets of the last stack call to their endpoints' mailboxes; returns the
    /// endpoints that sent DATA.
    fn sort_outbox(&mut self) -> Senders {
        let out = crate::outbox::take();
        let mut senders = Senders::default();
        if let Some(r) = self.recorded.as_mut() {
            r.extend(out.iter().cloned());
        }
        for p in out {
            let (sctp_at, owner) = if p.addr == 0 {
                // An IPv4 packet: its endpoint by source address and port.
                let at = ip_header_len(&p.bytes);
                let src = p
                    .bytes
                    .get(12..16)
                    .map(|a| std::net::Ipv4Addr::new(a[0], a[1], a[2], a[3]));
                let port = port_at(&p.bytes, at);
                let i = self.endpoints.iter().position(|e| {
                    Some(e.port) == port && src.is_some_and(|a| e.addrs.contains(&a))
                });
                (at, i)
            } else {
                let port = port_at(&p.bytes, 0);
                let i = self
                    .endpoints
                    .iter()
                    .position(|e| e.addrs.is_empty() && Some(e.port) == port);
                (0, i)
            };
            let Some(i) = owner else {
                self.orphans += 1;
                continue;
            };
            let id = EndpointId(i as u32);
            if carries_data(p.bytes.get(sctp_at..).unwrap_or_default())
                && !senders.data.contains(&id)
            {
                senders.data.push(id);
            }
            if !senders.any.contains(&id) {
                senders.any.push(id);
            }
            self.endpoints[i].mailbox.push_back(p);
        }
        senders
    }
}

/// The IPv4 header length of a packet the stack sent.
pub(crate) fn ip_header_len(bytes: &[u8]) -> usize {
    usize::from(bytes.first().copied().unwrap_or(0x45) & 0x0f) * 4
}

fn port_at(bytes: &[u8], at: usize) -> Option<u16> {
    bytes
        .get(at..at + 2)
        .map(|b| u16::from_be_bytes([b[0], b[1]]))
}

/// Whether an SCTP packet has a DATA chunk (walking the chunk headers only).
fn carries_data(bytes: &[u8]) -> bool {
    let mut at = 12;
    while let Some(h) = bytes.get(at..at + 4) {
        if h[0] == 0 {
            return true;
        }
        let len = u16::from_be_bytes([h[2], h[3]]) as usize;
        if len < 4 {
            return false;
        }
        at += (len + 3) & !3;
    }
    false
}

impl Drop for StackRun {
    fn drop(&mut self) {
        let s = self.state.get_mut();
        let lib = self.lib;
        let linger = crate::ffi::Linger {
            l_onoff: 1,
            l_linger: 0,
        };
        for so in s.sockets.drain(..).rev() {
            // SAFETY: every adopted socket is open and closed only here. Linger 0: close
            // aborts the association at once instead of shutting it down.
            unsafe {
                (lib.setsockopt)(
                    so,
                    crate::ffi::SOL_SOCKET,
                    crate::ffi::SO_LINGER,
                    &linger as *const _ as *const c_void,
                    std::mem::size_of::<crate::ffi::Linger>() as u32,
                );
                (lib.close)(so);
            }
        }
        release(lib, s.stack_ms);
    }
}

/// Whether usrsctp is initialised and not yet finished (by a run that could not release it).
static INITIALISED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Run the stack's timers out until `usrsctp_finish` succeeds: freed associations and
/// endpoints leave on timers. Simulated seconds pass; nothing sent reaches anyone.
fn release(lib: &'static Lib, mut ms: u64) -> bool {
    use std::sync::atomic::Ordering;
    for _ in 0..600 {
        // SAFETY: the stack is initialised; finish fails (−1) while endpoints remain, and
        // then changes nothing.
        if unsafe { (lib.finish)() } == 0 {
            INITIALISED.store(false, Ordering::Relaxed);
            crate::outbox::clear();
            return true;
        }
        ms += 1000;
        redirect::set_now_us(EPOCH_US + ms * 1000);
        unsafe { (lib.handle_timers)(1000) };
    }
    crate::outbox::clear();
    false
}
