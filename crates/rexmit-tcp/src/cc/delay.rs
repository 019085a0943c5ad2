//! The RTT statistics the delay-based controllers share (Vegas, Veno, YeAH, Illinois): the base
//! RTT — the smallest sample of the connection — and the smallest, largest, sum and number of
//! samples in the current round, one window of data: from the snd_nxt when the round began to
//! the ACK that covers it (Vegas' once-per-RTT measurement, Brakmo & Peterson 1995 §3.2; the
//! round boundary as ns-3's and Linux's `beg_snd_nxt`). Samples are the RTT each ACK measured
//! (`AckSample::rtt`), not the smoothed RTT.

use super::AckSample;
use rexmit_time::Duration;

#[derive(Clone, Debug, Default)]
pub struct RttRounds {
    /// The smallest RTT sample of the connection (BaseRTT).
    pub base: Option<Duration>,
    /// The smallest, largest and summed samples of this round, and how many.
    pub min: Option<Duration>,
    pub max: Option<Duration>,
    pub sum: Duration,
    pub count: u32,
    /// The round ends when snd_una reaches this (snd_nxt when it began).
    end: u64,
    /// A new round begins at the next ACK (after loss recovery, ns-3's CA_OPEN).
    restart: bool,
}

impl RttRounds {
    pub fn sample(&mut self, rtt: Duration) {
        self.base = Some(self.base.map_or(rtt, |b| b.min(rtt)));
        self.min = Some(self.min.map_or(rtt, |m| m.min(rtt)));
        self.max = Some(self.max.map_or(rtt, |m| m.max(rtt)));
        self.sum += rtt;
        self.count += 1;
    }

    /// Take the ACK's RTT sample, if it has one.
    pub fn on_delivery(&mut self, ack: &AckSample) {
        if let Some(rtt) = ack.rtt {
            self.sample(rtt);
        }
    }

    /// Whether `ack` ends the round. After `restart` the first ACK begins a round instead.
    pub fn at_round_end(&mut self, ack: &AckSample) -> bool {
        if self.restart {
            self.restart = false;
            self.next_round(ack);
            return false;
        }
        ack.snd_una >= self.end
    }

    /// Begin the next round at this ACK: it ends when snd_una reaches today's snd_nxt.
    pub fn next_round(&mut self, ack: &AckSample) {
        self.end = ack.snd_nxt;
        self.min = None;
        self.max = None;
        self.sum = Duration::ZERO;
        self.count = 0;
    }

    /// Forget this round's samples; the next ACK begins a new round.
    pub fn restart(&mut self) {
        self.restart = true;
        self.min = None;
        self.max = None;
        self.sum = Duration::ZERO;
        self.count = 0;
    }

    /// The segments a window of `cwnd_segments` keeps queued if this round's smallest RTT is
    /// its RTT: cwnd · (RTT − BaseRTT) / RTT — Vegas' diff = (Expected − Actual) · BaseRTT
    /// (Brakmo & Peterson 1995 §3.2), Veno's backlog N (Fu & Liew 2003 §II.A), YeAH's Q.
    pub fn backlog(&self, cwnd_segments: f64) -> Option<f64> {
        let (base, rtt) = (self.base?, self.min?);
        if rtt.is_zero() {
            return None;
        }
        Some(cwnd_segments * (1.0 - base.as_nanos() as f64 / rtt.as_nanos() as f64))
    }

    /// Where the current round ends (snd_una reaching it).
    #[cfg(test)]
    pub fn round_end(&self) -> u64 {
        self.end
    }

    /// This round's mean RTT.
    pub fn mean(&self) -> Option<Duration> {
        (self.count > 0).then(|| self.sum / self.count as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backlog_is_the_window_times_the_queueing_share_of_the_rtt() {
        let mut r = RttRounds::default();
        r.sample(Duration::from_millis(100));
        r.next_round(&crate::cc::test_events::sample(0, 0));
        r.sample(Duration::from_millis(125));
        r.sample(Duration::from_millis(150));
        // 20 segments over 125 ms of which 25 ms queueing: 4 segments queued.
        assert!((r.backlog(20.0).unwrap() - 4.0).abs() < 1e-9);
        assert_eq!(r.mean(), Some(Duration::from_micros(137_500)));
        assert_eq!(r.max, Some(Duration::from_millis(150)));
        assert_eq!(r.base, Some(Duration::from_millis(100)));
    }
}
