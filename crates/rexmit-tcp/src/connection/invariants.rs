//! Invariants of a connection, checked after every call of the sans-IO surface in debug
//! builds (so every test and fuzz run checks them): sequence accounting, the send buffer
//! bound, in-order delivery and timers. Owns only the few values remembered from the previous
//! check; release builds skip the checks.

use super::Connection;
use rexmit_time::Time;
#[cfg(any(test, feature = "fuzzing"))]
use rexmit_wire::TcpSegment;

/// What the previous check saw, for the "never moves back" invariants.
#[derive(Clone, Debug, Default)]
pub(super) struct Audit {
    /// Latest `now` passed in.
    now: Time,
    snd_una: u64,
    rcv_nxt: u64,
    bytes_delivered: u64,
    /// Checks so far: long scoreboards are scanned on a stride (see `check_invariants`).
    checks: u64,
}

impl Connection {
    /// Every timer and its deadline, for the fuzz harness's failure messages.
    #[cfg(feature = "fuzzing")]
    pub(crate) fn timer_report(&self) -> String {
        let armed: Vec<String> = crate::timers::Timer::ALL
            .iter()
            .map(|t| format!("{t:?} {:?}", self.timers.get(*t)))
            .collect();
        armed.join(", ")
    }

    /// `poll_transmit`, checking its fast test against the full path: where `nothing_to_send`
    /// answers `true`, the full path runs instead and must answer `None` and leave every field
    /// as it was. The fuzz harness and the tests poll through this.
    #[cfg(any(test, feature = "fuzzing"))]
    pub(crate) fn poll_transmit_checked(&mut self, now: Time) -> Option<TcpSegment> {
        if !self.nothing_to_send(now) {
            return self.poll_transmit(now);
        }
        let before = self.snapshot();
        let seg = self.poll_segment(now).map(|(seg, _)| seg);
        assert!(
            seg.is_none(),
            "nothing_to_send at {now:?}, but the full path sends {seg:?}: {before}"
        );
        assert_eq!(
            self.snapshot(),
            before,
            "nothing_to_send at {now:?}, but the full path changed the connection"
        );
        None
    }

    /// Every field, the sender's included (`Sender::snapshot`). The pattern names every field,
    /// so a new one cannot be left out.
    #[cfg(any(test, feature = "fuzzing"))]
    pub(crate) fn snapshot(&self) -> String {
        let Connection {
            cfg,
            state,
            local_port,
            remote_port,
            iss,
            irs,
            snd,
            rcv,
            syn_pending,
            syn_sent_at,
            syn_retransmitted,
            peer_mss,
            sack_ok,
            ts_ok,
            ecn_ok,
            echo,
            ack_pending,
            snd_wscale,
            rcv_wscale,
            ts_recent,
            last_ack_sent,
            timers,
            syn_timeouts,
            rst_pending,
            events,
            stats,
            blocked_since,
            audit,
        } = self;
        format!(
            "{cfg:?} {state:?} {local_port} {remote_port} {iss:?} {irs:?} [{}] {rcv:?} \
             {syn_pending} {syn_sent_at:?} {syn_retransmitted} {peer_mss:?} {sack_ok} {ts_ok} \
             {ecn_ok} {echo:?} {ack_pending:?} {snd_wscale} {rcv_wscale} {ts_recent} {last_ack_sent} {timers:?} {syn_timeouts} \
             {rst_pending:?} {events:?} {stats:?} {blocked_since:?} {audit:?}",
            snd.snapshot()
        )
    }

    /// Check every invariant, `now` being the time of the call just made (if it had one).
    pub(super) fn check_invariants(&mut self, now: Option<Time>) {
        if !cfg!(debug_assertions) {
            return;
        }
        if let Some(now) = now {
            self.audit.now = self.audit.now.max(now);
        }
        let s = &self.snd;
        let ctx = || format!("{:?} in {:?}", s, self.state);
        // snd_una never moves back; nothing is acknowledged beyond what was sent.
        assert!(
            s.snd_una >= self.audit.snd_una,
            "snd_una moved back: {}",
            ctx()
        );
        assert!(s.snd_una <= s.snd_max, "snd_una beyond snd_max: {}", ctx());
        assert!(s.snd_nxt <= s.snd_max, "snd_nxt beyond snd_max: {}", ctx());
        // The retransmission queue is the sent part of the send buffer, plus at most the FIN.
        let fin = s.fin_at.is_some() as u64;
        assert!(
            s.snd_max <= s.buf.end() + fin,
            "sent beyond the send buffer (end {}): {}",
            s.buf.end(),
            ctx()
        );
        assert_eq!(
            s.buf.start(),
            s.snd_una.min(s.buf.end()),
            "send buffer not released up to snd_una: {}",
            ctx()
        );
        assert!(
            s.buf.len() <= self.cfg.send_buffer as u64,
            "send buffer over its limit: {}",
            ctx()
        );
        // Pipe counts a retransmitted segment at most twice (RFC 6675 §4 SetPipe); an underflow
        // would have panicked inside `pipe` already.
        let flight = s.flight_size();
        assert!(
            s.pipe() <= 2 * flight,
            "pipe {} > 2 x flight {flight}: {}",
            s.pipe(),
            ctx()
        );
        // The scoreboard scan costs a pass; above 64 segments it runs on every k-th check only,
        // k = segments / 64, so debug runs stay linear (a broken scoreboard stays broken, so it
        // is still caught a few calls later).
        self.audit.checks += 1;
        let scan = self
            .audit
            .checks
            .is_multiple_of((s.sb.len() as u64 / 64).max(1));
        let mut prev_end = s.snd_una;
        for seg in s.sb.segments().take_while(|_| scan) {
            assert!(
                seg.start >= prev_end && seg.start < seg.end && seg.end <= s.snd_max,
                "scoreboard segment {}..{} outside [snd_una, snd_max] or overlapping: {}",
                seg.start,
                seg.end,
                ctx()
            );
            prev_end = seg.end;
        }
        // Delivery is in order: rcv_nxt only grows and counts every delivered byte (plus the
        // peer's FIN).
        let rcv_nxt = self.rcv.rcv_nxt;
        let delivered = self.stats.bytes_delivered;
        assert!(rcv_nxt >= self.audit.rcv_nxt, "rcv_nxt moved back");
        assert!(
            delivered >= self.audit.bytes_delivered,
            "delivered bytes moved back"
        );
        assert!(
            (rcv_nxt - 1)
                .checked_sub(delivered)
                .is_some_and(|fin| fin <= 1),
            "rcv_nxt {rcv_nxt} does not match {delivered} bytes delivered in order"
        );
        assert!(
            self.rcv.readable_bytes() <= self.cfg.recv_buffer as u64,
            "more readable bytes than the receive buffer holds"
        );
        // Timers are never armed in the past.
        if let Some(t) = self.poll_timeout() {
            assert!(
                t >= self.audit.now,
                "timer armed at {t:?}, before the latest time seen {:?}: {}",
                self.audit.now,
                ctx()
            );
        }
        self.audit.snd_una = s.snd_una;
        self.audit.rcv_nxt = rcv_nxt;
        self.audit.bytes_delivered = delivered;
    }
}
