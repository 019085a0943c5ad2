//! One direction of a point-to-point link: output queue, serialization at the link rate,
//! propagation delay, error models and reordering, with the statistics of each.

use crate::error_model::{ErrorModel, ErrorModelConfig, Fate, ReorderConfig};
use crate::ids::{IfaceId, NodeId};
use crate::packet::Packet;
use crate::queue::{Aqm, OutputQueue, QueueConfig, QueueDiscipline, QueueDrop, QueueStats};
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

/// Layout (hot path): `repr(C)` and aligned to a cache line, so declaration order is memory
/// order and the lines are known. What a packet touches on its way through the channel sits on
/// three of them: line 0 (the line's state, its rate and delay, the delay line, where it
/// leads), line 1 (`stats`' per-packet counters, first in `ChannelStats`) and line 3 (the
/// queue's length and the flags that say which of the rarer steps apply). Names, random
/// streams, models and the queueing statistics follow. With 10 000 flows most channels are cold
/// when a packet comes, so each line is a cache miss (docs/validation.md, "Session 13").
#[repr(C, align(64))]
pub struct Channel {
    // Line 0.
    /// The transmitter is serializing until this instant.
    busy_until: Time,
    /// `params.rate` and `params.delay`, copied here at creation (`params` is read-only after).
    rate: Rate,
    delay: Duration,
    /// Packets propagating, in arrival order. Without reordering the delay is the same for
    /// every packet, so arrivals are FIFO and only the head needs an engine event.
    in_flight: std::collections::VecDeque<InFlight>,
    pub to_node: NodeId,
    pub to_iface: IfaceId,
    // Lines 1 to 3: 144 bytes, the per-packet counters on line 1.
    pub stats: ChannelStats,
    // Line 3, after the statistics.
    pub from_iface: IfaceId,
    /// `FLAG_*` bits.
    flags: u8,
    pub(crate) queue: OutputQueue,
    // Cold.
    errors: Vec<ErrorModel>,
    pub(crate) pcap: Option<usize>,
    params: LinkParams,
    rng_error: RngStream,
    last_change: Time,
    pub name: String,
    rng_queue: RngStream,
    rng_reorder: RngStream,
}

