//! TCP on a simulated node: a bulk sender (an application that keeps the send buffer full, for
//! a given number of bytes or forever) or a message source (see `messages.rs`), and a sink
//! that reads everything.
//!
//! For a message source the adapters share a `StreamTruth`: the sender records each message's
//! byte range and every byte range it puts on the wire, the receiver how many bytes reached its
//! application in order (a message is delivered with its last byte).

use crate::latency::{FlowTable, StreamTruth, Tables};
use crate::messages::MessageGen;
use crate::timer::DeadlineTimer;
use crate::trace::{tcp::TxCounters, TcpTrace, TraceRef};
use crate::truth::{ArrivedRanges, SeqUnwrap};
use rexmit_net::{Agent, Ctx, Metrics, Packet};
use rexmit_tcp::{Connection, Event, SharedConfig, TcpConfig};
use rexmit_time::Time;
use rexmit_wire::{Ecn, IpPacket, TcpFlags, TcpSegment, Transport};
use std::cell::RefCell;
use std::net::Ipv4Addr;
use std::rc::Rc;
use std::sync::Arc;

/// Timer token of the message source (the core's deadline uses 0).
const APP_TIMER: u64 = 1;

/// Message boundaries and byte transmissions shared by a message flow's two adapters.
pub type StreamTruthRef = Rc<RefCell<StreamTruth>>;

impl Tables for StreamTruthRef {
    fn tables(&self) -> Vec<FlowTable> {
        vec![self.borrow().log.table()]
    }
}

/// What the sending application does.
#[derive(Clone, Debug, PartialEq)]
pub struct BulkApp {
    /// Bytes to send; `None` keeps the send buffer full until the run ends.
    pub bytes: Option<u64>,
    /// Close the connection (FIN) once everything is acknowledged.
    pub close_when_done: bool,
}

/// A message source on a connection (`tcp_messages`).
#[derive(Clone, Debug)]
pub struct MessagesApp {
    pub gen: MessageGen,
    /// Shared with the receiver (`TcpAgent::receiver(..).with_messages(..)`).
    pub truth: StreamTruthRef,
    /// Bytes of generated messages not yet written to the connection.
    pub pending: u64,
}

/// What the sending application does.
#[derive(Clone, Debug)]
pub enum TcpApp {
    Bulk(BulkApp),
    Messages(Box<MessagesApp>),
}

impl From<BulkApp> for TcpApp {
    fn from(a: BulkApp) -> Self {
        TcpApp::Bulk(a)
    }
}

impl From<MessagesApp> for TcpApp {
    fn from(a: MessagesApp) -> Self {
        TcpApp::Messages(Box::new(a))
    }
}

enum Role {
    Sender {
        app: TcpApp,
        remote: Ipv4Addr,
        remote_port: u16,
        written: u64,
        done_at: Option<Time>,
    },
    Receiver {
        measure_from: Time,
        messages: Option<StreamTruthRef>,
    },
}

/// Ground truth at the receiving side: which data arrived, and how much of it twice.
#[derive(Default)]
struct RxTruth {
    /// Offsets from the peer's SYN, known once it arrived.
    seq: Option<SeqUnwrap>,
    arrived: ArrivedRanges,
    data_segments: u64,
    duplicate_segments: u64,
    duplicate_bytes: u64,
    first_delivery: Option<Time>,
    last_delivery: Option<Time>,
}

impl RxTruth {
    fn on_segment(&mut self, seq: u32, syn: bool, len: u64) {
        if syn {
            self.seq = Some(SeqUnwrap::new(seq));
            return;
        }
        if len == 0 {
            return;
        }
        if let Some(off) = self.seq.as_mut().map(|u| u.offset(seq)) {
            self.data_segments += 1;
            let dup = self.arrived.insert(off, off + len);
            self.duplicate_bytes += dup;
            if dup == len {
                self.duplicate_segments += 1;
            }
        }
    }
}

