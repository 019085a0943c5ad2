//! BBR v1 (Cardwell et al., "BBR: Congestion-Based Congestion Control", ACM Queue 2016;
//! draft-cardwell-iccrg-bbr-congestion-control-00), with the details of Linux's tcp_bbr where
//! the draft leaves room: gains in 1/256 units, the pacing margin of 1 %, the cwnd quantization
//! budget of three send quanta, the ACK-aggregation allowance, packet conservation in the first
//! round of fast recovery, cwnd restoration when recovery ends, and the long-term bandwidth
//! sampling that takes over when a fifth or more of what BBR sends is lost (`bbr_lt.rs`).
//!
//! The model: BtlBw, a windowed maximum of delivery-rate samples over 10 round trips; RTprop,
//! the minimum RTT over 10 s. Pacing rate = pacing_gain · BtlBw; cwnd = cwnd_gain · BDP (+ the
//! allowances). States: Startup (gain 2/ln 2 until the bandwidth stops growing by 25 % for
//! three rounds), Drain (the inverse gain until inflight ≤ BDP), ProbeBW (the eight-phase gain
//! cycle 5/4, 3/4, 1 × 6), ProbeRTT (cwnd 4 packets for 200 ms and a round, when RTprop is
//! 10 s old). BBR sets cwnd itself on every ACK (`on_rate_ack`): the window changes of loss
//! recovery (the trait's defaults, which write through `store_cwnd`) do not apply, as Linux
//! skips PRR for BBR.
//!
//! Not modelled (Linux's tcp_bbr has them): app-limited marking (bulk senders only), idle
//! restart, and the random first ProbeBW phase: the cycle starts at its last phase, so the
//! first probe (gain 5/4) comes one RTprop after Drain.

use super::bbr_lt::{LtBw, LtInput, LtVerdict};
use super::minmax::WindowedMax;
use super::{
    CaState, CongestionControl, CongestionEvent, Connected, OwnWrite, RateAck, Timeout, Undo,
    Window,
};
use crate::delivery_rate::RateSample;
use rexmit_time::{Duration, Time};

/// Gains are fixed point in units of 1/256 (Linux's BBR_UNIT).
const UNIT: u64 = 256;
/// 2/ln 2: the smallest gain that doubles the sending rate every round (paper §Startup).
const HIGH_GAIN: u64 = UNIT * 2885 / 1000 + 1;
const DRAIN_GAIN: u64 = UNIT * 1000 / 2885;
const CWND_GAIN: u64 = UNIT * 2;
const CYCLE_LEN: usize = 8;
const PACING_GAIN: [u64; CYCLE_LEN] = [
    UNIT * 5 / 4,
    UNIT * 3 / 4,
    UNIT,
    UNIT,
    UNIT,
    UNIT,
    UNIT,
    UNIT,
];
/// BtlBw filter window in round trips.
const BW_WINDOW_ROUNDS: u64 = CYCLE_LEN as u64 + 2;
const MIN_RTT_WINDOW: Duration = Duration::from_secs(10);
const PROBE_RTT_DURATION: Duration = Duration::from_millis(200);
/// Startup ends when BtlBw grew by less than 25 % in three rounds in a row.
const FULL_BW_THRESH: u64 = UNIT * 5 / 4;
const FULL_BW_COUNT: u32 = 3;
const CWND_MIN_TARGET: u64 = 4;
/// Pace 1 % below the estimate, to drain queues left by bursts (Linux).
const PACING_MARGIN_PERCENT: u64 = 1;
/// Below 1.2 Mb/s a send quantum is one segment, else two (Linux's bbr_min_tso_segs).
const MIN_TSO_RATE_BYTES: u64 = 1_200_000 / 8;
/// The initial window when no RTT is known yet (RFC 6928, Linux's TCP_INIT_CWND).
const INIT_CWND: u64 = 10;
/// ACK aggregation: the allowance is the largest excess of acknowledged over expected data in
/// the last 5–10 rounds, at most 100 ms of BtlBw.
const EXTRA_ACKED_WIN_ROUNDS: u32 = 5;
const EXTRA_ACKED_MAX: Duration = Duration::from_millis(100);
const ACK_EPOCH_RESET_PACKETS: u64 = 1 << 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

