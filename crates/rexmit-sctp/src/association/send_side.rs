//! The data sender's state (RFC 9260 §6): the send buffer — unsent message fragments
//! (`SendQueue`) and the retransmission queue (`RtxQueue`) — with TSN numbering, the
//! cumulative ack point, the peer's window, plain-SCTP fast recovery, send-buffer blocking,
//! the transmit opportunity and seed 004's packet tracking. The state is one part,
//! `SendSide`, whose methods are all that may change it; the association decides when (the
//! SACK stages in `sack.rs`, the loss responses in `sender.rs`, packet assembly in
//! `transmit.rs`, the RACK and thin-stream glue) and keeps what is per destination (flight
//! sizes, congestion control, CMT's recovery points), the timers and the statistics.

use crate::rtx_queue::{RtxEntry, RtxQueue, TsnState};
use crate::send_queue::SendQueue;
use crate::stats::RtxCause;
use crate::thin::PacketTracker;
use crate::tsn::tsn_ge;
use rexmit_time::{Duration, Time};
use rexmit_wire::{DataChunk, Payload};
use smallvec::SmallVec;

/// FreeBSD's output call after a T3-rtx expiry (sctp_chunk_output from `SCTP_OUTPUT_FROM_T3`,
/// "Only one transmission allowed out of a timeout"): while chunks are marked for
/// retransmission it sends at most one packet of them and no new data, even when none can go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum T3Call {
    /// Not an expiry's call.
    No,
    /// An expiry's call that has sent nothing yet.
    Open,
    /// An expiry's call that has had its one chance.
    Spent,
}

/// The data sender: unsent fragments (`queue`) and sent ones until cumulatively acked
/// (`rtxq`), the TSN counters, what the peer acknowledged and advertised, fast recovery,
/// blocking of the application, the transmit opportunity and the DATA packets in flight.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct SendSide {
    queue: SendQueue,
    rtxq: RtxQueue,
    /// The TSN of our first DATA chunk (the initial TSN of our INIT / INIT ACK).
    initial_tsn: u32,
    next_tsn: u32,
    /// `next_tsn` unwrapped to 64 bits (first-transmission order of chunks, for RACK).
    next_seq: u64,
    /// Cumulative TSN ack point: highest TSN the peer acknowledged cumulatively.
    cum_point: u32,
    /// Peer's receive window as last computed (RFC 9260 §6.2.1).
    peer_rwnd: u64,
    /// The peer's whole receive buffer (a_rwnd of its INIT / INIT ACK): without a partial
    /// delivery API a larger message could never be reassembled there.
    peer_buffer: Option<u64>,
    /// Some rtx-queue entry may be marked for retransmission (a hint that spares scans).
    rtx_marked: bool,
    /// Most TSNs any SACK has reported received (cum-acked plus gap-acked).
    max_acked_count: u64,
    /// Plain-SCTP fast recovery exit point (RFC 9260 §7.2.4); CMT keeps one per path.
    fast_recovery: Option<u32>,
    /// Bytes the refused `send` needed; `Some` while the application is blocked.
    blocked_need: Option<u64>,
    /// A transmit opportunity has begun (reset by every input).
    round_open: bool,
    /// When the current transmit opportunity began.
    round_at: Time,
    /// Packets led by a fast-retransmitted chunk in this opportunity (`SctpConfig::fr_max_burst`),
    /// and the FreeBSD output calls whose bursts it may use (the first is the input's).
    fr_packets: u32,
    fr_calls: u32,
    /// FreeBSD runs its output routine once per input and once per write (sctp_lower_sosend):
    /// the instant of the last input or write, and the writes at that instant after it whose
    /// output call is not counted yet.
    output_call_at: Time,
    pending_writes: u32,
    /// `t3_rtx = "freebsd"`: this opportunity is a T3-rtx expiry's output call, and whether it
    /// sent its one packet (`T3Call`).
    t3_call: T3Call,
    /// CMT: the destination the next new data tries first (round robin).
    cmt_next: usize,
    /// DATA packets in flight and the packet loss estimate (seed 004 §5.1), kept only while
    /// a thin-stream option or RFC 5827 early retransmit is on.
    packets: PacketTracker,
}

/// FreeBSD refuses a write while this many chunks are queued or not yet cumulatively
/// acknowledged (sysctl `sctp_max_chunks_on_queue`, 512 as shipped).
const FREEBSD_MAX_CHUNKS_ON_QUEUE: usize = 512;

