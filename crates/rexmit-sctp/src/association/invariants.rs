//! Invariants of an association, checked after every call of the sans-IO surface in debug
//! builds (so every test and fuzz run checks them): TSN accounting, flight sizes against the
//! retransmission queue, the send buffer bound, ordered delivery and timers. Owns only the few
//! values remembered between checks; release builds skip the checks.

use super::Association;
use crate::rtx_queue::TsnState;
use crate::tsn::{tsn_ge, tsn_gt, tsn_lt};
use rexmit_time::Time;
use std::collections::HashMap;

/// What earlier checks saw, for the "never moves back" invariants.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Audit {
    /// Latest `now` passed in.
    now: Time,
    cum_point: Option<u32>,
    /// Next SSN each inbound stream must deliver in order.
    next_ssn: HashMap<u16, u16>,
    /// Checks so far: long queues are scanned on a stride (see `check_invariants`).
    checks: u64,
    /// Fast answers of `poll_transmit_checked` so far: on long queues the copy that takes the
    /// full path is made on a stride too.
    fast_answers: u64,
}

/// Whether the `count`-th check over `entries` entries runs: every one up to 64 entries, every
/// k-th above, k = entries / 64, so that checks costing a pass over the entries stay linear.
fn on_stride(count: u64, entries: usize) -> bool {
    count % (entries as u64 / 64).max(1) == 0
}

impl Association {
    /// Every timer and its deadline, for failure messages.
    pub(crate) fn timer_report(&self) -> String {
        let armed: Vec<String> = self
            .timers
            .all()
            .map(|(t, at)| format!("{t:?} {at:?}"))
            .collect();
        armed.join(", ")
    }

    /// `poll_transmit`, checking its fast test against the full path: where `nothing_to_send`
    /// answers `true`, a copy of the association takes the full path instead, which must
    /// answer `None` and leave the copy exactly as the fast path leaves the association. The
    /// fuzz harness and the tests poll through this. The copy costs a pass over the queues (the
    /// retransmission queue and the TSNs held out of order): above 64 entries it is made on
    /// every k-th fast answer only, k = entries / 64, as the invariants' scan is, so long debug
    /// runs stay linear (a CMT transfer with 2 MiB windows spent minutes in these copies).
    #[cfg(any(test, feature = "fuzzing"))]
    pub fn poll_transmit_checked(&mut self, now: Time) -> Option<crate::event::Transmit> {
        self.begin_poll(now);
        if !self.nothing_to_send(now) {
            let t = self.next_packet(now);
            self.check_invariants(Some(now));
            return t;
        }
        self.audit.fast_answers += 1;
        let held = self.tx.rtxq().len() + self.rx.out_of_order();
        if !on_stride(self.audit.fast_answers, held) {
            assert!(self.poll_transmit(now).is_none());
            return None;
        }
        let mut full = self.clone();
        let t = full.next_packet(now);
        full.check_invariants(Some(now));
        assert!(
            t.is_none(),
            "nothing_to_send at {now:?}, but the full path sends {t:?}: {self:?}"
        );
        assert!(self.poll_transmit(now).is_none());
        assert!(
            *self == full,
            "nothing_to_send at {now:?}, but the full path leaves {full:?}\nand the fast one {self:?}"
        );
        None
    }

    /// Whether the next `poll_transmit` at `now` ends in the fast test. Takes the poll's first
    /// step (`begin_poll`), which the poll then finds done: calling this changes no outcome.
    #[cfg(any(test, feature = "fuzzing"))]
    pub fn poll_ends_fast(&mut self, now: Time) -> bool {
        self.begin_poll(now);
        self.nothing_to_send(now)
    }

    /// Check every invariant, `now` being the time of the call just made (if it had one).
    pub(super) fn check_invariants(&mut self, now: Option<Time>) {
        if !cfg!(debug_assertions) {
            return;
        }
        if let Some(now) = now {
            self.audit.now = self.audit.now.max(now);
        }
        // The cumulative TSN ack point never moves back, nor beyond what was sent.
        if let Some(prev) = self.audit.cum_point {
            assert!(
                tsn_ge(self.tx.cum_point(), prev),
                "cum TSN ack moved back from {prev} to {}",
                self.tx.cum_point()
            );
        }
        assert!(
            tsn_lt(self.tx.cum_point(), self.tx.next_tsn()),
            "cum TSN ack {} at or beyond the next TSN {}",
            self.tx.cum_point(),
            self.tx.next_tsn()
        );
        self.audit.cum_point = Some(self.tx.cum_point());
        // The scan below costs a pass over the queue; above 64 entries it runs on every k-th
        // check only, k = entries / 64, so debug runs stay linear. An accounting error persists
        // until repaired, so it is still caught, a few calls later.
        self.audit.checks += 1;
        if on_stride(self.audit.checks, self.tx.rtxq().len()) {
            self.check_rtx_queue();
        }
        // Timers are never armed in the past.
        if let Some(t) = self.poll_timeout() {
            assert!(
                t >= self.audit.now,
                "timer armed at {t:?}, before the latest time seen {:?}, in {:?}: {}",
                self.audit.now,
                self.state,
                self.timer_report()
            );
        }
    }

    fn check_rtx_queue(&self) {
        // Flight size per path is exactly the in-flight chunks of the retransmission queue, and
        // the queue's byte count is its renegable part.
        let mut flight = vec![0u64; self.paths.len()];
        let mut held = 0u64;
        let mut gap_acked = 0;
        for e in self.tx.rtxq().iter() {
            gap_acked += (e.state == TsnState::GapAcked) as usize;
            assert!(
                tsn_gt(e.tsn, self.tx.cum_point()) && tsn_lt(e.tsn, self.tx.next_tsn()),
                "rtx queue holds TSN {} outside ({}, {})",
                e.tsn,
                self.tx.cum_point(),
                self.tx.next_tsn()
            );
            if e.state == TsnState::InFlight {
                flight[e.path] += self.tx.rtxq().flight_len(e);
            }
            if e.state != TsnState::NrAcked {
                held += u64::from(e.len);
            }
        }
        for (p, (path, f)) in self.paths.iter().zip(&flight).enumerate() {
            assert_eq!(
                path.flight(),
                *f,
                "flight size of path {p} != its in-flight chunks"
            );
        }
        assert_eq!(self.tx.rtxq().bytes(), held, "rtx queue byte count");
        assert_eq!(
            self.tx.rtxq().gap_acked(),
            gap_acked,
            "rtx queue gap-acked count"
        );
        assert!(
            self.send_buffer_bytes() <= self.cfg.send_buffer,
            "send buffer holds {} bytes, limit {}",
            self.send_buffer_bytes(),
            self.cfg.send_buffer
        );
    }

    /// An ordered message is about to be delivered: it must be the next SSN of its stream, so
    /// nothing is delivered twice or out of order.
    pub(super) fn audit_ordered_delivery(&mut self, stream: u16, ssn: u16) {
        if !cfg!(debug_assertions) {
            return;
        }
        let next = self.audit.next_ssn.entry(stream).or_insert(0);
        assert_eq!(
            ssn, *next,
            "stream {stream} delivered SSN {ssn}, expected {next}"
        );
        *next = next.wrapping_add(1);
    }
}
