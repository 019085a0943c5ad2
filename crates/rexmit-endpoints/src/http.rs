//! HTTP-like cross traffic over TCP: one client process requests objects at random
//! interarrivals (seed 004 §6.2: exponential, mean 655 ms per client process); each request
//! opens a new TCP connection, the server sends a response of random size (seed 004 §6.2:
//! Pareto, minimum 1000 B, mean ≈ 9200 B) and closes. Responsive, because it is TCP, which is
//! why seed 000 §IV prefers application-level cross traffic (PackMime HTTP) to packet-level.
//!
//! Ports: the network binds one agent per (protocol, port), so the server is a set of agents,
//! one per server port ("slot"), each serving one connection at a time. The client keeps one
//! local port and tells its connections apart by the server port. A request waits while every
//! slot is busy (like a browser's connection limit); connections overlap freely otherwise.
//! Client and server slots coordinate through `HttpShared`, simulator-side state that stands in
//! for the request itself (which object, hence the response size).

use crate::latency::{summary, FlowTable, Tables};
use crate::messages::MessageGen;
use crate::timer::DeadlineTimer;
use rexmit_engine::RngStream;
use rexmit_net::{Agent, Ctx, Metrics, Packet};
use rexmit_tcp::{Connection, Event, SharedConfig, State, TcpConfig};
use rexmit_time::Time;
use rexmit_wire::Transport;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::net::Ipv4Addr;
use std::rc::Rc;
use std::sync::Arc;

/// Timer tokens: the request source, then one per slot's connection.
const REQUEST_TIMER: u64 = 1;
const FIRST_CONN_TIMER: u64 = 2;

#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    /// The response size of the request on this slot.
    response: u64,
    /// The client has a connection on this slot.
    client_active: bool,
    /// The server's connection on this slot is past LISTEN.
    server_active: bool,
}

/// Counters of the server's connections.
#[derive(Clone, Copy, Debug, Default)]
struct ServerCounts {
    data_segments_sent: u64,
    retransmits: u64,
    fast_retransmits: u64,
    timeouts: u64,
}

impl ServerCounts {
    fn of(c: &Connection) -> Self {
        let st = c.stats();
        ServerCounts {
            data_segments_sent: st.data_segments_sent,
            retransmits: st.retransmits(),
            fast_retransmits: st.fast_retransmits,
            timeouts: st.timeouts,
        }
    }
    fn add(&mut self, o: ServerCounts) {
        self.data_segments_sent += o.data_segments_sent;
        self.retransmits += o.retransmits;
        self.fast_retransmits += o.fast_retransmits;
        self.timeouts += o.timeouts;
    }
}

#[derive(Clone, Copy, Debug)]
struct Response {
    requested: Time,
    size: u64,
    completed: Option<Time>,
}

/// What the client and the server slots of one HTTP app share.
pub struct HttpShared {
    slots: Vec<Slot>,
    /// Bit k set: slot k is free (neither side active). Hot path: with every slot busy and
    /// requests waiting, the client looked for a free slot at every packet it received by
    /// reading each slot (7.8% of the L1 misses of an nr-sack CMT run).
    free: Vec<u64>,
    /// Initial sequence numbers of the server's connections.
    server_iss: RngStream,
    /// Finished server connections, and the live one of each slot.
    closed: ServerCounts,
    live: Vec<ServerCounts>,
    responses: Vec<Response>,
}

pub type HttpRef = Rc<RefCell<HttpShared>>;

impl HttpShared {
    /// State for `slots` server ports; `iss` draws the server's initial sequence numbers.
    pub fn new(slots: u16, iss: RngStream) -> HttpRef {
        let n = slots.max(1) as usize;
        Rc::new(RefCell::new(HttpShared {
            slots: vec![Slot::default(); n],
            free: (0..n.div_ceil(64))
                .map(|w| {
                    let bits = (n - w * 64).min(64);
                    if bits == 64 {
                        u64::MAX
                    } else {
                        (1u64 << bits) - 1
                    }
                })
                .collect(),
            server_iss: iss,
            closed: ServerCounts::default(),
            live: vec![ServerCounts::default(); n],
            responses: Vec::new(),
        }))
    }

