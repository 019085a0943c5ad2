//! The connection: RFC 9293 state machine, handshake option negotiation, segment construction,
//! and the sans-IO surface (`handle_segment`, `handle_timeout`, `poll_transmit`, `poll_timeout`,
//! `poll_event`) the simulator's adapter drives.
//!
//! Owns: states and transitions, SYN/FIN exchange, timestamps, window scaling, events and the
//! statistics gauges. Delegates sending to `sender`, receiving to `receiver`; segment
//! construction is in `output`.

use crate::config::{EcnMode, TcpConfig};
use crate::ecn::{self, Echo, Ecn};
use crate::receiver::{OffsetBlocks, Receiver, ReceiverConfig};
use crate::sender::{AckInput, Sender};
use crate::seq::SeqSpace;
use crate::shared_config::SharedConfig;
use crate::stats::TcpStats;
use crate::timers::{Timer, TimerTable};
use rexmit_time::{Duration, Time};
use rexmit_transport::RttEstimator;
use rexmit_wire::{Payload, TcpFlags, TcpSegment};
use std::sync::Arc;

mod events;
#[cfg(test)]
mod hot_block;
mod info;
mod invariants;
mod output;
pub(crate) use crate::timers::ts_clock;
pub use info::{linux_state_number, CaState as InfoCaState, TcpInfo, INFINITE_SSTHRESH};

/// RFC 9293 §3.3.2 connection states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Closed,
    Listen,
    SynSent,
    SynReceived,
    Established,
    FinWait1,
    FinWait2,
    CloseWait,
    Closing,
    LastAck,
    TimeWait,
}

/// What the application learns from the connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The three-way handshake completed.
    Connected,
    /// `bytes` more in-order bytes are readable with `recv`.
    Delivered { bytes: u64 },
    /// The send buffer has room again after `send` accepted less than asked.
    SendBufferSpace,
    /// The peer's FIN arrived: no more data will come.
    PeerClosed,
    /// Both directions are closed (entering TIME-WAIT or CLOSED).
    Closed,
    /// The peer reset the connection.
    Reset,
    /// Given up after `max_retransmissions` consecutive timeouts (RFC 9293 §3.8.3 R2).
    TimedOut,
}

/// RFC 7323 §2.3: the largest window-scale shift.
const MAX_WSCALE: u8 = 14;
/// RFC 7323 §3: length of the timestamps option with its padding.
const TS_OPTION_LEN: u64 = 12;

/// Laid out in declaration order (`repr(C)`, on a line boundary) as one hot block across the
/// sub-structs (issue 40 step 6; `hot_block` counts and pins the lines each common event
/// touches): the first line holds `blocked_since`, which carries the niche of an
/// `Option<Connection>`, and the event queue; then the sender, whose hottest fields are its
/// last, the connection's own per-segment fields (state, ports, negotiated options, the
/// pending-segment tests) right after them, the timers, the receiver, and the statistics,
/// whose per-segment gauges are their first fields; the handshake's fields last. At 10 000
/// flows each connection is cold in the cache when its next segment comes, so fewer lines
/// touched per segment is fewer misses. The rarely used pending segments are boxed.
#[repr(C, align(64))]
pub struct Connection {
    /// First, with the event queue on the same line: as the first field with the largest
    /// niche (an `Option`'s widened tag), it holds the niche of an `Option<Connection>`, so a
    /// driver's `None` test reads a line every call touches anyway (`hot_block`).
    blocked_since: Option<Time>,
    events: events::Events,
    snd: Sender,
    state: State,
    local_port: u16,
    remote_port: u16,
    snd_wscale: u8,
    rcv_wscale: u8,
    sack_ok: bool,
    ts_ok: bool,
    /// ECN negotiated (RFC 3168 §6.1.1): set by the peer's SYN or SYN-ACK.
    ecn_ok: bool,
    ts_recent: u32,
    iss: SeqSpace,
    irs: SeqSpace,
    last_ack_sent: u64,
    /// Shared by the connections of one flow class (`SharedConfig`, issue 40 step 6); one
    /// allocation for all of them, warm in the cache.
    cfg: Arc<SharedConfig>,
    /// DCTCP's ACK of the data received before a change of CE state, with the old state
    /// (`ecn::Feedback::Dctcp`), to go before anything else.
    ack_pending: Option<Box<TcpSegment>>,
    /// A reset to send in answer to a segment for a closed connection (RFC 9293 §3.10.7.1).
    rst_pending: Option<Box<TcpSegment>>,
    /// How our ACKs echo CE marks (used once `ecn_ok`).
    echo: Echo,
    /// Every deadline of the connection (`timers`): handshake, sender, receiver, TIME-WAIT.
    timers: TimerTable,
    rcv: Receiver,
    stats: TcpStats,
    /// SYN (or SYN-ACK) retransmission timeouts so far.
    syn_timeouts: u32,
    /// A SYN (SYN-SENT) or SYN-ACK (SYN-RECEIVED) must be (re)sent.
    syn_pending: bool,
    syn_sent_at: Option<Time>,
    syn_retransmitted: bool,
    /// MSS option of the peer's SYN, if any.
    peer_mss: Option<u16>,
    /// Values the debug-build invariant checks compare against.
    audit: invariants::Audit,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("state", &self.state)
            .field("snd", &self.snd)
            .finish()
    }
}

