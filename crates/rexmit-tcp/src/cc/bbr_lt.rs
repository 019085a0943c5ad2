//! BBR v1's long-term bandwidth sampling, as Linux's tcp_bbr runs it (`bbr_lt_bw_sampling`):
//! a token-bucket policer, or any path that drops a fifth of what the sender offers, shows up
//! as sampling intervals of 4–16 round trips that end at a loss with at least 50/256 (≈ 20 %)
//! of the delivered packets lost. Two such intervals in a row whose delivery rates agree
//! within 1/8 (or 4 kbit/s) make BBR use their average as its bandwidth, with a pacing gain of
//! 1, for 48 round trips of ProbeBW; then it samples afresh. The paper's model ignores this;
//! without it a BBR v1 flow keeps probing at 5/4 on a path that loses 20 % or more.

use rexmit_time::{Duration, Time};

/// Linux bbr_lt_intvl_min_rtts: an interval lasts at least 4 round trips (at most 4 × 4).
const INTVL_MIN_RTTS: u32 = 4;
/// Linux bbr_lt_loss_thresh: 50/256 of the delivered packets lost.
const LOSS_THRESH: u64 = 50;
/// Linux bbr_lt_bw_ratio (1/8) and bbr_lt_bw_diff (4 kbit/s = 500 B/s): two intervals agree.
const BW_RATIO: u64 = 8;
const BW_DIFF_BYTES_PER_S: u64 = 500;
/// Linux bbr_lt_bw_max_rtts: how long the long-term bandwidth is used.
const MAX_RTTS: u32 = 48;

/// What one valid rate sample (or a retransmission timeout) tells the sampler.
#[derive(Clone, Copy, Debug)]
pub struct LtInput {
    pub now: Time,
    pub round_start: bool,
    pub probe_bw: bool,
    /// Segments this sample newly marked lost (a timeout counts as one, as Linux's
    /// bbr_set_state does): an interval ends only at a sample with a loss.
    pub losses: u64,
    /// Segments marked lost on the connection so far (Linux tp->lost): what an interval lost,
    /// losses marked between ACKs (the RACK reordering timer, a timeout) included.
    pub lost_total: u64,
    /// Bytes delivered on the connection so far.
    pub delivered: u64,
    pub smss: u64,
    /// The sample is application-limited: sampling starts afresh (it would underestimate).
    pub app_limited: bool,
}

/// What the sampler asks of BBR after a sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LtVerdict {
    Nothing,
    /// Policed: use `bw()` with a pacing gain of 1 from now.
    StartUsing,
    /// 48 round trips are over: stop using it and restart ProbeBW's gain cycle.
    StopUsing,
}

#[derive(Clone, Debug, Default)]
pub struct LtBw {
    is_sampling: bool,
    use_bw: bool,
    /// Bytes per second of the previous interval (or the average of two once in use).
    bw: u64,
    rtt_cnt: u32,
    last_stamp: Option<Time>,
    last_delivered: u64,
    last_lost: u64,
    /// Segments marked lost on the connection so far (the last `lost_total`).
    lost: u64,
}

impl LtBw {
    /// The long-term bandwidth while it is in use (Linux bbr_bw: lt_bw if lt_use_bw).
    pub fn in_use(&self) -> Option<u64> {
        self.use_bw.then_some(self.bw)
    }

    fn reset_interval(&mut self, now: Time, delivered: u64) {
        self.last_stamp = Some(now);
        self.last_delivered = delivered;
        self.last_lost = self.lost;
        self.rtt_cnt = 0;
    }

    /// Start sampling afresh (Linux bbr_reset_lt_bw_sampling).
    pub fn reset(&mut self, now: Time, delivered: u64) {
        self.bw = 0;
        self.use_bw = false;
        self.is_sampling = false;
        self.reset_interval(now, delivered);
    }

    /// Linux bbr_lt_bw_sampling, for one valid rate sample.
    pub fn on_sample(&mut self, s: &LtInput) -> LtVerdict {
        self.lost = s.lost_total;
        if self.use_bw {
            if s.probe_bw && s.round_start {
                self.rtt_cnt += 1;
                if self.rtt_cnt >= MAX_RTTS {
                    self.reset(s.now, s.delivered);
                    return LtVerdict::StopUsing;
                }
            }
            return LtVerdict::Nothing;
        }
        // Wait for the first loss: a policer's burst of tokens would inflate the first sample.
        if !self.is_sampling {
            if s.losses == 0 {
                return LtVerdict::Nothing;
            }
            self.reset_interval(s.now, s.delivered);
            self.is_sampling = true;
        }
        // Linux: "To avoid underestimates, reset sampling if we run out of data."
        if s.app_limited {
            self.reset(s.now, s.delivered);
            return LtVerdict::Nothing;
        }
        if s.round_start {
            self.rtt_cnt += 1;
        }
        if self.rtt_cnt < INTVL_MIN_RTTS {
            return LtVerdict::Nothing;
        }
        if self.rtt_cnt > 4 * INTVL_MIN_RTTS {
            self.reset(s.now, s.delivered);
            return LtVerdict::Nothing;
        }
        // The interval ends at a loss, when the policer's tokens are surely used up.
        if s.losses == 0 {
            return LtVerdict::Nothing;
        }
        let delivered = s.delivered - self.last_delivered;
        let lost = (self.lost - self.last_lost) * s.smss.max(1);
        if delivered == 0 || lost * 256 < LOSS_THRESH * delivered {
            return LtVerdict::Nothing;
        }
        let Some(start) = self.last_stamp else {
            return LtVerdict::Nothing;
        };
        let t = s.now.saturating_since(start);
        if t < Duration::from_millis(1) {
            return LtVerdict::Nothing;
        }
        let bw = (delivered as u128 * 1_000_000_000 / t.as_nanos() as u128) as u64;
        self.interval_done(s, bw)
    }

