//! Output queues of a link direction: drop-tail limited in packets or bytes, RED (Floyd &
//! Jacobson 1993), and the active queue managements of `QueueDiscipline::Aqm`: Adaptive RED
//! (`ared.rs`), CoDel (RFC 8289, `codel.rs`), FQ-CoDel (RFC 8290, `fq_codel.rs`), PIE (RFC 8033,
//! `pie.rs`) and DCTCP's step marking (RFC 8257 §3.1), each of which can mark ECN-capable
//! packets CE instead of dropping them (RFC 3168).
//!
//! Every packet the queue takes carries its enqueue time (`Packet::enqueued`): sojourn times
//! are measured from it, in whatever order the discipline serves.
//!
//! `QueueDiscipline::DropTail` and `Red` are the queues of `queue = { packets, bytes, red }`
//! as they always ran: a packet that finds the queue empty and the line idle goes straight to
//! the wire. An `Aqm` queue (the scenario's `aqm`, `ecn` or `ecn_threshold` keys) sees every
//! packet through enqueue and dequeue, as a Linux qdisc or an ns-3 queue disc does, so an AQM's
//! state follows every arrival and departure; it also counts its marks and keeps the sojourn
//! times of the packets that leave (`QueueStats`).

mod ared;
mod codel;
mod fq_codel;
mod pie;
mod red;
mod sojourn;

pub use ared::AredConfig;
pub use codel::CodelConfig;
pub use fq_codel::FqCodelConfig;
pub use pie::PieConfig;
pub use red::RedParams;
pub use sojourn::SojournHistogram;

use crate::packet::Packet;
use ared::Ared;
use codel::Codel;
use fq_codel::FqCodel;
use pie::Pie;
use red::{Red, RedVerdict};
use rexmit_engine::RngStream;
use rexmit_time::{Rate, Time};
use rexmit_wire::Ecn;
use std::collections::VecDeque;

#[derive(Clone, Debug, PartialEq)]
pub enum QueueLimit {
    Packets(u32),
    Bytes(u64),
}

#[derive(Clone, Debug, PartialEq)]
pub enum QueueDiscipline {
    DropTail,
    Red(RedParams),
    /// An active queue (module docs).
    Aqm(AqmConfig),
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

rexmit_options::choices! {
    /// The queue disciplines a scenario names (`queue = { aqm = "codel" }`).
    pub enum AqmKind {
        /// Drop-tail; with `ecn_threshold`, DCTCP's step marking (RFC 8257 §3.1).
        DropTail = "drop_tail",
        /// RED (Floyd & Jacobson 1993), parameters in `red = { ... }`.
        Red = "red",
        /// Adaptive RED (Floyd, Gummadi & Shenker 2001).
        Ared = "ared",
        /// CoDel (RFC 8289).
        Codel = "codel",
        /// FQ-CoDel (RFC 8290).
        FqCodel = "fq_codel",
        /// PIE (RFC 8033).
        Pie = "pie",
    }
}

impl AqmKind {
    /// Whether it marks ECN-capable packets unless told otherwise: FQ-CoDel does (RFC 8290
    /// §5.2.6); the others drop (RFC 8289, RFC 8033 §5.1 and RED leave ECN optional).
    pub fn ecn_by_default(self) -> bool {
        self == AqmKind::FqCodel
    }
}

/// An active queue and whether it marks.
#[derive(Clone, Debug, PartialEq)]
pub struct AqmConfig {
    pub aqm: Aqm,
    /// Mark ECN-capable packets CE where the AQM would drop them, as far as its rules let it
    /// (RFC 3168 §5, §7). Step marking marks whatever this says: it exists to mark.
    pub ecn: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Aqm {
    DropTail,
    /// DCTCP's step marking (RFC 8257 §3.1): an ECN-capable packet arriving to a queue that,
    /// with it, holds more than this is marked CE; a Not-ECT one is dropped in its place
    /// (RFC 3168 §5; what Linux's and ns-3's RED do as a step marker, RFC 8257 §5's
    /// coexistence problem).
    StepMark(QueueLimit),
    Red(RedParams),
    Ared(AredConfig),
    Codel(CodelConfig),
    FqCodel(FqCodelConfig),
    Pie(PieConfig),
}

impl Aqm {
    pub fn kind(&self) -> AqmKind {
        match self {
            Aqm::DropTail | Aqm::StepMark(_) => AqmKind::DropTail,
            Aqm::Red(_) => AqmKind::Red,
            Aqm::Ared(_) => AqmKind::Ared,
            Aqm::Codel(_) => AqmKind::Codel,
            Aqm::FqCodel(_) => AqmKind::FqCodel,
            Aqm::Pie(_) => AqmKind::Pie,
        }
    }
}

/// Why the queue refused a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueDrop {
    /// Full (drop-tail, or an AQM's hard limit).
    Overflow,
    /// An AQM's drop: RED's early (probabilistic or forced) drop, PIE's random drop.
    Early,
}

/// An AQM's answer to an arrival.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Arrival {
    Accept,
    /// Signal congestion: drop, or mark an ECN-capable packet unless `forced` (and the queue
    /// marks).
    Signal {
        forced: bool,
    },
    /// Mark an ECN-capable packet, drop any other (step marking, RFC 3168 §5).
    Mark,
}

