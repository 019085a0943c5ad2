//! The association endpoint: public API, dispatch, and the orchestration of parts that own
//! their state privately (each changes only through its own methods):
//! - `identity` (`Identity`): addresses, ports, verification tags, NR-SACK; completed by the
//!   handshake.
//! - `send_side` (`SendSide`): the data sender: send queue, retransmission queue, TSN
//!   numbering, cumulative ack point, peer window, fast recovery, send-buffer blocking, the
//!   transmit opportunity, seed 004's packet tracking.
//! - `receiver` (`Receiver`): incoming DATA, reassembly, receive buffer, SACK generation.
//! - `control` (`ControlRetries`): T1/T2 resends and counts and the association error
//!   counter; with the handshake, shutdown, ABORT and heartbeats (RFC 9260 §5, §8, §9).
//! - `timers` (`TimerTable`): every deadline.
//! - `rack_glue` (`SctpRack`): RACK-TLP state (seed 002) and its hooks.
//!
//! `Association` itself keeps the state machine, the paths (per destination: flight size,
//! congestion control, RTT, errors, CMT recovery point), the queue of control packets, events,
//! statistics and the debug audit. The mechanisms that join the parts are `impl Association`
//! blocks: `sack.rs` (a SACK's stages), `sender.rs` (fast retransmit and recovery, T3-rtx,
//! reneging), `transmit.rs` (packet assembly), `thin_glue.rs` (seed 004 and RFC 5827 hooks)
//! and `invariants.rs` (debug-build checks).
//!
//! Driving it: after `handle_packet`, `handle_timeout` or `send`, call `poll_transmit` until
//! it returns `None`, drain `poll_event`, and arm one timer at `poll_timeout`.

mod control;
mod ecn_glue;
mod identity;
mod invariants;
#[cfg(test)]
mod poll_tests;
mod rack_glue;
mod receiver;
mod sack;
mod send_side;
mod sender;
mod thin_glue;
mod timers;
mod transmit;

use crate::config::SctpConfig;
use crate::controller::PathController;
use crate::event::{Event, SendError};
use crate::path::Path;
use crate::rtx_queue::TsnState;
use crate::stats::{PathStats, SctpStats};
use rexmit_time::Time;
use rexmit_wire::{Chunk, Ecn, Payload, SctpPacket};
use std::collections::VecDeque;
use std::net::Ipv4Addr;
use timers::{Timer, TimerTable};

/// RFC 9260 §4 states (CLOSED split into a listening and a finished form).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Listen,
    CookieWait,
    CookieEchoed,
    Established,
    ShutdownPending,
    ShutdownSent,
    ShutdownReceived,
    ShutdownAckSent,
    Closed,
}

impl State {
    /// DATA from the peer is accepted (RFC 9260 §9.2: until our SHUTDOWN ACK).
    fn receives_data(self) -> bool {
        matches!(
            self,
            State::Established
                | State::ShutdownPending
                | State::ShutdownSent
                | State::ShutdownReceived
        )
    }
    /// Queued DATA goes out (RFC 9260 §9.2: until our SHUTDOWN or SHUTDOWN ACK, which waits
    /// for all of it to be acknowledged).
    fn sends_data(self) -> bool {
        matches!(
            self,
            State::Established | State::ShutdownPending | State::ShutdownReceived
        )
    }
    /// Heartbeats run (`Association::heartbeat_timers`): not during setup, nor once our
    /// SHUTDOWN or SHUTDOWN ACK is out.
    fn sends_heartbeats(self) -> bool {
        matches!(
            self,
            State::Established | State::ShutdownPending | State::ShutdownReceived
        )
    }
    /// Acknowledgements of our data are processed.
    fn processes_acks(self) -> bool {
        self.receives_data() || self == State::ShutdownAckSent
    }
}

/// A control packet waiting for `poll_transmit`.
#[derive(Clone, Debug, PartialEq)]
struct Outgoing {
    src: Ipv4Addr,
    dst: Ipv4Addr,
    vtag: u32,
    chunks: Vec<Chunk>,
}

