//! TCP-LP (A. Kuzmanovic and E. Knightly, "TCP-LP: A Distributed Algorithm for Low Priority
//! Data Transfer", INFOCOM 2003): a low-priority flow that yields to best-effort ones. An early
//! congestion indication is a smoothed one-way delay above d_min + δ·(d_max − d_min) (§III.B,
//! δ = 0.15). The first indication halves cwnd and starts an inference time-out: while it
//! runs the window does not grow, and a second indication within it, the sign of competing
//! traffic, sets cwnd to one segment (§III.C). Losses are Reno's.
//!
//! One-way delay: the paper (and ns-3's and Linux's TCP-LP, from timestamps) measures the
//! forward delay; here the ACK's RTT sample stands for it — the reverse path of a dumbbell
//! carries only ACKs, and every quantity the rule compares is relative to d_min and d_max.
//! Where the paper leaves a choice open this follows ns-3.44's `TcpLp` (as Linux's tcp_lp): the
//! delay is smoothed as 7/8 old + 1/8 new; d_max is the second-largest sample so far (one
//! outlier is ignored); after an indication d_min and d_max restart from the smoothed delay
//! (d_min = it, d_max = twice it); the inference time-out is 3 RTTs. Indications during loss
//! recovery change nothing (the recovery sets the window). Unlike ns-3, which freezes only
//! congestion avoidance, no growth at all happens within the time-out (§III.C; Linux too).

use super::declared::Declared;
use super::registry::{CcPlugin, ParamSpec};
use super::window::{recovery_flag_in_field, window_in_field_w};
use super::{AckSample, CongestionControl, CongestionEvent, Window};
use rexmit_time::Time;
use std::sync::Arc;

pub(crate) fn plugin() -> Arc<dyn CcPlugin> {
    Declared {
        name: "lp",
        doc: "TCP-LP (Kuzmanovic & Knightly 2003): low priority, yields on early delay signs",
        params: vec![
            ParamSpec::new(
                "delta",
                "δ: indication above d_min + δ·(d_max − d_min)",
                0.15,
                0.0,
                1.0,
            )
            .open_min(),
            ParamSpec::new(
                "inference_rtts",
                "the inference time-out, in RTTs",
                3.0,
                0.0,
                1000.0,
            )
            .open_min(),
        ],
        build: |w, v| Box::new(Lp::new(w, v[0], v[1])),
    }
    .registered()
}

#[derive(Clone, Debug)]
pub struct Lp {
    w: Window,
    delta: f64,
    inference_rtts: f64,
    /// Smoothed, smallest and largest one-way delay, ns (0: none yet).
    sowd: f64,
    owd_min: f64,
    owd_max: f64,
    /// The largest sample, held back from d_max until a larger one comes.
    owd_max_rsv: f64,
    /// The last early-indication reduction and the inference time-out, ns.
    last_drop: Option<Time>,
    inference: f64,
    in_recovery: bool,
}

impl Lp {
    pub fn new(w: Window, delta: f64, inference_rtts: f64) -> Self {
        Lp {
            w,
            delta,
            inference_rtts,
            sowd: 0.0,
            owd_min: f64::INFINITY,
            owd_max: 0.0,
            owd_max_rsv: 0.0,
            last_drop: None,
            inference: 0.0,
            in_recovery: false,
        }
    }

    fn within_inference(&self, now: Time) -> bool {
        self.last_drop
            .is_some_and(|t| (now.saturating_since(t).as_nanos() as f64) < self.inference)
    }

    fn record(&mut self, owd: f64) {
        self.owd_min = self.owd_min.min(owd);
        if owd > self.owd_max {
            if owd > self.owd_max_rsv {
                self.owd_max = if self.owd_max_rsv == 0.0 {
                    owd
                } else {
                    self.owd_max_rsv
                };
                self.owd_max_rsv = owd;
            } else {
                self.owd_max = owd;
            }
        }
        self.sowd = if self.sowd == 0.0 {
            owd
        } else {
            self.sowd + (owd - self.sowd) / 8.0
        };
    }

    /// §III.B: the smoothed delay is above d_min + δ·(d_max − d_min).
    pub fn early_indication(&self) -> bool {
        self.sowd > self.owd_min + self.delta * (self.owd_max - self.owd_min)
    }
}

