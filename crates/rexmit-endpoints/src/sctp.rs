//! SCTP on a simulated node: a message sender (bulk: keeps the send buffer full with messages
//! of a fixed size) and a receiver, with the seed 000 §IV.B retransmission-queue metrics.
//!
//! RtxQ_Util needs ground truth from the receiver (is a gap-acked TSN non-renegable there?), so
//! the receiving adapter shares its association read-only with the sender's metrics tracker.
//! The sender's protocol logic never sees it.

use crate::timer::DeadlineTimer;
use rexmit_net::{Agent, Ctx, Metrics, Packet};
use rexmit_sctp::{Association, Event, SctpConfig, SendError, TsnState};
use rexmit_time::{Duration, Time};
use rexmit_wire::{IpPacket, Payload, Transport};
use std::cell::RefCell;
use std::net::Ipv4Addr;
use std::rc::Rc;

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

/// What the sender and receiver adapters of one association share (simulator-side only).
#[derive(Default)]
pub struct SharedTruth {
    /// The receiving association, for renegability queries.
    pub receiver: Option<Rc<RefCell<Association>>>,
    /// Send time of message number `i` (the message number travels in the PPID).
    pub sent_at: Vec<Time>,
    pub latencies: Vec<Duration>,
}

pub type Truth = Rc<RefCell<SharedTruth>>;

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
            let u = if self.r == 0 { 1.0 } else { self.k as f64 / self.r as f64 };
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
    Sender { app: MessageApp, remote: Vec<Ipv4Addr>, remote_port: u16, primary: usize, next_msg: u64, next_stream: u16 },
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
    util: RtxqUtil,
    rtxq_max: u64,
}

impl SctpAgent {
    /// An association initiator sending with `app` to the peer's `remote` addresses; data goes
    /// to `remote[primary]` first.
    #[allow(clippy::too_many_arguments)]
    pub fn sender(cfg: SctpConfig, local_port: u16, remote: Vec<Ipv4Addr>, remote_port: u16, primary: usize, tag: u32, tsn: u32, app: MessageApp, truth: Truth, measure_from: Time) -> Self {
        let role = Role::Sender { app, remote, remote_port, primary, next_msg: 0, next_stream: 0 };
        Self::new(cfg, local_port, tag, tsn, role, truth, measure_from)
    }

    pub fn receiver(cfg: SctpConfig, local_port: u16, tag: u32, tsn: u32, truth: Truth, measure_from: Time) -> Self {
        Self::new(cfg, local_port, tag, tsn, Role::Receiver, truth, measure_from)
    }

    fn new(cfg: SctpConfig, local_port: u16, tag: u32, tsn: u32, role: Role, truth: Truth, measure_from: Time) -> Self {
        SctpAgent { cfg, local_port, tag, tsn, assoc: None, role, timer: DeadlineTimer::default(), truth, start: Time::ZERO, measure_from, util: RtxqUtil::default(), rtxq_max: 0 }
    }

