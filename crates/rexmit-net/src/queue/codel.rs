//! CoDel, Controlled Delay (RFC 8289): drops at dequeue when the sojourn time of the packets
//! leaving the queue has stayed above TARGET for at least INTERVAL, then at intervals that
//! shrink as INTERVAL/√count (the control law) until a packet leaves below TARGET.
//!
//! Owns: the per-queue state of RFC 8289 §5.2 and the dequeue routine of §5.5, over any FIFO
//! (the whole queue here, one flow's queue in FQ-CoDel). Does not own: the tail drop at the
//! queue's limit (the queue does that on enqueue) or the choice between dropping and marking's
//! counters (the caller counts what it gets back).

use super::{mark_ce, Fifo};
use crate::packet::Packet;
use rexmit_time::{Duration, Time};

/// CoDel's option table (`queue = { aqm = "codel", codel = { ... } }`, also nested in
/// FQ-CoDel's; crate `rexmit-options`).
#[macro_export]
macro_rules! codel_option_table {
    ($generator:path { $($head:tt)* }) => { $generator! { $($head)* ;
        public {
            /// TARGET, the acceptable standing queue delay (RFC 8289 §4.3: 5 ms).
            opt target: $crate::__Duration = $crate::__Duration::from_millis(5), unit = time,
                check = !target.is_zero() => "> 0", relation = "<= interval";
            /// INTERVAL, how long the sojourn time must stay above TARGET before the first drop,
            /// and the base of the control law INTERVAL/√count (RFC 8289 §4.2: 100 ms).
            opt interval: $crate::__Duration = $crate::__Duration::from_millis(100), unit = time,
                check = !interval.is_zero() && *interval <= $crate::__Duration::from_secs(3600)
                    => "(0, 1h]";
            /// The queue is never judged above TARGET while it holds at most this many bytes,
            /// one MTU (RFC 8289 §5.5, `bytes() <= maxpacket`).
            opt mtu: u32 = 1500, unit = bytes, check = *mtu >= 1 => ">= 1";
            /// The control law's 1/√count as Linux's and ns-3's CoDel compute it: a 16-bit
            /// fixed-point estimate moved by one Newton step (x ← x·(3 − count·x²)/2) at each
            /// change of count, reset to 1 when the dropping state starts afresh. Not exact:
            /// the second drop comes INTERVAL/2 after the first, not INTERVAL/√2. Off: RFC 8289
            /// §5.6's INTERVAL/√count.
            opt newton_inv_sqrt: bool = false, unit = flag;
        }
        internal {}
    } };
}

codel_option_table!(rexmit_options::config_table {
    /// CoDel's parameters.
    #[derive(Clone, Debug, PartialEq)]
    pub struct CodelConfig
});

impl rexmit_options::Relations for CodelConfig {
    fn check_relations(&self) -> Result<(), rexmit_options::ConfigError> {
        rexmit_options::require(
            self.target <= self.interval,
            "target",
            "<= interval",
            &self.target,
        )
    }
}

/// The per-queue state (RFC 8289 §5.2).
#[derive(Clone, Debug)]
pub(crate) struct Codel {
    cfg: CodelConfig,
    /// When the sojourn time will have been above TARGET for INTERVAL (`first_above_time`;
    /// `None`: below TARGET).
    first_above_time: Option<Time>,
    /// When the next drop is due in the dropping state.
    drop_next: Time,
    /// Drops since the dropping state was entered (`count`).
    count: u32,
    /// `count` when the dropping state was last entered (`lastcount`).
    lastcount: u32,
    dropping: bool,
    /// 1/√count in 16-bit fixed point (`newton_inv_sqrt`; 0xFFFF ≈ 1).
    rec_inv_sqrt: u16,
}

/// 1/√count's estimate at its reset (≈ 1).
const INV_SQRT_ONE: u16 = u16::MAX;

/// One Newton step of the 16-bit reciprocal square root for `count` (`newton_inv_sqrt`):
/// x ← x·(3 − count·x²)/2, in 32-bit fixed point with the wrap-around of the unsigned
/// arithmetic those implementations use.
fn newton_step(rec: u16, count: u32) -> u16 {
    let x = (rec as u64) << 16;
    let x2 = x.wrapping_mul(x) >> 32;
    let three_minus = (3u64 << 32).wrapping_sub((count as u64).wrapping_mul(x2));
    let next = ((three_minus >> 2).wrapping_mul(x)) >> 31;
    (next >> 16) as u16
}

/// What one dequeue did.
pub(crate) struct CodelOut {
    pub pkt: Option<Box<Packet>>,
    /// Packets dropped before `pkt`.
    pub dropped: u32,
    /// `pkt` was marked CE instead of being dropped.
    pub marked: bool,
}

