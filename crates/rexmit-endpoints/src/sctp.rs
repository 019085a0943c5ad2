//! SCTP on a simulated node: a message sender (bulk: keeps the send buffer full with messages
//! of a fixed size; or a message source, see `messages.rs`) and a receiver, with the seed 000
//! §IV.B retransmission-queue metrics and per-message latency by retransmission count.
//!
//! RtxQ_Util needs ground truth from the receiver (is a gap-acked TSN non-renegable there?), so
//! the receiving adapter shares its association read-only with the sender's metrics tracker.
//! The sender's protocol logic never sees it. Message latency is ground truth too: the sending
//! adapter counts every DATA chunk its association emits (by TSN; the message number travels
//! in the PPID), the receiving adapter stamps each delivered message.

use crate::latency::{FlowTable, MessageLog, Tables};
use crate::messages::{Message, MessageGen};
use crate::timer::DeadlineTimer;
use crate::trace::{SctpTrace, TraceRef};
use crate::truth::ChunkTx;
use rexmit_net::{Agent, Ctx, Metrics, Packet};
use rexmit_sctp::{AbortReason, Association, Event, SctpConfig, SendError, TsnState};
use rexmit_time::Time;
use rexmit_wire::sctp::Chunk;
use rexmit_wire::{IpPacket, Payload, SctpPacket, Transport};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::net::Ipv4Addr;
use std::rc::Rc;

/// Timer token of the message source (the core's deadline uses 0).
const APP_TIMER: u64 = 1;

/// The sending application.
#[derive(Clone, Debug, PartialEq)]
pub struct MessageApp {
    /// Bytes per user message.
    pub message_size: u32,
    /// Messages to send; `None` keeps the send buffer full until the run ends.
    pub messages: Option<u64>,
    /// Unordered delivery (U bit); seed 000 uses unordered transfers.
    pub unordered: bool,
    /// Messages go round-robin over this many streams.
    pub streams: u16,
}

/// A message source on an association (`sctp_messages`).
#[derive(Clone, Debug)]
pub struct MessagesApp {
    pub gen: MessageGen,
    /// Unordered delivery (U bit).
    pub unordered: bool,
    /// Messages go round-robin over this many streams.
    pub streams: u16,
}

/// What the sending application does.
#[derive(Clone, Debug)]
pub enum SctpApp {
    Bulk(MessageApp),
    Messages(Box<MessagesApp>),
}

impl From<MessageApp> for SctpApp {
    fn from(a: MessageApp) -> Self {
        SctpApp::Bulk(a)
    }
}

impl From<MessagesApp> for SctpApp {
    fn from(a: MessagesApp) -> Self {
        SctpApp::Messages(Box::new(a))
    }
}

/// What the sender and receiver adapters of one association share (simulator-side only).
#[derive(Default)]
pub struct SharedTruth {
    /// The receiving association, for renegability queries.
    pub receiver: Option<Rc<RefCell<Association>>>,
    /// Every message: send time, transmissions of its chunks, delivery.
    pub log: MessageLog,
    /// The message numbers the core puts in the PPID, kept off the wire (see `crate::ppid`).
    pub ppids: crate::ppid::PpidByTsn,
}

pub type Truth = Rc<RefCell<SharedTruth>>;

impl Tables for Truth {
    fn tables(&self) -> Vec<FlowTable> {
        vec![self.borrow().log.table()]
    }
}

/// Count the DATA chunks of a packet the sender emits against their messages.
fn count_chunks(chunk_tx: &mut ChunkTx, log: &mut MessageLog, packet: &SctpPacket) {
    for c in &packet.chunks {
        if let Chunk::Data(d) = c {
            let n = chunk_tx.sent(d.tsn);
            let msg = log.unwrap_msg(d.ppid);
            log.on_transmission(msg, n);
        }
    }
}

/// Time-weighted RtxQ_Util and RtxQ_Util_L (seed 000 §IV.B–C) from the warm-up time on.
#[derive(Default, Debug, Clone)]
struct RtxqUtil {
    last: Option<Time>,
    /// Current k (necessary bytes) and r (rtxq bytes), and whether in loss recovery.
    k: u64,
    r: u64,
    in_recovery: bool,
    weighted: f64,
    total: f64,
    weighted_l: f64,
    total_l: f64,
    /// ∫ r dt, for the time-averaged rtxq size.
    r_integral: f64,
}

