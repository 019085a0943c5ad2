//! A usrsctp endpoint on a simulated node: the association's socket in the run's stack, the
//! application on top (a bulk sender or a message source, as for rexmit's own SCTP, or the
//! receiving application), and the ground truth the simulator keeps beside it.
//!
//! At every call the agent first brings the stack's clock to the simulated time (timers due
//! fire), then hands the stack the packet that arrived, lets the application read and write,
//! and puts what the stack sent on the wire. While its association is open it calls again at
//! every simulated millisecond, so the stack's timers fire on time.
//!
//! Ground truth as for rexmit's SCTP (see `rexmit_endpoints::sctp`): the sending agent counts
//! every DATA chunk its stack emits by TSN and keeps message numbers off the wire (they travel
//! in the PPID inside the stack, 0 on the wire); the receiving agent sees every DATA chunk that
//! arrives (duplicates are spurious retransmissions) and stamps each delivered message.

mod metrics;

use crate::ffi;
use crate::socket::Sock;
use crate::stack::{EndpointId, StackRun};
use crate::wire::{Addressing, Dropped, WireMap};
use rexmit_endpoints::latency::MessageLog;
use rexmit_endpoints::messages::Message;
use rexmit_endpoints::sctp::{SctpApp, Truth};
use rexmit_endpoints::truth::{ArrivedRanges, ChunkTx};
use rexmit_net::{Agent, Ctx, Metrics, Packet};
use rexmit_time::{Duration, Time};
use rexmit_wire::sctp::chunk_type;
use rexmit_wire::{Chunk, Ecn, SctpPacket, Transport};
use std::collections::VecDeque;
use std::rc::Rc;

/// Timer tokens: the millisecond tick of the stack's clock, and the message source's.
const TICK: u64 = 0;
const APP_TIMER: u64 = 1;

/// Largest read per `recv` call (a message larger than this arrives in parts).
const READ_BUF: usize = 1 << 16;

/// Chunks of type `t` in `p`.
fn count(p: &SctpPacket, t: u8) -> u64 {
    p.chunks.iter().filter(|c| c.chunk_type() == t).count() as u64
}

/// A packet from the wire, as the stack will take it.
enum Arrived<'a> {
    /// Through `usrsctp_conninput` on AF_CONN address `token`, with the IPv4 header's ECN
    /// field (RFC 3168 §5: the stack echoes CE in an ECNE chunk).
    Conn(usize, &'a mut SctpPacket, Ecn),
    /// An IPv4 packet, encoded in the agent's scratch buffer.
    Ip,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AssocState {
    /// No association yet (the listener before an INIT, the initiator before its start).
    Idle,
    Connecting,
    Up,
    /// Shut down or failed: no more ticks.
    Closed,
}

pub(crate) struct Sending {
    pub(crate) app: SctpApp,
    pub(crate) next_stream: u16,
    /// Messages generated but not yet accepted by the stack.
    pub(crate) backlog: VecDeque<Message>,
    /// Messages the stack refused for good (larger than its send buffer).
    pub(crate) refused: u64,
    /// Transmissions per TSN, from the first DATA chunk (the initial TSN) on.
    pub(crate) chunk_tx: Option<ChunkTx>,
    pub(crate) blocked_since: Option<Time>,
    pub(crate) blocked: Duration,
    pub(crate) data_chunks_sent: u64,
    pub(crate) retransmissions: u64,
    /// With `sctp.ecn`: ECNE chunks that reached this end, CWR chunks it put on the wire.
    pub(crate) ecn: Option<SenderEcn>,
}

/// The sender's ECN chunks as they cross the wire (RFC 9260 Appendix A).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SenderEcn {
    pub(crate) ecne_received: u64,
    pub(crate) cwr_sent: u64,
}

pub(crate) struct Receiving {
    /// The listening socket; the association's socket is accepted from it.
    pub(crate) listener: Sock,
    /// The peer's initial TSN (from its INIT), the base of `arrived`.
    pub(crate) tsn_base: Option<u32>,
    pub(crate) arrived: ArrivedRanges,
    pub(crate) dup_tsns: u64,
    /// With `sctp.ecn`: packets with DATA that arrived marked CE.
    pub(crate) ce_received: Option<u64>,
    pub(crate) bytes_delivered: u64,
    pub(crate) delivered_before_measure: Option<u64>,
}