#[derive(Clone, Debug)]
pub struct Bbr {
    w: Window,
    pub mode: Mode,
    /// BtlBw samples in bytes per second, windowed by round count.
    bw: WindowedMax,
    pub min_rtt: Option<Duration>,
    /// When RTprop was last measured (set by the first ACK if the handshake gave RTprop).
    min_rtt_stamp: Option<Time>,
    probe_rtt_done_stamp: Option<Time>,
    probe_rtt_round_done: bool,
    /// cwnd (packets) before recovery or ProbeRTT, restored after.
    prior_cwnd: u64,
    /// Round trips counted by delivered data (paper: "packet-timed round trips").
    pub round_count: u64,
    next_round_delivered: u64,
    round_start: bool,
    packet_conservation: bool,
    /// Segments marked lost on the connection so far (Linux tp->lost), for the long-term
    /// sampler.
    lost_total: u64,
    prev_ca_state: CaState,
    full_bw: u64,
    full_bw_count: u32,
    pub full_bw_reached: bool,
    pub cycle_idx: usize,
    cycle_stamp: Time,
    pub pacing_gain: u64,
    cwnd_gain: u64,
    /// Bytes per second; 0 until the first RTT is known.
    pacing_rate: u64,
    has_seen_rtt: bool,
    extra_acked: [u64; 2],
    extra_acked_win_rounds: u32,
    extra_acked_win_idx: usize,
    ack_epoch_stamp: Time,
    ack_epoch_acked: u64,
    /// Long-term bandwidth sampling (Linux bbr_lt_bw_sampling).
    lt: LtBw,
    /// Bytes delivered so far, as of the last ACK (for the sample a timeout makes).
    delivered: u64,
}

impl Bbr {
    pub fn new(mut w: Window) -> Self {
        // BBR keeps no slow-start threshold of its own (Linux leaves snd_ssthresh untouched
        // until Drain sets it to the estimated BDP).
        w.ssthresh = u64::MAX / 2;
        Bbr {
            w,
            mode: Mode::Startup,
            bw: WindowedMax::default(),
            min_rtt: None,
            min_rtt_stamp: None,
            probe_rtt_done_stamp: None,
            probe_rtt_round_done: false,
            prior_cwnd: 0,
            round_count: 0,
            next_round_delivered: 0,
            round_start: false,
            packet_conservation: false,
            lost_total: 0,
            prev_ca_state: CaState::Open,
            full_bw: 0,
            full_bw_count: 0,
            full_bw_reached: false,
            cycle_idx: 0,
            cycle_stamp: Time::ZERO,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            pacing_rate: 0,
            has_seen_rtt: false,
            extra_acked: [0; 2],
            extra_acked_win_rounds: 0,
            extra_acked_win_idx: 0,
            ack_epoch_stamp: Time::ZERO,
            ack_epoch_acked: 0,
            lt: LtBw::default(),
            delivered: 0,
        }
    }

    fn smss(&self) -> u64 {
        self.w.smss.max(1)
    }
    fn cwnd_packets(&self) -> u64 {
        self.w.cwnd / self.smss()
    }
    fn set_cwnd_packets(&mut self, p: u64) {
        self.w.cwnd = p * self.smss();
    }
    /// BtlBw in bytes per second: the windowed maximum, or the long-term bandwidth while
    /// that is in use (Linux bbr_bw).
    pub fn btl_bw(&self) -> u64 {
        self.lt.in_use().unwrap_or_else(|| self.bw.get())
    }

    /// Packets of `gain` × BDP at `bw` (rounded up), or the initial window before any RTT.
    fn bdp(&self, bw: u64, gain: u64) -> u64 {
        let Some(rtt) = self.min_rtt else {
            return INIT_CWND;
        };
        let bytes =
            bw as u128 * rtt.as_nanos() as u128 * gain as u128 / (UNIT as u128 * 1_000_000_000);
        (bytes as u64).div_ceil(self.smss())
    }

    /// Packets per send quantum at the current pacing rate (Linux bbr_tso_segs_goal: about
    /// 1 ms of data, at least two segments above 1.2 Mb/s).
    fn send_quantum(&self) -> u64 {
        let min = if self.pacing_rate < MIN_TSO_RATE_BYTES {
            1
        } else {
            2
        };
        ((self.pacing_rate >> 10) / self.smss()).clamp(min, 127)
    }

