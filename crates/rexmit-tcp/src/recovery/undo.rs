//! Undo of a window reduction that proves spurious, and RFC 5682 F-RTO after a timeout.
//!
//! Detection: every retransmission since the reduction reported duplicate by D-SACK (RFC 3708,
//! as Linux counts `undo_retrans`), or an ACK echoing a timestamp older than the first
//! retransmission (RFC 3522 Eifel detection, Linux `tcp_packet_delayed`), or, after a timeout,
//! F-RTO's test: an ACK for data sent before the timeout and never retransmitted (RFC 5682 §3,
//! the SACK-enhanced algorithm, as Linux's `tcp_frto = 2` runs it). The response restores the
//! window of before the reduction through the controller (`CongestionControl::on_undo`).
//!
//! Owns: the undo marker (SND.UNA at the reduction), the count of retransmissions not yet
//! reported duplicate, the time of the first retransmission, the window before the reduction,
//! and F-RTO's state. Does not own: the window (the controller), the episode (`Recovery`), the
//! scoreboard, or when each check runs (the sender's ACK stages, `sender/undo.rs`).

use rexmit_time::Time;

/// F-RTO after one retransmission timeout (RFC 5682 §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frto {
    /// The highest sequence sent before the timeout ("recover"; Linux high_seq): data below it
    /// acknowledged without having been retransmitted shows the timeout spurious.
    pub high: u64,
    /// Step 2.b: this ACK advanced SND.UNA, so new data goes instead of retransmissions.
    pub send_new: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
// `repr(C)`, `marker` first: every ACK asks `is_armed` (issue 40 step 6).
#[repr(C)]
pub struct Undo {
    /// Linux undo_marker: SND.UNA when the reduction happened; `None`: nothing to undo.
    marker: Option<u64>,
    /// Retransmissions since the marker not yet reported duplicate (Linux undo_retrans).
    retrans: u64,
    /// The first retransmission since the marker (Linux retrans_stamp).
    first_rexmit: Option<Time>,
    prior_cwnd: u64,
    prior_ssthresh: u64,
    frto: Option<Frto>,
    /// `tcp.undo`: D-SACK and timestamp detection at all reductions.
    undo: bool,
    /// `tcp.frto`: F-RTO after timeouts (SACK recovery).
    frto_enabled: bool,
    /// `tcp.undo_ssthresh_floor`: the sender records Linux's prior_ssthresh.
    ssthresh_floor: bool,
    retransmitted: bool,
}

impl Undo {
    pub fn new(undo: bool, frto: bool) -> Self {
        Undo {
            undo,
            frto_enabled: frto,
            ..Undo::default()
        }
    }

    /// The same, recording Linux's prior_ssthresh or not (`ssthresh_floor`).
    pub fn with_ssthresh_floor(self, on: bool) -> Self {
        Undo {
            ssthresh_floor: on,
            ..self
        }
    }

    /// Nothing to undo, the configuration kept.
    fn cleared(&self) -> Self {
        Undo::new(self.undo, self.frto_enabled).with_ssthresh_floor(self.ssthresh_floor)
    }

    pub fn frto_enabled(&self) -> bool {
        self.frto_enabled
    }

    pub fn ssthresh_floor(&self) -> bool {
        self.ssthresh_floor
    }

    /// A reduction: remember the window before it (cwnd, ssthresh) and start counting the
    /// retransmissions from `snd_una`.
    pub fn begin(&mut self, snd_una: u64, cwnd: u64, ssthresh: u64) {
        if !self.undo && !self.frto_enabled {
            return;
        }
        *self = Undo {
            marker: Some(snd_una),
            prior_cwnd: cwnd,
            prior_ssthresh: ssthresh,
            ..self.cleared()
        };
    }

    pub fn is_armed(&self) -> bool {
        self.marker.is_some()
    }

    /// A segment was retransmitted at `now`.
    pub fn on_retransmit(&mut self, now: Time) {
        if self.marker.is_some() {
            self.retrans += 1;
            self.retransmitted = true;
            self.first_rexmit.get_or_insert(now);
        }
    }

