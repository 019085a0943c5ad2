//! Event queues. Both order events by (time, sequence number): the sequence number is assigned
//! at scheduling, so events at the same instant run in the order they were scheduled.
//!
//! `HeapQueue` is a binary heap; `CalendarQueue` is Brown's calendar queue (1988) with bucket
//! width re-estimated on resize. `make bench` compares them (see crates/rexmit-bench).

use rexmit_time::Time;
use std::cmp::Ordering;

/// A priority queue of events keyed by time, FIFO among equal times.
pub trait EventQueue<E> {
    fn push(&mut self, at: Time, seq: u64, event: E);
    fn pop(&mut self) -> Option<(Time, u64, E)>;
    fn peek_time(&self) -> Option<Time>;
    /// The earliest event's time, asked by the run loop that takes it next (or stops): a
    /// queue may reorganise itself here, as in `pop`.
    #[inline(always)]
    fn next_time(&mut self) -> Option<Time> {
        self.peek_time()
    }
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

struct Entry<E> {
    key: (Time, u64),
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for Entry<E> {
    // Reversed: BinaryHeap is a max-heap and we want the earliest key on top.
    fn cmp(&self, o: &Self) -> Ordering {
        o.key.cmp(&self.key)
    }
}

/// Heap event queue: a 4-ary min-heap on the packed key `time << 64 | seq` (one 128-bit
/// comparison per step, half the levels of a binary heap).
pub struct HeapQueue<E> {
    heap: Vec<(u128, E)>,
}

impl<E> Default for HeapQueue<E> {
    fn default() -> Self {
        HeapQueue { heap: Vec::new() }
    }
}

impl<E> HeapQueue<E> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Every entry, in no particular order, leaving the queue empty.
    pub(crate) fn take_all(&mut self) -> impl Iterator<Item = (Time, u64, E)> {
        std::mem::take(&mut self.heap)
            .into_iter()
            .map(|(k, e)| (Time::from_nanos((k >> 64) as u64), k as u64, e))
    }
}

const ARITY: usize = 4;

#[inline]
fn pack(at: Time, seq: u64) -> u128 {
    (at.as_nanos() as u128) << 64 | seq as u128
}

impl<E> EventQueue<E> for HeapQueue<E> {
    #[inline]
    fn push(&mut self, at: Time, seq: u64, event: E) {
        let key = pack(at, seq);
        let h = &mut self.heap;
        let mut i = h.len();
        h.push((key, event));
        // Sift up by rotating the new entry into place.
        while i > 0 {
            let parent = (i - 1) / ARITY;
            if h[parent].0 <= key {
                break;
            }
            h.swap(i, parent);
            i = parent;
        }
    }
    #[inline(always)]
    fn pop(&mut self) -> Option<(Time, u64, E)> {
        let h = &mut self.heap;
        let last = h.pop()?;
        let top = if h.is_empty() {
            last
        } else {
            let top = std::mem::replace(&mut h[0], last);
            let key = h[0].0;
            let mut i = 0;
            // Sift down. Children are read as one slice (one bounds check per level), and a
            // full set of four compares without a loop: the pop is a third of a busy run's
            // instructions (issue 18 profile of a seed 004 HTTP run, 565 events pending).
            loop {
                let first = i * ARITY + 1;
                let Some(kids) = h.get(first..(first + ARITY).min(h.len())) else {
                    break;
                };
                if kids.is_empty() {
                    break;
                }
                let (mut min, mut mk) = (0, kids[0].0);
                if let [_, b, c, d] = kids {
                    if b.0 < mk {
                        (min, mk) = (1, b.0);
                    }
                    if c.0 < mk {
                        (min, mk) = (2, c.0);
                    }
                    if d.0 < mk {
                        (min, mk) = (3, d.0);
                    }
                } else {
                    for (j, k) in kids.iter().enumerate().skip(1) {
                        if k.0 < mk {
                            (min, mk) = (j, k.0);
                        }
                    }
                }
                if mk >= key {
                    break;
                }
                h.swap(i, first + min);
                i = first + min;
            }
            top
        };
        Some((Time::from_nanos((top.0 >> 64) as u64), top.0 as u64, top.1))
    }
    #[inline]
    fn peek_time(&self) -> Option<Time> {
        self.heap
            .first()
            .map(|e| Time::from_nanos((e.0 >> 64) as u64))
    }
    fn len(&self) -> usize {
        self.heap.len()
    }
}

/// Calendar queue (R. Brown, CACM 1988): buckets of one "day" width each, a "year" of
/// `buckets.len()` days; each bucket is kept sorted (descending, so the minimum pops from the
/// end). The number of buckets doubles/halves with the population and the day width is
/// re-estimated from the spacing of the events near the head of the queue.
pub struct CalendarQueue<E> {
    buckets: Vec<Vec<Entry<E>>>,
    width: u64,
    len: usize,
    /// Index of the bucket holding the current day and the start time of that day.
    cur: usize,
    cur_day_start: u64,
    /// Last popped key: nothing earlier may be pushed (events are never scheduled in the past).
    last: (Time, u64),
}

impl<E> Default for CalendarQueue<E> {
    fn default() -> Self {
        Self::with_params(2, 1_000)
    }
}

impl<E> CalendarQueue<E> {
    pub fn new() -> Self {
        Self::default()
    }