/// A TCP endpoint with its application.
// Declaration order (`repr(C)`): what every packet and timer reads first (the trace switch,
// the timer and the addresses on the first line), the application's role and the receiver's
// ground truth next, the connection last, on a line boundary (it is aligned to one: issue 40
// step 6).
#[repr(C)]
pub struct TcpAgent {
    /// The sender's event record, when `[[metrics.trace]]` asks for this flow (boxed: one word
    /// on the agent's first line, which every packet and timer reads).
    trace: Option<Box<TcpTrace>>,
    timer: DeadlineTimer,
    peer: Option<Ipv4Addr>,
    local: Ipv4Addr,
    local_port: u16,
    /// 0 while the connection has not failed; 1 timed out (RFC 9293 §3.8.3 R2), 2 reset.
    failure: u8,
    iss: u32,
    role: Role,
    delivered: u64,
    /// Of `delivered`, what arrived before the receiver's measurement start (warm-up).
    delivered_before_measure: u64,
    truth: RxTruth,
    /// Offsets of the sender's own bytes, for counting transmissions of a message source.
    tx_seq: SeqUnwrap,
    start: Time,
    /// When the peer's FIN arrived (a finite transfer is complete): the end of the goodput
    /// window instead of the end of the run.
    peer_closed_at: Option<Time>,
    cfg: Arc<SharedConfig>,
    /// Aligned to a cache line (`rexmit_tcp::Connection`'s layout test counts its lines).
    conn: Option<Connection>,
}

impl TcpAgent {
    /// An active opener that sends with `app` to `remote:remote_port`. `iss` should come from a
    /// named random stream.
    pub fn sender(
        cfg: TcpConfig,
        local_port: u16,
        remote: Ipv4Addr,
        remote_port: u16,
        iss: u32,
        app: impl Into<TcpApp>,
    ) -> Self {
        let role = Role::Sender {
            app: app.into(),
            remote,
            remote_port,
            written: 0,
            done_at: None,
        };
        Self::new(cfg, local_port, iss, role)
    }

    /// A passive opener that reads everything; goodput is measured from `measure_from`.
    pub fn receiver(cfg: TcpConfig, local_port: u16, iss: u32, measure_from: Time) -> Self {
        Self::new(
            cfg,
            local_port,
            iss,
            Role::Receiver {
                measure_from,
                messages: None,
            },
        )
    }

    /// Report message deliveries of a message source to `truth` (shared with its sender).
    pub fn with_messages(mut self, truth: StreamTruthRef) -> Self {
        if let Role::Receiver { messages, .. } = &mut self.role {
            *messages = Some(truth);
        }
        self
    }

    /// Record this sender's segments, ACKs and state in `trace` (`[[metrics.trace]]`).
    pub fn with_trace(mut self, trace: TraceRef) -> Self {
        self.trace = Some(Box::new(TcpTrace::new(trace, self.iss)));
        self
    }

    fn new(cfg: TcpConfig, local_port: u16, iss: u32, role: Role) -> Self {
        TcpAgent {
            cfg: SharedConfig::new(cfg),
            local_port,
            iss,
            conn: None,
            role,
            timer: DeadlineTimer::default(),
            local: Ipv4Addr::UNSPECIFIED,
            peer: None,
            start: Time::ZERO,
            truth: RxTruth::default(),
            delivered: 0,
            delivered_before_measure: 0,
            failure: 0,
            peer_closed_at: None,
            tx_seq: SeqUnwrap::new(iss),
            trace: None,
        }
    }

    pub fn connection(&self) -> Option<&Connection> {
        self.conn.as_ref()
    }

