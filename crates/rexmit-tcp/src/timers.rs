//! Every deadline of a TCP connection in one table (the shape of quinn-proto's `TimerTable`):
//! the connection's `poll_timeout` is one minimum over it and `handle_timeout` one match over
//! the timers that expired. Owns: the deadlines. Does not own: what a timer means or when it is
//! armed (the handshake, `sender`, `receiver` and TIME-WAIT decide that).

use rexmit_time::Time;

/// The timers of a connection, in the order `handle_timeout` serves those due together.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Timer {
    /// SYN or SYN-ACK retransmission (RFC 6298 §5 applied to the handshake, RFC 9293 §3.8.1).
    Handshake,
    /// RFC 8985 §7.2 tail loss probe: served before the retransmission timer it replaces.
    TailLossProbe,
    /// RFC 6298 retransmission timer.
    Retransmit,
    /// RFC 9293 §3.8.6.1 persist timer (zero-window probe).
    Persist,
    /// The pacing clock released the next segment (controllers with a pacing rate).
    Pacing,
    /// RFC 8985 §6.3 RACK reordering timer.
    RackReorder,
    /// RFC 5681 §4.2 / RFC 9293 §3.8.6.3 delayed acknowledgement.
    DelayedAck,
    /// RFC 9293 §3.3.2 TIME-WAIT (2·MSL).
    TimeWait,
}

impl Timer {
    pub const ALL: [Timer; 8] = [
        Timer::Handshake,
        Timer::TailLossProbe,
        Timer::Retransmit,
        Timer::Persist,
        Timer::Pacing,
        Timer::RackReorder,
        Timer::DelayedAck,
        Timer::TimeWait,
    ];
}

/// One optional deadline per `Timer`: the deadlines with a bit per armed timer, 72 bytes
/// where eight `Option<Time>` took 128 (two cache lines of a connection instead of three;
/// issue 40 step 6). A stopped timer's old deadline stays in `at` and is never read.
#[derive(Clone, Copy, Default)]
pub struct TimerTable {
    armed: u8,
    at: [Time; 8],
}

impl TimerTable {
    pub fn set(&mut self, t: Timer, at: Time) {
        self.at[t as usize] = at;
        self.armed |= 1 << t as u8;
    }
    /// Set, or stop with `None`.
    pub fn put(&mut self, t: Timer, at: Option<Time>) {
        match at {
            Some(at) => self.set(t, at),
            None => self.stop(t),
        }
    }
    pub fn stop(&mut self, t: Timer) {
        self.armed &= !(1 << t as u8);
    }
    pub fn get(&self, t: Timer) -> Option<Time> {
        self.is_set(t).then(|| self.at[t as usize])
    }
    pub fn is_set(&self, t: Timer) -> bool {
        self.armed & (1 << t as u8) != 0
    }
    /// Armed and due by `now`.
    pub fn is_due(&self, t: Timer, now: Time) -> bool {
        self.get(t).is_some_and(|at| at <= now)
    }
    /// The earliest deadline of the timers `f` selects.
    pub fn next_of(&self, f: impl Fn(Timer) -> bool) -> Option<Time> {
        self.next_in(
            Timer::ALL
                .iter()
                .filter(|t| f(**t))
                .fold(0, |m, t| m | 1 << *t as u8),
        )
    }
    /// The earliest deadline of the timers whose bits `mask` sets (bit `t as u8` for timer
    /// `t`). Hot path: `Connection::poll_timeout` after every call into the core reads only
    /// the armed timers' deadlines (issue 40 step 7).
    #[inline]
    pub fn next_in(&self, mask: u8) -> Option<Time> {
        let mut bits = self.armed & mask;
        let mut earliest: Option<Time> = None;
        while bits != 0 {
            let at = self.at[bits.trailing_zeros() as usize];
            earliest = Some(earliest.map_or(at, |e| e.min(at)));
            bits &= bits - 1;
        }
        earliest
    }
    /// The earliest deadline.
    pub fn next(&self) -> Option<Time> {
        self.next_in(u8::MAX)
    }
}

/// Equal when the same timers are armed at the same deadlines (stale deadlines of stopped
/// timers do not count).
impl PartialEq for TimerTable {
    fn eq(&self, other: &Self) -> bool {
        Timer::ALL.iter().all(|t| self.get(*t) == other.get(*t))
    }
}

impl Eq for TimerTable {}

/// As the table of `Option`s it replaces: one entry per timer, `None` when stopped.
impl std::fmt::Debug for TimerTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(Timer::ALL.iter().map(|t| self.get(*t)))
            .finish()
    }
}

/// RFC 7323 §5.4: a timestamp clock of 1 ms.
pub(crate) fn ts_clock(now: Time) -> u32 {
    (now.as_nanos() / 1_000_000) as u32
}

/// Offsets of the fields the connection's layout test follows (`connection::hot_block`): the
/// armed mask and each timer's deadline.
#[cfg(test)]
pub(crate) fn field_offsets() -> Vec<(&'static str, usize)> {
    use std::mem::{offset_of, size_of};
    let at = offset_of!(TimerTable, at);
    let mut v = vec![("armed", offset_of!(TimerTable, armed))];
    for (name, t) in [
        ("at.tlp", Timer::TailLossProbe),
        ("at.retransmit", Timer::Retransmit),
        ("at.persist", Timer::Persist),
        ("at.pacing", Timer::Pacing),
        ("at.rack", Timer::RackReorder),
        ("at.delayed_ack", Timer::DelayedAck),
    ] {
        v.push((name, at + t as usize * size_of::<Time>()));
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_reports_the_earliest_deadline_and_which_are_due() {
        let mut t = TimerTable::default();
        assert_eq!(t.next(), None);
        t.set(Timer::Retransmit, Time::from_millis(300));
        t.set(Timer::DelayedAck, Time::from_millis(200));
        t.set(Timer::TimeWait, Time::from_millis(100));
        assert_eq!(t.next(), Some(Time::from_millis(100)));
        assert_eq!(
            t.next_of(|k| k != Timer::TimeWait),
            Some(Time::from_millis(200))
        );
        assert!(t.is_due(Timer::DelayedAck, Time::from_millis(200)));
        assert!(!t.is_due(Timer::Retransmit, Time::from_millis(200)));
        t.stop(Timer::TimeWait);
        t.put(Timer::DelayedAck, None);
        assert_eq!(t.next(), Some(Time::from_millis(300)));
        // A stopped timer's stale deadline is neither read nor compared.
        assert_eq!(t.get(Timer::TimeWait), None);
        assert!(!t.is_due(Timer::TimeWait, Time::from_millis(500)));
        let mut fresh = TimerTable::default();
        fresh.set(Timer::Retransmit, Time::from_millis(300));
        assert_eq!(t, fresh);
        assert_eq!(
            format!("{fresh:?}"),
            "[None, None, Some(Time(300000000)), None, None, None, None, None]"
        );
    }

    /// The mask walk answers what a minimum over every selected armed timer answers.
    #[test]
    fn the_earliest_deadline_of_a_mask_is_the_minimum_over_its_armed_timers() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..500 {
            let mut t = TimerTable::default();
            for k in Timer::ALL {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                if state & 1 == 1 {
                    t.set(k, Time::from_millis(state >> 60));
                }
            }
            for mask in 0..=u8::MAX {
                let min = Timer::ALL
                    .iter()
                    .filter(|k| mask & (1 << **k as u8) != 0)
                    .filter_map(|k| t.get(*k))
                    .min();
                assert_eq!(t.next_in(mask), min, "mask {mask:08b}");
            }
        }
    }
}
