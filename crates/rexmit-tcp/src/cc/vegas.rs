//! TCP Vegas (L. Brakmo and L. Peterson, "TCP Vegas: End to End Congestion Avoidance on a
//! Global Internet", IEEE JSAC 13(8), 1995). Once per round trip Vegas compares the expected
//! rate cwnd/BaseRTT with the actual rate cwnd/RTT; their difference times BaseRTT, `diff`, is
//! the number of segments the connection keeps queued in the network. Congestion avoidance
//! keeps diff between α and β by one segment per round trip (§3.2); slow start grows every
//! other round trip and ends when diff exceeds γ (§3.3).
//!
//! Where the paper leaves a choice open this follows ns-3.44's `TcpVegas` (the validation
//! reference): RTT is the smallest sample of the round and a round needs more than two samples
//! (so that not all are delayed-ACK samples), else it grows as Reno; leaving slow start sets
//! cwnd to at most the target window plus one segment; ssthresh is kept at least 3/4 of cwnd;
//! the decrease at a loss is ns-3's `GetSsThresh`, ssthresh = max(min(ssthresh, cwnd − SMSS),
//! 2·SMSS) (Linux's tcp_vegas halves instead); during loss recovery Vegas rests and the window
//! grows as Reno's. Unlike ns-3 (and Linux), slow start holds cwnd every other round (§3.3;
//! `slow_start_hold = 0` grows every round, as they do),
//! diff is not rounded to whole segments, and samples are each ACK's RTT rather than SRTT.

use super::declared::{switch, Declared};
use super::delay::RttRounds;
use super::registry::{CcPlugin, ParamSpec};
use super::window::window_in_field_w;
use super::{AckSample, CongestionControl, CongestionEvent, RecoveryEnd, RecoveryStart, Window};
use std::sync::Arc;

pub(crate) fn plugin() -> Arc<dyn CcPlugin> {
    let segments = |name, doc, default| ParamSpec::new(name, doc, default, 0.0, 1000.0);
    Declared {
        name: "vegas",
        doc: "TCP Vegas (Brakmo & Peterson 1995): alpha..beta segments queued, per RTT",
        params: vec![
            segments(
                "alpha",
                "grow by a segment per RTT while diff < alpha (segments)",
                2.0,
            ),
            segments(
                "beta",
                "shrink by a segment per RTT while diff > beta (segments)",
                4.0,
            ),
            segments(
                "gamma",
                "leave slow start once diff > gamma (segments)",
                1.0,
            ),
            switch(
                "slow_start_hold",
                "slow start grows every other round trip, §3.3 (1: on; 0: every round, as ns-3 and Linux)",
                true,
            ),
        ],
        build: |w, v| {
            let mut vegas = Vegas::new(w, v[0], v[1], v[2]);
            vegas.hold_rounds = v[3] != 0.0;
            Box::new(vegas)
        },
    }
    .registered()
}

#[derive(Clone, Debug)]
pub struct Vegas {
    w: Window,
    alpha: f64,
    beta: f64,
    gamma: f64,
    rtts: RttRounds,
    /// A loss-recovery episode is open: Vegas rests (ns-3's CongestionStateSet).
    in_recovery: bool,
    /// §3.3: "exponential growth only every other RTT" — this round holds cwnd.
    ss_hold: bool,
    /// Whether slow start holds every other round (§3.3; `slow_start_hold`); without it slow
    /// start grows every round, as ns-3's and Linux's Vegas do.
    hold_rounds: bool,
}

impl Vegas {
    pub fn new(w: Window, alpha: f64, beta: f64, gamma: f64) -> Self {
        Vegas {
            w,
            alpha,
            beta,
            gamma,
            rtts: RttRounds::default(),
            in_recovery: false,
            ss_hold: false,
            hold_rounds: true,
        }
    }

    /// ns-3's TcpVegas::GetSsThresh: max(min(ssthresh, cwnd − SMSS), 2·SMSS).
    fn reduced_ssthresh(&self) -> u64 {
        let s = self.w.smss;
        self.w
            .ssthresh
            .min(self.w.cwnd.saturating_sub(s))
            .max(2 * s)
    }