/// `Clone` for the checked polls of tests and fuzzing (`poll_transmit_checked`).
#[derive(Debug)]
#[cfg_attr(any(test, feature = "fuzzing"), derive(Clone, PartialEq))]
pub struct Association {
    cfg: SctpConfig,
    state: State,
    /// Addresses, ports, verification tags, NR-SACK (identity.rs).
    id: identity::Identity,
    paths: Vec<Path>,
    primary: usize,
    /// Every deadline of the association (`timers`).
    timers: TimerTable,
    /// What T1-init/T1-cookie and T2-shutdown resend, how often they have, and the
    /// association error counter (control.rs).
    ctl: control::ControlRetries,
    /// The data sender (send_side.rs).
    tx: send_side::SendSide,
    /// RACK-TLP state (seed 002), when `cfg.rack.enabled`.
    rack: Option<Box<rack_glue::SctpRack>>,
    /// The data receiver (receiver.rs).
    rx: receiver::Receiver,
    /// ECN (RFC 9260 Appendix A): negotiation, the pending echo and CWR (ecn_glue.rs).
    ecn: ecn_glue::EcnState,
    ctrl: VecDeque<Outgoing>,
    events: VecDeque<Event>,
    stats: SctpStats,
    /// Values the debug-build invariant checks compare against.
    audit: invariants::Audit,
    /// The association's random draws (heartbeat jitter), seeded by `cfg.random_seed`.
    rng: control::Draws,
    /// The last SACK carried gap or nr-gap blocks (FreeBSD's T3-rtx rule reads it).
    last_sack_had_gaps: bool,
}

impl Association {
    fn blank(
        cfg: SctpConfig,
        local_addrs: Vec<Ipv4Addr>,
        local_port: u16,
        initiate_tag: u32,
        initial_tsn: u32,
        state: State,
    ) -> Self {
        let streams = cfg.outbound_streams;
        let inbound = cfg.max_inbound_streams;
        Association {
            state,
            id: identity::Identity::new(local_addrs, local_port, initiate_tag),
            paths: Vec::new(),
            primary: 0,
            timers: TimerTable::default(),
            ctl: control::ControlRetries::default(),
            tx: send_side::SendSide::new(streams, initial_tsn, cfg.chunk_flight_overhead()),
            rack: cfg
                .rack
                .enabled
                .then(|| Box::new(rack_glue::SctpRack::new(cfg.rack.reo_wnd_persist))),
            rx: receiver::Receiver::new(inbound),
            ecn: ecn_glue::EcnState::default(),
            ctrl: VecDeque::new(),
            events: VecDeque::new(),
            stats: SctpStats::default(),
            audit: invariants::Audit::default(),
            rng: control::Draws::new(cfg.random_seed),
            last_sack_had_gaps: false,
            cfg,
        }
    }

