//! RED (Floyd & Jacobson 1993), with the "gentle" variant (Floyd 2000): an average of the queue
//! length decides, on each arrival, whether to signal congestion early.
//!
//! Owns: the average (with its idle-time decay), the drop probability and the inter-drop count.
//! Does not own: what a signal becomes (drop, or CE mark: the queue decides) or the adaptation
//! of max_p (Adaptive RED, `ared.rs`).

use rexmit_engine::RngStream;
use rexmit_time::{Rate, Time};

/// RED parameters (thresholds in packets, like ns-2's defaults in packet mode).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RedParams {
    pub min_th: f64,
    pub max_th: f64,
    /// Drop probability at max_th.
    pub max_p: f64,
    /// EWMA weight of the average queue length.
    pub weight: f64,
    /// "Gentle" RED: drop probability rises from max_p to 1 between max_th and 2·max_th.
    pub gentle: bool,
    /// Typical packet size (bytes) for the idle-time decay of the average: an idle period
    /// counts as the arrivals of that many packets at the link rate (Floyd & Jacobson §4's
    /// m = f(time − q_time); ns-2 and ns-3 default to 500 bytes).
    pub mean_packet_size: u32,
}

/// RED's answer to an arrival.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RedVerdict {
    Pass,
    /// The random early drop (min_th ≤ avg < max_th, or the gentle region): a congestion
    /// signal that an ECN-capable packet may carry as a mark (RFC 3168 §7).
    Probabilistic,
    /// avg beyond the last threshold: every packet is dropped, marked or not (RFC 3168 §7).
    Forced,
}

#[derive(Clone, Debug)]
pub(crate) struct Red {
    pub params: RedParams,
    pub avg: f64,
    /// Packets since the last drop (for the uniform inter-drop correction).
    count: i64,
    /// Since when the queue has been empty (`q_time`), if it is.
    idle_since: Option<Time>,
    /// Nanoseconds one typical packet takes at the link rate (idle-time decay).
    pkt_ns: f64,
}

impl Red {
    /// RED in front of a line of rate `rate` (the idle-time decay needs it).
    pub fn new(params: RedParams, rate: Rate) -> Self {
        Red {
            pkt_ns: rate
                .tx_time(params.mean_packet_size.max(1) as u64)
                .as_nanos() as f64,
            params,
            avg: 0.0,
            count: -1,
            idle_since: Some(Time::ZERO),
        }
    }

    /// An arrival at `now` to a queue of `qlen` packets.
    pub fn on_arrival(&mut self, now: Time, qlen: usize, rng: &mut RngStream) -> RedVerdict {
        self.decay_idle(now);
        self.decide(qlen as f64, rng)
    }

    /// A packet arrived at an empty queue and an idle line and went straight to the wire (the
    /// queue of `red = { ... }` written without `aqm`): RED still counts the arrival in its
    /// average (queue length 0), never dropping it.
    pub fn bypass(&mut self, now: Time) {
        let w = self.params.weight;
        self.decay_idle(now);
        self.avg *= 1.0 - w;
        self.idle_since = Some(now);
    }

    /// The queue emptied at `now`: RED's q_time (as its last packet starts transmission, as in
    /// Floyd's ns-2 RED).
    pub fn on_empty(&mut self, now: Time) {
        self.idle_since = Some(now);
    }

    /// Number of typical packets that could have been sent in the idle time up to `now`.
    fn idle_packets(&self, now: Time) -> Option<f64> {
        let since = self.idle_since?;
        Some((now.saturating_since(since).as_nanos() as f64 / self.pkt_ns).floor())
    }

    /// Floyd & Jacobson 1993 §4: after an idle period, decay the average as if m small packets
    /// had arrived to the empty queue: avg ← (1 − w_q)^m · avg.
    fn decay_idle(&mut self, now: Time) {
        if let Some(m) = self.idle_packets(now) {
            self.idle_since = None;
            self.avg *= (1.0 - self.params.weight).powf(m);
        }
    }

    /// The average as it stands at `now` (an idle queue's decays), without changing it.
    pub fn avg_at(&self, now: Time) -> f64 {
        match self.idle_packets(now) {
            Some(m) => self.avg * (1.0 - self.params.weight).powf(m),
            None => self.avg,
        }
    }

