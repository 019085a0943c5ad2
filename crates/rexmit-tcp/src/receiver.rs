//! The receiving half of a connection: rcv_nxt, the receive buffer and its advertised window,
//! the out-of-order queue, SACK/D-SACK block selection and the delayed-ACK decision.
//!
//! Owns what goes into the ACK fields of outgoing segments. Does not own connection state
//! (SYN/FIN handshakes, RST) nor the wire encoding of the options.

use crate::payload_util::slice;
use crate::rcv_autotune::Autotune;
use crate::reassembly::Reassembly;
use crate::timers::{Timer, TimerTable};
use rexmit_time::{Duration, Time};
use rexmit_wire::payload::PayloadJoiner;
use rexmit_wire::{Payload, MAX_SACK_BLOCKS};
use std::collections::VecDeque;

/// Receiver knobs copied from `TcpConfig` (`repr(C)`: the limit, which every window offered
/// reads, first).
#[derive(Clone, Debug)]
#[repr(C)]
pub struct ReceiverConfig {
    pub limit: u64,
    pub ack_every: u32,
    pub delayed_ack_timeout: Duration,
    pub immediate_ack_on_ooo: bool,
    pub dsack: bool,
    /// Linux's window growth and quick ACKs (`ReceiveWindow::LinuxAutotune`): our MSS.
    pub autotune_mss: Option<u64>,
}

/// SACK blocks as stream offsets `[left, right)`, at most as many as a header carries.
pub type OffsetBlocks = arrayvec::ArrayVec<(u64, u64), MAX_SACK_BLOCKS>;

/// What one arriving data segment did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DataOutcome {
    /// New in-order bytes made readable.
    pub delivered: u64,
    /// The peer's FIN became in-order (rcv_nxt now covers it).
    pub fin: bool,
}

#[derive(Clone, Debug)]
// Declaration order (`repr(C)`): the window every segment we send offers (unread bytes,
// autotuning, the limit) first, together, then what a data segment reads (issue 40 step 6).
#[repr(C)]
pub struct Receiver {
    readable_bytes: u64,
    autotune: Option<Box<Autotune>>,
    cfg: ReceiverConfig,
    /// Next stream offset expected (RFC 9293 RCV.NXT).
    pub rcv_nxt: u64,
    /// Right edge of the window last advertised (never moved left, RFC 9293 §3.8.6).
    rcv_adv: u64,
    /// Data bytes received since the last ACK we sent.
    unacked_bytes: u64,
    /// Largest segment payload seen: what "full-sized" means for delayed ACKs.
    rcv_mss: u64,
    ooo_max: u64,
    ack_now: bool,
    /// Offset of the peer's FIN, once seen.
    fin_at: Option<u64>,
    /// Pending D-SACK block for the next ACK (RFC 2883 §4).
    dsack: Option<(u64, u64)>,
    readable: VecDeque<Payload>,
    ooo: Reassembly,
    /// Offsets identifying reported SACK blocks, most recently changed first (RFC 2018 §4).
    sack_recent: Vec<u64>,
}

impl Receiver {
    pub fn new(cfg: ReceiverConfig, rcv_nxt: u64) -> Self {
        let autotune = cfg
            .autotune_mss
            .map(|mss| Box::new(Autotune::new(cfg.limit, mss)));
        let rcv_adv = rcv_nxt + autotune.as_ref().map_or(cfg.limit, |a| a.window(0));
        Receiver {
            cfg,
            rcv_nxt,
            readable: VecDeque::new(),
            readable_bytes: 0,
            ooo: Reassembly::default(),
            ooo_max: 0,
            sack_recent: Vec::new(),
            dsack: None,
            fin_at: None,
            rcv_adv,
            unacked_bytes: 0,
            rcv_mss: 0,
            ack_now: false,
            autotune,
        }
    }

    /// Bytes of window we can offer: buffer limit minus unread in-order data. Out-of-order data
    /// lies inside this window, so the buffer never holds more than `limit`.
    pub fn window(&self) -> u64 {
        let free = self.cfg.limit.saturating_sub(self.readable_bytes);
        match &self.autotune {
            None => free,
            Some(a) => a.window(self.readable_bytes).min(free),
        }
    }

