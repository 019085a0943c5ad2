//! RACK-TLP loss detection (RFC 8985), shared by TCP and SCTP (seed 002 §III adapts it per
//! DATA chunk): time-based marking of lost segments from the send time of the most recently
//! delivered segment plus a reordering window, and the tail loss probe.
//!
//! Owns RACK's state (xmit_ts, end_seq, rtt, fack, reo_wnd adaptation) and the TLP state, and
//! computes the reordering and probe deadlines; each core keeps those in its own timer table.
//! A "segment" is a TCP segment (ordered by its end sequence
//! number) or an SCTP DATA chunk (ordered by its TSN, unwrapped to 64 bits). What is marked,
//! what is sent and the congestion response belong to each protocol's sender.
//!
//! SCTP reports duplicate TSNs in every SACK (RFC 9260 §6.2), which RACK reads as D-SACKs
//! (seed 002 §II.B).

use rexmit_time::{Duration, Time};

/// A segment an ACK newly reported as delivered (cumulatively or selectively).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delivered {
    /// End sequence number (TCP) or unwrapped TSN (SCTP): the order of first transmission.
    pub end: u64,
    /// Time of its latest transmission.
    pub sent_at: Time,
    /// How many times it was retransmitted.
    pub rexmits: u32,
}

/// RFC 8985 §7.2 WCDelAckT: worst-case delayed-ACK timer.
pub const WC_DEL_ACK_T: Duration = Duration::from_millis(200);

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rack {
    /// RACK.xmit_ts / RACK.end_seq: the most recently sent segment known delivered.
    pub xmit_ts: Option<Time>,
    pub end_seq: u64,
    /// RACK.rtt: RTT of that segment.
    pub rtt: Duration,
    /// RACK.fack: highest end sequence delivered.
    pub fack: u64,
    pub reordering_seen: bool,
    /// RACK.reo_wnd_mult and its persistence (RFC 8985 §6.2 step 4).
    pub reo_wnd_mult: u32,
    pub reo_wnd_persist: u32,
    /// What restarts the 16-recovery persistence of a widened window.
    pub persist_from: PersistFrom,
    dsack_round: Option<u64>,
    /// TLP.end_seq and whether the probe was a retransmission (RFC 8985 §7).
    pub tlp_end_seq: Option<u64>,
    pub tlp_is_retrans: bool,
}

/// Recoveries a widened reordering window is kept for (RFC 8985 §6.2 step 4; seed 002 §II.B).
const REO_WND_PERSIST: u32 = 16;

rexmit_options::choices! {
    /// What restarts the persistence of a widened reordering window (`reo_wnd_persist`).
    #[derive(Default)]
    pub enum PersistFrom {
        #[default]
        /// RFC 8985 §6.2 step 4: a D-SACK sets it to 16 recoveries; recoveries count it down.
        Dsack = "dsack",
        /// Seed 002 §II.B: "once no more reordering is detected, the inflated reordering window
        /// should be kept for a period of 16 loss recoveries": every reordering detected (step 3)
        /// restarts the count too, so under constant reordering the window stays widened (its
        /// §IV "reordering window of a single RTT").
        Reordering = "reordering",
    }
}

/// What one RACK_detect_loss pass found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LossScan {
    /// Some segment was newly marked lost.
    pub newly_lost: bool,
    /// RFC 8985 §6.3: when the reordering timer must fire (segments that may still arrive
    /// within the window), or `None` to stop it.
    pub timer: Option<Time>,
}

/// RFC 8985 §6.2 RACK_sent_after: was (t1, seq1) sent after (t2, seq2)?
fn sent_after(t1: Time, seq1: u64, t2: Time, seq2: u64) -> bool {
    t1 > t2 || (t1 == t2 && seq1 > seq2)
}

impl Rack {
    pub fn new() -> Self {
        Rack::with_persistence(PersistFrom::Dsack)
    }

    pub fn with_persistence(persist_from: PersistFrom) -> Self {
        Rack {
            reo_wnd_mult: 1,
            persist_from,
            ..Rack::default()
        }
    }

