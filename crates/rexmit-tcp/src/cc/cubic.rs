//! CUBIC (RFC 9438): window growth W_cubic(t) = C·(t − K)³ + W_max (§4.2) with the Reno-friendly
//! estimate W_est (§4.3), β_cubic = 0.7 multiplicative decrease (§4.6), fast convergence (§4.7)
//! the first congestion avoidance after a timeout (§4.8) and, as an option, an epoch that
//! leaves out idle time (§5.8).

use super::hystart::HyStart;
use super::window::window_in_field_w;
use super::{AckSample, CongestionControl, CongestionEvent, Timeout, TxStart, Window};
use rexmit_time::{Duration, Time};

const C: f64 = 0.4;
const BETA: f64 = 0.7;
/// §4.3: α_cubic = 3(1 − β_cubic)/(1 + β_cubic), AIMD(α, β) with Reno's average window.
const ALPHA: f64 = 3.0 * (1.0 - BETA) / (1.0 + BETA);

#[derive(Clone, Debug)]
pub struct Cubic {
    w: Window,
    /// W_max in segments (§4.1.2).
    w_max: f64,
    /// cwnd_prior in segments: cwnd just before the last reduction (§4.1.2).
    cwnd_prior: f64,
    /// Reno-friendly estimate W_est in segments (§4.3).
    w_est: f64,
    /// Start of the current congestion-avoidance epoch.
    epoch: Option<Time>,
    k: f64,
    /// The next epoch is the first congestion avoidance after a timeout (§4.8).
    after_timeout: bool,
    /// Linux's slow-start exit (`hystart`), when enabled.
    pub hystart: Option<HyStart>,
    /// §4.3: α_cubic becomes 1 once W_est reaches cwnd_prior. Linux's tcp_cubic (its
    /// `tcp_friendliness` estimate) keeps 3(1 − β)/(1 + β).
    alpha_switch: bool,
    /// §5.8: move the epoch past idle periods (`tcp.cubic_idle_epoch`).
    idle_epoch: bool,
}

impl Cubic {
    pub fn new(w: Window) -> Self {
        Cubic {
            w,
            w_max: 0.0,
            cwnd_prior: 0.0,
            w_est: 0.0,
            epoch: None,
            k: 0.0,
            after_timeout: false,
            hystart: None,
            alpha_switch: true,
            idle_epoch: false,
        }
    }
    /// CUBIC with or without HyStart and the §4.3 α switch (both as Linux: true, false).
    pub fn with_options(w: Window, hystart: bool, alpha_switch: bool) -> Self {
        Cubic {
            hystart: hystart.then(HyStart::default),
            alpha_switch,
            ..Cubic::new(w)
        }
    }
    /// The same, with only some of HyStart's detectors (Linux's hystart_detect bits).
    pub fn with_hystart_detect(mut self, bits: u8) -> Self {
        if let Some(h) = self.hystart.as_mut() {
            h.detect(bits);
        }
        self
    }
    /// The same, with the epoch leaving out idle time (§5.8) or not.
    pub fn with_idle_epoch(self, on: bool) -> Self {
        Cubic {
            idle_epoch: on,
            ..self
        }
    }
    fn seg(&self) -> f64 {
        self.w.cwnd as f64 / self.w.smss as f64
    }
    fn w_cubic(&self, t: f64) -> f64 {
        C * (t - self.k).powi(3) + self.w_max
    }
}