    /// Highest offset we accept data for (exclusive).
    fn accept_limit(&self) -> u64 {
        self.rcv_adv.max(self.rcv_nxt + self.window())
    }

    pub fn ooo_bytes(&self) -> u64 {
        self.ooo.bytes()
    }
    pub fn ooo_bytes_max(&self) -> u64 {
        self.ooo_max
    }
    pub fn readable_bytes(&self) -> u64 {
        self.readable_bytes
    }

    /// RFC 9293 §3.10.7.4 acceptability test for a segment occupying `[start, start + len)`.
    pub fn acceptable(&self, start: u64, len: u64) -> bool {
        let limit = self.accept_limit();
        if len == 0 {
            return start >= self.rcv_nxt && start <= limit;
        }
        start < limit && start + len > self.rcv_nxt
    }

    /// A data segment `[start, start + payload.len())`, possibly with FIN after its last byte.
    /// `tsecr_rtt`: now minus the segment's timestamp echo (Linux's receiver RTT sample).
    pub fn on_data(
        &mut self,
        now: Time,
        start: u64,
        payload: &Payload,
        fin: bool,
        tsecr_rtt: Option<Duration>,
        t: &mut TimerTable,
    ) -> DataOutcome {
        let len = payload.len() as u64;
        let end = start + len;
        if fin && self.fin_at.is_none() && end <= self.accept_limit() {
            self.fin_at = Some(end);
        }
        let had_ooo = !self.ooo.is_empty();
        let mut out = DataOutcome::default();
        // RFC 2883 §4 (1): part of the segment below rcv_nxt is a duplicate.
        if len > 0 && start < self.rcv_nxt {
            self.note_dsack((start, end.min(self.rcv_nxt)));
            self.ack_now = true;
        }
        let from = start.max(self.rcv_nxt);
        let to = end.min(self.accept_limit());
        if from < to {
            let piece = slice(payload, (from - start) as usize, (to - from) as usize);
            let in_order = from == self.rcv_nxt;
            if in_order && !had_ooo {
                // Nothing held above: straight to the application.
                out.delivered += self.deliver(piece);
            } else if let Some(d) = self.ooo.insert(from, &piece) {
                // RFC 2883 §4 (2): duplicate of out-of-order data already held.
                self.note_dsack(d);
            }
            if in_order {
                let Receiver {
                    ooo,
                    readable,
                    readable_bytes,
                    rcv_nxt,
                    ..
                } = self;
                ooo.pop_in_order(*rcv_nxt, |p| {
                    let n = p.len() as u64;
                    *rcv_nxt += n;
                    *readable_bytes += n;
                    readable.push_back(p);
                    out.delivered += n;
                });
                if had_ooo && self.cfg.immediate_ack_on_ooo {
                    // RFC 5681 §4.2: immediate ACK for a segment that fills (part of) a gap.
                    self.ack_now = true;
                }
            } else {
                self.ooo_max = self.ooo_max.max(self.ooo.bytes());
                // RFC 2018 §4: the block holding this segment is reported first.
                self.sack_recent.insert(0, from);
                if self.cfg.immediate_ack_on_ooo {
                    // RFC 5681 §4.2: immediate duplicate ACK for an out-of-order segment.
                    self.ack_now = true;
                }
            }
        } else if len > 0 {
            self.ack_now = true;
        }
        if self.fin_at == Some(self.rcv_nxt) {
            self.rcv_nxt += 1;
            self.fin_at = None;
            out.fin = true;
            self.ack_now = true;
        }
        if len > 0 {
            self.unacked_bytes += len;
            self.rcv_mss = self.rcv_mss.max(len);
            let window = self.rcv_adv.saturating_sub(self.rcv_nxt);
            let (held, rcv_mss, rcv_nxt) = (self.readable_bytes, self.rcv_mss, self.rcv_nxt);
            if let Some(a) = self.autotune.as_mut() {
                if a.on_data(now, len, held, rcv_mss, window, rcv_nxt, tsecr_rtt) {
                    // Linux's quick-ACK mode (crate::rcv_autotune).
                    self.ack_now = true;
                }
            }
            // RFC 5681 §4.2: ACK at least every second full-sized segment (counted in bytes of
            // the largest segment seen, so small segments add up), and within 500 ms.
            if self.cfg.ack_every == 1
                || self.unacked_bytes >= self.cfg.ack_every as u64 * self.rcv_mss
            {
                self.ack_now = true;
            } else if !self.ack_now && !t.is_set(Timer::DelayedAck) {
                t.set(Timer::DelayedAck, now + self.cfg.delayed_ack_timeout);
            }
        }
        out
    }

