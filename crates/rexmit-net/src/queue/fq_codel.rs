//! FQ-CoDel (RFC 8290): packets hashed on their 5-tuple into flow queues, served by deficit
//! round robin over a list of new flows and a list of old flows, each flow queue managed by its
//! own CoDel; when the queue is over its limit, packets are dropped from the head of the flow
//! holding the most bytes.
//!
//! Owns: the classification (a hash keyed by a seed from the scenario's named random streams,
//! never a per-process one), the flow lists, the DRR deficits and the overload drop. Does not
//! own: CoDel itself (`codel.rs`).

use super::codel::Codel;
use super::{Fifo, QueueLimit};
use crate::packet::{FlowKey, Packet};
use rexmit_time::Time;
use std::collections::VecDeque;

/// FQ-CoDel's option table (`queue = { aqm = "fq_codel", fq_codel = { ... } }`; crate
/// `rexmit-options`).
#[macro_export]
macro_rules! fq_codel_option_table {
    ($generator:path { $($head:tt)* }) => { $generator! { $($head)* ;
        public {
            /// Number of flow queues the 5-tuples are hashed into (RFC 8290 §5.2.5: 1024).
            opt flows: u32 = 1024, unit = count,
                check = (1..=65_536).contains(flows) => "1..=65536";
            /// DRR quantum: the bytes a flow may send per round (RFC 8290 §5.2.4: 1514, one
            /// Ethernet frame).
            opt quantum: u32 = 1514, unit = bytes,
                check = (1..=1_048_576).contains(quantum) => "1..=1048576";
            /// The CoDel of each flow queue (RFC 8290 §5.2.1, §5.2.2: CoDel's defaults).
            table codel: $crate::queue::CodelConfig = $crate::queue::CodelConfig::default(),
                unit = table;
        }
        internal {}
    } };
}

fq_codel_option_table!(rexmit_options::config_table {
    /// FQ-CoDel's parameters.
    #[derive(Clone, Debug, PartialEq)]
    pub struct FqCodelConfig
});

impl rexmit_options::Relations for FqCodelConfig {}

/// One flow queue (RFC 8290 §5.1).
#[derive(Debug)]
struct Flow {
    packets: VecDeque<Box<Packet>>,
    bytes: u64,
    deficit: i64,
    codel: Codel,
    /// In the new or the old list.
    listed: bool,
}

/// Which list a flow was served from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum List {
    New,
    Old,
}

#[derive(Debug)]
pub(crate) struct FqCodel {
    cfg: FqCodelConfig,
    /// The key of the classification hash.
    seed: u64,
    /// Flow queue of each hash bucket, once the bucket has been used (`u32::MAX`: never), so
    /// that memory follows the flows seen, not the bucket count.
    slot_of: Vec<u32>,
    flows: Vec<Flow>,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    len: usize,
    bytes: u64,
}

/// What one dequeue did.
pub(crate) struct FqOut {
    pub pkt: Option<Box<Packet>>,
    /// CoDel drops on the way.
    pub dropped: u32,
    pub marked: bool,
}

/// A 64-bit mixing step (the finalizer of splitmix64): every input bit affects every output
/// bit.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The bucket of a 5-tuple among `n` (RFC 8290 §4.1.1: a hash of the 5-tuple with a random
/// perturbation; here the perturbation is the seed).
pub(crate) fn bucket(k: &FlowKey, seed: u64, n: u32) -> u32 {
    let addrs = (u32::from(k.src) as u64) << 32 | u32::from(k.dst) as u64;
    let rest = (k.protocol as u64) << 32 | (k.src_port as u64) << 16 | k.dst_port as u64;
    let h = mix(mix(seed ^ addrs) ^ rest);
    ((h as u128 * n as u128) >> 64) as u32
}