/// `Channel::flags`: the channel has error models.
const FLAG_ERRORS: u8 = 1;
/// A reordering model (arrivals are not FIFO).
const FLAG_REORDER: u8 = 2;
/// A RED queue written without `aqm` (it sees packets that bypass the queue too).
const FLAG_RED: u8 = 4;
/// A capture of this channel or of the node it leaves (`Simulation::pcap_*`).
const FLAG_PCAP: u8 = 8;
/// An active queue (`QueueDiscipline::Aqm`): every packet goes through it, it may drop at
/// dequeue or drop queued packets, and it need not be a FIFO.
const FLAG_AQM: u8 = 16;

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
        let mut flags = 0;
        if !params.errors.is_empty() {
            flags |= FLAG_ERRORS;
        }
        if params.reorder.is_some() || params.errors.iter().any(ErrorModelConfig::delays) {
            flags |= FLAG_REORDER;
        }
        // FQ-CoDel's flow hash is keyed from the scenario's seed, like every random model.
        let mut hash_seed = 0;
        match &params.queue.discipline {
            QueueDiscipline::Red(_) => flags |= FLAG_RED,
            QueueDiscipline::Aqm(a) => {
                flags |= FLAG_AQM;
                if let Aqm::FqCodel(_) = a.aqm {
                    hash_seed = streams.stream(&format!("link/{name}/fq_hash")).next_u64();
                }
            }
            QueueDiscipline::DropTail => {}
        }
        Channel {
            rate: params.rate,
            delay: params.delay,
            flags,
            rng_queue: streams.stream(&format!("link/{name}/queue")),
            rng_error: streams.stream(&format!("link/{name}/error")),
            rng_reorder: streams.stream(&format!("link/{name}/reorder")),
            errors: params.errors.iter().cloned().map(ErrorModel::new).collect(),
            queue: OutputQueue::new(params.queue.clone(), params.rate, hash_seed),
            name,
            from_iface: from,
            to_iface: to,
            to_node,
            params,
            busy_until: Time::ZERO,
            stats: ChannelStats::default(),
            last_change: Time::ZERO,
            pcap: None,
            in_flight: std::collections::VecDeque::new(),
        }
    }

    /// Packets waiting: a FIFO's count on the hot path, the discipline's for an active queue.
    #[inline(always)]
    fn waiting(&self) -> usize {
        if self.flags & FLAG_AQM == 0 {
            self.queue.fifo_len()
        } else {
            self.queue.len_packets()
        }
    }

    fn account_queue(&mut self, now: Time) {
        let dt = now.saturating_since(self.last_change).as_nanos() as u128;
        self.stats.queue_packet_ns += dt * self.waiting() as u128;
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
        if self.flags & FLAG_AQM != 0 {
            return self.offer_aqm(now, pkt);
        }
        let was_empty = self.queue.fifo_len() == 0;
        if was_empty && now >= self.busy_until {
            if self.flags & FLAG_RED != 0 {
                self.queue.bypass(now);
            }
            return Offer::StartNow(pkt);
        }
        self.account_queue(now);
        match self.queue.enqueue(now, pkt, &mut self.rng_queue) {
            Ok(()) => self.queued(was_empty),
            Err((_, why)) => self.refused(why),
        }
    }

    fn queued(&mut self, was_empty: bool) -> Offer {
        self.stats.max_queue_packets = self.stats.max_queue_packets.max(self.waiting() as u64);
        self.stats.max_queue_bytes = self.stats.max_queue_bytes.max(self.queue.len_bytes());
        Offer::Queued {
            tx_done_at: was_empty.then_some(self.busy_until),
        }
    }

    fn refused(&mut self, why: QueueDrop) -> Offer {
        match why {
            QueueDrop::Overflow => self.stats.drop_overflow += 1,
            QueueDrop::Early => self.stats.drop_early += 1,
        }
        Offer::Dropped(why)
    }

    /// `offer` for an active queue: the packet goes through enqueue, and on an idle line
    /// straight through dequeue (a packet that leaves at once waited 0 and is not counted in
    /// the queue's maximum).
    #[inline(never)]
    fn offer_aqm(&mut self, now: Time, pkt: Box<Packet>) -> Offer {
        let was_empty = self.waiting() == 0;
        let idle = was_empty && now >= self.busy_until;
        self.account_queue(now);
        let r = self.queue.enqueue(now, pkt, &mut self.rng_queue);
        self.count_pending();
        match r {
            Err((_, why)) => self.refused(why),
            Ok(()) if idle => match self.next_to_send(now) {
                Some(p) => Offer::StartNow(p),
                // Dropped at dequeue (counted there).
                None => Offer::Dropped(QueueDrop::Early),
            },
            Ok(()) => self.queued(was_empty),
        }
    }

    /// Fold the drops an active queue made outside `enqueue`'s answer into the counters.
    fn count_pending(&mut self) {
        let p = self.queue.take_pending();
        self.stats.drop_overflow += p.overflow;
        self.stats.drop_early += p.early;
    }

    /// The line is free: the next waiting packet, if any.
    // Hot path: once per packet hop; called from one place in sim.rs, inlined there.
    #[inline(always)]
    pub(crate) fn next_to_send(&mut self, now: Time) -> Option<Box<Packet>> {
        self.account_queue(now);
        let p = self.queue.dequeue(now);
        if self.flags & FLAG_AQM != 0 {
            self.count_pending();
        }
        let p = p?;
        self.stats.queue_delay_sum += now - p.enqueued;
        Some(p)
    }

    /// Whether packets still wait (the caller then schedules the next `TxDone`).
    pub(crate) fn has_waiting(&self) -> bool {
        self.waiting() > 0
    }

    /// Start serializing `pkt` at `now`: returns when the line is free again and the packet's fate.
    // Hot path: once per packet hop; called from one place in sim.rs, inlined there.
    #[inline(always)]
    pub(crate) fn start_tx(&mut self, now: Time, pkt: &Packet) -> (Time, TxOutcome) {
        let tx = self.rate.tx_time(pkt.size as u64);
        self.stats.tx_packets += 1;
        self.stats.tx_bytes += pkt.size as u64;
        self.stats.busy += tx;
        let done = now + tx;
        self.busy_until = done;
        let mut extra = Duration::ZERO;
        if self.flags & FLAG_ERRORS != 0 {
            // Every model sees every packet, so each model's packet count stays exact.
            let mut lost = false;
            for m in &mut self.errors {
                match m.fate(now, pkt, &mut self.rng_error) {
                    Fate::Pass => {}
                    Fate::Drop => lost = true,
                    Fate::Delay(d) => extra += d,
                }
            }
            if lost {
                self.stats.drop_error += 1;
                return (done, TxOutcome::Corrupted);
            }
        }
        if let (true, Some(r)) = (self.flags & FLAG_REORDER != 0, &self.params.reorder) {
            extra += r.extra_delay(&mut self.rng_reorder);
        }
        (
            done,
            TxOutcome::Deliver {
                arrival: done + self.delay + extra,
            },
        )
    }

    /// Whether arrivals keep transmission order (no reordering model): the delay line applies.
    pub(crate) fn is_fifo(&self) -> bool {
        self.flags & FLAG_REORDER == 0
    }

    /// Whether a capture of this channel or of the node it leaves is open.
    pub(crate) fn captured(&self) -> bool {
        self.flags & FLAG_PCAP != 0
    }

    /// A capture of this channel or of the node it leaves was opened.
    pub(crate) fn set_captured(&mut self) {
        self.flags |= FLAG_PCAP;
    }

    /// The parameters it was built with.
    pub fn params(&self) -> &LinkParams {
        &self.params
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
        self.waiting()
    }
    pub fn queue_bytes(&self) -> u64 {
        self.queue.len_bytes()
    }

    /// Whether its queue marks ECN-capable packets CE instead of dropping them (RFC 3168 §5).
    pub fn marks_ecn(&self) -> bool {
        self.queue.marks_ecn()
    }

    /// ECN marks and sojourn times of an active queue (`QueueDiscipline::Aqm`).
    pub fn queue_stats(&self) -> Option<&QueueStats> {
        self.queue.stats()
    }

    /// Close the time integrals at `now` (call before reading averages).
    pub(crate) fn finish(&mut self, now: Time) {
        self.account_queue(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{align_of, offset_of, size_of};

    /// The lines a packet touches (see `Channel`): a field moved or grown breaks this, not the
    /// results, so the layout is checked here.
    #[test]
    fn a_packets_fields_sit_on_lines_0_1_and_3() {
        assert_eq!(align_of::<Channel>(), 64);
        let line = |offset: usize, size: usize| {
            let (first, last) = (offset / 64, (offset + size - 1) / 64);
            assert_eq!(first, last, "field at {offset} of {size} bytes spans lines");
            first
        };
        assert_eq!(line(offset_of!(Channel, busy_until), 8), 0);
        assert_eq!(line(offset_of!(Channel, rate), 8), 0);
        assert_eq!(line(offset_of!(Channel, delay), 8), 0);
        assert_eq!(line(offset_of!(Channel, in_flight), 32), 0);
        assert_eq!(line(offset_of!(Channel, to_node), 4), 0);
        assert_eq!(line(offset_of!(Channel, to_iface), 4), 0);
        let stats = offset_of!(Channel, stats);
        for (f, o) in [
            ("offered_packets", offset_of!(ChannelStats, offered_packets)),
            ("offered_bytes", offset_of!(ChannelStats, offered_bytes)),
            ("tx_packets", offset_of!(ChannelStats, tx_packets)),
            ("tx_bytes", offset_of!(ChannelStats, tx_bytes)),
            ("busy", offset_of!(ChannelStats, busy)),
            ("arrived_packets", offset_of!(ChannelStats, arrived_packets)),
            ("arrived_bytes", offset_of!(ChannelStats, arrived_bytes)),
        ] {
            assert_eq!(line(stats + o, 8), 1, "stats.{f}");
        }
        assert_eq!(line(offset_of!(Channel, from_iface), 4), 3);
        assert_eq!(line(offset_of!(Channel, flags), 1), 3);
        let queue = offset_of!(Channel, queue);
        assert_eq!(line(queue, size_of::<std::collections::VecDeque<u8>>()), 3);
        assert_eq!(
            line(queue + size_of::<std::collections::VecDeque<u8>>(), 8),
            3
        );
    }
}