    fn make_paths(&mut self, remote_addrs: &[Ipv4Addr]) {
        let n_local = self.id.local_addrs().len().max(1);
        self.paths = remote_addrs
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let local = self
                    .id
                    .local_addrs()
                    .get(i % n_local)
                    .copied()
                    .unwrap_or(Ipv4Addr::UNSPECIFIED);
                let ssthresh = self.cfg.initial_ssthresh.unwrap_or(u64::MAX);
                Path::new(
                    local,
                    *r,
                    self.cfg.rto.clone(),
                    PathController::new(&self.cfg, ssthresh),
                )
            })
            .collect();
        self.stats.paths = vec![PathStats::default(); self.paths.len()];
        self.timers.set_paths(self.paths.len());
    }

    /// Start an association as the initiator: INIT goes to `remote_addrs[0]`, the primary.
    /// The configuration must have passed `SctpConfig::validate`.
    #[allow(clippy::too_many_arguments)]
    pub fn connect(
        cfg: SctpConfig,
        local_addrs: Vec<Ipv4Addr>,
        local_port: u16,
        remote_addrs: Vec<Ipv4Addr>,
        remote_port: u16,
        initiate_tag: u32,
        initial_tsn: u32,
        now: Time,
    ) -> Self {
        let mut a = Association::blank(
            cfg,
            local_addrs,
            local_port,
            initiate_tag,
            initial_tsn,
            State::CookieWait,
        );
        a.id.set_peer_port(remote_port);
        a.make_paths(&remote_addrs);
        if a.paths.is_empty() {
            // Nowhere to send the INIT.
            a.fail(now, crate::event::AbortReason::InitFailed);
        } else {
            a.send_init(now);
        }
        a
    }

    /// Wait for one association as the responder; its tag and initial TSN are fixed here so
    /// that runs are reproducible.
    pub fn listen(
        cfg: SctpConfig,
        local_addrs: Vec<Ipv4Addr>,
        local_port: u16,
        initiate_tag: u32,
        initial_tsn: u32,
    ) -> Self {
        Association::blank(
            cfg,
            local_addrs,
            local_port,
            initiate_tag,
            initial_tsn,
            State::Listen,
        )
    }

    /// Queue a user message. Returns its message number, which also travels as the DATA
    /// chunks' PPID so the receiver's `MessageDelivered` can be matched to it.
    pub fn send(
        &mut self,
        now: Time,
        stream: u16,
        msg: Payload,
        unordered: bool,
    ) -> Result<u64, SendError> {
        let r = self.send_inner(now, stream, msg, unordered);
        self.check_invariants(Some(now));
        r
    }

    fn send_inner(
        &mut self,
        now: Time,
        stream: u16,
        msg: Payload,
        unordered: bool,
    ) -> Result<u64, SendError> {
        if !matches!(
            self.state,
            State::CookieWait | State::CookieEchoed | State::Established
        ) {
            return Err(SendError::NotConnected);
        }
        if msg.is_empty() {
            return Err(SendError::EmptyMessage);
        }
        if stream >= self.tx.queue().streams() {
            return Err(SendError::InvalidStream);
        }
        let len = msg.len() as u64;
        if len > self.cfg.send_buffer || self.tx.peer_buffer().is_some_and(|b| len > b) {
            return Err(SendError::MessageTooLarge);
        }
        if self.send_buffer_bytes() + len > self.cfg.send_buffer {
            if self.tx.block(len) {
                self.stats.send_blocked_events += 1;
                self.stats.blocked_since = Some(now);
            }
            self.account_blocking(now);
            return Err(SendError::BufferFull);
        }
        let id = self
            .tx
            .push_message(stream, &msg, unordered, self.cfg.max_data_payload());
        self.stats.messages_sent += 1;
        self.tx.note_output_call(now, true);
        // FreeBSD follows an accepted write with an output call of its own.
        self.tx.end_t3_call();
        if now > self.tx.round_at() || self.paths.iter().all(|p| p.flight() == 0) {
            // A write after the current opportunity began, or with nothing in flight to clock
            // data out, is a transmit opportunity of its own (RFC 9260 §6.1 D); writes at the
            // instant a SACK arrived share that SACK's.
            self.tx.end_round();
        }
        Ok(id)
    }

    /// Graceful shutdown (RFC 9260 §9.2): SHUTDOWN once all queued data is acknowledged.
    pub fn shutdown(&mut self, now: Time) {
        match self.state {
            State::Established => self.state = State::ShutdownPending,
            State::CookieWait | State::CookieEchoed | State::Listen => {
                self.close_abruptly(now, false)
            }
            _ => {}
        }
        self.check_invariants(Some(now));
    }

    /// ABORT the association (RFC 9260 §9.1).
    pub fn abort(&mut self, now: Time) {
        self.close_abruptly(now, true);
        self.check_invariants(Some(now));
    }

    /// Memory pressure at the receiver: drop up to `bytes` of renegable out-of-order data
    /// (RFC 9260 §6.2), highest TSNs first. Does nothing under `RenegePolicy::Never`. Returns
    /// the bytes freed.
    pub fn renege(&mut self, bytes: u64) -> u64 {
        if self.cfg.renege == crate::config::RenegePolicy::Never {
            return 0;
        }
        let before = self.rx.undelivered_bytes();
        let target = before.saturating_sub(bytes);
        self.renege_down_to(target);
        self.check_invariants(None);
        before - self.rx.undelivered_bytes()
    }

    pub fn handle_packet(&mut self, now: Time, from: Ipv4Addr, to: Ipv4Addr, pkt: &SctpPacket) {
        self.handle_packet_ecn(now, from, to, pkt, Ecn::NotEct);
    }

    /// `handle_packet` with the ECN codepoint of the IP header the packet came in (RFC 3168
    /// §5): a CE mark on a packet carrying DATA is echoed when ECN was negotiated.
    pub fn handle_packet_ecn(
        &mut self,
        now: Time,
        from: Ipv4Addr,
        to: Ipv4Addr,
        pkt: &SctpPacket,
        ecn: Ecn,
    ) {
        self.handle_packet_inner(now, from, to, pkt, ecn);
        self.check_invariants(Some(now));
    }

    fn handle_packet_inner(
        &mut self,
        now: Time,
        from: Ipv4Addr,
        to: Ipv4Addr,
        pkt: &SctpPacket,
        ecn: Ecn,
    ) {
        self.stats.packets_received += 1;
        self.ecn.new_packet();
        self.tx.end_round();
        self.tx.note_output_call(now, false);
        if pkt.dst_port != self.id.local_port() {
            return;
        }
        if self.state == State::Closed {
            self.out_of_the_blue(from, to, pkt);
            return;
        }
        if self.state != State::Listen && pkt.src_port != self.id.peer_port() {
            return;
        }
        let mut data: smallvec::SmallVec<[&rexmit_wire::DataChunk; 8]> = smallvec::SmallVec::new();
        for chunk in &pkt.chunks {
            if !self.accepts(pkt.verification_tag, chunk) {
                continue;
            }
            match chunk {
                Chunk::Init(init) => {
                    self.on_init(now, from, to, pkt.src_port, pkt.chunks.len(), init)
                }
                Chunk::InitAck(init) => self.on_init_ack(now, init),
                Chunk::CookieEcho { cookie } => self.on_cookie_echo(now, from, to, pkt, cookie),
                Chunk::CookieAck => self.on_cookie_ack(now),
                Chunk::Data(d) => data.push(d),
                Chunk::Sack(s) => {
                    let x = sack::SackExtra {
                        dups: s.dup_tsns.len(),
                        dac_packets: s.dac_packets,
                    };
                    self.on_sack(now, s.cum_tsn_ack, s.a_rwnd, &s.gap_blocks, &[], false, x)
                }
                Chunk::NrSack(s) => {
                    let x = sack::SackExtra {
                        dups: s.dup_tsns.len(),
                        dac_packets: s.dac_packets,
                    };
                    if self.id.nr_sack() {
                        self.on_sack(
                            now,
                            s.cum_tsn_ack,
                            s.a_rwnd,
                            &s.gap_blocks,
                            &s.nr_gap_blocks,
                            s.all_non_renegable,
                            x,
                        )
                    } else {
                        // Not negotiated: use it as a plain SACK, ignoring non-renegable info.
                        self.on_sack(now, s.cum_tsn_ack, s.a_rwnd, &s.gap_blocks, &[], false, x)
                    }
                }
                Chunk::Heartbeat { info } => self.on_heartbeat(from, to, info),
                Chunk::HeartbeatAck { info } => self.on_heartbeat_ack(now, from, info),
                Chunk::Abort { .. } => self.on_abort(now),
                Chunk::Shutdown { cum_tsn_ack } => self.on_shutdown(now, *cum_tsn_ack),
                Chunk::ShutdownAck => self.on_shutdown_ack(now, from, to),
                Chunk::ShutdownComplete { .. } => self.on_shutdown_complete(now),
                Chunk::Ecne { lowest_tsn } => self.on_ecne(now, *lowest_tsn),
                Chunk::Cwr { lowest_tsn } => self.on_cwr(*lowest_tsn),
                // RFC 9260 §3.2: the two high bits of an unrecognised type say whether to
                // skip it (1x) or to discard the rest of the packet (0x); rexmit never sends
                // the ERROR report the odd values ask for.
                Chunk::Unknown { chunk_type, .. } if chunk_type >> 7 == 0 => return,
                Chunk::Unknown { .. } => {}
            }
            if self.state == State::Closed {
                return;
            }
        }
        if !data.is_empty() {
            self.ecn_on_data_packet(ecn, &data);
            self.on_data(now, from, &data);
        }
        self.account_thin(now);
    }

    /// Verification tag rules of RFC 9260 §8.5 and §8.5.1.
    fn accepts(&self, vtag: u32, chunk: &Chunk) -> bool {
        match (self.state, chunk) {
            (_, Chunk::Init(_)) => vtag == 0,
            (_, Chunk::CookieEcho { .. }) => true, // checked against the cookie
            (State::Listen, _) => false,
            (_, Chunk::Abort { t_bit, .. }) | (_, Chunk::ShutdownComplete { t_bit }) => {
                vtag == if *t_bit {
                    self.id.peer_tag()
                } else {
                    self.id.local_tag()
                }
            }
            _ => vtag == self.id.local_tag(),
        }
    }

    pub fn handle_timeout(&mut self, now: Time) {
        self.handle_timeout_inner(now);
        self.check_invariants(Some(now));
    }

    fn handle_timeout_inner(&mut self, now: Time) {
        self.tx.end_round();
        self.tx.note_output_call(now, false);
        if self.state == State::Closed {
            return;
        }
        if self.timers.is_due(Timer::T1, now) {
            self.on_t1_expiry(now);
        }
        if self.timers.is_due(Timer::T2, now) {
            self.on_t2_expiry(now);
        }
        self.rx
            .on_sack_timer(now, self.timers.get(Timer::DelayedSack));
        for p in 0..self.paths.len() {
            if self.state == State::Closed {
                return;
            }
            if self.timers.is_due(Timer::T3Rtx(p), now) {
                self.on_t3_expiry(now, p);
            }
            if self.timers.is_due(Timer::EarlyFastRtx(p), now) {
                self.on_efr_expiry(now, p);
            }
            self.heartbeat_timers(now, p);
        }
        self.rack_timers(now);
        self.account_thin(now);
    }

    /// The earliest instant at which `handle_timeout` has work.
    pub fn poll_timeout(&self) -> Option<Time> {
        if self.state == State::Closed {
            return None;
        }
        // Heartbeat timers left from an earlier state are dormant: reporting them would ask for
        // `handle_timeout` at an instant where it has nothing to do, forever. A delayed SACK
        // already due waits for the next transmit opportunity, not for its timer.
        self.timers
            .next_deadline(!self.rx.sack_due(), self.state.sends_heartbeats())
    }

    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    pub fn stats(&self) -> &SctpStats {
        &self.stats
    }

    // --- observation for tests and metrics ---

    pub fn state(&self) -> State {
        self.state
    }
    pub fn is_established(&self) -> bool {
        self.state == State::Established
    }
    pub fn nr_sack_negotiated(&self) -> bool {
        self.id.nr_sack()
    }
    /// Both ends offered ECN (RFC 9260 Appendix A).
    pub fn ecn_negotiated(&self) -> bool {
        self.ecn.negotiated()
    }
    pub fn config(&self) -> &SctpConfig {
        &self.cfg
    }
    /// User-data bytes in the send buffer: unsent data plus the retransmission queue.
    pub fn send_buffer_bytes(&self) -> u64 {
        self.tx.buffered()
    }
    /// Bytes of the retransmission queue still held (nr-acked chunks are freed).
    pub fn rtx_queue_bytes(&self) -> u64 {
        self.tx.rtxq().bytes()
    }
    /// Retransmission-queue entries gap-acked (renegable, received out of order).
    pub fn rtx_queue_gap_acked(&self) -> usize {
        self.tx.rtxq().gap_acked()
    }
    /// (TSN, state, bytes) of every retransmission-queue entry, lowest first.
    pub fn rtx_queue(&self) -> Vec<(u32, TsnState, u32)> {
        self.tx.rtxq().snapshot()
    }
    /// Like `rtx_queue`, without allocating.
    pub fn rtx_queue_iter(&self) -> impl Iterator<Item = (u32, TsnState, u32)> + '_ {
        self.tx.rtxq().iter().map(|e| (e.tsn, e.state, e.len))
    }
    /// A sent DATA chunk as the retransmission queue holds it (read-only, for traces): its
    /// transmissions, the destination of the latest one and why it was last marked for
    /// retransmission. `None` once cumulatively acked.
    pub fn rtx_entry(&self, tsn: u32) -> Option<&crate::rtx_queue::RtxEntry> {
        self.tx.rtxq().get(tsn)
    }
    /// The application is blocked: its last `send` was refused and no room has come back.
    pub fn is_send_blocked(&self) -> bool {
        self.tx.blocked_need().is_some()
    }
    pub fn paths(&self) -> &[Path] {
        &self.paths
    }
    pub fn primary_path(&self) -> usize {
        self.primary
    }
    /// Choose the primary destination (RFC 9260 §5.1.2 lets the user set it).
    pub fn set_primary(&mut self, path: usize) {
        if path < self.paths.len() {
            self.primary = path;
        }
    }
    /// Bytes in flight over all paths.
    pub fn flight_size(&self) -> u64 {
        self.paths.iter().map(|p| p.flight()).sum()
    }
    pub fn in_fast_recovery(&self) -> bool {
        self.tx.fast_recovery().is_some() || self.paths.iter().any(|p| p.fr_exit().is_some())
    }
    /// Receiver-side ground truth for RtxQ_Util (seed 000 §IV.B): is the peer's `tsn`
    /// received and non-renegable here?
    pub fn is_tsn_non_renegable(&self, tsn: u32) -> bool {
        self.rx.is_non_renegable(tsn)
    }
    /// The bytes of the peer's (TSN, bytes) given, lowest TSN first, that are received and
    /// non-renegable here (`is_tsn_non_renegable` of each, in one pass).
    pub fn non_renegable_bytes(&self, sorted: impl Iterator<Item = (u32, u32)>) -> u64 {
        self.rx.non_renegable_bytes(sorted)
    }
    /// Receiver-side ground truth for spurious retransmissions: has the peer's `tsn`
    /// arrived here (and not been reneged)?
    pub fn has_received_tsn(&self, tsn: u32) -> bool {
        self.rx.has_received(tsn)
    }
    /// Receiver's cumulative TSN ack point.
    pub fn receiver_cum_tsn(&self) -> Option<u32> {
        self.rx.cum_tsn()
    }

    fn emit(&mut self, e: Event) {
        self.events.push_back(e);
    }

    fn path_of(&self, addr: Ipv4Addr) -> Option<usize> {
        self.paths.iter().position(|p| p.remote() == addr)
    }

    /// Free room returned to the send buffer: end a blocked period if the refused message
    /// now fits.
    fn check_unblocked(&mut self, now: Time) {
        if self.tx.unblock_if_fits(self.cfg.send_buffer) {
            if let Some(since) = self.stats.blocked_since.take() {
                self.stats.send_blocked_time += now.saturating_since(since);
            }
            self.emit(Event::SendBufferSpace);
        }
        self.account_blocking(now);
    }

    /// Track seed 000's send-buffer blocking: refused application, no unsent data.
    fn account_blocking(&mut self, now: Time) {
        let blocked = self.tx.blocked_need().is_some() && self.tx.queue().is_empty();
        crate::stats::track_period(
            blocked,
            now,
            &mut self.stats.rtxq_blocked_since,
            &mut self.stats.rtxq_blocked_time,
        );
    }
}
