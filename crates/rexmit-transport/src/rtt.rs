//! RTT estimation and RTO computation: RFC 6298 §2 for TCP, identical in form to RFC 9260
//! §6.3.1 for SCTP (only the default bounds differ, see `RtoConfig::tcp` / `RtoConfig::sctp`).

use rexmit_time::Duration;

/// RTO bounds and constants. All configurable; the constructors give each RFC's defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct RtoConfig {
    pub initial: Duration,
    pub min: Duration,
    pub max: Duration,
    /// Clock granularity G of RFC 6298 §2 (RTO = SRTT + max(G, 4·RTTVAR)).
    pub granularity: Duration,
}

impl RtoConfig {
    /// RFC 6298 §2: initial 1 s, minimum 1 s (§2.4), maximum at least 60 s (§2.5).
    pub fn tcp() -> Self {
        RtoConfig {
            initial: Duration::from_secs(1),
            min: Duration::from_secs(1),
            max: Duration::from_secs(60),
            granularity: Duration::from_millis(1),
        }
    }
    /// RTO.Min 1 s and RTO.Max 60 s (RFC 9260 §16); RTO.Initial 3 s as in RFC 4960 §15, which
    /// seed 000 and its ns-2 SCTP (the validation peer) use — RFC 9260 §16 lowered it to 1 s;
    /// a scenario sets `sctp.rto.initial = "1s"` for that.
    pub fn sctp() -> Self {
        RtoConfig {
            initial: Duration::from_secs(3),
            min: Duration::from_secs(1),
            max: Duration::from_secs(60),
            granularity: Duration::from_millis(1),
        }
    }
}

impl RtoConfig {
    /// The first bound this configuration breaks, as (field, allowed range, value), in the
    /// order the cores report them; `None` when it is valid. Shared by the TCP and SCTP
    /// configuration checks.
    pub fn invalid(&self) -> Option<(&'static str, &'static str, Duration)> {
        if self.min.is_zero() {
            Some(("rto.min", "> 0", self.min))
        } else if self.min > self.max {
            Some(("rto.max", ">= rto.min", self.max))
        } else if self.initial < self.min || self.initial > self.max {
            Some(("rto.initial", "rto.min..=rto.max", self.initial))
        } else if self.granularity > self.max {
            Some(("rto.granularity", "0..=rto.max", self.granularity))
        } else {
            None
        }
    }
}

/// SRTT/RTTVAR estimator with exponential backoff.
#[derive(Clone, Debug, PartialEq)]
pub struct RttEstimator {
    config: RtoConfig,
    srtt: Option<Duration>,
    rttvar: Duration,
    latest: Option<Duration>,
    min_rtt: Option<Duration>,
    /// RTO before backoff.
    base_rto: Duration,
    /// Number of consecutive backoffs (RFC 6298 §5.5).
    backoffs: u32,
}

impl RttEstimator {
    pub fn new(config: RtoConfig) -> Self {
        let base_rto = config.initial;
        RttEstimator {
            config,
            srtt: None,
            rttvar: Duration::ZERO,
            latest: None,
            min_rtt: None,
            base_rto,
            backoffs: 0,
        }
    }

    pub fn config(&self) -> &RtoConfig {
        &self.config
    }

    /// Feed one RTT measurement. Callers apply Karn's rule (RFC 6298 §3: never sample a
    /// retransmitted segment unless timestamps disambiguate it).
    pub fn on_sample(&mut self, r: Duration) {
        self.latest = Some(r);
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        match self.srtt {
            None => {
                // RFC 6298 §2.2
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            Some(srtt) => {
                // RFC 6298 §2.3, beta = 1/4, alpha = 1/8.
                let diff = if srtt > r { srtt - r } else { r - srtt };
                self.rttvar = self.rttvar.mul_div(3, 4) + diff.mul_div(1, 4);
                self.srtt = Some(srtt.mul_div(7, 8) + r.mul_div(1, 8));
            }
        }
        let srtt = self.srtt.expect("set above");
        let var_term = (self.rttvar * 4).max(self.config.granularity);
        self.base_rto = self.clamp(srtt + var_term);
        // A new measurement after backoff collapses the backoff (RFC 6298 §5.7 read with §2).
        self.backoffs = 0;
    }

    fn clamp(&self, rto: Duration) -> Duration {
        rto.max(self.config.min).min(self.config.max)
    }

    /// The current RTO including backoff.
    pub fn rto(&self) -> Duration {
        let mut rto = self.base_rto;
        for _ in 0..self.backoffs {
            rto = rto.saturating_add(rto);
            if rto >= self.config.max {
                return self.config.max;
            }
        }
        self.clamp(rto)
    }

    /// The RTO without backoff (SRTT + 4·RTTVAR clamped).
    pub fn base_rto(&self) -> Duration {
        self.base_rto
    }

    /// RFC 6298 §5.5: double the RTO after a timeout (bounded by the maximum).
    pub fn back_off(&mut self) {
        if self.rto() < self.config.max {
            self.backoffs += 1;
        }
    }

    /// Undo the backoff without a new sample (used by the thin-stream linear-timeout option).
    pub fn reset_backoff(&mut self) {
        self.backoffs = 0;
    }

    pub fn backoffs(&self) -> u32 {
        self.backoffs
    }
    pub fn srtt(&self) -> Option<Duration> {
        self.srtt
    }
    pub fn rttvar(&self) -> Duration {
        self.rttvar
    }
    pub fn latest(&self) -> Option<Duration> {
        self.latest
    }
    pub fn min_rtt(&self) -> Option<Duration> {
        self.min_rtt
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> Duration {
        Duration::from_millis(x)
    }

    #[test]
    fn first_sample_sets_srtt_and_half_rttvar() {
        let mut e = RttEstimator::new(RtoConfig {
            min: ms(1),
            ..RtoConfig::tcp()
        });
        assert_eq!(e.rto(), Duration::from_secs(1));
        e.on_sample(ms(100));
        assert_eq!(e.srtt(), Some(ms(100)));
        assert_eq!(e.rttvar(), ms(50));
        assert_eq!(e.rto(), ms(300)); // 100 + 4*50
    }

    #[test]
    fn second_sample_follows_rfc6298_weights() {
        let mut e = RttEstimator::new(RtoConfig {
            min: ms(1),
            ..RtoConfig::tcp()
        });
        e.on_sample(ms(100));
        e.on_sample(ms(200));
        // RTTVAR = 3/4*50 + 1/4*100 = 62.5; SRTT = 7/8*100 + 1/8*200 = 112.5
        assert_eq!(e.rttvar(), Duration::from_micros(62_500));
        assert_eq!(e.srtt(), Some(Duration::from_micros(112_500)));
        assert_eq!(e.rto(), Duration::from_micros(362_500));
    }

    #[test]
    fn minimum_applies_and_backoff_doubles_up_to_max() {
        let mut e = RttEstimator::new(RtoConfig::tcp());
        e.on_sample(ms(10));
        assert_eq!(e.rto(), Duration::from_secs(1));
        let seq: Vec<u64> = (0..8)
            .map(|_| {
                let r = e.rto().as_nanos() / 1_000_000_000;
                e.back_off();
                r
            })
            .collect();
        assert_eq!(seq, vec![1, 2, 4, 8, 16, 32, 60, 60]);
        e.on_sample(ms(10));
        assert_eq!(e.rto(), Duration::from_secs(1));
    }
}
