//! PIE, Proportional Integral controller Enhanced (RFC 8033): a drop probability updated every
//! T_UPDATE from the queueing delay's distance to its target and its trend, applied to arrivals
//! after a burst allowance.
//!
//! The queueing delay is measured with timestamps (RFC 8033 §4.3 allows them instead of the
//! departure-rate estimate of §5.2): `current_qdelay` is the sojourn time of the last packet
//! that left, and 0 once a departure leaves the queue empty (an empty queue delays nothing, and
//! an idle queue must not keep its last packet's delay through the updates that follow).
//!
//! The periodic update runs without timer events: before each arrival or departure, every
//! update instant up to it is applied in order, which gives the same result because the
//! state the update reads only changes at arrivals and departures. An update at the same
//! instant as a packet runs first.
//!
//! Owns: the drop probability, the burst allowance, and the optional derandomization (§5.4)
//! and cap drop adjustment (§5.5). Does not own: the tail drop at the queue's limit.

use super::Arrival;
use rexmit_engine::RngStream;
use rexmit_time::{Duration, Time};

/// PIE's option table (`queue = { aqm = "pie", pie = { ... } }`; crate `rexmit-options`).
#[macro_export]
macro_rules! pie_option_table {
    ($generator:path { $($head:tt)* }) => { $generator! { $($head)* ;
        public {
            /// QDELAY_REF, the target queueing delay (RFC 8033 §4.2, App. A: 15 ms).
            opt target: $crate::__Duration = $crate::__Duration::from_millis(15), unit = time,
                check = !target.is_zero() => "> 0";
            /// T_UPDATE, the period of the drop probability's update (RFC 8033 §4.2: 15 ms).
            opt t_update: $crate::__Duration = $crate::__Duration::from_millis(15), unit = time,
                check = *t_update >= $crate::__Duration::from_micros(100) => ">= 100us";
            /// alpha, the weight of the delay's distance to the target, per second (RFC 8033
            /// §4.2: 0.125).
            opt alpha: f64 = 0.125, unit = per_second,
                check = alpha.is_finite() && *alpha >= 0.0 => ">= 0";
            /// beta, the weight of the delay's change since the last update, per second
            /// (RFC 8033 §4.2: 1.25).
            opt beta: f64 = 1.25, unit = per_second,
                check = beta.is_finite() && *beta >= 0.0 => ">= 0";
            /// MAX_BURST, how long a burst passes undropped after a calm period (RFC 8033 §4.4:
            /// 150 ms).
            opt max_burst: $crate::__Duration = $crate::__Duration::from_millis(150), unit = time;
            /// With ECN, ECN-capable packets are marked only while the drop probability is at
            /// most this, and dropped above it (RFC 8033 §5.1: 10%).
            opt mark_ecnth: f64 = 0.1, unit = probability,
                check = (0.0..=1.0).contains(mark_ecnth) => "0..=1";
            /// Derandomization (RFC 8033 §5.4): drops spaced by the accumulated probability.
            opt derandomize: bool = false, unit = flag;
            /// Cap drop adjustment (RFC 8033 §5.5): above 10%, the probability grows by at most
            /// 2% per update.
            opt cap_drop_adjustment: bool = true, unit = flag;
            /// MEAN_PKTSIZE of the safeguard: no random drop while the queue holds at most two
            /// such packets (RFC 8033 §4.1). RFC 8033 gives no value; one MTU.
            opt mean_packet_size: u32 = 1500, unit = bytes,
                check = *mean_packet_size >= 1 => ">= 1";
        }
        internal {}
    } };
}

pie_option_table!(rexmit_options::config_table {
    /// PIE's parameters.
    #[derive(Clone, Debug, PartialEq)]
    pub struct PieConfig
});

impl rexmit_options::Relations for PieConfig {}

#[derive(Clone, Debug)]
pub(crate) struct Pie {
    cfg: PieConfig,
    /// `drop_prob_`.
    drop_prob: f64,
    /// `current_qdelay`: see the module docs.
    qdelay: Duration,
    /// `qdelay_old_`: `current_qdelay` at the last update.
    qdelay_old: Duration,
    /// `burst_allowance_`.
    burst_allowance: Duration,
    /// `accu_prob_` of derandomization.
    accu_prob: f64,
    next_update: Time,
}

impl Pie {
    pub fn new(cfg: PieConfig) -> Self {
        Pie {
            drop_prob: 0.0,
            qdelay: Duration::ZERO,
            qdelay_old: Duration::ZERO,
            // RFC 8033 §4.4: initialized to MAX_BURST.
            burst_allowance: cfg.max_burst,
            accu_prob: 0.0,
            next_update: Time::ZERO + cfg.t_update,
            cfg,
        }
    }

