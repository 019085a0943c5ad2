//! TCP Veno (C. P. Fu and S. C. Liew, "TCP Veno: TCP Enhancement for Transmission Over
//! Wireless Access Networks", IEEE JSAC 21(2), 2003): Reno whose response depends on the
//! backlog N the connection keeps queued, estimated as Vegas does. Below β segments a loss is
//! taken as random (a wireless error) and cwnd is cut by only 1/5; at or above β the path is
//! congested: Reno's halving, and the additive increase slows to one segment every other RTT.
//!
//! Where the paper leaves a choice open this follows ns-3.44's `TcpVeno`: N is recomputed on
//! every ACK from that ACK's RTT (ns-3 passes SRTT; here the ACK's own sample, as all the
//! delay-based controllers here use) and BaseRTT, the smallest sample of the connection; the
//! 4/5 decrease applies to the decrease base (ns-3: BytesInFlight). ns-3's increase is in
//! effect always Reno's (its per-ACK reset leaves fewer than the three samples it asks for);
//! here the paper's every-other-RTT increase holds.

use super::declared::Declared;
use super::registry::{CcPlugin, ParamSpec};
use super::window::window_in_field_w;
use super::{AckSample, CongestionControl, CongestionEvent, Window};
use rexmit_time::Duration;
use std::sync::Arc;

pub(crate) fn plugin() -> Arc<dyn CcPlugin> {
    Declared {
        name: "veno",
        doc: "TCP Veno (Fu & Liew 2003): a loss with fewer than beta segments queued cuts 1/5",
        params: vec![ParamSpec::new(
            "beta",
            "backlog (segments) from which a loss counts as congestion",
            3.0,
            0.0,
            1000.0,
        )],
        build: |w, v| Box::new(Veno::new(w, v[0])),
    }
    .registered()
}

#[derive(Clone, Debug)]
pub struct Veno {
    w: Window,
    beta: f64,
    base_rtt: Option<Duration>,
    /// N, the segments queued at the last RTT sample (0 before any).
    backlog: f64,
}

impl Veno {
    pub fn new(w: Window, beta: f64) -> Self {
        Veno {
            w,
            beta,
            base_rtt: None,
            backlog: 0.0,
        }
    }
    fn congested(&self) -> bool {
        self.backlog >= self.beta
    }
}

impl CongestionControl for Veno {
    /// §II.A: N = Actual · (RTT − BaseRTT) = cwnd · (RTT − BaseRTT) / RTT.
    fn on_delivery(&mut self, ack: &AckSample) {
        let Some(rtt) = ack.rtt.filter(|r| !r.is_zero()) else {
            return;
        };
        let base = self.base_rtt.map_or(rtt, |b| b.min(rtt));
        self.base_rtt = Some(base);
        self.backlog = self.w.segments() * (1.0 - base.as_nanos() as f64 / rtt.as_nanos() as f64);
    }
    /// §II.B additive increase: Reno's one segment per RTT while N < β, one every other RTT
    /// once the path is congested. Slow start is Reno's.
    fn on_ack(&mut self, ack: &AckSample) {
        let per_rtt = if self.congested() { 0.5 } else { 1.0 };
        self.w.grow(ack.acked, per_rtt);
    }
    /// §II.B multiplicative decrease: ssthresh = 4/5 of the window for a random loss (N < β),
    /// Reno's half for a congestive one.
    fn on_congestion_event(&mut self, ev: &CongestionEvent) {
        let factor = if self.congested() { 0.5 } else { 0.8 };
        self.w.decrease(ev.base, factor);
    }
    window_in_field_w!();
    fn name(&self) -> &str {
        "veno"
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_events::{loss, sample};
    use super::*;
    use rexmit_time::Time;

    const SMSS: u64 = 1000;

    fn ack_with_rtt(rtt_ms: u64) -> AckSample {
        AckSample {
            rtt: Some(Duration::from_millis(rtt_ms)),
            ..sample(0, SMSS)
        }
    }

    fn veno_at(cwnd: u64, rtts: &[u64]) -> Veno {
        let mut v = Veno::new(Window::new(cwnd * SMSS, cwnd * SMSS, SMSS), 3.0);
        for &r in rtts {
            v.on_delivery(&ack_with_rtt(r));
        }
        v
    }

    #[test]
    fn a_loss_below_beta_queued_cuts_a_fifth_at_or_above_beta_halves() {
        // cwnd 20, BaseRTT 100 ms, RTT 110 ms: N = 20 · 10/110 = 1.8 < β = 3: random loss.
        let mut v = veno_at(20, &[100, 110]);
        v.on_congestion_event(&loss(Time::ZERO, 20 * SMSS, SMSS));
        assert_eq!((v.window(), v.ssthresh()), (16 * SMSS, 16 * SMSS));
        // RTT 125 ms: N = 20 · 25/125 = 4 ≥ 3: congestive loss, Reno's half.
        let mut v = veno_at(20, &[100, 125]);
        v.on_congestion_event(&loss(Time::ZERO, 20 * SMSS, SMSS));
        assert_eq!((v.window(), v.ssthresh()), (10 * SMSS, 10 * SMSS));
    }

    #[test]
    fn increase_is_one_segment_per_rtt_below_beta_and_every_other_rtt_above() {
        // Two windows of ACKs (cwnd 20, then 21): +2 segments uncongested, +1 congested.
        for (rtts, want) in [(&[100, 100][..], 22), (&[100, 200][..], 21)] {
            let mut v = veno_at(20, rtts);
            for _ in 0..41 {
                v.on_ack(&sample(0, SMSS));
            }
            assert_eq!(v.window(), want * SMSS, "rtts {rtts:?}");
        }
    }
}
