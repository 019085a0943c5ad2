//! HyStart (Ha and Rhee, "Taming the elephants: New TCP slow start", Computer Networks 2011)
//! as Linux's CUBIC runs it in 6.x (tcp_cubic.c, `hystart_detect` = 3: both detectors; the
//! option `hystart_detect` keeps one of them):
//! slow start ends early — ssthresh = cwnd — when, within one round,
//! - the ACK train (ACKs at most 2 ms apart since the round began) has lasted longer than
//!   half of (min delay + 1 ms), i.e. about half the path's RTT is filled; or
//! - the smallest of the round's first 8 RTT samples exceeds the minimum delay by
//!   clamp(min delay / 8, 4 ms, 16 ms).
//!
//! Only at cwnd ≥ 16 segments (rounds are counted below it too). Linux 6.x runs this classic HyStart, not HyStart++ (RFC 9406):
//! the kernel has no HyStart++ and keeps these two detectors (docs/validation_linux.md).

use rexmit_time::{Duration, Time};

/// hystart_low_window: HyStart runs from this cwnd (segments) on.
pub const LOW_WINDOW: u64 = 16;
/// hystart_ack_delta_us: ACKs closer than this belong to one train.
const ACK_DELTA: Duration = Duration::from_millis(2);
/// HYSTART_MIN_SAMPLES: RTT samples per round before the delay test.
const MIN_SAMPLES: u32 = 8;
const DELAY_MIN_THRESH: Duration = Duration::from_millis(4);
const DELAY_MAX_THRESH: Duration = Duration::from_millis(16);
/// Linux's hystart_ack_delay: the ACK-train threshold allows for up to 1 ms of delayed ACKs
/// (min(1 ms, 4 GSO frames at the pacing rate): 1 ms at the rates emulation runs).
const ACK_DELAY: Duration = Duration::from_millis(1);

#[derive(Clone, Debug, Default)]
pub struct HyStart {
    /// Slow-start exit found (until the next timeout resets it).
    pub found: bool,
    /// snd_nxt when the round began: the round ends when snd_una passes it.
    end_seq: u64,
    round_start: Time,
    last_ack: Time,
    /// Smallest RTT sample of this round so far.
    curr_rtt: Option<Duration>,
    sample_count: u32,
    /// The smallest RTT seen (Linux's delay_min).
    pub delay_min: Option<Duration>,
    started: bool,
    /// Detectors switched off (Linux's hystart_detect without their bit; both on by default).
    no_train: bool,
    no_delay: bool,
}

/// hystart_detect's bits.
pub const ACK_TRAIN: u8 = 1;
pub const DELAY: u8 = 2;

impl HyStart {
    /// Run only the detectors whose bits are set (`ACK_TRAIN`, `DELAY`).
    pub fn detect(&mut self, bits: u8) {
        self.no_train = bits & ACK_TRAIN == 0;
        self.no_delay = bits & DELAY == 0;
    }

    /// A new round begins at `now` (Linux bictcp_hystart_reset).
    fn reset_round(&mut self, now: Time, snd_nxt: u64) {
        self.round_start = now;
        self.last_ack = now;
        self.end_seq = snd_nxt;
        self.curr_rtt = None;
        self.sample_count = 0;
        self.started = true;
    }

    /// Forget the exit, the round and the minimum delay (after a retransmission timeout:
    /// Linux's bictcp_state on entering Loss calls bictcp_reset, which zeroes delay_min with
    /// the rest of CUBIC's state, and bictcp_hystart_reset): the next slow start may end early
    /// again, judged against the delays measured after the timeout.
    pub fn restart(&mut self) {
        self.found = false;
        self.started = false;
        self.delay_min = None;
    }

    /// Every ACK with an RTT sample feeds the minimum delay, except in the second after a
    /// congestion-avoidance epoch began (Linux discards those samples after fast recovery).
    pub fn on_rtt_sample(&mut self, rtt: Duration, discard: bool) {
        if discard {
            return;
        }
        let rtt = rtt.max(Duration::from_micros(1));
        self.delay_min = Some(self.delay_min.map_or(rtt, |d| d.min(rtt)));
    }