/// One transmission `SendSide::on_sent` recorded.
pub(super) struct Sent {
    /// User-data bytes of the chunk.
    pub len: u64,
    /// What it adds to its path's flightsize (`SctpConfig::cwnd_bytes`).
    pub flight_len: u64,
    /// The chunk was sent before.
    pub rtx: bool,
    /// Why it was last marked for retransmission.
    pub cause: RtxCause,
    /// Its first retransmission: the time since its first transmission.
    pub first_rtx: Option<Duration>,
    /// It was the timed chunk of this path (index) until this retransmission.
    pub was_timed: Option<usize>,
}

/// What `SendSide::ack_blocks` did.
pub(super) struct BlocksAcked {
    /// Overtaken by a newer SACK (it reports fewer TSNs received than one before it).
    pub stale: bool,
    /// Chunks it showed reneged and marked for retransmission.
    pub reneged: u64,
}

impl SendSide {
    /// `flight_overhead`: what a chunk counts in flightsize beyond its payload
    /// (`SctpConfig::chunk_flight_overhead`).
    pub(super) fn new(streams: u16, initial_tsn: u32, flight_overhead: u32) -> Self {
        SendSide {
            queue: SendQueue::new(streams),
            rtxq: RtxQueue::with_flight_overhead(flight_overhead),
            initial_tsn,
            next_tsn: initial_tsn,
            next_seq: initial_tsn as u64,
            cum_point: initial_tsn.wrapping_sub(1),
            peer_rwnd: 0,
            peer_buffer: None,
            rtx_marked: false,
            max_acked_count: 0,
            fast_recovery: None,
            blocked_need: None,
            round_open: false,
            round_at: Time::ZERO,
            fr_packets: 0,
            fr_calls: 1,
            output_call_at: Time::ZERO,
            pending_writes: 0,
            t3_call: T3Call::No,
            cmt_next: 0,
            packets: PacketTracker::default(),
        }
    }

    // --- reading ---

    /// Unsent fragments.
    pub(super) fn queue(&self) -> &SendQueue {
        &self.queue
    }
    /// Sent chunks not yet cumulatively acknowledged.
    pub(super) fn rtxq(&self) -> &RtxQueue {
        &self.rtxq
    }
    /// User-data bytes in the send buffer: unsent data plus the retransmission queue.
    pub(super) fn buffered(&self) -> u64 {
        self.queue.bytes() + self.rtxq.bytes()
    }
    /// Nothing waits to be sent or acknowledged (§9.2: SHUTDOWN may go).
    pub(super) fn drained(&self) -> bool {
        self.queue.is_empty() && self.rtxq.is_empty()
    }
    pub(super) fn initial_tsn(&self) -> u32 {
        self.initial_tsn
    }
    /// The TSN the next new chunk gets.
    pub(super) fn next_tsn(&self) -> u32 {
        self.next_tsn
    }
    /// The first-transmission order number the next new chunk gets (RACK).
    pub(super) fn next_seq(&self) -> u64 {
        self.next_seq
    }
    pub(super) fn cum_point(&self) -> u32 {
        self.cum_point
    }
    pub(super) fn peer_rwnd(&self) -> u64 {
        self.peer_rwnd
    }
    pub(super) fn peer_buffer(&self) -> Option<u64> {
        self.peer_buffer
    }
    /// The exit point of plain-SCTP fast recovery, while in it.
    pub(super) fn fast_recovery(&self) -> Option<u32> {
        self.fast_recovery
    }
    /// Bytes the refused `send` needed, while the application is blocked.
    pub(super) fn blocked_need(&self) -> Option<u64> {
        self.blocked_need
    }
    pub(super) fn round_open(&self) -> bool {
        self.round_open
    }
    pub(super) fn round_at(&self) -> Time {
        self.round_at
    }
    pub(super) fn cmt_next(&self) -> usize {
        self.cmt_next
    }
    pub(super) fn packets(&self) -> &PacketTracker {
        &self.packets
    }
    /// Some chunk may be marked for retransmission (a hint: false means none is).
    pub(super) fn rtx_marked(&self) -> bool {
        self.rtx_marked
    }
    pub(super) fn is_in_flight(&self, tsn: u32) -> bool {
        matches!(self.rtxq.get(tsn), Some(e) if e.state == TsnState::InFlight)
    }

    // --- the application and the peer's limits ---