    /// Set slot k; every change of a slot goes through here or the two setters below, which
    /// keep `free` in step.
    fn set_slot(&mut self, k: usize, slot: Slot) {
        self.slots[k] = slot;
        self.mark(k);
    }

    fn set_client_active(&mut self, k: usize, on: bool) {
        self.slots[k].client_active = on;
        self.mark(k);
    }

    fn set_server_active(&mut self, k: usize, on: bool) {
        self.slots[k].server_active = on;
        self.mark(k);
    }

    /// Slot k's bit in `free` from its sides.
    fn mark(&mut self, k: usize) {
        let slot = self.slots[k];
        let bit = 1u64 << (k % 64);
        if slot.client_active || slot.server_active {
            self.free[k / 64] &= !bit;
        } else {
            self.free[k / 64] |= bit;
        }
    }

    /// The first free slot at or after `start`, wrapping around (round robin).
    fn first_free_from(&self, start: usize) -> Option<usize> {
        self.free_in(start, self.slots.len())
            .or_else(|| self.free_in(0, start))
    }

    /// The lowest free slot in `from..to`.
    fn free_in(&self, from: usize, to: usize) -> Option<usize> {
        let mut w = from / 64;
        let mut bits = self.free.get(w)? & (u64::MAX << (from % 64));
        loop {
            if bits != 0 {
                let k = w * 64 + bits.trailing_zeros() as usize;
                return (k < to).then_some(k);
            }
            w += 1;
            bits = *self.free.get(w)?;
        }
    }

    fn server_counts(&self) -> ServerCounts {
        let mut c = self.closed;
        self.live.iter().for_each(|l| c.add(*l));
        c
    }
}

impl Tables for HttpRef {
    /// Every request: when it was made, its response size, and when the last byte reached the
    /// client (0 with `completed` = 0 if it never did).
    fn tables(&self) -> Vec<FlowTable> {
        let s = self.borrow();
        let col = |f: fn(&Response) -> u64| s.responses.iter().map(f).collect::<Vec<u64>>();
        vec![FlowTable {
            table: "responses",
            columns: vec![
                ("request", (0..s.responses.len() as u64).collect()),
                ("requested_ns", col(|r| r.requested.as_nanos())),
                ("size", col(|r| r.size)),
                ("completed", col(|r| r.completed.is_some() as u64)),
                (
                    "completion_ns",
                    col(|r| {
                        r.completed
                            .map_or(0, |t| t.saturating_since(r.requested).as_nanos())
                    }),
                ),
            ],
        }]
    }
}

/// Where the client finds the server.
#[derive(Clone, Copy, Debug)]
pub struct HttpEndpoints {
    pub client_port: u16,
    pub server: Ipv4Addr,
    /// The first server port; slot k listens on `server_port + k`.
    pub server_port: u16,
}

struct ClientConn {
    conn: Connection,
    request: usize,
    got: u64,
    /// As `HttpServerSlot::settled`.
    settled: bool,
}

/// The requesting side: request source, connections, response completion times.
pub struct HttpClient {
    cfg: Arc<SharedConfig>,
    ep: HttpEndpoints,
    requests: MessageGen,
    iss: RngStream,
    shared: HttpRef,
    conns: Vec<Option<ClientConn>>,
    timers: Vec<DeadlineTimer>,
    waiting: VecDeque<usize>,
    next_slot: usize,
    local: Ipv4Addr,
    start: Time,
    measure_from: Time,
    bytes_delivered: u64,
    bytes_delivered_measured: u64,
    failed: u64,
}