/// A FIFO of packets and its byte count: what CoDel dequeues from (the whole queue, or one
/// flow's queue in FQ-CoDel).
pub(crate) struct Fifo<'a> {
    pub packets: &'a mut VecDeque<Box<Packet>>,
    pub bytes: &'a mut u64,
}

impl Fifo<'_> {
    fn pop(&mut self) -> Option<Box<Packet>> {
        let p = self.packets.pop_front()?;
        *self.bytes -= p.size as u64;
        Some(p)
    }
    fn bytes(&self) -> u64 {
        *self.bytes
    }
}

/// Set CE on an ECN-capable packet (RFC 3168 §5); false for a Not-ECT one, which must be
/// dropped instead.
pub(crate) fn mark_ce(pkt: &mut Packet) -> bool {
    if pkt.ip.header.ecn().is_ecn_capable() {
        pkt.ip.header.set_ecn(Ecn::Ce);
        true
    } else {
        false
    }
}

/// What an `Aqm` queue reports besides the channel's counters.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QueueStats {
    /// Packets marked CE instead of being dropped (an already-CE packet counts too).
    pub ecn_marked: u64,
    /// Sojourn times of the packets that left the queue for the line.
    pub sojourn: SojournHistogram,
}

/// Drops an AQM made that the channel has not counted yet: at dequeue (CoDel) or of packets
/// already queued (FQ-CoDel's overload drop).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Pending {
    pub overflow: u64,
    pub early: u64,
}

/// The discipline's state.
enum State {
    DropTail,
    /// The queue of `red = { ... }` without `aqm` (it also sees packets that bypass it).
    Red(Red),
    StepMark(QueueLimit),
    AqmRed(Box<Red>),
    Ared(Box<Ared>),
    Codel(Box<Codel>),
    FqCodel(Box<FqCodel>),
    Pie(Box<Pie>),
}

/// `repr(C)`, the per-packet fields first (see `Channel`).
#[repr(C)]
pub struct OutputQueue {
    /// The packets of every discipline but FQ-CoDel, which keeps them per flow.
    packets: VecDeque<Box<Packet>>,
    bytes: u64,
    limit: QueueLimit,
    state: State,
    ecn: bool,
    pending: Pending,
    /// `Aqm` queues only.
    stats: Option<Box<QueueStats>>,
}

