//! YeAH-TCP (A. Baiocchi, A. P. Castellani and F. Vacirca, "YeAH-TCP: Yet Another Highspeed
//! TCP", PFLDnet 2007). Two modes: Fast, an aggressive Scalable-TCP increase while the queue
//! the flow builds is small, and Slow, Reno's increase, once the estimated queue Q = cwnd ·
//! (RTT − BaseRTT)/RTT exceeds α segments or the queueing share of the RTT, (RTT − BaseRTT) /
//! BaseRTT, exceeds 1/φ. In Slow mode a queue above α is drained at once by a precautionary
//! decongestion: cwnd −= min(Q/γ, cwnd/2^ε). At a loss cwnd loses max(Q, cwnd/2^δ), at most
//! half, unless the flow has been in Slow mode for ρ rounds in a row — competing with Reno
//! flows — when it halves as Reno.
//!
//! Where the paper leaves a choice open this follows ns-3.44's `TcpYeah` (as Linux's tcp_yeah):
//! RTT is the smallest sample of each round, decided at the round's end if it had more than
//! two samples; precautionary decongestion never goes below the Reno-competition estimate
//! `reno_count` (halved at each loss, reset after ζ Fast rounds); Fast mode is Scalable TCP with
//! one segment per min(cwnd, `stcp_ai_factor`) acknowledged segments. Unlike ns-3, the Slow-mode
//! test uses 1/φ as a fraction (ns-3 divides integers, so any queueing at all means Slow).

use super::declared::{count, Declared};
use super::delay::RttRounds;
use super::registry::CcPlugin;
use super::window::window_in_field_w;
use super::{AckSample, CongestionControl, CongestionEvent, RecoveryEnd, Window};
use std::sync::Arc;

pub(crate) fn plugin() -> Arc<dyn CcPlugin> {
    Declared {
        name: "yeah",
        doc: "YeAH-TCP (Baiocchi et al. 2007): Scalable TCP while the queue is small, else Reno",
        params: vec![
            count(
                "alpha",
                "largest queue allowed at the bottleneck (segments)",
                80.0,
                0.0,
                1e6,
            ),
            count(
                "gamma",
                "fraction 1/gamma of the queue drained per RTT",
                1.0,
                1.0,
                1e6,
            ),
            count(
                "delta",
                "a loss removes at least cwnd/2^delta",
                3.0,
                0.0,
                31.0,
            ),
            count(
                "epsilon",
                "decongestion removes at most cwnd/2^epsilon",
                1.0,
                0.0,
                31.0,
            ),
            count(
                "phy",
                "Slow mode once queueing exceeds BaseRTT/phy",
                8.0,
                1.0,
                1e6,
            ),
            count(
                "rho",
                "Slow rounds in a row that mean competing with Reno",
                16.0,
                0.0,
                1e6,
            ),
            count(
                "zeta",
                "Fast rounds after which reno_count resets",
                50.0,
                0.0,
                1e6,
            ),
            count(
                "stcp_ai_factor",
                "Fast mode: +1 segment per min(cwnd, this) ACKed",
                100.0,
                1.0,
                1e6,
            ),
        ],
        build: |w, v| {
            let n = |i: usize| v[i] as u64;
            Box::new(Yeah::new(
                w,
                Params {
                    alpha: n(0),
                    gamma: n(1),
                    delta: n(2) as u32,
                    epsilon: n(3) as u32,
                    phy: n(4),
                    rho: n(5),
                    zeta: n(6),
                    stcp_ai_factor: n(7),
                },
            ))
        },
    }
    .registered()
}

#[derive(Clone, Copy, Debug)]
pub struct Params {
    pub alpha: u64,
    pub gamma: u64,
    pub delta: u32,
    pub epsilon: u32,
    pub phy: u64,
    pub rho: u64,
    pub zeta: u64,
    pub stcp_ai_factor: u64,
}

