//! RTT estimation and RTO computation: RFC 6298 §2 for TCP, identical in form to RFC 9260
//! §6.3.1 for SCTP (only the default bounds differ, see `RtoConfig::tcp` / `RtoConfig::sctp`),
//! and Linux's variant of it for TCP's `linux` profile (`RtoEstimator::Linux`).

use rexmit_time::Duration;

rexmit_options::choices! {
    /// How the RTO follows the RTT samples.
    #[derive(Default)]
    pub enum RtoEstimator {
        #[default]
        /// RFC 6298 §2 (RFC 9260 §6.3.1): RTO = SRTT + max(G, 4·RTTVAR), at least RTO.min.
        Rfc6298 = "rfc6298",
        /// Linux (tcp_rtt_estimator, __tcp_set_rto): the same SRTT, but RTO = SRTT + V where V
        /// follows the largest 4·mean deviation of each round trip (a round ends when SND.UNA
        /// passes what was sent when it began) and is never below RTO.min: V rises at once to a
        /// larger deviation and falls a quarter of the way back to the round's largest one per
        /// round. A falling RTT moves the deviation at 1/32 instead of 1/4. The first sample R
        /// gives V = max(2R, RTO.min). G is not used; RTO.min bounds V, not the RTO.
        Linux = "linux",
        /// FreeBSD's SCTP (sctp_calculate_rto): RFC 6298's gains on van Jacobson's scaled
        /// integers in whole milliseconds: samples are truncated to milliseconds, SRTT kept as
        /// 8·SRTT and the deviation as 4·RTTVAR, which never falls below 1 ms; RTO = SRTT +
        /// 4·RTTVAR. G is not used.
        Freebsd = "freebsd",
    }
}

/// The RTO option table (`rto = { ... }` of TCP and SCTP; crate `rexmit-options`): RTO bounds
/// and constants. The defaults are RFC 6298's; each protocol's table gives its own
/// (`RtoConfig::tcp`, `RtoConfig::sctp`).
#[macro_export]
macro_rules! rto_option_table {
    ($generator:path { $($head:tt)* }) => { $generator! { $($head)* ;
        public {
            /// RTO.Initial, before any RTT sample (RFC 6298 §2.1: 1 s).
            opt initial: $crate::__Duration = $crate::__Duration::from_secs(1), unit = time,
                relation = "rto.min..=rto.max";
            /// RTO.Min (RFC 6298 §2.4: 1 s).
            opt min: $crate::__Duration = $crate::__Duration::from_secs(1), unit = time,
                check = !min.is_zero() => "> 0";
            /// RTO.Max (RFC 6298 §2.5: at least 60 s).
            opt max: $crate::__Duration = $crate::__Duration::from_secs(60), unit = time,
                relation = ">= rto.min";
            /// The clock granularity G of RFC 6298 §2: RTO = SRTT + max(G, 4·RTTVAR). Linux's
            /// TCP keeps its variance term at least RTO.min, which is G = RTO.min.
            opt granularity: $crate::__Duration = $crate::__Duration::from_millis(1), unit = time,
                relation = "0..=rto.max";
            /// RFC 6298's estimator (RFC 9260 §6.3.1 for SCTP, which allows only it), or Linux's
            /// (`linux` profile).
            opt estimator: $crate::RtoEstimator = $crate::RtoEstimator::Rfc6298, unit = choice;
        }
        internal {}
    } };
}

rto_option_table!(rexmit_options::config_table {
    #[derive(Clone, Debug, PartialEq)]
    pub struct RtoConfig
});

impl RtoConfig {
    /// RFC 6298 §2: initial 1 s, minimum 1 s (§2.4), maximum at least 60 s (§2.5).
    pub fn tcp() -> Self {
        RtoConfig::default()
    }
    /// RTO.Min 1 s and RTO.Max 60 s (RFC 9260 §16); RTO.Initial 3 s as in RFC 4960 §15, which
    /// seed 000 and its ns-2 SCTP (the validation peer) use — RFC 9260 §16 lowered it to 1 s;
    /// a scenario sets `sctp.rto.initial = "1s"` for that.
    pub fn sctp() -> Self {
        RtoConfig {
            initial: Duration::from_secs(3),
            ..RtoConfig::default()
        }
    }
}

