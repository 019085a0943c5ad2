//! `RadixQueue`: the event queue of the simulator, a radix heap on the events' times (the
//! monotone priority queue of Ahuja, Mehlhorn, Orlin and Tarjan, "Faster algorithms for the
//! shortest path problem", JACM 37(2), 1990), here with one digit of `W` bits per level, as in
//! the multi-level buckets of Cherkassky, Goldberg and Silverstein ("Buckets, heaps, lists, and
//! monotone priority queues", SIAM J. Comput. 28(4), 1999). It needs what the simulator
//! guarantees: nothing is scheduled before the last event taken.
//!
//! Every waiting event is in one bucket chosen by its time `t` against `last`, the time of the
//! last minimum taken: the events at `last` itself wait in `now`, a small heap ordered by their
//! keys; any other event waits, unsorted, in bucket (level, digit), where level is the highest
//! `W`-bit digit in which `t` differs from `last` and digit is `t`'s value there. A lower level
//! holds only earlier events, and within a level a lower digit, so the lowest non-empty bucket
//! holds the earliest events. When `now` runs empty that bucket's earliest time becomes `last`
//! and its events move down: each one to a lower level or into `now`, so an event moves at most
//! `LEVELS` times; an event alone in the lowest bucket is taken from it directly. No event is
//! compared with another except the ones sharing the lowest bucket, and ties of one instant in
//! `now`.
//!
//! The order is the (time, key) order of one heap exactly, by construction: every key is unique
//! (the scheduler's sequence numbers, or their shuffled images under random ties), so any
//! correct priority queue on these keys takes the events in the same sequence. Only where an
//! event waits changes.
//!
//! Why (issue 40, tenth session, docs/validation_speed_issue40_sessions9to11.md): the tiered queue
//! before it (a 4-ary heap of the next 524 µs, a ring of 2 048 buckets for the next second, a heap
//! beyond) spent 166 instructions per event sifting its small heap in a seed 000 CMT run, where
//! three in four events land less than one of its buckets ahead; this queue takes 13% fewer
//! instructions for that whole run, 5% fewer for a seed 004 HTTP run and 1% fewer per one-flow hop
//! (which, though, now meets 1.4 L1 read misses per hop where it met none: the buckets' allocations
//! and their 2 048 headers are more lines than the one small heap it used).

use crate::queue::{EventQueue, HeapQueue};
use rexmit_time::Time;

/// Bits of the time per digit: eight levels of 256 buckets. Measured on recorded operation
/// sequences of the runs above: 1 bit (the textbook radix heap) moved each event 2.3 times and
/// cost as much as the tiered queue; 4 bits 12% more than 8.
const W: u32 = 8;
const LEVELS: usize = 64usize.div_ceil(W as usize);
const DIGITS: usize = 1 << W;
const NB: usize = LEVELS * DIGITS;
const WORDS: usize = NB.div_ceil(64);
const _: () = assert!(WORDS <= 64, "one summary word");

type Bucket<E> = Vec<(u64, u64, E)>;

pub struct RadixQueue<E> {
    /// The events at time `last`, in key order.
    now: HeapQueue<E>,
    /// Bucket `level * DIGITS + digit` (above), each unsorted.
    buckets: Box<[Bucket<E>; NB]>,
    /// Bit i: bucket i holds an event.
    occupied: [u64; WORDS],
    /// Bit w: `occupied[w]` is not zero.
    summary: u64,
    /// Events in the buckets.
    in_buckets: usize,
    /// The time of the last minimum taken; every event waiting is at or after it.
    last: u64,
}

impl<E> Default for RadixQueue<E> {
    fn default() -> Self {
        let buckets: Box<[Bucket<E>]> = (0..NB).map(|_| Vec::new()).collect();
        RadixQueue {
            now: HeapQueue::new(),
            buckets: buckets.try_into().ok().expect("NB buckets"),
            occupied: [0; WORDS],
            summary: 0,
            in_buckets: 0,
            last: 0,
        }
    }
}

