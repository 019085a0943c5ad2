//! Packet assembly (RFC 9260 §6.1, §6.10): control chunks first, then one DATA packet per call
//! — fast retransmissions without regard to cwnd (§7.2.4 step 3), other retransmissions
//! before new data (§6.1 C), new data within cwnd, the peer's window and Max.Burst — with a
//! pending SACK bundled in front when it goes to the same destination.

use super::send_side::T3Call;
use super::timers::Timer;
use super::{Association, Outgoing, State};
use crate::cmt;
use crate::config::{MaxBurstRule, T3Rtx};
use crate::event::Transmit;
use crate::rtx_queue::{RtxEntry, TsnState};
use crate::stats::RtxCause;
use rexmit_time::Time;
use rexmit_wire::sctp::{pad4, DATA_CHUNK_HEADER_LEN, SCTP_COMMON_HEADER_LEN};
use rexmit_wire::{Chunk, Ecn, SctpPacket};

const IPV4_HEADER_LEN: usize = 20;

impl Association {
    /// Bytes of chunks a packet may hold: the PMTU less the headers.
    pub(super) fn packet_budget(&self) -> usize {
        self.cfg.pmtu as usize - IPV4_HEADER_LEN - SCTP_COMMON_HEADER_LEN
    }

    fn packet(&mut self, mut o: Outgoing) -> Transmit {
        self.stats.packets_sent += 1;
        if o.vtag == self.id.peer_tag() && self.state != State::CookieEchoed {
            self.add_ecn_chunks(&mut o);
        }
        Transmit {
            src: o.src,
            dst: o.dst,
            packet: SctpPacket {
                src_port: self.id.local_port(),
                dst_port: self.id.peer_port(),
                verification_tag: o.vtag,
                chunks: o.chunks,
            },
            ecn: Ecn::NotEct,
        }
    }

    /// Start of a transmit opportunity: Max.Burst bookkeeping (§6.1 D).
    fn open_round(&mut self, now: Time) {
        self.tx.open_round(now);
        self.rack_open_round(now);
        let mb = self.cfg.max_burst;
        let has_new = !self.tx.queue().is_empty();
        for p in &mut self.paths {
            let clamp = self.cfg.max_burst_rule == MaxBurstRule::ClampCwnd && has_new;
            p.open_burst_round(clamp.then_some(mb));
        }
    }

    /// The next packet to put on the wire, if any. Call until `None`.
    #[inline]
    pub fn poll_transmit(&mut self, now: Time) -> Option<Transmit> {
        self.begin_poll(now);
        let t = if self.nothing_to_send(now) {
            // The one effect the rest of an empty poll has (hot path: the poll after each
            // received packet usually finds nothing).
            self.account_blocking(now);
            None
        } else {
            self.next_packet(now)
        };
        self.check_invariants(Some(now));
        t
    }

    /// The first step of every poll: a poll after new input opens a transmit opportunity.
    #[inline]
    pub(super) fn begin_poll(&mut self, now: Time) {
        if !self.tx.round_open() {
            self.open_round(now);
        }
    }

    /// Whether `next_packet` would certainly send nothing and change nothing but the blocked
    /// time (`account_blocking`, which it runs last). Conservative, `false` meaning "maybe".
    /// Each clause stands for the step of `next_packet` named in its comment and answers
    /// `true` only where that step neither sends nor changes state; the new-data decision is
    /// the one `new_data_packet_to` makes (`burst_exhausted`, `chunk_fits`).
    #[inline]
    pub(super) fn nothing_to_send(&self, now: Time) -> bool {
        // A queued control packet goes first; a due SACK goes on its own.
        if !self.ctrl.is_empty() || (self.rx.sack_due() && self.state != State::Closed) {
            return false;
        }
        if !self.state.sends_data() {
            return true;
        }
        // `progress_shutdown` queues SHUTDOWN or SHUTDOWN ACK once all data is acknowledged;
        // a due tail loss probe is consumed; marked chunks' scan updates the queue's hint and
        // the fast-retransmit flags (`rtx_packet`): all left to the full path.
        if (self.state != State::Established && self.tx.drained())
            || self.probe_due()
            || self.tx.rtx_marked()
        {
            return false;
        }
        // New data (`new_data_packet`): nothing unsent, no destination, or the front chunk
        // held, without an idle decay (§7.2.1) to apply first.
        let Some(front) = self.tx.queue().front() else {
            return true;
        };
        let Some(p) = self.new_data_destination() else {
            return true;
        };
        if self.paths[p].idle_decay_due(now).is_some() {
            return false;
        }
        let len = front.chunk.payload.len() as u64;
        self.burst_exhausted(p) || !self.chunk_fits(p, false, 0, len, self.flight_size() == 0)
    }