    /// Linux bbr_lt_bw_interval_done.
    fn interval_done(&mut self, s: &LtInput, bw: u64) -> LtVerdict {
        if self.bw > 0 {
            let diff = bw.abs_diff(self.bw);
            if diff * BW_RATIO <= self.bw || diff <= BW_DIFF_BYTES_PER_S {
                self.bw = (bw + self.bw) / 2;
                self.use_bw = true;
                self.rtt_cnt = 0;
                return LtVerdict::StartUsing;
            }
        }
        self.bw = bw;
        self.reset_interval(s.now, s.delivered);
        LtVerdict::Nothing
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMSS: u64 = 1000;

    /// Feed `rounds` round trips of `per_round` segments, one ACK per segment, 10 ms per
    /// round, losing `lost_per_round` segments in each (reported on the round's last ACK).
    fn feed(
        lt: &mut LtBw,
        t_ms: &mut u64,
        delivered: &mut u64,
        rounds: u32,
        per_round: u64,
        lost_per_round: u64,
    ) -> Vec<LtVerdict> {
        let mut out = Vec::new();
        for _ in 0..rounds {
            for i in 0..per_round {
                *delivered += SMSS;
                let losses = if i == per_round - 1 {
                    lost_per_round
                } else {
                    0
                };
                let v = lt.on_sample(&LtInput {
                    now: Time::from_nanos(*t_ms * 1_000_000 + i * 10_000_000 / per_round),
                    round_start: i == 0,
                    probe_bw: true,
                    losses,
                    lost_total: lt.lost + losses,
                    delivered: *delivered,
                    smss: SMSS,
                    app_limited: false,
                });
                if v != LtVerdict::Nothing {
                    out.push(v);
                }
            }
            *t_ms += 10;
        }
        out
    }

    #[test]
    fn a_steady_rate_at_a_fifth_lost_is_used_after_two_intervals_then_dropped_after_48_rounds() {
        let (mut lt, mut t, mut d) = (LtBw::default(), 0, 0);
        // 10 segments per 10 ms round = 1 MB/s; 3 of every 10 lost (30 % ≥ 50/256).
        let v = feed(&mut lt, &mut t, &mut d, 12, 10, 3);
        assert_eq!(v, vec![LtVerdict::StartUsing]);
        let bw = lt.in_use().expect("policed");
        assert!((900_000..=1_100_000).contains(&bw), "{bw}");
        // 48 rounds of ProbeBW later it stops.
        let v = feed(&mut lt, &mut t, &mut d, 48, 10, 3);
        assert_eq!(v, vec![LtVerdict::StopUsing]);
        assert_eq!(lt.in_use(), None);
    }

    /// Losses marked between rate samples (the RACK reordering timer, a timeout) count toward
    /// the interval, as Linux's tp->lost does: here each round's samples report no loss of
    /// their own but the last, which ends the interval, while the connection's lost total
    /// grows by 3 per round.
    #[test]
    fn losses_marked_between_samples_count_toward_the_interval() {
        let mut lt = LtBw::default();
        let (mut delivered, mut lost) = (0, 0);
        let mut verdicts = Vec::new();
        for round in 0..12u64 {
            lost += 3; // marked by a timer before this round's ACKs
            for i in 0..10u64 {
                delivered += SMSS;
                let v = lt.on_sample(&LtInput {
                    now: Time::from_nanos(round * 10_000_000 + i * 1_000_000),
                    round_start: i == 0,
                    probe_bw: true,
                    losses: u64::from(i == 9),
                    lost_total: lost + u64::from(i == 9),
                    delivered,
                    smss: SMSS,
                    app_limited: false,
                });
                if v != LtVerdict::Nothing {
                    verdicts.push(v);
                }
            }
            lost += 1;
        }
        // 4 of 10 per round lost: policed after two intervals. Counting only the losses the
        // samples report (1 of 10) would never reach 50/256.
        assert_eq!(verdicts, vec![LtVerdict::StartUsing]);
    }

    #[test]
    fn below_the_loss_threshold_nothing_is_used() {
        let (mut lt, mut t, mut d) = (LtBw::default(), 0, 0);
        // 1 of 10 lost: 10 % < 50/256.
        assert!(feed(&mut lt, &mut t, &mut d, 40, 10, 1).is_empty());
        assert_eq!(lt.in_use(), None);
    }

    #[test]
    fn intervals_whose_rates_differ_by_more_than_an_eighth_are_not_used() {
        let (mut lt, mut t, mut d) = (LtBw::default(), 0, 0);
        // First interval at 10 segments per round, the next at 20: 2× apart.
        assert!(feed(&mut lt, &mut t, &mut d, 5, 10, 3).is_empty());
        assert!(feed(&mut lt, &mut t, &mut d, 5, 20, 6).is_empty());
        assert_eq!(lt.in_use(), None);
    }
}