    /// The association is set up: the peer's window and buffer are its INIT's a_rwnd, and
    /// `streams` outbound streams may be used.
    pub(super) fn start(&mut self, peer_a_rwnd: u32, streams: u16) {
        self.peer_rwnd = peer_a_rwnd as u64;
        self.peer_buffer = Some(peer_a_rwnd as u64);
        self.queue.set_streams(streams);
    }

    /// Queue a message (already checked against the limits); returns its message number.
    pub(super) fn push_message(
        &mut self,
        stream: u16,
        msg: &Payload,
        unordered: bool,
        max_fragment: u32,
    ) -> u64 {
        self.queue.push(stream, msg, unordered, max_fragment)
    }

    /// A `send` of `need` bytes was refused. Returns whether the application was not blocked
    /// before.
    pub(super) fn block(&mut self, need: u64) -> bool {
        let newly = self.blocked_need.is_none();
        self.blocked_need = Some(need);
        newly
    }

    /// The refused message fits in a buffer of `limit` bytes now: the application is no
    /// longer blocked. Returns whether that ended a blocked period.
    pub(super) fn unblock_if_fits(&mut self, limit: u64) -> bool {
        match self.blocked_need {
            Some(need) if self.buffered() + need <= limit => {
                self.blocked_need = None;
                true
            }
            _ => false,
        }
    }

    /// The association ended: nothing waits for room any more.
    pub(super) fn cancel_block(&mut self) {
        self.blocked_need = None;
    }

    /// The peer's window after a SACK (§6.2.1 D iii), computed by the caller.
    pub(super) fn set_peer_rwnd(&mut self, rwnd: u64) {
        self.peer_rwnd = rwnd;
    }

    // --- transmission ---

    /// A transmit opportunity begins now (§6.1 D).
    pub(super) fn open_round(&mut self, now: Time) {
        self.round_open = true;
        self.round_at = now;
        self.fr_packets = 0;
        self.fr_calls = 1;
    }

    /// Whether this opportunity's fast-retransmit packets used up the bursts of the output
    /// calls FreeBSD would have made, `cap` packets each: the input's call, then one per write
    /// at its instant, taken in turn as each burst runs out; a write made while the flight
    /// exceeds cwnd (`over_cwnd`) calls no output ("cwnd avoid", sctp_lower_sosend).
    pub(super) fn fr_burst_spent(&mut self, cap: u32, over_cwnd: bool) -> bool {
        while self.fr_packets >= cap.saturating_mul(self.fr_calls) {
            if self.pending_writes == 0 {
                return true;
            }
            self.pending_writes -= 1;
            self.fr_calls += u32::from(!over_cwnd);
        }
        false
    }

    /// Input arrived, or the application wrote, at `now`; `write`: it was a write, which
    /// FreeBSD follows with an output call of its own (sctp_lower_sosend) unless it refused
    /// the write: it holds at most `FREEBSD_MAX_CHUNKS_ON_QUEUE` chunks not yet cumulatively
    /// acknowledged (`sctp_max_chunks_on_queue`).
    pub(super) fn note_output_call(&mut self, now: Time, write: bool) {
        if write && now == self.output_call_at {
            self.pending_writes += u32::from(self.rtxq.len() < FREEBSD_MAX_CHUNKS_ON_QUEUE);
        } else {
            self.output_call_at = now;
            self.pending_writes = 0;
        }
    }

    /// One more packet led by a fast-retransmitted chunk went in this opportunity.
    pub(super) fn count_fr_packet(&mut self) {
        self.fr_packets += 1;
    }

    /// Input arrived: the next `poll_transmit` begins a new transmit opportunity.
    pub(super) fn end_round(&mut self) {
        self.round_open = false;
        self.t3_call = T3Call::No;
    }

    /// A FreeBSD T3-rtx expiry: the opportunity it opens is its output call (`T3Call`).
    pub(super) fn begin_t3_call(&mut self) {
        self.t3_call = T3Call::Open;
    }

    /// A write is an output call of FreeBSD's own (sctp_lower_sosend): what follows it at this
    /// instant is no longer the expiry's call.
    pub(super) fn end_t3_call(&mut self) {
        self.t3_call = T3Call::No;
    }

    pub(super) fn t3_call(&self) -> T3Call {
        self.t3_call
    }

    /// The expiry's call sent its packet (or found none to send).
    pub(super) fn spend_t3_call(&mut self) {
        self.t3_call = T3Call::Spent;
    }

