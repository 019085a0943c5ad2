//! The scheduler (clock + queue) and the guarded run loop.

use crate::queue::EventQueue;
use crate::radix::RadixQueue;
use rexmit_time::Time;
use std::fmt;

/// How events due at the same nanosecond are ordered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum TieOrder {
    /// In the order they were scheduled (ns-3's rule). With round-number delays, packets of
    /// different flows often reach a queue at the same instant; FIFO then always favours the
    /// one whose arrival was scheduled first (the one with the longer upstream delay).
    #[default]
    Fifo,
    /// In a pseudo-random order drawn from this seed (bijective in the sequence number, so
    /// still fully deterministic): no model wins every tie.
    Random(u64),
}

/// Keys of events scheduled with `schedule_first` stay below this; the others (under
/// `TieOrder::Random`) are at or above it, so ordered events come first at an instant.
const SHUFFLED: u64 = 1 << 63;
/// Under `TieOrder::Random`, observers' keys (`schedule_sample`) are at or above this, between
/// the `schedule_first` keys below it and the shuffled ones.
const SAMPLES: u64 = 1 << 62;

/// A bijection of u64 (the SplitMix64 finaliser), keyed by the seed.
#[inline]
fn shuffle(seq: u64, seed: u64) -> u64 {
    let mut z = seq ^ seed;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The simulated clock and the pending events. Models schedule through it; only the run loop
/// advances the clock.
pub struct Scheduler<E, Q: EventQueue<E> = RadixQueue<E>> {
    now: Time,
    next_seq: u64,
    /// Sequence numbers of observers' events under `TieOrder::Random` (`schedule_sample`).
    next_sample: u64,
    ties: TieOrder,
    queue: Q,
    processed: u64,
    _e: std::marker::PhantomData<E>,
}

impl<E> Default for Scheduler<E, RadixQueue<E>> {
    fn default() -> Self {
        Scheduler::with_queue(RadixQueue::new())
    }
}

impl<E> Scheduler<E, RadixQueue<E>> {
    pub fn new() -> Self {
        Self::default()
    }
}

impl<E, Q: EventQueue<E>> Scheduler<E, Q> {
    pub fn with_queue(queue: Q) -> Self {
        Scheduler {
            now: Time::ZERO,
            next_seq: 0,
            next_sample: 0,
            ties: TieOrder::Fifo,
            queue,
            processed: 0,
            _e: std::marker::PhantomData,
        }
    }

    /// Choose how same-instant events are ordered (before anything is scheduled).
    pub fn set_tie_order(&mut self, ties: TieOrder) {
        self.ties = ties;
    }

    /// The queue key of sequence number `seq`: itself, or its shuffled image above `SHUFFLED`.
    #[inline]
    fn key(&self, seq: u64) -> u64 {
        match self.ties {
            TieOrder::Fifo => seq,
            TieOrder::Random(seed) => shuffle(seq, seed) | SHUFFLED,
        }
    }

    #[inline]
    pub fn now(&self) -> Time {
        self.now
    }

    /// Schedule `event` at `at`. Scheduling in the past is a logic error in a model: events
    /// never go back in time.
    #[inline(always)]
    pub fn schedule(&mut self, at: Time, event: E) {
        assert!(
            at >= self.now,
            "event scheduled in the past: {at} < {}",
            self.now
        );
        let seq = self.next_seq;
        self.next_seq += 1;
        self.queue.push(at, self.key(seq), event);
    }

    /// Schedule `event` at `at` ahead of every `schedule`d event of that instant, in FIFO order
    /// among its kind whatever the tie order (starts, local deliveries).
    #[inline]
    pub fn schedule_first(&mut self, at: Time, event: E) {
        assert!(
            at >= self.now,
            "event scheduled in the past: {at} < {}",
            self.now
        );
        let seq = self.next_seq;
        self.next_seq += 1;
        self.queue.push(at, seq & !SHUFFLED & !SAMPLES, event);
    }

    /// Schedule an observer's event (a metric sample) so that it changes no other event's
    /// place: what is measured must not change what happens. Under FIFO ties it takes the next
    /// sequence number like any event (sequence numbers only order there, so the others keep
    /// their order); under random ties a shared counter would shift every later event's
    /// shuffled key, so observers count on their own and run after the `schedule_first`
    /// events of their instant (a start at a sample's instant is seen) and before the others.
    #[inline]
    pub fn schedule_sample(&mut self, at: Time, event: E) {
        assert!(
            at >= self.now,
            "event scheduled in the past: {at} < {}",
            self.now
        );
        match self.ties {
            TieOrder::Fifo => {
                let seq = self.next_seq;
                self.next_seq += 1;
                self.queue.push(at, seq, event);
            }
            TieOrder::Random(_) => {
                let seq = self.next_sample;
                self.next_sample += 1;
                self.queue.push(at, (seq & !SHUFFLED) | SAMPLES, event);
            }
        }
    }

    /// The sequence number an event scheduled now would get, kept for an event scheduled later
    /// with `schedule_reserved`. A link's delay line uses it: only its head packet has an event
    /// in the queue, yet every packet keeps the place among same-instant events it would have
    /// had if scheduled when it left the transmitter.
    #[inline]
    pub fn reserve_seq(&mut self) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        seq
    }

    /// Schedule with a sequence number from `reserve_seq` (each used once).
    #[inline(always)]
    pub fn schedule_reserved(&mut self, at: Time, seq: u64, event: E) {
        assert!(
            at >= self.now,
            "event scheduled in the past: {at} < {}",
            self.now
        );
        debug_assert!(
            seq < self.next_seq,
            "sequence number {seq} was never reserved"
        );
        self.queue.push(at, self.key(seq), event);
    }

    #[inline]
    pub fn schedule_in(&mut self, delay: rexmit_time::Duration, event: E) {
        self.schedule(self.now + delay, event);
    }

    pub fn pending(&self) -> usize {
        self.queue.len()
    }

    /// Events processed so far.
    pub fn processed(&self) -> u64 {
        self.processed
    }

    /// Move the clock forward to `t` without an event (the end of a paced run).
    pub(crate) fn set_now(&mut self, t: Time) {
        debug_assert!(t >= self.now);
        self.now = self.now.max(t);
    }

    pub fn peek_time(&self) -> Option<Time> {
        self.queue.peek_time()
    }

    /// Take the next event, advancing the clock to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, E)> {
        let (t, _, e) = self.queue.pop()?;
        debug_assert!(t >= self.now);
        self.now = t;
        self.processed += 1;
        Some((t, e))
    }

    /// Run events until `limits` says stop. `handle` processes one event and may schedule more.
    /// `progress` is called about every `limits.progress_every` of wall time; returning `false`
    /// from it interrupts the run (e.g. Ctrl-C in the Python front).
    pub fn run<H, P>(
        &mut self,
        limits: &RunLimits,
        mut handle: H,
        mut progress: P,
    ) -> Result<RunOutcome, RunError>
    where
        H: FnMut(&mut Self, Time, E),
        P: FnMut(Progress) -> bool,
    {
        let wall_start = std::time::Instant::now();
        let mut last_report = wall_start;
        let start_events = self.processed;
        // Wall clock is read only every CHECK_EVERY events, as a guard, never as model input.
        const CHECK_EVERY: u64 = 1 << 14;
        let mut until_check = CHECK_EVERY;
        loop {
            match self.queue.next_time() {
                None => return Ok(self.outcome(StopReason::QueueEmpty, wall_start, start_events)),
                Some(t) if t > limits.stop_time => {
                    self.now = limits.stop_time;
                    return Ok(self.outcome(StopReason::StopTime, wall_start, start_events));
                }
                Some(_) => {}
            }
            let (t, e) = self.pop().expect("peeked");
            handle(self, t, e);
            if let Some(max) = limits.max_events {
                if self.processed - start_events >= max {
                    return Err(RunError::EventLimit {
                        max_events: max,
                        at: self.now,
                    });
                }
            }
            until_check -= 1;
            if until_check == 0 {
                until_check = CHECK_EVERY;
                let wall = wall_start.elapsed();
                if let Some(max) = limits.max_wall {
                    if wall > max {
                        return Err(RunError::WallTimeLimit {
                            max_wall: max,
                            at: self.now,
                        });
                    }
                }
                if let Some(max) = limits.max_memory {
                    if let Some(used) = crate::memory::resident_bytes().filter(|u| *u > max) {
                        return Err(RunError::MemoryLimit {
                            max_memory: max,
                            used,
                            at: self.now,
                        });
                    }
                }
                let poked = POKED.swap(false, std::sync::atomic::Ordering::Relaxed);
                if poked || last_report.elapsed() >= limits.progress_every {
                    last_report = std::time::Instant::now();
                    let p = Progress {
                        now: self.now,
                        stop_time: limits.stop_time,
                        events: self.processed,
                        wall,
                    };
                    if !progress(p) {
                        return Err(RunError::Interrupted { at: self.now });
                    }
                }
            }
        }
    }

    fn outcome(
        &self,
        reason: StopReason,
        wall_start: std::time::Instant,
        start_events: u64,
    ) -> RunOutcome {
        RunOutcome {
            reason,
            end_time: self.now,
            events: self.processed - start_events,
            wall: wall_start.elapsed(),
        }
    }
}