    /// Let the application write, send what the core emits, handle its events, arm its timer.
    fn pump(&mut self, ctx: &mut Ctx<'_>) {
        if self.conn.is_none() {
            return;
        }
        let now = ctx.now;
        let mut connected = false;
        // Hot path: whether the core may have something to send that it did not have when
        // `poll_transmit` last answered `None`. An empty poll's side effects are idempotent
        // (flags it consumes stay consumed, timers it sets are set to the same deadline), so a
        // second poll with nothing written, read or closed in between answers `None` again and
        // is skipped: exact, and a third of the polls of a bulk transfer.
        let mut changed = true;
        loop {
            let mut progress = false;
            let conn = self.conn.as_mut().expect("checked above");
            if let Role::Sender { app, written, .. } = &mut self.role {
                let want = match app {
                    TcpApp::Bulk(b) => b.bytes.map_or(u64::MAX, |b| b - *written),
                    TcpApp::Messages(m) => m.pending,
                };
                let room = conn.send_buffer_free() as u64;
                if want > 0 && room > 0 {
                    changed = true;
                    let n = conn.send(now, want.min(room) as usize) as u64;
                    *written += n;
                    if let TcpApp::Messages(m) = app {
                        m.pending -= n;
                    }
                    progress |= n > 0;
                }
            }
            // The application reads what arrived before the core builds its ACK, as an
            // application blocked in read() would (and as ns-3's PacketSink does): the window
            // the ACK advertises then does not dip by the segment just received, which would make
            // the next duplicate ACKs window updates (RFC 5681 §2 (e)) that do not count.
            // Most segments raise no event: the call is skipped then (issue 40 step 7).
            if self.conn.as_ref().is_some_and(|c| c.has_event()) {
                progress |= self.drain_events(now, &mut connected, &mut changed);
            }
            let conn = self.conn.as_mut().expect("checked above");
            while std::mem::take(&mut changed) {
                let before = self.trace.as_ref().map(|_| TxCounters::of(conn.stats()));
                let Some((seg, ecn)) = conn.poll_transmit_ecn(now) else {
                    break;
                };
                if let (Some(tr), Some(before)) = (self.trace.as_mut(), before) {
                    tr.on_sent(now, &seg, before, conn);
                }
                if let Role::Sender {
                    app: TcpApp::Messages(m),
                    ..
                } = &self.role
                {
                    let len = seg.payload.len() as u64;
                    if len > 0 && !seg.flags.contains(TcpFlags::SYN) {
                        let off = self.tx_seq.offset(seg.seq);
                        m.truth.borrow_mut().on_transmit(off, off + len);
                    }
                }
                let dst = self
                    .peer
                    .expect("a connection only transmits once its peer is known");
                ctx.send(ip_packet(self.local, dst, seg, ecn));
                changed = true;
            }
            if self.conn.as_ref().is_some_and(|c| c.has_event()) {
                progress |= self.drain_events(now, &mut connected, &mut changed);
            }
            let conn = self.conn.as_mut().expect("checked above");
            if let Role::Sender {
                app: TcpApp::Bulk(app),
                written,
                done_at,
                ..
            } = &mut self.role
            {
                if done_at.is_none() && app.bytes.is_some_and(|b| *written == b) && conn.all_acked()
                {
                    *done_at = Some(now);
                    if app.close_when_done {
                        conn.close(now);
                        changed = true;
                        progress = true;
                    }
                }
            }
            if !progress {
                break;
            }
        }
        if let (Some(tr), Some(conn)) = (self.trace.as_mut(), self.conn.as_ref()) {
            tr.on_state(now, conn);
        }
        let deadline = self.conn.as_ref().and_then(|c| c.poll_timeout());
        self.timer.arm(ctx, deadline);
        if connected {
            // A message application sends once its connection is up.
            if let Role::Sender {
                app: TcpApp::Messages(m),
                ..
            } = &mut self.role
            {
                m.gen.start(now);
            }
            self.generate(ctx);
        }
    }
}

impl TcpAgent {
    /// Whether the flow's metrics include the ECN counters: ECN was asked for (`ecn = "on"`)
    /// or negotiated (an "accept" receiver of an ECN sender); runs without ECN keep their
    /// columns.
    fn reports_ecn(&self, st: &rexmit_tcp::TcpStats) -> bool {
        self.cfg.ecn == rexmit_tcp::EcnMode::On || st.ecn_negotiated
    }