    /// `poll_transmit` after `begin_poll`, without the fast test.
    pub(super) fn next_packet(&mut self, now: Time) -> Option<Transmit> {
        if let Some(o) = self.ctrl.pop_front() {
            return Some(self.packet(o));
        }
        if self.state.sends_data() {
            if let Some(t) = self.data_packet(now) {
                return Some(t);
            }
            self.progress_shutdown(now);
            if let Some(o) = self.ctrl.pop_front() {
                return Some(self.packet(o));
            }
        }
        if self.rx.sack_due() && self.state != State::Closed {
            let p = self.rx.sack_dest(self.paths.len());
            let chunk = self.build_sack();
            let path = self.paths.get(p)?;
            let o = Outgoing {
                src: path.local(),
                dst: path.remote(),
                vtag: self.id.peer_tag(),
                chunks: vec![chunk],
            };
            return Some(self.packet(o));
        }
        self.account_blocking(now);
        None
    }

    fn build_sack(&mut self) -> Chunk {
        let a_rwnd = self.a_rwnd();
        let dac = self.cfg.cmt.enabled && self.cfg.cmt.dac;
        let c = self.rx.build_sack(self.id.nr_sack(), dac, a_rwnd);
        self.timers.stop(Timer::DelayedSack);
        match c {
            Chunk::NrSack(_) => self.stats.nr_sacks_sent += 1,
            _ => self.stats.sacks_sent += 1,
        }
        c
    }

    /// Record one transmission of rtx-queue entry `tsn` to path `p` (T3-rtx is started by
    /// `after_data_packet` once the whole packet is built). `first`: it leads its packet.
    pub(super) fn on_data_sent(&mut self, now: Time, tsn: u32, p: usize, first: bool) {
        let path = &mut self.paths[p];
        let Some(sent) = self.tx.on_sent(now, tsn, p, || path.time_this_chunk()) else {
            return;
        };
        if let Some(q) = sent.was_timed {
            self.paths[q].timed_chunk_resent();
        }
        let (len, rtx, cause) = (sent.len, sent.rtx, sent.cause);
        let path = &mut self.paths[p];
        path.on_data_sent(now, sent.flight_len);
        self.stats.paths[p].data_chunks_sent += 1;
        if let Some(d) = sent.first_rtx {
            self.stats.recovery_time_total += d;
            self.stats.recovery_time_count += 1;
            self.stats.recovery_time_max = self.stats.recovery_time_max.max(d);
        }
        if rtx {
            self.stats.retransmissions += 1;
            self.stats.rtx_by_cause.count(cause, first);
        } else {
            self.stats.data_chunks_sent += 1;
            self.stats.data_bytes_sent += len;
        }
    }

    fn data_packet(&mut self, now: Time) -> Option<Transmit> {
        if self.paths.is_empty() {
            return None;
        }
        if self.probe_due() {
            // Seed 002 §II.C: a tail loss probe goes out whatever cwnd and Max.Burst say.
            if let Some(t) = self.probe_packet(now) {
                return Some(t);
            }
        }
        if !self.burst_allows() || self.fr_burst_spent() {
            return None;
        }
        let t = match self.tx.t3_call() {
            // FreeBSD's output call after a T3-rtx expiry: with chunks marked, one packet of
            // them at most and no new data ("Only one transmission allowed out of a timeout").
            T3Call::Open if self.tx.next_retransmission().is_some() => {
                self.tx.spend_t3_call();
                self.rtx_packet(now)
            }
            T3Call::Spent => None,
            _ => self.rtx_packet(now).or_else(|| self.new_data_packet(now)),
        };
        if t.is_some() {
            self.burst_take();
        }
        t
    }

    /// FreeBSD's fast-retransmit burst (`SctpConfig::fr_max_burst`) is used up: this transmit
    /// opportunity sends no more DATA (sctp_chunk_output returns at the limit). FreeBSD runs
    /// its output routine after each input and after each write made while the primary's
    /// flight is within its cwnd, so such writes at the instant of the input add a burst each.
    fn fr_burst_spent(&mut self) -> bool {
        let cap = self.cfg.fr_max_burst;
        if cap == 0 {
            return false;
        }
        let p = &self.paths[self.primary];
        let over_cwnd = p.flight() > p.cc().cwnd();
        self.tx.fr_burst_spent(cap, over_cwnd)
    }

    /// Whether the next retransmission packet may ignore cwnd. RFC 9260 §7.2.4 step 3: the
    /// first packet after chunks were found lost by fast retransmit (`pending`). FreeBSD
    /// (`fr_max_burst` > 0): every packet whose lowest marked chunk was marked by fast
    /// retransmit, not by a T3-rtx expiry (sctp_chunk_retransmission, `doing_fast_retransmit`);
    /// `first_cause` is that chunk's, from `next_retransmission`'s scan.
    fn rtx_ignores_cwnd(&self, pending: bool, first_cause: RtxCause) -> bool {
        if self.cfg.fr_max_burst == 0 {
            return pending;
        }
        matches!(
            first_cause,
            RtxCause::FastRetransmit | RtxCause::ThinFastRetransmit
        )
    }