/// When a run stops.
#[derive(Clone, Debug)]
pub struct RunLimits {
    pub stop_time: Time,
    /// Stop with an error after this many events (a runaway model).
    pub max_events: Option<u64>,
    /// Stop with an error after this much wall time.
    pub max_wall: Option<std::time::Duration>,
    /// Stop with an error once the process's resident memory exceeds this many bytes (checked
    /// with the wall clock; Linux only, elsewhere the guard is inert).
    pub max_memory: Option<u64>,
    /// How often (wall time) the progress callback is called.
    pub progress_every: std::time::Duration,
}

impl RunLimits {
    pub fn until(stop_time: Time) -> Self {
        RunLimits {
            stop_time,
            max_events: None,
            max_wall: None,
            max_memory: None,
            progress_every: std::time::Duration::from_millis(250),
        }
    }
}

static POKED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Ask the running loop to call its progress callback at its next guard check (within
/// 16 384 events) instead of waiting for `progress_every`: what code outside the loop calls
/// when the run must stop soon, e.g. a plugin that raised an exception (`rexmit-py`). A
/// process-wide flag, like a signal's: one run goes at a time in a process.
pub fn poke_progress() {
    POKED.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// A snapshot for progress bars.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub now: Time,
    pub stop_time: Time,
    pub events: u64,
    pub wall: std::time::Duration,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// The stop time was reached.
    StopTime,
    /// No events were left before the stop time.
    QueueEmpty,
}

#[derive(Clone, Debug)]
pub struct RunOutcome {
    pub reason: StopReason,
    pub end_time: Time,
    pub events: u64,
    pub wall: std::time::Duration,
}

/// A run that was stopped by a guard. The model's state at `at` is intact, so partial results
/// can still be collected (and marked partial).
#[derive(Clone, Debug, PartialEq)]
pub enum RunError {
    EventLimit {
        max_events: u64,
        at: Time,
    },
    WallTimeLimit {
        max_wall: std::time::Duration,
        at: Time,
    },
    MemoryLimit {
        max_memory: u64,
        used: u64,
        at: Time,
    },
    Interrupted {
        at: Time,
    },
}

impl RunError {
    pub fn at(&self) -> Time {
        match self {
            RunError::EventLimit { at, .. }
            | RunError::WallTimeLimit { at, .. }
            | RunError::MemoryLimit { at, .. }
            | RunError::Interrupted { at } => *at,
        }
    }
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::EventLimit { max_events, at } => write!(
                f,
                "run stopped at t = {:.6} s: more than {max_events} events (limits.max_events); raise it if the scenario really needs that many",
                at.as_secs_f64()
            ),
            RunError::WallTimeLimit { max_wall, at } => write!(
                f,
                "run stopped at t = {:.6} s: wall-time limit of {:.1} s exceeded (limits.max_wall_time)",
                at.as_secs_f64(),
                max_wall.as_secs_f64()
            ),
            RunError::MemoryLimit { max_memory, used, at } => write!(
                f,
                "run stopped at t = {:.6} s: resident memory {:.1} MiB exceeds limits.max_memory ({:.1} MiB; without it, 3/4 of this machine's memory)",
                at.as_secs_f64(),
                *used as f64 / (1 << 20) as f64,
                *max_memory as f64 / (1 << 20) as f64
            ),
            RunError::Interrupted { at } => write!(f, "run interrupted at t = {:.6} s", at.as_secs_f64()),
        }
    }
}