impl CongestionControl for Cubic {
    fn on_delivery(&mut self, ack: &AckSample) {
        // Linux discards delay samples in the first second of an epoch (after fast recovery).
        let discard = self
            .epoch
            .is_some_and(|e| ack.now.saturating_since(e) < Duration::from_secs(1));
        if let (Some(h), Some(rtt)) = (self.hystart.as_mut(), ack.rtt) {
            h.on_rtt_sample(rtt, discard);
        }
    }
    fn on_ack(&mut self, ack: &AckSample) {
        if let (Some(h), Some(rtt)) = (self.hystart.as_mut(), ack.rtt) {
            let cwnd = self.w.cwnd / self.w.smss;
            if self.w.in_slow_start()
                && h.on_slow_start_ack(ack.now, ack.snd_una, ack.snd_nxt, rtt, cwnd)
            {
                self.w.ssthresh = self.w.cwnd;
            }
        }
        let rest = self.w.slow_start(ack.acked);
        if rest == 0 {
            return;
        }
        let smss = self.w.smss as f64;
        let cwnd = self.seg();
        let epoch = *self.epoch.get_or_insert_with(|| {
            // §4.2: a new epoch starts at the first ACK of congestion avoidance, with
            // K = cbrt((W_max − cwnd_epoch)/C). §4.8: in the first congestion avoidance after a
            // timeout, K = 0 and W_max = cwnd_epoch. (A cwnd_epoch above W_max is treated the
            // same way, so that K is never negative.)
            if self.after_timeout || self.w_max <= cwnd {
                self.k = 0.0;
                self.w_max = cwnd;
            } else {
                self.k = ((self.w_max - cwnd) / C).cbrt();
            }
            self.after_timeout = false;
            // §4.3: W_est = cwnd_epoch at the start of congestion avoidance.
            self.w_est = cwnd;
            ack.now
        });
        let rtt = ack.srtt.unwrap_or(Duration::from_millis(100)).as_secs_f64();
        let t = ack.now.saturating_since(epoch).as_secs_f64();
        let segs_acked = rest as f64 / smss;
        // §4.3 eq. 4: W_est += α_cubic · segments_acked / cwnd, where "once W_est has grown to
        // reach the cwnd at the time of most recently setting ssthresh, that is,
        // W_est >= cwnd_prior, the sender SHOULD set α_cubic to 1".
        let alpha = if self.alpha_switch && self.w_est >= self.cwnd_prior {
            1.0
        } else {
            ALPHA
        };
        self.w_est += alpha * segs_acked / cwnd;
        // §4.3: "CUBIC checks whether W_cubic(t) is less than W_est. If so, CUBIC is in the
        // Reno-friendly region and cwnd SHOULD be set to W_est at each reception of a new ACK."
        // (cwnd is not lowered: it may already be above W_est from earlier cubic growth.)
        if self.w_cubic(t) < self.w_est {
            // In whole segments (Linux's tcp_friendliness grows its estimate a packet at a
            // time) cwnd follows ⌊W_est⌋.
            let est = if self.w.whole_segments {
                self.w_est.floor() as u64 * self.w.smss
            } else {
                (self.w_est * smss) as u64
            };
            if est > self.w.cwnd {
                self.w.cwnd = est;
                self.w.ca_credit = 0.0;
            }
            return;
        }
        // §4.2 target = W_cubic(t + RTT) bounded to [cwnd, 1.5·cwnd]; §4.4/§4.5: cwnd grows
        // by (target − cwnd)/cwnd per new ACK, here per acknowledged segment.
        let target = self.w_cubic(t + rtt).clamp(cwnd, 1.5 * cwnd);
        if target > cwnd {
            self.w.ca_credit += (target - cwnd) / cwnd * segs_acked * smss;
            // The credit goes to cwnd by the byte, or by the whole segment (Linux:
            // tcp_cong_avoid_ai with cnt = cwnd / (target − cwnd)).
            let unit = if self.w.whole_segments { smss } else { 1.0 };
            if self.w.ca_credit >= unit {
                let whole = (self.w.ca_credit / unit).floor() * unit;
                self.w.cwnd += whole as u64;
                self.w.ca_credit -= whole;
            }
        }
    }
    fn on_tx_start(&mut self, ev: &TxStart) {
        // RFC 9438 §5.8: "t ... does not include periods during which cwnd has not been
        // updated due to application-limited behavior, such as idle periods". Linux
        // (CA_EVENT_TX_START) moves the epoch's start forward by the time since the last
        // transmission, never past now.
        if let (true, Some(e)) = (self.idle_epoch, self.epoch) {
            self.epoch = Some((e + ev.idle).min(ev.now));
        }
    }
    fn on_congestion_event(&mut self, ev: &CongestionEvent) {
        let cwnd = self.seg();
        // §4.7 fast convergence (W_max is updated before the reduction).
        self.w_max = if cwnd < self.w_max {
            cwnd * (1.0 + BETA) / 2.0
        } else {
            cwnd
        };
        // §4.6: cwnd_prior = cwnd; ssthresh = max(flight_size · β_cubic, 2); cwnd = ssthresh.
        self.cwnd_prior = cwnd;
        self.epoch = None;
        self.w.decrease(ev.base, BETA);
    }
    fn on_timeout(&mut self, ev: &Timeout) {
        // §4.8: ssthresh with β_cubic as in §4.6, cwnd = 1 SMSS as in RFC 5681; the next
        // congestion avoidance starts with K = 0 and W_max = cwnd_epoch.
        self.on_congestion_event(&ev.congestion_event());
        self.w.loss_window(ev);
        self.after_timeout = true;
        if let Some(h) = self.hystart.as_mut() {
            h.restart();
        }
    }
    window_in_field_w!();
    fn name(&self) -> &str {
        "cubic"
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_events::{loss, sample, timeout};
    use super::*;

    /// One RTT (100 ms) of ACKs for a cwnd-limited flow: cwnd segments acknowledged, one ACK
    /// per segment, spread over the RTT.
    fn rtt_of_acks(c: &mut Cubic, t_ms: &mut u64) {
        let n = (c.window() / 1000).max(1);
        for i in 0..n {
            c.on_ack(&sample(*t_ms + i * 100 / n, 1000));
        }
        *t_ms += 100;
    }

    #[test]
    fn decrease_is_beta_and_regrowth_reaches_w_max_near_k() {
        let mut c = Cubic::new(Window::new(100_000, 100_000, 1000));
        c.on_congestion_event(&loss(Time::ZERO, 100_000, 1000));
        assert_eq!(c.window(), 70_000);
        // K = cbrt((100 − 70)/0.4) ≈ 4.2 s: after ~4.2 s of ACKs the window is back near 100.
        let mut t = 0;
        while t < 4_200 {
            rtt_of_acks(&mut c, &mut t);
        }
        let seg = c.window() / 1000;
        assert!((95..=105).contains(&seg), "cwnd {seg}");
    }

    /// §4.3: in the Reno-friendly region cwnd is W_est itself, which grows by α_cubic ≈ 0.53
    /// segment per RTT until it reaches cwnd_prior and by 1 segment per RTT after that.
    #[test]
    fn reno_friendly_region_sets_cwnd_to_w_est_and_alpha_becomes_one_at_cwnd_prior() {
        // cwnd 10 segments, reduced to 7: W_max = cwnd_prior = 10, K ≈ 1.96 s.
        let mut c = Cubic::new(Window::new(10_000, 10_000, 1000));
        c.on_congestion_event(&loss(Time::ZERO, 10_000, 1000));
        assert_eq!(c.window(), 7_000);
        // A burst of ACKs at one instant: W_cubic(0) = 7 stays below W_est, so every ACK
        // sets cwnd to W_est (the old code chased W_est, about half a segment behind).
        for _ in 0..20 {
            c.on_ack(&sample(1, 1000));
        }
        assert!(
            (c.window() as f64 - c.w_est * 1000.0).abs() < 1.0,
            "cwnd {} W_est {}",
            c.window(),
            c.w_est
        );
        // Per RTT below cwnd_prior: +α_cubic.
        let mut t = 1;
        let w0 = c.w_est;
        rtt_of_acks(&mut c, &mut t);
        let inc = c.w_est - w0;
        assert!(
            (0.45..0.6).contains(&inc),
            "increase {inc} per RTT below cwnd_prior"
        );
        // Grow past cwnd_prior = 10 (W_cubic(t) stays below W_est for these few RTTs).
        while c.w_est < 10.5 {
            rtt_of_acks(&mut c, &mut t);
        }
        assert!(t < 1_000, "still Reno-friendly: t = {t} ms < K");
        let w1 = c.w_est;
        rtt_of_acks(&mut c, &mut t);
        let inc = c.w_est - w1;
        assert!(
            (0.9..1.1).contains(&inc),
            "increase {inc} per RTT above cwnd_prior (α = 1)"
        );
        assert_eq!(c.window(), (c.w_est * 1000.0) as u64);
    }

    /// HyStart's minimum delay does not survive a timeout (Linux bictcp_reset on entering
    /// Loss): a path whose RTT rose from 40 to 80 ms (a route change, a standing queue) does not
    /// make the delay detector end the slow start after the timeout at once.
    #[test]
    fn hystart_forgets_its_minimum_delay_at_a_timeout() {
        let mut c = Cubic::with_options(Window::new(100_000, u64::MAX, 1000), true, false);
        let rtt = |now_ms, rtt_ms, acked| AckSample {
            rtt: Some(Duration::from_millis(rtt_ms)),
            ..sample(now_ms, acked)
        };
        c.on_delivery(&rtt(0, 40, 1000));
        c.on_timeout(&timeout(Time::from_millis(10), 100_000, 1000));
        assert_eq!(c.hystart.as_ref().and_then(|h| h.delay_min), None);
        // Slow start from one segment, ACKs 5 ms apart (no ACK train), every RTT 80 ms: cwnd
        // grows past HyStart's 16 segments and 8 samples; 80 ms is no increase over 80 ms.
        for i in 0..40 {
            let a = rtt(20 + 5 * i, 80, 1000);
            c.on_delivery(&a);
            c.on_ack(&a);
        }
        assert!(
            c.window() >= 40_000 && c.w.in_slow_start(),
            "cwnd {}",
            c.window()
        );
    }

    /// §4.8: the first congestion avoidance after a timeout starts a fresh curve, K = 0 and
    /// W_max = cwnd_epoch, instead of climbing back towards the W_max of before the timeout.
    #[test]
    fn first_congestion_avoidance_after_timeout_has_k_zero() {
        let mut c = Cubic::new(Window::new(100_000, u64::MAX, 1000));
        c.on_timeout(&timeout(Time::ZERO, 100_000, 1000));
        assert_eq!(c.ssthresh(), 70_000);
        assert_eq!(c.window(), 1_000);
        let mut t = 0;
        while c.window() < c.ssthresh() {
            rtt_of_acks(&mut c, &mut t);
        }
        // Slow start stops at ssthresh exactly (1-SMSS steps): the epoch starts at cwnd = 70.
        let epoch_cwnd = c.ssthresh() as f64 / 1000.0;
        // One second of congestion avoidance: W_cubic(t) = 0.4·t³ + cwnd_epoch stays close to
        // cwnd_epoch, so the growth is the Reno-friendly one (a few segments). With K computed
        // from the W_max of 100 segments the window would be back near 90.
        let start = t;
        while t < start + 1_000 {
            rtt_of_acks(&mut c, &mut t);
        }
        assert!(
            c.k == 0.0 && c.w_max == epoch_cwnd,
            "K {} W_max {}",
            c.k,
            c.w_max
        );
        let seg = c.window() as f64 / 1000.0;
        assert!(
            seg < epoch_cwnd + 12.0,
            "cwnd {seg} after 1 s from {epoch_cwnd}"
        );
    }
}