impl HttpClient {
    /// `requests` gives request times and response sizes; `iss` draws the client's initial
    /// sequence numbers; response statistics count requests made from `measure_from` on.
    pub fn new(
        cfg: TcpConfig,
        ep: HttpEndpoints,
        requests: MessageGen,
        iss: RngStream,
        shared: HttpRef,
        measure_from: Time,
    ) -> Self {
        let n = shared.borrow().slots.len();
        HttpClient {
            cfg: SharedConfig::new(cfg),
            ep,
            requests,
            iss,
            shared,
            conns: (0..n).map(|_| None).collect(),
            timers: (0..n).map(|_| DeadlineTimer::default()).collect(),
            waiting: VecDeque::new(),
            next_slot: 0,
            local: Ipv4Addr::UNSPECIFIED,
            start: Time::ZERO,
            measure_from,
            bytes_delivered: 0,
            bytes_delivered_measured: 0,
            failed: 0,
        }
    }

    fn generate(&mut self, ctx: &mut Ctx<'_>) {
        while let Some(m) = self.requests.pop_due(ctx.now) {
            let mut sh = self.shared.borrow_mut();
            sh.responses.push(Response {
                requested: m.at,
                size: m.size,
                completed: None,
            });
            self.waiting.push_back(sh.responses.len() - 1);
        }
        if let Some(t) = self.requests.next_at() {
            ctx.set_timer(t, REQUEST_TIMER);
        }
    }

    /// Open a connection for each waiting request while a slot is free (round robin, so a
    /// port is reused as late as possible).
    fn dispatch(&mut self, ctx: &mut Ctx<'_>) {
        while let Some(&request) = self.waiting.front() {
            let n = self.conns.len();
            let free = self.shared.borrow().first_free_from(self.next_slot);
            let Some(k) = free else { return };
            self.waiting.pop_front();
            self.next_slot = (k + 1) % n;
            {
                let mut sh = self.shared.borrow_mut();
                let size = sh.responses[request].size;
                sh.set_slot(
                    k,
                    Slot {
                        response: size,
                        client_active: true,
                        server_active: false,
                    },
                );
            }
            let iss = self.iss.next_u64() as u32;
            let (local, remote) = (self.ep.client_port, self.ep.server_port + k as u16);
            // Built in its slot, one expression: the connection is not copied on its way.
            self.conns[k] = Some(ClientConn {
                conn: Connection::connect_shared(self.cfg.clone(), local, remote, iss),
                request,
                got: 0,
                settled: false,
            });
            self.pump(ctx, k);
        }
    }

    /// The client connection's events: the response read as it arrives, the close answered.
    /// Returns whether the connection has more to send (it closed its side).
    /// Whether connection `k` has an event for `client_events` (most segments raise none: the
    /// call is skipped, issue 40 step 7).
    #[inline]
    fn has_event(&self, k: usize) -> bool {
        self.conns[k].as_ref().is_some_and(|c| c.conn.has_event())
    }

    fn client_events(&mut self, now: Time, k: usize, done: &mut bool) -> bool {
        let Some(c) = self.conns[k].as_mut() else {
            return false;
        };
        let mut progress = false;
        while let Some(ev) = c.conn.poll_event() {
            match ev {
                Event::Delivered { .. } => {
                    let got = c.conn.recv(usize::MAX).len() as u64;
                    c.got += got;
                    self.bytes_delivered += got;
                    if now >= self.measure_from {
                        self.bytes_delivered_measured += got;
                    }
                    let mut sh = self.shared.borrow_mut();
                    let r = &mut sh.responses[c.request];
                    if r.completed.is_none() && c.got >= r.size {
                        r.completed = Some(now);
                    }
                }
                Event::PeerClosed => {
                    c.conn.close(now);
                    progress = true;
                }
                Event::Closed | Event::Reset | Event::TimedOut => *done = true,
                _ => {}
            }
        }
        progress
    }