    /// The front fragment's first transmission to path `p`: it gets the next TSN and enters
    /// the retransmission queue (not yet counted as sent: `on_sent` follows). Returns its TSN
    /// and the chunk; the caller checked that the queue is not empty.
    pub(super) fn take_new_chunk(&mut self, now: Time, p: usize) -> (u32, DataChunk) {
        let mut pc = self.queue.pop().expect("caller checked");
        let len = pc.chunk.payload.len() as u32;
        let tsn = self.next_tsn;
        self.next_tsn = tsn.wrapping_add(1);
        let seq = self.next_seq;
        self.next_seq += 1;
        pc.chunk.tsn = tsn;
        self.rtxq.push(RtxEntry {
            tsn,
            seq,
            chunk: pc.chunk.clone(),
            len,
            state: TsnState::InFlight,
            path: p,
            sent_at: now,
            tx_count: 0,
            miss_indications: 0,
            fast_retransmitted: false,
            fast_rtx_next_tsn: 0,
            fast_rtx_pending: false,
            rtx_to: None,
            no_fast_rtx: false,
            msg_id: pc.msg_id,
            rtx_cause: RtxCause::Timeout,
            timed: false,
        });
        (tsn, pc.chunk)
    }

    /// Record one transmission of `tsn` to path `p`: it is in flight there and uses the peer's
    /// window. The caller adds it to the path's flight size.
    /// `time_it` decides whether a first transmission measures the RTT of path `p`
    /// (RFC 9260 §6.3.1 C4).
    pub(super) fn on_sent(
        &mut self,
        now: Time,
        tsn: u32,
        p: usize,
        time_it: impl FnOnce() -> bool,
    ) -> Option<Sent> {
        let oh = self.rtxq.flight_overhead();
        let (e, first_rtx, was_timed) = self.rtxq.on_sent(tsn, p, now)?;
        if e.tx_count == 1 {
            e.timed = time_it();
        }
        let (len, flight_len) = (e.len as u64, e.flight_len(oh));
        let (rtx, cause) = (e.tx_count > 1, e.rtx_cause);
        // §6.2.1 B: the peer's window is debited as flightsize counts (`cwnd_bytes`).
        self.peer_rwnd = self.peer_rwnd.saturating_sub(flight_len);
        Some(Sent {
            len,
            flight_len,
            rtx,
            cause,
            first_rtx,
            was_timed,
        })
    }

    /// A DATA packet with `tsns` went out (seed 004 §5.1 tracking).
    pub(super) fn packet_sent(&mut self, tsns: &[u32]) {
        self.packets.on_packet_sent(tsns);
    }

    /// CMT: new data went to path `p`; the next tries the one after it of `paths`.
    pub(super) fn rotate_destination(&mut self, p: usize, paths: usize) {
        self.cmt_next = (p + 1) % paths;
    }

    /// Where the next retransmission packet goes: the path of the lowest chunk marked for
    /// retransmission, and whether a fast retransmission waits (§7.2.4 step 3). None when
    /// nothing is marked.
    pub(super) fn next_retransmission(&mut self) -> Option<(usize, bool, RtxCause)> {
        if !self.rtx_marked {
            return None;
        }
        let (mut fast, mut first_marked) = (false, None);
        for e in self
            .rtxq
            .iter()
            .filter(|e| e.state == TsnState::MarkedForRtx)
        {
            first_marked.get_or_insert((e.path, e.rtx_cause));
            fast |= e.fast_rtx_pending;
        }
        self.rtx_marked = first_marked.is_some();
        first_marked.map(|(p, cause)| (p, fast, cause))
    }

    /// The fast-retransmit packet is built: nothing waits for it any more.
    pub(super) fn fast_rtx_sent(&mut self) {
        self.rtxq.clear_fast_rtx_pending();
    }

    /// A tail loss probe resends the most recently sent chunk in flight (RFC 8985 §7.3):
    /// returns its TSN, path and what it counts in flightsize; the caller takes that out of the path's flight size
    /// before sending it again.
    pub(super) fn take_probe_chunk(&mut self) -> Option<(u32, usize, u64)> {
        let (tsn, p, len) = self
            .rtxq
            .iter()
            .filter(|e| e.state == TsnState::InFlight)
            .max_by_key(|e| (e.sent_at, e.seq))
            .map(|e| (e.tsn, e.path, self.rtxq.flight_len(e)))?;
        self.rtxq.mark_probe(tsn)?;
        Some((tsn, p, len))
    }

    // --- loss ---

