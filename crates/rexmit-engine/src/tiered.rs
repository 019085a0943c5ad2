//! `TieredQueue`: the event queue of the simulator. A small heap holds the events of the
//! current bucket of time; a ring of unsorted buckets holds the next second; a heap holds the
//! rest. Events keep the (time, key) order of one heap exactly, as every key is unique (the
//! scheduler's sequence numbers): only where an event waits changes.
//!
//! Why (issue 18, profile of a seed 000 CMT run, 130 apps, ≈ 9 700 pending events): one 4-ary
//! heap of every pending event spent 21% of the loop's instructions in push and pop, most of
//! its entries timers a round trip or an RTO away, and its 300 KB did not stay in the cache.
//! Here an event far ahead is pushed onto a bucket in O(1) and enters the small heap only when
//! its bucket comes up (Brown's calendar queue failed here because its day width had to fit
//! both microsecond serialisations and second-long timers, and its buckets are sorted; these
//! buckets are not, and their width is fixed).
//!
//! Invariant: `near` holds exactly the events in buckets before `cur`; the ring holds buckets
//! `cur .. cur + BUCKETS`; `far` holds the later ones. So the earliest event is `near`'s
//! whenever `near` is not empty, and `near` is refilled from the next non-empty bucket as soon
//! as it runs empty. While few events are pending (a run of one or a few flows) the buckets
//! cost more than they save: then `cur` is `u64::MAX` and `near` is the one heap of everything,
//! until it holds `SPLIT_AT` events; below `JOIN_AT` the buckets are merged back.

use crate::queue::{EventQueue, HeapQueue};
use rexmit_time::Time;

/// A bucket spans 2^19 ns (524 µs): a few hundred events in a busy run.
const SHIFT: u32 = 19;
/// The ring spans 2 048 buckets (1.07 s): the RTOs and delayed ACKs of most runs.
const BUCKETS: usize = 2048;
const WORDS: usize = BUCKETS / 64;
/// Pending events at which the one heap is split into buckets, and below which the buckets are
/// merged back (apart, so that a population near one of them does not switch at every event).
/// Measured (callgrind, instructions of whole runs): a seed 004 HTTP cross-traffic run with
/// ≈ 565 events pending spends 15% fewer at 256 than at 4 096; runs of one to a few flows
/// (the 48 reference scenarios, a seed 001 and a seed 004 lab run) never reach 256 and are
/// unchanged; a seed 000 CMT run (≈ 9 700 pending) −0.4%.
const SPLIT_AT: usize = 256;
const JOIN_AT: usize = 64;
/// `cur` while everything is in `near`.
const ONE_HEAP: u64 = u64::MAX;

pub struct TieredQueue<E> {
    near: HeapQueue<E>,
    ring: Vec<Vec<(Time, u64, E)>>,
    /// Bit b: ring slot b holds an event.
    occupied: [u64; WORDS],
    /// Events in the ring.
    in_ring: usize,
    far: HeapQueue<E>,
    /// The first bucket (time >> SHIFT) not yet moved into `near`.
    cur: u64,
}

impl<E> Default for TieredQueue<E> {
    fn default() -> Self {
        TieredQueue {
            near: HeapQueue::new(),
            ring: Vec::new(),
            occupied: [0; WORDS],
            in_ring: 0,
            far: HeapQueue::new(),
            cur: ONE_HEAP,
        }
    }
}

impl<E> TieredQueue<E> {
    pub fn new() -> Self {
        Self::default()
    }

    #[inline]
    fn bucket(at: Time) -> u64 {
        at.as_nanos() >> SHIFT
    }

    fn put_in_ring(&mut self, b: u64, at: Time, key: u64, event: E) {
        let slot = (b % BUCKETS as u64) as usize;
        self.ring[slot].push((at, key, event));
        self.occupied[slot / 64] |= 1 << (slot % 64);
        self.in_ring += 1;
    }

    /// The ring slot of the first non-empty bucket at or after `cur`, if the ring holds any.
    fn next_occupied(&self) -> Option<usize> {
        let start = (self.cur % BUCKETS as u64) as usize;
        let (w0, bit0) = (start / 64, start % 64);
        let first = self.occupied[w0] & (u64::MAX << bit0);
        if first != 0 {
            return Some(w0 * 64 + first.trailing_zeros() as usize);
        }
        for i in 1..=WORDS {
            let w = (w0 + i) % WORDS;
            // The start word comes round last: its bits below `bit0` are the ring's end.
            let bits = if i == WORDS {
                self.occupied[w] & !(u64::MAX << bit0)
            } else {
                self.occupied[w]
            };
            if bits != 0 {
                return Some(w * 64 + bits.trailing_zeros() as usize);
            }
        }
        None
    }

