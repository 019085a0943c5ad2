//! One direction of a point-to-point link: output queue, serialization at the link rate,
//! propagation delay, error models and reordering, with the statistics of each.

use crate::error_model::{ErrorModel, ErrorModelConfig, Fate, ReorderConfig};
use crate::ids::{IfaceId, NodeId};
use crate::packet::Packet;
use crate::queue::{Aqm, OutputQueue, QueueConfig, QueueDiscipline, QueueDrop, QueueStats};
use rexmit_engine::{RngStream, StreamFactory};
use rexmit_time::{Duration, Rate, Time};

/// The option table of a link (`rexmit_options`' "one declaration per option"): a scenario's
/// link table writes these keys beside `rate`, `delay` and `queue`, and both directions get
/// the same values.
#[macro_export]
macro_rules! link_option_table {
    ($generator:path { $($head:tt)* }) => { $generator! { $($head)* ;
        public {
            /// Link-layer bytes counted in each packet's serialization time on this link, in both
            /// directions: a packet of N IP bytes holds the line for N + framing_bytes byte times.
            /// Nothing else sees them: queue limits, AQM byte counts, link byte counters and pcaps
            /// stay IP bytes, as in ns-3, whose point-to-point device adds its 2-byte PPP header
            /// below the queue disc (set 2 to match ns-3's link times exactly; Ethernet would be
            /// 38 with preamble and inter-frame gap).
            opt framing_bytes: u16 = 0, unit = size,
                check = *framing_bytes <= 1024 => "0..=1024";
        }
        internal {}
    } };
}

link_option_table!(rexmit_options::config_table {
    /// The options of a link (`link_option_table`), the same in both directions.
    #[derive(Clone, Debug, PartialEq)]
    pub struct LinkOptions
});

impl rexmit_options::Relations for LinkOptions {}

/// Parameters of one link direction (`repr(C)`: what every packet reads first, see `Channel`).
#[derive(Clone, Debug, PartialEq)]
#[repr(C)]
pub struct LinkParams {
    pub rate: Rate,
    pub delay: Duration,
    pub reorder: Option<ReorderConfig>,
    pub queue: QueueConfig,
    pub errors: Vec<ErrorModelConfig>,
    pub options: LinkOptions,
}

impl LinkParams {
    pub fn new(rate: Rate, delay: Duration) -> Self {
        LinkParams {
            rate,
            delay,
            queue: QueueConfig::default(),
            errors: Vec::new(),
            reorder: None,
            options: LinkOptions::default(),
        }
    }
}

