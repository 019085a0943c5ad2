//! Association control: the four-way handshake (RFC 9260 §5.1), graceful shutdown (§9.2),
//! ABORT (§9.1) and heartbeats (§8.3).

use super::timers::Timer;
use super::{Association, Outgoing, State};
use crate::event::{AbortReason, Event};
use crate::handshake::{self, Cookie};
use crate::path::Transition;
use rexmit_time::{Duration, Time};
use rexmit_wire::{Chunk, InitChunk, InitParam, SctpPacket};
use std::net::Ipv4Addr;

/// The retransmission state of the control chunks (RFC 9260 §5.1 T1-init / T1-cookie, §9.2
/// T2-shutdown): the chunk T1 resends and how many times each timer has fired; and the
/// association error counter (§8.1), the other count held against Association.Max.Retrans.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct ControlRetries {
    t1_retries: u32,
    t1_chunk: Option<Chunk>,
    t2_retries: u32,
    /// Association error counter (RFC 9260 §8.1).
    assoc_errors: u32,
    /// When our COOKIE ECHO went out, while it was sent only once: its COOKIE ACK measures
    /// the handshake's round trip for a plugged controller's `on_connected` (Karn's rule: not
    /// after a resend). The RTO estimator does not take it (RFC 9260 §6.3.1 measures DATA).
    cookie_sent_at: Option<Time>,
}

impl ControlRetries {
    /// T1 guards `chunk` (INIT, or COOKIE ECHO with `restart`: its retries count from zero).
    fn start_t1(&mut self, chunk: Chunk, restart: bool) {
        self.t1_chunk = Some(chunk);
        if restart {
            self.t1_retries = 0;
        }
    }

    /// The association is established: T1 guards nothing.
    fn t1_done(&mut self) {
        self.t1_chunk = None;
    }

    /// T1 fired: None once it fired more than `max` times (§5.1: give up), else the chunk to
    /// resend, if any.
    fn on_t1_expiry(&mut self, max: u32) -> Option<Option<Chunk>> {
        self.t1_retries += 1;
        self.cookie_sent_at = None;
        (self.t1_retries <= max).then(|| self.t1_chunk.clone())
    }

    /// T2 fired: false once it fired more than `max` times (Association.Max.Retrans).
    fn on_t2_expiry(&mut self, max: u32) -> bool {
        self.t2_retries += 1;
        self.t2_retries <= max
    }

    /// An error on some destination (§8.1): false once more than `max` followed each other.
    fn on_error(&mut self, max: u32) -> bool {
        self.assoc_errors += 1;
        self.assoc_errors <= max
    }

    /// The peer answered (acknowledged data sent since the errors began, or a heartbeat):
    /// the error counter restarts (§8.1, §8.3).
    pub(super) fn peer_answered(&mut self) {
        self.assoc_errors = 0;
    }
}

impl Association {
    fn our_init(&self) -> InitChunk {
        InitChunk {
            initiate_tag: self.id.local_tag(),
            a_rwnd: self.cfg.recv_buffer,
            outbound_streams: self.cfg.outbound_streams,
            inbound_streams: self.cfg.max_inbound_streams,
            initial_tsn: self.tx.initial_tsn(),
            params: handshake::init_params(self.id.local_addrs(), self.cfg.nr_sack, self.cfg.ecn),
        }
    }

    fn queue_to_primary(&mut self, vtag: u32, chunk: Chunk) {
        if let Some(p) = self.paths.get(self.primary) {
            self.ctrl.push_back(Outgoing {
                src: p.local(),
                dst: p.remote(),
                vtag,
                chunks: vec![chunk],
            });
        }
    }

    pub(super) fn send_init(&mut self, now: Time) {
        let init = Chunk::Init(self.our_init());
        self.queue_to_primary(0, init.clone());
        self.ctl.start_t1(init, false);
        let rto = self
            .paths
            .get(self.primary)
            .map_or(self.cfg.rto.initial, |p| p.rtt().rto());
        self.timers.set(Timer::T1, now + rto);
    }