    fn deliver(&mut self, p: Payload) -> u64 {
        let n = p.len() as u64;
        self.rcv_nxt += n;
        self.readable_bytes += n;
        self.readable.push_back(p);
        n
    }

    /// A segment entirely below rcv_nxt (not acceptable, RFC 9293 §3.10.7.4): ACK it, with a
    /// D-SACK for its data (RFC 2883 §4.1.1).
    pub fn on_old_duplicate(&mut self, start: u64, data_len: u64) {
        if data_len > 0 && start + data_len <= self.rcv_nxt {
            self.note_dsack((start, start + data_len));
        }
        self.ack_now = true;
    }

    fn note_dsack(&mut self, block: (u64, u64)) {
        if self.cfg.dsack {
            self.dsack = Some(block);
        }
    }

    /// Hand up to `max` in-order bytes to the application.
    pub fn read(&mut self, max: usize) -> Payload {
        // Fast path (`crate::fast_path`, issue 40 step 7): one readable piece that fits whole
        // (a segment arrived and the application takes everything) is handed over as it is,
        // which is what the joiner below returns for a single part.
        if crate::fast_path::enabled()
            && max > 0
            && self.readable.len() == 1
            && self.readable_bytes <= max as u64
        {
            if let Some(front) = self.readable.pop_front() {
                debug_assert_eq!(front.len() as u64, self.readable_bytes);
                self.readable_bytes -= front.len() as u64;
                return front;
            }
        }
        let mut out = PayloadJoiner::default();
        let mut want = max as u64;
        while want > 0 {
            let Some(front) = self.readable.pop_front() else {
                break;
            };
            let n = front.len() as u64;
            if n <= want {
                want -= n;
                self.readable_bytes -= n;
                out.push(front);
            } else {
                out.push(slice(&front, 0, want as usize));
                self.readable
                    .push_front(slice(&front, want as usize, (n - want) as usize));
                self.readable_bytes -= want;
                want = 0;
            }
        }
        out.finish()
    }

    /// After an application read with the Linux model: whether the window we could offer now
    /// is at least twice the one left to the peer (tcp_cleanup_rbuf's window update).
    pub fn read_opens_window(&self) -> bool {
        self.autotune.as_ref().is_some_and(|a| {
            a.read_opens_window(self.rcv_adv.saturating_sub(self.rcv_nxt), self.window())
        })
    }

    /// Whether data arrived since the last ACK we sent (a delayed ACK is waiting for it).
    pub fn has_unacked_data(&self) -> bool {
        self.unacked_bytes > 0
    }

    /// Whether an ACK must go out now, and when the delayed-ACK timer fires otherwise.
    pub fn ack_due(&self) -> bool {
        self.ack_now
    }
    pub fn on_timeout(&mut self, now: Time, t: &mut TimerTable) {
        if t.is_due(Timer::DelayedAck, now) {
            // The timer has done its job: the ACK is now due, and a deadline left in the past
            // would keep `poll_timeout` reporting work until the ACK went out.
            t.stop(Timer::DelayedAck);
            self.ack_now = true;
        }
    }
    /// Ask for an immediate ACK (window update, out-of-window segment, handshake).
    pub fn force_ack(&mut self) {
        self.ack_now = true;
    }