impl RtxqUtil {
    /// Close the interval since the last update at `now` (counting only after `warmup`).
    fn advance(&mut self, now: Time, warmup: Time) {
        let from = self.last.unwrap_or(now).max(warmup);
        if now > from {
            let dt = (now - from).as_secs_f64();
            // An empty rtxq wastes nothing: its utilisation counts as 1.
            let u = if self.r == 0 {
                1.0
            } else {
                self.k as f64 / self.r as f64
            };
            self.weighted += u * dt;
            self.total += dt;
            self.r_integral += self.r as f64 * dt;
            if self.in_recovery {
                self.weighted_l += u * dt;
                self.total_l += dt;
            }
        }
        self.last = Some(now);
    }
}

enum Role {
    Sender {
        app: SctpApp,
        remote: Vec<Ipv4Addr>,
        remote_port: u16,
        primary: usize,
        next_stream: u16,
        /// Messages generated but not yet accepted by the association.
        backlog: VecDeque<Message>,
        /// Messages the association refused for good (larger than a buffer).
        refused: u64,
        chunk_tx: ChunkTx,
    },
    Receiver,
}

pub struct SctpAgent {
    cfg: SctpConfig,
    local_port: u16,
    tag: u32,
    tsn: u32,
    assoc: Option<Rc<RefCell<Association>>>,
    role: Role,
    timer: DeadlineTimer,
    truth: Truth,
    start: Time,
    measure_from: Time,
    /// Bytes delivered when the measurement window opened (the first packet at or after
    /// `measure_from`; deliveries only happen on packet arrival).
    delivered_before_measure: Option<u64>,
    /// 0 while the association has not failed; else why it was aborted: 1 by the peer,
    /// 2 locally, 3 Association.Max.Retrans timeouts, 4 Max.Init.Retransmits (RFC 9260 §8.1, §5.1).
    failure: u8,
    util: RtxqUtil,
    rtxq_max: u64,
    /// The sender's event record, when `[[metrics.trace]]` asks for this flow.
    trace: Option<SctpTrace>,
}

impl SctpAgent {
    /// An association initiator sending with `app` to the peer's `remote` addresses; data goes
    /// to `remote[primary]` first.
    #[allow(clippy::too_many_arguments)]
    pub fn sender(
        cfg: SctpConfig,
        local_port: u16,
        remote: Vec<Ipv4Addr>,
        remote_port: u16,
        primary: usize,
        tag: u32,
        tsn: u32,
        app: impl Into<SctpApp>,
        truth: Truth,
        measure_from: Time,
    ) -> Self {
        let role = Role::Sender {
            app: app.into(),
            remote,
            remote_port,
            primary,
            next_stream: 0,
            backlog: VecDeque::new(),
            refused: 0,
            chunk_tx: ChunkTx::new(tsn),
        };
        truth.borrow_mut().log = MessageLog::new(measure_from);
        Self::new(cfg, local_port, tag, tsn, role, truth, measure_from)
    }

    pub fn receiver(
        cfg: SctpConfig,
        local_port: u16,
        tag: u32,
        tsn: u32,
        truth: Truth,
        measure_from: Time,
    ) -> Self {
        Self::new(
            cfg,
            local_port,
            tag,
            tsn,
            Role::Receiver,
            truth,
            measure_from,
        )
    }

    fn new(
        cfg: SctpConfig,
        local_port: u16,
        tag: u32,
        tsn: u32,
        role: Role,
        truth: Truth,
        measure_from: Time,
    ) -> Self {
        SctpAgent {
            cfg,
            local_port,
            tag,
            tsn,
            assoc: None,
            role,
            timer: DeadlineTimer::default(),
            truth,
            start: Time::ZERO,
            measure_from,
            delivered_before_measure: None,
            failure: 0,
            util: RtxqUtil::default(),
            rtxq_max: 0,
            trace: None,
        }
    }