    /// An arrival at `now` to a queue holding `queue_bytes` (RFC 8033 App. A `enque` and
    /// `drop_early`, §5.1 for the ECN threshold, §5.4 for derandomization).
    pub fn on_arrival(&mut self, now: Time, queue_bytes: u64, rng: &mut RngStream) -> Arrival {
        self.update_until(now);
        let half = self.cfg.target / 2;
        if self.drop_prob == 0.0 && self.qdelay < half && self.qdelay_old < half {
            self.burst_allowance = self.cfg.max_burst;
        }
        if !self.burst_allowance.is_zero() {
            return Arrival::Accept;
        }
        // Safeguard (§4.1): no random drop while the delay is low and the probability small,
        // or the queue holds at most two packets.
        if (self.qdelay_old < half && self.drop_prob < 0.2)
            || queue_bytes <= 2 * self.cfg.mean_packet_size as u64
        {
            return Arrival::Accept;
        }
        let signal = if self.cfg.derandomize {
            // §5.4: no drop while the accumulated probability is below 0.85, always one at 8.5.
            if self.drop_prob == 0.0 {
                self.accu_prob = 0.0;
            }
            self.accu_prob += self.drop_prob;
            if self.accu_prob < 0.85 {
                false
            } else {
                self.accu_prob >= 8.5 || rng.uniform() < self.drop_prob
            }
        } else {
            rng.uniform() < self.drop_prob
        };
        if !signal {
            return Arrival::Accept;
        }
        self.accu_prob = 0.0;
        Arrival::Signal {
            // §5.1: above mark_ecnth an ECN-capable packet is dropped too.
            forced: self.drop_prob > self.cfg.mark_ecnth,
        }
    }

    /// A packet that waited `sojourn` leaves at `now`; `empty`: it was the last one.
    pub fn on_departure(&mut self, now: Time, sojourn: Duration, empty: bool) {
        self.update_until(now);
        self.qdelay = if empty { Duration::ZERO } else { sojourn };
    }

    /// Every update instant up to `now` (module docs). Once the state is a fixed point of the
    /// update (no probability, a constant delay at or below target, no burst allowance left)
    /// the remaining instants are skipped at once.
    fn update_until(&mut self, now: Time) {
        while self.next_update <= now {
            if self.drop_prob == 0.0
                && self.qdelay == self.qdelay_old
                && self.qdelay <= self.cfg.target
                && self.burst_allowance.is_zero()
            {
                let t = self.cfg.t_update.as_nanos();
                let behind = (now - self.next_update).as_nanos() / t;
                self.next_update += Duration::from_nanos((behind + 1) * t);
                return;
            }
            self.calculate_drop_prob();
            self.next_update += self.cfg.t_update;
        }
    }

    /// RFC 8033 §4.2 (App. B `calculate_drop_prob`).
    fn calculate_drop_prob(&mut self) {
        let cur = self.qdelay.as_secs_f64();
        let old = self.qdelay_old.as_secs_f64();
        let mut p =
            self.cfg.alpha * (cur - self.cfg.target.as_secs_f64()) + self.cfg.beta * (cur - old);
        // Auto-tuning: small probabilities move in small steps.
        let scale = match self.drop_prob {
            x if x < 0.000_001 => 1.0 / 2048.0,
            x if x < 0.000_01 => 1.0 / 512.0,
            x if x < 0.000_1 => 1.0 / 128.0,
            x if x < 0.001 => 1.0 / 32.0,
            x if x < 0.01 => 1.0 / 8.0,
            x if x < 0.1 => 1.0 / 2.0,
            _ => 1.0,
        };
        p *= scale;
        // §5.5: cap the increase at 2% above 10%.
        if self.cfg.cap_drop_adjustment && self.drop_prob >= 0.1 && p > 0.02 {
            p = 0.02;
        }
        self.drop_prob += p;
        // Decay when the congestion is gone.
        if self.qdelay.is_zero() && self.qdelay_old.is_zero() {
            self.drop_prob *= 0.98;
        }
        self.drop_prob = self.drop_prob.clamp(0.0, 1.0);
        self.qdelay_old = self.qdelay;
        self.burst_allowance = self.burst_allowance.saturating_sub(self.cfg.t_update);
    }

