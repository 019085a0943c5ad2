//! Adaptive RED (Floyd, Gummadi & Shenker, "Adaptive RED: An Algorithm for Increasing the
//! Robustness of RED's Active Queue Management", 2001): gentle RED whose max_p is adapted
//! every `interval` (0.5 s) so that the average queue stays in the middle of the thresholds,
//! with the paper's automatic settings of min_th, max_th and w_q from the link rate.
//!
//! Owns: the adaptation of max_p and the automatic parameters. Does not own: RED's average and
//! drop decision (`red.rs`), which it drives with the adapted max_p.

use super::red::{Red, RedParams, RedVerdict};
use rexmit_engine::RngStream;
use rexmit_time::{Rate, Time};

/// Adaptive RED's option table (`queue = { aqm = "ared", ared = { ... } }`; crate
/// `rexmit-options`). Thresholds and the weight at 0 are set automatically from the link rate.
#[macro_export]
macro_rules! ared_option_table {
    ($generator:path { $($head:tt)* }) => { $generator! { $($head)* ;
        public {
            /// Lower threshold of the average queue, in packets. 0: automatic, max(5,
            /// target_delay·C/2) with C the link rate in mean_packet_size packets per second
            /// (Floyd et al. 2001).
            opt min_th: f64 = 0.0, unit = packets,
                check = min_th.is_finite() && *min_th >= 0.0 => ">= 0 (0: automatic)";
            /// Upper threshold of the average queue, in packets. 0: automatic, 3·min_th
            /// (Floyd et al. 2001).
            opt max_th: f64 = 0.0, unit = packets,
                check = max_th.is_finite() && *max_th >= 0.0 => ">= 0 (0: automatic)",
                relation = "0, or > min_th with min_th set";
            /// EWMA weight w_q of the average. 0: automatic, 1 − exp(−1/C) (Floyd et al. 2001).
            opt weight: f64 = 0.0, unit = fraction,
                check = (0.0..=1.0).contains(weight) => "0..=1 (0: automatic)";
            /// The queueing delay the automatic min_th stands for (Floyd et al. 2001: 5 ms).
            opt target_delay: $crate::__Duration = $crate::__Duration::from_millis(5), unit = time,
                check = !target_delay.is_zero() && *target_delay <= $crate::__Duration::from_secs(60)
                    => "(0, 60s]";
            /// max_p when the run starts; the adaptation moves it.
            opt max_p: f64 = 0.1, unit = probability,
                check = *max_p > 0.0 && *max_p <= 1.0 => "(0, 1]";
            /// How often max_p is adapted (Floyd et al. 2001: 0.5 s).
            opt interval: $crate::__Duration = $crate::__Duration::from_millis(500), unit = time,
                check = *interval >= $crate::__Duration::from_millis(1) => ">= 1ms";
            /// max_p is raised only while it is at most this (Floyd et al. 2001: 0.5) ...
            opt max_p_top: f64 = 0.5, unit = probability,
                check = *max_p_top > 0.0 && *max_p_top <= 1.0 => "(0, 1]";
            /// ... and lowered only while it is at least this (0.01).
            opt max_p_bottom: f64 = 0.01, unit = probability,
                check = *max_p_bottom > 0.0 && *max_p_bottom <= 1.0 => "(0, 1]",
                relation = "< max_p_top";
            /// Decrease factor β of max_p (Floyd et al. 2001: 0.9); the increase is
            /// α = min(0.01, max_p/4).
            opt beta: f64 = 0.9, unit = fraction,
                check = *beta > 0.0 && *beta < 1.0 => "(0, 1)";
            /// Gentle RED between max_th and 2·max_th (Floyd et al. 2001 use it).
            opt gentle: bool = true, unit = flag;
            /// Packet size, in bytes, of the link rate in packets per second (C) and of the
            /// idle-time decay (as RED's).
            opt mean_packet_size: u32 = 500, unit = bytes,
                check = (20..=65_535).contains(mean_packet_size) => "20..=65535";
        }
        internal {}
    } };
}

ared_option_table!(rexmit_options::config_table {
    /// Adaptive RED's parameters.
    #[derive(Clone, Debug, PartialEq)]
    pub struct AredConfig
});