fn rcv_config(cfg: &TcpConfig) -> ReceiverConfig {
    ReceiverConfig {
        limit: cfg.recv_buffer as u64,
        ack_every: cfg.ack_every,
        delayed_ack_timeout: cfg.delayed_ack_timeout,
        immediate_ack_on_ooo: cfg.immediate_ack_on_ooo,
        dsack: cfg.dsack,
        autotune_mss: (cfg.receive_window == crate::config::ReceiveWindow::LinuxAutotune)
            .then_some(cfg.mss as u64),
    }
}

impl Connection {
    fn new(
        cfg: Arc<SharedConfig>,
        state: State,
        local_port: u16,
        remote_port: u16,
        iss: u32,
    ) -> Self {
        // The segment size is provisional until the handshake tells us the peer's MSS.
        let smss = cfg.mss as u64;
        let snd = Sender::with_plugins(&cfg, smss, cfg.build_cc(smss), cfg.build_loss());
        let rcv = Receiver::new(rcv_config(&cfg), 1);
        let feedback = if cfg.ecn == EcnMode::Off {
            ecn::Feedback::Rfc3168
        } else {
            cfg.ecn_feedback()
        };
        let rcv_wscale = if cfg.window_scaling {
            let mut s = 0;
            while s < MAX_WSCALE && (cfg.recv_buffer >> s) > 65_535 {
                s += 1;
            }
            s
        } else {
            0
        };
        Connection {
            cfg,
            state,
            local_port,
            remote_port,
            iss: SeqSpace::new(iss),
            irs: SeqSpace::new(0),
            snd,
            rcv,
            syn_pending: false,
            syn_sent_at: None,
            syn_retransmitted: false,
            peer_mss: None,
            sack_ok: false,
            ts_ok: false,
            ecn_ok: false,
            echo: Echo::new(feedback),
            ack_pending: None,
            snd_wscale: 0,
            rcv_wscale,
            ts_recent: 0,
            last_ack_sent: 0,
            timers: TimerTable::default(),
            syn_timeouts: 0,
            rst_pending: None,
            events: events::Events::default(),
            stats: TcpStats::default(),
            blocked_since: None,
            audit: invariants::Audit::default(),
        }
    }

    /// Active open: the SYN goes out on the next `poll_transmit`. `cfg` should have passed
    /// `TcpConfig::validate`.
    pub fn connect(
        cfg: TcpConfig,
        local_port: u16,
        remote_port: u16,
        iss: u32,
        _now: Time,
    ) -> Self {
        Connection::connect_shared(SharedConfig::new(cfg), local_port, remote_port, iss)
    }

    /// Passive open: wait for a SYN to `local_port`.
    pub fn listen(cfg: TcpConfig, local_port: u16, iss: u32) -> Self {
        Connection::listen_shared(SharedConfig::new(cfg), local_port, iss)
    }

