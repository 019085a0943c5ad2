//! Output queues of a link direction: drop-tail limited in packets or bytes, and RED
//! (Floyd & Jacobson 1993) as an option.

use crate::packet::Packet;
use rexmit_engine::RngStream;
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
        QueueConfig { limit: QueueLimit::Packets(100), discipline: QueueDiscipline::DropTail }
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

pub struct OutputQueue {
    config: QueueConfig,
    packets: VecDeque<Box<Packet>>,
    bytes: u64,
    red_avg: f64,
    /// Packets since the last RED drop (for the uniform inter-drop correction).
    red_count: i64,
}

impl OutputQueue {
    pub fn new(config: QueueConfig) -> Self {
        OutputQueue { config, packets: VecDeque::new(), bytes: 0, red_avg: 0.0, red_count: -1 }
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

    /// Offer a packet; `rng` is only drawn from by RED.
    pub fn enqueue(&mut self, pkt: Box<Packet>, rng: &mut RngStream) -> Result<(), (Box<Packet>, QueueDrop)> {
        if let QueueDiscipline::Red(p) = &self.config.discipline {
            let p = *p;
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

    pub fn dequeue(&mut self) -> Option<Box<Packet>> {
        let p = self.packets.pop_front()?;
        self.bytes -= p.size as u64;
        Some(p)
    }

    /// RED decision on arrival (Floyd & Jacobson 1993, §4; "gentle" variant from Floyd 2000).
    /// Idle-time decay of the average is not modelled: the average is updated per arrival.
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
