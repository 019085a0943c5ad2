//! Test harness: address constants, a manual handshake, packet helpers, and a tiny
//! deterministic event loop (`Net`) with a seeded RNG for loss and reordering. It does not
//! use the engine crate.
#![allow(dead_code)]

use rexmit_sctp::{Association, Event, SctpConfig, Transmit};
use rexmit_time::{Duration, Time};
use rexmit_wire::{Chunk, DataChunk};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::net::Ipv4Addr;

pub const A1: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 1);
pub const A2: Ipv4Addr = Ipv4Addr::new(10, 0, 1, 1);
pub const B1: Ipv4Addr = Ipv4Addr::new(10, 1, 0, 1);
pub const B2: Ipv4Addr = Ipv4Addr::new(10, 1, 1, 1);
pub const PORT_A: u16 = 5000;
pub const PORT_B: u16 = 6000;
pub const TAG_A: u32 = 0xa1a1_a1a1;
pub const TAG_B: u32 = 0xb2b2_b2b2;

/// Every packet `a` sends now. Polls check the fast "nothing to send" test against the full
/// path (`poll_transmit_checked`), here and in `Net`.
pub fn drain(a: &mut Association, now: Time) -> Vec<Transmit> {
    std::iter::from_fn(|| a.poll_transmit_checked(now)).collect()
}
pub fn events(a: &mut Association) -> Vec<Event> {
    std::iter::from_fn(|| a.poll_event()).collect()
}
pub fn deliver(to: &mut Association, now: Time, t: &Transmit) {
    to.handle_packet(now, t.src, t.dst, &t.packet);
}
pub fn data_chunks(t: &Transmit) -> Vec<&DataChunk> {
    t.packet
        .chunks
        .iter()
        .filter_map(|c| {
            if let Chunk::Data(d) = c {
                Some(d)
            } else {
                None
            }
        })
        .collect()
}
pub fn data_tsns(ts: &[Transmit]) -> Vec<u32> {
    ts.iter()
        .flat_map(|t| data_chunks(t).into_iter().map(|d| d.tsn))
        .collect()
}

/// Connect A (initiator, tag TAG_A, initial TSN `tsn_a`) to B (listener, TAG_B, `tsn_b`)
/// over loss-free instantaneous links; returns both established, events drained.
pub fn connect_pair(
    cfg_a: SctpConfig,
    cfg_b: SctpConfig,
    tsn_a: u32,
    tsn_b: u32,
    multihomed: bool,
) -> (Association, Association) {
    let (la, lb) = if multihomed {
        (vec![A1, A2], vec![B1, B2])
    } else {
        (vec![A1], vec![B1])
    };
    let mut a = Association::connect(
        cfg_a,
        la,
        PORT_A,
        lb.clone(),
        PORT_B,
        TAG_A,
        tsn_a,
        Time::ZERO,
    );
    let mut b = Association::listen(cfg_b, lb, PORT_B, TAG_B, tsn_b);
    for _ in 0..4 {
        for t in drain(&mut a, Time::ZERO) {
            deliver(&mut b, Time::ZERO, &t);
        }
        for t in drain(&mut b, Time::ZERO) {
            deliver(&mut a, Time::ZERO, &t);
        }
    }
    assert!(a.is_established() && b.is_established());
    events(&mut a);
    events(&mut b);
    (a, b)
}

/// xorshift64*: the tests' own seeded generator.
pub struct Rng(u64);
impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// True with probability `p_permille`/1000.
    pub fn chance(&mut self, p_permille: u64) -> bool {
        self.next() % 1000 < p_permille
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// Per-packet fate decided by the test: `None` drops it, `Some(d)` delivers after `d`.
pub type Fate<'a> = dyn FnMut(&Transmit, Time) -> Option<Duration> + 'a;

/// Two endpoints joined by a network whose behaviour is the `fate` closure.
pub struct Net {
    pub now: Time,
    pub eps: [Association; 2],
    heap: BinaryHeap<Reverse<(Time, u64, usize)>>,
    in_flight: Vec<Option<Transmit>>,
    seq: u64,
    pub events: [Vec<(Time, Event)>; 2],
    /// Polls of each endpoint, and those that ended in the fast "nothing to send" test.
    pub polls: [u64; 2],
    pub fast_polls: [u64; 2],
}

impl Net {
    pub fn new(a: Association, b: Association) -> Self {
        Net {
            now: Time::ZERO,
            eps: [a, b],
            heap: BinaryHeap::new(),
            in_flight: Vec::new(),
            seq: 0,
            events: [Vec::new(), Vec::new()],
            polls: [0; 2],
            fast_polls: [0; 2],
        }
    }

    fn flush(&mut self, i: usize, fate: &mut Fate) {
        loop {
            self.polls[i] += 1;
            self.fast_polls[i] += self.eps[i].poll_ends_fast(self.now) as u64;
            let Some(t) = self.eps[i].poll_transmit_checked(self.now) else {
                break;
            };
            if let Some(d) = fate(&t, self.now) {
                let id = self.in_flight.len();
                self.in_flight.push(Some(t));
                self.seq += 1;
                self.heap.push(Reverse((self.now + d, self.seq, id)));
            }
        }
        while let Some(e) = self.eps[i].poll_event() {
            self.events[i].push((self.now, e));
        }
    }

    /// Run until `until` or until nothing is scheduled; `app` is called after every step
    /// with the endpoints (to write more data).
    pub fn run(
        &mut self,
        until: Time,
        fate: &mut Fate,
        app: &mut dyn FnMut(Time, &mut [Association; 2]),
    ) {
        self.run_observed(until, fate, app, &mut |_, _| {});
    }

    /// Like `run`; `observe` sees the endpoints after every step's packets left, i.e. in the
    /// state they keep until the next step.
    pub fn run_observed(
        &mut self,
        until: Time,
        fate: &mut Fate,
        app: &mut dyn FnMut(Time, &mut [Association; 2]),
        observe: &mut dyn FnMut(Time, &[Association; 2]),
    ) {
        app(self.now, &mut self.eps);
        self.flush(0, fate);
        self.flush(1, fate);
        observe(self.now, &self.eps);
        loop {
            let next_pkt = self.heap.peek().map(|Reverse((t, _, _))| *t);
            let timers = [self.eps[0].poll_timeout(), self.eps[1].poll_timeout()];
            let next = [next_pkt, timers[0], timers[1]].into_iter().flatten().min();
            let Some(next) = next else { break };
            if next > until {
                self.now = until;
                break;
            }
            self.now = next.max(self.now);
            if next_pkt == Some(next) {
                let Reverse((_, _, id)) = self.heap.pop().expect("peeked");
                let t = self.in_flight[id]
                    .take()
                    .expect("each packet delivered once");
                let to = if self.eps[0].paths().iter().any(|p| p.local() == t.dst)
                    || t.dst == A1
                    || t.dst == A2
                {
                    0
                } else {
                    1
                };
                self.eps[to].handle_packet(self.now, t.src, t.dst, &t.packet);
            } else {
                for (ep, t) in self.eps.iter_mut().zip(timers) {
                    if t == Some(next) {
                        ep.handle_timeout(self.now);
                    }
                }
            }
            app(self.now, &mut self.eps);
            self.flush(0, fate);
            self.flush(1, fate);
            observe(self.now, &self.eps);
        }
    }
}