/// The bounds relate to each other: min ≤ initial ≤ max, G ≤ max.
impl rexmit_options::Relations for RtoConfig {
    fn check_relations(&self) -> Result<(), rexmit_options::ConfigError> {
        use rexmit_options::require;
        require(self.min <= self.max, "max", ">= rto.min", &self.max)?;
        require(
            self.initial >= self.min && self.initial <= self.max,
            "initial",
            "rto.min..=rto.max",
            &self.initial,
        )?;
        require(
            self.granularity <= self.max,
            "granularity",
            "0..=rto.max",
            &self.granularity,
        )
    }
}

/// SRTT/RTTVAR estimator with exponential backoff.
#[derive(Clone, Debug, PartialEq)]
// Declaration order (`repr(C)`): what an RTO query reads first (SRTT, the base RTO, the
// backoffs and the bounds in the configuration: 56 bytes), a sample's state next, the Linux
// and FreeBSD estimators' state last (issue 40 step 6: fewer cache lines per segment at
// 10 000 flows; the TCP connection's layout test relies on these spans).
#[repr(C)]
pub struct RttEstimator {
    srtt: Option<Duration>,
    /// RTO before backoff.
    base_rto: Duration,
    /// Number of consecutive backoffs (RFC 6298 §5.5).
    backoffs: u32,
    config: RtoConfig,
    min_rtt: Option<Duration>,
    rttvar: Duration,
    latest: Option<Duration>,
    /// The RTO's variance term of the last sample (RTO = SRTT + this, before the bounds).
    var_term: Duration,
    /// `RtoEstimator::Linux`'s variance state.
    linux: LinuxVar,
    /// `RtoEstimator::Freebsd`'s scaled integers, in milliseconds: 8·SRTT and 4·RTTVAR.
    freebsd: (i64, i64),
}