impl Codel {
    pub fn new(cfg: CodelConfig) -> Self {
        Codel {
            cfg,
            first_above_time: None,
            drop_next: Time::ZERO,
            count: 0,
            lastcount: 0,
            dropping: false,
            rec_inv_sqrt: INV_SQRT_ONE,
        }
    }

    /// RFC 8289 §5.6 `control_law`: the next drop INTERVAL/√count after `t` (with
    /// `newton_inv_sqrt`, INTERVAL times the fixed-point estimate).
    fn control_law(&self, t: Time, count: u32) -> Time {
        let interval = self.cfg.interval.as_nanos();
        let gap = if self.cfg.newton_inv_sqrt {
            ((interval as u128 * self.rec_inv_sqrt as u128) >> 16) as u64
        } else {
            (interval as f64 / (count.max(1) as f64).sqrt()) as u64
        };
        t + Duration::from_nanos(gap)
    }

    /// `count` changed to `count` (the estimate follows it by one Newton step).
    fn counted(&mut self, count: u32) {
        self.count = count;
        if self.cfg.newton_inv_sqrt {
            self.rec_inv_sqrt = newton_step(self.rec_inv_sqrt, count);
        }
    }

    /// RFC 8289 §5.5 `dodequeue`: the head packet and whether the sojourn time has been above
    /// TARGET for INTERVAL (`ok_to_drop`).
    fn dodequeue(&mut self, now: Time, q: &mut Fifo<'_>) -> (Option<Box<Packet>>, bool) {
        let Some(p) = q.pop() else {
            // An empty queue cannot be above TARGET.
            self.first_above_time = None;
            return (None, false);
        };
        let sojourn = now.saturating_since(p.enqueued);
        if sojourn < self.cfg.target || q.bytes() <= self.cfg.mtu as u64 {
            // Went below: stay below for at least INTERVAL.
            self.first_above_time = None;
            return (Some(p), false);
        }
        match self.first_above_time {
            None => {
                self.first_above_time = Some(now + self.cfg.interval);
                (Some(p), false)
            }
            Some(t) => (Some(p), now >= t),
        }
    }

    /// RFC 8289 §5.5 `dequeue`. With `ecn`, an ECN-capable packet is marked CE where the
    /// pseudocode drops it, and leaves at once (RFC 3168 §5: the mark replaces the drop).
    pub fn dequeue(&mut self, now: Time, q: &mut Fifo<'_>, ecn: bool) -> CodelOut {
        let mut out = CodelOut {
            pkt: None,
            dropped: 0,
            marked: false,
        };
        let (mut p, ok_to_drop) = self.dodequeue(now, q);
        if self.dropping {
            if !ok_to_drop {
                // Sojourn time below TARGET: leave the dropping state.
                self.dropping = false;
            }
            // A large backlog can make the next drop due at once, hence the loop.
            while self.dropping && now >= self.drop_next {
                let Some(mut pkt) = p.take() else { break };
                self.counted(self.count + 1);
                if ecn && mark_ce(&mut pkt) {
                    self.drop_next = self.control_law(self.drop_next, self.count);
                    out.marked = true;
                    out.pkt = Some(pkt);
                    return out;
                }
                out.dropped += 1;
                let (next, ok) = self.dodequeue(now, q);
                p = next;
                if !ok {
                    self.dropping = false;
                } else {
                    self.drop_next = self.control_law(self.drop_next, self.count);
                }
            }
        } else if ok_to_drop {
            // Above TARGET for INTERVAL: drop (or mark) and enter the dropping state.
            let mut pkt = p.take().expect("ok_to_drop comes with a packet");
            if ecn && mark_ce(&mut pkt) {
                out.marked = true;
                p = Some(pkt);
            } else {
                out.dropped += 1;
                p = self.dodequeue(now, q).0;
            }
            self.dropping = true;
            // If the queue went above TARGET soon after it last went below, resume at the drop
            // rate that controlled it then (RFC 8289 §5.5; `now - drop_next` is signed: a
            // drop_next still in the future counts as recent).
            let delta = self.count.saturating_sub(self.lastcount);
            let since = now.as_nanos() as i128 - self.drop_next.as_nanos() as i128;
            if delta > 1 && since < 16 * self.cfg.interval.as_nanos() as i128 {
                self.counted(delta);
            } else {
                self.count = 1;
                self.rec_inv_sqrt = INV_SQRT_ONE;
            }
            self.drop_next = self.control_law(now, self.count);
            self.lastcount = self.count;
        }
        out.pkt = p;
        out
    }