impl std::error::Error for RunError {}

#[cfg(test)]
mod tests {
    use super::*;
    use rexmit_time::Duration;

    #[test]
    fn reserved_sequence_number_keeps_its_place_among_same_instant_events() {
        let mut s: Scheduler<&str> = Scheduler::new();
        let early = s.reserve_seq();
        s.schedule(Time::from_millis(1), "scheduled second");
        // Scheduled last, but its number was reserved first: it runs first at that instant.
        s.schedule_reserved(Time::from_millis(1), early, "reserved first");
        s.schedule(Time::ZERO, "earlier instant");
        let order: Vec<&str> = std::iter::from_fn(|| s.pop().map(|(_, e)| e)).collect();
        assert_eq!(
            order,
            ["earlier instant", "reserved first", "scheduled second"]
        );
    }

    #[test]
    fn random_ties_shuffle_same_instant_events_deterministically_and_keep_time_order() {
        let order = |seed: u64| {
            let mut s: Scheduler<u32> = Scheduler::new();
            s.set_tie_order(TieOrder::Random(seed));
            s.schedule(Time::from_millis(2), 100);
            for i in 0..16 {
                s.schedule(Time::from_millis(1), i);
            }
            s.schedule_first(Time::from_millis(1), 50);
            s.schedule_first(Time::from_millis(1), 51);
            std::iter::from_fn(|| s.pop().map(|(_, e)| e)).collect::<Vec<u32>>()
        };
        let a = order(7);
        assert_eq!(a, order(7), "same seed, same order");
        assert_ne!(a, order(8), "another seed shuffles differently");
        // Ordered events first, FIFO; the later instant last.
        assert_eq!(&a[..2], &[50, 51]);
        assert_eq!(a[18], 100);
        let mut ties = a[2..18].to_vec();
        assert_ne!(
            ties,
            (0..16).collect::<Vec<_>>(),
            "16 ties left in FIFO order"
        );
        ties.sort();
        assert_eq!(ties, (0..16).collect::<Vec<_>>());
    }