    /// `connect` with a configuration shared by many connections (a flow class: no copy of
    /// the options and no plugin lookup per connection).
    pub fn connect_shared(
        cfg: Arc<SharedConfig>,
        local_port: u16,
        remote_port: u16,
        iss: u32,
    ) -> Self {
        let mut c = Connection::new(cfg, State::SynSent, local_port, remote_port, iss);
        c.syn_pending = true;
        c
    }

    /// `listen` with a configuration shared by many connections.
    pub fn listen_shared(cfg: Arc<SharedConfig>, local_port: u16, iss: u32) -> Self {
        Connection::new(cfg, State::Listen, local_port, 0, iss)
    }

    /// Use congestion controllers built by `factory` instead of `cfg.cc` (a controller written
    /// outside this crate through `cc::CongestionControl`); call right after `connect` or
    /// `listen`.
    pub fn with_controller(
        mut self,
        factory: std::sync::Arc<dyn crate::cc::ControllerFactory>,
    ) -> Self {
        self.snd.use_controller(&self.cfg, factory);
        self
    }

    pub fn state(&self) -> State {
        self.state
    }
    pub fn local_port(&self) -> u16 {
        self.local_port
    }
    pub fn remote_port(&self) -> u16 {
        self.remote_port
    }
    pub fn stats(&self) -> &TcpStats {
        &self.stats
    }
    pub fn cwnd(&self) -> u64 {
        self.snd.cc.window()
    }
    pub fn ssthresh(&self) -> u64 {
        self.snd.cc.ssthresh()
    }
    /// RFC 6675 pipe for the SACK variant, FlightSize otherwise.
    pub fn pipe(&self) -> u64 {
        self.snd.pipe()
    }
    /// Segment payload size in use (SMSS).
    pub fn smss(&self) -> u64 {
        self.snd.smss
    }
    pub fn in_recovery(&self) -> bool {
        self.snd.in_recovery()
    }
    /// RFC 5681 FlightSize: bytes between SND.UNA and SND.MAX.
    pub fn flight_size(&self) -> u64 {
        self.snd.flight_size()
    }
    /// The receive window the peer last advertised, scaled (RFC 9293 SND.WND).
    pub fn snd_wnd(&self) -> u64 {
        self.snd.snd_wnd()
    }
    /// Name of the congestion controller in use.
    pub fn cc_name(&self) -> &str {
        self.snd.cc.name()
    }
    /// Bytes the application could still write.
    pub fn send_buffer_free(&self) -> usize {
        self.snd.buf.free() as usize
    }
    /// Bytes waiting in the send buffer (unsent plus unacknowledged).
    pub fn send_buffer_len(&self) -> usize {
        self.snd.buf.len() as usize
    }
    /// In-order bytes waiting for `recv`.
    pub fn readable(&self) -> usize {
        self.rcv.readable_bytes() as usize
    }
    /// Time the application has been blocked by a full send buffer, including a block still in
    /// progress at `now` (`TcpStats::app_blocked` counts finished ones).
    pub fn app_blocked(&self, now: Time) -> Duration {
        let ongoing = self
            .blocked_since
            .map_or(Duration::ZERO, |s| now.saturating_since(s));
        self.stats.app_blocked + ongoing
    }

    /// Everything written and the FIN (if closed) are acknowledged.
    pub fn all_acked(&self) -> bool {
        self.snd.all_acked()
    }

    fn can_send_data(&self) -> bool {
        matches!(
            self.state,
            State::SynSent | State::SynReceived | State::Established | State::CloseWait
        ) && self.snd.fin_at.is_none()
    }

    /// The application writes `len` synthetic bytes; returns how many the send buffer took.
    pub fn send(&mut self, now: Time, len: usize) -> usize {
        if !self.can_send_data() {
            return 0;
        }
        self.snd.on_app_write();
        let n = self.snd.buf.push_synthetic(len);
        self.after_write(now, n, len)
    }