    #[cfg(test)]
    pub fn state(&self) -> (bool, u32, Time) {
        (self.dropping, self.count, self.drop_next)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{pkt_at, udp};
    use super::*;
    use std::collections::VecDeque;

    /// A FIFO and its byte count, as the queue keeps them.
    struct Q {
        packets: VecDeque<Box<Packet>>,
        bytes: u64,
    }

    impl Q {
        fn new() -> Self {
            Q {
                packets: VecDeque::new(),
                bytes: 0,
            }
        }
        fn push(&mut self, p: Box<Packet>) {
            self.bytes += p.size as u64;
            self.packets.push_back(p);
        }
        fn fifo(&mut self) -> Fifo<'_> {
            Fifo {
                packets: &mut self.packets,
                bytes: &mut self.bytes,
            }
        }
    }

    fn ms(t: u64) -> Time {
        Time::from_millis(t)
    }

    /// A standing queue: `n` packets of 1000 bytes, all enqueued at 0.
    fn standing(n: usize) -> Q {
        let mut q = Q::new();
        for _ in 0..n {
            q.push(pkt_at(Time::ZERO, 1000));
        }
        q
    }

    #[test]
    fn first_drop_after_sojourn_above_target_for_an_interval() {
        // RFC 8289 §5.5: the first packet above TARGET sets first_above_time = now + INTERVAL;
        // nothing is dropped before then, the first packet dequeued at or after it is.
        let mut c = Codel::new(CodelConfig::default());
        let mut q = standing(500);
        let out = c.dequeue(ms(10), &mut q.fifo(), false);
        assert!(out.pkt.is_some() && out.dropped == 0);
        assert_eq!(c.first_above_time, Some(ms(110)));
        let out = c.dequeue(ms(109), &mut q.fifo(), false);
        assert_eq!(out.dropped, 0);
        let out = c.dequeue(ms(110), &mut q.fifo(), false);
        assert_eq!(out.dropped, 1);
        assert!(out.pkt.is_some());
        // Dropping state entered with count 1: the next drop one INTERVAL later.
        assert_eq!(c.state(), (true, 1, ms(210)));
    }

    #[test]
    fn newton_inv_sqrt_follows_count_by_one_fixed_point_step() {
        // Linux's and ns-3's estimate: reset to ≈ 1, then one Newton step per drop. The second
        // drop comes 50 ms after the first (1/√2 taken as 0x8001/2^16), not 70.7; later steps
        // approach 1/√count.
        let mut rec = INV_SQRT_ONE;
        let mut got = Vec::new();
        for count in 2..=8u32 {
            rec = newton_step(rec, count);
            got.push(rec);
        }
        assert_eq!(got[0], 0x8001);
        for (k, r) in got.iter().enumerate().skip(2) {
            let exact = 1.0 / ((k + 2) as f64).sqrt();
            let est = *r as f64 / 65536.0;
            assert!(
                (est - exact).abs() < 0.03,
                "count {}: {est} vs {exact}",
                k + 2
            );
        }
        // In the queue: the drops a standing queue sees, 1 ms dequeues.
        let cfg = CodelConfig {
            newton_inv_sqrt: true,
            ..CodelConfig::default()
        };
        let mut c = Codel::new(cfg);
        let mut q = standing(5000);
        let mut drops = Vec::new();
        for t in 10..=400u64 {
            let out = c.dequeue(ms(t), &mut q.fifo(), false);
            drops.extend(std::iter::repeat_n(t, out.dropped as usize));
        }
        // 110 ms (entering), then 100 ms · 0xFFFF/2^16 later (209.998, seen at 210), then
        // 100 ms · 0x8001/2^16 = 50.0015 ms (260.000), where the exact law gives 210, 281.
        assert_eq!(drops[..3], [110, 210, 260]);
    }

    #[test]
    fn drop_interval_shrinks_as_interval_over_sqrt_count() {
        // RFC 8289 §3.3, §5.6: in the dropping state the k-th drop comes INTERVAL/√k after the
        // previous one. Dequeue every millisecond from a queue that stays above TARGET.
        let mut c = Codel::new(CodelConfig::default());
        let mut q = standing(5000);
        let mut drops = Vec::new();
        for t in 10..=1200u64 {
            let now = ms(t);
            let out = c.dequeue(now, &mut q.fifo(), false);
            for _ in 0..out.dropped {
                drops.push(now);
            }
        }
        // Drop times are the control law's instants, seen at the next whole millisecond.
        let mut expected = ms(110);
        let mut next = vec![expected];
        for count in 1..drops.len() as u32 {
            let gap = (100e6 / (count as f64).sqrt()) as u64;
            expected += Duration::from_nanos(gap);
            next.push(expected);
        }
        assert!(drops.len() >= 10, "{} drops", drops.len());
        for (k, (got, due)) in drops.iter().zip(&next).enumerate() {
            let ceil_ms = due.as_nanos().div_ceil(1_000_000);
            assert_eq!(got.as_nanos(), ceil_ms * 1_000_000, "drop {k}");
        }
        // Gaps: 100, 70.7, 57.7, 50 ms ...
        assert_eq!(next[1] - next[0], Duration::from_millis(100));
        assert_eq!(next[2] - next[1], Duration::from_nanos(70_710_678));
        assert_eq!(next[4] - next[3], Duration::from_millis(50));
    }