    /// The once-per-round decision (§3.2, §3.3) with this round's diff.
    fn adjust(&mut self, diff: f64, ack: &AckSample) {
        let s = self.w.smss;
        if self.w.in_slow_start() {
            if diff > self.gamma {
                // §3.3: leave slow start for linear increase/decrease, at no more than the
                // window the actual rate needs (ns-3: target + 1 segment).
                let target = (self.w.segments() - diff).floor() as u64 + 1;
                self.w.cwnd = self.w.cwnd.min(target * s).max(2 * s);
                self.w.ssthresh = self.reduced_ssthresh();
            } else {
                self.ss_hold = self.hold_rounds && !self.ss_hold;
                if !self.ss_hold {
                    self.w.slow_start(ack.acked);
                }
            }
        } else if diff > self.beta {
            // §3.2: too much queued: one segment less this round.
            self.w.cwnd = self.w.cwnd.saturating_sub(s).max(2 * s);
            self.w.ssthresh = self.reduced_ssthresh();
        } else if diff < self.alpha {
            // §3.2: too little queued: one segment more.
            self.w.cwnd += s;
        }
        // ns-3 and Linux: ssthresh no lower than 3/4 of cwnd.
        self.w.ssthresh = self.w.ssthresh.max(self.w.cwnd / 4 * 3);
    }
}