    /// cwnd target plus room for the quanta in flight at the sender, the receiver's delayed
    /// ACKs and the probing phase (Linux bbr_quantization_budget).
    fn quantization_budget(&self, cwnd: u64) -> u64 {
        let mut cwnd = cwnd + 3 * self.send_quantum();
        cwnd = (cwnd + 1) & !1;
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            cwnd += 2;
        }
        cwnd
    }

    fn inflight(&self, bw: u64, gain: u64) -> u64 {
        self.quantization_budget(self.bdp(bw, gain))
    }

    fn pacing_for(&self, bw: u64, gain: u64) -> u64 {
        (bw as u128 * gain as u128 * (100 - PACING_MARGIN_PERCENT) as u128 / (UNIT as u128 * 100))
            as u64
    }

    /// Before any bandwidth sample: pace the initial window over srtt / high gain.
    fn init_pacing_from_rtt(&mut self, srtt: Option<Duration>) {
        let rtt = match srtt {
            Some(r) if !r.is_zero() => {
                self.has_seen_rtt = true;
                r
            }
            _ => Duration::from_millis(1),
        };
        let bw = (self.w.cwnd as u128 * 1_000_000_000 / rtt.as_nanos() as u128) as u64;
        self.pacing_rate = self.pacing_for(bw, HIGH_GAIN);
    }

    fn save_cwnd(&mut self) {
        let cwnd = self.cwnd_packets();
        self.prior_cwnd = if self.prev_ca_state == CaState::Open && self.mode != Mode::ProbeRtt {
            cwnd
        } else {
            self.prior_cwnd.max(cwnd)
        };
    }

    fn enter_startup(&mut self) {
        self.mode = Mode::Startup;
    }

    fn enter_probe_bw(&mut self, now: Time) {
        self.mode = Mode::ProbeBw;
        // Linux starts at a random phase other than the 3/4 one; we start at the last phase.
        self.cycle_idx = CYCLE_LEN - 1;
        self.advance_cycle_phase(now);
    }

    fn advance_cycle_phase(&mut self, now: Time) {
        self.cycle_idx = (self.cycle_idx + 1) % CYCLE_LEN;
        self.cycle_stamp = now;
    }

    /// Paper §ProbeBW: a phase lasts one RTprop; the 5/4 phase longer, until inflight reaches
    /// 5/4 BDP or a loss; the 3/4 phase ends early once inflight is down to the BDP.
    fn is_next_cycle_phase(&self, now: Time, rs: &RateSample, losses: bool) -> bool {
        let full_length = self
            .min_rtt
            .is_some_and(|m| now.saturating_since(self.cycle_stamp) > m);
        let gain = self.pacing_gain;
        if gain == UNIT {
            return full_length;
        }
        let mut inflight = rs.prior_in_flight.div_ceil(self.smss());
        if gain > UNIT {
            // Linux bbr_packets_in_net_at_edt: the quantum about to leave counts as in flight.
            inflight += self.send_quantum();
            return full_length && (losses || inflight >= self.inflight(self.btl_bw(), gain));
        }
        full_length || inflight <= self.inflight(self.btl_bw(), UNIT)
    }

    fn update_bw(&mut self, a: &RateAck) {
        self.round_start = false;
        let Some(bw) = a.rs.rate() else { return };
        // A round ends when data sent after the round began is delivered.
        if a.rs.prior_delivered >= self.next_round_delivered {
            self.next_round_delivered = a.delivered;
            self.round_count += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        self.lt_sample(a.now, a.losses, a.delivered, a.rs.is_app_limited);
        // Linux bbr_update_bw: an application-limited sample counts only if it raises the
        // maximum (it says at least that much gets through, not that no more would).
        if !a.rs.is_app_limited || bw >= self.bw.get() {
            self.bw.update(BW_WINDOW_ROUNDS, self.round_count, bw);
        }
    }

    /// Linux bbr_lt_bw_sampling and what its verdict changes.
    fn lt_sample(&mut self, now: Time, losses: u64, delivered: u64, app_limited: bool) {
        let verdict = self.lt.on_sample(&LtInput {
            now,
            round_start: self.round_start,
            probe_bw: self.mode == Mode::ProbeBw,
            losses,
            lost_total: self.lost_total,
            delivered,
            smss: self.smss(),
            app_limited,
        });
        match verdict {
            LtVerdict::Nothing => {}
            // bbr_lt_bw_interval_done: "try to avoid drops".
            LtVerdict::StartUsing => self.pacing_gain = UNIT,
            // bbr_reset_probe_bw_mode.
            LtVerdict::StopUsing => self.enter_probe_bw(now),
        }
    }

    fn update_ack_aggregation(&mut self, a: &RateAck) {
        if a.rs.acked_sacked == 0 || a.rs.rate().is_none() {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rounds = (self.extra_acked_win_rounds + 1).min(0x1f);
            if self.extra_acked_win_rounds >= EXTRA_ACKED_WIN_ROUNDS {
                self.extra_acked_win_rounds = 0;
                self.extra_acked_win_idx ^= 1;
                self.extra_acked[self.extra_acked_win_idx] = 0;
            }
        }
        let smss = self.smss();
        let epoch = a.now.saturating_since(self.ack_epoch_stamp);
        let mut expected =
            (self.btl_bw() as u128 * epoch.as_nanos() as u128 / 1_000_000_000) as u64 / smss;
        let acked = a.rs.acked_sacked.div_ceil(smss);
        if self.ack_epoch_acked <= expected
            || self.ack_epoch_acked + acked >= ACK_EPOCH_RESET_PACKETS
        {
            self.ack_epoch_acked = 0;
            self.ack_epoch_stamp = a.now;
            expected = 0;
        }
        self.ack_epoch_acked = (self.ack_epoch_acked + acked).min(0xfffff);
        let extra =
            (self.ack_epoch_acked - expected.min(self.ack_epoch_acked)).min(self.cwnd_packets());
        let slot = &mut self.extra_acked[self.extra_acked_win_idx];
        *slot = (*slot).max(extra);
    }

    fn ack_aggregation_cwnd(&self) -> u64 {
        if !self.full_bw_reached {
            return 0;
        }
        let max = (self.btl_bw() as u128 * EXTRA_ACKED_MAX.as_nanos() as u128 / 1_000_000_000)
            as u64
            / self.smss();
        self.extra_acked[0].max(self.extra_acked[1]).min(max)
    }

    /// Linux bbr_check_full_bw_reached (an application-limited round says nothing of it).
    fn check_full_bw_reached(&mut self, app_limited: bool) {
        if self.full_bw_reached || !self.round_start || app_limited {
            return;
        }
        // Linux bbr_max_bw: the filter itself.
        let bw = self.bw.get();
        if bw as u128 * UNIT as u128 >= self.full_bw as u128 * FULL_BW_THRESH as u128
            && bw > self.full_bw
        {
            self.full_bw = bw;
            self.full_bw_count = 0;
            return;
        }
        self.full_bw_count += 1;
        self.full_bw_reached = self.full_bw_count >= FULL_BW_COUNT;
    }

    fn check_drain(&mut self, a: &RateAck) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            self.w.ssthresh = self.inflight(self.btl_bw(), UNIT) * self.smss();
        }
        if self.mode == Mode::Drain
            && a.in_flight.div_ceil(self.smss()) <= self.inflight(self.btl_bw(), UNIT)
        {
            self.enter_probe_bw(a.now);
        }
    }

    fn update_min_rtt(&mut self, a: &RateAck) {
        let stamp = *self.min_rtt_stamp.get_or_insert(a.now);
        let expired = a.now > stamp + MIN_RTT_WINDOW;
        if let Some(rtt) = a.rs.rtt {
            if self.min_rtt.is_none_or(|m| rtt < m) || expired {
                self.min_rtt = Some(rtt);
                self.min_rtt_stamp = Some(a.now);
            }
        }
        if expired && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd();
            self.probe_rtt_done_stamp = None;
        }
        if self.mode != Mode::ProbeRtt {
            return;
        }
        if self.probe_rtt_done_stamp.is_none()
            && a.in_flight.div_ceil(self.smss()) <= CWND_MIN_TARGET
        {
            self.probe_rtt_done_stamp = Some(a.now + PROBE_RTT_DURATION);
            self.probe_rtt_round_done = false;
            self.next_round_delivered = a.delivered;
        } else if let Some(done) = self.probe_rtt_done_stamp {
            if self.round_start {
                self.probe_rtt_round_done = true;
            }
            if self.probe_rtt_round_done && a.now > done {
                // Wait another 10 s before the next ProbeRTT; restore the window.
                self.min_rtt_stamp = Some(a.now);
                let cwnd = self.cwnd_packets().max(self.prior_cwnd);
                self.set_cwnd_packets(cwnd);
                if self.full_bw_reached {
                    self.enter_probe_bw(a.now);
                } else {
                    self.enter_startup();
                }
            }
        }
    }

    fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (HIGH_GAIN, HIGH_GAIN),
            Mode::Drain => (DRAIN_GAIN, HIGH_GAIN),
            Mode::ProbeBw if self.lt.in_use().is_some() => (UNIT, CWND_GAIN),
            Mode::ProbeBw => (PACING_GAIN[self.cycle_idx], CWND_GAIN),
            Mode::ProbeRtt => (UNIT, UNIT),
        };
    }

    fn set_pacing_rate(&mut self, srtt: Option<Duration>) {
        if !self.has_seen_rtt && srtt.is_some() {
            self.init_pacing_from_rtt(srtt);
        }
        let rate = self.pacing_for(self.btl_bw(), self.pacing_gain);
        // In Startup the rate never falls (early samples underestimate the path).
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    /// Packet conservation in the first round of fast recovery, restoration after it (Linux
    /// bbr_set_cwnd_to_recover_or_restore). Returns the cwnd and whether it is final.
    fn recover_or_restore(&mut self, a: &RateAck, acked: u64) -> (u64, bool) {
        let mut cwnd = self.cwnd_packets();
        if a.losses > 0 {
            cwnd = cwnd.saturating_sub(a.losses).max(1);
        }
        let in_flight = a.in_flight.div_ceil(self.smss());
        if a.ca_state == CaState::Recovery && self.prev_ca_state != CaState::Recovery {
            self.packet_conservation = true;
            // The round starts now.
            self.next_round_delivered = a.delivered;
            cwnd = in_flight + acked;
        } else if self.prev_ca_state != CaState::Open && a.ca_state == CaState::Open {
            cwnd = cwnd.max(self.prior_cwnd);
            self.packet_conservation = false;
        }
        self.prev_ca_state = a.ca_state;
        if self.packet_conservation {
            return (cwnd.max(in_flight + acked), true);
        }
        (cwnd, false)
    }

    fn set_cwnd(&mut self, a: &RateAck) {
        let acked = a.rs.acked_sacked.div_ceil(self.smss());
        let mut cwnd = self.cwnd_packets();
        if acked > 0 {
            let (c, done) = self.recover_or_restore(a, acked);
            cwnd = c;
            if !done {
                let target = self.quantization_budget(
                    self.bdp(self.btl_bw(), self.cwnd_gain) + self.ack_aggregation_cwnd(),
                );
                if self.full_bw_reached {
                    cwnd = (cwnd + acked).min(target);
                } else if cwnd < target || a.delivered < INIT_CWND * self.smss() {
                    cwnd += acked;
                }
                cwnd = cwnd.max(CWND_MIN_TARGET);
            }
        }
        if self.mode == Mode::ProbeRtt {
            cwnd = cwnd.min(CWND_MIN_TARGET);
        }
        self.set_cwnd_packets(cwnd);
    }
}