    /// INIT at a listener: answer with INIT ACK carrying a State Cookie, keep no state
    /// (RFC 9260 §5.1). INIT in other states (collisions, restarts) is not handled.
    pub(super) fn on_init(
        &mut self,
        now: Time,
        from: Ipv4Addr,
        to: Ipv4Addr,
        src_port: u16,
        n_chunks: usize,
        init: &InitChunk,
    ) {
        // §3.3.2: INIT must be alone, with a non-zero tag and stream counts.
        if self.state != State::Listen
            || n_chunks != 1
            || init.initiate_tag == 0
            || init.outbound_streams == 0
            || init.inbound_streams == 0
        {
            return;
        }
        let cookie = Cookie {
            local_tag: self.id.local_tag(),
            peer_tag: init.initiate_tag,
            local_initial_tsn: self.tx.initial_tsn(),
            peer_initial_tsn: init.initial_tsn,
            peer_a_rwnd: init.a_rwnd,
            peer_outbound: init.outbound_streams,
            peer_inbound: init.inbound_streams,
            nr_sack: self.cfg.nr_sack && handshake::peer_offers_nr_sack(&init.params),
            ecn: self.cfg.ecn && handshake::peer_offers_ecn(&init.params),
            created_ns: now.as_nanos(),
            peer_addrs: handshake::peer_addresses(from, &init.params),
        };
        let mut ack = self.our_init();
        ack.params.push(InitParam::StateCookie(
            cookie.encode(self.cfg.cookie_secret),
        ));
        self.id.set_peer_port(src_port);
        self.ctrl.push_back(Outgoing {
            src: to,
            dst: from,
            vtag: init.initiate_tag,
            chunks: vec![Chunk::InitAck(ack)],
        });
    }

    /// Values both sides learn from the peer's INIT / INIT ACK.
    fn adopt_peer(
        &mut self,
        peer_tag: u32,
        peer_initial_tsn: u32,
        peer_a_rwnd: u32,
        peer_outbound: u16,
        peer_inbound: u16,
        nr_sack: bool,
    ) {
        self.id.adopt_peer(peer_tag, nr_sack);
        self.rx.start(
            peer_initial_tsn,
            self.cfg.max_inbound_streams.min(peer_outbound),
        );
        self.tx
            .start(peer_a_rwnd, self.cfg.outbound_streams.min(peer_inbound));
        let ssthresh = self.cfg.initial_ssthresh.unwrap_or(peer_a_rwnd as u64);
        for p in &mut self.paths {
            p.cc_mut().set_initial_ssthresh(ssthresh);
        }
    }

    /// The association is established at `now`; `handshake_rtt`: the round trip of our
    /// COOKIE ECHO, sent once, to the primary destination.
    fn establish(&mut self, now: Time, handshake_rtt: Option<Duration>) {
        self.state = State::Established;
        let primary = self.primary;
        for (i, p) in self.paths.iter_mut().enumerate() {
            // Idle time (cwnd decay, heartbeats) counts from establishment.
            p.start_idle_clock(now);
            let rtt = handshake_rtt.filter(|_| i == primary);
            p.cc_mut().on_connected(now, rtt);
        }
        self.timers.stop(Timer::T1);
        self.ctl.t1_done();
        if let Some(iv) = self.heartbeat_interval() {
            for i in 0..self.paths.len() {
                let at = self.heartbeat_due(now, iv, i);
                self.timers.set(Timer::Heartbeat(i), at);
            }
        }
        let nr = self.id.nr_sack();
        self.emit(Event::Connected { nr_sack: nr });
    }