/// Counters of one direction (`Channel::stats`). The per-packet ones are kept apart in the
/// channel (`Hot`) and the arrivals computed when read.
#[derive(Clone, Debug, Default, PartialEq)]
#[repr(C)]
pub struct ChannelStats {
    /// Packets and bytes offered to the channel (queued or sent at once).
    pub offered_packets: u64,
    pub offered_bytes: u64,
    pub tx_packets: u64,
    pub tx_bytes: u64,
    /// Time the transmitter was busy serializing (the link's framing bytes included).
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
/// order and the lines are known. A packet through an idle FIFO channel touches two of them:
/// line 0 (the line's state, its rate and delay, the delay line, where it leads) when it is
/// offered, sent and when it arrives, and line 1 (the per-packet counters, the flags that say
/// which of the rarer steps apply, whether packets wait) when it is offered and sent. The
/// queue is read only when packets wait or the queue is active; arrivals are not counted
/// (`stats` computes them). Names, random streams, models and the other statistics follow.
/// With 10 000 flows most channels are cold when a packet comes, so each line is a cache miss
/// (docs/validation_speed.md, "Session 13", and docs/validation_speed_issue40.md, step 3).
#[repr(C, align(64))]
pub struct Channel {
    // Line 0.
    /// The transmitter is serializing until this instant.
    busy_until: Time,
    /// `params.rate` and `params.delay`, copied here at creation (`params` is read-only after).
    rate: Rate,
    delay: Duration,
    /// The delay line's head, the packet propagating that arrives first (arrivals are FIFO
    /// without reordering, as the delay is the same for every packet, and only the head needs
    /// an engine event, scheduled when it becomes the head); the others are in `behind`.
    /// Here rather than in `behind`'s buffer: an access link at 10 000 flows rarely holds
    /// two packets, and the buffer's line was a write miss at every launch and a read miss
    /// at every landing (issue 40 step 3, eleventh session).
    head: Option<Box<Packet>>,
    pub to_node: NodeId,
    pub to_iface: IfaceId,
    /// `behind.len()`, here so that a landing need not read `behind`'s own line.
    behind_len: u32,
    /// Line 0's free bytes (the test `a_packets_fields_sit_on_lines_0_and_1` checks the sum).
    _pad0: [u32; 5],
    // Line 1.
    hot: Hot,
    /// `FLAG_*` bits.
    flags: u8,
    /// Packets wait in the FIFO queue (`queue.fifo_len() > 0`; kept for a queue without an
    /// active discipline, so that an idle channel's offer need not read the queue's line).
    fifo_nonempty: bool,
    /// `params.options.framing_bytes`, beside the counters `start_tx` writes (it fits the
    /// padding before `from_iface`).
    framing_bytes: u16,
    pub from_iface: IfaceId,
    // The other counters (its per-packet ones unused: `stats()` takes them from `hot`).
    stats: ChannelStats,
    /// The packets propagating behind `head`, in arrival order.
    behind: std::collections::VecDeque<InFlight>,
    /// The last arrival launched (debug builds check that the delay line stays in order).
    #[cfg(debug_assertions)]
    last_arrival: Time,
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
    /// Bytes of the packets the error models destroyed (their count is `stats.drop_error`).
    corrupted_bytes: u64,
    /// Packets (and bytes) of a reordering channel on their way, outside the delay line.
    reordered_in_flight: (u64, u64),
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

/// The counters every packet offered or sent updates (`ChannelStats`' fields of the same names).
#[derive(Clone, Copy, Default)]
#[repr(C)]
struct Hot {
    offered_packets: u64,
    offered_bytes: u64,
    tx_packets: u64,
    tx_bytes: u64,
    busy: Duration,
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
            busy_until: Time::ZERO,
            stats: ChannelStats::default(),
            last_change: Time::ZERO,
            pcap: None,
            head: None,
            #[cfg(debug_assertions)]
            last_arrival: Time::ZERO,
            behind_len: 0,
            _pad0: [0; 5],
            behind: std::collections::VecDeque::new(),
            hot: Hot::default(),
            fifo_nonempty: false,
            framing_bytes: params.options.framing_bytes,
            corrupted_bytes: 0,
            reordered_in_flight: (0, 0),
            params,
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