impl CongestionControl for Bbr {
    fn on_ack(&mut self, _ack: &super::AckSample) {}

    /// Fast recovery begins: remember the window (Linux bbr_ssthresh saves cwnd and leaves
    /// ssthresh alone); the window itself follows on the next ACKs.
    fn on_congestion_event(&mut self, _ev: &CongestionEvent) {
        self.save_cwnd();
    }

    /// Retransmission timeout: cwnd = 1 segment (RFC 5681 §3.1, Linux tcp_enter_loss); the
    /// timeout ends a round and restarts the search for full bandwidth.
    fn on_timeout(&mut self, ev: &Timeout) {
        // Linux tcp_timeout_mark_lost counts the timeout's losses before bbr_set_state.
        self.lost_total = ev.lost_total;
        self.save_cwnd();
        self.prev_ca_state = CaState::Loss;
        self.full_bw = 0;
        self.round_start = true;
        // Linux bbr_set_state(TCP_CA_Loss): the timeout is a loss ending a round for the
        // long-term sampler.
        self.lt_sample(ev.now, 1, self.delivered, false);
        self.w.cwnd = self.w.smss;
        self.w.ssthresh = ev.ssthresh_to_keep(self.w.ssthresh);
    }

    /// A reduction was spurious: BBR's window is its model's, not the one before the
    /// reduction; the model forgets what the false loss may have taught it (Linux
    /// bbr_undo_cwnd: the full-bandwidth search and the long-term sampler restart).
    fn on_undo(&mut self, ev: &Undo) {
        self.full_bw = 0;
        self.full_bw_count = 0;
        self.lt.reset(ev.now, self.delivered);
    }