impl<E> RadixQueue<E> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Put an event after `last` in its bucket.
    #[inline(always)]
    fn file(&mut self, t: u64, key: u64, event: E) {
        let level = (63 - (t ^ self.last).leading_zeros()) / W;
        let i = level as usize * DIGITS + ((t >> (level * W)) as usize & (DIGITS - 1));
        self.buckets[i].push((t, key, event));
        self.occupied[i / 64] |= 1 << (i % 64);
        self.summary |= 1 << (i / 64);
        self.in_buckets += 1;
    }

    /// Bucket `i` has just been emptied.
    #[inline(always)]
    fn vacate(&mut self, i: usize) {
        self.occupied[i / 64] &= !(1 << (i % 64));
        if self.occupied[i / 64] == 0 {
            self.summary &= !(1 << (i / 64));
        }
    }

    /// The lowest non-empty bucket.
    #[inline(always)]
    fn lowest(&self) -> Option<usize> {
        if self.summary == 0 {
            return None;
        }
        let w = self.summary.trailing_zeros() as usize;
        Some(w * 64 + self.occupied[w].trailing_zeros() as usize)
    }

    /// Move the lowest non-empty bucket, `i`, down (`now` is empty): its earliest time becomes
    /// `last`. Its events agree with that time in every digit from the bucket's level up, so
    /// each goes to a lower level or into `now`; the other buckets' events differ from it
    /// first where they differed from the old `last`, so they stay where they are.
    #[inline(never)]
    fn settle(&mut self, i: usize) {
        let mut events = std::mem::take(&mut self.buckets[i]);
        self.vacate(i);
        self.in_buckets -= events.len();
        let min = events
            .iter()
            .map(|e| e.0)
            .min()
            .expect("an occupied bucket");
        self.last = min;
        for (t, key, event) in events.drain(..) {
            if t == min {
                self.now.push(Time::from_nanos(t), key, event);
            } else {
                self.file(t, key, event);
            }
        }
        // Keep the bucket's allocation for its next turn.
        self.buckets[i] = events;
    }

    /// An event before `last`: possible only when a run stopped at a time it had peeked at and
    /// did not reach, and something was then scheduled before that time. Every event is placed
    /// again against the new earliest time.
    #[cold]
    fn rebase(&mut self, t: u64) {
        let mut all: Bucket<E> = Vec::with_capacity(self.len());
        all.extend(self.now.take_all().map(|(at, k, e)| (at.as_nanos(), k, e)));
        for b in self.buckets.iter_mut() {
            all.append(b);
        }
        self.occupied = [0; WORDS];
        self.summary = 0;
        self.in_buckets = 0;
        self.last = t;
        for (t, key, event) in all {
            self.place(t, key, event);
        }
    }

    #[inline(always)]
    fn place(&mut self, t: u64, key: u64, event: E) {
        if t > self.last {
            self.file(t, key, event);
        } else if t == self.last {
            self.now.push(Time::from_nanos(t), key, event);
        } else {
            self.rebase(t);
            self.now.push(Time::from_nanos(t), key, event);
        }
    }
}

impl<E> EventQueue<E> for RadixQueue<E> {
    #[inline(always)]
    fn push(&mut self, at: Time, key: u64, event: E) {
        self.place(at.as_nanos(), key, event);
    }

    #[inline(always)]
    fn pop(&mut self) -> Option<(Time, u64, E)> {
        if self.now.is_empty() {
            let i = self.lowest()?;
            if self.buckets[i].len() == 1 {
                // Alone in the lowest bucket, it is the earliest event; the other buckets stay
                // right with its time as `last`, as in `settle`.
                let (t, key, event) = self.buckets[i].pop().expect("one event");
                self.vacate(i);
                self.in_buckets -= 1;
                self.last = t;
                return Some((Time::from_nanos(t), key, event));
            }
            self.settle(i);
        }
        self.now.pop()
    }

    fn peek_time(&self) -> Option<Time> {
        if !self.now.is_empty() {
            return Some(Time::from_nanos(self.last));
        }
        self.buckets[self.lowest()?]
            .iter()
            .map(|e| e.0)
            .min()
            .map(Time::from_nanos)
    }

    /// As `peek_time`, but a lowest bucket of several events is moved down now, for the `pop`
    /// that follows (its minimum is found once).
    #[inline(always)]
    fn next_time(&mut self) -> Option<Time> {
        if self.now.is_empty() {
            let i = self.lowest()?;
            if let [(t, _, _)] = self.buckets[i][..] {
                return Some(Time::from_nanos(t));
            }
            self.settle(i);
        }
        Some(Time::from_nanos(self.last))
    }

