//! TCP Hybla (C. Caini and R. Firrincieli, "TCP Hybla: a TCP enhancement for heterogeneous
//! networks", Int. J. Satellite Communications and Networking 22(5), 2004): a long-RTT flow
//! grows its window as fast in time as one of reference RTT RTT0. With ρ = RTT/RTT0, slow
//! start adds 2^ρ − 1 segments per ACK and congestion avoidance ρ²/cwnd (ρ² segments per
//! RTT), so that the window's growth per unit of time matches the reference flow's.
//!
//! Where the paper leaves a choice open this follows ns-3.44's `TcpHybla` (as Linux's
//! tcp_hybla): ρ comes from the minimum RTT and is at least 1 (a flow shorter than RTT0 is
//! Reno), recomputed when the minimum changes; slow start does not pass ssthresh; the decrease
//! is Reno's. Its default RTT0 is ns-3's 50 ms (the paper's is 25 ms).

use super::declared::Declared;
use super::registry::{CcPlugin, ParamSpec};
use super::window::window_in_field_w;
use super::{AckSample, CongestionControl, CongestionEvent, Connected, Window};
use rexmit_time::Duration;
use std::sync::Arc;

pub(crate) fn plugin() -> Arc<dyn CcPlugin> {
    Declared {
        name: "hybla",
        doc: "TCP Hybla (Caini & Firrincieli 2004): growth scaled by rho = RTT/RTT0",
        params: vec![
            ParamSpec::new("rtt0_ms", "reference RTT RTT0 (ms)", 50.0, 0.0, 1e6).open_min(),
        ],
        build: |w, v| Box::new(Hybla::new(w, Duration::from_nanos((v[0] * 1e6) as u64))),
    }
    .registered()
}

#[derive(Clone, Debug)]
pub struct Hybla {
    w: Window,
    rtt0: Duration,
    rho: f64,
    min_rtt: Option<Duration>,
}

impl Hybla {
    pub fn new(w: Window, rtt0: Duration) -> Self {
        Hybla {
            w,
            rtt0,
            rho: 1.0,
            min_rtt: None,
        }
    }
    fn set_min_rtt(&mut self, min_rtt: Option<Duration>) {
        if let Some(m) = min_rtt.filter(|m| Some(*m) != self.min_rtt && !m.is_zero()) {
            self.min_rtt = Some(m);
            self.rho = (m.as_nanos() as f64 / self.rtt0.as_nanos() as f64).max(1.0);
        }
    }
    pub fn rho(&self) -> f64 {
        self.rho
    }
}

impl CongestionControl for Hybla {
    fn on_connected(&mut self, ev: &Connected) {
        self.set_min_rtt(ev.min_rtt);
    }
    fn on_delivery(&mut self, ack: &AckSample) {
        self.set_min_rtt(ack.min_rtt);
    }
    fn on_ack(&mut self, ack: &AckSample) {
        if self.w.in_slow_start() {
            // Slow start: 2^ρ − 1 segments per ACK (per SMSS acknowledged, up to the
            // slow-start limit L), not past ssthresh.
            let per_ack = ack.acked.min(self.w.slow_start_limit).min(self.w.smss);
            let inc = ((2f64.powf(self.rho) - 1.0) * per_ack as f64) as u64;
            self.w.cwnd = (self.w.cwnd + inc).min(self.w.ssthresh.max(self.w.cwnd));
            return;
        }
        // Congestion avoidance: ρ²/cwnd per ACK, ρ² segments per RTT.
        self.w.avoid(ack.acked, self.rho * self.rho);
    }
    fn on_congestion_event(&mut self, ev: &CongestionEvent) {
        self.w.decrease(ev.base, 0.5);
    }
    window_in_field_w!();
    fn name(&self) -> &str {
        "hybla"
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_events::{loss, sample};
    use super::*;
    use rexmit_time::Time;

    const SMSS: u64 = 1000;

    fn hybla(cwnd: u64, ssthresh: u64, min_rtt_ms: u64) -> Hybla {
        let mut h = Hybla::new(Window::new(cwnd, ssthresh, SMSS), Duration::from_millis(50));
        h.on_delivery(&AckSample {
            min_rtt: Some(Duration::from_millis(min_rtt_ms)),
            ..sample(0, 0)
        });
        h
    }

    #[test]
    fn rho_scales_slow_start_to_two_to_the_rho_minus_one_segments_per_ack() {
        // RTT 200 ms over RTT0 50 ms: ρ = 4, 15 segments per ACK.
        let mut h = hybla(2 * SMSS, 100 * SMSS, 200);
        assert_eq!(h.rho(), 4.0);
        h.on_ack(&sample(0, SMSS));
        assert_eq!(h.window(), 17 * SMSS);
        // Not past ssthresh.
        h.on_ack(&sample(0, SMSS));
        h.on_ack(&sample(0, SMSS));
        h.on_ack(&sample(0, SMSS));
        h.on_ack(&sample(0, SMSS));
        h.on_ack(&sample(0, SMSS));
        h.on_ack(&sample(0, SMSS));
        h.on_ack(&sample(0, SMSS));
        assert_eq!(h.window(), 100 * SMSS);
        // A flow shorter than RTT0 is Reno: ρ = 1.
        let mut h = hybla(2 * SMSS, 100 * SMSS, 20);
        assert_eq!(h.rho(), 1.0);
        h.on_ack(&sample(0, SMSS));
        assert_eq!(h.window(), 3 * SMSS);
    }

    #[test]
    fn avoidance_adds_rho_squared_segments_per_rtt_and_loss_halves() {
        // ρ = 3 (150 ms): 9 segments per window of ACKs.
        let mut h = hybla(90 * SMSS, 90 * SMSS, 150);
        for _ in 0..10 {
            h.on_ack(&sample(0, SMSS));
        }
        assert_eq!(h.window(), 91 * SMSS);
        // The minimum RTT falls to 100 ms: ρ = 2, 4 segments per RTT.
        h.on_delivery(&AckSample {
            min_rtt: Some(Duration::from_millis(100)),
            ..sample(0, 0)
        });
        assert_eq!(h.rho(), 2.0);
        h.on_congestion_event(&loss(Time::ZERO, 80 * SMSS, SMSS));
        assert_eq!((h.window(), h.ssthresh()), (40 * SMSS, 40 * SMSS));
    }
}
