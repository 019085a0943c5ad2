//! LEDBAT, Low Extra Delay Background Transport (RFC 6817): a scavenger that keeps the
//! queueing delay it adds near TARGET. On every ACK (§2.4.2)
//!   cwnd += GAIN · off_target · bytes_newly_acked · MSS / cwnd,
//!   off_target = (TARGET − queuing_delay) / TARGET,
//! so the window grows while the queueing delay is below TARGET and shrinks above it; cwnd is
//! at most the flight before the ACK plus ALLOWED_INCREASE segments and at least MIN_CWND.
//! queuing_delay = current delay (the minimum of the last CURRENT_FILTER samples) − base delay
//! (the minimum over BASE_HISTORY one-minute intervals, §2.4.2 update_base_delay). A loss
//! halves cwnd, not below MIN_CWND.
//!
//! Delay: RFC 6817 uses one-way delay from timestamps (as ns-3's TcpLedbat); here the ACK's
//! RTT sample stands for it, so queuing_delay = RTT − base RTT, the common simulator
//! approximation (exact on a dumbbell whose reverse path carries only ACKs). Where the RFC
//! leaves a choice open this follows ns-3.44's `TcpLedbat`: slow start (optional, on by
//! default) until the first ACK in congestion avoidance, and again only after cwnd fell to one
//! segment; without delay samples the growth is Reno's; in congestion avoidance ssthresh is
//! kept below cwnd. Unlike ns-3, slow start also ends once the queueing delay exceeds TARGET
//! (ns-3 leaves it only at a loss, so on a deep buffer with RFC 5681's arbitrarily high
//! initial ssthresh it fills the buffer — far more delay than TARGET, LEDBAT's point); the cap adds ALLOWED_INCREASE = 1 segment to the flight
//! (RFC 6817 §2.4.2; ns-3 caps at the flight) and base-delay intervals roll at minute
//! boundaries.

use super::declared::{count, switch, Declared};
use super::registry::{CcPlugin, ParamSpec};
use super::window::window_in_field_w;
use super::{AckSample, CongestionControl, CongestionEvent, Window};
use rexmit_time::{Duration, Time};
use std::collections::VecDeque;
use std::sync::Arc;

pub(crate) fn plugin() -> Arc<dyn CcPlugin> {
    Declared {
        name: "ledbat",
        doc: "LEDBAT (RFC 6817): keeps its queueing delay near target_ms, yields to TCP",
        params: vec![
            ParamSpec::new(
                "target_ms",
                "TARGET queueing delay (RFC 6817 §2.5.1: ≤ 100 ms)",
                100.0,
                0.0,
                100.0,
            )
            .open_min(),
            ParamSpec::new("gain", "GAIN (RFC 6817 §2.5: ≤ 1)", 1.0, 0.0, 1.0).open_min(),
            count(
                "base_history",
                "BASE_HISTORY: one-minute base-delay intervals kept",
                10.0,
                1.0,
                1e4,
            ),
            count(
                "noise_filter",
                "CURRENT_FILTER: samples the current delay is the minimum of",
                4.0,
                1.0,
                1e4,
            ),
            count("min_cwnd", "MIN_CWND, segments", 2.0, 1.0, 2.0),
            count(
                "allowed_increase",
                "ALLOWED_INCREASE: cwnd ≤ flight + this many segments",
                1.0,
                1.0,
                1e4,
            ),
            switch(
                "slow_start",
                "slow start until congestion avoidance begins (1: on)",
                true,
            ),
        ],
        build: |w, v| {
            Box::new(Ledbat::new(
                w,
                Params {
                    target: Duration::from_nanos((v[0] * 1e6) as u64),
                    gain: v[1],
                    base_history: v[2] as usize,
                    noise_filter: v[3] as usize,
                    min_cwnd: v[4] as u64,
                    allowed_increase: v[5] as u64,
                    slow_start: v[6] != 0.0,
                },
            ))
        },
    }
    .registered()
}

#[derive(Clone, Copy, Debug)]
pub struct Params {
    pub target: Duration,
    pub gain: f64,
    pub base_history: usize,
    pub noise_filter: usize,
    pub min_cwnd: u64,
    pub allowed_increase: u64,
    pub slow_start: bool,
}

#[derive(Clone, Debug)]
pub struct Ledbat {
    w: Window,
    p: Params,
    /// The last CURRENT_FILTER delay samples.
    current: VecDeque<Duration>,
    /// The minimum delay of each of the last BASE_HISTORY minutes (the last is this one's).
    base: VecDeque<Duration>,
    last_rollover: Option<Time>,
    /// May slow start (ns-3's LEDBAT_CAN_SS).
    can_slow_start: bool,
    /// The fraction of a byte cwnd carries.
    frac: f64,
}