    /// Handle the core's events: failures, connection, and deliveries read by the application.
    /// Returns whether the application read anything; sets `read_called` if it called `recv`
    /// (which may change what the core sends even when it returns nothing).
    fn drain_events(&mut self, now: Time, connected: &mut bool, read_called: &mut bool) -> bool {
        let Some(conn) = self.conn.as_mut() else {
            return false;
        };
        let mut progress = false;
        while let Some(ev) = conn.poll_event() {
            *connected |= ev == Event::Connected;
            match ev {
                // Why the connection failed, for the results (0 = it did not).
                Event::TimedOut => self.failure = 1,
                Event::Reset => self.failure = 2,
                Event::PeerClosed => self.peer_closed_at = self.peer_closed_at.or(Some(now)),
                _ => {}
            }
            if let Event::Delivered { .. } = ev {
                *read_called = true;
                let got = conn.recv(usize::MAX).len() as u64;
                if got > 0 {
                    self.delivered += got;
                    if matches!(self.role, Role::Receiver { measure_from, .. } if now < measure_from)
                    {
                        self.delivered_before_measure += got;
                    }
                    self.truth.first_delivery.get_or_insert(now);
                    self.truth.last_delivery = Some(now);
                    if let Role::Receiver {
                        messages: Some(t), ..
                    } = &self.role
                    {
                        t.borrow_mut().on_delivered(self.delivered, now);
                    }
                    progress = true;
                }
            }
        }
        progress
    }

    /// Hand the message source's due messages to the stream and arm its next one.
    fn generate(&mut self, ctx: &mut Ctx<'_>) {
        if let Role::Sender {
            app: TcpApp::Messages(m),
            ..
        } = &mut self.role
        {
            while let Some(msg) = m.gen.pop_due(ctx.now) {
                let size = msg.size.min(u32::MAX as u64) as u32;
                m.truth.borrow_mut().on_message(msg.at, size);
                m.pending += size as u64;
            }
            if let Some(t) = m.gen.next_at() {
                ctx.set_timer(t, APP_TIMER);
            }
        }
    }
}