    /// Mark `tsn` lost for fast retransmission with `cause` (§7.2.4). Returns its path and
    /// the bytes that leave that path's flight.
    pub(super) fn mark_fast_rtx(&mut self, tsn: u32, cause: RtxCause) -> Option<(usize, u64)> {
        let marked = self.rtxq.mark_fast_rtx(tsn, cause, self.next_tsn())?;
        self.rtx_marked = true;
        Some(marked)
    }

    /// `cmt.rtx_dest_at_mark`: marked chunk `tsn` goes to path `to`.
    pub(super) fn bind_rtx_dest(&mut self, tsn: u32, to: usize) {
        self.rtxq.bind_rtx_dest(tsn, to);
    }

    /// `cmt.rtx_dest_at_mark`: the marked chunks bound for path `p` go to `to` instead.
    pub(super) fn rebind_marked(&mut self, p: usize, to: usize) {
        self.rtxq.rebind_marked(p, to);
    }

    /// T3-rtx expired on path `p` (§6.3.3 E3): everything in flight there is marked for
    /// retransmission; the caller empties the path's flight size. Returns the chunks marked.
    /// `no_fast_rtx`: they may not be fast retransmitted again (`cmt.no_fr_after_t3`).
    pub(super) fn mark_timed_out(&mut self, p: usize, no_fast_rtx: bool) -> u64 {
        let marked = self.rtxq.mark_timed_out(p, no_fast_rtx);
        if marked > 0 {
            self.rtx_marked = true;
        }
        marked
    }

    /// FreeBSD's T3-rtx expiry on path `p`: only chunks sent at or before `sent_by` are
    /// marked. Returns how many and the bytes that leave the path's flight, `None` if none was.
    pub(super) fn mark_timed_out_sent_by(
        &mut self,
        p: usize,
        sent_by: Time,
        no_fast_rtx: bool,
    ) -> Option<crate::rtx_queue::TimedOut> {
        let left = self.rtxq.mark_timed_out_sent_by(p, sent_by, no_fast_rtx);
        if left.is_some() {
            self.rtx_marked = true;
        }
        left
    }

    /// The receiver dropped `tsns` after acknowledging them (§6.2.1 D iv): send them again.
    /// Returns how many were still queued.
    pub(super) fn mark_reneged(&mut self, tsns: &[u32]) -> u64 {
        let mut n = 0;
        for &t in tsns {
            if self.rtxq.mark_reneged(t) {
                n += 1;
                self.rtx_marked = true;
            }
        }
        n
    }

    /// The TSNs gap-acked but not yet cumulatively acked (renegable).
    pub(super) fn gap_acked(&self) -> Vec<u32> {
        self.rtxq
            .iter()
            .filter(|e| e.state == TsnState::GapAcked)
            .map(|e| e.tsn)
            .collect()
    }

    /// FreeBSD EFR expiry on path `p` (seed 004 §2): every chunk in flight there, not resent
    /// early or fast before, that was sent `wait` or more before `now` is marked. Returns the
    /// bytes that leave the path's flight, `None` if none was marked.
    pub(super) fn mark_early(&mut self, p: usize, wait: Duration, now: Time) -> Option<u64> {
        let left = self.rtxq.mark_early(p, wait, now);
        if left.is_some() {
            self.rtx_marked = true;
        }
        left
    }

    /// Miss indications (§7.2.4) for the chunks in flight below `limit`: `weight` says how
    /// many one chunk gets (`None`: not counted), `lost` whether its new total makes it lost
    /// and why. Returns the chunks found lost, not yet fast retransmitted (unless `again`),
    /// lowest first.
    pub(super) fn count_misses(
        &mut self,
        limit: u32,
        again: bool,
        weight: impl FnMut(&RtxEntry) -> Option<u32>,
        lost: impl FnMut(u32) -> Option<RtxCause>,
    ) -> SmallVec<[(u32, RtxCause); 4]> {
        self.rtxq.count_misses(limit, again, weight, lost)
    }

    /// Fast recovery begins, to end once `exit` is cumulatively acked (§7.2.4).
    pub(super) fn enter_fast_recovery(&mut self, exit: u32) {
        self.fast_recovery = Some(exit);
    }

    /// A T3-rtx expiry ends fast recovery whatever the cumulative ack (see
    /// `Association::on_t3_expiry`).
    pub(super) fn cancel_fast_recovery(&mut self) {
        self.fast_recovery = None;
    }