    pub fn association(&self) -> Option<std::cell::Ref<'_, Association>> {
        self.assoc.as_ref().map(|a| a.borrow())
    }

    fn pump(&mut self, ctx: &mut Ctx<'_>) {
        let Some(rc) = self.assoc.clone() else { return };
        let now = ctx.now;
        loop {
            let mut progress = false;
            {
                let mut a = rc.borrow_mut();
                if let Role::Sender { app, next_msg, next_stream, .. } = &mut self.role {
                    while a.is_established() && app.messages.is_none_or(|n| *next_msg < n) {
                        let stream = *next_stream;
                        match a.send(now, stream, Payload::zeros(app.message_size), app.unordered) {
                            Ok(_) => {
                                self.truth.borrow_mut().sent_at.push(now);
                                *next_msg += 1;
                                *next_stream = (stream + 1) % app.streams.max(1);
                                progress = true;
                            }
                            Err(SendError::BufferFull) => break,
                            Err(_) => break,
                        }
                    }
                }
                while let Some(t) = a.poll_transmit(now) {
                    ctx.send(IpPacket::new(t.src, t.dst, Transport::Sctp(t.packet)));
                }
                while let Some(ev) = a.poll_event() {
                    match ev {
                        Event::MessageDelivered { msg, .. } => {
                            let mut tr = self.truth.borrow_mut();
                            if let Some(&t0) = tr.sent_at.get(msg as usize) {
                                tr.latencies.push(now - t0);
                            }
                        }
                        Event::SendBufferSpace | Event::Connected { .. } => progress = true,
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
        let deadline = rc.borrow().poll_timeout();
        self.timer.arm(ctx, deadline);
    }

    /// Update k, r and the recovery flag (seed 000 §IV.B): data in the rtxq is unnecessary when
    /// it is gap-acked and the receiver holds it non-renegably (ground truth).
    fn track_rtxq(&mut self, now: Time) {
        let Some(rc) = &self.assoc else { return };
        self.util.advance(now, self.measure_from);
        let a = rc.borrow();
        let truth = self.truth.borrow();
        let receiver = truth.receiver.as_ref().map(|r| r.borrow());
        let (mut k, mut r) = (0u64, 0u64);
        for (tsn, state, bytes) in a.rtx_queue() {
            // Nr-acked entries keep only their TSN: their payload is already freed.
            let bytes = if state == TsnState::NrAcked { 0 } else { bytes };
            r += bytes as u64;
            let unnecessary = match state {
                TsnState::GapAcked | TsnState::NrAcked => receiver.as_ref().is_some_and(|rx| rx.is_tsn_non_renegable(tsn)),
                TsnState::InFlight | TsnState::MarkedForRtx => false,
            };
            if !unnecessary {
                k += bytes as u64;
            }
        }
        self.util.k = k;
        self.util.r = r;
        self.util.in_recovery = a.stats().in_loss_recovery;
        self.rtxq_max = self.rtxq_max.max(r);
    }
}

impl Agent for SctpAgent {
    fn start(&mut self, ctx: &mut Ctx<'_>) {
        self.start = ctx.now;
        let local = ctx.addrs.to_vec();
        let assoc = match &self.role {
            Role::Sender { remote, remote_port, primary, .. } => {
                // The primary destination is listed first.
                let mut order = remote.clone();
                order.rotate_left(*primary);
                Association::connect(self.cfg.clone(), local, self.local_port, order, *remote_port, self.tag, self.tsn, ctx.now)
            }
            Role::Receiver => Association::listen(self.cfg.clone(), local, self.local_port, self.tag, self.tsn),
        };
        let rc = Rc::new(RefCell::new(assoc));
        if matches!(self.role, Role::Receiver) {
            self.truth.borrow_mut().receiver = Some(rc.clone());
        }
        self.assoc = Some(rc);
        self.pump(ctx);
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, pkt: Packet) {
        let Transport::Sctp(p) = &pkt.ip.transport else { return };
        if let Some(a) = &self.assoc {
            a.borrow_mut().handle_packet(ctx.now, pkt.ip.header.src, pkt.ip.header.dst, p);
        }
        self.pump(ctx);
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_>, _token: u64) {
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
        let Some(a) = &self.assoc else { return Vec::new() };
        let a = a.borrow();
        let st = a.stats();
        let window = now.saturating_since(self.measure_from).as_secs_f64();
        let mut m: Vec<(&str, f64)> = Vec::new();
        match &self.role {
            Role::Sender { next_msg, .. } => {
                let mut u = self.util.clone();
                u.advance(now, self.measure_from);
                // Seed 000 §II.B send-buffer blocking: the rtxq alone fills the send buffer.
                let blocked = st.rtxq_blocked_time_until(now).as_secs_f64();
                let app_blocked = st.blocked_time_until(now).as_secs_f64();
                let lifetime = now.saturating_since(self.start).as_secs_f64();
                m.extend([
                    ("messages_sent", *next_msg as f64),
                    ("data_chunks_sent", st.data_chunks_sent as f64),
                    ("retransmissions", st.retransmissions as f64),
                    ("fast_retransmits", st.fast_retransmits as f64),
                    ("timeouts", st.timeouts as f64),
                    ("rtxq_util", if u.total > 0.0 { u.weighted / u.total } else { f64::NAN }),
                    ("rtxq_util_l", if u.total_l > 0.0 { u.weighted_l / u.total_l } else { f64::NAN }),
                    ("loss_recovery_s", u.total_l),
                    ("rtxq_bytes_mean", if u.total > 0.0 { u.r_integral / u.total } else { 0.0 }),
                    ("rtxq_bytes_max", self.rtxq_max as f64),
                    ("send_blocked_s", blocked),
                    ("send_blocked_fraction", if lifetime > 0.0 { blocked / lifetime } else { 0.0 }),
                    // The application was refused by a full send buffer (a greedy app nearly always is).
                    ("app_blocked_s", app_blocked),
                    ("nr_sack", a.nr_sack_negotiated() as u8 as f64),
                    ("rtx_timeout", st.rtx_by_cause.timeout as f64),
                    ("rtx_fast", st.rtx_by_cause.fast_retransmit as f64),
                    ("rtx_thin_fast", st.rtx_by_cause.thin_fast_retransmit as f64),
                    ("rtx_early", st.rtx_by_cause.early_retransmit as f64),
                    ("rtx_efr", st.rtx_by_cause.early_fast_retransmit as f64),
                    ("rtx_bundled", st.rtx_by_cause.bundled as f64),
                    ("thin_s", st.thin_time_until(now).as_secs_f64()),
                ]);
                for (i, p) in st.paths.iter().enumerate().take(4) {
                    let key: &'static str = ["path0_timeouts", "path1_timeouts", "path2_timeouts", "path3_timeouts"][i];
                    m.push((key, p.timeouts as f64));
                }
            }
            Role::Receiver => {
                let tr = self.truth.borrow();
                let mut lat: Vec<f64> = tr.latencies.iter().map(|d| d.as_secs_f64()).collect();
                lat.sort_by(f64::total_cmp);
                let pct = |q: f64| if lat.is_empty() { f64::NAN } else { lat[((lat.len() - 1) as f64 * q).round() as usize] };
                m.extend([
                    ("messages_delivered", st.messages_delivered as f64),
                    ("bytes_delivered", st.bytes_delivered as f64),
                    ("goodput_bps", if window > 0.0 { st.bytes_delivered as f64 * 8.0 / window } else { 0.0 }),
                    ("dup_tsns_received", st.dup_tsns_received as f64),
                    ("reneged_chunks", st.reneged_chunks as f64),
                    ("latency_mean_s", if lat.is_empty() { f64::NAN } else { lat.iter().sum::<f64>() / lat.len() as f64 }),
                    ("latency_p99_s", pct(0.99)),
                    ("latency_max_s", lat.last().copied().unwrap_or(f64::NAN)),
                ]);
            }
        }
        m.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
    }

    fn probe(&self, name: &str) -> Option<f64> {
        let a = self.assoc.as_ref()?.borrow();
        Some(match name {
            "rtxq_bytes" => a.rtx_queue_bytes() as f64,
            "rtxq_necessary_bytes" => self.util.k as f64,
            "send_buffer_bytes" => a.send_buffer_bytes() as f64,
            "flight_size" => a.flight_size() as f64,
            "bytes_delivered" => a.stats().bytes_delivered as f64,
            "cwnd_primary" => a.paths().get(a.primary_path()).map_or(f64::NAN, |p| p.cc.cwnd as f64),
            _ => return None,
        })
    }

    fn probe_names(&self) -> &'static [&'static str] {
        match self.role {
            Role::Sender { .. } => &["rtxq_bytes", "rtxq_necessary_bytes", "send_buffer_bytes", "flight_size", "cwnd_primary"],
            Role::Receiver => &["bytes_delivered"],
        }
    }
}