    /// Where marked chunk `e` is retransmitted: the destination bound when it was marked
    /// (`cmt.rtx_dest_at_mark`), else the one chosen now.
    fn rtx_dest_of(&self, e: &RtxEntry, pending: bool) -> usize {
        e.rtx_to
            .unwrap_or_else(|| cmt::rtx_destination(&self.paths, e.path, pending, &self.cfg.cmt))
    }

    /// `cmt.rtx_dest_at_mark`: the destination of the lowest marked chunk that may go now
    /// (its destination has room in cwnd, or it ignores cwnd), with that chunk's cause;
    /// sctp_chunk_retransmission passes over chunks bound for a full destination.
    fn bound_rtx_destination(&self, pending: bool) -> Option<(usize, RtxCause)> {
        self.tx
            .rtxq()
            .iter()
            .filter(|e| e.state == TsnState::MarkedForRtx)
            .map(|e| (self.rtx_dest_of(e, pending), e.rtx_cause))
            .find(|&(p, cause)| self.rtx_ignores_cwnd(pending, cause) || self.paths[p].can_send())
    }

    /// Chunks marked for retransmission, lowest TSN first, in one packet to the retransmission
    /// destination of the lowest one (all of them go there, whatever path each last used); with
    /// `cmt.rtx_dest_at_mark` to the destination of the lowest one that may go, with the
    /// chunks bound there.
    fn rtx_packet(&mut self, now: Time) -> Option<Transmit> {
        let (first_marked, pending, first_cause) = self.tx.next_retransmission()?;
        let bound = self.rtx_dest_at_mark();
        let (p, fast) = if bound {
            let (p, cause) = self.bound_rtx_destination(pending)?;
            (p, self.rtx_ignores_cwnd(pending, cause))
        } else {
            let p = cmt::rtx_destination(&self.paths, first_marked, pending, &self.cfg.cmt);
            (p, self.rtx_ignores_cwnd(pending, first_cause))
        };
        let (mut flight, cwnd) = (self.paths[p].flight(), self.paths[p].cc().cwnd());
        let budget = self.packet_budget();
        let mut used = 0;
        let mut tsns = Vec::new();
        for e in self
            .tx
            .rtxq()
            .iter()
            .filter(|e| e.state == TsnState::MarkedForRtx)
            .filter(|e| !bound || self.rtx_dest_of(e, pending) == p)
        {
            let sz = pad4(DATA_CHUNK_HEADER_LEN + e.len as usize);
            // §7.2.4 step 3: the fast-retransmit packet ignores cwnd; others wait for it.
            if used + sz > budget || (!fast && flight >= cwnd) {
                break;
            }
            used += sz;
            flight += self.tx.rtxq().flight_len(e);
            tsns.push(e.tsn);
        }
        if pending {
            self.tx.fast_rtx_sent();
            self.stats.fast_retransmits += tsns.len() as u64;
        }
        if tsns.is_empty() {
            return None;
        }
        if fast && self.cfg.fr_max_burst > 0 {
            self.tx.count_fr_packet();
        }
        // FreeBSD fast-retransmitting the lowest TSN outstanding restarts the T3-rtx timer "to
        // get a SACK back without a t3-expiring" (sctp_chunk_retransmission).
        let restart_t3 = fast
            && self.cfg.t3_rtx == T3Rtx::Freebsd
            && self.tx.rtxq().iter().next().map(|e| e.tsn) == tsns.first().copied();
        let mut chunks = Vec::with_capacity(tsns.len());
        for (i, &t) in tsns.iter().enumerate() {
            self.on_data_sent(now, t, p, i == 0);
            chunks.extend(self.tx.rtxq().get(t).map(|e| Chunk::Data(e.chunk.clone())));
        }
        if restart_t3 {
            let at = now + self.t3_rto(p);
            self.timers.set(Timer::T3Rtx(p), at);
        }
        self.after_data_packet(now, p, &tsns);
        Some(self.data_out(p, used, chunks))
    }

    /// The DATA packet to path `p`, with a pending SACK in front when it fits.
    pub(super) fn data_out(&mut self, p: usize, mut used: usize, chunks: Vec<Chunk>) -> Transmit {
        let chunks = self.with_sack(p, &mut used, chunks);
        let path = &self.paths[p];
        let o = Outgoing {
            src: path.local(),
            dst: path.remote(),
            vtag: self.id.peer_tag(),
            chunks,
        };
        self.packet(o)
    }