impl CongestionControl for Lp {
    fn on_delivery(&mut self, ack: &AckSample) {
        let Some(rtt) = ack.rtt.filter(|r| !r.is_zero()) else {
            return;
        };
        let owd = rtt.as_nanos() as f64;
        self.record(owd);
        self.inference = self.inference_rtts * owd;
        if !self.early_indication() {
            return;
        }
        self.owd_min = self.sowd;
        self.owd_max = 2.0 * self.sowd;
        self.owd_max_rsv = 2.0 * self.sowd;
        if self.in_recovery {
            return;
        }
        // §III.C: a second indication within the inference time-out: one segment; else half.
        let s = self.w.smss;
        self.w.cwnd = if self.within_inference(ack.now) {
            s
        } else {
            (self.w.cwnd / 2).max(s)
        };
        self.w.ca_credit = 0.0;
        self.last_drop = Some(ack.now);
    }
    /// Reno's growth, none within the inference time-out (§III.C).
    fn on_ack(&mut self, ack: &AckSample) {
        if !self.within_inference(ack.now) {
            self.w.grow(ack.acked, 1.0);
        }
    }
    fn on_congestion_event(&mut self, ev: &CongestionEvent) {
        self.w.decrease(ev.base, 0.5);
    }
    recovery_flag_in_field!();
    window_in_field_w!();
    fn name(&self) -> &str {
        "lp"
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_events::sample;
    use super::super::{RecoveryEnd, RecoveryStart};
    use super::*;
    use rexmit_time::Duration;

    const SMSS: u64 = 1000;

    fn ack(t_ms: u64, rtt_ms: u64) -> AckSample {
        AckSample {
            rtt: Some(Duration::from_millis(rtt_ms)),
            ..sample(t_ms, SMSS)
        }
    }

    /// A TCP-LP at 40 segments in avoidance whose delays lie between 100 and 200 ms, smoothed
    /// at 100 ms (as after an indication: d_min = s, d_max = 2s).
    fn settled() -> Lp {
        let mut c = Lp::new(Window::new(40 * SMSS, 40 * SMSS, SMSS), 0.15, 3.0);
        (c.sowd, c.owd_min, c.owd_max, c.owd_max_rsv) = (100e6, 100e6, 200e6, 200e6);
        c
    }

    #[test]
    fn the_largest_delay_is_held_back_once_so_a_single_outlier_does_not_widen_the_range() {
        let mut c = Lp::new(Window::new(40 * SMSS, 40 * SMSS, SMSS), 0.15, 3.0);
        c.record(100e6);
        c.record(300e6);
        assert_eq!((c.owd_min, c.owd_max), (100e6, 100e6));
        c.record(200e6);
        assert_eq!(c.owd_max, 200e6);
        // Smoothed 7/8 old + 1/8 new.
        assert_eq!(c.sowd, 100e6 + 200e6 / 8.0 + (200e6 - 125e6) / 8.0);
    }

    #[test]
    fn early_indication_halves_then_a_second_within_the_inference_timeout_drops_to_one() {
        let mut c = settled();
        assert_eq!(
            c.window(),
            40 * SMSS,
            "no indication while smoothed delay is low"
        );
        // Smoothed delay climbs above 100 + 0.15 · 100 = 115 ms: halve.
        let mut t = 40;
        while c.window() == 40 * SMSS {
            c.on_delivery(&ack(t, 200));
            t += 1;
        }
        assert_eq!(c.window(), 20 * SMSS);
        let first = t - 1;
        // No growth within the inference time-out (3 × 200 ms).
        c.on_ack(&ack(first + 100, 200));
        assert_eq!(c.window(), 20 * SMSS);
        // Delays go on rising (d_min = s, d_max = 2s after the indication): a second
        // indication within 600 ms sets one segment.
        let mut t = first + 1;
        while c.window() == 20 * SMSS && t < first + 600 {
            c.on_delivery(&ack(t, 400));
            t += 1;
        }
        assert_eq!(c.window(), SMSS, "at {t} ms");
        // After the time-out Reno's growth resumes.
        c.on_ack(&ack(t + 1300, 100));
        assert_eq!(c.window(), 2 * SMSS);
    }

    #[test]
    fn an_indication_after_the_timeout_halves_again_and_none_acts_in_recovery() {
        let mut c = settled();
        c.on_recovery_start(&RecoveryStart {
            now: Time::ZERO,
            cause: super::super::CongestionCause::DuplicateAcks,
            recovery_point: 0,
        });
        for t in 40..80 {
            c.on_delivery(&ack(t, 200));
        }
        assert_eq!(c.window(), 40 * SMSS);
        c.on_recovery_end(&RecoveryEnd {
            now: Time::ZERO,
            by_timeout: false,
        });
        let mut c = settled();
        let mut t = 40;
        while c.window() == 40 * SMSS {
            c.on_delivery(&ack(t, 200));
            t += 1;
        }
        // A later rise, long after the 600 ms time-out: half again, not one segment.
        let mut t = t + 5000;
        while c.window() == 20 * SMSS {
            c.on_delivery(&ack(t, 1000));
            t += 1;
        }
        assert_eq!(c.window(), 10 * SMSS);
    }
}