pub(crate) enum Role {
    Sender(Box<Sending>),
    Receiver(Box<Receiving>),
}

/// One end of a usrsctp association (see `crate::association` to build a pair).
pub struct UsrsctpAgent {
    pub(crate) run: Rc<StackRun>,
    pub(crate) ep: EndpointId,
    pub(crate) map: WireMap,
    /// The association's socket (the initiator's from the start, the listener's once accepted).
    pub(crate) sock: Option<Sock>,
    pub(crate) role: Role,
    pub(crate) truth: Truth,
    pub(crate) measure_from: Time,
    state: AssocState,
    /// 0 while the association has not failed; 1 aborted by the peer, 3 after
    /// Association.Max.Retrans, 4 when it could not be set up (the codes of rexmit's SCTP).
    failure: u8,
    tick_at: Option<Time>,
    start: Time,
    /// Packets lost between stack and wire: undecodable (should stay 0), unknown path.
    undecodable: u64,
    unknown_path: u64,
    /// Payload of every message sent (zeros) and the receive buffer.
    zeros: Vec<u8>,
    buf: Vec<u8>,
    scratch: Vec<u8>,
}

impl UsrsctpAgent {
    pub(crate) fn new(
        run: Rc<StackRun>,
        ep: EndpointId,
        map: WireMap,
        sock: Option<Sock>,
        role: Role,
        truth: Truth,
        measure_from: Time,
    ) -> Self {
        UsrsctpAgent {
            run,
            ep,
            map,
            sock,
            role,
            truth,
            measure_from,
            state: AssocState::Idle,
            failure: 0,
            tick_at: None,
            start: Time::ZERO,
            undecodable: 0,
            unknown_path: 0,
            zeros: Vec::new(),
            buf: vec![0; READ_BUF],
            scratch: Vec::new(),
        }
    }

    /// One visit: the clock, then `arrived` (a packet from the wire for the stack), then the
    /// application, then the stack's packets onto the wire, then the next tick.
    fn step(&mut self, ctx: &mut Ctx<'_>, arrived: Option<Arrived<'_>>) {
        let now = ctx.now;
        let run = self.run.clone();
        run.advance(now);
        match arrived {
            Some(Arrived::Conn(token, sctp, ecn)) => {
                self.scratch.clear();
                match self.map.incoming(sctp, &mut self.scratch) {
                    Ok(()) => {
                        let bytes = &self.scratch;
                        // SAFETY: a registered token and a complete SCTP packet.
                        run.call(now, self.ep, |lib| unsafe {
                            (lib.conninput)(
                                token as *mut std::ffi::c_void,
                                bytes.as_ptr() as *const _,
                                bytes.len(),
                                ecn as u8,
                            )
                        });
                    }
                    Err(_) => self.undecodable += 1,
                }
            }
            Some(Arrived::Ip) => {
                let bytes = &mut self.scratch;
                run.call(now, self.ep, |lib| {
                    if let Ok(inet) = &lib.inet {
                        inet.input(bytes);
                    }
                });
            }
            None => {}
        }
        if let Role::Receiver(r) = &mut self.role {
            if r.delivered_before_measure.is_none() && now >= self.measure_from {
                r.delivered_before_measure = Some(r.bytes_delivered);
            }
        }
        let ep = self.ep;
        let connected = run.call(now, ep, |lib| self.serve(lib, now));
        if connected {
            if let Role::Sender(s) = &mut self.role {
                if let SctpApp::Messages(m) = &mut s.app {
                    // A message application starts on the association's COMM_UP, as a socket
                    // application would.
                    m.gen.start(now);
                }
            }
            self.generate(ctx);
            run.call(now, ep, |lib| self.feed(lib, now));
        }
        self.flush(ctx);
        self.arm_tick(ctx);
    }

    /// Accept, read everything ready, write what the application has; returns whether the
    /// association came up during this call.
    fn serve(&mut self, lib: &crate::library::Lib, now: Time) -> bool {
        if self.sock.is_none() {
            if let Role::Receiver(r) = &self.role {
                if let Some(s) = r.listener.accept(lib) {
                    self.run.adopt(s);
                    self.run.set_socket(self.ep, s);
                    if s.non_blocking(lib).is_err() {
                        self.failure = 4;
                    }
                    self.sock = Some(s);
                    if self.state == AssocState::Idle {
                        self.state = AssocState::Connecting;
                    }
                }
            }
        }
        let mut came_up = false;
        if let Some(s) = self.sock {
            while let Some(got) = s.recv(lib, &mut self.buf) {
                if got.notification {
                    came_up |= self.on_notification(got.len);
                } else {
                    self.on_data(got, now);
                }
            }
        }
        self.feed(lib, now);
        came_up
    }