    fn with_params(nbuckets: usize, width: u64) -> Self {
        let mut buckets = Vec::with_capacity(nbuckets);
        buckets.resize_with(nbuckets, Vec::new);
        CalendarQueue {
            buckets,
            width: width.max(1),
            len: 0,
            cur: 0,
            cur_day_start: 0,
            last: (Time::ZERO, 0),
        }
    }

    #[inline]
    fn bucket_of(&self, t: u64) -> usize {
        ((t / self.width) % self.buckets.len() as u64) as usize
    }

    fn insert_entry(&mut self, e: Entry<E>) {
        let b = self.bucket_of(e.key.0.as_nanos());
        let bucket = &mut self.buckets[b];
        // Descending order: find the first element whose key is smaller than ours.
        let pos = bucket.partition_point(|x| x.key > e.key);
        bucket.insert(pos, e);
    }

    fn resize(&mut self, nbuckets: usize) {
        let width = self.estimate_width();
        let old = std::mem::take(&mut self.buckets);
        self.buckets.resize_with(nbuckets, Vec::new);
        self.width = width;
        let t = self.last.0.as_nanos();
        self.cur = self.bucket_of(t);
        self.cur_day_start = t - t % self.width;
        for bucket in old {
            for e in bucket {
                self.insert_entry(e);
            }
        }
    }

    /// Average separation of (up to) the first 25 events, times 3 (Brown's heuristic).
    fn estimate_width(&self) -> u64 {
        let mut times: Vec<u64> = Vec::new();
        for b in &self.buckets {
            for e in b.iter().rev().take(25) {
                times.push(e.key.0.as_nanos());
            }
        }
        if times.len() < 2 {
            return self.width;
        }
        times.sort_unstable();
        times.truncate(25);
        let span = times[times.len() - 1] - times[0];
        let avg = span / (times.len() as u64 - 1);
        (3 * avg).max(1)
    }

