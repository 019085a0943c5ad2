//! TCP-Illinois (S. Liu, T. Başar and R. Srikant, "TCP-Illinois: A Loss and Delay-Based
//! Congestion Control Algorithm for High-Speed Networks", VALUETOOLS 2006): loss decides when
//! the window shrinks, queueing delay how fast it grows and by how much it shrinks. Once per
//! RTT the average queueing delay d_a (the round's mean RTT minus BaseRTT) against the largest
//! seen, d_m, sets the increase α = f1(d_a) (α_max while the delay is small, falling to α_min
//! as it nears d_m) and the decrease β = f2(d_a) (β_min to β_max); cwnd += α/cwnd per ACK and
//! cwnd ← (1 − β)·cwnd at a loss (§3.1, the functions f1 and f2 of §3.2).
//!
//! Where the paper leaves a choice open this follows ns-3.44's `TcpIllinois` (as Linux's
//! tcp_illinois): below `win_thresh` segments α and β are Reno's (α_base, β_base); d_m is the
//! largest RTT of the connection minus BaseRTT, never reset; α returns to α_max only after d_a
//! stayed below d1 for θ rounds, or at once if it never rose above; a timeout resets α and β
//! to their base values. Delays are exact (ns-3 truncates them to whole milliseconds).

use super::declared::{count, Declared};
use super::delay::RttRounds;
use super::registry::{CcPlugin, ParamSpec};
use super::window::window_in_field_w;
use super::{AckSample, CongestionControl, CongestionEvent, Timeout, Window};
use rexmit_time::Duration;
use std::sync::Arc;

pub(crate) fn plugin() -> Arc<dyn CcPlugin> {
    let p = |name, doc, default, max| ParamSpec::new(name, doc, default, 0.0, max).open_min();
    Declared {
        name: "illinois",
        doc: "TCP-Illinois (Liu, Başar & Srikant 2006): alpha and beta from the queueing delay",
        params: vec![
            p(
                "alpha_min",
                "smallest increase, segments per RTT",
                0.3,
                1000.0,
            ),
            p(
                "alpha_max",
                "largest increase, segments per RTT",
                10.0,
                1000.0,
            ),
            p(
                "alpha_base",
                "increase below win_thresh (Reno: 1)",
                1.0,
                1000.0,
            ),
            p("beta_min", "smallest decrease fraction", 0.125, 1.0).open_max(),
            p("beta_max", "largest decrease fraction", 0.5, 1.0).open_max(),
            p(
                "beta_base",
                "decrease below win_thresh (Reno: 0.5)",
                0.5,
                1.0,
            )
            .open_max(),
            count(
                "win_thresh",
                "cwnd (segments) below which Illinois is Reno",
                15.0,
                0.0,
                1e6,
            ),
            count(
                "theta",
                "rounds of low delay before alpha returns to alpha_max",
                5.0,
                0.0,
                1e6,
            ),
        ],
        build: |w, v| {
            Box::new(Illinois::new(
                w,
                Params {
                    alpha_min: v[0],
                    alpha_max: v[1],
                    alpha_base: v[2],
                    beta_min: v[3],
                    beta_max: v[4],
                    beta_base: v[5],
                    win_thresh: v[6],
                    theta: v[7] as u32,
                },
            ))
        },
    }
    .registered()
}

#[derive(Clone, Copy, Debug)]
pub struct Params {
    pub alpha_min: f64,
    pub alpha_max: f64,
    pub alpha_base: f64,
    pub beta_min: f64,
    pub beta_max: f64,
    pub beta_base: f64,
    pub win_thresh: f64,
    pub theta: u32,
}

#[derive(Clone, Debug)]
pub struct Illinois {
    w: Window,
    p: Params,
    rtts: RttRounds,
    max_rtt: Option<Duration>,
    alpha: f64,
    beta: f64,
    /// d_a rose above d1 since α was last α_max (ns-3 m_rttAbove).
    rtt_above: bool,
    /// Consecutive rounds with d_a ≤ d1 (ns-3 m_rttLow).
    rtt_low: u32,
}