    fn pump(&mut self, ctx: &mut Ctx<'_>, k: usize) {
        let now = ctx.now;
        if self.conns[k].is_none() {
            return;
        }
        let mut done = false;
        loop {
            // Read before the ACK is built, as the TCP sink does (see `tcp.rs`).
            let mut progress = self.has_event(k) && self.client_events(now, k, &mut done);
            let c = self.conns[k].as_mut().expect("checked above");
            while let Some((seg, ecn)) = c.conn.poll_transmit_ecn(now) {
                ctx.send(crate::tcp::ip_packet(self.local, self.ep.server, seg, ecn));
            }
            // Events after the poll may call into the core (`recv`, `close`) unpolled.
            c.settled = !c.conn.has_event();
            progress |= self.has_event(k) && self.client_events(now, k, &mut done);
            if !progress || done {
                break;
            }
        }
        let c = self.conns[k].as_mut().expect("checked above");
        if done || c.conn.state() == State::Closed {
            if self.shared.borrow().responses[c.request]
                .completed
                .is_none()
            {
                self.failed += 1;
            }
            self.conns[k] = None;
            self.shared.borrow_mut().set_client_active(k, false);
            return;
        }
        self.timers[k].arm_with_token(ctx, c.conn.poll_timeout(), FIRST_CONN_TIMER + k as u64);
    }

    fn open_connections(&self) -> usize {
        self.conns.iter().filter(|c| c.is_some()).count()
    }
}

impl Agent for HttpClient {
    fn start(&mut self, ctx: &mut Ctx<'_>) {
        self.start = ctx.now;
        self.local = ctx.addrs.first().copied().unwrap_or(Ipv4Addr::UNSPECIFIED);
        self.requests.start(ctx.now);
        self.generate(ctx);
        self.dispatch(ctx);
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, pkt: &mut Packet) {
        let Transport::Tcp(seg) = &pkt.ip.transport else {
            return;
        };
        let k = seg.src_port.wrapping_sub(self.ep.server_port) as usize;
        if let Some(Some(c)) = self.conns.get_mut(k) {
            c.conn.handle_segment_ecn(ctx.now, seg, pkt.ip.header.ecn());
            self.pump(ctx, k);
        }
        // Most segments find no request waiting: the call is skipped then.
        if !self.waiting.is_empty() {
            self.dispatch(ctx);
        }
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_>, token: u64) {
        if token == REQUEST_TIMER {
            self.generate(ctx);
        } else if let Some(k) = token
            .checked_sub(FIRST_CONN_TIMER)
            .map(|k| k as usize)
            .filter(|&k| k < self.conns.len())
        {
            self.timers[k].fired(ctx.now);
            let settled = self.conns[k].as_ref().is_some_and(|c| c.settled);
            // A stale wake-up (as `HttpServerSlot::on_timer`): `pump` armed the core's deadline.
            if settled && self.timers[k].rearm_if_early(ctx, token) {
                debug_assert_eq!(
                    self.timers[k].wanted(),
                    self.conns[k].as_ref().and_then(|c| c.conn.poll_timeout())
                );
            } else if let Some(c) = self.conns[k].as_mut() {
                if c.conn.poll_timeout().is_some_and(|t| t <= ctx.now) {
                    c.conn.handle_timeout(ctx.now);
                }
                self.pump(ctx, k);
            }
        }
        self.dispatch(ctx);
    }

    fn metrics(&self, now: Time) -> Metrics {
        let sh = self.shared.borrow();
        let counted: Vec<&Response> = sh
            .responses
            .iter()
            .filter(|r| r.requested >= self.measure_from)
            .collect();
        let mut times: Vec<f64> = counted
            .iter()
            .filter_map(|r| {
                r.completed
                    .map(|t| t.saturating_since(r.requested).as_secs_f64())
            })
            .collect();
        let (completed, mean, p99, max) = summary(&mut times);
        let window = now
            .saturating_since(self.measure_from.max(self.start))
            .as_secs_f64();
        let srv = sh.server_counts();
        let m = [
            ("requests", sh.responses.len() as f64),
            ("responses_completed", completed),
            ("responses_failed", self.failed as f64),
            ("requests_waiting", self.waiting.len() as f64),
            ("connections_open", self.open_connections() as f64),
            ("completion_time_mean_s", mean),
            ("completion_time_p99_s", p99),
            ("completion_time_max_s", max),
            ("bytes_delivered", self.bytes_delivered as f64),
            (
                "goodput_bps",
                if window > 0.0 {
                    self.bytes_delivered_measured as f64 * 8.0 / window
                } else {
                    0.0
                },
            ),
            ("data_segments_sent", srv.data_segments_sent as f64),
            ("retransmissions", srv.retransmits as f64),
            ("fast_retransmits", srv.fast_retransmits as f64),
            ("timeouts", srv.timeouts as f64),
        ];
        m.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
    }