impl Ledbat {
    pub fn new(w: Window, p: Params) -> Self {
        Ledbat {
            w,
            p,
            current: VecDeque::new(),
            base: VecDeque::new(),
            last_rollover: None,
            can_slow_start: p.slow_start,
            frac: 0.0,
        }
    }

    /// RFC 6817 §2.4.2 update_base_delay and update_current_delay.
    fn sample(&mut self, now: Time, delay: Duration) {
        self.current.push_back(delay);
        if self.current.len() > self.p.noise_filter {
            self.current.pop_front();
        }
        let minute = |t: Time| t.as_nanos() / 60_000_000_000;
        match (self.last_rollover, self.base.back_mut()) {
            (Some(last), Some(tail)) if minute(last) == minute(now) => {
                *tail = (*tail).min(delay);
            }
            _ => {
                self.last_rollover = Some(now);
                self.base.push_back(delay);
                if self.base.len() > self.p.base_history {
                    self.base.pop_front();
                }
            }
        }
    }

    /// queuing_delay = FILTER(current_delays) − MIN(base_delays), ns (negative if the current
    /// minimum is below the base one, which a new base interval can make).
    pub fn queuing_delay(&self) -> Option<f64> {
        let current = self.current.iter().min()?;
        let base = self.base.iter().min()?;
        Some(current.as_nanos() as f64 - base.as_nanos() as f64)
    }

    /// §2.4.2 on an ACK in congestion avoidance.
    fn avoid(&mut self, ack: &AckSample, queuing_delay: f64) {
        let s = self.w.smss as f64;
        let target = self.p.target.as_nanos() as f64;
        let off_target = (target - queuing_delay) / target;
        let cwnd = self.w.cwnd as f64 + self.frac;
        let grown = cwnd + self.p.gain * off_target * ack.acked as f64 * s / cwnd;
        let flight_before = ack.snd_nxt.saturating_sub(ack.snd_una) + ack.acked;
        let max_allowed = (flight_before + self.p.allowed_increase * self.w.smss) as f64;
        let new = grown
            .min(max_allowed)
            .max((self.p.min_cwnd * self.w.smss) as f64);
        self.w.cwnd = new as u64;
        self.frac = new - new.floor();
        // ns-3: ssthresh below cwnd, so that slow start does not come back.
        if self.w.cwnd <= self.w.ssthresh {
            self.w.ssthresh = self.w.cwnd.saturating_sub(1);
        }
    }
}