impl OutputQueue {
    /// A queue in front of a line of rate `rate` (RED's idle-time decay and Adaptive RED's
    /// automatic parameters need it); `hash_seed` keys FQ-CoDel's flow hash.
    pub fn new(config: QueueConfig, rate: Rate, hash_seed: u64) -> Self {
        let (state, ecn, stats) = match config.discipline {
            QueueDiscipline::DropTail => (State::DropTail, false, None),
            QueueDiscipline::Red(p) => (State::Red(Red::new(p, rate)), false, None),
            QueueDiscipline::Aqm(a) => {
                let state = match a.aqm {
                    Aqm::DropTail => State::DropTail,
                    Aqm::StepMark(k) => State::StepMark(k),
                    Aqm::Red(p) => State::AqmRed(Box::new(Red::new(p, rate))),
                    Aqm::Ared(c) => State::Ared(Box::new(Ared::new(c, rate))),
                    Aqm::Codel(c) => State::Codel(Box::new(Codel::new(c))),
                    Aqm::FqCodel(c) => State::FqCodel(Box::new(FqCodel::new(c, hash_seed))),
                    Aqm::Pie(c) => State::Pie(Box::new(Pie::new(c))),
                };
                (state, a.ecn, Some(Box::default()))
            }
        };
        OutputQueue {
            packets: VecDeque::new(),
            bytes: 0,
            limit: config.limit,
            state,
            ecn,
            pending: Pending::default(),
            stats,
        }
    }

    /// Packets waiting in a FIFO discipline (every one but FQ-CoDel): the hot path's count.
    #[inline(always)]
    pub fn fifo_len(&self) -> usize {
        self.packets.len()
    }

    pub fn len_packets(&self) -> usize {
        match &self.state {
            State::FqCodel(fq) => fq.len(),
            _ => self.packets.len(),
        }
    }

    pub fn len_bytes(&self) -> u64 {
        match &self.state {
            State::FqCodel(fq) => fq.bytes(),
            _ => self.bytes,
        }
    }

    /// Whether it marks ECN-capable packets CE (an active queue with `ecn`, or step marking).
    pub fn marks_ecn(&self) -> bool {
        self.ecn
    }

    /// Marks and sojourn times (`Aqm` queues).
    pub fn stats(&self) -> Option<&QueueStats> {
        self.stats.as_deref()
    }

    /// Drops made at dequeue or of queued packets since the last call.
    pub(crate) fn take_pending(&mut self) -> Pending {
        std::mem::take(&mut self.pending)
    }

    fn fits(&self, size: u32) -> bool {
        match self.limit {
            QueueLimit::Packets(n) => (self.packets.len() as u64) < n as u64,
            QueueLimit::Bytes(b) => self.bytes + size as u64 <= b,
        }
    }

    /// Offer a packet at `now`; `rng` is only drawn from by RED and PIE.
    pub fn enqueue(
        &mut self,
        now: Time,
        pkt: Box<Packet>,
        rng: &mut RngStream,
    ) -> Result<(), (Box<Packet>, QueueDrop)> {
        let offered = self.offer(now, pkt, rng);
        if offered.is_err() && self.len_packets() == 0 {
            // Floyd & Jacobson 1993 §4: RED's average decays over the time the queue is empty.
            // An arrival dropped at an empty queue leaves it empty: the idle period goes on
            // from this arrival, whose decay up to now is already in the average.
            match &mut self.state {
                State::Red(red) => red.on_empty(now),
                State::AqmRed(red) => red.on_empty(now),
                State::Ared(a) => a.red.on_empty(now),
                _ => {}
            }
        }
        offered
    }