    fn on_notification(&mut self, len: usize) -> bool {
        let tlv_len = std::mem::size_of::<ffi::SctpTlv>();
        if len < tlv_len {
            return false;
        }
        // SAFETY: at least a notification header was read into the buffer.
        let tlv = unsafe { std::ptr::read_unaligned(self.buf.as_ptr() as *const ffi::SctpTlv) };
        if tlv.sn_type != ffi::SCTP_ASSOC_CHANGE
            || len < std::mem::size_of::<ffi::SctpAssocChange>()
        {
            return false;
        }
        // SAFETY: an association change of its full size was read.
        let ac =
            unsafe { std::ptr::read_unaligned(self.buf.as_ptr() as *const ffi::SctpAssocChange) };
        match ac.sac_state {
            ffi::SCTP_COMM_UP | ffi::SCTP_RESTART => {
                let first = self.state != AssocState::Up;
                self.state = AssocState::Up;
                return first;
            }
            ffi::SCTP_COMM_LOST => {
                self.state = AssocState::Closed;
                if self.failure == 0 {
                    self.failure = 3;
                }
            }
            ffi::SCTP_CANT_STR_ASSOC => {
                self.state = AssocState::Closed;
                self.failure = 4;
            }
            ffi::SCTP_SHUTDOWN_COMP => self.state = AssocState::Closed,
            _ => {}
        }
        false
    }

    fn on_data(&mut self, got: crate::socket::Received, now: Time) {
        let Role::Receiver(r) = &mut self.role else {
            return;
        };
        r.bytes_delivered += got.len as u64;
        if got.end_of_message {
            let log = &mut self.truth.borrow_mut().log;
            let msg = log.unwrap_msg(u32::from_be(got.info.rcv_ppid));
            log.on_delivery(msg, now);
        }
    }

    /// Hand the stack what the application has to send, until it refuses.
    fn feed(&mut self, lib: &crate::library::Lib, now: Time) {
        let (Role::Sender(s), Some(sock)) = (&mut self.role, self.sock) else {
            return;
        };
        if self.state != AssocState::Up {
            return;
        }
        loop {
            let log = &mut self.truth.borrow_mut().log;
            let (size, at, unordered, streams) = match &mut s.app {
                SctpApp::Bulk(b) => {
                    if b.messages.is_some_and(|n| log.sent() >= n) {
                        break;
                    }
                    (b.message_size, now, b.unordered, b.streams)
                }
                SctpApp::Messages(m) => match s.backlog.front() {
                    Some(msg) => (
                        msg.size.min(u32::MAX as u64) as u32,
                        msg.at,
                        m.unordered,
                        m.streams,
                    ),
                    None => break,
                },
            };
            if self.zeros.len() < size as usize {
                self.zeros.resize(size as usize, 0);
            }
            let id = log.sent();
            let info = ffi::SctpSndinfo {
                snd_sid: s.next_stream,
                snd_flags: if unordered { ffi::SCTP_UNORDERED } else { 0 },
                // The message number, inside the stack only (see `ppid`). The stack copies the
                // PPID into the chunk's bytes as given (opaque, RFC 6458 §5.3.4): written in
                // network byte order, it reads on the wire as the message number.
                snd_ppid: (id as u32).to_be(),
                ..Default::default()
            };
            match sock.send(lib, &self.zeros[..size as usize], &info) {
                Ok(_) => {
                    log.on_send(id, at, size);
                    s.next_stream = (s.next_stream + 1) % streams.max(1);
                    if let Some(since) = s.blocked_since.take() {
                        s.blocked = s.blocked.saturating_add(now.saturating_since(since));
                    }
                    if matches!(s.app, SctpApp::Messages(_)) {
                        s.backlog.pop_front();
                    }
                }
                Err(e) if e == ffi::EWOULDBLOCK => {
                    s.blocked_since.get_or_insert(now);
                    break;
                }
                Err(_) => {
                    // Larger than the send buffer can ever hold, or the association is gone.
                    s.refused += 1;
                    match s.app {
                        SctpApp::Messages(_) => {
                            s.backlog.pop_front();
                        }
                        SctpApp::Bulk(_) => break,
                    }
                }
            }
        }
    }