    /// Fill the ACK fields of an outgoing segment: returns (window bytes, SACK blocks).
    /// Called for every segment we send (all carry ACK), which resets the delayed-ACK state.
    pub fn on_ack_sent(
        &mut self,
        sack: bool,
        max_blocks: usize,
        t: &mut TimerTable,
    ) -> (u64, OffsetBlocks) {
        if let Some(a) = self.autotune.as_mut() {
            if self.ack_now || self.unacked_bytes > 0 {
                a.on_ack_sent();
            }
        }
        self.ack_now = false;
        t.stop(Timer::DelayedAck);
        self.unacked_bytes = 0;
        let wnd = self.window();
        self.rcv_adv = self.rcv_adv.max(self.rcv_nxt + wnd);
        let blocks = if sack {
            self.sack_blocks(max_blocks)
        } else {
            // Without SACK nothing is reported: forget, so that nothing accumulates.
            self.sack_recent.clear();
            self.dsack = None;
            OffsetBlocks::new()
        };
        (wnd, blocks)
    }

    /// RFC 2018 §4 block selection with RFC 2883 §4 D-SACK first.
    fn sack_blocks(&mut self, max: usize) -> OffsetBlocks {
        let max = max.min(MAX_SACK_BLOCKS);
        let mut out = OffsetBlocks::new();
        if let Some(d) = self.dsack.take() {
            out.push(d);
            // RFC 2883 §4 (3): if the duplicate lies in an out-of-order block, that block next.
            if let Some(b) = self.ooo.block_containing(d.0) {
                out.push(b);
            }
        }
        if self.sack_recent.is_empty() {
            out.truncate(max);
            return out;
        }
        let mut keep = Vec::new();
        for &k in &self.sack_recent {
            let Some(b) = self.ooo.block_containing(k) else {
                continue;
            };
            if keep.iter().any(|&(_, kb)| kb == b) {
                continue;
            }
            keep.push((k, b));
        }
        self.sack_recent = keep.iter().map(|&(k, _)| k).collect();
        for (_, b) in keep {
            if out.len() >= max {
                break;
            }
            if !out.contains(&b) {
                out.push(b);
            }
        }
        out.truncate(max);
        out
    }
}