    /// The application writes real bytes; returns how many the send buffer took.
    pub fn send_bytes(&mut self, now: Time, data: &[u8]) -> usize {
        if !self.can_send_data() {
            return 0;
        }
        self.snd.on_app_write();
        let n = self.snd.buf.push_bytes(data);
        self.after_write(now, n, data.len())
    }

    fn after_write(&mut self, now: Time, accepted: usize, asked: usize) -> usize {
        self.stats.bytes_accepted += accepted as u64;
        if accepted < asked && self.blocked_since.is_none() {
            self.blocked_since = Some(now);
        }
        self.refresh_send_gauges();
        self.check_invariants(Some(now));
        accepted
    }

    /// Up to `max` in-order received bytes (synthetic zeros stay synthetic).
    pub fn recv(&mut self, max: usize) -> Payload {
        let before = self.rcv.window();
        let p = self.rcv.read(max);
        // RFC 9293 §3.8.6.2.2: announce a window that reopened by at least one segment
        // (receiver-side silly window syndrome avoidance).
        if before < self.snd.smss
            && self.rcv.window() >= self.snd.smss.min(self.cfg.recv_buffer as u64 / 2)
        {
            self.rcv.force_ack();
        }
        if !p.is_empty() && self.rcv.read_opens_window() {
            self.rcv.force_ack();
        }
        self.check_invariants(None);
        p
    }

    /// The application has no more data: queue a FIN after the buffered data (RFC 9293 §3.10.4).
    pub fn close(&mut self, now: Time) {
        self.close_inner(now);
        self.check_invariants(Some(now));
    }

    fn close_inner(&mut self, _now: Time) {
        match self.state {
            State::Listen => self.enter(State::Closed, _now),
            // RFC 9293 §3.10.4 lets SYN-SENT/SYN-RECEIVED queue the close until established.
            State::SynSent | State::SynReceived => self.snd.fin_at = Some(self.snd.buf.end()),
            State::Established => {
                self.snd.fin_at = Some(self.snd.buf.end());
                self.state = State::FinWait1;
            }
            State::CloseWait => {
                self.snd.fin_at = Some(self.snd.buf.end());
                self.state = State::LastAck;
            }
            _ => {}
        }
    }

    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// Whether `poll_event` has something (a driver's hot path: most segments raise no event).
    #[inline]
    pub fn has_event(&self) -> bool {
        self.events.has_any()
    }

    fn enter(&mut self, s: State, now: Time) {
        if self.state == s {
            return;
        }
        let was_open = !matches!(self.state, State::Closed | State::TimeWait);
        self.state = s;
        match s {
            State::TimeWait => {
                self.timers.set(Timer::TimeWait, now + self.cfg.time_wait);
                self.events.push_back(Event::Closed);
            }
            State::Closed => {
                self.timers.stop(Timer::TimeWait);
                if was_open {
                    self.events.push_back(Event::Closed);
                }
            }
            _ => {}
        }
    }

    pub fn poll_timeout(&self) -> Option<Time> {
        self.timers.next_in(self.timers_served())
    }

    /// The timers each state serves, one bit per `Timer` (the others may hold a stale
    /// deadline that nothing reads).
    #[inline]
    fn timers_served(&self) -> u8 {
        const HANDSHAKE: u8 = 1 << Timer::Handshake as u8;
        const TIME_WAIT: u8 = 1 << Timer::TimeWait as u8;
        match self.state {
            State::Closed | State::Listen => 0,
            State::SynSent | State::SynReceived => HANDSHAKE,
            State::TimeWait => TIME_WAIT,
            _ => !(HANDSHAKE | TIME_WAIT),
        }
    }

    pub fn handle_timeout(&mut self, now: Time) {
        self.handle_timeout_inner(now);
        self.check_invariants(Some(now));
    }