    /// RFC 8985 §6.2 steps 2–4 for the segments this ACK delivered.
    pub fn on_ack(
        &mut self,
        now: Time,
        delivered: &[Delivered],
        min_rtt: Option<Duration>,
        dsack: bool,
        snd_una: u64,
        snd_max: u64,
    ) {
        for d in delivered {
            let rtt = now.saturating_since(d.sent_at);
            // Step 2: an ACK faster than min_RTT for a retransmitted segment is for the original.
            if d.rexmits > 0 && min_rtt.is_some_and(|m| rtt < m) {
                continue;
            }
            match self.xmit_ts {
                Some(t) if !sent_after(d.sent_at, d.end, t, self.end_seq) => {}
                _ => {
                    self.xmit_ts = Some(d.sent_at);
                    self.end_seq = d.end;
                    self.rtt = rtt;
                }
            }
        }
        // Step 3: delivery below the highest delivered sequence of a never-retransmitted
        // segment means the network reordered.
        for d in delivered {
            if d.end < self.fack && d.rexmits == 0 {
                self.reordering_seen = true;
                if self.persist_from == PersistFrom::Reordering && self.reo_wnd_mult > 1 {
                    self.reo_wnd_persist = REO_WND_PERSIST;
                }
            }
            self.fack = self.fack.max(d.end);
        }
        // Step 4: widen the window after a D-SACK, at most once per round trip.
        if dsack && !matches!(self.dsack_round, Some(r) if snd_una < r) {
            // Bounded only to keep the arithmetic finite: reo_wnd is capped by SRTT anyway.
            self.reo_wnd_mult = (self.reo_wnd_mult + 1).min(1 << 10);
            self.dsack_round = Some(snd_max);
            self.reo_wnd_persist = REO_WND_PERSIST;
        }
    }

    /// Called at the end of each recovery episode: the widened window decays after 16.
    pub fn on_recovery_end(&mut self) {
        if self.reo_wnd_persist > 0 {
            self.reo_wnd_persist -= 1;
            if self.reo_wnd_persist == 0 {
                self.reo_wnd_mult = 1;
            }
        }
    }

    /// RFC 8985 §6.2 step 4 RACK_update_reo_wnd.
    pub fn reo_wnd(
        &self,
        in_recovery: bool,
        segs_sacked: u32,
        dup_thresh: u32,
        min_rtt: Option<Duration>,
        srtt: Option<Duration>,
    ) -> Duration {
        reo_wnd(
            self.reordering_seen,
            self.reo_wnd_mult,
            in_recovery || segs_sacked >= dup_thresh,
            min_rtt,
            srtt,
        )
    }

    /// Whether a segment sent at `sent_at` and ending at `end` was sent before the most
    /// recently delivered one (RFC 8985 §6.2 step 5's first test): only such a segment can be
    /// found lost by `detect_loss`.
    pub fn sent_before_latest(&self, sent_at: Time, end: u64) -> bool {
        self.xmit_ts
            .is_some_and(|ts| sent_after(ts, self.end_seq, sent_at, end))
    }

    /// RFC 8985 §6.2 step 5 RACK_detect_loss: mark lost every outstanding segment sent before
    /// the most recently delivered one and outstanding for longer than RACK.rtt + reo_wnd, and
    /// say when the reordering timer must fire for the others. `sent` gives (send time, end
    /// sequence) of a segment that is still outstanding (not acknowledged, not already marked
    /// lost) and `None` for the others; `mark_lost` marks one.
    pub fn detect_loss<S>(
        &self,
        now: Time,
        reo_wnd: Duration,
        segments: impl Iterator<Item = S>,
        sent: impl Fn(&S) -> Option<(Time, u64)>,
        mut mark_lost: impl FnMut(S),
    ) -> LossScan {
        let Some(rack_ts) = self.xmit_ts else {
            return LossScan::default();
        };
        let mut newly = false;
        let mut wait = Duration::ZERO;
        for s in segments {
            let Some((sent_at, end)) = sent(&s) else {
                continue;
            };
            if !sent_after(rack_ts, self.end_seq, sent_at, end) {
                continue;
            }
            let deadline = sent_at + self.rtt + reo_wnd;
            if deadline <= now {
                mark_lost(s);
                newly = true;
            } else {
                wait = wait.max(deadline - now);
            }
        }
        LossScan {
            newly_lost: newly,
            timer: (!wait.is_zero()).then(|| now + wait),
        }
    }

    /// RFC 8985 §6.3 RACK_mark_losses_on_RTO: besides the first outstanding segment, one sent
    /// at `sent_at` is lost at `now` only if "Segment.xmit_ts <= Now() - RACK.rtt -
    /// RACK.reo_wnd". (Linux's tcp_timeout_mark_lost uses a reordering window of 0 here.)
    pub fn expired_on_rto(&self, now: Time, reo_wnd: Duration, sent_at: Time) -> bool {
        sent_at + self.rtt + reo_wnd <= now
    }

