//! One direction of a point-to-point link: output queue, serialization at the link rate,
//! propagation delay, error models and reordering, with the statistics of each.

use crate::error_model::{ErrorModel, ErrorModelConfig, ReorderConfig};
use crate::ids::{IfaceId, NodeId};
use crate::packet::Packet;
use crate::queue::{OutputQueue, QueueConfig, QueueDrop};
use rexmit_engine::{RngStream, StreamFactory};
use rexmit_time::{Duration, Rate, Time};

/// Parameters of one link direction (`repr(C)`: what every packet reads first, see `Channel`).
#[derive(Clone, Debug, PartialEq)]
#[repr(C)]
pub struct LinkParams {
    pub rate: Rate,
    pub delay: Duration,
    pub reorder: Option<ReorderConfig>,
    pub queue: QueueConfig,
    pub errors: Vec<ErrorModelConfig>,
}

impl LinkParams {
    pub fn new(rate: Rate, delay: Duration) -> Self {
        LinkParams {
            rate,
            delay,
            queue: QueueConfig::default(),
            errors: Vec::new(),
            reorder: None,
        }
    }
}

/// Counters of one direction. Layout: `repr(C)` with the counters every packet updates first
/// (one cache line, next to `Channel`'s other per-packet fields; see `Channel`).
#[derive(Clone, Debug, Default, PartialEq)]
#[repr(C)]
pub struct ChannelStats {
    /// Packets and bytes offered to the channel (queued or sent at once).
    pub offered_packets: u64,
    pub offered_bytes: u64,
    pub tx_packets: u64,
    pub tx_bytes: u64,
    /// Time the transmitter was busy serializing.
    pub busy: Duration,
    pub arrived_packets: u64,
    pub arrived_bytes: u64,
    pub drop_overflow: u64,
    pub drop_early: u64,
    pub drop_error: u64,
    pub max_queue_packets: u64,
    pub max_queue_bytes: u64,
    /// Sum of queueing delays of transmitted packets (for the mean).
    pub queue_delay_sum: Duration,
    /// ∫ queue length dt, for time averages (packet·ns and byte·ns).
    pub queue_packet_ns: u128,
    pub queue_byte_ns: u128,
}

/// Layout (hot path): `repr(C)`, so declaration order is memory order. The fields every
/// packet reads or writes (offer, start_tx, launch, land) come first and share a few cache
/// lines; names, random streams of rarely drawing models and queueing statistics follow. With
/// 10 000 flows most channels are cold when a packet comes, and the compiler's own order spread
/// a packet's fields over twice as many lines.
#[repr(C)]
pub struct Channel {
    /// The transmitter is serializing until this instant.
    busy_until: Time,
    pub to_node: NodeId,
    pub to_iface: IfaceId,
    pub from_iface: IfaceId,
    /// Packets propagating, in arrival order. Without reordering the delay is the same for
    /// every packet, so arrivals are FIFO and only the head needs an engine event.
    in_flight: std::collections::VecDeque<InFlight>,
    errors: Vec<ErrorModel>,
    pub(crate) pcap: Option<usize>,
    pub stats: ChannelStats,
    pub params: LinkParams,
    rng_error: RngStream,
    pub(crate) queue: OutputQueue,
    /// Arrival time of packets entering the queue, to measure queueing delay (FIFO order).
    enqueued_at: std::collections::VecDeque<Time>,
    last_change: Time,
    pub name: String,
    rng_queue: RngStream,
    rng_reorder: RngStream,
}

/// A packet on the wire: sent, not yet at the far end (the link's delay line). `seq` is the
/// engine sequence number reserved when it left the transmitter.
pub(crate) struct InFlight {
    pub arrival: Time,
    pub seq: u64,
    pub pkt: Box<Packet>,
}

/// What `offer` did with a packet.
pub(crate) enum Offer {
    /// The line was idle: transmit it now.
    StartNow(Box<Packet>),
    /// Queued; schedule `TxDone` at this time if given.
    Queued {
        tx_done_at: Option<Time>,
    },
    Dropped(#[allow(dead_code)] QueueDrop),
}

/// What happens to a packet that starts transmission.
pub(crate) enum TxOutcome {
    /// Arrives at the far end at `arrival`.
    Deliver { arrival: Time },
    /// Lost on the link (error model).
    Corrupted,
}

impl Channel {
    pub(crate) fn new(
        name: String,
        from: IfaceId,
        to: IfaceId,
        to_node: NodeId,
        params: LinkParams,
        streams: &StreamFactory,
    ) -> Self {
        Channel {
            rng_queue: streams.stream(&format!("link/{name}/queue")),
            rng_error: streams.stream(&format!("link/{name}/error")),
            rng_reorder: streams.stream(&format!("link/{name}/reorder")),
            errors: params.errors.iter().cloned().map(ErrorModel::new).collect(),
            queue: OutputQueue::new(params.queue.clone(), params.rate),
            name,
            from_iface: from,
            to_iface: to,
            to_node,
            params,
            busy_until: Time::ZERO,
            stats: ChannelStats::default(),
            last_change: Time::ZERO,
            enqueued_at: std::collections::VecDeque::new(),
            pcap: None,
            in_flight: std::collections::VecDeque::new(),
        }
    }

    fn account_queue(&mut self, now: Time) {
        let dt = now.saturating_since(self.last_change).as_nanos() as u128;
        self.stats.queue_packet_ns += dt * self.queue.len_packets() as u128;
        self.stats.queue_byte_ns += dt * self.queue.len_bytes() as u128;
        self.last_change = now;
    }