    pub(super) fn on_init_ack(&mut self, now: Time, ack: &InitChunk) {
        if self.state != State::CookieWait
            || ack.initiate_tag == 0
            || ack.outbound_streams == 0
            || ack.inbound_streams == 0
        {
            return;
        }
        let Some(cookie) = handshake::state_cookie(&ack.params).map(|c| c.to_vec()) else {
            return;
        };
        let nr = self.cfg.nr_sack && handshake::peer_offers_nr_sack(&ack.params);
        self.set_ecn(self.cfg.ecn && handshake::peer_offers_ecn(&ack.params));
        self.adopt_peer(
            ack.initiate_tag,
            ack.initial_tsn,
            ack.a_rwnd,
            ack.outbound_streams,
            ack.inbound_streams,
            nr,
        );
        let echo = Chunk::CookieEcho { cookie };
        self.queue_to_primary(self.id.peer_tag(), echo.clone());
        self.state = State::CookieEchoed;
        self.ctl.start_t1(echo, true);
        self.ctl.cookie_sent_at = Some(now);
        self.timers
            .set(Timer::T1, now + self.paths[self.primary].rtt().rto());
    }

    pub(super) fn on_cookie_echo(
        &mut self,
        now: Time,
        from: Ipv4Addr,
        to: Ipv4Addr,
        pkt: &SctpPacket,
        raw: &[u8],
    ) {
        let Some(c) = Cookie::decode(raw, self.cfg.cookie_secret) else {
            return;
        };
        if pkt.verification_tag != c.local_tag || c.local_tag != self.id.local_tag() {
            return;
        }
        if self.state != State::Listen {
            // Our COOKIE ACK was lost and the peer repeats its COOKIE ECHO (§5.2.4 case D).
            if c.peer_tag == self.id.peer_tag() && self.state != State::Closed {
                self.ctrl.push_back(Outgoing {
                    src: to,
                    dst: from,
                    vtag: self.id.peer_tag(),
                    chunks: vec![Chunk::CookieAck],
                });
            }
            return;
        }
        // §5.1.5 step 3: stale cookies are dropped (the Stale Cookie error is not sent).
        if now.as_nanos().saturating_sub(c.created_ns) > self.cfg.valid_cookie_life.as_nanos()
            || c.peer_addrs.is_empty()
        {
            return;
        }
        self.id.set_peer_port(pkt.src_port);
        self.make_paths(&c.peer_addrs);
        self.primary = self.path_of(from).unwrap_or(0);
        self.adopt_peer(
            c.peer_tag,
            c.peer_initial_tsn,
            c.peer_a_rwnd,
            c.peer_outbound,
            c.peer_inbound,
            c.nr_sack,
        );
        self.set_ecn(c.ecn);
        // The responder has no round trip it can trust: the cookie's creation time is its
        // INIT ACK's, and a resent COOKIE ECHO would add the initiator's T1 wait.
        self.establish(now, None);
        self.ctrl.push_back(Outgoing {
            src: to,
            dst: from,
            vtag: self.id.peer_tag(),
            chunks: vec![Chunk::CookieAck],
        });
    }

    pub(super) fn on_cookie_ack(&mut self, now: Time) {
        if self.state == State::CookieEchoed {
            let rtt = self
                .ctl
                .cookie_sent_at
                .take()
                .map(|t| now.saturating_since(t));
            self.establish(now, rtt);
        }
    }

    pub(super) fn on_t1_expiry(&mut self, now: Time) {
        let Some(resend) = self.ctl.on_t1_expiry(self.cfg.max_init_retransmits) else {
            self.fail(now, AbortReason::InitFailed);
            return;
        };
        let p = self.primary;
        self.paths[p].back_off_rto();
        if let Some(c) = resend {
            let vtag = if matches!(c, Chunk::Init(_)) {
                0
            } else {
                self.id.peer_tag()
            };
            self.queue_to_primary(vtag, c);
        }
        self.timers.set(Timer::T1, now + self.paths[p].rtt().rto());
    }

    // --- shutdown (§9.2) ---