    /// Whether packets wait in a FIFO queue (no active discipline), from the bit on line 1
    /// rather than the queue's own line; checked against the queue in debug builds.
    #[inline(always)]
    fn fifo_waiting(&self) -> bool {
        debug_assert_eq!(
            self.fifo_nonempty,
            self.queue.fifo_len() > 0,
            "fifo_nonempty"
        );
        self.fifo_nonempty
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
        self.hot.offered_packets += 1;
        self.hot.offered_bytes += pkt.size as u64;
        if self.flags & FLAG_AQM != 0 {
            return self.offer_aqm(now, pkt);
        }
        let was_empty = !self.fifo_waiting();
        if was_empty && now >= self.busy_until {
            if self.flags & FLAG_RED != 0 {
                self.queue.bypass(now);
            }
            return Offer::StartNow(pkt);
        }
        self.account_queue(now);
        match self.queue.enqueue(now, pkt, &mut self.rng_queue) {
            Ok(()) => {
                self.fifo_nonempty = true;
                self.queued(was_empty)
            }
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
        self.fifo_nonempty = self.queue.fifo_len() > 0;
        if self.flags & FLAG_AQM != 0 {
            self.count_pending();
        }
        let p = p?;
        self.stats.queue_delay_sum += now - p.enqueued;
        Some(p)
    }

    /// Whether packets still wait (the caller then schedules the next `TxDone`).
    pub(crate) fn has_waiting(&self) -> bool {
        if self.flags & FLAG_AQM == 0 {
            self.fifo_waiting()
        } else {
            self.queue.len_packets() > 0
        }
    }

    /// Start serializing `pkt` at `now`: returns when the line is free again and the packet's fate.
    // Hot path: once per packet hop; called from one place in sim.rs, inlined there.
    #[inline(always)]
    pub(crate) fn start_tx(&mut self, now: Time, pkt: &Packet) -> (Time, TxOutcome) {
        // The link's framing holds the line too, the packet's own counters stay IP bytes.
        let tx = self
            .rate
            .tx_time(pkt.size as u64 + self.framing_bytes as u64);
        self.hot.tx_packets += 1;
        self.hot.tx_bytes += pkt.size as u64;
        self.hot.busy += tx;
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
                self.corrupted_bytes += pkt.size as u64;
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
    #[inline]
    pub(crate) fn launch(&mut self, arrival: Time, seq: u64, pkt: Box<Packet>) -> bool {
        if self.head.is_none() {
            debug_assert_eq!(self.behind_len, 0);
            self.head = Some(pkt);
            #[cfg(debug_assertions)]
            {
                self.last_arrival = arrival;
            }
            return true;
        }
        #[cfg(debug_assertions)]
        {
            assert!(self.last_arrival <= arrival, "delay line out of order");
            self.last_arrival = arrival;
        }
        self.behind.push_back(InFlight { arrival, seq, pkt });
        self.behind_len += 1;
        false
    }

    /// The head packet reached the far end; also returns the new head's (arrival, seq), whose
    /// arrival the caller schedules next.
    #[inline]
    pub(crate) fn land(&mut self) -> (Box<Packet>, Option<(Time, u64)>) {
        let Some(pkt) = self.head.take() else {
            panic!("an arrival event has a packet on the line");
        };
        if self.behind_len == 0 {
            return (pkt, None);
        }
        self.behind_len -= 1;
        let next = self.behind.pop_front().expect("behind_len counts behind");
        self.head = Some(next.pkt);
        (pkt, Some((next.arrival, next.seq)))
    }

    /// Packets on the delay line and their bytes.
    fn on_the_line(&self) -> (u64, u64) {
        let behind: u64 = self.behind.iter().map(|f| f.pkt.size as u64).sum();
        let head = self.head.as_ref().map_or(0, |h| h.size as u64);
        let n = self.head.is_some() as u64 + self.behind.len() as u64;
        (n, head + behind)
    }

    /// A packet of a reordering channel left the transmitter outside the delay line.
    pub(crate) fn launch_reordered(&mut self, pkt: &Packet) {
        self.reordered_in_flight.0 += 1;
        self.reordered_in_flight.1 += pkt.size as u64;
    }

    /// A packet of a reordering channel arrived.
    pub(crate) fn land_reordered(&mut self, pkt: &Packet) {
        self.reordered_in_flight.0 -= 1;
        self.reordered_in_flight.1 -= pkt.size as u64;
    }

    /// The counters, with the arrivals: every packet sent and not destroyed by an error model
    /// has arrived unless it is still on its way (issue 40 step 3: statistics computed when
    /// read, so that an arrival does not write the counters' line).
    pub fn stats(&self) -> ChannelStats {
        let (on_the_line, on_the_way) = self.on_the_line();
        let (reordered, reordered_bytes) = self.reordered_in_flight;
        let h = self.hot;
        ChannelStats {
            offered_packets: h.offered_packets,
            offered_bytes: h.offered_bytes,
            tx_packets: h.tx_packets,
            tx_bytes: h.tx_bytes,
            busy: h.busy,
            arrived_packets: h.tx_packets - self.stats.drop_error - on_the_line - reordered,
            arrived_bytes: h.tx_bytes - self.corrupted_bytes - on_the_way - reordered_bytes,
            ..self.stats.clone()
        }
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
    use crate::queue::tests::pkt_at;
    use std::mem::{align_of, offset_of, size_of};

    /// A 100 Mb/s direction (80 ns a byte) with `framing` link bytes and a 1 ms delay.
    fn channel(framing: u16) -> Channel {
        let mut p = LinkParams::new(Rate::from_mbps(100), Duration::from_millis(1));
        p.options.framing_bytes = framing;
        let streams = StreamFactory::new(1);
        Channel::new(
            "A->B".into(),
            IfaceId(0),
            IfaceId(1),
            NodeId(1),
            p,
            &streams,
        )
    }

    /// Offer `size` IP bytes at `now` on an idle line and start them: (line free, arrival).
    fn send(c: &mut Channel, now: Time, size: u32) -> (Time, Time) {
        let Offer::StartNow(p) = c.offer(now, pkt_at(now, size)) else {
            panic!("the line is idle at {now:?}");
        };
        match c.start_tx(now, &p) {
            (done, TxOutcome::Deliver { arrival }) => (done, arrival),
            (_, TxOutcome::Corrupted) => panic!("no error model"),
        }
    }

    #[test]
    fn framing_bytes_hold_the_line_as_ns3s_ppp_header_does() {
        // ns-3's point-to-point device sends 1500 + 2 bytes (PPP) at 100 Mb/s: 120.16 µs.
        let mut c = channel(2);
        let (done, arrival) = send(&mut c, Time::ZERO, 1500);
        assert_eq!(done, Time::from_nanos(120_160));
        assert_eq!(arrival, Time::from_nanos(1_120_160));
        // ACKs of N IP bytes take (N + 2) · 80 ns.
        let mut now = done;
        for n in [40, 52, 64] {
            let (done, arrival) = send(&mut c, now, n);
            assert_eq!(
                done - now,
                Duration::from_nanos((n as u64 + 2) * 80),
                "{n} bytes"
            );
            assert_eq!(arrival, done + Duration::from_millis(1));
            now = done;
        }
        // A packet offered while the line is busy waits for 120.16 µs, not 120.
        let mut c = channel(2);
        send(&mut c, Time::ZERO, 1500);
        let Offer::Queued { tx_done_at } = c.offer(Time::from_micros(1), pkt_at(Time::ZERO, 52))
        else {
            panic!("the line is busy");
        };
        assert_eq!(tx_done_at, Some(Time::from_nanos(120_160)));
        // The queue holds IP bytes.
        assert_eq!(c.queue_bytes(), 52);
    }

    #[test]
    fn framing_bytes_are_not_counted_as_the_packets_bytes() {
        let mut c = channel(2);
        let (done, _) = send(&mut c, Time::ZERO, 1500);
        send(&mut c, done, 52);
        let s = c.stats();
        assert_eq!((s.offered_bytes, s.tx_bytes), (1552, 1552));
        // The line was busy for the framing too.
        assert_eq!(s.busy, Duration::from_nanos(120_160 + 4_320));
    }

    #[test]
    fn without_framing_a_packet_takes_its_ip_bytes_alone() {
        let mut c = channel(0);
        let (done, _) = send(&mut c, Time::ZERO, 1500);
        assert_eq!(done, Time::from_nanos(120_000));
        let (done2, _) = send(&mut c, done, 52);
        assert_eq!(done2 - done, Duration::from_nanos(4_160));
    }

    #[test]
    fn framing_bytes_above_1024_are_refused_naming_the_key() {
        use rexmit_options::Table;
        let ok = LinkOptions {
            framing_bytes: 1024,
        };
        assert_eq!(ok.check_ranges(), Ok(()));
        let e = LinkOptions {
            framing_bytes: 1025,
        }
        .check_ranges()
        .unwrap_err();
        assert_eq!(
            (e.field.as_str(), e.allowed.as_str()),
            ("framing_bytes", "0..=1024")
        );
    }

    /// The lines a packet touches (see `Channel`): a field moved or grown breaks this, not the
    /// results, so the layout is checked here.
    #[test]
    fn a_packets_fields_sit_on_lines_0_and_1() {
        assert_eq!(align_of::<Channel>(), 64);
        let line = |offset: usize, size: usize| {
            let (first, last) = (offset / 64, (offset + size - 1) / 64);
            assert_eq!(first, last, "field at {offset} of {size} bytes spans lines");
            first
        };
        assert_eq!(line(offset_of!(Channel, busy_until), 8), 0);
        assert_eq!(line(offset_of!(Channel, rate), 8), 0);
        assert_eq!(line(offset_of!(Channel, delay), 8), 0);
        assert_eq!(line(offset_of!(Channel, head), 8), 0);
        assert_eq!(line(offset_of!(Channel, behind_len), 4), 0);
        assert_eq!(line(offset_of!(Channel, to_node), 4), 0);
        assert_eq!(line(offset_of!(Channel, to_iface), 4), 0);
        assert_eq!(line(offset_of!(Channel, hot), size_of::<Hot>()), 1);
        assert_eq!(line(offset_of!(Channel, flags), 1), 1);
        assert_eq!(line(offset_of!(Channel, fifo_nonempty), 1), 1);
        assert_eq!(line(offset_of!(Channel, framing_bytes), 2), 1);
    }
}