    fn handle_timeout_inner(&mut self, now: Time) {
        match self.state {
            State::Closed | State::Listen => {}
            State::SynSent | State::SynReceived => {
                if self.timers.is_due(Timer::Handshake, now) {
                    // RFC 6298 §5.5 back off; the SYN or SYN-ACK goes out again.
                    self.timers.stop(Timer::Handshake);
                    self.snd.rtt.back_off();
                    self.stats.timeouts += 1;
                    self.syn_timeouts += 1;
                    self.syn_retransmitted = true;
                    self.syn_pending = true;
                    // RFC 9293 §3.8.3 (2.c): R2 for a SYN is a time, at least 3 minutes.
                    let r2_time = self
                        .syn_sent_at
                        .is_some_and(|t| now.saturating_since(t) >= self.cfg.syn_timeout);
                    if self.syn_timeouts > self.cfg.max_retransmissions || r2_time {
                        self.give_up(now);
                    }
                }
            }
            State::TimeWait => {
                if self.timers.is_due(Timer::TimeWait, now) {
                    self.enter(State::Closed, now);
                }
            }
            _ => {
                // Delayed ACK first, then the sender's (probe, retransmission, persist,
                // pacing, reordering: `Sender::on_timeout`).
                self.rcv.on_timeout(now, &mut self.timers);
                self.snd.on_timeout(now, &mut self.stats, &mut self.timers);
                if self.snd.consecutive_timeouts > self.cfg.max_retransmissions {
                    self.give_up(now);
                }
            }
        }
        self.refresh_send_gauges();
    }

    /// RFC 9293 §3.8.3 R2: abandon the connection.
    fn give_up(&mut self, now: Time) {
        self.events.push_back(Event::TimedOut);
        self.syn_pending = false;
        self.enter(State::Closed, now);
    }

    /// Negotiation results from the peer's SYN or SYN-ACK (RFC 9293 §3.7.1, RFC 7323 §2–3,
    /// RFC 2018 §2).
    fn negotiate(&mut self, seg: &TcpSegment) {
        self.irs = SeqSpace::new(seg.seq);
        self.ts_ok = self.cfg.timestamps && seg.options.timestamps.is_some();
        let mut rcv_cfg = rcv_config(&self.cfg);
        if self.ts_ok && !seg.flags.contains(TcpFlags::ACK) {
            // Linux's passive open counts its initial window in segments of the MSS less the
            // timestamp option (tcp_openreq_init_rwin): 45 × 1448 = 65 160 bytes.
            rcv_cfg.autotune_mss = rcv_cfg
                .autotune_mss
                .map(|m| m.saturating_sub(TS_OPTION_LEN));
        }
        self.rcv = Receiver::new(rcv_cfg, 1);
        self.timers.stop(Timer::DelayedAck);
        self.peer_mss = seg.options.mss;
        self.sack_ok = self.cfg.sack && seg.options.sack_permitted;
        // RFC 3168 §6.1.1: a SYN offers ECN with ECE and CWR, a SYN-ACK accepts with ECE only;
        // "accept" answers an offer but makes none.
        self.ecn_ok = if seg.flags.contains(TcpFlags::ACK) {
            self.cfg.ecn == EcnMode::On && ecn::is_setup_syn_ack(seg)
        } else {
            self.cfg.ecn != EcnMode::Off && ecn::is_setup_syn(seg)
        };
        match (self.cfg.window_scaling, seg.options.window_scale) {
            (true, Some(s)) => self.snd_wscale = s.min(MAX_WSCALE),
            _ => {
                self.snd_wscale = 0;
                self.rcv_wscale = 0;
            }
        }
        if let Some(ts) = seg.options.timestamps {
            self.ts_recent = ts.tsval;
        }
    }

