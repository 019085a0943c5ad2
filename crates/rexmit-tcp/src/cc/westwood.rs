//! Westwood+ (Mascolo et al.; seed 001): Reno growth, but after a loss ssthresh is set from the
//! end-to-end bandwidth estimate, ssthresh = BWE · RTTmin, sampled once per RTT and low-pass
//! filtered.

use super::window::window_in_field_w;
use super::{AckSample, CongestionControl, CongestionEvent, Timeout, Window};
use rexmit_time::{Duration, Time};

#[derive(Clone, Debug)]
pub struct Westwood {
    w: Window,
    /// Filtered bandwidth estimate in bytes per second.
    bwe: f64,
    sample_start: Option<Time>,
    sample_bytes: u64,
    min_rtt: Option<Duration>,
}

impl Westwood {
    pub fn new(w: Window) -> Self {
        Westwood {
            w,
            bwe: 0.0,
            sample_start: None,
            sample_bytes: 0,
            min_rtt: None,
        }
    }
    pub fn bandwidth_estimate(&self) -> f64 {
        self.bwe
    }
    fn bwe_window(&self) -> u64 {
        match self.min_rtt {
            Some(rtt) if self.bwe > 0.0 => (self.bwe * rtt.as_secs_f64()) as u64,
            _ => 0,
        }
    }
}

impl CongestionControl for Westwood {
    fn on_ack(&mut self, ack: &AckSample) {
        let rest = self.w.slow_start(ack.acked);
        self.w.avoid(rest, 1.0);
    }
    fn on_delivery(&mut self, ack: &AckSample) {
        self.min_rtt = ack.min_rtt;
        self.sample_bytes += ack.delivered;
        let start = *self.sample_start.get_or_insert(ack.now);
        let interval = ack.now.saturating_since(start);
        // Westwood+: one bandwidth sample per RTT, filtered with a 0.9 / 0.1 EWMA.
        let rtt = ack
            .srtt
            .unwrap_or(Duration::from_millis(100))
            .max(Duration::from_millis(1));
        if interval >= rtt {
            let sample = self.sample_bytes as f64 / interval.as_secs_f64();
            self.bwe = if self.bwe == 0.0 {
                sample
            } else {
                0.9 * self.bwe + 0.1 * sample
            };
            self.sample_start = Some(ack.now);
            self.sample_bytes = 0;
        }
    }
    fn on_congestion_event(&mut self, ev: &CongestionEvent) {
        let est = self.bwe_window();
        if est == 0 {
            self.w.decrease(ev.base, 0.5);
            return;
        }
        self.w.ssthresh = est.max(2 * self.w.smss);
        self.w.cwnd = self.w.cwnd.min(self.w.ssthresh);
        self.w.ca_credit = 0.0;
    }
    /// RFC 5681 §3.1: the decrease above, then the loss window.
    fn on_timeout(&mut self, ev: &Timeout) {
        self.on_congestion_event(&ev.congestion_event());
        self.w.loss_window(ev);
    }
    window_in_field_w!();
    fn name(&self) -> &str {
        "westwood+"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ssthresh_follows_bandwidth_times_min_rtt() {
        let mut c = Westwood::new(Window::new(50_000, 50_000, 1000));
        // 1000 B every 2 ms = 500 kB/s; min RTT 40 ms → BWE·RTTmin = 20 kB.
        for i in 0..200u64 {
            c.on_delivery(&AckSample {
                now: Time::from_millis(2 * i),
                acked: 1000,
                delivered: 1000,
                srtt: Some(Duration::from_millis(40)),
                min_rtt: Some(Duration::from_millis(40)),
                ..super::super::test_events::sample(2 * i, 1000)
            });
        }
        c.on_congestion_event(&super::super::test_events::loss(
            Time::from_millis(400),
            50_000,
            1000,
        ));
        let s = c.ssthresh();
        assert!((19_000..=21_000).contains(&s), "ssthresh {s}");
        assert_eq!(c.window(), s);
    }
}