    /// Record this sender's DATA chunks, SACKs and path state in `trace` (`[[metrics.trace]]`).
    pub fn with_trace(mut self, trace: TraceRef) -> Self {
        self.trace = Some(SctpTrace::new(trace, self.tsn));
        self
    }

    pub fn association(&self) -> Option<std::cell::Ref<'_, Association>> {
        self.assoc.as_ref().map(|a| a.borrow())
    }

    fn pump(&mut self, ctx: &mut Ctx<'_>) {
        let Some(rc) = self.assoc.clone() else { return };
        let now = ctx.now;
        let mut connected = false;
        loop {
            let mut progress = false;
            {
                let mut a = rc.borrow_mut();
                if let Role::Sender {
                    app,
                    next_stream,
                    backlog,
                    refused,
                    ..
                } = &mut self.role
                {
                    let log = &mut self.truth.borrow_mut().log;
                    match app {
                        SctpApp::Bulk(app) => {
                            while a.is_established() && app.messages.is_none_or(|n| log.sent() < n)
                            {
                                let Ok(id) = a.send(
                                    now,
                                    *next_stream,
                                    Payload::zeros(app.message_size),
                                    app.unordered,
                                ) else {
                                    break;
                                };
                                log.on_send(id, now, app.message_size);
                                *next_stream = (*next_stream + 1) % app.streams.max(1);
                                progress = true;
                            }
                        }
                        SctpApp::Messages(m) => {
                            while let Some(msg) = backlog.front().copied() {
                                let size = msg.size.min(u32::MAX as u64) as u32;
                                match a.send(now, *next_stream, Payload::zeros(size), m.unordered) {
                                    Ok(id) => {
                                        log.on_send(id, msg.at, size);
                                        *next_stream = (*next_stream + 1) % m.streams.max(1);
                                    }
                                    // Wait for room (SendBufferSpace) or the handshake (Connected).
                                    Err(SendError::BufferFull | SendError::NotConnected) => break,
                                    Err(_) => *refused += 1,
                                }
                                backlog.pop_front();
                            }
                        }
                    }
                }
                while let Some(mut t) = a.poll_transmit(now) {
                    if let Some(tr) = &self.trace {
                        tr.on_sent(now, t.dst, &t.packet, &a);
                    }
                    if let Role::Sender { chunk_tx, .. } = &mut self.role {
                        let truth = &mut *self.truth.borrow_mut();
                        count_chunks(chunk_tx, &mut truth.log, &t.packet);
                        truth.ppids.strip(&mut t.packet);
                    }
                    let mut ip = IpPacket::new(t.src, t.dst, Transport::Sctp(t.packet));
                    ip.header.set_ecn(t.ecn);
                    ctx.send(ip);
                }
                while let Some(ev) = a.poll_event() {
                    match ev {
                        Event::MessageDelivered { msg, .. } => {
                            let log = &mut self.truth.borrow_mut().log;
                            let msg = log.unwrap_msg(msg);
                            log.on_delivery(msg, now);
                        }
                        Event::Connected { .. } => {
                            progress = true;
                            connected = true;
                        }
                        Event::SendBufferSpace => progress = true,
                        Event::Aborted { reason } => {
                            self.failure = match reason {
                                AbortReason::ByPeer => 1,
                                AbortReason::Local => 2,
                                AbortReason::MaxRetransmissions => 3,
                                AbortReason::InitFailed => 4,
                            }
                        }
                        _ => {}
                    }
                }
            }
            if !progress {
                break;
            }
        }
        if matches!(self.role, Role::Sender { .. }) {
            self.track_rtxq(now);
        }
        if let Some(tr) = &self.trace {
            tr.on_state(now, &rc.borrow());
        }
        let deadline = rc.borrow().poll_timeout();
        self.timer.arm(ctx, deadline);
        if connected {
            // A message application sends once its association is up, as a socket
            // application does (seed 002's client starts on the established notification).
            if let Role::Sender {
                app: SctpApp::Messages(m),
                ..
            } = &mut self.role
            {
                m.gen.start(now);
            }
            self.generate(ctx);
        }
    }

    /// Move the message source's due messages to the backlog and arm its next one.
    fn generate(&mut self, ctx: &mut Ctx<'_>) {
        if let Role::Sender {
            app: SctpApp::Messages(m),
            backlog,
            ..
        } = &mut self.role
        {
            backlog.extend(std::iter::from_fn(|| m.gen.pop_due(ctx.now)));
            if let Some(t) = m.gen.next_at() {
                ctx.set_timer(t, APP_TIMER);
            }
        }
    }

    /// Update k, r and the recovery flag (seed 000 §IV.B): data in the rtxq is unnecessary when
    /// it is gap-acked and the receiver holds it non-renegably (ground truth).
    fn track_rtxq(&mut self, now: Time) {
        let Some(rc) = &self.assoc else { return };
        let a = rc.borrow();
        let truth = self.truth.borrow();
        let receiver = truth.receiver.as_ref().map(|r| r.borrow());
        // r: every byte the queue holds (nr-acked chunks keep only their TSN, their payload is
        // freed); k: less the gap-acked bytes the receiver holds non-renegably. Only gap-acked
        // entries can be unnecessary, so without any the scan is skipped (issue 18: it ran at
        // every agent call, O(queue length), 80% of a seed 004 fairness run).
        let r = a.rtx_queue_bytes();
        let mut k = r;
        if a.rtx_queue_gap_acked() > 0 {
            if let Some(rx) = &receiver {
                // One pass beside the receiver's map (issue 40), not a lookup per entry.
                let gap_acked = a
                    .rtx_queue_iter()
                    .filter(|&(_, state, _)| state == TsnState::GapAcked)
                    .map(|(tsn, _, bytes)| (tsn, bytes));
                let held = rx.non_renegable_bytes(gap_acked);
                debug_assert_eq!(
                    held,
                    a.rtx_queue_iter()
                        .filter(|&(tsn, state, _)| {
                            state == TsnState::GapAcked && rx.is_tsn_non_renegable(tsn)
                        })
                        .map(|(_, _, bytes)| bytes as u64)
                        .sum::<u64>()
                );
                k -= held;
            }
        }
        let in_recovery = a.stats().in_loss_recovery;
        // Intervals close only when the state changes, so the integrals do not depend on how
        // often the agent happens to run.
        if self.util.last.is_none()
            || (k, r, in_recovery) != (self.util.k, self.util.r, self.util.in_recovery)
        {
            self.util.advance(now, self.measure_from);
            self.util.k = k;
            self.util.r = r;
            self.util.in_recovery = in_recovery;
        }
        self.rtxq_max = self.rtxq_max.max(r);
    }
}