    fn established(&mut self, now: Time, seg: &TcpSegment) {
        let peer_mss = self.peer_mss.unwrap_or(self.cfg.default_peer_mss) as u64;
        // RFC 6691 §3: the MSS excludes options; leave room for the timestamps option.
        let opt = if self.ts_ok { TS_OPTION_LEN } else { 0 };
        let smss = peer_mss.min(self.cfg.mss as u64).saturating_sub(opt).max(1);
        if let (Some(sent), false) = (self.syn_sent_at, self.syn_retransmitted) {
            self.snd.rtt.on_sample(now.saturating_since(sent));
        }
        let wnd = if seg.flags.contains(TcpFlags::SYN) {
            seg.window as u64
        } else {
            (seg.window as u64) << self.snd_wscale
        };
        let peer_seq = self.irs.unwrap(seg.seq, 1).unwrap_or(1);
        self.snd
            .on_established(now, &self.cfg, smss, self.sack_ok, wnd, peer_seq);
        if self.ecn_ok {
            self.snd.ecn.activate();
            self.stats.ecn_negotiated = true;
        }
        if self.syn_retransmitted {
            // RFC 5681 §3.1: after a lost SYN the initial window is one segment.
            self.snd.after_lost_syn();
            // RFC 6298 §5.7: an RTO below 3 s is re-initialised to 3 s once data flows.
            let mut rto = self.cfg.rto.clone();
            rto.initial = Duration::from_secs(3).clamp(rto.min, rto.max);
            self.snd.rtt = RttEstimator::new(rto);
        }
        self.timers.stop(Timer::Handshake);
        self.state = if self.snd.fin_at.is_some() {
            State::FinWait1
        } else {
            State::Established
        };
        self.events.push_back(Event::Connected);
    }

    /// A segment arrived in an IP packet without ECN (Not-ECT).
    pub fn handle_segment(&mut self, now: Time, seg: &TcpSegment) {
        self.handle_segment_ecn(now, seg, Ecn::NotEct);
    }

    /// A segment arrived in an IP packet whose ECN field held `ecn` (RFC 3168 §5): the
    /// adapter hands the codepoint in, the core never sees the IP header.
    pub fn handle_segment_ecn(&mut self, now: Time, seg: &TcpSegment, ecn: Ecn) {
        self.handle_segment_inner(now, seg, ecn);
        self.check_invariants(Some(now));
    }

    fn handle_segment_inner(&mut self, now: Time, seg: &TcpSegment, ecn: Ecn) {
        self.stats.segments_received += 1;
        if seg.dst_port != self.local_port {
            return;
        }
        if self.state != State::Listen && seg.src_port != self.remote_port {
            return;
        }
        let f = seg.flags;
        match self.state {
            State::Closed => self.answer_with_reset(seg),
            State::Listen if f.contains(TcpFlags::ACK) => self.answer_with_reset(seg),
            State::Listen => {
                // RFC 9293 §3.10.7.2: only a SYN (without RST/ACK) opens.
                if f.contains(TcpFlags::SYN)
                    && !f.contains(TcpFlags::RST)
                    && !f.contains(TcpFlags::ACK)
                {
                    self.remote_port = seg.src_port;
                    self.negotiate(seg);
                    self.state = State::SynReceived;
                    self.syn_pending = true;
                }
            }
            State::SynSent => self.on_syn_sent(now, seg),
            _ => self.on_synchronized(now, seg, ecn),
        }
        self.refresh_send_gauges();
    }

    /// RFC 9293 §3.10.7.3.
    fn on_syn_sent(&mut self, now: Time, seg: &TcpSegment) {
        let f = seg.flags;
        let ack_ok = f.contains(TcpFlags::ACK) && seg.ack == self.iss.wire(1);
        if f.contains(TcpFlags::ACK) && !ack_ok {
            self.answer_with_reset(seg);
            return;
        }
        if f.contains(TcpFlags::RST) {
            if ack_ok {
                self.events.push_back(Event::Reset);
                self.enter(State::Closed, now);
            }
            return;
        }
        if !f.contains(TcpFlags::SYN) {
            return;
        }
        self.negotiate(seg);
        if ack_ok {
            self.snd.snd_una = 1;
            self.established(now, seg);
            self.rcv.force_ack();
        } else {
            // Simultaneous open: answer with SYN-ACK.
            self.state = State::SynReceived;
            self.syn_pending = true;
        }
    }