    fn probe(&self, name: &str) -> Option<f64> {
        Some(match name {
            "bytes_delivered" => self.bytes_delivered as f64,
            "connections_open" => self.open_connections() as f64,
            "responses_completed" => self
                .shared
                .borrow()
                .responses
                .iter()
                .filter(|r| r.completed.is_some())
                .count() as f64,
            _ => return None,
        })
    }

    fn probe_names(&self) -> &'static [&'static str] {
        &["bytes_delivered", "connections_open", "responses_completed"]
    }
}

/// One server port: accepts a connection, sends the response its request asked for, closes,
/// and listens again.
pub struct HttpServerSlot {
    cfg: Arc<SharedConfig>,
    slot: usize,
    port: u16,
    shared: HttpRef,
    conn: Option<Connection>,
    timer: DeadlineTimer,
    local: Ipv4Addr,
    peer: Option<Ipv4Addr>,
    written: u64,
    /// The last `pump` polled the core after its last call into it: a poll now would find
    /// what that one found (nothing), so a stale wake-up may skip `pump`.
    settled: bool,
}

impl HttpServerSlot {
    pub fn new(cfg: TcpConfig, slot: usize, port: u16, shared: HttpRef) -> Self {
        HttpServerSlot {
            cfg: SharedConfig::new(cfg),
            slot,
            port,
            shared,
            conn: None,
            timer: DeadlineTimer::default(),
            local: Ipv4Addr::UNSPECIFIED,
            peer: None,
            written: 0,
            settled: true,
        }
    }

    fn listen(&mut self) {
        let iss = self.shared.borrow_mut().server_iss.next_u64() as u32;
        self.conn = Some(Connection::listen_shared(self.cfg.clone(), self.port, iss));
        self.peer = None;
        self.written = 0;
        self.settled = true;
    }

    fn pump(&mut self, ctx: &mut Ctx<'_>) {
        let now = ctx.now;
        let mut finished = false;
        let mut settled = false;
        if let Some(conn) = self.conn.as_mut() {
            let size = self.shared.borrow().slots[self.slot].response;
            loop {
                let mut progress = false;
                if matches!(conn.state(), State::SynReceived | State::Established)
                    && self.written < size
                {
                    let n = conn.send(
                        now,
                        (size - self.written).min(conn.send_buffer_free() as u64) as usize,
                    ) as u64;
                    self.written += n;
                    if self.written == size {
                        // The FIN follows the response (RFC 9293 §3.10.4).
                        conn.close(now);
                    }
                    progress |= n > 0;
                }
                if let Some(dst) = self.peer {
                    while let Some((seg, ecn)) = conn.poll_transmit_ecn(now) {
                        ctx.send(crate::tcp::ip_packet(self.local, dst, seg, ecn));
                    }
                    settled = true;
                }
                while let Some(ev) = conn.poll_event() {
                    match ev {
                        Event::Closed | Event::Reset | Event::TimedOut => finished = true,
                        Event::SendBufferSpace => progress = true,
                        Event::PeerClosed => {
                            conn.close(now);
                            settled = false;
                        }
                        Event::Delivered { .. } => {
                            conn.recv(usize::MAX);
                            settled = false;
                        }
                        _ => {}
                    }
                }
                if !progress || finished {
                    break;
                }
            }
            let mut sh = self.shared.borrow_mut();
            sh.live[self.slot] = ServerCounts::of(conn);
            if finished {
                let done = sh.live[self.slot];
                sh.closed.add(done);
                sh.live[self.slot] = ServerCounts::default();
                sh.set_server_active(self.slot, false);
            } else if conn.state() != State::Listen {
                sh.set_server_active(self.slot, true);
            }
        }
        self.settled = settled;
        if finished {
            // TIME-WAIT is not kept: the client picks slots round robin, so a port comes back
            // into use long after its last connection.
            self.listen();
        }
        let deadline = self.conn.as_ref().and_then(|c| c.poll_timeout());
        self.timer.arm(ctx, deadline);
    }
}