    /// Queue SHUTDOWN / SHUTDOWN ACK once every outstanding chunk is acknowledged.
    pub(super) fn progress_shutdown(&mut self, now: Time) {
        if !self.tx.drained() {
            return;
        }
        match self.state {
            State::ShutdownPending => {
                self.state = State::ShutdownSent;
                self.send_t2_chunk(now);
            }
            State::ShutdownReceived => {
                self.state = State::ShutdownAckSent;
                self.send_t2_chunk(now);
            }
            _ => {}
        }
    }

    fn t2_chunk(&self) -> Option<Chunk> {
        match self.state {
            State::ShutdownSent => Some(Chunk::Shutdown {
                cum_tsn_ack: self.rx.cum_tsn().unwrap_or(0),
            }),
            State::ShutdownAckSent => Some(Chunk::ShutdownAck),
            _ => None,
        }
    }

    fn send_t2_chunk(&mut self, now: Time) {
        if let Some(c) = self.t2_chunk() {
            self.queue_to_primary(self.id.peer_tag(), c);
            self.timers
                .set(Timer::T2, now + self.paths[self.primary].rtt().rto());
        }
    }

    pub(super) fn on_t2_expiry(&mut self, now: Time) {
        if !self.ctl.on_t2_expiry(self.cfg.assoc_max_retrans) {
            self.fail(now, AbortReason::MaxRetransmissions);
            return;
        }
        let p = self.primary;
        self.paths[p].back_off_rto();
        self.send_t2_chunk(now);
    }

    pub(super) fn on_shutdown(&mut self, now: Time, cum_tsn_ack: u32) {
        // The SHUTDOWN's cumulative TSN ack acknowledges like a SACK (§9.2).
        let rwnd = (self.tx.peer_rwnd() + self.flight_size()).min(u32::MAX as u64) as u32;
        self.on_sack(now, cum_tsn_ack, rwnd, &[], &[], false, Default::default());
        match self.state {
            State::Established | State::ShutdownPending | State::ShutdownReceived => {
                self.state = State::ShutdownReceived;
                self.progress_shutdown(now);
            }
            State::ShutdownSent => {
                // Both sides shut down at once: answer with SHUTDOWN ACK (§9.2).
                self.state = State::ShutdownAckSent;
                self.send_t2_chunk(now);
            }
            _ => {}
        }
    }

    pub(super) fn on_shutdown_ack(&mut self, now: Time, from: Ipv4Addr, to: Ipv4Addr) {
        if matches!(self.state, State::ShutdownSent | State::ShutdownAckSent) {
            self.ctrl.push_back(Outgoing {
                src: to,
                dst: from,
                vtag: self.id.peer_tag(),
                chunks: vec![Chunk::ShutdownComplete { t_bit: false }],
            });
            self.finish(now, Event::Closed);
        }
    }

    pub(super) fn on_shutdown_complete(&mut self, now: Time) {
        if self.state == State::ShutdownAckSent {
            self.finish(now, Event::Closed);
        }
    }

    /// A packet after the association closed (RFC 9260 §8.4): a repeated SHUTDOWN ACK (our
    /// SHUTDOWN COMPLETE was lost) gets a SHUTDOWN COMPLETE with the T bit; the rest is dropped.
    pub(super) fn out_of_the_blue(&mut self, from: Ipv4Addr, to: Ipv4Addr, pkt: &SctpPacket) {
        if self.id.peer_tag() != 0
            && pkt.verification_tag == self.id.local_tag()
            && pkt.chunks.iter().any(|c| matches!(c, Chunk::ShutdownAck))
        {
            let chunks = vec![Chunk::ShutdownComplete { t_bit: true }];
            self.ctrl.push_back(Outgoing {
                src: to,
                dst: from,
                vtag: self.id.local_tag(),
                chunks,
            });
        }
    }

    // --- abort ---

    pub(super) fn on_abort(&mut self, now: Time) {
        if self.state != State::Listen {
            self.finish(
                now,
                Event::Aborted {
                    reason: AbortReason::ByPeer,
                },
            );
        }
    }