    /// RFC 8985 §7.4 on every ACK while a probe is outstanding. A new-data probe's episode ends
    /// when it is acknowledged (RACK handles any loss). A retransmitted probe was spurious if a
    /// D-SACK reports the duplicate; if instead data beyond the probe is acknowledged without
    /// one, the probe alone arrived and repaired a loss: returns true (congestion response).
    pub fn tlp_loss_repaired(&mut self, snd_una: u64, dsack: bool) -> bool {
        let Some(end) = self.tlp_end_seq else {
            return false;
        };
        if snd_una < end {
            return false;
        }
        if !self.tlp_is_retrans || dsack {
            self.tlp_end_seq = None;
            return false;
        }
        if snd_una > end {
            self.tlp_end_seq = None;
            return true;
        }
        false
    }

    /// RFC 8985 §7.2 probe-timer policy, for TCP and SCTP alike: no probe while in loss
    /// recovery, with nothing in flight, or while a probe is outstanding; otherwise
    /// `now` + `Rack::pto`, but no later than the retransmission timer (`rto_at`: TCP's RTO,
    /// SCTP's earliest T3-rtx): "If Now() + PTO > TCP_RTO_expiration(): PTO =
    /// TCP_RTO_expiration() - Now()" (TLP_calc_PTO), so the probe goes in the timer's place.
    pub fn pto_deadline(
        &self,
        now: Time,
        srtt: Option<Duration>,
        flight_segments: usize,
        multi_extra: Duration,
        in_recovery: bool,
        rto_at: Option<Time>,
    ) -> Option<Time> {
        if in_recovery || flight_segments == 0 || self.tlp_end_seq.is_some() {
            return None;
        }
        let at = now + Self::pto(srtt, flight_segments, multi_extra);
        Some(match rto_at {
            Some(r) if at > r => r,
            _ => at,
        })
    }

    /// RFC 8985 §7.2 probe timeout length: 2·SRTT, plus WCDelAckT when one segment is in
    /// flight, else plus `multi_extra` (zero in RFC 8985; 2 ms in draft-05, which seed 002
    /// §II.C follows); 1 s before the first RTT sample.
    pub fn pto(srtt: Option<Duration>, flight_segments: usize, multi_extra: Duration) -> Duration {
        match srtt {
            Some(s) if flight_segments == 1 => s * 2 + WC_DEL_ACK_T,
            Some(s) => s * 2 + multi_extra,
            None => Duration::from_secs(1),
        }
    }
}