    fn offer(
        &mut self,
        now: Time,
        mut pkt: Box<Packet>,
        rng: &mut RngStream,
    ) -> Result<(), (Box<Packet>, QueueDrop)> {
        pkt.enqueued = now;
        let signal = match &mut self.state {
            State::DropTail | State::Codel(_) => Arrival::Accept,
            State::Red(red) => match red.on_arrival(now, self.packets.len(), rng) {
                RedVerdict::Pass => Arrival::Accept,
                _ => return Err((pkt, QueueDrop::Early)),
            },
            State::AqmRed(red) => red_signal(red.on_arrival(now, self.packets.len(), rng)),
            State::Ared(a) => red_signal(a.on_arrival(now, self.packets.len(), rng)),
            State::Pie(pie) => pie.on_arrival(now, self.bytes, rng),
            State::StepMark(k) => {
                // RFC 8257 §3.1: mark when the queue, with this packet, holds more than K.
                let above = match *k {
                    QueueLimit::Packets(k) => self.packets.len() as u64 >= k as u64,
                    QueueLimit::Bytes(k) => self.bytes + pkt.size as u64 > k,
                };
                if above {
                    Arrival::Mark
                } else {
                    Arrival::Accept
                }
            }
            State::FqCodel(fq) => {
                // RFC 8290 §4.1: the arrival is always queued; an overload drops elsewhere.
                self.pending.overflow += fq.enqueue(pkt, &self.limit) as u64;
                return Ok(());
            }
        };
        let capable = pkt.ip.header.ecn().is_ecn_capable();
        let mark = match signal {
            Arrival::Accept => false,
            // RFC 3168 §5: a packet that is not ECN-capable is dropped where it would be marked.
            Arrival::Mark if capable => true,
            Arrival::Mark => return Err((pkt, QueueDrop::Early)),
            Arrival::Signal { forced } if self.ecn && !forced && capable => true,
            Arrival::Signal { .. } => return Err((pkt, QueueDrop::Early)),
        };
        if !self.fits(pkt.size) {
            return Err((pkt, QueueDrop::Overflow));
        }
        if mark {
            mark_ce(&mut pkt);
            self.count_mark();
        }
        self.bytes += pkt.size as u64;
        self.packets.push_back(pkt);
        Ok(())
    }

    fn count_mark(&mut self) {
        if let Some(s) = &mut self.stats {
            s.ecn_marked += 1;
        }
    }

    /// A packet arrived at an empty queue and an idle line and goes straight to the wire (not
    /// for `Aqm` queues, which take every packet): RED still counts the arrival in its average.
    pub fn bypass(&mut self, now: Time) {
        if let State::Red(red) = &mut self.state {
            red.bypass(now);
        }
    }

    /// Take the next packet as the line frees at `now` (an AQM may drop some first).
    pub fn dequeue(&mut self, now: Time) -> Option<Box<Packet>> {
        let p = match &mut self.state {
            State::Codel(c) => {
                let mut fifo = Fifo {
                    packets: &mut self.packets,
                    bytes: &mut self.bytes,
                };
                let out = c.dequeue(now, &mut fifo, self.ecn);
                self.pending.early += out.dropped as u64;
                if out.marked {
                    self.count_mark();
                }
                out.pkt
            }
            State::FqCodel(fq) => {
                let out = fq.dequeue(now, self.ecn);
                self.pending.early += out.dropped as u64;
                if out.marked {
                    self.count_mark();
                }
                out.pkt
            }
            _ => {
                let p = self.packets.pop_front()?;
                self.bytes -= p.size as u64;
                Some(p)
            }
        }?;
        let empty = self.len_packets() == 0;
        match &mut self.state {
            State::Red(red) if empty => red.on_empty(now),
            State::AqmRed(red) if empty => red.on_empty(now),
            State::Ared(a) if empty => a.red.on_empty(now),
            State::Pie(pie) => pie.on_departure(now, now.saturating_since(p.enqueued), empty),
            _ => {}
        }
        if let Some(s) = &mut self.stats {
            s.sojourn.record(now.saturating_since(p.enqueued));
        }
        Some(p)
    }

    #[cfg(test)]
    pub(crate) fn red(&self) -> &Red {
        match &self.state {
            State::Red(r) => r,
            _ => panic!("not a RED queue"),
        }
    }
}

/// RED's verdict as a congestion signal: the random drop may become a mark, the forced one not
/// (RFC 3168 §7: above the last threshold the router drops).
fn red_signal(v: RedVerdict) -> Arrival {
    match v {
        RedVerdict::Pass => Arrival::Accept,
        RedVerdict::Probabilistic => Arrival::Signal { forced: false },
        RedVerdict::Forced => Arrival::Signal { forced: true },
    }
}

#[cfg(test)]
pub(crate) mod tests;