    fn window(&self) -> u64 {
        self.w.cwnd
    }
    fn ssthresh(&self) -> u64 {
        self.w.ssthresh
    }
    /// Loss recovery's window changes do not apply: BBR sets cwnd on every ACK.
    fn store_cwnd(&mut self, _cwnd: u64, _: OwnWrite) {}
    fn store_ssthresh(&mut self, ssthresh: u64, _: OwnWrite) {
        self.w.ssthresh = ssthresh;
    }

    fn wants_rate_samples(&self) -> bool {
        true
    }

    fn on_connected(&mut self, ev: &Connected) {
        self.min_rtt = ev.min_rtt;
        self.init_pacing_from_rtt(ev.srtt);
    }

    fn on_rate_ack(&mut self, a: &RateAck) {
        self.delivered = a.delivered;
        self.lost_total = a.lost_total;
        self.update_bw(a);
        self.update_ack_aggregation(a);
        if self.mode == Mode::ProbeBw && self.is_next_cycle_phase(a.now, &a.rs, a.losses > 0) {
            self.advance_cycle_phase(a.now);
        }
        self.check_full_bw_reached(a.rs.is_app_limited);
        self.check_drain(a);
        self.update_min_rtt(a);
        self.update_gains();
        self.set_pacing_rate(a.srtt);
        self.set_cwnd(a);
    }

