//! H-TCP (D. Leith and R. Shorten, "H-TCP: TCP for high-speed and long-distance networks",
//! PFLDnet 2004; draft-leith-tcp-htcp-06). The additive increase grows with the time Δ since
//! the last congestion event: α(Δ) = 1 for Δ ≤ Δ_L, else 1 + 10(Δ − Δ_L) + ((Δ − Δ_L)/2)²
//! segments per RTT (Δ in seconds), scaled by 2(1 − β) so that a flow backing off by β stays
//! fair to one backing off by 1/2. The backoff is adaptive: β = RTT_min/RTT_max, bounded to
//! [0.5, 0.8], unless the throughput changed by more than 20 % since the previous congestion
//! event, when it is 0.5.
//!
//! Where the paper leaves a choice open this follows ns-3.44's `TcpHtcp`: RTT_min and RTT_max
//! are the extremes of the epoch since the last congestion event, and the throughput compared
//! is the epoch's average (bytes acknowledged outside loss recovery over the epoch's length);
//! the first epoch starts at the handshake (ns-3: at simulation time 0). Unlike ns-3: the
//! increase is α segments per RTT (ns-3 adds α bytes per ACK), β is bounded above by
//! `beta_max` (ns-3: unbounded; `beta_max = 1` reproduces it), and a throughput change counts
//! in either direction, as a fraction (ns-3 only compares increases, in integer arithmetic).

use super::declared::Declared;
use super::registry::{CcPlugin, ParamSpec};
use super::window::{recovery_flag_in_field, window_in_field_w};
use super::{AckSample, CongestionControl, CongestionEvent, Connected, Window};
use rexmit_time::{Duration, Time};
use std::sync::Arc;

pub(crate) fn plugin() -> Arc<dyn CcPlugin> {
    Declared {
        name: "htcp",
        doc: "H-TCP (Leith & Shorten 2004): alpha grows with the time since the last loss",
        params: vec![
            ParamSpec::new(
                "delta_l_ms",
                "Δ_L: α is 1 this long after a loss (ms)",
                1000.0,
                0.0,
                1e6,
            ),
            ParamSpec::new(
                "default_backoff",
                "β when the throughput changed; β's lower bound",
                0.5,
                0.0,
                1.0,
            )
            .open_min()
            .open_max(),
            ParamSpec::new("beta_max", "β's upper bound (draft: 0.8)", 0.8, 0.0, 1.0)
                .open_min()
                .open_max(),
            ParamSpec::new(
                "throughput_ratio",
                "a throughput change above this fraction resets β",
                0.2,
                0.0,
                1000.0,
            ),
        ],
        build: |w, v| {
            Box::new(Htcp::new(
                w,
                Duration::from_nanos((v[0] * 1e6) as u64),
                v[1],
                v[2],
                v[3],
            ))
        },
    }
    .registered()
}

#[derive(Clone, Debug)]
pub struct Htcp {
    w: Window,
    delta_l: Duration,
    default_backoff: f64,
    beta_max: f64,
    throughput_ratio: f64,
    beta: f64,
    /// The last congestion event (the epoch's start).
    last_con: Option<Time>,
    epoch_min: Option<Duration>,
    epoch_max: Option<Duration>,
    /// Bytes acknowledged outside loss recovery in this epoch.
    epoch_bytes: u64,
    /// The previous epoch's throughput, bytes per second.
    last_throughput: f64,
    in_recovery: bool,
}

impl Htcp {
    pub fn new(
        w: Window,
        delta_l: Duration,
        default_backoff: f64,
        beta_max: f64,
        throughput_ratio: f64,
    ) -> Self {
        Htcp {
            w,
            delta_l,
            default_backoff,
            beta_max,
            throughput_ratio,
            beta: default_backoff,
            last_con: None,
            epoch_min: None,
            epoch_max: None,
            epoch_bytes: 0,
            last_throughput: 0.0,
            in_recovery: false,
        }
    }

    /// α(Δ) · 2(1 − β), at least 1 (segments per RTT).
    pub fn alpha(&self, now: Time) -> f64 {
        let delta = now.saturating_since(self.last_con.unwrap_or(now));
        let a = match delta.saturating_sub(self.delta_l).as_secs_f64() {
            0.0 => 1.0,
            d => 1.0 + 10.0 * d + (d / 2.0) * (d / 2.0),
        };
        (2.0 * (1.0 - self.beta) * a).max(1.0)
    }

    /// The adaptive backoff for a congestion event at `now`, with this epoch's throughput.
    fn backoff(&self, throughput: f64) -> f64 {
        let stable = self.last_throughput > 0.0
            && ((throughput - self.last_throughput) / self.last_throughput).abs()
                <= self.throughput_ratio;
        match (stable, self.epoch_min, self.epoch_max) {
            (true, Some(min), Some(max)) if !max.is_zero() => {
                (min.as_secs_f64() / max.as_secs_f64()).clamp(
                    self.default_backoff,
                    self.beta_max.max(self.default_backoff),
                )
            }
            _ => self.default_backoff,
        }
    }

    pub fn beta(&self) -> f64 {
        self.beta
    }
}