    /// Move the message source's due messages to the backlog and arm its next one.
    fn generate(&mut self, ctx: &mut Ctx<'_>) {
        if let Role::Sender(s) = &mut self.role {
            if let SctpApp::Messages(m) = &mut s.app {
                s.backlog
                    .extend(std::iter::from_fn(|| m.gen.pop_due(ctx.now)));
                if let Some(t) = m.gen.next_at() {
                    ctx.set_timer(t, APP_TIMER);
                }
            }
        }
    }

    /// Put what the stack sent for this endpoint on the wire.
    fn flush(&mut self, ctx: &mut Ctx<'_>) {
        for out in self.run.take_mail(self.ep) {
            let mut ip = match self.map.outgoing(out.addr, out.tos, &out.bytes) {
                Ok(ip) => ip,
                Err(Dropped::UnknownPath) => {
                    self.unknown_path += 1;
                    continue;
                }
                Err(Dropped::Undecodable(_)) => {
                    self.undecodable += 1;
                    continue;
                }
            };
            let Transport::Sctp(p) = &mut ip.transport else {
                continue;
            };
            self.on_sent(p);
            ctx.send(ip);
        }
    }

    /// Ground truth of a packet this endpoint puts on the wire.
    fn on_sent(&mut self, p: &mut SctpPacket) {
        let truth = &mut *self.truth.borrow_mut();
        match &mut self.role {
            Role::Sender(s) => {
                if let Some(e) = s.ecn.as_mut() {
                    e.cwr_sent += count(p, chunk_type::CWR);
                }
                for c in &p.chunks {
                    if let Chunk::Data(d) = c {
                        let tx = s.chunk_tx.get_or_insert_with(|| ChunkTx::new(d.tsn));
                        let n = tx.sent(d.tsn);
                        s.data_chunks_sent += 1;
                        if n > 1 {
                            s.retransmissions += 1;
                        }
                        let msg = truth.log.unwrap_msg(d.ppid);
                        truth.log.on_transmission(msg, n);
                    }
                }
                truth.ppids.strip(p);
            }
            Role::Receiver(_) => {
                // The cumulative TSN the receiver acknowledges: PPIDs at or below it are
                // never read again.
                for c in &p.chunks {
                    let cum = match c {
                        Chunk::Sack(s) => s.cum_tsn_ack,
                        Chunk::NrSack(s) => s.cum_tsn_ack,
                        // A SACK kept raw (see `wire::keep_exact_chunks`): its first field.
                        Chunk::Unknown {
                            chunk_type: chunk_type::SACK | chunk_type::NR_SACK,
                            value,
                            ..
                        } if value.len() >= 4 => {
                            u32::from_be_bytes([value[0], value[1], value[2], value[3]])
                        }
                        _ => continue,
                    };
                    truth.ppids.forget_through(cum);
                }
            }
        }
    }

    /// Ground truth of a packet from the wire (its IP ECN field `ecn`), before the stack sees
    /// it.
    fn on_arrival(&mut self, p: &mut SctpPacket, ecn: Ecn) {
        let r = match &mut self.role {
            Role::Sender(s) => {
                if let Some(e) = s.ecn.as_mut() {
                    e.ecne_received += count(p, chunk_type::ECNE);
                }
                return;
            }
            Role::Receiver(r) => r,
        };
        if let Some(ce) = r.ce_received.as_mut() {
            *ce += u64::from(ecn == Ecn::Ce && count(p, chunk_type::DATA) > 0);
        }
        for c in &p.chunks {
            match c {
                Chunk::Init(i) => {
                    r.tsn_base.get_or_insert(i.initial_tsn);
                }
                Chunk::Data(d) => {
                    let base = *r.tsn_base.get_or_insert(d.tsn);
                    let off = d.tsn.wrapping_sub(base) as u64;
                    r.dup_tsns += r.arrived.insert(off, off + 1);
                }
                _ => {}
            }
        }
        self.truth.borrow().ppids.restore(p);
    }

    /// Call again at the next whole millisecond while the association may have timers.
    fn arm_tick(&mut self, ctx: &mut Ctx<'_>) {
        if !matches!(self.state, AssocState::Connecting | AssocState::Up) {
            return;
        }
        let next = Time::from_millis(ctx.now.as_nanos() / 1_000_000 + 1);
        if self.tick_at.is_none_or(|t| t <= ctx.now) {
            ctx.set_timer(next, TICK);
            self.tick_at = Some(next);
        }
    }