/// The variance term of `RtoEstimator::Linux`, in nanoseconds (signed: the deviation's
/// update can be negative).
#[derive(Clone, Debug, Default, PartialEq)]
struct LinuxVar {
    /// 4 × the smoothed mean deviation.
    mdev4: i64,
    /// The largest `mdev4` of the current round, at least RTO.min.
    round_max: i64,
    /// V: RTO = SRTT + V.
    var: i64,
    /// The round ends when SND.UNA passes this sequence number.
    round_end: u64,
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
            linux: LinuxVar::default(),
            freebsd: (0, 0),
            var_term: Duration::ZERO,
        }
    }

    pub fn config(&self) -> &RtoConfig {
        &self.config
    }

    /// Feed one RTT measurement. Callers apply Karn's rule (RFC 6298 §3: never sample a
    /// retransmitted segment unless timestamps disambiguate it).
    pub fn on_sample(&mut self, r: Duration) {
        self.on_sample_at(r, 0, 0);
    }

    /// A measurement that only the minimum RTT learns from: an SCTP sender times one chunk per
    /// round trip for SRTT and RTTVAR (RFC 9260 §6.3.1 C4) but every acknowledgement of a chunk
    /// sent once still bounds the path's minimum RTT, which RACK's windows are made of.
    pub fn on_min_rtt_sample(&mut self, r: Duration) {
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
    }

    /// `on_sample` for a sender that numbers its data: `snd_una` after the acknowledgement
    /// that gave the sample and `snd_nxt`, the highest sequence number sent, delimit
    /// `RtoEstimator::Linux`'s round trips (ignored by RFC 6298's estimator).
    pub fn on_sample_at(&mut self, r: Duration, snd_una: u64, snd_nxt: u64) {
        self.latest = Some(r);
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        let var_term = match self.config.estimator {
            RtoEstimator::Rfc6298 => self.rfc6298_sample(r),
            RtoEstimator::Linux => self.linux_sample(r, snd_una, snd_nxt),
            RtoEstimator::Freebsd => self.freebsd_sample(r),
        };
        self.var_term = var_term;
        let srtt = self.srtt.expect("set by the sample");
        self.base_rto = self.clamp(srtt + var_term);
        // A new measurement after backoff collapses the backoff (RFC 6298 §5.7 read with §2).
        self.backoffs = 0;
    }

    /// RFC 6298 §2.2–2.3: SRTT and RTTVAR; the RTO's variance term max(G, 4·RTTVAR).
    fn rfc6298_sample(&mut self, r: Duration) -> Duration {
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
        (self.rttvar * 4).max(self.config.granularity)
    }

    /// `RtoEstimator::Linux` (see its description): SRTT and the RTO's variance term V.
    fn linux_sample(&mut self, r: Duration, snd_una: u64, snd_nxt: u64) -> Duration {
        let rto_min = self.config.min.as_nanos() as i64;
        let m = r.as_nanos() as i64;
        let v = &mut self.linux;
        match self.srtt {
            None => {
                self.srtt = Some(r);
                v.mdev4 = 2 * m;
                v.var = v.mdev4.max(rto_min);
                v.round_max = v.var;
                v.round_end = snd_nxt;
            }
            Some(srtt) => {
                let srtt = srtt.as_nanos() as i64;
                let err = m - srtt;
                self.srtt = Some(Duration::from_nanos((srtt + err / 8).max(1) as u64));
                // 4·mdev += |err| − mdev: a gain of 1/4 on the mean deviation, 1/32 when the
                // RTT fell and the deviation would grow.
                let mut step = err.abs() - v.mdev4 / 4;
                if err < 0 && step > 0 {
                    step /= 8;
                }
                v.mdev4 += step;
                if v.mdev4 > v.round_max {
                    v.round_max = v.mdev4;
                    v.var = v.var.max(v.round_max);
                }
                if snd_una > v.round_end {
                    if v.round_max < v.var {
                        v.var -= (v.var - v.round_max) / 4;
                    }
                    v.round_end = snd_nxt;
                    v.round_max = rto_min;
                }
            }
        }
        self.rttvar = Duration::from_nanos((self.linux.var / 4) as u64);
        Duration::from_nanos(self.linux.var as u64)
    }

    /// `RtoEstimator::Freebsd` (see its description): SRTT and the RTO's variance term.
    fn freebsd_sample(&mut self, r: Duration) -> Duration {
        let rtt = (r.as_nanos() / 1_000_000) as i64;
        let (sa, sv) = &mut self.freebsd;
        if self.srtt.is_none() {
            *sa = rtt << 3;
            *sv = (rtt / 2) << 2;
        } else {
            // 8·SRTT += err; 4·RTTVAR += |err| − RTTVAR (gains 1/8 and 1/4, RFC 6298 §2.3).
            let mut err = rtt - (*sa >> 3);
            *sa += err;
            err = err.abs() - (*sv >> 2);
            *sv += err;
        }
        if *sv <= 0 {
            *sv = 1;
        }
        let (sa, sv) = (*sa, *sv);
        self.srtt = Some(Duration::from_millis((sa >> 3).max(0) as u64));
        self.rttvar = Duration::from_micros(sv as u64 * 250);
        Duration::from_millis(sv as u64)
    }

    /// SRTT plus the variance term, before the bounds and backoff (FreeBSD's T3-rtx marks
    /// the chunks outstanding longer than this); `None` before the first sample.
    pub fn unbounded_rto(&self) -> Option<Duration> {
        self.srtt.map(|s| s + self.var_term)
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

    /// The TCP connection's layout test (`rexmit_tcp`'s `connection::hot_block`) counts the
    /// lines of an RTO query as the estimator's first 56 bytes and those of a sample as bytes 56
    /// to 119, which it cannot check itself (the fields are private here).
    #[test]
    fn an_rto_query_reads_the_first_56_bytes() {
        use std::mem::{offset_of, size_of};
        let config = offset_of!(RttEstimator, config);
        let end = |at: usize, size: usize| at + size;
        for e in [
            end(
                offset_of!(RttEstimator, srtt),
                size_of::<Option<Duration>>(),
            ),
            end(offset_of!(RttEstimator, base_rto), size_of::<Duration>()),
            end(offset_of!(RttEstimator, backoffs), size_of::<u32>()),
            end(config + offset_of!(RtoConfig, min), size_of::<Duration>()),
            end(config + offset_of!(RtoConfig, max), size_of::<Duration>()),
        ] {
            assert!(e <= 56, "an RTO query reads up to byte {e}");
        }
        for (at, size) in [
            (
                offset_of!(RttEstimator, min_rtt),
                size_of::<Option<Duration>>(),
            ),
            (offset_of!(RttEstimator, rttvar), size_of::<Duration>()),
            (
                offset_of!(RttEstimator, latest),
                size_of::<Option<Duration>>(),
            ),
            (offset_of!(RttEstimator, var_term), size_of::<Duration>()),
        ] {
            assert!(at >= 56 && at + size <= 120, "a sample's field at {at}");
        }
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

    /// FreeBSD's integers (sctp_calculate_rto): 60.9 ms counts as 60 ms; the deviation term
    /// decays in whole milliseconds and stops at 1 ms when the samples stay equal.
    #[test]
    fn freebsd_estimator_works_in_whole_milliseconds() {
        let mut e = RttEstimator::new(RtoConfig {
            min: ms(1),
            estimator: RtoEstimator::Freebsd,
            ..RtoConfig::tcp()
        });
        e.on_sample(Duration::from_micros(60_900));
        assert_eq!(
            (e.srtt(), e.unbounded_rto()),
            (Some(ms(60)), Some(ms(60 + 120)))
        );
        for _ in 0..100 {
            e.on_sample(Duration::from_micros(60_900));
        }
        // 4·RTTVAR falls by (4·RTTVAR)/4 per sample until that is 0: it stops at 3 ms.
        assert_eq!((e.srtt(), e.unbounded_rto()), (Some(ms(60)), Some(ms(63))));
        assert_eq!(e.rto(), ms(63));
        e.on_sample(ms(100));
        // err 40: 8·SRTT 480 + 40 = 520 (SRTT 65); 4·RTTVAR 3 + (40 − 0) = 43.
        assert_eq!((e.srtt(), e.unbounded_rto()), (Some(ms(65)), Some(ms(108))));
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

    fn linux(min_ms: u64) -> RttEstimator {
        RttEstimator::new(RtoConfig {
            min: ms(min_ms),
            max: Duration::from_secs(120),
            estimator: RtoEstimator::Linux,
            ..RtoConfig::tcp()
        })
    }

    fn us(x: u64) -> Duration {
        Duration::from_micros(x)
    }

    /// Linux: the first sample R gives V = max(2R, RTO.min), so RTO = R + 200 ms here where
    /// RFC 6298 with RTO.min 200 ms gives max(R + 2R, 200 ms) = 200 ms.
    #[test]
    fn linux_first_sample_floors_the_variance_not_the_rto() {
        let mut e = linux(200);
        e.on_sample_at(ms(45), 0, 10);
        assert_eq!(e.srtt(), Some(ms(45)));
        assert_eq!(e.rto(), ms(245));
        let mut r = RttEstimator::new(RtoConfig {
            min: ms(200),
            ..RtoConfig::tcp()
        });
        r.on_sample(ms(45));
        assert_eq!(r.rto(), ms(200));
    }

    /// Linux: V jumps to a larger deviation at once and holds it through the round; each
    /// round that ends with a smaller largest deviation takes a quarter of the gap off V.
    #[test]
    fn linux_variance_holds_per_round_and_decays_by_a_quarter() {
        let mut e = linux(200);
        // Round 1 ends when SND.UNA passes 10.
        e.on_sample_at(ms(100), 0, 10);
        assert_eq!(e.rto(), ms(300)); // 100 + max(200, 200)
                                      // err 200: SRTT 125, 4·mdev = 200 + (200 − 50) = 350 > the round's 200: V = 350.
        e.on_sample_at(ms(300), 5, 20);
        assert_eq!(e.rto(), ms(475));
        // err 0: 4·mdev = 350 − 87.5 = 262.5, V holds at 350; SND.UNA 11 ends round 1.
        e.on_sample_at(ms(125), 11, 30);
        assert_eq!(e.rto(), ms(475));
        // 4·mdev = 262.5 − 65.625 = 196.875, below round 2's floor of 200: round 2's largest is
        // 200, and its end takes (350 − 200)/4 = 37.5 off V.
        e.on_sample_at(ms(125), 31, 40);
        assert_eq!(e.rto(), us(437_500));
        // Rounds of steady samples bring V down towards RTO.min, never below it.
        for k in 0..40 {
            e.on_sample_at(ms(125), 41 + 10 * k, 50 + 10 * k);
        }
        assert!(e.rto() >= ms(325) && e.rto() < ms(326), "{:?}", e.rto());
    }

    /// Linux: when the RTT falls, the deviation grows at 1/32 instead of 1/4 (an Eifel-like
    /// guard against a falling RTT raising the RTO).
    #[test]
    fn linux_falling_rtt_moves_the_deviation_slowly() {
        let mut e = linux(200);
        e.on_sample_at(ms(100), 0, 10);
        // err −80: SRTT 90; 4·mdev = 200 + (80 − 50)/8 = 203.75 > 200: V = 203.75.
        e.on_sample_at(ms(20), 0, 10);
        assert_eq!(e.srtt(), Some(ms(90)));
        assert_eq!(e.rto(), us(293_750));
    }
}