    /// Move the next non-empty bucket into `near` (`near` is empty and the ring or `far` is not).
    fn refill(&mut self) {
        if self.in_ring == 0 {
            // Nothing within the ring's second: jump to the bucket of `far`'s earliest event.
            let t = self.far.peek_time().expect("refill with events pending");
            self.cur = Self::bucket(t);
            self.pull_far();
        }
        let slot = self.next_occupied().expect("the ring holds an event");
        let start = (self.cur % BUCKETS as u64) as usize;
        let ahead = (slot + BUCKETS - start) % BUCKETS;
        let b = self.cur + ahead as u64;
        let mut events = std::mem::take(&mut self.ring[slot]);
        self.occupied[slot / 64] &= !(1 << (slot % 64));
        self.in_ring -= events.len();
        for (at, key, event) in events.drain(..) {
            self.near.push(at, key, event);
        }
        // Keep the bucket's allocation for its next turn.
        self.ring[slot] = events;
        self.cur = b + 1;
        self.pull_far();
    }

    /// Move `far`'s events that the ring now spans into it.
    fn pull_far(&mut self) {
        let end = self.cur + BUCKETS as u64;
        while let Some(t) = self.far.peek_time() {
            let b = Self::bucket(t);
            if b >= end {
                break;
            }
            let (at, key, event) = self.far.pop().expect("peeked");
            if b < self.cur {
                self.near.push(at, key, event);
            } else {
                self.put_in_ring(b, at, key, event);
            }
        }
    }

    #[inline]
    fn settle(&mut self) {
        if self.near.is_empty() && (self.in_ring > 0 || !self.far.is_empty()) {
            self.refill();
        }
    }

    #[inline(never)]
    fn push_bucketed(&mut self, at: Time, seq: u64, event: E) {
        self.place(at, seq, event);
        self.settle();
    }

    #[inline(never)]
    fn after_bucketed_pop(&mut self) {
        if self.len() < JOIN_AT {
            self.join();
        } else {
            self.settle();
        }
    }

    /// From one heap to buckets: `near` keeps the earliest event's bucket.
    #[cold]
    fn split(&mut self) {
        if self.ring.is_empty() {
            self.ring = (0..BUCKETS).map(|_| Vec::new()).collect();
        }
        let first = self.near.peek_time().expect("split a full heap");
        self.cur = Self::bucket(first) + 1;
        let all: Vec<_> = self.near.take_all().collect();
        for (at, key, event) in all {
            self.place(at, key, event);
        }
    }

    /// From buckets back to one heap.
    #[cold]
    fn join(&mut self) {
        for slot in 0..BUCKETS {
            if self.occupied[slot / 64] & (1 << (slot % 64)) != 0 {
                for (at, key, event) in self.ring[slot].drain(..) {
                    self.near.push(at, key, event);
                }
            }
        }
        self.occupied = [0; WORDS];
        self.in_ring = 0;
        for (at, key, event) in self.far.take_all() {
            self.near.push(at, key, event);
        }
        self.cur = ONE_HEAP;
    }

    #[inline]
    fn place(&mut self, at: Time, key: u64, event: E) {
        let b = Self::bucket(at);
        if b < self.cur {
            self.near.push(at, key, event);
        } else if b < self.cur + BUCKETS as u64 {
            self.put_in_ring(b, at, key, event);
        } else {
            self.far.push(at, key, event);
        }
    }
}

impl<E> EventQueue<E> for TieredQueue<E> {
    // Hot path: in its one-heap form the queue must cost what the heap alone costs, so push
    // and pop inline into the run loop and the bucket form stays out of line.
    #[inline]
    fn push(&mut self, at: Time, seq: u64, event: E) {
        if self.cur == ONE_HEAP {
            self.near.push(at, seq, event);
            if self.near.len() >= SPLIT_AT {
                self.split();
            }
        } else {
            self.push_bucketed(at, seq, event);
        }
    }

    #[inline(always)]
    fn pop(&mut self) -> Option<(Time, u64, E)> {
        let e = self.near.pop()?;
        if self.cur != ONE_HEAP {
            self.after_bucketed_pop();
        }
        Some(e)
    }