    /// The cumulative ack reached `cum`: returns whether that ended fast recovery.
    pub(super) fn end_fast_recovery(&mut self, cum: u32) -> bool {
        match self.fast_recovery {
            Some(exit) if tsn_ge(cum, exit) => {
                self.fast_recovery = None;
                true
            }
            _ => false,
        }
    }

    // --- acknowledgements ---

    /// Chunks up to `cum` leave the queue (§6.2.1 D ii); `newly` sees each one in flight or
    /// marked for retransmission, that is, acknowledged for the first time, lowest first.
    pub(super) fn ack_cumulative(&mut self, cum: u32, mut newly: impl FnMut(&RtxEntry)) {
        self.rtxq.cum_ack(cum, |e| {
            if matches!(e.state, TsnState::InFlight | TsnState::MarkedForRtx) {
                newly(&e);
            }
        });
        self.cum_point = cum;
    }

    /// Gap and nr-gap blocks above `cum` (§6.2.1 D iv; NR-SACK draft §5.1): `covers` says
    /// whether a TSN is in a gap block and in an nr-gap block (asked once per queued chunk,
    /// lowest first); `newly` sees each chunk acknowledged for the first time, before its
    /// state changes. Gap-acked chunks stay (renegable), nr-acked ones are freed, and chunks
    /// acked before but missing now are marked reneged unless the SACK is stale.
    pub(super) fn ack_blocks(
        &mut self,
        cum: u32,
        blocks: bool,
        covers: impl FnMut(u32) -> (bool, bool),
        newly: impl FnMut(&RtxEntry),
    ) -> BlocksAcked {
        // TSNs this SACK reports received: never fewer in a newer SACK unless the receiver
        // reneged, so a smaller count marks a SACK overtaken by a newer one (SACKs on
        // different paths arrive out of order) whose gaps must not be read as reneging.
        let scan = self.rtxq.scan_gap_blocks(blocks, covers, newly);
        let acked_count = cum.wrapping_sub(self.initial_tsn.wrapping_sub(1)) as u64 + scan.covered;
        let stale = acked_count < self.max_acked_count;
        self.max_acked_count = self.max_acked_count.max(acked_count);
        let reneged = if stale {
            0
        } else {
            // Reneged (§6.2.1 D iv): acked before, missing from a current SACK; send again.
            self.mark_reneged(&scan.missing)
        };
        for t in scan.to_free {
            self.rtxq.free(t);
        }
        BlocksAcked { stale, reneged }
    }

    /// Seed 004 §5.1 on a SACK: a packet leaves the flight when the SACK acks its highest TSN
    /// (and the outstanding list on the cumulative ack); one whose highest TSN sits in a gap
    /// collects a miss towards the loss estimate.
    pub(super) fn track_packets(&mut self, cum: u32, highest_reported: Option<u32>) {
        let rtxq = &self.rtxq;
        self.packets.on_sack(cum, highest_reported, |t| {
            rtxq.get(t)
                .is_some_and(|e| matches!(e.state, TsnState::GapAcked | TsnState::NrAcked))
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fast-retransmit packets one opportunity may send under `SctpConfig::fr_max_burst = cap`.
    fn fr_budget(tx: &mut SendSide, cap: u32, over_cwnd: bool) -> u32 {
        let mut sent = 0;
        while !tx.fr_burst_spent(cap, over_cwnd) {
            tx.count_fr_packet();
            sent += 1;
        }
        sent
    }

    /// FreeBSD's output calls: the input's, then one per write at its instant unless the flight
    /// exceeds cwnd ("cwnd avoid", sctp_lower_sosend); a write at a later instant is a call of
    /// its own, not an extra one.
    #[test]
    fn each_write_at_the_input_instant_adds_a_fast_retransmit_burst() {
        let mut tx = SendSide::new(1, 1, 0);
        let t = Time::from_millis(5);
        tx.note_output_call(t, false);
        tx.note_output_call(t, true);
        tx.note_output_call(t, true);
        tx.open_round(t);
        assert_eq!(fr_budget(&mut tx, 4, false), 12);

        tx.note_output_call(t, false);
        tx.note_output_call(t, true);
        tx.open_round(t);
        assert_eq!(fr_budget(&mut tx, 4, true), 4, "flight above cwnd");

        let later = Time::from_millis(6);
        tx.note_output_call(later, true);
        tx.open_round(later);
        assert_eq!(fr_budget(&mut tx, 4, false), 4);
    }
}