    pub(super) fn close_abruptly(&mut self, now: Time, send_abort: bool) {
        if self.state == State::Closed {
            return;
        }
        if send_abort && self.id.peer_tag() != 0 {
            self.queue_to_primary(
                self.id.peer_tag(),
                Chunk::Abort {
                    t_bit: false,
                    causes: Vec::new(),
                },
            );
        }
        self.finish(
            now,
            Event::Aborted {
                reason: AbortReason::Local,
            },
        );
    }

    /// Give up (RFC 9260 §8.1, §5.1 T1): ABORT the peer and report why.
    pub(super) fn fail(&mut self, now: Time, reason: AbortReason) {
        if self.id.peer_tag() != 0 {
            self.queue_to_primary(
                self.id.peer_tag(),
                Chunk::Abort {
                    t_bit: false,
                    causes: Vec::new(),
                },
            );
        }
        self.finish(now, Event::Aborted { reason });
    }

    fn finish(&mut self, now: Time, e: Event) {
        self.tx.cancel_block();
        self.account_blocking(now);
        if let Some(since) = self.stats.blocked_since.take() {
            self.stats.send_blocked_time += now.saturating_since(since);
        }
        self.state = State::Closed;
        self.timers.stop(Timer::T1);
        self.timers.stop(Timer::T2);
        for p in 0..self.paths.len() {
            self.timers.stop(Timer::T3Rtx(p));
            self.timers.stop(Timer::Heartbeat(p));
            self.timers.stop(Timer::HeartbeatAck(p));
        }
        self.emit(e);
    }

    // --- heartbeats (§8.3) ---

    pub(super) fn on_heartbeat(&mut self, from: Ipv4Addr, to: Ipv4Addr, info: &[u8]) {
        if matches!(self.state, State::Listen | State::CookieWait) {
            return;
        }
        self.ctrl.push_back(Outgoing {
            src: to,
            dst: from,
            vtag: self.id.peer_tag(),
            chunks: vec![Chunk::HeartbeatAck {
                info: info.to_vec(),
            }],
        });
    }

    pub(super) fn on_heartbeat_ack(&mut self, now: Time, from: Ipv4Addr, info: &[u8]) {
        // Our Heartbeat Info: path index (1 byte) and nonce (8 bytes).
        if info.len() != 9 {
            return;
        }
        let p = info[0] as usize;
        let nonce = u64::from_be_bytes(info[1..9].try_into().unwrap_or([0; 8]));
        let Some(path) = self.paths.get_mut(p) else {
            return;
        };
        // §8.3: an answer to the outstanding HEARTBEAT (nonce and address match).
        let Some(up) = path.on_heartbeat_ack(now, nonce, from) else {
            return;
        };
        let addr = path.remote();
        self.timers.stop(Timer::HeartbeatAck(p));
        if let Some(iv) = self.heartbeat_interval() {
            let at = self.heartbeat_due(now, iv, p);
            self.timers.set(Timer::Heartbeat(p), at);
        }
        self.ctl.peer_answered();
        if up == Transition::Up {
            self.emit(Event::PathUp { addr });
        }
    }

    pub(super) fn heartbeat_timers(&mut self, now: Time, p: usize) {
        if !self.state.sends_heartbeats() {
            return;
        }
        let interval = self.heartbeat_interval();
        if self.timers.is_due(Timer::HeartbeatAck(p), now) {
            // Unanswered within RTO: an error on the path and the association (§8.1, §8.3).
            self.timers.stop(Timer::HeartbeatAck(p));
            self.paths[p].heartbeat_timed_out();
            // Periodic heartbeats probe again at once; an on-demand probe is not repeated.
            self.timers.put(Timer::Heartbeat(p), interval.map(|_| now));
            self.path_error(now, p);
            if self.state == State::Closed {
                return;
            }
        }
        let Some(iv) = interval else {
            return;
        };
        if self.timers.is_due(Timer::Heartbeat(p), now) {
            let path = &self.paths[p];
            let idle_since = path.last_sent();
            let confirmed_active = path.state() == crate::path::PathState::Active;
            if confirmed_active && idle_since + iv > now && path.error_count() == 0 {
                // Data went there recently: not idle, nothing to probe yet.
                let at = self.heartbeat_due(idle_since, iv, p);
                self.timers.set(Timer::Heartbeat(p), at);
                return;
            }
            self.send_heartbeat(now, p);
        }
    }