    fn len(&self) -> usize {
        self.now.len() + self.in_buckets
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

    /// Pushes and pops in random mixes, delays from nanoseconds to minutes, many events of one
    /// instant with shuffled keys, and peeks both ways (`next_time`, as the run loop asks, and
    /// `peek_time`) between them: the radix queue pops exactly what one heap pops.
    #[test]
    fn pops_in_the_order_of_one_heap() {
        for seed in 1..=40u64 {
            let mut x = X(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            let (mut heap, mut radix) = (HeapQueue::new(), RadixQueue::new());
            let mut now = 0u64;
            let mut seq = 0u64;
            for _ in 0..20_000 {
                let r = x.next();
                if !r.is_multiple_of(3) || heap.is_empty() {
                    let delay = match r >> 60 {
                        0..=4 => x.next() % 2_000,          // serialisations
                        5..=8 => x.next() % 50_000_000,     // propagation
                        9..=11 => x.next() % 1_500_000_000, // RTOs
                        12 => x.next() % 600_000_000_000,   // far timers
                        13 => x.next() % 4,                 // near ties
                        _ => 0,                             // same instant
                    };
                    let at = Time::from_nanos(now + delay);
                    // Keys unique, as the scheduler's are, but not in time order (shuffled ties).
                    let key = x.next() ^ seq;
                    seq += 1;
                    heap.push(at, key, seq);
                    radix.push(at, key, seq);
                } else {
                    if r & 8 == 0 {
                        assert_eq!(heap.peek_time(), radix.next_time(), "seed {seed}");
                    }
                    let a = heap.pop();
                    let b = radix.pop();
                    assert_eq!(a, b, "seed {seed}");
                    now = a.expect("not empty").0.as_nanos();
                }
                assert_eq!(heap.len(), radix.len());
                assert_eq!(heap.peek_time(), radix.peek_time(), "seed {seed}");
            }
            while let Some(a) = heap.pop() {
                assert_eq!(Some(a), radix.pop(), "seed {seed}");
            }
            assert!(radix.pop().is_none() && radix.is_empty() && radix.next_time().is_none());
        }
    }

    /// A run stopped at the stop time after peeking at a later event (`next_time` moved `last`
    /// there), then given events between the two times (the next run's set-up): they come
    /// first, in order.
    #[test]
    fn events_before_a_peeked_time_after_a_stop() {
        let mut x = X(11);
        let (mut heap, mut radix) = (HeapQueue::new(), RadixQueue::new());
        let mut seq = 0u64;
        for round in 0..50u64 {
            for _ in 0..(x.next() % 40) {
                let at = Time::from_nanos(round * 1_000_000 + x.next() % 3_000_000);
                seq += 1;
                let key = x.next() ^ seq;
                heap.push(at, key, seq);
                radix.push(at, key, seq);
            }
            // Run to this round's stop time, then peek past it, as the run loop does.
            let stop = (round + 1) * 1_000_000;
            while radix.next_time().is_some_and(|t| t.as_nanos() < stop) {
                assert_eq!(heap.pop(), radix.pop());
            }
            assert_eq!(heap.peek_time(), radix.next_time());
        }
        while let Some(a) = heap.pop() {
            assert_eq!(Some(a), radix.pop());
        }
    }

    /// A queue that empties and refills far ahead (an idle run waking once a minute) jumps to
    /// the next event.
    #[test]
    fn sparse_events_far_apart() {
        let mut q = RadixQueue::new();
        for i in 0..512u64 {
            q.push(Time::from_nanos(1 << 50), 10_000 + i, 0);
        }
        for i in 0..100u64 {
            q.push(Time::from_nanos(i * 60_000_000_000), i, i);
        }
        for i in 0..100u64 {
            assert_eq!(q.pop(), Some((Time::from_nanos(i * 60_000_000_000), i, i)));
            // An event scheduled 1 ns after the one just popped comes next.
            q.push(Time::from_nanos(i * 60_000_000_000 + 1), 1000 + i, 1000 + i);
            assert_eq!(
                q.next_time(),
                Some(Time::from_nanos(i * 60_000_000_000 + 1))
            );
            assert_eq!(
                q.pop(),
                Some((Time::from_nanos(i * 60_000_000_000 + 1), 1000 + i, 1000 + i))
            );
        }
        for i in 0..512u64 {
            assert_eq!(q.pop(), Some((Time::from_nanos(1 << 50), 10_000 + i, 0)));
        }
        assert!(q.is_empty());
        // The largest times: the top level's buckets.
        q.push(Time::from_nanos(u64::MAX), 1, 1);
        q.push(Time::from_nanos(u64::MAX - 1), 2, 2);
        assert_eq!(q.pop(), Some((Time::from_nanos(u64::MAX - 1), 2, 2)));
        assert_eq!(q.pop(), Some((Time::from_nanos(u64::MAX), 1, 1)));
    }
}