/// RFC 8985 §6.2 step 4 RACK_update_reo_wnd: zero when no reordering has been seen and the
/// connection is in recovery or has `dup_thresh` segments SACKed (`loss_likely`), or before any
/// RTT sample; else `reo_wnd_mult` quarters of min_RTT, at most SRTT.
pub fn reo_wnd(
    reordering_seen: bool,
    reo_wnd_mult: u32,
    loss_likely: bool,
    min_rtt: Option<Duration>,
    srtt: Option<Duration>,
) -> Duration {
    if !reordering_seen && loss_likely {
        return Duration::ZERO;
    }
    let Some(min_rtt) = min_rtt else {
        return Duration::ZERO;
    };
    let w = (min_rtt * reo_wnd_mult as u64) / 4;
    srtt.map_or(w, |s| w.min(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(end: u64, ms: u64) -> Delivered {
        Delivered {
            end,
            sent_at: Time::from_millis(ms),
            rexmits: 0,
        }
    }

    #[test]
    fn reo_wnd_is_quarter_min_rtt_until_dupthresh_sacked_without_reordering() {
        let mut r = Rack::new();
        let min = Some(Duration::from_millis(100));
        assert_eq!(r.reo_wnd(false, 1, 3, min, min), Duration::from_millis(25));
        assert_eq!(r.reo_wnd(false, 3, 3, min, min), Duration::ZERO);
        assert_eq!(r.reo_wnd(true, 1, 3, min, min), Duration::ZERO);
        r.on_ack(Time::from_millis(200), &[d(300, 100)], min, false, 1, 500);
        r.on_ack(Time::from_millis(201), &[d(200, 100)], min, false, 1, 500);
        assert!(r.reordering_seen);
        assert_eq!(r.reo_wnd(true, 5, 3, min, min), Duration::from_millis(25));
        // A D-SACK widens it to 2·min_RTT/4 for 16 recoveries.
        r.on_ack(Time::from_millis(202), &[], min, true, 1, 500);
        assert_eq!(r.reo_wnd(true, 5, 3, min, min), Duration::from_millis(50));
        for _ in 0..16 {
            r.on_recovery_end();
        }
        assert_eq!(r.reo_wnd_mult, 1);
    }

    /// Widens the window with a D-SACK, then runs `recoveries` recoveries, each with one
    /// reordered delivery (step 3) when `reordered`; returns the multiplier left.
    fn mult_after(persist: PersistFrom, recoveries: u32, reordered: bool) -> u32 {
        let mut r = Rack::with_persistence(persist);
        let min = Some(Duration::from_millis(100));
        r.on_ack(Time::from_millis(200), &[], min, true, 1, 500);
        assert_eq!(r.reo_wnd_mult, 2);
        for i in 0..u64::from(recoveries) {
            if reordered {
                let base = 1000 + 10 * i;
                r.on_ack(
                    Time::from_millis(base),
                    &[d(base + 5, base)],
                    min,
                    false,
                    1,
                    5000,
                );
                r.on_ack(
                    Time::from_millis(base + 1),
                    &[d(base + 4, base)],
                    min,
                    false,
                    1,
                    5000,
                );
            }
            r.on_recovery_end();
        }
        r.reo_wnd_mult
    }

    #[test]
    fn rfc8985_persistence_counts_from_the_last_dsack_only() {
        assert_eq!(mult_after(PersistFrom::Dsack, 15, true), 2);
        assert_eq!(
            mult_after(PersistFrom::Dsack, 16, true),
            1,
            "reordering does not extend it"
        );
    }

    #[test]
    fn seed002_persistence_restarts_at_every_detected_reordering() {
        assert_eq!(
            mult_after(PersistFrom::Reordering, 40, true),
            2,
            "constant reordering keeps it"
        );
        assert_eq!(
            mult_after(PersistFrom::Reordering, 16, false),
            1,
            "16 quiet recoveries reset it"
        );
    }

    #[test]
    fn pto_is_armed_only_outside_recovery_with_data_in_flight_and_never_after_the_rto() {
        let mut r = Rack::new();
        let (now, s, z) = (
            Time::from_millis(1000),
            Some(Duration::from_millis(100)),
            Duration::ZERO,
        );
        assert_eq!(
            r.pto_deadline(now, s, 5, z, false, None),
            Some(Time::from_millis(1200))
        );
        assert_eq!(
            r.pto_deadline(now, s, 5, z, true, None),
            None,
            "in recovery"
        );
        assert_eq!(
            r.pto_deadline(now, s, 0, z, false, None),
            None,
            "nothing in flight"
        );
        let rto = Some(Time::from_millis(1150));
        assert_eq!(
            r.pto_deadline(now, s, 5, z, false, rto),
            Some(Time::from_millis(1150)),
            "in the RTO's place"
        );
        assert_eq!(
            r.pto_deadline(now, s, 5, z, false, Some(Time::from_millis(1201))),
            Some(Time::from_millis(1200))
        );
        r.tlp_end_seq = Some(10);
        assert_eq!(
            r.pto_deadline(now, s, 5, z, false, None),
            None,
            "a probe is outstanding"
        );
    }

    #[test]
    fn on_rto_only_segments_older_than_rack_rtt_plus_reo_wnd_are_lost() {
        let mut r = Rack::new();
        r.rtt = Duration::from_millis(100);
        let (now, reo) = (Time::from_millis(1_000), Duration::from_millis(25));
        assert!(r.expired_on_rto(now, reo, Time::from_millis(875)));
        assert!(!r.expired_on_rto(now, reo, Time::from_millis(876)));
    }

    #[test]
    fn pto_is_two_srtt_plus_delayed_ack_allowance_for_one_segment() {
        let s = Some(Duration::from_millis(100));
        let z = Duration::ZERO;
        assert_eq!(Rack::pto(s, 5, z), Duration::from_millis(200));
        assert_eq!(Rack::pto(s, 1, z), Duration::from_millis(400));
        assert_eq!(Rack::pto(None, 5, z), Duration::from_secs(1));
        // Seed 002 §II.C: 2·SRTT + 2 ms with several chunks out.
        let two = Duration::from_millis(2);
        assert_eq!(Rack::pto(s, 5, two), Duration::from_millis(202));
        assert_eq!(Rack::pto(s, 1, two), Duration::from_millis(400));
    }
}