impl CongestionControl for Vegas {
    fn on_delivery(&mut self, ack: &AckSample) {
        self.rtts.on_delivery(ack);
    }
    fn on_ack(&mut self, ack: &AckSample) {
        if self.in_recovery {
            self.w.grow(ack.acked, 1.0);
            return;
        }
        if self.rtts.at_round_end(ack) {
            match self.rtts.backlog(self.w.segments()) {
                Some(diff) if self.rtts.count > 2 => self.adjust(diff, ack),
                _ => self.w.grow(ack.acked, 1.0),
            }
            self.rtts.next_round(ack);
        } else if self.w.in_slow_start() && !self.ss_hold {
            self.w.slow_start(ack.acked);
        }
    }
    fn on_congestion_event(&mut self, _ev: &CongestionEvent) {
        self.w.ssthresh = self.reduced_ssthresh();
        self.w.cwnd = self.w.ssthresh;
        self.w.ca_credit = 0.0;
    }
    fn on_recovery_start(&mut self, _ev: &RecoveryStart) {
        self.in_recovery = true;
    }
    fn on_recovery_end(&mut self, _ev: &RecoveryEnd) {
        self.in_recovery = false;
        self.rtts.restart();
    }
    window_in_field_w!();
    fn name(&self) -> &str {
        "vegas"
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_events::loss;
    use super::*;
    use rexmit_time::{Duration, Time};

    const SMSS: u64 = 1000;

    /// An ACK at `t` ms of one segment with RTT `rtt` ms, snd_una / snd_nxt in segments.
    fn ack(t: u64, rtt: u64, una: u64, nxt: u64) -> AckSample {
        AckSample {
            rtt: Some(Duration::from_millis(rtt)),
            snd_una: una * SMSS,
            snd_nxt: nxt * SMSS,
            ..super::super::test_events::sample(t, SMSS)
        }
    }

    /// A Vegas in congestion avoidance at `cwnd` segments whose first round (one ACK, RTT
    /// 100 ms = BaseRTT) has ended; snd_una 0.
    fn avoiding(cwnd: u64) -> Vegas {
        start(Window::new(cwnd * SMSS, cwnd * SMSS, SMSS))
    }

    fn start(w: Window) -> Vegas {
        let mut v = Vegas::new(w, 2.0, 4.0, 1.0);
        let first = ack(0, 100, 0, v.window() / SMSS);
        v.on_delivery(&first);
        v.on_ack(&first); // one sample: Reno's increase
        v
    }

    /// ACKs of one segment each with RTT `rtt` ms, a new segment sent per ACK (flight =
    /// cwnd), up to the one that ends the current round; cwnd in segments after it.
    fn round(v: &mut Vegas, una: &mut u64, rtt: u64) -> u64 {
        let end = v.rtts.round_end() / SMSS;
        while *una < end {
            *una += 1;
            let a = ack(rtt * *una, rtt, *una, *una + v.window() / SMSS);
            v.on_delivery(&a);
            v.on_ack(&a);
        }
        v.window() / SMSS
    }

    #[test]
    fn avoidance_holds_between_alpha_and_beta_grows_below_and_shrinks_above() {
        // cwnd 20, BaseRTT 100 ms. §3.2: diff = cwnd · (RTT − BaseRTT) / RTT.
        let mut v = avoiding(20);
        let una = &mut 0;
        // RTT 100 ms: diff 0 < α = 2 → +1 segment at the round's end.
        assert_eq!(round(&mut v, una, 100), 21);
        // RTT 115 ms at cwnd 21: diff = 21 · 15/115 = 2.7, in [α, β]: hold.
        assert_eq!(round(&mut v, una, 115), 21);
        // RTT 150 ms: diff = 21 · 50/150 = 7 > β = 4 → −1 segment, ssthresh below cwnd.
        assert_eq!(round(&mut v, una, 150), 20);
        assert_eq!(v.ssthresh(), 19 * SMSS);
        // Only at the round's end: the ACKs inside it leave cwnd alone.
        let mut v = avoiding(20);
        let a = ack(10, 100, 1, 21);
        v.on_delivery(&a);
        v.on_ack(&a);
        assert_eq!(v.window(), 20 * SMSS);
    }

    #[test]
    fn slow_start_grows_every_other_round_and_ends_when_diff_exceeds_gamma() {
        let mut v = start(Window::new(4 * SMSS, u64::MAX / 2, SMSS));
        assert_eq!(v.window(), 5 * SMSS);
        let una = &mut 0;
        // §3.3: a round that grows (+1 per ACK; its last ACK decides the next round: hold),
        // a round that holds (its last ACK begins the next growing round), and so on.
        assert_eq!(round(&mut v, una, 100), 8);
        assert_eq!(round(&mut v, una, 100), 9);
        // (The round's end was set when 8 segments were in flight: 7 ACKs grow it.)
        assert_eq!(round(&mut v, una, 100), 16);
        // diff = 16 · 20/120 = 2.7 > γ = 1: linear mode at target + 1 = floor(13.3) + 1.
        assert_eq!(round(&mut v, una, 120), 14);
        assert!(!v.w.in_slow_start());
    }

    #[test]
    fn without_the_hold_slow_start_grows_every_round() {
        // `slow_start_hold = 0` (ns-3's and Linux's slow start): every round grows, where the
        // paper's rule (the test above: 8, 9, 16) holds every other one.
        let mut v = start(Window::new(4 * SMSS, u64::MAX / 2, SMSS));
        v.hold_rounds = false;
        let una = &mut 0;
        let grown: Vec<u64> = (0..3).map(|_| round(&mut v, una, 100)).collect();
        // One segment more per ACK in every round: the flight about doubles each round.
        assert_eq!(grown, [9, 17, 33]);
        assert!(v.w.in_slow_start());
        // diff = 33 · 30/130 = 7.6 > γ still ends it.
        round(&mut v, una, 130);
        assert!(!v.w.in_slow_start());
    }

    #[test]
    fn loss_sets_ssthresh_as_ns3_one_segment_below_cwnd_and_recovery_grows_as_reno() {
        let mut v = avoiding(20);
        v.w.ssthresh = 30 * SMSS;
        v.on_congestion_event(&loss(Time::ZERO, 20 * SMSS, SMSS));
        assert_eq!((v.window(), v.ssthresh()), (19 * SMSS, 19 * SMSS));
        // In recovery Vegas rests: a window of ACKs at RTT 300 ms (diff far above β) adds
        // Reno's segment.
        v.on_recovery_start(&RecoveryStart {
            now: Time::ZERO,
            cause: super::super::CongestionCause::DuplicateAcks,
            recovery_point: 0,
        });
        for i in 1..=19 {
            let a = ack(10 + i, 300, i, 40);
            v.on_delivery(&a);
            v.on_ack(&a);
        }
        assert_eq!(v.window(), 20 * SMSS);
        // After it the next ACK begins a round: no Vegas decision on the stale samples.
        v.on_recovery_end(&RecoveryEnd {
            now: Time::ZERO,
            by_timeout: false,
        });
        let a = ack(40, 300, 40, 60);
        v.on_delivery(&a);
        v.on_ack(&a);
        assert_eq!((v.window(), v.rtts.round_end()), (20 * SMSS, 60 * SMSS));
    }
}
