//! Every deadline of an association in one table (the shape of quinn-proto's `TimerTable`):
//! `Association::poll_timeout` is one minimum over it and `handle_timeout` serves the timers
//! that expired in one fixed order. Owns: the deadlines. Does not own: when a timer is armed or
//! what its expiry does (control, sender, receiver, RACK and thin-stream glue decide that).

use rexmit_time::Time;

/// The timers of an association; the per-path ones carry the path index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timer {
    /// T1-init / T1-cookie (RFC 9260 §5.1).
    T1,
    /// T2-shutdown (RFC 9260 §9.2).
    T2,
    /// The delayed SACK (RFC 9260 §6.2).
    DelayedSack,
    /// RACK's reordering timer (seed 002; RFC 8985 §6.3).
    RackReorder,
    /// RACK's tail-loss probe (seed 002; RFC 8985 §7.2).
    Pto,
    /// T3-rtx of a path (RFC 9260 §6.3.2).
    T3Rtx(usize),
    /// FreeBSD early fast retransmit of a path (seed 004 §2).
    EarlyFastRtx(usize),
    /// When the next HEARTBEAT goes to a path (RFC 9260 §8.3).
    Heartbeat(usize),
    /// When an outstanding HEARTBEAT counts as unanswered (RFC 9260 §8.3).
    HeartbeatAck(usize),
}

const ASSOC: usize = 5;
const PER_PATH: usize = 4;

/// One optional deadline per timer.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TimerTable {
    assoc: [Option<Time>; ASSOC],
    paths: Vec<[Option<Time>; PER_PATH]>,
}

impl TimerTable {
    /// Room for `n` paths' timers, all stopped.
    pub fn set_paths(&mut self, n: usize) {
        self.paths = vec![[None; PER_PATH]; n];
    }

    pub fn slot_mut(&mut self, t: Timer) -> &mut Option<Time> {
        match t {
            Timer::T1 => &mut self.assoc[0],
            Timer::T2 => &mut self.assoc[1],
            Timer::DelayedSack => &mut self.assoc[2],
            Timer::RackReorder => &mut self.assoc[3],
            Timer::Pto => &mut self.assoc[4],
            Timer::T3Rtx(p) => &mut self.paths[p][0],
            Timer::EarlyFastRtx(p) => &mut self.paths[p][1],
            Timer::Heartbeat(p) => &mut self.paths[p][2],
            Timer::HeartbeatAck(p) => &mut self.paths[p][3],
        }
    }

    pub fn get(&self, t: Timer) -> Option<Time> {
        match t {
            Timer::T1 => self.assoc[0],
            Timer::T2 => self.assoc[1],
            Timer::DelayedSack => self.assoc[2],
            Timer::RackReorder => self.assoc[3],
            Timer::Pto => self.assoc[4],
            Timer::T3Rtx(p) => self.paths.get(p).and_then(|s| s[0]),
            Timer::EarlyFastRtx(p) => self.paths.get(p).and_then(|s| s[1]),
            Timer::Heartbeat(p) => self.paths.get(p).and_then(|s| s[2]),
            Timer::HeartbeatAck(p) => self.paths.get(p).and_then(|s| s[3]),
        }
    }

    pub fn set(&mut self, t: Timer, at: Time) {
        *self.slot_mut(t) = Some(at);
    }
    /// Set, or stop with `None`.
    pub fn put(&mut self, t: Timer, at: Option<Time>) {
        *self.slot_mut(t) = at;
    }
    pub fn stop(&mut self, t: Timer) {
        *self.slot_mut(t) = None;
    }
    pub fn is_set(&self, t: Timer) -> bool {
        self.get(t).is_some()
    }
    /// Armed and due by `now`.
    pub fn is_due(&self, t: Timer, now: Time) -> bool {
        self.get(t).is_some_and(|at| at <= now)
    }

    /// Every timer with its deadline (paths after the association's).
    pub fn all(&self) -> impl Iterator<Item = (Timer, Option<Time>)> + '_ {
        let assoc = [
            Timer::T1,
            Timer::T2,
            Timer::DelayedSack,
            Timer::RackReorder,
            Timer::Pto,
        ]
        .into_iter();
        let paths = (0..self.paths.len()).flat_map(|p| {
            [
                Timer::T3Rtx(p),
                Timer::EarlyFastRtx(p),
                Timer::Heartbeat(p),
                Timer::HeartbeatAck(p),
            ]
        });
        assoc.chain(paths).map(|t| (t, self.get(t)))
    }

    /// The earliest deadline, leaving out the delayed SACK unless `sack` and the heartbeat
    /// timers unless `heartbeats`: `next_of` with that selection, as a plain scan over the
    /// slots (the association asks for it after every input: hot path).
    pub fn next_deadline(&self, sack: bool, heartbeats: bool) -> Option<Time> {
        let a = &self.assoc;
        let mut next = min_opt(min_opt(a[0], a[1]), min_opt(a[3], a[4]));
        if sack {
            next = min_opt(next, a[2]);
        }
        for s in &self.paths {
            next = min_opt(next, min_opt(s[0], s[1]));
            if heartbeats {
                next = min_opt(next, min_opt(s[2], s[3]));
            }
        }
        next
    }

    /// The earliest deadline of the timers `f` selects (the reference `next_deadline` is
    /// checked against).
    #[cfg(test)]
    pub fn next_of(&self, f: impl Fn(Timer) -> bool) -> Option<Time> {
        self.all()
            .filter(|(t, _)| f(*t))
            .filter_map(|(_, at)| at)
            .min()
    }
}

/// The earlier of two optional instants (`None`: stopped).
#[inline]
fn min_opt(a: Option<Time>, b: Option<Time>) -> Option<Time> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_deadline_is_next_of_with_its_selection() {
        // Every subset of armed timers over 1-3 paths, deadlines drawn from a small LCG.
        let mut x: u64 = 7;
        let mut draw = || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            x >> 33
        };
        for paths in 1..=3 {
            for _ in 0..2000 {
                let mut t = TimerTable::default();
                t.set_paths(paths);
                let all: Vec<Timer> = t.all().map(|(k, _)| k).collect();
                for k in all {
                    if draw() % 3 == 0 {
                        t.set(k, Time::from_millis(draw() % 1000));
                    }
                }
                for sack in [false, true] {
                    for hb in [false, true] {
                        let want = t.next_of(|k| match k {
                            Timer::Heartbeat(_) | Timer::HeartbeatAck(_) => hb,
                            Timer::DelayedSack => sack,
                            _ => true,
                        });
                        assert_eq!(t.next_deadline(sack, hb), want);
                    }
                }
            }
        }
    }

    #[test]
    fn one_minimum_over_the_selected_timers() {
        let mut t = TimerTable::default();
        t.set_paths(2);
        let ms = Time::from_millis;
        t.set(Timer::T3Rtx(1), ms(300));
        t.set(Timer::Heartbeat(0), ms(100));
        t.set(Timer::DelayedSack, ms(200));
        assert_eq!(t.next_of(|_| true), Some(ms(100)));
        assert_eq!(
            t.next_of(|x| !matches!(x, Timer::Heartbeat(_))),
            Some(ms(200))
        );
        assert!(t.is_due(Timer::T3Rtx(1), ms(300)) && !t.is_due(Timer::T3Rtx(1), ms(299)));
        assert_eq!(t.get(Timer::T3Rtx(7)), None, "no such path: stopped");
        t.stop(Timer::Heartbeat(0));
        t.stop(Timer::T3Rtx(1));
        t.stop(Timer::DelayedSack);
        assert_eq!(t.next_of(|_| true), None);
    }
}