    /// RFC 9293 §3.10.7.4, for every state from SYN-RECEIVED on.
    fn on_synchronized(&mut self, now: Time, seg: &TcpSegment, ecn: Ecn) {
        let f = seg.flags;
        if self.state == State::SynReceived
            && f.contains(TcpFlags::SYN)
            && !f.contains(TcpFlags::ACK)
        {
            if seg.seq == self.irs.wire(0) {
                // The peer's SYN again: our SYN-ACK was lost.
                self.syn_pending = true;
            }
            return;
        }
        let fin = f.contains(TcpFlags::FIN);
        let seg_len = seg.payload.len() as u64 + fin as u64;
        let Some(seq) = self.irs.unwrap(seg.seq, self.rcv.rcv_nxt) else {
            return;
        };
        // First: sequence number acceptability.
        if !self.rcv.acceptable(seq, seg_len) {
            if !f.contains(TcpFlags::RST) {
                self.rcv.on_old_duplicate(seq, seg.payload.len() as u64);
                if self.state == State::TimeWait {
                    self.timers.set(Timer::TimeWait, now + self.cfg.time_wait);
                }
            }
            return;
        }
        // Second: RST.
        if f.contains(TcpFlags::RST) {
            self.events.push_back(Event::Reset);
            self.enter(State::Closed, now);
            return;
        }
        // Fourth: SYN in window — RFC 9293 §3.10.7.4 / RFC 5961 §4 challenge ACK.
        if f.contains(TcpFlags::SYN) {
            self.rcv.force_ack();
            return;
        }
        // Fifth: ACK.
        if !f.contains(TcpFlags::ACK) {
            return;
        }
        if self.state == State::SynReceived {
            if seg.ack != self.iss.wire(1) {
                self.answer_with_reset(seg);
                return;
            }
            self.snd.snd_una = 1;
            self.established(now, seg);
        }
        let Some(ack) = self.iss.unwrap(seg.ack, self.snd.snd_una) else {
            return;
        };
        if ack > self.snd.snd_max {
            // RFC 9293 §3.10.7.4: ACK of something not yet sent — ACK and drop.
            self.rcv.force_ack();
            return;
        }
        if self.ts_ok {
            if let Some(ts) = seg.options.timestamps {
                // RFC 7323 §4.3: remember TSval of segments covering the last ACK we sent.
                if seq <= self.last_ack_sent {
                    self.ts_recent = ts.tsval;
                }
            }
        }
        if ack >= self.snd.snd_una {
            // Most ACKs carry no blocks: no collecting then (the same empty list).
            let sack: OffsetBlocks = if self.sack_ok && !seg.options.sack_blocks.is_empty() {
                seg.options
                    .sack_blocks
                    .iter()
                    .filter_map(|b| {
                        let l = self.iss.unwrap(b.left, self.snd.snd_una)?;
                        let r = self.iss.unwrap(b.right, self.snd.snd_una)?;
                        (l < r && r <= self.snd.snd_max).then_some((l, r))
                    })
                    .collect()
            } else {
                OffsetBlocks::new()
            };
            // RFC 7323 §4.1 RTTM: an ACK of new data echoing our timestamp gives an RTT sample
            // even for retransmitted data (Karn's rule is not needed).
            let ts_rtt = self.echo_rtt(now, seg, false);
            let ts_ecr = seg
                .options
                .timestamps
                .filter(|ts| self.ts_ok && ts.tsecr != 0)
                .map(|ts| ts.tsecr);
            let input = AckInput {
                ack,
                seq,
                ts_rtt,
                ts_ecr,
                window: (seg.window as u64) << self.snd_wscale,
                sack,
                has_data_or_flags: seg_len > 0,
                // RFC 3168 §6.1.2: ECE counts only once ECN is negotiated (and never on a SYN).
                ece: self.ecn_ok && f.contains(TcpFlags::ECE),
            };
            let acked = self
                .snd
                .on_ack(now, &input, &mut self.stats, &mut self.timers);
            if acked > 0 {
                if let Some(since) = self.blocked_since {
                    if self.snd.buf.free() > 0 {
                        self.stats.app_blocked += now.saturating_since(since);
                        self.blocked_since = None;
                        self.events.push_back(Event::SendBufferSpace);
                    }
                }
            }
            if self.snd.fin_acked() {
                match self.state {
                    State::FinWait1 => self.state = State::FinWait2,
                    State::Closing => self.enter(State::TimeWait, now),
                    State::LastAck => {
                        self.enter(State::Closed, now);
                        return;
                    }
                    _ => {}
                }
            }
        }
        // Seventh: segment text and FIN.
        if seg_len == 0 {
            return;
        }
        match self.state {
            State::Established | State::FinWait1 | State::FinWait2 => {
                if self.ecn_ok {
                    self.echo_marks(now, seg, ecn);
                }
                // Linux's receiver RTT sample (tcp_rcv_rtt_measure_ts).
                let tsecr_rtt = self.echo_rtt(now, seg, true);
                let out =
                    self.rcv
                        .on_data(now, seq, &seg.payload, fin, tsecr_rtt, &mut self.timers);
                if out.delivered > 0 {
                    self.stats.bytes_delivered += out.delivered;
                    self.events.push_back(Event::Delivered {
                        bytes: out.delivered,
                    });
                }
                self.stats.ooo_bytes = self.rcv.ooo_bytes();
                self.stats.ooo_bytes_max = self.rcv.ooo_bytes_max();
                if out.fin {
                    self.events.push_back(Event::PeerClosed);
                    match self.state {
                        State::Established => self.state = State::CloseWait,
                        State::FinWait1 if self.snd.fin_acked() => self.enter(State::TimeWait, now),
                        State::FinWait1 => self.state = State::Closing,
                        _ => self.enter(State::TimeWait, now),
                    }
                }
            }
            _ => {
                // Data or FIN after the peer's FIN: a retransmission; acknowledge it again.
                self.rcv.force_ack();
                if self.state == State::TimeWait {
                    self.timers.set(Timer::TimeWait, now + self.cfg.time_wait);
                }
            }
        }
    }