    /// The order of the non-sample events when samples are scheduled between them.
    fn order_with_samples(ties: TieOrder, samples: bool) -> Vec<u32> {
        let mut s: Scheduler<u32> = Scheduler::new();
        s.set_tie_order(ties);
        for i in 0..32 {
            if samples && i % 3 == 0 {
                s.schedule_sample(Time::from_millis(1), 1000 + i);
            }
            s.schedule(Time::from_millis(1), i);
            if i % 8 == 0 {
                s.schedule_first(Time::from_millis(1), 500 + i);
            }
        }
        std::iter::from_fn(|| s.pop().map(|(_, e)| e)).collect()
    }

    #[test]
    fn samples_change_no_other_events_order_under_either_tie_rule() {
        for ties in [TieOrder::Fifo, TieOrder::Random(3)] {
            let with = order_with_samples(ties, true);
            let others: Vec<u32> = with.iter().copied().filter(|&e| e < 1000).collect();
            assert_eq!(others, order_with_samples(ties, false), "{ties:?}");
            assert_eq!(with.len(), others.len() + 11);
        }
        // Under random ties the samples come after the first-scheduled events of their
        // instant and before the others, in their own order.
        let with = order_with_samples(TieOrder::Random(3), true);
        assert_eq!(&with[..4], &[500, 508, 516, 524]);
        assert_eq!(
            &with[4..15],
            &(0..32).step_by(3).map(|i| 1000 + i).collect::<Vec<_>>()[..]
        );
    }