    /// When an idle path `p` that fell idle at `from` gets its next HEARTBEAT: RFC 9260 §8.3,
    /// "once per RTO of that destination address plus the protocol parameter 'HB.interval',
    /// with jittering of +/- 50% of the RTO value" (`hb_jitter`).
    fn heartbeat_due(&mut self, from: Time, iv: Duration, p: usize) -> Time {
        let rto = self.paths[p].rtt().rto();
        let rto = if self.cfg.hb_jitter {
            // RTO · (0.5 + u), u uniform in [0, 1).
            let u = self.rng.unit();
            Duration::from_nanos(((rto.as_nanos() as f64) * (0.5 + u)) as u64)
        } else {
            rto
        };
        from + iv + rto
    }

    /// How long a path stays idle before it gets a HEARTBEAT: HB.interval (RFC 9260 §8.3), or
    /// sooner with seed 002 §V.B's RTT probing (`rack.rtt_probe`); `None`: never.
    pub(super) fn heartbeat_interval(&self) -> Option<Duration> {
        let probe = self.cfg.rack.rtt_probe.filter(|_| self.cfg.rack.enabled);
        match (self.cfg.hb_interval, probe) {
            (Some(hb), Some(probe)) => Some(hb.min(probe)),
            (hb, probe) => hb.or(probe),
        }
    }

    /// Queue a HEARTBEAT to path `p` (§8.3) and wait one RTO for its ACK.
    pub(super) fn send_heartbeat(&mut self, now: Time, p: usize) {
        let path = &mut self.paths[p];
        let nonce = path.heartbeat_sent(now);
        self.timers
            .set(Timer::HeartbeatAck(p), now + path.rtt().rto());
        self.timers.stop(Timer::Heartbeat(p));
        let mut info = vec![p as u8];
        info.extend_from_slice(&nonce.to_be_bytes());
        let (src, dst) = (path.local(), path.remote());
        self.stats.paths[p].heartbeats_sent += 1;
        self.ctrl.push_back(Outgoing {
            src,
            dst,
            vtag: self.id.peer_tag(),
            chunks: vec![Chunk::Heartbeat { info }],
        });
    }

    /// Count an error against path `p` and the association (RFC 9260 §8.1, §8.2).
    pub(super) fn path_error(&mut self, now: Time, p: usize) {
        let pf = self.cfg.cmt.pf.then_some(self.cfg.cmt.pf_threshold);
        match self.paths[p].on_error(now, self.cfg.path_max_retrans, pf) {
            Transition::Down => {
                let addr = self.paths[p].remote();
                self.emit(Event::PathDown { addr });
            }
            Transition::PotentiallyFailed
                if self.heartbeat_interval().is_some()
                    && !self.paths[p].heartbeat_outstanding() =>
            {
                // CMT-PF: probe the path at once instead of waiting for the heartbeat interval.
                self.timers.set(Timer::Heartbeat(p), now);
            }
            _ => {}
        }
        if !self.ctl.on_error(self.cfg.assoc_max_retrans) {
            self.fail(now, AbortReason::MaxRetransmissions);
        }
    }
}

/// The association's own random numbers (SplitMix64), seeded by `SctpConfig::random_seed`: the
/// same seed gives the same heartbeat times.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Draws(u64);

impl Draws {
    pub(super) fn new(seed: u64) -> Self {
        Draws(seed)
    }

    /// Uniform in [0, 1).
    pub(super) fn unit(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }
}