    /// An ACK with an RTT sample in slow start (Linux runs HyStart only on ACKs that give an
    /// RTT sample), with `cwnd_segments` before the ACK grows it: returns true when slow start
    /// should end. A round may begin on any such ACK; the detectors run from `LOW_WINDOW` on.
    /// Linux ≥ 6.13 (tcp_cubic.c `hystart_update`) tests the round's end before the low
    /// window, so that rounds begin where the flights do; 5.16–6.12 began the first round at
    /// the first ACK with cwnd ≥ 16, in the middle of a flight, whose first samples then
    /// carry the queue that flight built.
    pub fn on_slow_start_ack(
        &mut self,
        now: Time,
        snd_una: u64,
        snd_nxt: u64,
        rtt: Duration,
        cwnd_segments: u64,
    ) -> bool {
        if self.found {
            return false;
        }
        if !self.started || snd_una > self.end_seq {
            self.reset_round(now, snd_nxt);
        }
        if cwnd_segments < LOW_WINDOW {
            return false;
        }
        let Some(delay_min) = self.delay_min else {
            return false;
        };
        // Detector 1: the ACK train.
        if !self.no_train && now.saturating_since(self.last_ack) <= ACK_DELTA {
            self.last_ack = now;
            // Without pacing the train may end at half the RTT: the threshold is halved.
            let threshold = (delay_min + ACK_DELAY) / 2;
            if now.saturating_since(self.round_start) > threshold {
                self.found = true;
                return true;
            }
        }
        // Detector 2: the delay increase.
        self.curr_rtt = Some(self.curr_rtt.map_or(rtt, |c| c.min(rtt)));
        if self.sample_count < MIN_SAMPLES {
            self.sample_count += 1;
        } else {
            let thresh = (delay_min / 8).clamp(DELAY_MIN_THRESH, DELAY_MAX_THRESH);
            if !self.no_delay && self.curr_rtt.is_some_and(|c| c > delay_min + thresh) {
                self.found = true;
                return true;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(us: u64) -> Time {
        Time::from_nanos(us * 1000)
    }
    const RTT: Duration = Duration::from_millis(40);
    /// A cwnd (segments) at which the detectors run.
    const W: u64 = LOW_WINDOW;

    /// HyStart with delay_min 40 ms, after `n` samples of `rtt` 5 ms apart (none decisive).
    fn primed(n: u64, rtt: Duration) -> HyStart {
        let mut h = HyStart::default();
        h.on_rtt_sample(RTT, false);
        for i in 0..n {
            assert!(!h.on_slow_start_ack(at(5_000 * i), 0, 100, rtt, W));
        }
        h
    }

    /// ACKs 1 ms apart from the round's start: the train is longer than (40 + 1) / 2 ms at the
    /// ACK 21 ms in, which ends slow start.
    #[test]
    fn ack_train_longer_than_half_the_delay_ends_slow_start() {
        let mut h = HyStart::default();
        h.on_rtt_sample(RTT, false);
        let mut found_at = None;
        for i in 0..40u64 {
            if h.on_slow_start_ack(at(1_000 * i), 0, 100, RTT, W) {
                found_at = Some(i);
                break;
            }
        }
        assert_eq!(found_at, Some(21));
    }

    /// ACKs 2.4 ms apart (a 10 Mb/s bottleneck with an ACK for every second segment) never
    /// form a train: only the delay detector can end slow start there.
    #[test]
    fn acks_more_than_2_ms_apart_form_no_train() {
        let mut h = HyStart::default();
        h.on_rtt_sample(RTT, false);
        for i in 0..200u64 {
            assert!(
                !h.on_slow_start_ack(at(2_400 * i), 0, 100, RTT, W),
                "ACK {i}"
            );
        }
    }

    /// Delay detector: the smallest of the round's first 8 samples, then of each later one,
    /// must exceed delay_min + clamp(40/8 ms, 4, 16) = 45 ms.
    #[test]
    fn delay_increase_of_more_than_an_eighth_ends_slow_start() {
        // Samples 5 ms apart (no train). Eight samples at 45.1 ms: the ninth decides.
        let late = Duration::from_micros(45_100);
        let mut h = primed(8, late);
        assert!(h.on_slow_start_ack(at(40_000), 0, 100, late, W));
        // At 45 ms exactly (not above the threshold) it would not have.
        primed(20, Duration::from_millis(45));
    }

    /// hystart_detect: with the ACK train's bit alone, the delay increase above does not end
    /// slow start; with the delay's bit alone, the train above does not.
    #[test]
    fn each_detector_can_be_switched_off() {
        let with = |bits| {
            let mut h = HyStart::default();
            h.detect(bits);
            h.on_rtt_sample(RTT, false);
            h
        };
        // Samples 5 ms apart at 45.1 ms: only the delay test could fire.
        let late = Duration::from_micros(45_100);
        let mut train_only = with(ACK_TRAIN);
        let fired =
            (0..20u64).find(|&i| train_only.on_slow_start_ack(at(5_000 * i), 0, 100, late, W));
        assert_eq!(fired, None);
        // ACKs 1 ms apart at 40 ms: only the train could fire.
        let mut delay_only = with(DELAY);
        let fired =
            (0..40u64).find(|&i| delay_only.on_slow_start_ack(at(1_000 * i), 0, 100, RTT, W));
        assert_eq!(fired, None);
        // Both bits: the train ends slow start at the 21st ACK, as above.
        let mut both = with(ACK_TRAIN | DELAY);
        let found = (0..40u64).find(|&i| both.on_slow_start_ack(at(1_000 * i), 0, 100, RTT, W));
        assert_eq!(found, Some(21));
    }

    /// A new round (snd_una past the round's snd_nxt) forgets the samples of the last one.
    #[test]
    fn a_new_round_starts_the_sample_count_again() {
        let late = Duration::from_millis(50);
        let mut h = primed(8, late);
        // snd_una 101 > end_seq 100: a new round; its first sample does not decide.
        assert!(!h.on_slow_start_ack(at(45_000), 101, 300, late, W));
    }

    /// A round that began below the low window is not begun again when cwnd reaches it
    /// (Linux ≥ 6.13): the next round begins when snd_una passes the snd_nxt of the ACK at
    /// cwnd 10. Round 1: snd_nxt 100 at its first ACK; cwnd reaches 16 at snd_una 50 (snd_nxt
    /// 200 then), and eight 50 ms samples follow. snd_una 101 begins round 2, whose first
    /// sample does not decide; had round 1 begun at cwnd 16 (end 200), that ninth sample of
    /// the round would have ended slow start (50 > 40 + 5 ms).
    #[test]
    fn rounds_begin_below_the_low_window() {
        let late = Duration::from_millis(50);
        let mut h = HyStart::default();
        h.detect(DELAY);
        h.on_rtt_sample(RTT, false);
        assert!(!h.on_slow_start_ack(at(0), 1, 100, RTT, 10));
        for i in 0..8u64 {
            assert!(!h.on_slow_start_ack(at(5_000 * (i + 1)), 50 + i, 200 + i, late, W));
        }
        assert!(!h.on_slow_start_ack(at(45_000), 101, 300, late, W));
        // Round 2 decides at its ninth sample.
        for i in 1..8u64 {
            assert!(!h.on_slow_start_ack(at(45_000 + 5_000 * i), 101 + i, 300, late, W));
        }
        assert!(h.on_slow_start_ack(at(90_000), 110, 300, late, W));
    }

    /// The ACK train is measured from the round's start, at cwnd 10 here: ACKs 1 ms apart
    /// below the low window leave the train's last ACK at the round's start, so at cwnd 16
    /// (6 ms in) the gap is over 2 ms and this round has no train; the next round's train,
    /// all at cwnd ≥ 16, ends slow start 21 ms into it.
    #[test]
    fn the_ack_train_counts_from_a_round_begun_below_the_low_window() {
        let mut h = HyStart::default();
        h.detect(ACK_TRAIN);
        h.on_rtt_sample(RTT, false);
        for i in 0..40u64 {
            let cwnd = if i < 6 { 10 + i } else { W + i };
            assert!(
                !h.on_slow_start_ack(at(1_000 * i), 1 + i, 100, RTT, cwnd),
                "ACK {i}"
            );
        }
        let found = (0..40u64)
            .find(|&i| h.on_slow_start_ack(at(50_000 + 1_000 * i), 101 + i, 300, RTT, 60));
        assert_eq!(found, Some(21));
    }
}