    #[test]
    fn run_stops_at_stop_time_and_leaves_later_events() {
        let mut s: Scheduler<u32> = Scheduler::new();
        s.schedule(Time::ZERO, 0);
        let mut seen = Vec::new();
        let out = s
            .run(
                &RunLimits::until(Time::from_millis(35)),
                |s, t, e| {
                    seen.push((t, e));
                    s.schedule_in(Duration::from_millis(10), e + 1);
                },
                |_| true,
            )
            .unwrap();
        assert_eq!(out.reason, StopReason::StopTime);
        assert_eq!(seen.len(), 4); // 0, 10, 20, 30 ms
        assert_eq!(s.now(), Time::from_millis(35));
        assert_eq!(s.pending(), 1);
    }

    #[test]
    fn event_limit_stops_a_runaway_model_with_an_error() {
        let mut s: Scheduler<()> = Scheduler::new();
        s.schedule(Time::ZERO, ());
        let mut limits = RunLimits::until(Time::MAX);
        limits.max_events = Some(1000);
        let err = s
            .run(
                &limits,
                |s, _, _| s.schedule_in(Duration::ZERO, ()),
                |_| true,
            )
            .unwrap_err();
        assert!(matches!(
            err,
            RunError::EventLimit {
                max_events: 1000,
                ..
            }
        ));
        assert!(err.to_string().contains("max_events"));
    }

    #[test]
    fn wall_time_limit_and_interruption() {
        let mut s: Scheduler<()> = Scheduler::new();
        s.schedule(Time::ZERO, ());
        let mut limits = RunLimits::until(Time::MAX);
        limits.max_wall = Some(std::time::Duration::from_millis(20));
        let err = s
            .run(
                &limits,
                |s, _, _| s.schedule_in(Duration::from_nanos(1), ()),
                |_| true,
            )
            .unwrap_err();
        assert!(matches!(err, RunError::WallTimeLimit { .. }));

        let mut limits = RunLimits::until(Time::MAX);
        limits.progress_every = std::time::Duration::ZERO;
        let err = s
            .run(
                &limits,
                |s, _, _| s.schedule_in(Duration::from_nanos(1), ()),
                |_| false,
            )
            .unwrap_err();
        assert!(matches!(err, RunError::Interrupted { .. }));
    }

    #[test]
    fn memory_limit_stops_a_model_that_grows_without_bound() {
        if crate::memory::resident_bytes().is_none() {
            return; // no /proc: the guard is documented as inert here
        }
        let mut s: Scheduler<Vec<u8>> = Scheduler::new();
        s.schedule(Time::ZERO, Vec::new());
        let mut limits = RunLimits::until(Time::MAX);
        limits.max_memory = Some(crate::memory::resident_bytes().unwrap() + (64 << 20));
        // Every event schedules two more, each holding 4 KiB: memory grows until the guard.
        let err = s
            .run(
                &limits,
                |s, _, _| {
                    s.schedule_in(Duration::from_nanos(1), vec![1; 4096]);
                    s.schedule_in(Duration::from_nanos(2), vec![1; 4096]);
                },
                |_| true,
            )
            .unwrap_err();
        let RunError::MemoryLimit {
            max_memory, used, ..
        } = err.clone()
        else {
            panic!("{err:?}")
        };
        assert!(used > max_memory);
        assert!(err.to_string().contains("limits.max_memory"));
    }

    #[test]
    #[should_panic(expected = "in the past")]
    fn scheduling_in_the_past_is_refused() {
        let mut s: Scheduler<()> = Scheduler::new();
        s.schedule(Time::from_millis(5), ());
        s.pop();
        s.schedule(Time::from_millis(1), ());
    }
}