impl Illinois {
    pub fn new(w: Window, p: Params) -> Self {
        Illinois {
            w,
            p,
            rtts: RttRounds::default(),
            max_rtt: None,
            alpha: p.alpha_max,
            beta: p.beta_base,
            rtt_above: false,
            rtt_low: 0,
        }
    }

    /// Once per round: α and β from this round's average delay.
    fn recalc(&mut self) {
        if self.w.segments() < self.p.win_thresh {
            self.alpha = self.p.alpha_base;
            self.beta = self.p.beta_base;
            return;
        }
        let (Some(base), Some(max), Some(mean)) = (self.rtts.base, self.max_rtt, self.rtts.mean())
        else {
            return;
        };
        let dm = max.saturating_sub(base).as_secs_f64();
        let da = mean.saturating_sub(base).as_secs_f64();
        self.update_alpha(da, dm);
        self.beta = self.f2(da, dm);
    }

    /// §3.2 f1: α_max while d_a ≤ d1 = d_m/100, else κ1 / (κ2 + d_a), which falls from α_max
    /// at d1 to α_min at d_m; α_max again only after θ low-delay rounds (ns-3, Linux).
    fn update_alpha(&mut self, da: f64, dm: f64) {
        let (amin, amax) = (self.p.alpha_min, self.p.alpha_max);
        let d1 = dm / 100.0;
        if da <= d1 {
            if !self.rtt_above {
                self.alpha = amax;
            }
            self.rtt_low += 1;
            if self.rtt_low >= self.p.theta {
                self.rtt_low = 0;
                self.rtt_above = false;
                self.alpha = amax;
            }
            return;
        }
        self.rtt_above = true;
        let k1 = (dm - d1) * amin * amax / (amax - amin);
        let k2 = (dm - d1) * amin / (amax - amin) - d1;
        self.alpha = if amax > amin { k1 / (k2 + da) } else { amax };
    }

    /// §3.2 f2: β_min up to d2 = d_m/10, β_max from d3 = 8·d_m/10, linear between.
    fn f2(&self, da: f64, dm: f64) -> f64 {
        let (bmin, bmax) = (self.p.beta_min, self.p.beta_max);
        let (d2, d3) = (dm / 10.0, 8.0 * dm / 10.0);
        if da <= d2 {
            bmin
        } else if da < d3 {
            // κ3 + κ4·d_a with κ3 = (β_min·d3 − β_max·d2)/(d3 − d2), κ4 = (β_max − β_min)/(d3 − d2).
            (bmin * d3 - bmax * d2 + (bmax - bmin) * da) / (d3 - d2)
        } else {
            bmax
        }
    }

    pub fn alpha(&self) -> f64 {
        self.alpha
    }
    pub fn beta(&self) -> f64 {
        self.beta
    }
}

