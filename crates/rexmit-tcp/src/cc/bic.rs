//! BIC-TCP (L. Xu, K. Harfoush and I. Rhee, "Binary Increase Congestion Control (BIC) for Fast
//! Long-Distance Networks", INFOCOM 2004). After a loss at window W_max the window is cut to
//! β·W_max and grows back by a binary search for W_max: each RTT it goes half-way (here 1/b of
//! the way) to W_max, by at most S_max segments (additive increase) and at least S_min near
//! W_max. Past W_max it probes for a new maximum, slowly at first, then as slow start, then
//! linearly by S_max (max probing). Fast convergence: a loss below the previous W_max means a
//! new flow competes, so W_max is lowered further, to (1 + β)/2 of the window.
//!
//! Where the paper leaves a choice open this follows ns-3.44's `TcpBic` (after Linux's
//! tcp_bic): the search divides the distance by `b` = 4; within a segment of W_max (and in the
//! first `b` segments past it) the window grows by b/`smooth_part` segments per RTT; below
//! `low_wnd` segments BIC is Reno (also its halving); before any loss the increase is at least
//! 5 % per RTT. Unlike ns-3, fast convergence sets W_max = (1 + β)/2 · cwnd as the paper and
//! Linux do (ns-3: β · cwnd), and the per-RTT increase is not rounded to a whole ACK count.

use super::declared::{count, switch, Declared};
use super::registry::{CcPlugin, ParamSpec};
use super::window::window_in_field_w;
use super::{AckSample, CongestionControl, CongestionEvent, Window};
use std::sync::Arc;

pub(crate) fn plugin() -> Arc<dyn CcPlugin> {
    Declared {
        name: "bic",
        doc: "BIC-TCP (Xu, Harfoush & Rhee 2004): binary search for the window of the last loss",
        params: vec![
            ParamSpec::new(
                "beta",
                "multiplicative decrease: cwnd ← beta · cwnd",
                0.8,
                0.0,
                1.0,
            )
            .open_min()
            .open_max(),
            count(
                "max_incr",
                "S_max: largest increase, segments per RTT",
                16.0,
                1.0,
                1e6,
            ),
            count(
                "low_wnd",
                "cwnd (segments) below which BIC is Reno",
                14.0,
                0.0,
                1e6,
            ),
            count(
                "smooth_part",
                "RTTs to cover the last b segments to W_max",
                5.0,
                1.0,
                1e6,
            ),
            count(
                "b",
                "binary search divisor: 1/b of the distance per RTT",
                4.0,
                2.0,
                255.0,
            ),
            switch(
                "fast_convergence",
                "lower W_max after a loss below it (1: on)",
                true,
            ),
        ],
        build: |w, v| {
            Box::new(Bic::new(
                w,
                Params {
                    beta: v[0],
                    max_incr: v[1],
                    low_wnd: v[2],
                    smooth_part: v[3],
                    b: v[4],
                    fast_convergence: v[5] != 0.0,
                },
            ))
        },
    }
    .registered()
}

#[derive(Clone, Copy, Debug)]
pub struct Params {
    pub beta: f64,
    pub max_incr: f64,
    pub low_wnd: f64,
    pub smooth_part: f64,
    pub b: f64,
    pub fast_convergence: bool,
}

#[derive(Clone, Debug)]
pub struct Bic {
    w: Window,
    p: Params,
    /// W_max, segments (0 before any loss).
    w_max: f64,
}

impl Bic {
    pub fn new(w: Window, p: Params) -> Self {
        Bic { w, p, w_max: 0.0 }
    }

    /// The increase this RTT, in segments, at cwnd `c` segments.
    pub fn increase(&self, c: f64) -> f64 {
        let p = &self.p;
        if c < p.low_wnd {
            return 1.0;
        }
        let smooth = p.b / p.smooth_part;
        let inc = if c < self.w_max {
            // Binary search increase, bounded by S_max (additive increase) and, within a
            // segment of the target, the smooth approach.
            let dist = (self.w_max - c) / p.b;
            if dist > p.max_incr {
                p.max_incr
            } else if dist <= 1.0 {
                smooth
            } else {
                dist
            }
        } else if c < self.w_max + p.b {
            // Max probing: slowly just past W_max,
            smooth
        } else if c < self.w_max + p.max_incr * (p.b - 1.0) {
            // then as slow start,
            (c - self.w_max) / (p.b - 1.0)
        } else {
            // then linearly.
            p.max_incr
        };
        let inc = if self.w_max == 0.0 {
            inc.max(c / 20.0)
        } else {
            inc
        };
        inc.min(c)
    }