#[derive(Clone, Debug)]
pub struct Yeah {
    w: Window,
    p: Params,
    rtts: RttRounds,
    /// Slow rounds in a row (0: Fast mode).
    slow_rounds: u64,
    /// The window a competing Reno flow would have (segments).
    reno_count: u64,
    fast_count: u64,
    /// The queue estimated at the last round's end (segments).
    last_q: u64,
}

impl Yeah {
    pub fn new(w: Window, p: Params) -> Self {
        Yeah {
            w,
            p,
            rtts: RttRounds::default(),
            slow_rounds: 0,
            reno_count: 2,
            fast_count: 0,
            last_q: 0,
        }
    }

    pub fn fast_mode(&self) -> bool {
        self.slow_rounds == 0
    }

    fn segments(&self) -> u64 {
        self.w.cwnd / self.w.smss
    }

    /// At a round's end: Fast or Slow mode, and the precautionary decongestion.
    fn end_round(&mut self) {
        let (Some(base), Some(rtt)) = (self.rtts.base, self.rtts.min) else {
            return;
        };
        let Some(q) = self.rtts.backlog(self.segments() as f64) else {
            return;
        };
        let q = q as u64;
        let queueing = rtt.saturating_sub(base).as_nanos() as f64 / base.as_nanos().max(1) as f64;
        if q > self.p.alpha || queueing > 1.0 / self.p.phy as f64 {
            // Slow mode.
            let mut cwnd = self.segments();
            if q > self.p.alpha && cwnd > self.reno_count {
                // Precautionary decongestion: drain the queue, at most cwnd/2^ε.
                let reduction = (q / self.p.gamma).min(cwnd >> self.p.epsilon);
                cwnd = (cwnd - reduction).max(self.reno_count);
                self.w.cwnd = cwnd * self.w.smss;
                self.w.ssthresh = self.w.cwnd;
            }
            self.reno_count = if self.reno_count <= 2 {
                (cwnd >> 1).max(2)
            } else {
                self.reno_count + 1
            };
            self.slow_rounds += 1;
        } else {
            self.fast_count += 1;
            if self.fast_count > self.p.zeta {
                self.reno_count = 2;
                self.fast_count = 0;
            }
            self.slow_rounds = 0;
        }
        self.last_q = q;
    }
}