impl CongestionControl for Illinois {
    fn on_delivery(&mut self, ack: &AckSample) {
        if let Some(rtt) = ack.rtt {
            self.max_rtt = Some(self.max_rtt.map_or(rtt, |m| m.max(rtt)));
        }
        self.rtts.on_delivery(ack);
    }
    /// §3.1: cwnd += α/cwnd per ACK in congestion avoidance; slow start is Reno's.
    fn on_ack(&mut self, ack: &AckSample) {
        if self.rtts.at_round_end(ack) {
            self.recalc();
            self.rtts.next_round(ack);
        }
        self.w.grow(ack.acked, self.alpha);
    }
    /// §3.1: ssthresh = (1 − β)·W.
    fn on_congestion_event(&mut self, ev: &CongestionEvent) {
        self.w.decrease(ev.base, 1.0 - self.beta);
    }
    /// The decrease with the current β, then α and β back to their base values and a new
    /// round (ns-3's CongestionStateSet(CA_LOSS), after its GetSsThresh).
    fn on_timeout(&mut self, ev: &Timeout) {
        self.on_congestion_event(&ev.congestion_event());
        self.w.loss_window(ev);
        self.alpha = self.p.alpha_base;
        self.beta = self.p.beta_base;
        self.rtt_low = 0;
        self.rtt_above = false;
        self.rtts.restart();
    }
    window_in_field_w!();
    fn name(&self) -> &str {
        "illinois"
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_events::{loss, sample, timeout};
    use super::*;
    use rexmit_time::Time;

    const SMSS: u64 = 1000;

    fn defaults() -> Params {
        Params {
            alpha_min: 0.3,
            alpha_max: 10.0,
            alpha_base: 1.0,
            beta_min: 0.125,
            beta_max: 0.5,
            beta_base: 0.5,
            win_thresh: 15.0,
            theta: 5,
        }
    }

    /// An Illinois at `cwnd` segments (in avoidance) whose first round saw BaseRTT 100 ms,
    /// whose largest RTT is 200 ms (d_m = 100 ms), after one more round of RTT `rtt` ms.
    fn after_round(cwnd: u64, rtt: u64) -> Illinois {
        let mut c = Illinois::new(Window::new(cwnd * SMSS, cwnd * SMSS, SMSS), defaults());
        let at = |ms, una: u64| AckSample {
            rtt: Some(Duration::from_millis(ms)),
            snd_una: una * SMSS,
            snd_nxt: (una + cwnd) * SMSS,
            ..sample(0, SMSS)
        };
        c.on_delivery(&at(100, 0));
        c.on_ack(&at(100, 0)); // round 0 ends: d_a = 0
        c.max_rtt = Some(Duration::from_millis(200));
        for una in 1..=cwnd {
            c.on_delivery(&at(rtt, una));
            c.on_ack(&at(rtt, una));
        }
        c
    }

    #[test]
    fn alpha_and_beta_follow_the_average_queueing_delay() {
        // d_a = 0 ≤ d1 = 1 ms: α = α_max, β = β_min.
        let c = after_round(50, 100);
        assert_eq!((c.alpha(), c.beta()), (10.0, 0.125));
        // d_a = 50 ms: β on the line between d2 = 10 and d3 = 80 ms; α = κ1/(κ2 + d_a).
        let c = after_round(50, 150);
        let beta = (0.125 * 0.08 - 0.5 * 0.01 + 0.375 * 0.05) / 0.07;
        assert!((c.beta() - beta).abs() < 1e-9, "{}", c.beta());
        let (dm, d1) = (0.1, 0.001);
        let alpha = ((dm - d1) * 0.3 * 10.0 / 9.7) / ((dm - d1) * 0.3 / 9.7 - d1 + 0.05);
        assert!((c.alpha() - alpha).abs() < 1e-9, "{}", c.alpha());
        assert!(c.alpha() > 0.3 && c.alpha() < 1.0);
        // d_a = d_m: α_min, β_max.
        let c = after_round(50, 200);
        assert!((c.alpha() - 0.3).abs() < 1e-9);
        assert_eq!(c.beta(), 0.5);
        // Below win_thresh: Reno's α and β whatever the delay.
        let c = after_round(10, 200);
        assert_eq!((c.alpha(), c.beta()), (1.0, 0.5));
    }

    #[test]
    fn window_grows_alpha_per_rtt_and_loses_beta_at_a_loss() {
        let mut c = after_round(50, 100); // α = 10, β = 1/8
                                          // cwnd 1000 segments: α = 10 per RTT is one segment per 100 ACKs (mid-round).
        (c.w.cwnd, c.w.ca_credit) = (1000 * SMSS, 0.0);
        let mid = AckSample {
            snd_una: 60 * SMSS,
            ..sample(0, SMSS)
        };
        for _ in 0..99 {
            c.on_ack(&mid);
        }
        assert_eq!(c.window(), 1000 * SMSS);
        c.on_ack(&mid);
        assert_eq!(c.window(), 1001 * SMSS);
        c.on_congestion_event(&loss(Time::ZERO, 56 * SMSS, SMSS));
        assert_eq!(c.window(), 49 * SMSS); // 7/8 of 56
                                           // A timeout: the decrease with β, then Reno's base values.
        c.on_timeout(&timeout(Time::ZERO, 48 * SMSS, SMSS));
        assert_eq!((c.window(), c.ssthresh()), (SMSS, 42 * SMSS));
        assert_eq!((c.alpha(), c.beta()), (1.0, 0.5));
    }
}