    fn pop_min(&mut self) -> Option<Entry<E>> {
        if self.len == 0 {
            return None;
        }
        let n = self.buckets.len();
        // Scan one year of days starting at the current one.
        for _ in 0..n {
            let day_end = self.cur_day_start + self.width;
            if let Some(last) = self.buckets[self.cur].last() {
                if last.key.0.as_nanos() < day_end {
                    return self.buckets[self.cur].pop();
                }
            }
            self.cur = (self.cur + 1) % n;
            self.cur_day_start = day_end;
        }
        // Nothing within a year: jump straight to the earliest event (direct search).
        let (bi, _) = self
            .buckets
            .iter()
            .enumerate()
            .filter_map(|(i, b)| b.last().map(|e| (i, e.key)))
            .min_by_key(|&(_, k)| k)?;
        let t = self.buckets[bi].last().map(|e| e.key.0.as_nanos())?;
        self.cur = bi;
        self.cur_day_start = t - t % self.width;
        self.buckets[bi].pop()
    }
}

impl<E> EventQueue<E> for CalendarQueue<E> {
    fn push(&mut self, at: Time, seq: u64, event: E) {
        debug_assert!(
            (at, seq) >= self.last,
            "event scheduled before the last popped event"
        );
        self.insert_entry(Entry {
            key: (at, seq),
            event,
        });
        self.len += 1;
        if self.len > 2 * self.buckets.len() {
            self.resize(self.buckets.len() * 2);
        }
    }

    fn pop(&mut self) -> Option<(Time, u64, E)> {
        let e = self.pop_min()?;
        self.len -= 1;
        self.last = e.key;
        if self.buckets.len() > 2 && self.len < self.buckets.len() / 2 {
            self.resize(self.buckets.len() / 2);
        }
        Some((e.key.0, e.key.1, e.event))
    }

    fn peek_time(&self) -> Option<Time> {
        // Peeking is rare (once per run-loop stop check); a full scan keeps it simple and exact.
        self.buckets
            .iter()
            .filter_map(|b| b.last().map(|e| e.key))
            .min()
            .map(|k| k.0)
    }

    fn len(&self) -> usize {
        self.len
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn drain<Q: EventQueue<u32>>(q: &mut Q) -> Vec<(Time, u64, u32)> {
        let mut out = Vec::new();
        while let Some(x) = q.pop() {
            out.push(x);
        }
        out
    }

    #[test]
    fn equal_times_pop_in_scheduling_order() {
        let mut q = HeapQueue::new();
        for (seq, v) in [(0u64, 10u32), (1, 11), (2, 12)] {
            q.push(Time::from_millis(5), seq, v);
        }
        q.push(Time::from_millis(1), 3, 99);
        let vals: Vec<u32> = drain(&mut q).into_iter().map(|x| x.2).collect();
        assert_eq!(vals, vec![99, 10, 11, 12]);
    }

    proptest! {
        // Both queues give exactly the order of a sort by (time, seq), for any interleaving of
        // pushes and pops that never schedules into the past.
        #[test]
        fn calendar_and_heap_agree_with_sorting(ops in proptest::collection::vec((0u64..5_000_000, any::<bool>()), 1..2000)) {
            let mut heap = HeapQueue::new();
            let mut cal = CalendarQueue::new();
            let mut now = 0u64;
            let mut seq = 0u64;
            let mut popped_h = Vec::new();
            let mut popped_c = Vec::new();
            for (dt, pop) in ops {
                if pop {
                    let a = heap.pop();
                    let b = cal.pop();
                    prop_assert_eq!(a.map(|x| (x.0, x.1)), b.map(|x| (x.0, x.1)));
                    if let Some((t, _, v)) = a { now = t.as_nanos(); popped_h.push(v); }
                    if let Some((_, _, v)) = b { popped_c.push(v); }
                } else {
                    let t = Time::from_nanos(now + dt);
                    heap.push(t, seq, seq as u32);
                    cal.push(t, seq, seq as u32);
                    seq += 1;
                }
                prop_assert_eq!(heap.peek_time(), cal.peek_time());
                prop_assert_eq!(heap.len(), cal.len());
            }
            let rest_h = drain(&mut heap);
            let rest_c = drain(&mut cal);
            prop_assert_eq!(&rest_h, &rest_c);
            let mut keys: Vec<_> = rest_h.iter().map(|x| (x.0, x.1)).collect();
            let sorted = { let mut k = keys.clone(); k.sort(); k };
            prop_assert_eq!(&keys, &sorted);
            keys.clear();
        }
    }
}