    /// RED decision on arrival (Floyd & Jacobson 1993, §4; "gentle" variant from Floyd 2000).
    fn decide(&mut self, q: f64, rng: &mut RngStream) -> RedVerdict {
        let p = &self.params;
        self.avg = (1.0 - p.weight) * self.avg + p.weight * q;
        let avg = self.avg;
        let pb = if avg < p.min_th {
            self.count = -1;
            return RedVerdict::Pass;
        } else if avg < p.max_th {
            p.max_p * (avg - p.min_th) / (p.max_th - p.min_th)
        } else if p.gentle && avg < 2.0 * p.max_th {
            p.max_p + (1.0 - p.max_p) * (avg - p.max_th) / p.max_th
        } else {
            self.count = 0;
            return RedVerdict::Forced;
        };
        self.count += 1;
        let denom = 1.0 - self.count as f64 * pb;
        let pa = if denom <= 0.0 { 1.0 } else { pb / denom };
        if rng.bernoulli(pa.min(1.0)) {
            self.count = 0;
            RedVerdict::Probabilistic
        } else {
            RedVerdict::Pass
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::udp;
    use super::super::{OutputQueue, QueueConfig, QueueDiscipline, QueueLimit};
    use super::*;
    use rexmit_engine::StreamFactory;
    use rexmit_time::Duration;

    fn params() -> RedParams {
        RedParams {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            weight: 0.25,
            gentle: true,
            mean_packet_size: 500,
        }
    }

    fn red() -> OutputQueue {
        // 500-byte packets at 10 Mb/s: one packet time is 400 µs.
        OutputQueue::new(
            QueueConfig {
                limit: QueueLimit::Packets(100),
                discipline: QueueDiscipline::Red(params()),
            },
            Rate::from_bps(10_000_000),
            0,
        )
    }

    #[test]
    fn red_average_decays_over_an_idle_period() {
        // Floyd & Jacobson 1993 §4: an idle period of m packet times counts as m arrivals to an
        // empty queue, avg ← (1 − w_q)^m · avg.
        let mut q = red();
        let mut rng = StreamFactory::new(1).stream("t");
        for i in 0..8 {
            assert!(q.enqueue(Time::from_micros(i), udp(), &mut rng).is_ok());
        }
        // Averages after arrivals to queues of 0..7: sum of w(1−w)^k q_k.
        let busy = q.red().avg;
        assert!(busy > 3.0, "{busy}");
        for i in 0..8 {
            q.dequeue(Time::from_micros(10 + i));
        }
        // Empty since 17 µs; the next arrival at 17 µs + 10 packet times sees the decay of
        // (1 − w)^10 first, then its own update with queue length 0.
        let at = Time::from_micros(17) + Duration::from_micros(4_000);
        assert!((q.red().avg_at(at) - busy * 0.75f64.powi(10)).abs() < 1e-12);
        q.enqueue(at, udp(), &mut rng).unwrap();
        let expected = busy * 0.75f64.powi(10) * 0.75;
        assert!(
            (q.red().avg - expected).abs() < 1e-12,
            "{} vs {expected}",
            q.red().avg
        );
    }

    #[test]
    fn red_counts_arrivals_that_bypass_an_empty_queue() {
        // A packet that finds the line idle goes straight out, but RED's average still sees
        // an arrival to an empty queue (w · 0).
        let mut q = red();
        let mut rng = StreamFactory::new(1).stream("t");
        for i in 0..4 {
            q.enqueue(Time::from_micros(i), udp(), &mut rng).unwrap();
        }
        let before = q.red().avg;
        for i in 0..4 {
            q.dequeue(Time::from_micros(5 + i));
        }
        q.bypass(Time::from_micros(8));
        assert!((q.red().avg - before * 0.75).abs() < 1e-12);
        // The idle clock restarts at the bypass.
        assert_eq!(q.red().idle_since, Some(Time::from_micros(8)));
    }

    #[test]
    fn forced_above_twice_max_th_probabilistic_between() {
        let mut r = Red::new(
            RedParams {
                weight: 1.0,
                ..params()
            },
            Rate::from_mbps(10),
        );
        let mut rng = StreamFactory::new(1).stream("t");
        // w = 1: the average is the instantaneous length.
        assert_eq!(r.on_arrival(Time::ZERO, 3, &mut rng), RedVerdict::Pass);
        assert_eq!(r.on_arrival(Time::ZERO, 30, &mut rng), RedVerdict::Forced);
        // avg 29 (gentle region): p_b = 0.1 + 0.9 · 14/15 = 0.94; some arrivals pass, the
        // rest are random early drops, never forced ones.
        let verdicts: Vec<_> = (0..50)
            .map(|_| r.on_arrival(Time::ZERO, 29, &mut rng))
            .collect();
        assert!(verdicts.contains(&RedVerdict::Probabilistic));
        assert!(!verdicts.contains(&RedVerdict::Forced));
    }
}