/// Offsets of the fields the connection's layout test follows (`connection::hot_block`).
#[cfg(test)]
pub(crate) fn field_offsets() -> Vec<(&'static str, usize)> {
    use std::mem::offset_of;
    let cfg = offset_of!(Receiver, cfg);
    let ooo = offset_of!(Receiver, ooo);
    let mut v = field_offsets!(
        Receiver;
        readable_bytes, autotune, rcv_nxt, rcv_adv, unacked_bytes, rcv_mss, ooo_max, ack_now,
        fin_at, dsack, readable, sack_recent,
    );
    v.extend(
        field_offsets!(ReceiverConfig; limit, ack_every, delayed_ack_timeout)
            .into_iter()
            .map(|(n, o)| (["cfg.", n].concat().leak() as &str, cfg + o)),
    );
    // The out-of-order queue: its emptiness test and its byte count, over its 56 bytes.
    v.push(("ooo", ooo));
    v.push(("ooo.end", ooo + std::mem::size_of::<Reassembly>() - 1));
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A receiver with the connection's timer table beside it.
    struct Rx {
        r: Receiver,
        t: TimerTable,
    }
    impl std::ops::Deref for Rx {
        type Target = Receiver;
        fn deref(&self) -> &Receiver {
            &self.r
        }
    }
    impl std::ops::DerefMut for Rx {
        fn deref_mut(&mut self) -> &mut Receiver {
            &mut self.r
        }
    }
    impl Rx {
        fn on_ack_sent(&mut self, sack: bool, max_blocks: usize) -> (u64, OffsetBlocks) {
            self.r.on_ack_sent(sack, max_blocks, &mut self.t)
        }
        fn on_timeout(&mut self, now: Time) {
            self.r.on_timeout(now, &mut self.t)
        }
        fn ack_deadline(&self) -> Option<Time> {
            self.t.get(Timer::DelayedAck)
        }
    }

    fn rx() -> Rx {
        let r = Receiver::new(
            ReceiverConfig {
                limit: 100_000,
                ack_every: 2,
                delayed_ack_timeout: Duration::from_millis(200),
                immediate_ack_on_ooo: true,
                dsack: true,
                autotune_mss: None,
            },
            1,
        );
        Rx {
            r,
            t: TimerTable::default(),
        }
    }
    fn seg(r: &mut Rx, start: u64, len: u32) -> DataOutcome {
        r.r.on_data(
            Time::ZERO,
            start,
            &Payload::zeros(len),
            false,
            None,
            &mut r.t,
        )
    }

    #[test]
    fn sack_blocks_most_recent_first_with_triggering_block_first() {
        let mut r = rx();
        seg(&mut r, 1001, 100);
        assert_eq!(r.on_ack_sent(true, 4).1.as_slice(), [(1001, 1101)]);
        seg(&mut r, 2001, 100);
        seg(&mut r, 3001, 100);
        assert_eq!(
            r.on_ack_sent(true, 4).1.as_slice(),
            [(3001, 3101), (2001, 2101), (1001, 1101)]
        );
        // Extending the oldest block makes it the most recent.
        seg(&mut r, 1101, 100);
        assert_eq!(
            r.on_ack_sent(true, 4).1.as_slice(),
            [(1001, 1201), (3001, 3101), (2001, 2101)]
        );
        // Only as many as fit.
        seg(&mut r, 4001, 100);
        seg(&mut r, 5001, 100);
        assert_eq!(
            r.on_ack_sent(true, 3).1.as_slice(),
            [(5001, 5101), (4001, 4101), (1001, 1201)]
        );
    }

    #[test]
    fn dsack_for_duplicate_below_rcv_nxt_and_inside_ooo_block() {
        let mut r = rx();
        seg(&mut r, 1, 100);
        seg(&mut r, 1, 100);
        assert_eq!(r.on_ack_sent(true, 4).1.as_slice(), [(1, 101)]);
        seg(&mut r, 301, 100);
        r.on_ack_sent(true, 4);
        seg(&mut r, 301, 100);
        // RFC 2883 §4: D-SACK block, then the out-of-order block containing it.
        assert_eq!(
            r.on_ack_sent(true, 4).1.as_slice(),
            [(301, 401), (301, 401)]
        );
        assert_eq!(r.on_ack_sent(true, 4).1.as_slice(), [(301, 401)]);
    }

    #[test]
    fn small_segments_add_up_to_full_sized_ones_for_delayed_acks() {
        let mut r = rx();
        seg(&mut r, 1, 1000);
        r.on_ack_sent(true, 4);
        // 1000 B is the full size now: 2000 B of 400 B segments make two full-sized ones.
        for i in 0..4 {
            seg(&mut r, 1001 + i * 400, 400);
            assert!(!r.ack_due());
        }
        seg(&mut r, 2601, 400);
        assert!(r.ack_due());
    }

    #[test]
    fn delayed_ack_every_second_segment_and_immediate_when_out_of_order() {
        let mut r = rx();
        seg(&mut r, 1, 100);
        assert!(!r.ack_due());
        assert_eq!(r.ack_deadline(), Some(Time::from_millis(200)));
        seg(&mut r, 101, 100);
        assert!(r.ack_due());
        r.on_ack_sent(true, 4);
        seg(&mut r, 301, 100);
        assert!(r.ack_due());
        r.on_ack_sent(true, 4);
        let out = seg(&mut r, 201, 100);
        assert_eq!(out.delivered, 200);
        assert!(r.ack_due(), "gap-filling segment is acked at once");
        assert_eq!(r.rcv_nxt, 401);
    }

    // Found by fuzzing (tcp_core): the fired timer stayed armed in the past, so `poll_timeout`
    // reported work due at an instant `handle_timeout` had already handled.
    #[test]
    fn delayed_ack_timer_is_disarmed_when_it_fires() {
        let mut r = rx();
        seg(&mut r, 1, 100);
        assert_eq!(r.ack_deadline(), Some(Time::from_millis(200)));
        r.on_timeout(Time::from_millis(200));
        assert!(r.ack_due());
        assert_eq!(r.ack_deadline(), None);
    }
}