    /// A D-SACK reported [start, end) received twice: if it lies above the marker it accounts
    /// for that many segments of `smss` retransmitted in vain (Linux's counting, which does not
    /// look further at which segment it was).
    pub fn on_dsack(&mut self, start: u64, end: u64, smss: u64) {
        if self.marker.is_some_and(|m| end > m) {
            let segments = (end - start).div_ceil(smss.max(1)).max(1);
            self.retrans = self.retrans.saturating_sub(segments);
        }
    }

    /// When the first retransmission since the marker left, if one did.
    pub fn first_rexmit(&self) -> Option<Time> {
        self.first_rexmit
    }

    /// Whether the reduction is shown spurious (with `tcp.undo`): all its retransmissions were
    /// duplicates (D-SACK), or `echo_predates_rexmit` (the ACK echoes a timestamp older than
    /// the first retransmission).
    pub fn spurious(&self, echo_predates_rexmit: bool) -> Option<crate::cc::UndoCause> {
        use crate::cc::UndoCause;
        if !self.undo || self.marker.is_none() || !self.retransmitted {
            return None;
        }
        if self.retrans == 0 {
            Some(UndoCause::Dsack)
        } else if echo_predates_rexmit {
            Some(UndoCause::Timestamps)
        } else {
            None
        }
    }

    /// Undo now: the window before the reduction (cwnd, ssthresh); nothing is left to undo.
    pub fn take(&mut self) -> (u64, u64) {
        let prior = (self.prior_cwnd, self.prior_ssthresh);
        *self = self.cleared();
        prior
    }

    /// RFC 5682 §3 step 1: a timeout with `high` the highest sequence sent starts F-RTO.
    pub fn start_frto(&mut self, high: u64) {
        if self.frto_enabled && self.marker.is_some() {
            self.frto = Some(Frto {
                high,
                send_new: false,
            });
        }
    }

    pub fn frto(&self) -> Option<Frto> {
        self.frto
    }

    pub fn set_frto(&mut self, f: Option<Frto>) {
        self.frto = f;
    }
}

/// RFC 7323 timestamps: whether the echoed TSval `ecr` (ms clock, `ts_clock`) predates
/// `sent`.
pub fn echo_predates(ecr: u32, sent: Time) -> bool {
    (ecr.wrapping_sub(crate::timers::ts_clock(sent)) as i32) < 0
}

/// Offsets of the fields the connection's layout test follows (`connection::hot_block`).
#[cfg(test)]
pub(crate) fn field_offsets() -> Vec<(&'static str, usize)> {
    field_offsets!(Undo; marker, retrans, undo, frto)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::UndoCause;

    #[test]
    fn every_retransmission_reported_duplicate_makes_the_reduction_spurious() {
        let mut u = Undo::new(true, false);
        u.begin(1_000, 10_000, 20_000);
        assert_eq!(u.spurious(false), None, "nothing retransmitted yet");
        u.on_retransmit(Time::from_millis(5));
        u.on_retransmit(Time::from_millis(6));
        u.on_dsack(1_000, 2_000, 1_000);
        assert_eq!(u.spurious(false), None, "one of two");
        // A D-SACK of data below the marker does not count.
        u.on_dsack(0, 1_000, 1_000);
        assert_eq!(u.spurious(false), None);
        u.on_dsack(2_000, 3_000, 1_000);
        assert_eq!(u.spurious(false), Some(UndoCause::Dsack));
        assert_eq!(u.take(), (10_000, 20_000));
        assert!(!u.is_armed());
    }

    #[test]
    fn an_echo_older_than_the_first_retransmission_shows_the_original_arrived() {
        let mut u = Undo::new(true, false);
        u.begin(1, 10_000, 20_000);
        u.on_retransmit(Time::from_millis(300));
        u.on_retransmit(Time::from_millis(400));
        assert_eq!(u.first_rexmit(), Some(Time::from_millis(300)));
        assert!(echo_predates(299, Time::from_millis(300)));
        assert!(!echo_predates(300, Time::from_millis(300)));
        assert_eq!(u.spurious(true), Some(UndoCause::Timestamps));
        // Without tcp.undo nothing is undone (F-RTO has its own test).
        let mut u = Undo::new(false, true);
        u.begin(1, 10_000, 20_000);
        u.on_retransmit(Time::from_millis(300));
        assert_eq!(u.spurious(true), None);
    }
}