    fn pacing_rate(&self) -> Option<u64> {
        (self.pacing_rate > 0).then_some(self.pacing_rate)
    }

    fn name(&self) -> &str {
        "bbr"
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_events::{loss, timeout};
    use super::*;

    const SMSS: u64 = 1000;

    fn bbr() -> Bbr {
        let mut b = Bbr::new(Window::new(10 * SMSS, u64::MAX / 2, SMSS));
        b.on_connected(&Connected {
            now: Time::ZERO,
            smss: SMSS,
            srtt: Some(Duration::from_millis(100)),
            min_rtt: Some(Duration::from_millis(100)),
        });
        b
    }

    /// One ACK at `t_ms` closing a round: `bytes` delivered over 100 ms since the round's
    /// sampled segment left, `in_flight` packets left, RTT 100 ms.
    struct Feed {
        delivered: u64,
        /// The samples are application-limited.
        app_limited: bool,
    }
    impl Feed {
        fn round(&mut self, b: &mut Bbr, t_ms: u64, bytes: u64, in_flight: u64) {
            let prior = self.delivered;
            self.delivered += bytes;
            let rs = RateSample {
                delivered: bytes,
                interval: Duration::from_millis(100),
                prior_delivered: prior,
                acked_sacked: bytes,
                prior_in_flight: in_flight * SMSS,
                rtt: Some(Duration::from_millis(100)),
                is_app_limited: self.app_limited,
            };
            b.on_rate_ack(&RateAck {
                now: Time::from_millis(t_ms),
                rs,
                delivered: self.delivered,
                in_flight: in_flight * SMSS,
                losses: 0,
                lost_total: 0,
                ca_state: CaState::Open,
                srtt: Some(Duration::from_millis(100)),
            });
        }
    }

    /// Paper §Startup/Drain: the bandwidth doubles for four rounds, then stays: after three
    /// rounds without 25 % growth BBR drains (ssthresh = BDP + the quanta) and, once inflight
    /// is down to the BDP, probes at gain 5/4.
    #[test]
    fn startup_ends_after_three_flat_rounds_then_drain_then_probe_bw() {
        let mut b = bbr();
        // Pacing before any sample: 2.885 × 10 packets / 100 ms, less 1 %.
        assert_eq!(b.pacing_rate(), Some(100_000 * 739 * 99 / 25_600));
        let mut f = Feed {
            delivered: 0,
            app_limited: false,
        };
        for (r, kb) in [10u64, 20, 40, 80].into_iter().enumerate() {
            f.round(&mut b, 200 + 100 * r as u64, kb * 1000, 300);
            assert_eq!(b.mode, Mode::Startup);
        }
        assert_eq!(b.btl_bw(), 800_000);
        f.round(&mut b, 600, 80_000, 300);
        f.round(&mut b, 700, 80_000, 300);
        assert_eq!((b.mode, b.full_bw_reached), (Mode::Startup, false));
        f.round(&mut b, 800, 80_000, 300);
        // BDP = 800 kB/s × 100 ms = 80 packets, plus 3 quanta of 2 packets.
        assert_eq!((b.mode, b.ssthresh()), (Mode::Drain, 86 * SMSS));
        assert_eq!(b.pacing_rate(), Some(800_000 * 88 * 99 / 25_600));
        f.round(&mut b, 900, 80_000, 86);
        assert_eq!(
            (b.mode, b.cycle_idx, b.pacing_gain),
            (Mode::ProbeBw, 0, UNIT * 5 / 4)
        );
        assert_eq!(b.pacing_rate(), Some(800_000 * 320 * 99 / 25_600));
    }

    /// Paper §ProbeRTT: RTprop not measured anew for 10 s: cwnd 4 packets until inflight is
    /// down to 4, then for 200 ms and a round; then the window before ProbeRTT returns.
    #[test]
    fn probe_rtt_after_ten_seconds_without_a_lower_rtt() {
        let mut b = bbr();
        let mut f = Feed {
            delivered: 0,
            app_limited: false,
        };
        let mut t = 200;
        for kb in [10u64, 20, 40, 80, 80, 80, 80, 80] {
            f.round(&mut b, t, kb * 1000, 80);
            t += 100;
        }
        assert_eq!(b.mode, Mode::ProbeBw);
        // 10 s of 100 ms rounds at 800 kB/s with RTT 100 ms: no RTT below RTprop.
        while t <= 10_200 {
            f.round(&mut b, t, 80_000, 80);
            assert_eq!(b.mode, Mode::ProbeBw, "t = {t}");
            t += 100;
        }
        let before = b.window() / SMSS;
        f.round(&mut b, t, 80_000, 80);
        assert_eq!((b.mode, b.window() / SMSS), (Mode::ProbeRtt, 4));
        // Inflight drains to 4: the 200 ms start now.
        t += 100;
        f.round(&mut b, t, 4_000, 4);
        let start = t;
        t += 100;
        f.round(&mut b, t, 4_000, 4);
        assert_eq!(b.mode, Mode::ProbeRtt, "only 100 ms of the 200");
        t += 101;
        f.round(&mut b, t, 4_000, 4);
        assert!(t > start + 200);
        assert_eq!(b.mode, Mode::ProbeBw);
        assert!(
            b.window() / SMSS >= before,
            "cwnd {} restored to at least {before}",
            b.window() / SMSS
        );
    }

    /// Linux bbr_undo_cwnd: an undo restarts the search for full bandwidth. Two flat rounds
    /// of the three that end Startup, then an undo: the next round is the new reference and
    /// three flat rounds more are needed. The window is BBR's own, untouched by the undo's prior window.
    #[test]
    fn an_undo_restarts_the_search_for_full_bandwidth() {
        let mut b = bbr();
        let mut f = Feed {
            delivered: 0,
            app_limited: false,
        };
        for (r, kb) in [10u64, 20, 40, 80, 80, 80].into_iter().enumerate() {
            f.round(&mut b, 200 + 100 * r as u64, kb * 1000, 300);
        }
        let cwnd = b.window();
        b.on_undo(&Undo {
            now: Time::from_millis(750),
            cause: super::super::UndoCause::Dsack,
            prior_cwnd: 10 * cwnd,
            prior_ssthresh: u64::MAX,
        });
        assert_eq!(b.window(), cwnd);
        for t in [800, 900, 1_000] {
            f.round(&mut b, t, 80_000, 300);
            assert_eq!(b.mode, Mode::Startup, "t = {t}");
        }
        f.round(&mut b, 1_100, 80_000, 300);
        assert_eq!(b.mode, Mode::Drain);
    }

    /// Eight rounds at 80 packets in flight, the bandwidth doubling to 80 kB per round.
    fn past_startup() -> (Bbr, Feed) {
        let mut b = bbr();
        let mut f = Feed {
            delivered: 0,
            app_limited: false,
        };
        for (i, kb) in [10u64, 20, 40, 80, 80, 80, 80, 80].into_iter().enumerate() {
            f.round(&mut b, 200 + 100 * i as u64, kb * 1000, 80);
        }
        (b, f)
    }

    /// Linux bbr_update_bw: application-limited samples enter the bandwidth filter only when
    /// they raise its maximum, so ten rounds of a sender short of data (100 kB/s delivered)
    /// leave the 800 kB/s the path showed; the same samples unmarked replace it.
    #[test]
    fn app_limited_samples_do_not_lower_the_bandwidth_estimate() {
        for (app_limited, want) in [(true, 800_000), (false, 100_000)] {
            let (mut b, mut f) = past_startup();
            f.app_limited = app_limited;
            for i in 0..12 {
                f.round(&mut b, 1_000 + 100 * i, 10_000, 10);
            }
            assert_eq!(b.btl_bw(), want, "app-limited {app_limited}");
        }
    }

    /// Linux bbr_set_cwnd_to_recover_or_restore: the first round of fast recovery sends one
    /// packet per packet delivered (cwnd = inflight + acked), and leaving recovery restores the
    /// window saved when it began.
    #[test]
    fn packet_conservation_in_recovery_and_restoration_after() {
        let (mut b, mut f) = past_startup();
        let saved = b.window() / SMSS;
        b.on_congestion_event(&loss(Time::from_millis(1000), 0, SMSS));
        let rs = RateSample {
            delivered: 2000,
            interval: Duration::from_millis(100),
            prior_delivered: f.delivered,
            acked_sacked: 2000,
            prior_in_flight: 60_000,
            rtt: None,
            is_app_limited: false,
        };
        f.delivered += 2000;
        b.on_rate_ack(&RateAck {
            now: Time::from_millis(1001),
            rs,
            delivered: f.delivered,
            in_flight: 50 * SMSS,
            losses: 0,
            lost_total: 0,
            ca_state: CaState::Recovery,
            srtt: None,
        });
        assert_eq!(b.window() / SMSS, 52, "inflight 50 + 2 acked");
        let rs = RateSample {
            acked_sacked: 1000,
            ..rs
        };
        f.delivered += 1000;
        b.on_rate_ack(&RateAck {
            now: Time::from_millis(1100),
            rs,
            delivered: f.delivered,
            in_flight: 40 * SMSS,
            losses: 0,
            lost_total: 0,
            ca_state: CaState::Open,
            srtt: None,
        });
        assert!(
            b.window() / SMSS >= saved,
            "cwnd {} restored to {saved}",
            b.window() / SMSS
        );
    }

    /// A retransmission timeout: cwnd one segment, and loss recovery's window changes do not
    /// apply (BBR sets cwnd itself).
    #[test]
    fn timeout_sets_one_segment_and_recovery_window_changes_are_ignored() {
        let mut b = bbr();
        b.on_timeout(&timeout(Time::from_millis(500), 10 * SMSS, SMSS));
        assert_eq!(b.window(), SMSS);
        b.on_recovery_inflate(3, SMSS);
        b.on_recovery_dupack(SMSS);
        b.on_partial_ack(SMSS, SMSS);
        b.on_prr(40 * SMSS, 10 * SMSS);
        b.on_lost_syn(SMSS);
        b.on_go_back(SMSS);
        b.on_recovery_deflate();
        assert_eq!(b.window(), SMSS);
    }
}