impl FqCodel {
    pub fn new(cfg: FqCodelConfig, seed: u64) -> Self {
        FqCodel {
            slot_of: Vec::new(),
            cfg,
            seed,
            flows: Vec::new(),
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            len: 0,
            bytes: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    fn slot(&mut self, pkt: &Packet) -> usize {
        let b = bucket(&pkt.flow_key(), self.seed, self.cfg.flows) as usize;
        if self.slot_of.is_empty() {
            self.slot_of = vec![u32::MAX; self.cfg.flows as usize];
        }
        if self.slot_of[b] == u32::MAX {
            self.slot_of[b] = self.flows.len() as u32;
            self.flows.push(Flow {
                packets: VecDeque::new(),
                bytes: 0,
                deficit: 0,
                codel: Codel::new(self.cfg.codel.clone()),
                listed: false,
            });
        }
        self.slot_of[b] as usize
    }

    /// RFC 8290 §4.1: queue the packet in its flow (a flow not in either list joins the new
    /// list with a full quantum), then, while over `limit`, drop from the head of the flow with
    /// the most bytes. Returns the packets dropped that way.
    pub fn enqueue(&mut self, pkt: Box<Packet>, limit: &QueueLimit) -> u32 {
        let s = self.slot(&pkt);
        let f = &mut self.flows[s];
        f.bytes += pkt.size as u64;
        self.bytes += pkt.size as u64;
        self.len += 1;
        f.packets.push_back(pkt);
        if !f.listed {
            f.listed = true;
            f.deficit = self.cfg.quantum as i64;
            self.new_flows.push_back(s as u32);
        }
        let mut dropped = 0;
        while match *limit {
            QueueLimit::Packets(n) => self.len > n as usize,
            QueueLimit::Bytes(b) => self.bytes > b,
        } {
            let fat = self.fattest();
            let f = &mut self.flows[fat];
            let p = f
                .packets
                .pop_front()
                .expect("the fattest flow holds packets");
            f.bytes -= p.size as u64;
            self.bytes -= p.size as u64;
            self.len -= 1;
            dropped += 1;
        }
        dropped
    }

    /// The listed flow holding the most bytes (the first of them in list order, new list
    /// first): every flow with packets is listed.
    fn fattest(&self) -> usize {
        let mut best = (0, usize::MAX);
        for &s in self.new_flows.iter().chain(&self.old_flows) {
            let b = self.flows[s as usize].bytes;
            if b > best.0 {
                best = (b, s as usize);
            }
        }
        best.1
    }

    /// RFC 8290 §4.2: serve the first flow of the new list, else of the old list. A flow
    /// whose deficit is spent gets a quantum more and goes to the end of the old list; a flow
    /// found empty leaves the new list for the end of the old one, or the old list for none.
    /// Taking the last queued packet runs that walk over the emptied lists (`drained`).
    pub fn dequeue(&mut self, now: Time, ecn: bool) -> FqOut {
        let mut out = FqOut {
            pkt: None,
            dropped: 0,
            marked: false,
        };
        loop {
            let (list, s) = match (self.new_flows.front(), self.old_flows.front()) {
                (Some(&s), _) => (List::New, s as usize),
                (None, Some(&s)) => (List::Old, s as usize),
                (None, None) => return out,
            };
            let f = &mut self.flows[s];
            if f.deficit <= 0 {
                f.deficit += self.cfg.quantum as i64;
                self.pop_front(list);
                self.old_flows.push_back(s as u32);
                continue;
            }
            let (n0, b0) = (f.packets.len(), f.bytes);
            let r = f.codel.dequeue(
                now,
                &mut Fifo {
                    packets: &mut f.packets,
                    bytes: &mut f.bytes,
                },
                ecn,
            );
            self.len -= n0 - f.packets.len();
            self.bytes -= b0 - f.bytes;
            out.dropped += r.dropped;
            match r.pkt {
                Some(p) => {
                    f.deficit -= p.size as i64;
                    out.marked = r.marked;
                    out.pkt = Some(p);
                    if self.len == 0 {
                        self.drained(now);
                    }
                    return out;
                }
                None => {
                    self.pop_front(list);
                    if list == List::New {
                        self.old_flows.push_back(s as u32);
                    } else {
                        self.flows[s].listed = false;
                    }
                }
            }
        }
    }

    /// The line has just taken the last queued packet. Linux's qdisc loop and ns-3's queue
    /// disc ask for the next packet as soon as the device takes one (ns-3, with the 1-packet
    /// device queue of the validation, when the line starts sending the packet that queue
    /// held: the instant rexmit's line takes it from here), and that call finds none: RFC 8290
    /// §4.2's walk moves every empty new flow to the old list and removes every empty old
    /// flow, so every flow becomes inactive and its next packet makes it a new flow again
    /// (§4.4: the priority of sparse flows). On the way each flow's CoDel dequeues from its
    /// empty queue and so leaves the dropping state (RFC 8289 §5.5). Nothing is dropped: every
    /// flow queue is empty.
    fn drained(&mut self, now: Time) {
        let out = self.dequeue(now, false);
        debug_assert!(out.pkt.is_none() && out.dropped == 0);
        debug_assert!(self.new_flows.is_empty() && self.old_flows.is_empty());
    }

    fn pop_front(&mut self, list: List) {
        match list {
            List::New => self.new_flows.pop_front(),
            List::Old => self.old_flows.pop_front(),
        };
    }

    #[cfg(test)]
    fn lists(&self) -> (Vec<u32>, Vec<u32>) {
        (
            self.new_flows.iter().copied().collect(),
            self.old_flows.iter().copied().collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::flow_pkt;
    use super::*;
    use std::net::Ipv4Addr;

    fn key(port: u16) -> FlowKey {
        FlowKey {
            src: Ipv4Addr::new(10, 0, 0, 1),
            dst: Ipv4Addr::new(10, 0, 1, 1),
            protocol: 17,
            src_port: port,
            dst_port: 9,
        }
    }

    /// A seed under which ports 1..=4 fall in four different buckets of `n`.
    fn separating_seed(n: u32) -> u64 {
        (0..)
            .find(|&seed| {
                let mut b: Vec<u32> = (1..=4).map(|p| bucket(&key(p), seed, n)).collect();
                b.sort_unstable();
                b.dedup();
                b.len() == 4
            })
            .unwrap()
    }

    #[test]
    fn the_hash_depends_on_the_seed_and_every_tuple_field() {
        let base = bucket(&key(1), 7, 1 << 30);
        assert_eq!(bucket(&key(1), 7, 1 << 30), base);
        assert_ne!(bucket(&key(1), 8, 1 << 30), base);
        let mut k = key(1);
        k.dst_port = 10;
        assert_ne!(bucket(&k, 7, 1 << 30), base);
        let mut k = key(1);
        k.protocol = 6;
        assert_ne!(bucket(&k, 7, 1 << 30), base);
        let mut k = key(1);
        k.src = Ipv4Addr::new(10, 0, 0, 2);
        assert_ne!(bucket(&k, 7, 1 << 30), base);
        // Spread: 4096 flows over 1024 buckets fill most of them.
        let mut used = vec![false; 1024];
        for p in 0..4096 {
            used[bucket(&key(p), 7, 1024) as usize] = true;
        }
        assert!(used.iter().filter(|u| **u).count() > 950);
    }

    fn fq(quantum: u32) -> FqCodel {
        let cfg = FqCodelConfig {
            quantum,
            ..FqCodelConfig::default()
        };
        let seed = separating_seed(cfg.flows);
        FqCodel::new(cfg, seed)
    }

    #[test]
    fn drr_serves_flows_in_turn_by_bytes() {
        // Flow 1 has 1500-byte packets, flow 2 500-byte ones, quantum 1500: per round flow 1
        // sends one packet, flow 2 three (RFC 8290 §4.2: the deficit is in bytes).
        let mut q = fq(1500);
        let lim = QueueLimit::Packets(1000);
        for _ in 0..6 {
            q.enqueue(flow_pkt(1, 1500, Time::ZERO), &lim);
        }
        for _ in 0..18 {
            q.enqueue(flow_pkt(2, 500, Time::ZERO), &lim);
        }
        let order: Vec<u16> = (0..24)
            .map(|_| {
                q.dequeue(Time::from_micros(1), false)
                    .pkt
                    .unwrap()
                    .ip
                    .transport
                    .src_port()
            })
            .collect();
        assert_eq!(&order[..8], &[1, 2, 2, 2, 1, 2, 2, 2]);
        assert_eq!(order.iter().filter(|p| **p == 1).count(), 6);
        assert_eq!(q.len(), 0);
    }

    #[test]
    fn a_new_flow_is_served_before_the_old_ones() {
        let mut q = fq(1514);
        let lim = QueueLimit::Packets(1000);
        for _ in 0..10 {
            q.enqueue(flow_pkt(1, 1500, Time::ZERO), &lim);
        }
        let port = |q: &mut FqCodel| {
            q.dequeue(Time::ZERO, false)
                .pkt
                .unwrap()
                .flow_key()
                .src_port
        };
        // Flow 1 sends while its deficit is positive: 1514 → 14 → −1486.
        assert_eq!(port(&mut q), 1);
        assert_eq!(port(&mut q), 1);
        let (new, old) = q.lists();
        assert!(new.len() == 1 && old.is_empty());
        // A sparse flow arrives. Flow 1's spent deficit sends it to the old list with a quantum
        // more (28), and the new flow goes first.
        q.enqueue(flow_pkt(3, 100, Time::ZERO), &lim);
        assert_eq!(port(&mut q), 3);
        // Emptied, it leaves the new list for the end of the old one (RFC 8290 §4.2), behind
        // flow 1, which sends next.
        assert_eq!(port(&mut q), 1);
        let (new, old) = q.lists();
        assert!(new.is_empty());
        assert_eq!(old.len(), 2);
    }

    #[test]
    fn after_the_queue_drains_a_returning_flow_is_a_new_flow() {
        // Quantum 1500: flow 1 (slot 0) sends one 1500-byte packet, flow 2 (slot 1) fifteen of
        // 100 bytes, all queued at 0 and sent 0.1 ms apart.
        let mut q = fq(1500);
        let lim = QueueLimit::Packets(1000);
        q.enqueue(flow_pkt(1, 1500, Time::ZERO), &lim);
        for _ in 0..15 {
            q.enqueue(flow_pkt(2, 100, Time::ZERO), &lim);
        }
        let port = |q: &mut FqCodel, t: Time| q.dequeue(t, false).pkt.unwrap().flow_key().src_port;
        let order: Vec<u16> = (0..16)
            .map(|k| port(&mut q, Time::from_micros(100 * k)))
            .collect();
        assert_eq!(order[0], 1);
        assert!(order[1..].iter().all(|p| *p == 2));
        // The line took the last packet, flow 2's with its deficit spent: the empty dequeue
        // that follows (RFC 8290 §4.2) gives it a quantum, moves it to the old list, and
        // removes both flows as empty. (Without it, flow 2 stayed first in the new list and
        // flow 1 in the old one, and their next packets would not start new flows.)
        assert_eq!(q.lists(), (vec![], vec![]));
        assert_eq!(q.flows[1].deficit, 1500);
        // 20 ms: flow 1 returns with a backlog and is a new flow; the idle line takes one of
        // its packets (its deficit is now 0).
        for _ in 0..10 {
            q.enqueue(flow_pkt(1, 1500, Time::from_millis(20)), &lim);
        }
        assert_eq!(q.lists(), (vec![0], vec![]));
        assert_eq!(port(&mut q, Time::from_millis(20)), 1);
        // 20.6 ms: flow 2's next packet starts a new flow too (RFC 8290 §4.4) ...
        q.enqueue(flow_pkt(2, 100, Time::from_micros(20_600)), &lim);
        assert_eq!(q.lists(), (vec![0, 1], vec![]));
        // ... and when the line frees at 21.2 ms it goes before flow 1's backlog, whose spent
        // deficit sends it to the old list (flow 2 leaves the new list at the next dequeue).
        assert_eq!(port(&mut q, Time::from_micros(21_200)), 2);
        assert_eq!(q.lists(), (vec![1], vec![0]));
        assert_eq!(port(&mut q, Time::from_micros(21_300)), 1);
    }

    #[test]
    fn a_flow_emptied_while_dropping_leaves_the_dropping_state() {
        // CoDel's mtu at 100 bytes, so that a single 1000-byte packet left behind still counts
        // as a queue (RFC 8289 §5.5's `bytes <= maxpacket` test does not stop the drop).
        let mut cfg = FqCodelConfig::default();
        cfg.codel.mtu = 100;
        let seed = separating_seed(cfg.flows);
        let mut q = FqCodel::new(cfg, seed);
        let lim = QueueLimit::Packets(1000);
        for _ in 0..3 {
            q.enqueue(flow_pkt(1, 1000, Time::ZERO), &lim);
        }
        // 10 ms: sojourn above TARGET, first_above_time = 110 ms.
        let out = q.dequeue(Time::from_millis(10), false);
        assert!(out.pkt.is_some() && out.dropped == 0);
        // 120 ms: above TARGET for INTERVAL: the head is dropped, the dropping state entered
        // (RFC 8289 §5.5), and the packet behind it, the last, goes to the line.
        let out = q.dequeue(Time::from_millis(120), false);
        assert!(out.pkt.is_some());
        assert_eq!(out.dropped, 1);
        assert_eq!(q.len(), 0);
        // The empty dequeue that follows finds the flow's queue empty: CoDel leaves the
        // dropping state (RFC 8289 §5.5: an empty queue is below TARGET) and the flow becomes
        // inactive. Its drop schedule (count, drop_next) is kept for a quick return.
        let (dropping, count, _) = q.flows[0].codel.state();
        assert!(!dropping);
        assert_eq!(count, 1);
        assert_eq!(q.lists(), (vec![], vec![]));
    }

    #[test]
    fn overload_drops_from_the_head_of_the_fattest_flow() {
        // RFC 8290 §4.1: over the limit, the flow with the largest byte count loses its head
        // packet, whichever flow the arriving packet belongs to.
        let mut q = fq(1514);
        let lim = QueueLimit::Packets(10);
        for _ in 0..4 {
            q.enqueue(flow_pkt(1, 1500, Time::from_micros(1)), &lim);
        }
        for i in 0..6 {
            assert_eq!(
                q.enqueue(flow_pkt(2, 100, Time::from_micros(10 + i)), &lim),
                0
            );
        }
        // An 11th packet, of the small flow: flow 1 (6000 bytes) loses its head.
        assert_eq!(q.enqueue(flow_pkt(2, 100, Time::from_micros(20)), &lim), 1);
        assert_eq!(q.len(), 10);
        assert_eq!(q.bytes(), 3 * 1500 + 7 * 100);
        // By bytes: 3000 allowed, 3000 held plus 100: flow 1 loses one 1500-byte packet.
        let mut q2 = fq(1514);
        let lim = QueueLimit::Bytes(3000);
        q2.enqueue(flow_pkt(1, 1500, Time::ZERO), &lim);
        q2.enqueue(flow_pkt(1, 1500, Time::ZERO), &lim);
        assert_eq!(q2.enqueue(flow_pkt(2, 100, Time::ZERO), &lim), 1);
        assert_eq!(q2.bytes(), 1600);
    }

    #[test]
    fn each_flow_has_its_own_codel() {
        // Flow 1 holds an old standing queue, flow 2 sends fresh packets: flow 1's CoDel drops,
        // every packet of flow 2 gets through.
        let mut q = fq(1514);
        let lim = QueueLimit::Packets(10_000);
        for _ in 0..400 {
            q.enqueue(flow_pkt(1, 1000, Time::ZERO), &lim);
        }
        let (mut dropped, mut flow2_out) = (0, 0);
        let mut count = |out: FqOut| {
            dropped += out.dropped;
            if out.pkt.is_some_and(|p| p.flow_key().src_port == 2) {
                flow2_out += 1;
            }
        };
        for t in 10..400u64 {
            let now = Time::from_millis(t);
            q.enqueue(flow_pkt(2, 1000, now), &lim);
            count(q.dequeue(now, false));
            count(q.dequeue(now, false));
        }
        while q.len() > 0 {
            count(q.dequeue(Time::from_millis(400), false));
        }
        assert!(dropped > 0);
        assert_eq!(flow2_out, 390);
    }
}
