//! Output queues of a link direction: drop-tail limited in packets or bytes, and RED
//! (Floyd & Jacobson 1993) as an option.

use crate::packet::Packet;
use rexmit_engine::RngStream;
use rexmit_time::{Rate, Time};
use std::collections::VecDeque;

#[derive(Clone, Debug, PartialEq)]
pub enum QueueLimit {
    Packets(u32),
    Bytes(u64),
}

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

#[derive(Clone, Debug, PartialEq)]
pub enum QueueDiscipline {
    DropTail,
    Red(RedParams),
}

#[derive(Clone, Debug, PartialEq)]
pub struct QueueConfig {
    pub limit: QueueLimit,
    pub discipline: QueueDiscipline,
}

impl Default for QueueConfig {
    fn default() -> Self {
        QueueConfig {
            limit: QueueLimit::Packets(100),
            discipline: QueueDiscipline::DropTail,
        }
    }
}

/// Why the queue refused a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueDrop {
    /// Full (drop-tail, or RED's hard limit).
    Overflow,
    /// RED's early (probabilistic or forced) drop.
    Early,
}

/// `repr(C)`, the per-packet fields first (see `Channel`).
#[repr(C)]
pub struct OutputQueue {
    packets: VecDeque<Box<Packet>>,
    bytes: u64,
    config: QueueConfig,
    red_avg: f64,
    /// Packets since the last RED drop (for the uniform inter-drop correction).
    red_count: i64,
    /// RED: since when the queue has been empty (`q_time`), if it is.
    red_idle_since: Option<Time>,
    /// RED: nanoseconds one typical packet takes at the link rate (idle-time decay).
    red_pkt_ns: f64,
}

impl OutputQueue {
    /// A queue in front of a line of rate `rate` (RED's idle-time decay needs it).
    pub fn new(config: QueueConfig, rate: Rate) -> Self {
        let red_pkt_ns = match &config.discipline {
            QueueDiscipline::Red(p) => {
                rate.tx_time(p.mean_packet_size.max(1) as u64).as_nanos() as f64
            }
            QueueDiscipline::DropTail => 0.0,
        };
        OutputQueue {
            config,
            packets: VecDeque::new(),
            bytes: 0,
            red_avg: 0.0,
            red_count: -1,
            red_idle_since: Some(Time::ZERO),
            red_pkt_ns,
        }
    }

    pub fn len_packets(&self) -> usize {
        self.packets.len()
    }
    pub fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn fits(&self, size: u32) -> bool {
        match self.config.limit {
            QueueLimit::Packets(n) => (self.packets.len() as u64) < n as u64,
            QueueLimit::Bytes(b) => self.bytes + size as u64 <= b,
        }
    }

    /// Offer a packet at `now`; `rng` is only drawn from by RED.
    pub fn enqueue(
        &mut self,
        now: Time,
        pkt: Box<Packet>,
        rng: &mut RngStream,
    ) -> Result<(), (Box<Packet>, QueueDrop)> {
        if let QueueDiscipline::Red(p) = &self.config.discipline {
            let p = *p;
            self.decay_idle(now, p.weight);
            if self.red_drop(&p, rng) {
                return Err((pkt, QueueDrop::Early));
            }
        }
        if !self.fits(pkt.size) {
            return Err((pkt, QueueDrop::Overflow));
        }
        self.bytes += pkt.size as u64;
        self.packets.push_back(pkt);
        Ok(())
    }

    /// A packet arrived at an empty queue and an idle line and goes straight to the wire: RED
    /// still counts the arrival in its average (queue length 0), never dropping it.
    pub fn bypass(&mut self, now: Time) {
        if let QueueDiscipline::Red(p) = &self.config.discipline {
            let w = p.weight;
            self.decay_idle(now, w);
            self.red_avg *= 1.0 - w;
            self.red_idle_since = Some(now);
        }
    }

    /// Floyd & Jacobson 1993 §4: after an idle period, decay the average as if m small packets
    /// had arrived to the empty queue: avg ← (1 − w_q)^m · avg.
    fn decay_idle(&mut self, now: Time, w: f64) {
        if let Some(since) = self.red_idle_since.take() {
            let m = (now.saturating_since(since).as_nanos() as f64 / self.red_pkt_ns).floor();
            self.red_avg *= (1.0 - w).powf(m);
        }
    }

