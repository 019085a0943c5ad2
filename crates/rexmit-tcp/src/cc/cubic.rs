//! CUBIC (RFC 9438): window growth W_cubic(t) = C·(t − K)³ + W_max (§4.2) with the Reno-friendly
//! estimate W_est (§4.3), β_cubic = 0.7 multiplicative decrease (§4.6) and fast convergence (§4.7).

use super::{AckSample, CongestionControl, Window};
use rexmit_time::{Duration, Time};

const C: f64 = 0.4;
const BETA: f64 = 0.7;

#[derive(Clone, Debug)]
pub struct Cubic {
    w: Window,
    /// W_max in segments (§4.2).
    w_max: f64,
    /// Reno-friendly estimate W_est in segments (§4.3).
    w_est: f64,
    /// Start of the current congestion-avoidance epoch.
    epoch: Option<Time>,
    k: f64,
}

impl Cubic {
    pub fn new(w: Window) -> Self {
        Cubic {
            w,
            w_max: 0.0,
            w_est: 0.0,
            epoch: None,
            k: 0.0,
        }
    }
    fn seg(&self) -> f64 {
        self.w.cwnd as f64 / self.w.smss as f64
    }
}

impl CongestionControl for Cubic {
    fn on_ack(&mut self, ack: &AckSample) {
        let rest = self.w.slow_start(ack.acked);
        if rest == 0 {
            return;
        }
        let smss = self.w.smss as f64;
        let cwnd = self.seg();
        let epoch = *self.epoch.get_or_insert_with(|| {
            // §4.2: a new epoch starts at the first ACK of congestion avoidance.
            self.k = if self.w_max > cwnd {
                ((self.w_max - cwnd) / C).cbrt()
            } else {
                0.0
            };
            if self.w_max < cwnd {
                self.w_max = cwnd;
            }
            self.w_est = cwnd;
            ack.now
        });
        let rtt = ack.srtt.unwrap_or(Duration::from_millis(100)).as_secs_f64();
        let t = ack.now.saturating_since(epoch).as_secs_f64();
        let segs_acked = rest as f64 / smss;
        // §4.3: W_est grows by α_cubic per window, α_cubic = 3(1 − β)/(1 + β).
        let alpha = 3.0 * (1.0 - BETA) / (1.0 + BETA);
        self.w_est += alpha * segs_acked / cwnd;
        let w_cubic = C * (t + rtt - self.k).powi(3) + self.w_max;
        let target = if self.w_est > w_cubic {
            self.w_est
        } else {
            // §4.4: target bounded to [cwnd, 1.5·cwnd].
            w_cubic.clamp(cwnd, 1.5 * cwnd)
        };
        if target > cwnd {
            self.w.ca_credit += (target - cwnd) / cwnd * segs_acked * smss;
            if self.w.ca_credit >= 1.0 {
                let whole = self.w.ca_credit.floor();
                self.w.cwnd += whole as u64;
                self.w.ca_credit -= whole;
            }
        }
    }
    fn on_congestion_event(&mut self, _now: Time, flight_size: u64) {
        let cwnd = self.seg();
        // §4.7 fast convergence.
        self.w_max = if cwnd < self.w_max {
            cwnd * (1.0 + BETA) / 2.0
        } else {
            cwnd
        };
        self.epoch = None;
        self.w.decrease(flight_size.max(self.w.cwnd), BETA);
    }
    fn window_state(&self) -> &Window {
        &self.w
    }
    fn window_state_mut(&mut self) -> &mut Window {
        &mut self.w
    }
    fn name(&self) -> &'static str {
        "cubic"
    }
}

#[cfg(test)]
mod tests {
    use super::super::sample;
    use super::*;

    #[test]
    fn decrease_is_beta_and_regrowth_reaches_w_max_near_k() {
        let mut c = Cubic::new(Window::new(100_000, 100_000, 1000));
        c.on_congestion_event(Time::ZERO, 100_000);
        assert_eq!(c.window(), 70_000);
        // K = cbrt((100 − 70)/0.4) ≈ 4.2 s: after ~4.2 s of ACKs the window is back near 100.
        let mut t = 0;
        while t < 4_200 {
            for _ in 0..10 {
                c.on_ack(&sample(t, 1000));
            }
            t += 10;
        }
        let seg = c.window() / 1000;
        assert!((95..=105).contains(&seg), "cwnd {seg}");
    }
}