impl Agent for HttpServerSlot {
    fn start(&mut self, ctx: &mut Ctx<'_>) {
        self.local = ctx.addrs.first().copied().unwrap_or(Ipv4Addr::UNSPECIFIED);
        self.listen();
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, pkt: &mut Packet) {
        let Transport::Tcp(seg) = &pkt.ip.transport else {
            return;
        };
        if self.peer.is_none() {
            self.peer = Some(pkt.ip.header.src);
            self.local = pkt.ip.header.dst;
        }
        if let Some(conn) = self.conn.as_mut() {
            conn.handle_segment_ecn(ctx.now, seg, pkt.ip.header.ecn());
        }
        self.pump(ctx);
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_>, _token: u64) {
        self.timer.fired(ctx.now);
        // A wake-up for a deadline that has since moved later, or for a connection that has
        // since finished, changes nothing (as `TcpAgent::on_timer`): `pump` armed the core's
        // earliest deadline, `wanted`, and left nothing to poll (`settled`).
        if self.settled && self.timer.rearm_if_early(ctx, 0) {
            debug_assert_eq!(
                self.timer.wanted(),
                self.conn.as_ref().and_then(|c| c.poll_timeout())
            );
            return;
        }
        if let Some(conn) = self.conn.as_mut() {
            if conn.poll_timeout().is_some_and(|t| t <= ctx.now) {
                conn.handle_timeout(ctx.now);
            }
        }
        self.pump(ctx);
    }

    /// The client reports the app's metrics (server counters included).
    fn metrics(&self, _now: Time) -> Metrics {
        Vec::new()
    }

    fn probe(&self, _name: &str) -> Option<f64> {
        None
    }

    fn probe_names(&self) -> &'static [&'static str] {
        &[]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shared(n: u16) -> HttpRef {
        HttpShared::new(
            n,
            rexmit_engine::rng::RngStream::from_seed_and_name(1, "iss"),
        )
    }

    fn busy(client: bool, server: bool) -> Slot {
        Slot {
            response: 0,
            client_active: client,
            server_active: server,
        }
    }

    /// The free-slot bits pick what reading every slot round robin picks, across word
    /// boundaries and wrapping around.
    #[test]
    fn the_first_free_slot_is_the_round_robin_scans() {
        for n in [1u16, 5, 64, 65, 130] {
            let r = shared(n);
            let mut sh = r.borrow_mut();
            let n = n as usize;
            let mut state = 0x9e37_79b9_7f4a_7c15u64;
            for _ in 0..2000 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let k = (state % n as u64) as usize;
                sh.set_slot(k, busy(state & 0x100 != 0, state & 0x200 != 0));
                let start = (state >> 20) as usize % n;
                let scan = (0..n)
                    .map(|i| (start + i) % n)
                    .find(|&k| !sh.slots[k].client_active && !sh.slots[k].server_active);
                assert_eq!(sh.first_free_from(start), scan, "n {n} start {start}");
            }
        }
    }

    #[test]
    fn no_slot_is_free_when_every_side_is_active() {
        let r = shared(70);
        let mut sh = r.borrow_mut();
        for k in 0..70 {
            sh.set_slot(k, busy(k % 2 == 0, k % 2 == 1));
        }
        assert_eq!(sh.first_free_from(0), None);
        assert_eq!(sh.first_free_from(69), None);
        sh.set_slot(3, busy(false, false));
        assert_eq!(sh.first_free_from(4), Some(3));
        assert_eq!(sh.first_free_from(3), Some(3));
    }
}
