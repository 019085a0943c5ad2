//! HyStart (Ha and Rhee, "Taming the elephants: New TCP slow start", Computer Networks 2011)
//! as Linux's CUBIC runs it in 6.x (tcp_cubic.c, `hystart_detect` = 3: both detectors):
//! slow start ends early — ssthresh = cwnd — when, within one round,
//! - the ACK train (ACKs at most 2 ms apart since the round began) has lasted longer than
//!   half of (min delay + 1 ms), i.e. about half the path's RTT is filled; or
//! - the smallest of the round's first 8 RTT samples exceeds the minimum delay by
//!   clamp(min delay / 8, 4 ms, 16 ms).
//! Only at cwnd ≥ 16 segments. Linux 6.x runs this classic HyStart, not HyStart++ (RFC 9406):
//! the kernel has no HyStart++ and keeps these two detectors (docs/validation.md#linux).

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
}

impl HyStart {
    /// A new round begins at `now` (Linux bictcp_hystart_reset).
    fn reset_round(&mut self, now: Time, snd_nxt: u64) {
        self.round_start = now;
        self.last_ack = now;
        self.end_seq = snd_nxt;
        self.curr_rtt = None;
        self.sample_count = 0;
        self.started = true;
    }

    /// Forget the exit and the round (after a retransmission timeout, Linux bictcp_reset and
    /// bictcp_hystart_reset): the next slow start may end early again.
    pub fn restart(&mut self) {
        self.found = false;
        self.started = false;
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

    /// An ACK with an RTT sample in slow start with cwnd ≥ `LOW_WINDOW` (Linux runs HyStart
    /// only on ACKs that give an RTT sample): returns true when slow start should end.
    pub fn on_slow_start_ack(&mut self, now: Time, snd_una: u64, snd_nxt: u64, rtt: Duration) -> bool {
        if self.found {
            return false;
        }
        if !self.started || snd_una > self.end_seq {
            self.reset_round(now, snd_nxt);
        }
        let Some(delay_min) = self.delay_min else { return false };
        // Detector 1: the ACK train.
        if now.saturating_since(self.last_ack) <= ACK_DELTA {
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
            if self.curr_rtt.is_some_and(|c| c > delay_min + thresh) {
                self.found = true;
                return true;
            }
        }
        false
    }
}