    pub fn w_max(&self) -> f64 {
        self.w_max
    }
}

impl CongestionControl for Bic {
    fn on_ack(&mut self, ack: &AckSample) {
        let rest = self.w.slow_start(ack.acked);
        let inc = self.increase((self.w.cwnd / self.w.smss) as f64);
        self.w.avoid(rest, inc);
    }
    fn on_congestion_event(&mut self, ev: &CongestionEvent) {
        let c = (self.w.cwnd / self.w.smss) as f64;
        // Fast convergence: below the last maximum, lower it to the middle of the new range.
        self.w_max = if c < self.w_max && self.p.fast_convergence {
            c * (1.0 + self.p.beta) / 2.0
        } else {
            c
        };
        let factor = if c < self.p.low_wnd { 0.5 } else { self.p.beta };
        self.w.decrease(ev.base, factor);
    }
    window_in_field_w!();
    fn name(&self) -> &str {
        "bic"
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_events::{loss, sample};
    use super::*;
    use rexmit_time::Time;

    const SMSS: u64 = 1000;

    fn bic(cwnd: u64) -> Bic {
        Bic::new(
            Window::new(cwnd * SMSS, cwnd * SMSS, SMSS),
            Params {
                beta: 0.8,
                max_incr: 16.0,
                low_wnd: 14.0,
                smooth_part: 5.0,
                b: 4.0,
                fast_convergence: true,
            },
        )
    }

    /// A window's worth of ACKs (one RTT): cwnd in segments after it.
    fn rtt(c: &mut Bic) -> u64 {
        for _ in 0..c.window() / SMSS {
            c.on_ack(&sample(0, SMSS));
        }
        c.window() / SMSS
    }

    #[test]
    fn loss_cuts_to_beta_and_the_binary_search_approaches_w_max() {
        let mut c = bic(500);
        c.on_congestion_event(&loss(Time::ZERO, 500 * SMSS, SMSS));
        assert_eq!((c.window(), c.w_max()), (400 * SMSS, 500.0));
        // Distance 100, 1/4 of it is 25 > S_max: additive increase by 16 per RTT.
        assert_eq!(c.increase(400.0), 16.0);
        // Distance 40: binary search, 10 per RTT; distance 2: within a segment after /b, the
        // smooth approach b/smooth_part = 0.8.
        assert_eq!(c.increase(460.0), 10.0);
        assert_eq!(c.increase(498.0), 0.8);
        // Past W_max: slowly, then slow-start-like (c − W_max)/(b − 1), then S_max.
        assert_eq!(c.increase(502.0), 0.8);
        assert_eq!(c.increase(530.0), 10.0);
        assert_eq!(c.increase(600.0), 16.0);
        // Driven by ACKs: the window rises fast then creeps towards W_max.
        let trace: Vec<u64> = (0..12).map(|_| rtt(&mut c)).collect();
        assert!(trace[0] >= 414 && trace[0] <= 416, "{trace:?}");
        assert!(trace.windows(2).all(|p| p[1] >= p[0]));
        assert!(trace[11] >= 494 && trace[11] <= 500, "{trace:?}");
    }

    #[test]
    fn fast_convergence_lowers_w_max_after_a_loss_below_it_and_small_windows_are_reno() {
        let mut c = bic(500);
        c.on_congestion_event(&loss(Time::ZERO, 500 * SMSS, SMSS));
        c.w.cwnd = 450 * SMSS;
        c.on_congestion_event(&loss(Time::ZERO, 450 * SMSS, SMSS));
        assert_eq!(c.w_max(), 450.0 * 0.9);
        assert_eq!(c.window(), 360 * SMSS);
        // Below low_wnd: Reno's halving and one segment per RTT.
        let mut c = bic(10);
        c.on_congestion_event(&loss(Time::ZERO, 10 * SMSS, SMSS));
        assert_eq!(c.window(), 5 * SMSS);
        assert_eq!(rtt(&mut c), 6);
        // Before any loss: at least 5 % per RTT.
        let c = bic(400);
        assert_eq!(c.increase(400.0), 20.0);
    }
}