    #[inline]
    fn peek_time(&self) -> Option<Time> {
        self.near.peek_time()
    }

    fn len(&self) -> usize {
        self.near.len() + self.in_ring + self.far.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tiny deterministic generator (xorshift), so the test needs no RNG crate.
    struct X(u64);
    impl X {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    /// Pushes and pops in random mixes, delays from nanoseconds to minutes, many ties: the
    /// tiered queue pops exactly what one heap pops, event for event.
    #[test]
    fn pops_in_the_order_of_one_heap() {
        for seed in 1..=20u64 {
            let mut x = X(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            let (mut heap, mut tiered) = (HeapQueue::new(), TieredQueue::new());
            let mut now = 0u64;
            let mut seq = 0u64;
            for _ in 0..20_000 {
                let r = x.next();
                if !r.is_multiple_of(3) || heap.is_empty() {
                    let delay = match r >> 60 {
                        0..=5 => x.next() % 2_000,           // serialisations
                        6..=9 => x.next() % 50_000_000,      // propagation
                        10..=12 => x.next() % 1_500_000_000, // RTOs, about the ring's span
                        13 => x.next() % 600_000_000_000,    // far timers
                        _ => 0,                              // same instant
                    };
                    let at = Time::from_nanos(now + delay);
                    // Keys unique, as the scheduler's are, but not in time order (shuffled ties).
                    let key = x.next() ^ seq;
                    seq += 1;
                    heap.push(at, key, seq);
                    tiered.push(at, key, seq);
                } else {
                    let a = heap.pop();
                    let b = tiered.pop();
                    assert_eq!(a, b, "seed {seed}");
                    now = a.expect("not empty").0.as_nanos();
                }
                assert_eq!(heap.len(), tiered.len());
                assert_eq!(heap.peek_time(), tiered.peek_time(), "seed {seed}");
            }
            while let Some(a) = heap.pop() {
                assert_eq!(Some(a), tiered.pop(), "seed {seed}");
            }
            assert!(tiered.pop().is_none() && tiered.is_empty());
        }
    }

    /// A population that grows past `SPLIT_AT` and falls below `JOIN_AT` again and again: the
    /// queue changes form each time and still pops what one heap pops.
    #[test]
    fn splits_and_joins_keep_the_order() {
        let mut x = X(7);
        let (mut heap, mut tiered) = (HeapQueue::new(), TieredQueue::new());
        let (mut now, mut seq) = (0u64, 0u64);
        let mut splits = 0;
        for round in 0..6 {
            for _ in 0..(SPLIT_AT + 500 * round) {
                let at = Time::from_nanos(now + x.next() % 3_000_000_000);
                seq += 1;
                heap.push(at, seq, seq);
                tiered.push(at, seq, seq);
            }
            splits += (tiered.cur != ONE_HEAP) as u32;
            while heap.len() > JOIN_AT / 2 {
                let a = heap.pop();
                assert_eq!(a, tiered.pop(), "round {round}");
                now = a.expect("not empty").0.as_nanos();
            }
            assert_eq!(tiered.cur, ONE_HEAP, "joined below JOIN_AT");
        }
        assert_eq!(splits, 6);
    }

    /// A queue that empties and refills far ahead (an idle run waking once a minute) jumps to
    /// the next event without stepping through empty buckets one by one.
    #[test]
    fn sparse_events_far_apart() {
        let mut q = TieredQueue::new();
        // Enough events days ahead to hold the queue in its bucket form.
        for i in 0..SPLIT_AT as u64 * 2 {
            q.push(Time::from_nanos(1 << 50), 10_000 + i, 0);
        }
        assert_ne!(q.cur, ONE_HEAP);
        for i in 0..100u64 {
            q.push(Time::from_nanos(i * 60_000_000_000), i, i);
        }
        for i in 0..100u64 {
            assert_eq!(q.pop(), Some((Time::from_nanos(i * 60_000_000_000), i, i)));
            // An event scheduled 1 ns after the one just popped comes next.
            q.push(Time::from_nanos(i * 60_000_000_000 + 1), 1000 + i, 1000 + i);
            assert_eq!(
                q.pop(),
                Some((Time::from_nanos(i * 60_000_000_000 + 1), 1000 + i, 1000 + i))
            );
        }
        for i in 0..SPLIT_AT as u64 * 2 {
            assert_eq!(q.pop(), Some((Time::from_nanos(1 << 50), 10_000 + i, 0)));
        }
        assert!(q.is_empty());
    }
}
