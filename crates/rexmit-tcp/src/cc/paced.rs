//! Pacing for any controller (`pacing = true`, issue 37 item 5): a controller that gives no
//! pacing rate of its own is wrapped in `Paced`, which forwards every event to it unchanged and
//! answers `pacing_rate` with Linux's sk_pacing_rate rule (tcp_update_pacing_rate):
//!   rate = ratio · max(cwnd, bytes in flight) / SRTT,
//! ratio = 2 while cwnd < ssthresh/2 (slow start: the window doubles each RTT, the pacing must
//! let it) and 1.2 after (tcp_pacing_ss_ratio = 200 %, tcp_pacing_ca_ratio = 120 %). A
//! controller with its own rate (BBR) keeps it. The sender paces with whatever the controller
//! answers (`sender::transmit`'s pacing clock); before the first SRTT there is no rate, as
//! Linux does not pace without srtt_us. The rate is computed when the sender asks, from the
//! controller's window now and the SRTT and flight of the last ACK (Linux recomputes it at the
//! end of each ACK's processing).

use super::{
    AckSample, CongestionControl, CongestionEvent, Connected, EcnEcho, IdleRestart, OwnWrite,
    RateAck, RecoveryEnd, RecoveryStart, Timeout, TxStart, Undo,
};
use rexmit_time::Duration;

/// Linux's tcp_pacing_ss_ratio and tcp_pacing_ca_ratio, in percent.
const SS_RATIO: u64 = 200;
const CA_RATIO: u64 = 120;

#[derive(Debug)]
pub struct Paced {
    inner: Box<dyn CongestionControl>,
    srtt: Option<Duration>,
    in_flight: u64,
}

impl Paced {
    pub fn new(inner: Box<dyn CongestionControl>) -> Self {
        Paced {
            inner,
            srtt: None,
            in_flight: 0,
        }
    }

    fn observe(&mut self, ack: &AckSample) {
        self.srtt = ack.srtt.or(self.srtt);
        self.in_flight = ack.snd_nxt.saturating_sub(ack.snd_una);
    }
}

impl CongestionControl for Paced {
    fn window(&self) -> u64 {
        self.inner.window()
    }
    fn ssthresh(&self) -> u64 {
        self.inner.ssthresh()
    }
    fn pacing_rate(&self) -> Option<u64> {
        if let Some(rate) = self.inner.pacing_rate() {
            return Some(rate);
        }
        let srtt = self.srtt.filter(|s| !s.is_zero())?;
        let (cwnd, ssthresh) = (self.inner.window(), self.inner.ssthresh());
        let ratio = if cwnd < ssthresh / 2 {
            SS_RATIO
        } else {
            CA_RATIO
        };
        let bytes = cwnd.max(self.in_flight) as u128 * ratio as u128 / 100;
        Some((bytes * 1_000_000_000 / srtt.as_nanos() as u128).min(u64::MAX as u128) as u64)
    }
    fn wants_rate_samples(&self) -> bool {
        self.inner.wants_rate_samples()
    }
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn store_cwnd(&mut self, cwnd: u64, w: OwnWrite) {
        self.inner.store_cwnd(cwnd, w)
    }
    fn store_ssthresh(&mut self, ssthresh: u64, w: OwnWrite) {
        self.inner.store_ssthresh(ssthresh, w)
    }
    fn on_connected(&mut self, ev: &Connected) {
        self.srtt = ev.srtt;
        self.inner.on_connected(ev)
    }
    fn on_lost_syn(&mut self, smss: u64) {
        self.inner.on_lost_syn(smss)
    }
    fn on_idle_restart(&mut self, ev: &IdleRestart) {
        self.inner.on_idle_restart(ev)
    }
    fn on_tx_start(&mut self, ev: &TxStart) {
        self.inner.on_tx_start(ev)
    }
    fn on_delivery(&mut self, ack: &AckSample) {
        self.observe(ack);
        self.inner.on_delivery(ack)
    }
    fn on_ack(&mut self, ack: &AckSample) {
        self.observe(ack);
        self.inner.on_ack(ack)
    }
    fn on_rate_ack(&mut self, ack: &RateAck) {
        self.inner.on_rate_ack(ack)
    }
    fn on_congestion_event(&mut self, ev: &CongestionEvent) {
        self.inner.on_congestion_event(ev)
    }
    fn on_timeout(&mut self, ev: &Timeout) {
        self.inner.on_timeout(ev)
    }
    fn on_ecn_echo(&mut self, ev: &EcnEcho) {
        self.inner.on_ecn_echo(ev)
    }
    fn on_recovery_start(&mut self, ev: &RecoveryStart) {
        self.inner.on_recovery_start(ev)
    }
    fn on_recovery_end(&mut self, ev: &RecoveryEnd) {
        self.inner.on_recovery_end(ev)
    }
    fn on_undo(&mut self, ev: &Undo) {
        self.inner.on_undo(ev)
    }
    fn on_recovery_inflate(&mut self, dupacks: u32, smss: u64) {
        self.inner.on_recovery_inflate(dupacks, smss)
    }
    fn on_recovery_dupack(&mut self, smss: u64) {
        self.inner.on_recovery_dupack(smss)
    }
    fn on_recovery_deflate(&mut self) {
        self.inner.on_recovery_deflate()
    }
    fn on_partial_ack(&mut self, acked: u64, smss: u64) {
        self.inner.on_partial_ack(acked, smss)
    }
    fn on_prr(&mut self, pipe: u64, sndcnt: u64) {
        self.inner.on_prr(pipe, sndcnt)
    }
    fn on_go_back(&mut self, smss: u64) {
        self.inner.on_go_back(smss)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_events::sample;
    use super::super::{reno, Window};
    use super::*;

    const SMSS: u64 = 1000;

    fn paced(cwnd: u64, ssthresh: u64) -> Paced {
        Paced::new(Box::new(reno(Window::new(cwnd, ssthresh, SMSS))))
    }

    #[test]
    fn rate_is_two_cwnd_per_srtt_in_slow_start_and_one_point_two_after() {
        let mut p = paced(10 * SMSS, 100 * SMSS);
        assert_eq!(p.pacing_rate(), None, "no SRTT yet");
        // SRTT 100 ms: cwnd 10 kB → 100 kB/s, twice that in slow start (cwnd < ssthresh/2).
        p.on_delivery(&sample(0, 0));
        assert_eq!(p.pacing_rate(), Some(200_000));
        // At ssthresh/2 and above: 120 %.
        let mut p = paced(50 * SMSS, 100 * SMSS);
        p.on_delivery(&sample(0, 0));
        assert_eq!(p.pacing_rate(), Some(600_000));
        // More in flight than cwnd (after a decrease): the flight counts.
        p.on_delivery(&AckSample {
            snd_una: 0,
            snd_nxt: 80 * SMSS,
            ..sample(0, 0)
        });
        assert_eq!(p.pacing_rate(), Some(960_000));
    }

    #[test]
    fn events_reach_the_controller_unchanged() {
        let mut p = paced(10 * SMSS, 100 * SMSS);
        p.on_ack(&sample(0, SMSS));
        assert_eq!(p.window(), 11 * SMSS);
        p.on_congestion_event(&super::super::test_events::loss(
            rexmit_time::Time::ZERO,
            11 * SMSS,
            SMSS,
        ));
        p.on_recovery_inflate(3, SMSS);
        assert_eq!((p.window(), p.ssthresh(), p.name()), (8_500, 5_500, "reno"));
    }
}