    /// The association's state and primary path (SCTP_STATUS), if it exists.
    pub fn status(&self) -> Option<ffi::SctpStatus> {
        self.sock.and_then(|s| s.status(self.run.lib()))
    }

    /// SCTP_GET_PEER_ADDR_INFO of each path, in the scenario's order.
    pub fn path_info(&self) -> Vec<Option<ffi::SctpPaddrinfo>> {
        let Some(s) = self.sock else {
            return vec![None; self.map.paths.len()];
        };
        self.map
            .paths
            .iter()
            .map(|p| {
                let port = self.map.remote_port;
                let addr = match self.map.addressing {
                    Addressing::Conn => {
                        ffi::SockaddrStorage::from_conn(&ffi::SockaddrConn::new(p.token, port))
                    }
                    Addressing::Ip => ffi::SockaddrStorage::from_ipv4(p.remote, port),
                };
                s.path_info(self.run.lib(), addr)
            })
            .collect()
    }

    /// Bytes the receiving application has read (0 for a sender).
    pub fn bytes_delivered(&self) -> u64 {
        match &self.role {
            Role::Receiver(r) => r.bytes_delivered,
            Role::Sender(_) => 0,
        }
    }

    /// Packets lost between the stack and the wire: (undecodable, unknown path).
    pub fn dropped(&self) -> (u64, u64) {
        (self.undecodable, self.unknown_path)
    }

    pub fn message_log(&self) -> std::cell::Ref<'_, MessageLog> {
        std::cell::Ref::map(self.truth.borrow(), |t| &t.log)
    }
}

impl Agent for UsrsctpAgent {
    fn start(&mut self, ctx: &mut Ctx<'_>) {
        self.start = ctx.now;
        let now = ctx.now;
        if let (Role::Sender(_), Some(sock)) = (&self.role, self.sock) {
            let map = &self.map;
            let run = self.run.clone();
            run.advance(now);
            let connected = run.call(now, self.ep, |lib| match map.addressing {
                Addressing::Conn => {
                    sock.connect(lib, map.paths[map.primary].token, map.remote_port)
                }
                Addressing::Ip => {
                    sock.connect_ip(lib, &map.remotes_primary_first(), map.remote_port)
                }
            });
            match connected {
                Ok(()) => self.state = AssocState::Connecting,
                Err(_) => {
                    self.state = AssocState::Closed;
                    self.failure = 4;
                }
            }
        }
        self.step(ctx, None);
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, pkt: &mut Packet) {
        let (src, dst) = (pkt.ip.header.src, pkt.ip.header.dst);
        let Some(token) = self.map.accepts(src, dst) else {
            self.unknown_path += 1;
            return;
        };
        let ecn = pkt.ip.header.ecn();
        let Transport::Sctp(p) = &mut pkt.ip.transport else {
            return;
        };
        if p.chunks.iter().any(|c| matches!(c, Chunk::Abort { .. }))
            && self.failure == 0
            && self.state != AssocState::Closed
        {
            self.failure = 1;
        }
        self.on_arrival(p, ecn);
        if token != 0 {
            return self.step(ctx, Some(Arrived::Conn(token, p, ecn)));
        }
        self.scratch.clear();
        if pkt.ip.encode(&mut self.scratch).is_err() {
            self.undecodable += 1;
            return self.step(ctx, None);
        }
        self.step(ctx, Some(Arrived::Ip));
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_>, token: u64) {
        match token {
            TICK => {
                if self.tick_at.is_some_and(|t| t <= ctx.now) {
                    self.tick_at = None;
                }
            }
            APP_TIMER => self.generate(ctx),
            _ => return,
        }
        self.step(ctx, None);
    }

    fn metrics(&self, now: Time) -> Metrics {
        metrics::metrics(self, now)
    }

    fn probe(&self, name: &str) -> Option<f64> {
        metrics::probe(self, name)
    }

    fn probe_names(&self) -> &'static [&'static str] {
        metrics::probe_names(self)
    }
}

impl UsrsctpAgent {
    pub(crate) fn failure(&self) -> u8 {
        self.failure
    }
    pub(crate) fn lifetime(&self, now: Time) -> Duration {
        now.saturating_since(self.start)
    }
}