    #[test]
    fn leaves_the_dropping_state_when_a_packet_is_below_target() {
        let mut c = Codel::new(CodelConfig::default());
        let mut q = standing(300);
        c.dequeue(ms(10), &mut q.fifo(), false);
        c.dequeue(ms(110), &mut q.fifo(), false);
        assert!(c.state().0);
        // A fresh packet alone (the rest drained): sojourn 1 ms < TARGET.
        let mut fresh = Q::new();
        fresh.push(pkt_at(ms(149), 1000));
        let out = c.dequeue(ms(150), &mut fresh.fifo(), false);
        assert!(out.pkt.is_some() && out.dropped == 0);
        assert!(!c.state().0);
        assert_eq!(c.first_above_time, None);
    }

    /// CoDel that dropped from a standing queue until 700 ms, then left the dropping state on
    /// a packet below TARGET at 701 ms; and its count when it left.
    fn dropped_then_left() -> (Codel, u32) {
        let mut c = Codel::new(CodelConfig::default());
        let mut q = standing(5000);
        for t in 10..=700u64 {
            c.dequeue(ms(t), &mut q.fifo(), false);
        }
        let (dropping, count, _) = c.state();
        assert!(dropping);
        let mut fresh = Q::new();
        fresh.push(pkt_at(ms(700), 1000));
        c.dequeue(ms(701), &mut fresh.fifo(), false);
        assert!(!c.state().0);
        (c, count)
    }

    #[test]
    fn reentry_soon_after_resumes_the_previous_drop_rate() {
        // RFC 8289 §5.5: on re-entry within 16 INTERVALs of the last drop schedule, count
        // starts at count − lastcount (when above 1) instead of 1.
        let (mut c, count) = dropped_then_left();
        assert!(count >= 6, "{count}");
        // Above TARGET again for an INTERVAL: re-entry at 1.001 s keeps count − lastcount.
        let mut q = standing(3000);
        c.dequeue(ms(901), &mut q.fifo(), false);
        let out = c.dequeue(ms(1001), &mut q.fifo(), false);
        assert_eq!(out.dropped, 1);
        let (dropping, resumed, next) = c.state();
        assert!(dropping);
        // lastcount was 1 when the first dropping state began.
        assert_eq!(resumed, count - 1);
        assert_eq!(
            next,
            ms(1001) + Duration::from_nanos((100e6 / (resumed as f64).sqrt()) as u64)
        );
    }

    #[test]
    fn reentry_long_after_starts_over_at_count_one() {
        let (mut c, _) = dropped_then_left();
        // 16 INTERVALs (1.6 s) after the last scheduled drop, the old rate is forgotten.
        let mut q = standing(3000);
        c.dequeue(ms(3000), &mut q.fifo(), false);
        let out = c.dequeue(ms(3100), &mut q.fifo(), false);
        assert_eq!(out.dropped, 1);
        assert_eq!(c.state().1, 1);
    }

    #[test]
    fn one_mtu_or_less_in_the_queue_is_never_above_target() {
        // RFC 8289 §5.5: `bytes() <= maxpacket` counts as below TARGET, however old the packet.
        let mut c = Codel::new(CodelConfig::default());
        let mut q = Q::new();
        q.push(pkt_at(Time::ZERO, 1000));
        q.push(pkt_at(Time::ZERO, 1000));
        c.dequeue(ms(50), &mut q.fifo(), false);
        assert_eq!(c.first_above_time, None);
    }

    #[test]
    fn ecn_marks_instead_of_dropping() {
        let mut c = Codel::new(CodelConfig::default());
        let mut q = Q::new();
        for _ in 0..500 {
            let mut p = pkt_at(Time::ZERO, 1000);
            p.ip.header.set_ecn(rexmit_wire::Ecn::Ect0);
            q.push(p);
        }
        c.dequeue(ms(10), &mut q.fifo(), true);
        let out = c.dequeue(ms(110), &mut q.fifo(), true);
        assert_eq!(out.dropped, 0);
        assert!(out.marked);
        let p = out.pkt.unwrap();
        assert_eq!(p.ip.header.ecn(), rexmit_wire::Ecn::Ce);
        assert_eq!(c.state(), (true, 1, ms(210)));
        // Not-ECT packets are still dropped.
        let mut q2 = Q::new();
        for _ in 0..10 {
            q2.push(udp());
        }
        let out = c.dequeue(ms(210), &mut q2.fifo(), true);
        assert_eq!(out.dropped, 1);
        assert!(!out.marked);
    }
}