impl rexmit_options::Relations for AredConfig {
    fn check_relations(&self) -> Result<(), rexmit_options::ConfigError> {
        use rexmit_options::require;
        require(
            self.max_th == 0.0 || (self.min_th > 0.0 && self.min_th < self.max_th),
            "max_th",
            "0, or > min_th with min_th set",
            &self.max_th,
        )?;
        require(
            self.max_p_bottom < self.max_p_top,
            "max_p_bottom",
            "< max_p_top",
            &self.max_p_bottom,
        )
    }
}

impl AredConfig {
    /// RED's parameters on a line of rate `rate`: the automatic ones filled in (Floyd et al.
    /// 2001): C = rate in mean_packet_size packets/s, w_q = 1 − exp(−1/C),
    /// min_th = max(5, target_delay·C/2), max_th = 3·min_th.
    pub fn red_params(&self, rate: Rate) -> RedParams {
        let c = rate.bps() as f64 / (8.0 * self.mean_packet_size as f64);
        let min_th = if self.min_th > 0.0 {
            self.min_th
        } else {
            (self.target_delay.as_secs_f64() * c / 2.0).max(5.0)
        };
        RedParams {
            min_th,
            max_th: if self.max_th > 0.0 {
                self.max_th
            } else {
                3.0 * min_th
            },
            max_p: self.max_p,
            weight: if self.weight > 0.0 {
                self.weight
            } else {
                1.0 - (-1.0 / c).exp()
            },
            gentle: self.gentle,
            mean_packet_size: self.mean_packet_size,
        }
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Ared {
    pub red: Red,
    cfg: AredConfig,
    /// The next instant max_p is adapted (every `interval` from 0).
    next_adapt: Time,
}

impl Ared {
    pub fn new(cfg: AredConfig, rate: Rate) -> Self {
        Ared {
            red: Red::new(cfg.red_params(rate), rate),
            next_adapt: Time::ZERO + cfg.interval,
            cfg,
        }
    }

    /// An arrival at `now` to a queue of `qlen` packets: the adaptations due first.
    pub fn on_arrival(&mut self, now: Time, qlen: usize, rng: &mut RngStream) -> RedVerdict {
        self.adapt_until(now);
        self.red.on_arrival(now, qlen, rng)
    }

    /// Every adaptation instant up to `now`, each with the average as it stood then (the
    /// average only moves on arrivals and decays while the queue is idle).
    fn adapt_until(&mut self, now: Time) {
        while self.next_adapt <= now {
            let avg = self.red.avg_at(self.next_adapt);
            self.adapt(avg);
            self.next_adapt += self.cfg.interval;
        }
    }

    /// Floyd et al. 2001, the adaptation of max_p: up by α = min(0.01, max_p/4) while the
    /// average is above the target band and max_p ≤ 0.5, down by the factor β while it is
    /// below and max_p ≥ 0.01. The band is [min_th + 0.4·(max_th − min_th),
    /// min_th + 0.6·(max_th − min_th)].
    fn adapt(&mut self, avg: f64) {
        let p = &mut self.red.params;
        let span = p.max_th - p.min_th;
        let (low, high) = (p.min_th + 0.4 * span, p.min_th + 0.6 * span);
        if avg > high && p.max_p <= self.cfg.max_p_top {
            p.max_p += (p.max_p / 4.0).min(0.01);
        } else if avg < low && p.max_p >= self.cfg.max_p_bottom {
            p.max_p *= self.cfg.beta;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rexmit_engine::StreamFactory;

    #[test]
    fn automatic_parameters_from_the_link_rate() {
        // 10 Mb/s in 500-byte packets: C = 2500 packets/s. min_th = max(5, 0.005·2500/2) =
        // 6.25, max_th = 18.75, w_q = 1 − exp(−1/2500).
        let p = AredConfig::default().red_params(Rate::from_mbps(10));
        assert!((p.min_th - 6.25).abs() < 1e-12);
        assert!((p.max_th - 18.75).abs() < 1e-12);
        assert!((p.weight - (1.0 - (-1.0f64 / 2500.0).exp())).abs() < 1e-15);
        // 1 Mb/s: 0.005·250/2 = 0.625, so min_th is the floor of 5.
        let slow = AredConfig::default().red_params(Rate::from_mbps(1));
        assert_eq!((slow.min_th, slow.max_th), (5.0, 15.0));
        // Set values are kept.
        let set = AredConfig {
            min_th: 20.0,
            max_th: 50.0,
            weight: 0.002,
            ..AredConfig::default()
        }
        .red_params(Rate::from_mbps(10));
        assert_eq!((set.min_th, set.max_th, set.weight), (20.0, 50.0, 0.002));
    }

    /// ARED with thresholds 5 and 15 (target band 9..11) and w_q = 1 (the average is the
    /// instantaneous queue length seen by each arrival).
    fn ared() -> Ared {
        Ared::new(
            AredConfig {
                min_th: 5.0,
                max_th: 15.0,
                weight: 1.0,
                ..AredConfig::default()
            },
            Rate::from_mbps(10),
        )
    }

    #[test]
    fn max_p_rises_every_interval_while_the_average_is_above_the_band() {
        let mut a = ared();
        let mut rng = StreamFactory::new(3).stream("t");
        // Arrivals every 100 ms to a queue of 12 (above 11): at 0.5, 1.0, 1.5, 2.0 s max_p
        // rises by min(0.01, max_p/4) = 0.01 each time.
        let mut expected = 0.1;
        for k in 1..=20u64 {
            a.on_arrival(Time::from_millis(100 * k), 12, &mut rng);
            if k % 5 == 0 {
                expected += 0.01;
            }
            assert!((a.red.params.max_p - expected).abs() < 1e-12, "k {k}");
        }
        // The adaptation at 2.5 s happens at the first arrival after it, once.
        a.on_arrival(Time::from_millis(2_700), 12, &mut rng);
        assert!((a.red.params.max_p - 0.15).abs() < 1e-12);
    }

    #[test]
    fn max_p_falls_by_beta_below_the_band_and_stays_within_bounds() {
        let mut a = ared();
        let mut rng = StreamFactory::new(3).stream("t");
        // Average 7 (below 9): ×0.9 per interval until max_p < 0.01, then it stops.
        let mut t = 0;
        let mut seen = Vec::new();
        for _ in 0..60 {
            t += 500;
            a.on_arrival(Time::from_millis(t), 7, &mut rng);
            seen.push(a.red.params.max_p);
        }
        assert!((seen[0] - 0.09).abs() < 1e-12);
        assert!((seen[1] - 0.081).abs() < 1e-12);
        let last = *seen.last().unwrap();
        // It stops after the first value below max_p_bottom (checked before each decrease).
        assert!((0.01 * 0.9..0.01).contains(&last), "{last}");
        assert_eq!(seen[seen.len() - 2], last);
        // Within the band nothing changes.
        let mut b = ared();
        b.on_arrival(Time::ZERO, 10, &mut rng);
        for k in 1..=10 {
            b.on_arrival(Time::from_millis(500 * k), 10, &mut rng);
        }
        assert_eq!(b.red.params.max_p, 0.1);
    }

    #[test]
    fn increase_is_a_quarter_of_max_p_when_small_and_stops_above_top() {
        let mut a = Ared::new(
            AredConfig {
                min_th: 5.0,
                max_th: 15.0,
                weight: 1.0,
                max_p: 0.02,
                ..AredConfig::default()
            },
            Rate::from_mbps(10),
        );
        let mut rng = StreamFactory::new(3).stream("t");
        a.on_arrival(Time::ZERO, 14, &mut rng);
        a.on_arrival(Time::from_millis(500), 14, &mut rng);
        // α = min(0.01, 0.02/4) = 0.005.
        assert!((a.red.params.max_p - 0.025).abs() < 1e-12);
        for k in 2..200 {
            a.on_arrival(Time::from_millis(500 * k), 14, &mut rng);
        }
        // Raised while ≤ 0.5: ends in (0.5, 0.51].
        let p = a.red.params.max_p;
        assert!(p > 0.5 && p <= 0.51, "{p}");
    }
}