    /// Put a due SACK in front of `chunks` if it goes to path `p` and fits.
    fn with_sack(&mut self, p: usize, used: &mut usize, chunks: Vec<Chunk>) -> Vec<Chunk> {
        if self.rx.sack_pending_for(p) {
            let s = self.build_sack();
            if *used + pad4(s.length()) <= self.packet_budget() {
                *used += pad4(s.length());
                let mut v = vec![s];
                v.extend(chunks);
                return v;
            }
            // Does not fit: send it on its own next time.
            self.rx.request_sack();
            let o = Outgoing {
                src: self.paths[p].local(),
                dst: self.paths[p].remote(),
                vtag: self.id.peer_tag(),
                chunks: vec![s],
            };
            self.ctrl.push_back(o);
        }
        chunks
    }

    fn new_data_packet(&mut self, now: Time) -> Option<Transmit> {
        if self.tx.queue().is_empty() {
            return None;
        }
        let p = self.new_data_destination()?;
        self.new_data_packet_to(now, p, false)
    }

    /// Where new data goes next (plain SCTP: the primary or the first usable path; CMT: round
    /// robin over the paths with room in cwnd).
    pub(super) fn new_data_destination(&self) -> Option<usize> {
        cmt::new_data_destination(&self.paths, self.primary, &self.cfg.cmt, self.tx.cmt_next())
    }

    /// RFC 9260 §6.1 D under `MaxBurstRule::LimitPackets`: path `p` sent Max.Burst new-data
    /// packets in this transmit opportunity.
    pub(super) fn burst_exhausted(&self, p: usize) -> bool {
        self.cfg.max_burst_rule == MaxBurstRule::LimitPackets
            && self.cfg.max_burst > 0
            && self.paths[p].burst_exhausted(self.cfg.max_burst)
    }

    /// Whether a new chunk of `len` user-data bytes may join a packet to path `p` holding
    /// `used` bytes of chunks: it fits the packet, cwnd allows (unless a tail loss `probe`),
    /// and so does the peer's window (§6.1 A), except for one chunk alone (`lone`) when
    /// nothing is in flight.
    #[inline]
    fn chunk_fits(&self, p: usize, probe: bool, used: usize, len: u64, lone: bool) -> bool {
        let sz = pad4(DATA_CHUNK_HEADER_LEN + len as usize);
        used + sz <= self.packet_budget()
            && (probe || self.paths[p].can_send())
            && (len <= self.tx.peer_rwnd() || lone)
    }

    /// One packet of new data to path `p`; a tail loss `probe` ignores cwnd and Max.Burst
    /// (RFC 8985 §7.3).
    pub(super) fn new_data_packet_to(
        &mut self,
        now: Time,
        p: usize,
        probe: bool,
    ) -> Option<Transmit> {
        self.paths[p].restart_after_idle(now);
        if !probe && self.burst_exhausted(p) {
            return None;
        }
        let budget = self.packet_budget();
        let mut used = 0;
        let mut chunks = Vec::new();
        let mut tsns: smallvec::SmallVec<[u32; 8]> = smallvec::SmallVec::new();
        let total_flight_zero = self.flight_size() == 0;
        while let Some(front) = self.tx.queue().front() {
            let len = front.chunk.payload.len() as u64;
            let sz = pad4(DATA_CHUNK_HEADER_LEN + len as usize);
            if !self.chunk_fits(p, probe, used, len, total_flight_zero && chunks.is_empty()) {
                break;
            }
            let (tsn, chunk) = self.tx.take_new_chunk(now, p);
            self.on_data_sent(now, tsn, p, chunks.is_empty());
            if chunks.capacity() == 0 {
                // As many chunks of this size as the packet holds, but no more than are
                // queued: one allocation per packet, and a small one for a thin stream's lone
                // chunk (12 chunks of 88 bytes for 100-byte messages took the allocator's
                // slow path for blocks above 1 KiB on every packet, issue 40).
                chunks.reserve_exact(((budget - used) / sz).min(self.tx.queue().len() + 1));
            }
            used += sz;
            tsns.push(tsn);
            chunks.push(Chunk::Data(chunk));
        }
        if chunks.is_empty() {
            return None;
        }
        self.after_data_packet(now, p, &tsns);
        self.paths[p].count_burst_packet();
        self.rack_arm_pto(now);
        if self.cfg.cmt.enabled {
            self.tx.rotate_destination(p, self.paths.len());
        }
        let mut t = self.data_out(p, used, chunks);
        if self.ecn.negotiated() {
            // RFC 9260 Appendix A, RFC 3168 §6.1.5: new data is ECN-capable, retransmissions
            // are not.
            t.ecn = Ecn::Ect0;
        }
        Some(t)
    }
}