impl CongestionControl for Htcp {
    fn on_connected(&mut self, ev: &Connected) {
        self.last_con.get_or_insert(ev.now);
    }
    fn on_delivery(&mut self, ack: &AckSample) {
        self.last_con.get_or_insert(ack.now);
        if !self.in_recovery {
            self.epoch_bytes += ack.acked;
        }
        if let Some(rtt) = ack.rtt {
            self.epoch_min = Some(self.epoch_min.map_or(rtt, |m| m.min(rtt)));
            self.epoch_max = Some(self.epoch_max.map_or(rtt, |m| m.max(rtt)));
        }
    }
    fn on_ack(&mut self, ack: &AckSample) {
        let alpha = self.alpha(ack.now);
        self.w.grow(ack.acked, alpha);
    }
    fn on_congestion_event(&mut self, ev: &CongestionEvent) {
        let start = self.last_con.unwrap_or(ev.now);
        let secs = ev.now.saturating_since(start).as_secs_f64();
        let throughput = if secs > 0.0 {
            self.epoch_bytes as f64 / secs
        } else {
            0.0
        };
        self.beta = self.backoff(throughput);
        self.w.decrease(ev.base, self.beta);
        self.last_con = Some(ev.now);
        self.last_throughput = throughput;
        self.epoch_bytes = 0;
        self.epoch_min = None;
        self.epoch_max = None;
    }
    recovery_flag_in_field!();
    window_in_field_w!();
    fn name(&self) -> &str {
        "htcp"
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_events::{loss, sample};
    use super::super::{RecoveryEnd, RecoveryStart};
    use super::*;

    const SMSS: u64 = 1000;

    fn htcp(cwnd: u64) -> Htcp {
        Htcp::new(
            Window::new(cwnd * SMSS, cwnd * SMSS, SMSS),
            Duration::from_secs(1),
            0.5,
            0.8,
            0.2,
        )
    }

    /// An epoch ending at `to_ms`: `bytes` acknowledged, RTTs `rtts` ms; then a loss.
    fn epoch(c: &mut Htcp, to_ms: u64, bytes: u64, rtts: &[u64]) {
        for &r in rtts {
            c.on_delivery(&AckSample {
                rtt: Some(Duration::from_millis(r)),
                acked: bytes / rtts.len() as u64,
                ..sample(to_ms - 1, 0)
            });
        }
        c.on_congestion_event(&loss(Time::from_millis(to_ms), 100 * SMSS, SMSS));
    }

    #[test]
    fn alpha_is_one_until_delta_l_then_grows_quadratically_scaled_by_two_one_minus_beta() {
        let mut c = htcp(100);
        c.last_con = Some(Time::ZERO);
        assert_eq!(c.alpha(Time::from_millis(900)), 1.0);
        // Δ − Δ_L = 2 s: 1 + 20 + 1 = 22, times 2(1 − 0.5) = 1.
        assert_eq!(c.alpha(Time::from_secs(3)), 22.0);
        // With β = 0.8 the same Δ gives 22 · 0.4.
        c.beta = 0.8;
        assert!((c.alpha(Time::from_secs(3)) - 8.8).abs() < 1e-12);
        // In avoidance cwnd grows by α/cwnd per ACK, so cwnd² by 2α per ACK: 100 ACKs from
        // cwnd 100 reach √(100² + 2 · 22 · 100) = 120.
        c.beta = 0.5;
        for _ in 0..100 {
            c.on_ack(&sample(3000, SMSS));
        }
        assert_eq!(c.window(), 120 * SMSS);
    }

    #[test]
    fn backoff_is_rtt_min_over_max_when_throughput_is_stable_else_one_half() {
        let mut c = htcp(100);
        c.last_con = Some(Time::ZERO);
        // First epoch: no previous throughput → β = 0.5.
        epoch(&mut c, 1000, 1_000_000, &[100, 140]);
        assert_eq!((c.beta(), c.ssthresh()), (0.5, 50 * SMSS));
        // Same throughput (1 MB/s), RTTs 100..140 ms: β = 100/140.
        epoch(&mut c, 2000, 1_000_000, &[100, 140]);
        assert!((c.beta() - 100.0 / 140.0).abs() < 1e-12);
        assert_eq!(c.ssthresh(), 71_428);
        // β bounded by 0.8: RTTs 100..110 ms.
        epoch(&mut c, 3000, 1_000_000, &[100, 110]);
        assert_eq!(c.beta(), 0.8);
        // Throughput down by half: β = 0.5.
        epoch(&mut c, 4000, 500_000, &[100, 110]);
        assert_eq!(c.beta(), 0.5);
        // Bytes acknowledged in loss recovery do not count.
        c.on_recovery_start(&RecoveryStart {
            now: Time::ZERO,
            cause: super::super::CongestionCause::DuplicateAcks,
            recovery_point: 0,
        });
        c.on_delivery(&AckSample {
            acked: 9_000_000,
            ..sample(4500, 0)
        });
        c.on_recovery_end(&RecoveryEnd {
            now: Time::ZERO,
            by_timeout: false,
        });
        epoch(&mut c, 5000, 500_000, &[100, 110]);
        assert_eq!(
            c.beta(),
            0.8,
            "the recovery's 9 MB would have made it unstable"
        );
    }
}