    /// Take the head packet as it starts transmission at `now`.
    pub fn dequeue(&mut self, now: Time) -> Option<Box<Packet>> {
        let p = self.packets.pop_front()?;
        self.bytes -= p.size as u64;
        if self.packets.is_empty() {
            // RED's q_time: the queue empties as its last packet starts transmission (as in
            // Floyd's ns-2 RED).
            self.red_idle_since = Some(now);
        }
        Some(p)
    }

    /// RED decision on arrival (Floyd & Jacobson 1993, §4; "gentle" variant from Floyd 2000).
    fn red_drop(&mut self, p: &RedParams, rng: &mut RngStream) -> bool {
        let q = self.packets.len() as f64;
        self.red_avg = (1.0 - p.weight) * self.red_avg + p.weight * q;
        let avg = self.red_avg;
        let pb = if avg < p.min_th {
            self.red_count = -1;
            return false;
        } else if avg < p.max_th {
            p.max_p * (avg - p.min_th) / (p.max_th - p.min_th)
        } else if p.gentle && avg < 2.0 * p.max_th {
            p.max_p + (1.0 - p.max_p) * (avg - p.max_th) / p.max_th
        } else {
            self.red_count = 0;
            return true;
        };
        self.red_count += 1;
        let denom = 1.0 - self.red_count as f64 * pb;
        let pa = if denom <= 0.0 { 1.0 } else { pb / denom };
        if rng.bernoulli(pa.min(1.0)) {
            self.red_count = 0;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rexmit_engine::StreamFactory;
    use rexmit_time::Duration;
    use rexmit_wire::{IpPacket, Payload, Transport, UdpDatagram};
    use std::net::Ipv4Addr;

    fn pkt() -> Box<Packet> {
        let udp = UdpDatagram {
            src_port: 1,
            dst_port: 2,
            payload: Payload::zeros(472),
        };
        let ip = IpPacket::new(
            Ipv4Addr::new(10, 0, 0, 1),
            Ipv4Addr::new(10, 0, 0, 2),
            Transport::Udp(udp),
        );
        Box::new(Packet {
            uid: 0,
            created: Time::ZERO,
            size: ip.wire_len() as u32,
            dst_owner: None,
            ip,
        })
    }

    fn red() -> OutputQueue {
        let p = RedParams {
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            weight: 0.25,
            gentle: true,
            mean_packet_size: 500,
        };
        // 500-byte packets at 10 Mb/s: one packet time is 400 µs.
        OutputQueue::new(
            QueueConfig {
                limit: QueueLimit::Packets(100),
                discipline: QueueDiscipline::Red(p),
            },
            Rate::from_bps(10_000_000),
        )
    }

    #[test]
    fn red_average_decays_over_an_idle_period() {
        // Floyd & Jacobson 1993 §4: an idle period of m packet times counts as m arrivals to an
        // empty queue, avg ← (1 − w_q)^m · avg.
        let mut q = red();
        let mut rng = StreamFactory::new(1).stream("t");
        for i in 0..8 {
            assert!(q.enqueue(Time::from_micros(i), pkt(), &mut rng).is_ok());
        }
        // Averages after arrivals to queues of 0..7: sum of w(1−w)^k q_k.
        let busy = q.red_avg;
        assert!(busy > 3.0, "{busy}");
        for i in 0..8 {
            q.dequeue(Time::from_micros(10 + i));
        }
        // Empty since 17 µs; the next arrival at 17 µs + 10 packet times sees the decay of
        // (1 − w)^10 first, then its own update with queue length 0.
        let at = Time::from_micros(17) + Duration::from_micros(4_000);
        q.enqueue(at, pkt(), &mut rng).unwrap();
        let expected = busy * 0.75f64.powi(10) * 0.75;
        assert!(
            (q.red_avg - expected).abs() < 1e-12,
            "{} vs {expected}",
            q.red_avg
        );
    }

    #[test]
    fn red_counts_arrivals_that_bypass_an_empty_queue() {
        // A packet that finds the line idle goes straight out, but RED's average still sees
        // an arrival to an empty queue (w · 0).
        let mut q = red();
        let mut rng = StreamFactory::new(1).stream("t");
        for i in 0..4 {
            q.enqueue(Time::from_micros(i), pkt(), &mut rng).unwrap();
        }
        let before = q.red_avg;
        for i in 0..4 {
            q.dequeue(Time::from_micros(5 + i));
        }
        q.bypass(Time::from_micros(8));
        assert!((q.red_avg - before * 0.75).abs() < 1e-12);
        // The idle clock restarts at the bypass.
        assert_eq!(q.red_idle_since, Some(Time::from_micros(8)));
    }
}