    /// Offer a packet: start it at once on an idle line, or queue it. A `TxDone` event is only
    /// needed while packets wait, so `Queued` says when to schedule one (the first waiting
    /// packet asks for it; later ones ride on it).
    // Hot path: once per packet hop; called from one place in sim.rs, inlined there.
    #[inline(always)]
    pub(crate) fn offer(&mut self, now: Time, pkt: Box<Packet>) -> Offer {
        self.stats.offered_packets += 1;
        self.stats.offered_bytes += pkt.size as u64;
        let was_empty = self.queue.len_packets() == 0;
        if was_empty && now >= self.busy_until {
            self.queue.bypass(now);
            return Offer::StartNow(pkt);
        }
        self.account_queue(now);
        match self.queue.enqueue(now, pkt, &mut self.rng_queue) {
            Ok(()) => {
                self.enqueued_at.push_back(now);
                self.stats.max_queue_packets = self
                    .stats
                    .max_queue_packets
                    .max(self.queue.len_packets() as u64);
                self.stats.max_queue_bytes = self.stats.max_queue_bytes.max(self.queue.len_bytes());
                Offer::Queued {
                    tx_done_at: was_empty.then_some(self.busy_until),
                }
            }
            Err((_, why)) => {
                match why {
                    QueueDrop::Overflow => self.stats.drop_overflow += 1,
                    QueueDrop::Early => self.stats.drop_early += 1,
                }
                Offer::Dropped(why)
            }
        }
    }

    /// The line is free: the next waiting packet, if any.
    // Hot path: once per packet hop; called from one place in sim.rs, inlined there.
    #[inline(always)]
    pub(crate) fn next_to_send(&mut self, now: Time) -> Option<Box<Packet>> {
        self.account_queue(now);
        let p = self.queue.dequeue(now)?;
        let t_in = self
            .enqueued_at
            .pop_front()
            .expect("one timestamp per queued packet");
        self.stats.queue_delay_sum += now - t_in;
        Some(p)
    }

    /// Whether packets still wait (the caller then schedules the next `TxDone`).
    pub(crate) fn has_waiting(&self) -> bool {
        self.queue.len_packets() > 0
    }

    /// Start serializing `pkt` at `now`: returns when the line is free again and the packet's fate.
    // Hot path: once per packet hop; called from one place in sim.rs, inlined there.
    #[inline(always)]
    pub(crate) fn start_tx(&mut self, now: Time, pkt: &Packet) -> (Time, TxOutcome) {
        let tx = self.params.rate.tx_time(pkt.size as u64);
        self.stats.tx_packets += 1;
        self.stats.tx_bytes += pkt.size as u64;
        self.stats.busy += tx;
        let done = now + tx;
        self.busy_until = done;
        // Every model sees every packet, so each model's packet count stays exact.
        let mut lost = false;
        for m in &mut self.errors {
            lost |= m.drops(pkt, &mut self.rng_error);
        }
        if lost {
            self.stats.drop_error += 1;
            return (done, TxOutcome::Corrupted);
        }
        let extra = match &self.params.reorder {
            Some(r) => r.extra_delay(&mut self.rng_reorder),
            None => Duration::ZERO,
        };
        (
            done,
            TxOutcome::Deliver {
                arrival: done + self.params.delay + extra,
            },
        )
    }

    /// Whether arrivals keep transmission order (no reordering model): the delay line applies.
    pub(crate) fn is_fifo(&self) -> bool {
        self.params.reorder.is_none()
    }

    /// Put a transmitted packet on the delay line. Returns true if it is the head (the caller
    /// then schedules its arrival).
    pub(crate) fn launch(&mut self, arrival: Time, seq: u64, pkt: Box<Packet>) -> bool {
        debug_assert!(
            self.in_flight.back().is_none_or(|b| b.arrival <= arrival),
            "delay line out of order"
        );
        self.in_flight.push_back(InFlight { arrival, seq, pkt });
        self.in_flight.len() == 1
    }

    /// The head packet reached the far end; also returns the new head's (arrival, seq), whose
    /// arrival the caller schedules next.
    pub(crate) fn land(&mut self) -> (Box<Packet>, Option<(Time, u64)>) {
        let head = self
            .in_flight
            .pop_front()
            .expect("an arrival event has a packet on the line");
        (head.pkt, self.in_flight.front().map(|n| (n.arrival, n.seq)))
    }

    pub(crate) fn on_arrival(&mut self, pkt: &Packet) {
        self.stats.arrived_packets += 1;
        self.stats.arrived_bytes += pkt.size as u64;
    }

    /// The scripted drops of this direction that never fired: their count and one line each,
    /// or None when the direction has no scripted model.
    pub fn scripted_unfired(&self) -> Option<(u64, Vec<String>)> {
        let counts: Vec<u64> = self
            .errors
            .iter()
            .filter_map(|m| m.unfired_count())
            .collect();
        if counts.is_empty() {
            return None;
        }
        Some((
            counts.iter().sum(),
            self.errors.iter().flat_map(|m| m.unfired()).collect(),
        ))
    }

    pub fn queue_packets(&self) -> usize {
        self.queue.len_packets()
    }
    pub fn queue_bytes(&self) -> u64 {
        self.queue.len_bytes()
    }

    /// Close the time integrals at `now` (call before reading averages).
    pub(crate) fn finish(&mut self, now: Time) {
        self.account_queue(now);
    }
}