impl Agent for SctpAgent {
    fn start(&mut self, ctx: &mut Ctx<'_>) {
        self.start = ctx.now;
        let local = ctx.addrs.to_vec();
        let assoc = match &self.role {
            Role::Sender {
                remote,
                remote_port,
                primary,
                ..
            } => {
                // The primary destination is listed first.
                let mut order = remote.clone();
                order.rotate_left(*primary);
                Association::connect(
                    self.cfg.clone(),
                    local,
                    self.local_port,
                    order,
                    *remote_port,
                    self.tag,
                    self.tsn,
                    ctx.now,
                )
            }
            Role::Receiver => {
                Association::listen(self.cfg.clone(), local, self.local_port, self.tag, self.tsn)
            }
        };
        let rc = Rc::new(RefCell::new(assoc));
        if matches!(self.role, Role::Receiver) {
            self.truth.borrow_mut().receiver = Some(rc.clone());
        }
        self.assoc = Some(rc);
        self.pump(ctx);
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, pkt: &mut Packet) {
        let (src, dst) = (pkt.ip.header.src, pkt.ip.header.dst);
        let Transport::Sctp(p) = &mut pkt.ip.transport else {
            return;
        };
        if let Some(a) = &self.assoc {
            if self.delivered_before_measure.is_none() && ctx.now >= self.measure_from {
                self.delivered_before_measure = Some(a.borrow().stats().bytes_delivered);
            }
            if matches!(self.role, Role::Receiver) {
                self.truth.borrow().ppids.restore(p);
            }
            let mut a = a.borrow_mut();
            a.handle_packet_ecn(ctx.now, src, dst, p, pkt.ip.header.ecn());
            if let Some(tr) = &self.trace {
                tr.on_packet(ctx.now, src, p, &a);
            }
            if let (Role::Receiver, Some(cum)) = (&self.role, a.receiver_cum_tsn()) {
                self.truth.borrow_mut().ppids.forget_through(cum);
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
        if let Some(a) = &self.assoc {
            let mut a = a.borrow_mut();
            if a.poll_timeout().is_some_and(|t| t <= ctx.now) {
                a.handle_timeout(ctx.now);
            }
        }
        self.pump(ctx);
    }

    fn metrics(&self, now: Time) -> Metrics {
        let Some(a) = &self.assoc else {
            return Vec::new();
        };
        let a = a.borrow();
        let st = a.stats();
        let window = now.saturating_since(self.measure_from).as_secs_f64();
        let mut m: Vec<(&str, f64)> = Vec::new();
        match &self.role {
            Role::Sender {
                app,
                backlog,
                refused,
                ..
            } => {
                let mut u = self.util.clone();
                u.advance(now, self.measure_from);
                // Seed 000 §II.B send-buffer blocking: the rtxq alone fills the send buffer.
                let blocked = st.rtxq_blocked_time_until(now).as_secs_f64();
                let app_blocked = st.blocked_time_until(now).as_secs_f64();
                let lifetime = now.saturating_since(self.start).as_secs_f64();
                if let SctpApp::Messages(g) = app {
                    m.extend([
                        ("messages_generated", g.gen.generated() as f64),
                        ("messages_waiting", backlog.len() as f64),
                        ("messages_refused", *refused as f64),
                    ]);
                }
                m.extend([
                    ("messages_sent", self.truth.borrow().log.sent() as f64),
                    ("data_chunks_sent", st.data_chunks_sent as f64),
                    ("retransmissions", st.retransmissions as f64),
                    ("fast_retransmits", st.fast_retransmits as f64),
                    ("timeouts", st.timeouts as f64),
                    (
                        "rtxq_util",
                        if u.total > 0.0 {
                            u.weighted / u.total
                        } else {
                            f64::NAN
                        },
                    ),
                    (
                        "rtxq_util_l",
                        if u.total_l > 0.0 {
                            u.weighted_l / u.total_l
                        } else {
                            f64::NAN
                        },
                    ),
                    ("loss_recovery_s", u.total_l),
                    (
                        "rtxq_bytes_mean",
                        if u.total > 0.0 {
                            u.r_integral / u.total
                        } else {
                            0.0
                        },
                    ),
                    ("rtxq_bytes_max", self.rtxq_max as f64),
                    ("send_blocked_s", blocked),
                    (
                        "send_blocked_fraction",
                        if lifetime > 0.0 {
                            blocked / lifetime
                        } else {
                            0.0
                        },
                    ),
                    // The application was refused by a full send buffer (a greedy app nearly always is).
                    ("app_blocked_s", app_blocked),
                    // As TCP's: the share of the association's lifetime the application was refused.
                    (
                        "app_blocked_fraction",
                        if lifetime > 0.0 {
                            app_blocked / lifetime
                        } else {
                            0.0
                        },
                    ),
                    ("nr_sack", a.nr_sack_negotiated() as u8 as f64),
                    ("failure", self.failure as f64),
                    ("rtx_timeout", st.rtx_by_cause.timeout as f64),
                    ("rtx_fast", st.rtx_by_cause.fast_retransmit as f64),
                    ("rtx_thin_fast", st.rtx_by_cause.thin_fast_retransmit as f64),
                    ("rtx_early", st.rtx_by_cause.early_retransmit as f64),
                    ("rtx_efr", st.rtx_by_cause.early_fast_retransmit as f64),
                    ("rtx_bundled", st.rtx_by_cause.bundled as f64),
                    ("rtx_rack", st.rtx_by_cause.rack as f64),
                    ("rtx_tlp", st.rtx_by_cause.tlp as f64),
                    ("rtx_reneged", st.rtx_by_cause.reneged as f64),
                    ("tlp_probes", st.tlp_probes as f64),
                    ("tail_recoveries", st.tail_recoveries as f64),
                    // Duplicate TSNs the receiver reported: the spurious retransmissions the
                    // sender itself can infer (seed 002 §IV); ground truth is the receiver's.
                    ("dup_tsns_reported", st.dup_tsns_reported as f64),
                    // Seed 002 §IV.A: first transmission to first retransmission of a chunk.
                    (
                        "recovery_time_mean_s",
                        if st.recovery_time_count > 0 {
                            st.recovery_time_total.as_secs_f64() / st.recovery_time_count as f64
                        } else {
                            f64::NAN
                        },
                    ),
                    ("recovery_time_max_s", st.recovery_time_max.as_secs_f64()),
                    ("thin_s", st.thin_time_until(now).as_secs_f64()),
                ]);
                for (i, p) in st.paths.iter().enumerate().take(4) {
                    let key: &'static str = [
                        "path0_timeouts",
                        "path1_timeouts",
                        "path2_timeouts",
                        "path3_timeouts",
                    ][i];
                    m.push((key, p.timeouts as f64));
                }
            }
            Role::Receiver => {
                m.extend([
                    ("bytes_delivered", st.bytes_delivered as f64),
                    // Goodput over the measurement window: bytes delivered since `measure_from`.
                    (
                        "goodput_bps",
                        if window > 0.0 {
                            (st.bytes_delivered
                                - self.delivered_before_measure.unwrap_or(st.bytes_delivered))
                                as f64
                                * 8.0
                                / window
                        } else {
                            0.0
                        },
                    ),
                    ("dup_tsns_received", st.dup_tsns_received as f64),
                    ("reneged_chunks", st.reneged_chunks as f64),
                ]);
                if a.config().ecn || st.ecn_negotiated {
                    m.push(("ecn_ce_received", st.ecn_ce_received as f64));
                }
            }
        }
        if matches!(self.role, Role::Sender { .. }) && (a.config().ecn || st.ecn_negotiated) {
            // The sender's ECN counters, as TCP's (present when ECN was asked for).
            m.extend([
                ("ecn_ece_received", st.ecn_ece_received as f64),
                ("ecn_reductions", st.ecn_reductions as f64),
                ("ecn_cwr_sent", st.ecn_cwr_sent as f64),
            ]);
        }
        let mut m: Metrics = m.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        if matches!(self.role, Role::Receiver) {
            // messages_delivered and latency by retransmission count (seed 004 Fig. 8).
            m.extend(self.truth.borrow().log.metrics());
        }
        m
    }

    fn probe(&self, name: &str) -> Option<f64> {
        let a = self.assoc.as_ref()?.borrow();
        Some(match name {
            "rtxq_bytes" => a.rtx_queue_bytes() as f64,
            "rtxq_necessary_bytes" => self.util.k as f64,
            "send_buffer_bytes" => a.send_buffer_bytes() as f64,
            "flight_size" => a.flight_size() as f64,
            "bytes_delivered" => a.stats().bytes_delivered as f64,
            "cwnd_primary" => a
                .paths()
                .get(a.primary_path())
                .map_or(f64::NAN, |p| p.cc().cwnd() as f64),
            // Room the congestion windows leave for new data over all paths: with the rtxq
            // filling the send buffer, seed 000 §II.B's "send buffer blocking" (O < C).
            "cwnd_room_bytes" => a
                .paths()
                .iter()
                .map(|p| p.cc().cwnd().saturating_sub(p.flight()))
                .sum::<u64>() as f64,
            _ => return None,
        })
    }

    fn probe_names(&self) -> &'static [&'static str] {
        match self.role {
            Role::Sender { .. } => &[
                "rtxq_bytes",
                "rtxq_necessary_bytes",
                "send_buffer_bytes",
                "flight_size",
                "cwnd_primary",
                "cwnd_room_bytes",
            ],
            Role::Receiver => &["bytes_delivered"],
        }
    }
}