impl CongestionControl for Ledbat {
    fn on_delivery(&mut self, ack: &AckSample) {
        if let Some(rtt) = ack.rtt.filter(|r| !r.is_zero()) {
            self.sample(ack.now, rtt);
        }
    }
    fn on_ack(&mut self, ack: &AckSample) {
        if self.w.cwnd <= self.w.smss && self.p.slow_start {
            self.can_slow_start = true;
        }
        let q = self.queuing_delay();
        let below_target = q.is_none_or(|q| q <= self.p.target.as_nanos() as f64);
        if self.can_slow_start && self.w.in_slow_start() && below_target {
            self.w.slow_start(ack.acked);
            return;
        }
        self.can_slow_start = false;
        match q {
            Some(q) => self.avoid(ack, q),
            None => self.w.avoid(ack.acked, 1.0),
        }
    }
    /// §2.4.2: cwnd = max(cwnd/2, MIN_CWND · MSS) at a loss.
    fn on_congestion_event(&mut self, ev: &CongestionEvent) {
        self.w.decrease_to(ev.base, 0.5, self.p.min_cwnd);
        self.frac = 0.0;
    }
    window_in_field_w!();
    fn name(&self) -> &str {
        "ledbat"
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_events::{loss, sample};
    use super::*;

    const SMSS: u64 = 1000;

    fn defaults() -> Params {
        Params {
            target: Duration::from_millis(100),
            gain: 1.0,
            base_history: 10,
            noise_filter: 4,
            min_cwnd: 2,
            allowed_increase: 1,
            slow_start: false,
        }
    }

    /// An ACK of one segment at `t` ms with RTT `rtt` ms, `flight` segments outstanding after.
    fn ack(t: u64, rtt: u64, flight: u64) -> AckSample {
        AckSample {
            rtt: Some(Duration::from_millis(rtt)),
            snd_una: 0,
            snd_nxt: flight * SMSS,
            ..sample(t, SMSS)
        }
    }

    /// cwnd after a window of ACKs (cwnd 50, flight 50) at RTT `rtt` ms, base 50 ms.
    fn window_after(rtt: u64, gain: f64) -> f64 {
        let mut c = Ledbat::new(
            Window::new(50 * SMSS, u64::MAX / 2, SMSS),
            Params { gain, ..defaults() },
        );
        c.on_delivery(&ack(0, 50, 50));
        for i in 0..4 {
            c.on_delivery(&ack(i, rtt, 50));
        }
        for i in 0..50 {
            c.on_ack(&ack(10 + i, rtt, 50));
        }
        c.window() as f64 / SMSS as f64
    }

    #[test]
    fn window_follows_target_minus_queuing_delay_with_its_gain() {
        // Queueing 0: off_target 1, about one segment per window of ACKs.
        assert!((window_after(50, 1.0) - 51.0).abs() < 0.05);
        // Queueing 50 ms = TARGET/2: half a segment; gain 1/2 halves it again.
        assert!((window_after(100, 1.0) - 50.5).abs() < 0.02);
        assert!((window_after(100, 0.5) - 50.25).abs() < 0.02);
        // At TARGET: holds. Above it (150 ms queueing): shrinks by half a segment.
        assert!((window_after(150, 1.0) - 50.0).abs() < 0.001);
        assert!((window_after(200, 1.0) - 49.5).abs() < 0.02);
    }

    #[test]
    fn cwnd_is_capped_by_flight_plus_allowed_increase_and_floored_at_min_cwnd() {
        let mut c = Ledbat::new(Window::new(50 * SMSS, u64::MAX / 2, SMSS), defaults());
        c.on_delivery(&ack(0, 50, 10));
        // Application-limited: 10 segments in flight (11 before the ACK) → cwnd ≤ 12.
        c.on_ack(&ack(1, 50, 10));
        assert_eq!(c.window(), 12 * SMSS);
        // A huge queueing delay never takes cwnd below MIN_CWND.
        for i in 0..4 {
            c.on_delivery(&ack(2 + i, 5_000, 10));
        }
        for i in 0..100 {
            c.on_ack(&ack(10 + i, 5_000, 10));
        }
        assert_eq!(c.window(), 2 * SMSS);
        // A loss halves, not below MIN_CWND.
        c.w.cwnd = 30 * SMSS;
        c.on_congestion_event(&loss(Time::ZERO, 30 * SMSS, SMSS));
        assert_eq!(c.window(), 15 * SMSS);
    }

    #[test]
    fn base_delay_is_the_minimum_over_the_last_minutes_and_current_over_the_last_samples() {
        let mut c = Ledbat::new(Window::new(50 * SMSS, u64::MAX / 2, SMSS), defaults());
        let at = |c: &mut Ledbat, s: u64, rtt| c.on_delivery(&ack(s * 1000, rtt, 10));
        at(&mut c, 0, 40);
        for s in 1..5 {
            at(&mut c, s, 90);
        }
        // Current = min of the last 4 = 90, base 40: 50 ms queueing.
        assert_eq!(c.queuing_delay(), Some(50e6));
        // Ten minutes later the 40 ms minute has rolled out of the history.
        for m in 1..=10 {
            at(&mut c, 60 * m, 90);
        }
        assert_eq!(c.queuing_delay(), Some(0.0));
        // Slow start until the first avoidance ACK when asked for (ns-3's default).
        let mut c = Ledbat::new(
            Window::new(2 * SMSS, u64::MAX / 2, SMSS),
            Params {
                slow_start: true,
                ..defaults()
            },
        );
        c.on_ack(&ack(0, 50, 2));
        assert_eq!(c.window(), 3 * SMSS);
        // ... and it ends once the queueing delay passes TARGET.
        c.on_delivery(&ack(1, 50, 2));
        for i in 0..4 {
            c.on_delivery(&ack(2 + i, 200, 2));
        }
        c.on_ack(&ack(10, 200, 3));
        assert!(c.window() < 3 * SMSS && !c.can_slow_start);
    }

    #[test]
    fn at_ssthresh_slow_start_hands_over_to_avoidance() {
        // After a loss cwnd = ssthresh = 2 segments: the next ACKs grow it in avoidance
        // (a window stuck at ssthresh would never grow).
        let mut c = Ledbat::new(
            Window::new(2 * SMSS, 2 * SMSS, SMSS),
            Params {
                slow_start: true,
                ..defaults()
            },
        );
        c.on_delivery(&ack(0, 50, 2));
        for i in 0..4 {
            c.on_ack(&ack(1 + i, 50, 2));
        }
        // 2000 + 500 + 400 + 345 + 308 (MSS²/cwnd each, no queueing).
        assert_eq!(c.window(), 3553);
        assert!(!c.can_slow_start && c.ssthresh() < c.window());
    }
}