impl CongestionControl for Yeah {
    fn on_delivery(&mut self, ack: &AckSample) {
        self.rtts.on_delivery(ack);
    }
    fn on_ack(&mut self, ack: &AckSample) {
        let per_rtt = if self.fast_mode() {
            // Scalable TCP: one segment per min(cwnd, ai) segments acknowledged.
            (self.w.segments() / self.p.stcp_ai_factor as f64).max(1.0)
        } else {
            1.0
        };
        self.w.grow(ack.acked, per_rtt);
        if self.rtts.at_round_end(ack) {
            if self.rtts.count > 2 {
                self.end_round();
            }
            self.rtts.next_round(ack);
        }
    }
    /// The decrease: max(Q, cwnd/2^δ) segments, at most half (not competing with Reno), or
    /// Reno's half.
    fn on_congestion_event(&mut self, ev: &CongestionEvent) {
        let s = self.w.smss;
        let flight = ev.base / s;
        let half = (flight >> 1).max(2);
        let reduction = if self.slow_rounds < self.p.rho {
            self.last_q.max(flight >> self.p.delta).min(half)
        } else {
            half
        };
        self.fast_count = 0;
        self.reno_count = (self.reno_count >> 1).max(2);
        self.w.ssthresh = ev.base.saturating_sub(reduction * s).max(2 * s);
        self.w.cwnd = self.w.ssthresh;
        self.w.ca_credit = 0.0;
    }
    fn on_recovery_end(&mut self, _ev: &RecoveryEnd) {
        self.rtts.restart();
    }
    window_in_field_w!();
    fn name(&self) -> &str {
        "yeah"
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_events::{loss, sample};
    use super::*;
    use rexmit_time::{Duration, Time};

    const SMSS: u64 = 1000;

    fn defaults() -> Params {
        Params {
            alpha: 80,
            gamma: 1,
            delta: 3,
            epsilon: 1,
            phy: 8,
            rho: 16,
            zeta: 50,
            stcp_ai_factor: 100,
        }
    }

    /// A round of `cwnd` ACKs at RTT `rtt` ms ended (the first sample, 100 ms, is BaseRTT).
    fn after_round(cwnd: u64, rtt: u64) -> Yeah {
        let mut y = Yeah::new(Window::new(cwnd * SMSS, cwnd * SMSS, SMSS), defaults());
        let at = |ms, una: u64| AckSample {
            rtt: Some(Duration::from_millis(ms)),
            snd_una: una * SMSS,
            snd_nxt: (una + cwnd) * SMSS,
            acked: 0,
            ..sample(0, 0)
        };
        y.on_delivery(&at(100, 0));
        y.on_ack(&at(100, 0));
        for una in 1..=cwnd {
            y.on_delivery(&at(rtt, una));
            y.on_ack(&at(rtt, una));
        }
        y
    }

    #[test]
    fn fast_mode_while_the_queue_is_small_slow_mode_and_decongestion_when_large() {
        // cwnd 400, RTT 110 ms: Q = 400 · 10/110 = 36 ≤ α = 80, queueing 10 % ≤ 1/φ = 12.5 %.
        let y = after_round(400, 110);
        assert!(y.fast_mode());
        assert_eq!(y.window(), 400 * SMSS);
        // RTT 125 ms: Q = 80 (not above α) but queueing 25 % > 12.5 %: Slow mode, no
        // decongestion; reno_count = cwnd/2.
        let y = after_round(400, 125);
        assert!(!y.fast_mode());
        assert_eq!((y.window(), y.reno_count), (400 * SMSS, 200));
        // RTT 150 ms: Q = 133 > α: cwnd −= min(Q/γ, cwnd/2) = 133.
        let y = after_round(400, 150);
        assert_eq!((y.window(), y.ssthresh()), (267 * SMSS, 267 * SMSS));
    }

    #[test]
    fn fast_mode_grows_as_scalable_slow_mode_as_reno() {
        // cwnd 1000 segments: Scalable adds 10 segments per window of ACKs, Reno 1.
        for (rtt, want) in [(100, 1010), (150, 1001)] {
            let mut y = after_round(1000, rtt);
            (y.w.cwnd, y.w.ca_credit) = (1000 * SMSS, 0.0);
            for _ in 0..1000 {
                y.on_ack(&AckSample {
                    snd_una: 1500 * SMSS,
                    ..sample(0, SMSS)
                });
            }
            assert!(
                (want..=want + 1).contains(&(y.window() / SMSS)),
                "rtt {rtt}: {}",
                y.window()
            );
        }
    }

    #[test]
    fn a_loss_removes_the_queue_or_an_eighth_unless_competing_with_reno() {
        // Q = 36 at the last round: max(36, 400/8 = 50) = 50 removed.
        let mut y = after_round(400, 110);
        y.on_congestion_event(&loss(Time::ZERO, 400 * SMSS, SMSS));
        assert_eq!(y.ssthresh(), 350 * SMSS);
        // After ρ = 16 Slow rounds in a row: Reno's half.
        let mut y = after_round(400, 125);
        y.slow_rounds = 16;
        y.on_congestion_event(&loss(Time::ZERO, 400 * SMSS, SMSS));
        assert_eq!(y.ssthresh(), 200 * SMSS);
    }

    #[test]
    fn a_loss_with_one_segment_in_flight_leaves_two_segments() {
        // Last round's Q = 36, so the reduction is min(max(36, 1/8), max(1/2, 2)) = 2 segments
        // against 1 in flight: ssthresh is the floor of 2 segments (RFC 5681 §3.1 eq. (4)'s
        // 2·SMSS; ns-3.44's TcpYeah::GetSsThresh wraps here, docs/validation_cc.md, "YeAH").
        let mut y = after_round(400, 110);
        y.on_congestion_event(&loss(Time::ZERO, SMSS, SMSS));
        assert_eq!((y.ssthresh(), y.window()), (2 * SMSS, 2 * SMSS));
    }
}