impl Agent for TcpAgent {
    fn start(&mut self, ctx: &mut Ctx<'_>) {
        self.start = ctx.now;
        self.local = ctx.addrs.first().copied().unwrap_or(Ipv4Addr::UNSPECIFIED);
        match &self.role {
            Role::Sender {
                remote,
                remote_port,
                ..
            } => {
                self.peer = Some(*remote);
                self.conn = Some(Connection::connect_shared(
                    self.cfg.clone(),
                    self.local_port,
                    *remote_port,
                    self.iss,
                ));
            }
            Role::Receiver { .. } => {
                self.conn = Some(Connection::listen_shared(
                    self.cfg.clone(),
                    self.local_port,
                    self.iss,
                ))
            }
        }
        self.pump(ctx);
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, pkt: &mut Packet) {
        let Transport::Tcp(seg) = &pkt.ip.transport else {
            return;
        };
        if self.peer.is_none() {
            self.peer = Some(pkt.ip.header.src);
            self.local = pkt.ip.header.dst;
        }
        if matches!(self.role, Role::Receiver { .. }) {
            let syn = seg.flags.contains(rexmit_wire::TcpFlags::SYN);
            self.truth
                .on_segment(seg.seq, syn, seg.payload.len() as u64);
        }
        if let Some(conn) = self.conn.as_mut() {
            conn.handle_segment_ecn(ctx.now, seg, pkt.ip.header.ecn());
            if let Some(tr) = self.trace.as_mut() {
                tr.on_ack(ctx.now, seg, conn);
            }
        }
        self.pump(ctx);
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_>, token: u64) {
        if token == APP_TIMER {
            self.generate(ctx);
            self.pump(ctx);
            return;
        }
        self.timer.fired(ctx.now);
        // A wake-up for a deadline that has since moved later (timers are never cancelled: an
        // RTO restarted by ACKs) changes nothing. Every call into the core ends in `pump`, which
        // arms the core's earliest deadline, so that deadline is `wanted`: re-arm it without
        // reading the connection (issue 40: at 10 000 flows a third of the timer events, at
        // 1 000 flows 72%, and each read the cold connection's timers and ran `pump`). With a
        // trace the full path runs (`pump` records the state at every call).
        if self.trace.is_none() && self.timer.rearm_if_early(ctx, 0) {
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

    fn metrics(&self, now: Time) -> Metrics {
        let Some(conn) = &self.conn else {
            return Vec::new();
        };
        let st = conn.stats();
        let mut m: Vec<(&str, f64)> = Vec::new();
        match &self.role {
            Role::Sender {
                done_at,
                written,
                app,
                ..
            } => {
                let secs = now.saturating_since(self.start).as_secs_f64();
                if let TcpApp::Messages(a) = app {
                    m.extend([
                        ("messages_generated", a.gen.generated() as f64),
                        ("bytes_waiting", a.pending as f64),
                    ]);
                }
                m.extend([
                    ("bytes_written", *written as f64),
                    ("bytes_acked", st.bytes_acked as f64),
                    ("data_segments_sent", st.data_segments_sent as f64),
                    ("retransmissions", st.retransmits() as f64),
                    ("retransmits_fast", st.retransmits_fast as f64),
                    ("retransmits_timeout", st.retransmits_timeout as f64),
                    ("bytes_retransmitted", st.bytes_retransmitted as f64),
                    ("fast_retransmits", st.fast_retransmits as f64),
                    ("timeouts", st.timeouts as f64),
                    ("recoveries", st.recoveries.len() as f64),
                    ("failure", self.failure as f64),
                    (
                        "recovery_mean_s",
                        episode_stat(&st.recoveries, now, |d| {
                            d.iter().sum::<f64>() / d.len().max(1) as f64
                        }),
                    ),
                    (
                        "recovery_max_s",
                        episode_stat(&st.recoveries, now, |d| {
                            d.iter().cloned().fold(0.0, f64::max)
                        }),
                    ),
                    (
                        "recovery_total_s",
                        episode_stat(&st.recoveries, now, |d| d.iter().sum()),
                    ),
                    ("dsacks_received", st.dsacks_received as f64),
                    ("rtxq_bytes_max", st.rtx_queue_bytes_max as f64),
                    ("app_blocked_s", st.app_blocked.as_secs_f64()),
                    (
                        "app_blocked_fraction",
                        if secs > 0.0 {
                            st.app_blocked.as_secs_f64() / secs
                        } else {
                            0.0
                        },
                    ),
                    (
                        "completion_time_s",
                        done_at.map_or(f64::NAN, |t| t.saturating_since(self.start).as_secs_f64()),
                    ),
                    ("srtt_s", st.srtt.map_or(f64::NAN, |d| d.as_secs_f64())),
                ]);
                if self.cfg.undo || self.cfg.frto {
                    // Reductions undone as spurious, by the evidence that undid them (Linux's
                    // TcpExt TCPDSACKUndo; TCPFullUndo, TCPPartialUndo, TCPLossUndo;
                    // TCPSpuriousRTOs).
                    m.extend([
                        ("undos_dsack", st.undos_dsack as f64),
                        ("undos_timestamps", st.undos_timestamps as f64),
                        ("undos_frto", st.undos_frto as f64),
                    ]);
                }
                if self.cfg.adaptive_reordering {
                    // Linux's adaptive reordering degree: the threshold in force at the end.
                    m.extend([
                        ("reordering", st.reordering as f64),
                        ("reordering_seen", st.reordering_seen as f64),
                    ]);
                }
                if self.reports_ecn(st) {
                    m.extend([
                        ("ecn_ece_received", st.ecn_ece_received as f64),
                        ("ecn_reductions", st.ecn_reductions as f64),
                        ("ecn_cwr_sent", st.ecn_cwr_sent as f64),
                    ]);
                }
            }
            Role::Receiver { measure_from, .. } => {
                // The goodput window runs from `measure_from` (the app's start or warm-up end)
                // to the arrival of the sender's FIN for a finite transfer (every byte is then
                // delivered), else to the end of the run (README "Metrics").
                let end = self.peer_closed_at.map_or(now, |t| t.min(now));
                let secs = end.saturating_since(*measure_from).as_secs_f64();
                m.extend([
                    ("bytes_delivered", self.delivered as f64),
                    (
                        "goodput_bps",
                        if secs > 0.0 {
                            (self.delivered - self.delivered_before_measure) as f64 * 8.0 / secs
                        } else {
                            0.0
                        },
                    ),
                    ("goodput_window_s", secs),
                    ("data_segments_arrived", self.truth.data_segments as f64),
                    // Ground truth: data that arrived although an earlier copy had already arrived.
                    ("spurious_retransmits", self.truth.duplicate_segments as f64),
                    ("duplicate_bytes_arrived", self.truth.duplicate_bytes as f64),
                    ("ooo_bytes_max", st.ooo_bytes_max as f64),
                    ("dsacks_sent", st.dsacks_sent as f64),
                ]);
                if self.reports_ecn(st) {
                    m.push(("ecn_ce_received", st.ecn_ce_received as f64));
                }
            }
        }
        let mut m: Metrics = m.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        if let Role::Receiver {
            messages: Some(t), ..
        } = &self.role
        {
            // messages_delivered and latency by retransmission count (seed 004 Fig. 8).
            m.extend(t.borrow().log.metrics());
        }
        m
    }

    fn probe(&self, name: &str) -> Option<f64> {
        let conn = self.conn.as_ref()?;
        let st = conn.stats();
        Some(match name {
            "cwnd" => conn.cwnd() as f64,
            "ssthresh" => conn.ssthresh().min(u64::MAX / 4) as f64,
            "pipe" => conn.pipe() as f64,
            "rtxq_bytes" => st.rtx_queue_bytes as f64,
            "send_buffer_bytes" => conn.send_buffer_len() as f64,
            "bytes_acked" => st.bytes_acked as f64,
            "srtt_s" => st.srtt.map_or(f64::NAN, |d| d.as_secs_f64()),
            "rto_s" => st.rto.as_secs_f64(),
            "bytes_delivered" => self.delivered as f64,
            "ooo_bytes" => st.ooo_bytes as f64,
            _ => return None,
        })
    }

    fn probe_names(&self) -> &'static [&'static str] {
        match self.role {
            Role::Sender { .. } => &[
                "cwnd",
                "ssthresh",
                "pipe",
                "rtxq_bytes",
                "send_buffer_bytes",
                "bytes_acked",
                "srtt_s",
                "rto_s",
            ],
            Role::Receiver { .. } => &["bytes_delivered", "ooo_bytes"],
        }
    }
}

/// The IP packet carrying `seg` from `src` to `dst`, its ECN field as the core chose (RFC 3168
/// §6.1: ECT(0) on new data once ECN is negotiated).
pub(crate) fn ip_packet(src: Ipv4Addr, dst: Ipv4Addr, seg: TcpSegment, ecn: Ecn) -> IpPacket {
    let mut p = IpPacket::new(src, dst, Transport::Tcp(seg));
    p.header.set_ecn(ecn);
    p
}

/// A statistic of the recovery episodes' durations (start to end; one still open ends `now`).
fn episode_stat(eps: &[rexmit_tcp::RecoveryEpisode], now: Time, f: impl Fn(&[f64]) -> f64) -> f64 {
    let d: Vec<f64> = eps
        .iter()
        .map(|e| e.end.unwrap_or(now).saturating_since(e.start).as_secs_f64())
        .collect();
    if d.is_empty() {
        0.0
    } else {
        f(&d)
    }
}