    /// The receiver's side of ECN for an acceptable data segment that arrived with `ecn`
    /// (RFC 3168 §6.1.3, RFC 8257 §3.2): count CE marks and update the echo. When DCTCP's CE
    /// state flips, data waiting for a delayed ACK is acknowledged first with the old state,
    /// then this segment at once with the new one.
    fn echo_marks(&mut self, now: Time, seg: &TcpSegment, ecn: Ecn) {
        if ecn == Ecn::Ce {
            self.stats.ecn_ce_received += 1;
        }
        let old = self.echo.clone();
        if self.echo.on_data(ecn, seg.flags).flipped {
            if self.rcv.has_unacked_data() && self.ack_pending.is_none() {
                let now_echo = std::mem::replace(&mut self.echo, old);
                let seq = self.snd.snd_max;
                let ack = self.segment(now, seq, TcpFlags::ACK, Payload::empty());
                self.ack_pending = Some(Box::new(ack));
                self.echo = now_echo;
            }
            self.rcv.force_ack();
        }
    }

    /// Now minus the segment's timestamp echo, when timestamps are on (None for an echo more
    /// than 2^30 ms old, and for a zero echo when `skip_zero`).
    fn echo_rtt(&self, now: Time, seg: &TcpSegment, skip_zero: bool) -> Option<Duration> {
        let ts = seg.options.timestamps.filter(|_| self.ts_ok)?;
        if skip_zero && ts.tsecr == 0 {
            return None;
        }
        let ms = ts_clock(now).wrapping_sub(ts.tsecr);
        (ms < 1 << 30).then(|| Duration::from_millis(ms as u64))
    }

    fn refresh_send_gauges(&mut self) {
        let s = &mut self.stats;
        s.cwnd = self.snd.cc.window();
        s.ssthresh = self.snd.cc.ssthresh();
        s.srtt = self.snd.rtt.srtt();
        s.rto = self.snd.rtt.rto();
        s.rtx_queue_bytes = self.snd.snd_max - self.snd.snd_una;
        s.rtx_queue_bytes_max = s.rtx_queue_bytes_max.max(s.rtx_queue_bytes);
        s.send_buffer_bytes = self.snd.buf.len();
    }
}
