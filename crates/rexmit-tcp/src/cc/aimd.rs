//! Additive-increase/multiplicative-decrease controllers: cwnd ← cwnd + a(w) segments per RTT,
//! cwnd ← cwnd − b(w)·cwnd on loss (seed 003 §II). Reno, the generalised constant (a, b) of
//! seed 003, Scalable TCP and HighSpeed TCP differ only in their response law `Law`.

use super::window::window_in_field_w;
use super::{highspeed, scalable, AckSample, CongestionControl, CongestionEvent, Timeout, Window};

/// The increase a(w) and decrease b(w) as functions of the window in segments.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Law {
    Constant { a: f64, b: f64 },
    Scalable,
    HighSpeed,
}

impl Law {
    fn a(self, w: f64) -> f64 {
        match self {
            Law::Constant { a, .. } => a,
            Law::Scalable => scalable::a_of_w(w),
            Law::HighSpeed => highspeed::a_of_w(w),
        }
    }
    fn b(self, w: f64) -> f64 {
        match self {
            Law::Constant { b, .. } => b,
            Law::Scalable => scalable::b_of_w(w),
            Law::HighSpeed => highspeed::b_of_w(w),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Aimd {
    w: Window,
    law: Law,
}

impl Aimd {
    pub fn new(w: Window, law: Law) -> Self {
        Aimd { w, law }
    }
    fn segments(&self) -> f64 {
        self.w.cwnd as f64 / self.w.smss as f64
    }
}

impl CongestionControl for Aimd {
    fn on_ack(&mut self, ack: &AckSample) {
        let rest = self.w.slow_start(ack.acked);
        let a = self.law.a(self.segments());
        self.w.avoid(rest, a);
    }
    fn on_congestion_event(&mut self, ev: &CongestionEvent) {
        let b = self.law.b(self.segments());
        self.w.decrease(ev.base, 1.0 - b);
    }
    /// After a timeout HighSpeed (RFC 3649 §5: the response function governs congestion
    /// avoidance only) and Scalable fall back to the standard halving; the generalised AIMD
    /// keeps its b.
    fn on_timeout(&mut self, ev: &Timeout) {
        let b = match self.law {
            Law::Constant { b, .. } => b,
            Law::Scalable | Law::HighSpeed => 0.5,
        };
        self.w.decrease(ev.base, 1.0 - b);
        self.w.loss_window(ev);
    }
    window_in_field_w!();
    fn name(&self) -> &str {
        match self.law {
            Law::Constant { a, b } if a == 1.0 && b == 0.5 => "reno",
            Law::Constant { .. } => "aimd",
            Law::Scalable => "scalable",
            Law::HighSpeed => "highspeed",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_events::{loss, sample, timeout};
    use super::*;
    use rexmit_time::Time;

    fn reno(cwnd: u64, ssthresh: u64) -> Aimd {
        Aimd::new(
            Window::new(cwnd, ssthresh, 1000),
            Law::Constant { a: 1.0, b: 0.5 },
        )
    }

    #[test]
    fn reno_grows_one_segment_per_window_and_halves() {
        let mut c = reno(10_000, 10_000);
        // One full window of ACKs of 1 SMSS each adds one SMSS (RFC 5681 §3.1 eq. 3).
        for _ in 0..10 {
            c.on_ack(&sample(0, 1000));
        }
        assert_eq!(c.window(), 11_000);
        c.on_congestion_event(&loss(Time::ZERO, 11_000, 1000));
        assert_eq!((c.window(), c.ssthresh()), (5_500, 5_500));
        c.on_timeout(&timeout(Time::ZERO, 3_000, 1000));
        assert_eq!((c.window(), c.ssthresh()), (1_000, 2_000));
    }

    /// RFC 5681 §3.1 eq. (3), cwnd += SMSS·SMSS/cwnd per ACK, approximates "1 full-sized
    /// segment per round-trip time" for full-sized segments; rexmit credits min(acked, SMSS)
    /// per ACK (as eq. (2) does in slow start), so a window's worth of ACKs for 250-byte
    /// segments also adds one SMSS per RTT, not four (docs/validation.md, "RFC 5681 eq. (3)").
    #[test]
    fn congestion_avoidance_grows_one_smss_per_window_of_small_segments() {
        let mut c = reno(10_000, 10_000);
        for _ in 0..40 {
            c.on_ack(&sample(0, 250));
        }
        assert_eq!(c.window(), 11_000);
    }

    #[test]
    fn slow_start_adds_at_most_one_smss_per_ack() {
        let mut c = reno(2_000, u64::MAX);
        c.on_ack(&sample(0, 3000));
        assert_eq!(c.window(), 3_000);
    }

    #[test]
    fn generalised_decrease_uses_b() {
        let mut c = Aimd::new(
            Window::new(10_000, 10_000, 1000),
            Law::Constant { a: 2.0, b: 0.125 },
        );
        c.on_congestion_event(&loss(Time::ZERO, 16_000, 1000));
        assert_eq!(c.ssthresh(), 14_000);
        // a = 2: about two segments per window of ACKs (7 ACKs at cwnd 14, 7.5 at cwnd 15).
        for _ in 0..15 {
            c.on_ack(&sample(0, 1000));
        }
        assert_eq!(c.window(), 16_000);
    }

    #[test]
    fn scalable_increases_one_percent_per_ack_above_legacy_window() {
        let mut c = Aimd::new(Window::new(100_000, 100_000, 1000), Law::Scalable);
        for _ in 0..100 {
            c.on_ack(&sample(0, 1000));
        }
        // 100 ACKs × 0.01 segment = 1 segment.
        assert_eq!(c.window(), 101_000);
        c.on_congestion_event(&loss(Time::ZERO, 100_000, 1000));
        assert_eq!(c.window(), 87_500);
        c.on_timeout(&timeout(Time::ZERO, 80_000, 1000));
        assert_eq!((c.window(), c.ssthresh()), (1_000, 40_000));
    }
}