    #[cfg(test)]
    pub fn drop_prob(&self) -> f64 {
        self.drop_prob
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rexmit_engine::StreamFactory;

    fn ms(t: u64) -> Time {
        Time::from_millis(t)
    }

    #[test]
    fn probability_follows_the_pi_law_with_auto_tuned_steps() {
        // A queue delay held at 45 ms (30 ms above target) from t = 0.
        let mut pie = Pie::new(PieConfig::default());
        pie.on_departure(Time::ZERO, Duration::from_millis(45), false);
        // Update at 15 ms: p = 0.125·0.030 + 1.25·0.045 = 0.06; drop_prob 0 < 1e-6: /2048.
        pie.update_until(ms(15));
        let p1 = (0.125 * 0.030 + 1.25 * 0.045) / 2048.0;
        assert!((pie.drop_prob() - p1).abs() < 1e-15);
        // Update at 30 ms: no trend; p = 0.00375, drop_prob ≈ 2.9e-5 < 1e-4: /128.
        pie.update_until(ms(30));
        let p2 = p1 + 0.125 * 0.030 / 128.0;
        assert!((pie.drop_prob() - p2).abs() < 1e-15);
        // The probability keeps rising while the delay stays above target.
        pie.update_until(ms(3_000));
        assert!(pie.drop_prob() > 0.1, "{}", pie.drop_prob());
        // Burst allowance: 150 ms, 15 ms per update, gone after 10 updates.
        assert!(pie.burst_allowance.is_zero());
    }

    #[test]
    fn cap_drop_adjustment_limits_steps_above_ten_percent() {
        let mut pie = Pie::new(PieConfig::default());
        pie.drop_prob = 0.2;
        pie.qdelay_old = Duration::from_millis(15);
        // A jump to 200 ms: p = 0.125·0.185 + 1.25·0.185 = 0.254, capped at 0.02.
        pie.on_departure(Time::ZERO, Duration::from_millis(200), false);
        pie.update_until(ms(15));
        assert!((pie.drop_prob() - 0.22).abs() < 1e-12);
        let mut uncapped = Pie::new(PieConfig {
            cap_drop_adjustment: false,
            ..PieConfig::default()
        });
        uncapped.drop_prob = 0.2;
        uncapped.qdelay_old = Duration::from_millis(15);
        uncapped.on_departure(Time::ZERO, Duration::from_millis(200), false);
        uncapped.update_until(ms(15));
        assert!((uncapped.drop_prob() - (0.2 + 1.375 * 0.185)).abs() < 1e-12);
    }

    #[test]
    fn probability_decays_once_the_queue_is_empty() {
        let mut pie = Pie::new(PieConfig::default());
        pie.drop_prob = 0.5;
        pie.qdelay_old = Duration::ZERO;
        pie.on_departure(Time::ZERO, Duration::from_millis(30), true);
        // Empty: current_qdelay 0. Each update: p = −alpha·target = −0.001875, then ×0.98.
        pie.update_until(ms(15));
        assert!((pie.drop_prob() - (0.5 - 0.001875) * 0.98).abs() < 1e-12);
        // Long idle: it reaches 0 and the updates stop costing anything.
        pie.update_until(ms(1_000_000));
        assert_eq!(pie.drop_prob(), 0.0);
        assert_eq!(pie.next_update, ms(1_000_005));
    }

    #[test]
    fn burst_allowance_protects_a_burst_then_random_drops_start() {
        let mut pie = Pie::new(PieConfig::default());
        let mut rng = StreamFactory::new(5).stream("t");
        // A standing 100 ms delay from t = 0 with 100 packets of 1500 bytes queued.
        pie.on_departure(Time::ZERO, Duration::from_millis(100), false);
        // Within the first 150 ms nothing is dropped.
        for t in 0..150 {
            assert_eq!(pie.on_arrival(ms(t), 150_000, &mut rng), Arrival::Accept);
        }
        // Later the probability is large enough for drops to appear.
        let signals = (2_000..4_000u64)
            .filter(|&t| pie.on_arrival(ms(t), 150_000, &mut rng) != Arrival::Accept)
            .count();
        assert!(signals > 100, "{signals}");
        // Two packets or less queued: never dropped (§4.1 safeguard).
        assert_eq!(pie.on_arrival(ms(4_000), 3000, &mut rng), Arrival::Accept);
    }

    /// PIE past its burst allowance with a standing 30 ms delay and drop probability `p`, no
    /// update due for a long time.
    fn steady(cfg: PieConfig, p: f64) -> Pie {
        let mut pie = Pie::new(cfg);
        pie.burst_allowance = Duration::ZERO;
        pie.qdelay_old = Duration::from_millis(30);
        pie.qdelay = Duration::from_millis(30);
        pie.next_update = ms(1_000_000);
        pie.drop_prob = p;
        pie
    }

    #[test]
    fn ecn_marks_only_up_to_mark_ecnth() {
        let mut pie = steady(PieConfig::default(), 0.08);
        let mut rng = StreamFactory::new(5).stream("t");
        let sig = |pie: &mut Pie, rng: &mut RngStream| loop {
            if let Arrival::Signal { forced } = pie.on_arrival(ms(1), 150_000, rng) {
                return forced;
            }
        };
        assert!(!sig(&mut pie, &mut rng));
        pie.drop_prob = 0.3;
        assert!(sig(&mut pie, &mut rng));
    }

    #[test]
    fn derandomization_spaces_drops_by_accumulated_probability() {
        let cfg = PieConfig {
            derandomize: true,
            ..PieConfig::default()
        };
        let mut pie = steady(cfg, 0.25);
        let mut rng = StreamFactory::new(5).stream("t");
        // Accumulating 0.25 per arrival: none of the first three arrivals (0.25, 0.5, 0.75 <
        // 0.85) is dropped; from then on a drop comes within 34 arrivals (8.5 / 0.25).
        let drops: Vec<usize> = (0..400)
            .filter(|_| pie.on_arrival(ms(1), 150_000, &mut rng) != Arrival::Accept)
            .collect();
        assert!(drops[0] >= 3);
        for w in drops.windows(2) {
            assert!(w[1] - w[0] >= 4 && w[1] - w[0] <= 34, "{w:?}");
        }
    }
}
