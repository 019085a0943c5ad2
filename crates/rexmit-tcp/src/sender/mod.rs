//! The sending half of a connection: sequence pointers, send buffer, scoreboard, RTO timer,
//! congestion window and the choice of the next data segment to transmit.
//!
//! Owns: snd_una/snd_nxt/snd_max, the peer's window, RFC 6298 timer management and Karn's
//! rule, and transmission selection (new data, go-back-N after Tahoe-style resets, RFC 6675
//! NextSeg during SACK recovery: `transmit`). Does not own the reactions to duplicate ACKs,
//! partial ACKs and timeouts — those are the `recovery` module's, one file per algorithm — nor
//! the deadlines, which live in the connection's `TimerTable` (`crate::timers`) and are passed
//! in.

mod transmit;

use crate::cc::{AckSample, CaState, CongestionControl, RateAck};
use crate::config::{DecreaseBase, RecoveryAlgorithm, RtoRearm, TcpConfig};
use crate::delivery_rate::DeliveryRate;
use crate::recovery::{AckFacts, Actions, Cwnd, Recovery};
use crate::sack_scoreboard::{Delivered, Scoreboard};
use crate::send_buffer::SendBuffer;
use crate::stats::{RecoveryEpisode, RetransmitCause, TcpStats};
use crate::timers::{Timer, TimerTable};
use rexmit_time::{Duration, Time};
use rexmit_transport::rack::{LossScan, Rack};
use rexmit_transport::{early_retransmit_threshold, RttEstimator};

/// A change of the window by loss recovery, RACK-TLP or a timeout (`Sender::apply_window`).
#[derive(Clone, Copy, Debug)]
enum WindowChange {
    /// The controller's congestion response from `base` (ssthresh, cwnd), then `then`.
    Decrease {
        base: u64,
        then: Option<Cwnd>,
    },
    Set(Cwnd),
    /// RFC 5681 §3.1 / RFC 6298 §5: the controller's timeout response from `base`; `keep`:
    /// the ssthresh to keep (the smaller of the two, or that one after a repeated timeout).
    Timeout {
        base: u64,
        keep: Option<(u64, bool)>,
    },
}

/// What the connection should put in the next data segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DataTx {
    pub start: u64,
    /// Payload bytes (the FIN, if any, comes after them).
    pub len: u64,
    pub fin: bool,
    pub rexmit: Option<RetransmitCause>,
}

/// The fields of an incoming ACK the sender needs, converted to offsets.
#[derive(Clone, Debug, Default)]
pub struct AckInput {
    pub ack: u64,
    /// Peer's sequence offset of the segment (for RFC 9293 SND.WL1).
    pub seq: u64,
    /// Peer's window in bytes (already scaled).
    pub window: u64,
    pub sack: crate::receiver::OffsetBlocks,
    /// The segment carries data, SYN or FIN (then it is never a RFC 5681 duplicate ACK).
    pub has_data_or_flags: bool,
    /// RTT measured from the echoed timestamp (RFC 7323 §4.1), when timestamps are in use.
    pub ts_rtt: Option<Duration>,
}

pub struct Sender {
    /// Loss-recovery state and rules (`recovery`): episode, recover, HighRxt, RescueRxt, PRR.
    rec: Recovery,
    /// Index into `TcpStats::recoveries` of the open episode, when it is recorded there.
    episode_stats: Option<usize>,
    dup_thresh: u32,
    limited_transmit: bool,
    early_retransmit: bool,
    thin_linear_timeouts: bool,
    thin_dupack: bool,
    nagle: bool,
    pub(crate) smss: u64,
    pub(crate) snd_una: u64,
    pub(crate) snd_nxt: u64,
    pub(crate) snd_max: u64,
    pub(crate) buf: SendBuffer,
    pub(crate) sb: Scoreboard,
    /// Offset of our FIN once the application closed.
    pub(crate) fin_at: Option<u64>,
    snd_wnd: u64,
    /// Largest window the peer ever offered (RFC 9293 §3.8.6.2.1 Max(SND.WND)).
    max_snd_wnd: u64,
    snd_wl1: u64,
    snd_wl2: u64,
    pub(crate) cc: Box<dyn CongestionControl>,
    pub(crate) rtt: RttEstimator,
    rto_rearm: RtoRearm,
    decrease_base: DecreaseBase,
    probe_now: bool,
    dupacks: u32,
    /// New data sent beyond cwnd by limited transmit since snd_una last advanced (RFC 3042).
    lt_bytes: u64,
    /// How far the last ACK of new data moved snd_una (RFC 6582 §4.1 ACK heuristic).
    last_ack_advance: u64,
    /// Retransmission timeouts since snd_una last advanced (RFC 9293 §3.8.3 R2 count).
    pub(crate) consecutive_timeouts: u32,
    /// A retransmission that goes out regardless of cwnd (fast retransmit, partial ACK, RTO).
    pending_rexmit: Option<(u64, RetransmitCause)>,
    /// Segments marked lost on the connection so far, a segment again each time it is marked
    /// again after a resend (Linux tp->lost): what BBR's long-term sampler counts.
    lost_total: u64,
    /// Cause recorded for go-back-N resends from snd_nxt below snd_max.
    go_back_cause: RetransmitCause,
    /// Go-back-N resends at most cwnd / SMSS segments ahead of the ACKs, however small they
    /// are (`WindowUnit::Segments`: Linux counts cwnd in packets).
    go_back_in_packets: bool,
    /// RACK-TLP state when enabled (SACK recovery only).
    rack: Option<Rack>,
    /// RACK's reordering timer (RFC 8985 §6.3) and the probe timeout (§7.2).
    /// The probe timeout fired: the next transmission is a tail loss probe.
    tlp_pending: bool,
    /// Delivery-rate samples, kept only for controllers that ask (BBR).
    rate: Option<DeliveryRate>,
    /// Pacing (controllers with a pacing rate): the earliest time the next data segment may
    /// leave (Linux's tcp_wstamp_ns), whether a transmission is waiting for it, and how many
    /// new segments went out (Linux paces from the tenth on).
    pace_at: Time,
    paced_sent: u64,
}

impl std::fmt::Debug for Sender {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sender")
            .field("snd_una", &self.snd_una)
            .field("snd_nxt", &self.snd_nxt)
            .field("snd_max", &self.snd_max)
            .field("cwnd", &self.cc.window())
            .field("ssthresh", &self.cc.ssthresh())
            .finish()
    }
}

impl Sender {
    /// A sender whose first data byte is stream offset 1 (offset 0 is the SYN).
    pub fn new(cfg: &TcpConfig, smss: u64) -> Self {
        Sender {
            rec: Recovery::new(cfg.recovery, cfg.tahoe_recover_guard, cfg.prr)
                .with_prr_unit(cfg.window_unit_bytes(smss)),
            episode_stats: None,
            dup_thresh: cfg.dup_thresh,
            limited_transmit: cfg.limited_transmit,
            early_retransmit: cfg.early_retransmit,
            thin_linear_timeouts: cfg.thin_linear_timeouts,
            thin_dupack: cfg.thin_dupack,
            nagle: cfg.nagle,
            smss,
            snd_una: 1,
            snd_nxt: 1,
            snd_max: 1,
            buf: SendBuffer::new(1, cfg.send_buffer),
            sb: Scoreboard::default(),
            fin_at: None,
            snd_wnd: 0,
            max_snd_wnd: 0,
            snd_wl1: 0,
            snd_wl2: 0,
            cc: cfg.build_cc(smss),
            rtt: RttEstimator::new(cfg.rto.clone()),
            rto_rearm: cfg.rto_rearm,
            decrease_base: cfg.decrease_base,
            probe_now: false,
            dupacks: 0,
            lt_bytes: 0,
            last_ack_advance: 0,
            consecutive_timeouts: 0,
            pending_rexmit: None,
            lost_total: 0,
            go_back_cause: RetransmitCause::Timeout,
            go_back_in_packets: cfg.window_unit == crate::config::WindowUnit::Segments,
            rack: (cfg.rack && cfg.recovery == RecoveryAlgorithm::Sack).then(Rack::new),
            tlp_pending: false,
            rate: None,
            pace_at: Time::ZERO,
            paced_sent: 0,
        }
    }

    /// Handshake results: segment size, whether SACK is in use, the peer's first window.
    pub fn on_established(
        &mut self,
        cfg: &TcpConfig,
        smss: u64,
        sack_ok: bool,
        wnd: u64,
        peer_seq: u64,
    ) {
        if smss != self.smss {
            self.smss = smss;
            self.cc = cfg.build_cc(smss);
            self.rec.prr_unit = cfg.window_unit_bytes(smss);
        }
        if self.cc.wants_rate_samples() {
            self.rate = Some(DeliveryRate::default());
            self.cc.on_connected(self.rtt.srtt(), self.rtt.min_rtt());
        }
        if self.rec.alg == RecoveryAlgorithm::Sack && !sack_ok {
            // Without SACK from the peer, RFC 6675 cannot run: NewReno is its fallback.
            self.rec.fall_back_to_newreno();
            self.rack = None;
        }
        self.snd_wnd = wnd;
        self.max_snd_wnd = wnd;
        self.snd_wl1 = peer_seq;
        self.snd_wl2 = self.snd_una;
    }

    /// RFC 5681 FlightSize.
    pub fn flight_size(&self) -> u64 {
        self.snd_max - self.snd_una
    }

    /// FlightSize for the ssthresh of a fast retransmit: RFC 5681 §3.2 step 2 leaves out the
    /// data sent by limited transmit (RFC 3042 §2).
    fn flight_size_before_limited_transmit(&self) -> u64 {
        self.flight_size() - self.lt_bytes.min(self.flight_size())
    }

    /// What a congestion response decreases from (`DecreaseBase`): FlightSize (without the data
    /// limited transmit sent, RFC 3042 §2, when `before_limited_transmit`) or cwnd.
    fn decrease_base(&self, before_limited_transmit: bool) -> u64 {
        match self.decrease_base {
            DecreaseBase::Cwnd => self.cc.window(),
            DecreaseBase::FlightSize if before_limited_transmit => {
                self.flight_size_before_limited_transmit()
            }
            DecreaseBase::FlightSize => self.flight_size(),
        }
    }

    pub fn pipe(&self) -> u64 {
        if self.rack.is_some() {
            self.sb.in_flight()
        } else if self.rec.alg == RecoveryAlgorithm::Sack {
            self.sb.pipe(self.rec.high_rxt())
        } else {
            self.flight_size()
        }
    }

    pub fn in_recovery(&self) -> bool {
        self.rec.in_episode()
    }

    /// RFC 9293 SND.WND.
    pub fn snd_wnd(&self) -> u64 {
        self.snd_wnd
    }

    /// Every byte written, and the FIN if requested, has been acknowledged.
    pub fn all_acked(&self) -> bool {
        self.snd_una >= self.buf.end() && !matches!(self.fin_at, Some(f) if self.snd_una <= f)
    }

    pub fn fin_acked(&self) -> bool {
        self.fin_at.is_some_and(|f| self.snd_una > f)
    }

    /// Thin-stream test: fewer than 4 segments in flight.
    pub fn is_thin(&self) -> bool {
        self.sb.len() < 4
    }

    /// Unsent data (or an unsent FIN) is waiting.
    fn has_unsent(&self) -> bool {
        self.snd_max < self.buf.end() || self.fin_at.is_some_and(|f| self.snd_max <= f)
    }

    /// Duplicate-ACK threshold in force: thin-stream and RFC 5827 early retransmit lower it.
    pub fn effective_dup_thresh(&self) -> u32 {
        let oseg = self.sb.len() as u32;
        if self.thin_dupack && self.is_thin() {
            return 1;
        }
        // RFC 5827: fewer than 4 segments outstanding and no new segment sendable.
        let can_send_new =
            self.has_unsent() && self.snd_max + self.smss <= self.snd_una + self.snd_wnd;
        match early_retransmit_threshold(oseg as u64, can_send_new, self.dup_thresh) {
            Some(er_thresh) if self.early_retransmit => er_thresh,
            _ => self.dup_thresh,
        }
    }

    fn arm_rto(&self, now: Time, t: &mut TimerTable) {
        t.set(Timer::Retransmit, now + self.rtt.rto());
    }

    /// Process the acknowledgment fields of an incoming segment. Returns bytes newly
    /// acknowledged.
    pub fn on_ack(
        &mut self,
        now: Time,
        a: &AckInput,
        st: &mut TcpStats,
        t: &mut TimerTable,
    ) -> u64 {
        let prev_wnd = self.snd_wnd;
        let prior_in_flight = if self.rate.is_some() { self.pipe() } else { 0 };
        if t.is_due(Timer::Pacing, now) {
            t.stop(Timer::Pacing);
        }
        // RFC 9293 §3.10.7.4: window update when the segment is newer than the last one used.
        if self.snd_wl1 < a.seq || (self.snd_wl1 == a.seq && self.snd_wl2 <= a.ack) {
            self.snd_wnd = a.window;
            self.max_snd_wnd = self.max_snd_wnd.max(a.window);
            self.snd_wl1 = a.seq;
            self.snd_wl2 = a.ack;
        }
        if self.snd_wnd > 0 {
            t.stop(Timer::Persist);
        }
        // Cumulative part first, so that SACK blocks are judged against this ACK's cumulative
        // point (RFC 3708 §2 D-SACK test) and nothing counts as both.
        // What the cumulative part acknowledged: the last segment's send time, and whether any
        // was retransmitted (RFC 6298 §3 Karn); every segment too when RACK needs them.
        let (mut last_sent, mut any_rexmit) = (None, false);
        let mut cum_delivered: Vec<Delivered> = Vec::new();
        if a.ack > self.snd_una {
            if let Some(r) = self.rate.as_mut() {
                r.on_cum_ack(now, a.ack);
            }
            let rack = self.rack.is_some();
            self.sb.on_cum_ack(a.ack, |s| {
                last_sent = Some(s.sent_at);
                any_rexmit |= s.rexmits > 0;
                if rack {
                    cum_delivered.push(Delivered::from(s));
                }
            });
        }
        let mut up = self.sb.on_sack(&a.sack, a.ack.max(self.snd_una));
        let lost_before = self.lost_total;
        if let Some(r) = self.rate.as_mut() {
            for d in &up.delivered {
                r.on_sacked(now, d.end);
            }
        }
        if up.dsack {
            st.dsacks_received += 1;
        }
        let mut delivered: Vec<Delivered> = std::mem::take(&mut up.delivered);
        let mut acked = 0;
        let sample_base = AckSample {
            now,
            acked: 0,
            delivered: 0,
            srtt: None,
            min_rtt: None,
            rtt: None,
            snd_una: self.snd_una,
            snd_nxt: self.snd_nxt,
        };
        if a.ack > self.snd_una {
            acked = a.ack - self.snd_una;
            delivered.append(&mut cum_delivered);
            // RFC 6298 §3 (Karn): without timestamps only segments never retransmitted give
            // RTT samples.
            let rtt_sample = a.ts_rtt.or(last_sent
                .filter(|_| !any_rexmit)
                .map(|s| now.saturating_since(s)));
            if let Some(r) = rtt_sample {
                // SND.UNA as this ACK moves it and the highest sequence sent delimit the
                // round trips of Linux's estimator (tcp_ack moves snd_una before the sample).
                self.rtt.on_sample_at(r, a.ack, self.snd_max);
            }
            let data_end = self.buf.end();
            self.buf.release_to(a.ack.min(data_end));
            self.snd_una = a.ack;
            self.last_ack_advance = acked;
            self.consecutive_timeouts = 0;
            self.snd_nxt = self.snd_nxt.max(self.snd_una);
            self.sb.reset_high_sacked_below(self.snd_una);
            st.bytes_acked += acked.min(data_end.saturating_sub(self.snd_una - acked));
            self.dupacks = 0;
            self.lt_bytes = 0;
            let sample = AckSample {
                acked,
                delivered: acked + up.newly_sacked,
                srtt: self.rtt.srtt(),
                min_rtt: self.rtt.min_rtt(),
                rtt: rtt_sample,
                snd_una: self.snd_una,
                snd_nxt: self.snd_nxt,
                ..sample_base
            };
            self.cc.on_delivery(&sample);
            let a = self.rec.on_new_ack(&self.facts(now, acked));
            self.apply(a, Some(&sample), now, st, t);
            if self.snd_una >= self.snd_max {
                // RFC 6298 §5.2: all outstanding data acknowledged — stop the timer.
                t.stop(Timer::Retransmit);
            } else if a.restart_rto {
                // RFC 6298 §5.3: restart the timer on an ACK of new data.
                self.arm_rto(now, t);
            }
        } else {
            let dup = self.rec.is_duplicate_ack(
                a.ack == self.snd_una,
                self.snd_max > self.snd_una,
                up.newly_sacked,
                !a.has_data_or_flags,
                a.window == prev_wnd,
            );
            if dup {
                self.dupacks += 1;
                let delivered = if up.newly_sacked > 0 {
                    up.newly_sacked
                } else {
                    self.smss
                };
                self.cc.on_delivery(&AckSample {
                    delivered,
                    srtt: self.rtt.srtt(),
                    min_rtt: self.rtt.min_rtt(),
                    ..sample_base
                });
                if self.rack.is_none() {
                    self.lost_total += self.sb.update_lost(self.effective_dup_thresh(), self.smss);
                }
                let a = self.rec.on_dupack(&self.facts(now, 0));
                self.apply(a, None, now, st, t);
            }
        }
        if self.rack.is_some() {
            self.rack_on_ack(now, &delivered, up.dsack, st, t);
        } else if self.rec.alg == RecoveryAlgorithm::Sack {
            self.lost_total += self.sb.update_lost(self.effective_dup_thresh(), self.smss);
        }
        if self.rec.in_episode() && !self.rec.after_rto() {
            let (pipe, ssthresh, smss) = (self.pipe(), self.cc.ssthresh(), self.smss);
            if let Some(prr) = self.rec.prr.as_mut() {
                // RFC 6937 §3: cwnd = pipe + sndcnt on every ACK during recovery.
                let cwnd = prr.on_ack(acked + up.newly_sacked, pipe, ssthresh, smss);
                self.apply_window(now, WindowChange::Set(Cwnd::To(cwnd)));
            }
        }
        if a.ack >= self.snd_una {
            self.rate_ack(now, prior_in_flight, lost_before);
        }
        acked
    }

    /// Close this ACK's delivery-rate sample and hand it to the controller (BBR), after loss
    /// recovery has processed the ACK (as Linux calls cong_control).
    fn rate_ack(&mut self, now: Time, prior_in_flight: u64, lost_before: u64) {
        let min_rtt = self.rtt.min_rtt();
        let Some(r) = self.rate.as_mut() else { return };
        let rs = r.take_sample(now, prior_in_flight, min_rtt);
        let delivered = r.delivered;
        let ca_state = match (self.rec.in_episode(), self.rec.after_rto()) {
            (false, _) => CaState::Open,
            (true, true) => CaState::Loss,
            (true, false) => CaState::Recovery,
        };
        let ack = RateAck {
            now,
            rs,
            delivered,
            in_flight: self.pipe(),
            losses: self.lost_total - lost_before,
            lost_total: self.lost_total,
            ca_state,
            srtt: self.rtt.srtt(),
        };
        self.cc.on_rate_ack(&ack);
    }

    /// Pacing (Linux tcp_update_skb_after_send): after a data segment (new or resent) of `len`
    /// bytes the next may leave len/rate later, less up to half of that when the sender was
    /// late; the first nine segments are not paced.
    fn pace(&mut self, now: Time, len: u64) {
        let Some(rate) = self.cc.pacing_rate() else {
            return;
        };
        self.paced_sent += 1;
        // Every transmission moves the clock to now at least (Linux tcp_transmit_skb).
        let prior = self.pace_at;
        let base = prior.max(now);
        self.pace_at = base;
        if self.paced_sent < 10 || rate == 0 {
            return;
        }
        let credit = base.saturating_since(prior);
        let len_ns = Duration::from_nanos((len as u128 * 1_000_000_000 / rate as u128) as u64);
        self.pace_at = base + (len_ns - (len_ns / 2).min(credit));
    }

    /// RFC 8985 §6.2 on every ACK, §7.4 TLP bookkeeping, §7.2 PTO re-arm.
    fn rack_on_ack(
        &mut self,
        now: Time,
        delivered: &[Delivered],
        dsack: bool,
        st: &mut TcpStats,
        t: &mut TimerTable,
    ) {
        let (min_rtt, srtt) = (self.rtt.min_rtt(), self.rtt.srtt());
        let in_recovery = self.rec.in_episode();
        let (sacked, dup_thresh) = (self.sb.sacked_segments(), self.dup_thresh);
        let Some(rack) = self.rack.as_mut() else {
            return;
        };
        rack.on_ack(now, delivered, min_rtt, dsack, self.snd_una, self.snd_max);
        if rack.tlp_loss_repaired(self.snd_una, dsack) {
            // RFC 8985 §7.4: only the probe arrived, so it repaired a loss: the congestion
            // response of a fast recovery, without entering one. The flight that lost the
            // segment is long gone, so the decrease applies to cwnd.
            st.tlp_repairs += 1;
            let cwnd = self.cc.window();
            self.apply_window(
                now,
                WindowChange::Decrease {
                    base: cwnd,
                    then: None,
                },
            );
        }
        let Some(rack) = self.rack.as_mut() else {
            return;
        };
        let reo_wnd = rack.reo_wnd(in_recovery, sacked, dup_thresh, min_rtt, srtt);
        let scan = detect_rack_loss(rack, now, &mut self.sb, reo_wnd, &mut self.lost_total);
        t.put(Timer::RackReorder, scan.timer);
        if scan.newly_lost {
            self.on_rack_loss(now, st, t);
        }
        self.arm_pto(now, t);
    }

    /// RFC 8985 §7.2: (re)arm the probe timeout (rexmit_transport's policy).
    fn arm_pto(&self, now: Time, t: &mut TimerTable) {
        let flight = self.sb.len();
        let Some(rack) = self.rack.as_ref() else {
            return;
        };
        let rto = t.get(Timer::Retransmit);
        t.put(
            Timer::TailLossProbe,
            rack.pto_deadline(
                now,
                self.rtt.srtt(),
                flight,
                Duration::ZERO,
                self.rec.in_episode(),
                rto,
            ),
        );
    }

    /// RACK marked a loss (RFC 8985 §6.2 step 5): recovery starts if not in one.
    fn on_rack_loss(&mut self, now: Time, st: &mut TcpStats, t: &mut TimerTable) {
        let f = AckFacts {
            first_lost: self.sb.first_lost().map(|s| s.start),
            ..self.facts(now, 0)
        };
        let a = self.rec.on_rack_loss(&f);
        self.apply(a, None, now, st, t);
    }

    /// What recovery is told (`recovery::AckFacts`); `first_lost` and `first_unsacked` are
    /// filled by the calls that need them (RACK entry, timeouts).
    fn facts(&self, now: Time, acked: u64) -> AckFacts {
        AckFacts {
            now,
            snd_una: self.snd_una,
            snd_max: self.snd_max,
            smss: self.smss,
            acked,
            last_ack_advance: self.last_ack_advance,
            dupacks: self.dupacks,
            dup_thresh: self.effective_dup_thresh(),
            cwnd: self.cc.window(),
            flight_size: self.flight_size(),
            decrease_base: self.decrease_base(true),
            first_unacked: self.sb.first().map(|s| s.start),
            first_unsacked: None,
            first_lost: None,
            first_is_lost: self.sb.first_is_lost(),
            rack: self.rack.is_some(),
        }
    }

    /// Carry out recovery's answer, in the order `recovery::Actions` documents.
    fn apply(
        &mut self,
        a: Actions,
        sample: Option<&AckSample>,
        now: Time,
        st: &mut TcpStats,
        t: &mut TimerTable,
    ) {
        if let Some(base) = a.decrease {
            self.apply_window(now, WindowChange::Decrease { base, then: a.cwnd });
        } else if let Some(c) = a.cwnd {
            self.apply_window(now, WindowChange::Set(c));
        }
        if a.began {
            st.fast_retransmits += 1;
            st.recoveries.push(RecoveryEpisode {
                start: now,
                end: None,
            });
            self.episode_stats = Some(st.recoveries.len() - 1);
            if let Some(rack) = self.rack.as_mut() {
                // RFC 8985 §7.2: no probe during recovery.
                rack.tlp_end_seq = None;
                t.stop(Timer::TailLossProbe);
            }
            if self.rto_rearm != RtoRearm::NewAck && self.snd_max > self.snd_una {
                // The fast retransmission gets a full RTO (RFC 6675 §6 latitude; ns-2,
                // Linux and FreeBSD re-arm).
                self.arm_rto(now, t);
            }
        }
        if a.ended {
            if let Some(rack) = self.rack.as_mut() {
                rack.on_recovery_end();
            }
            if let Some(i) = self.episode_stats.take() {
                st.recoveries[i].end = Some(now);
            }
        }
        if let (true, Some(sample)) = (a.grow, sample) {
            self.cc.on_ack(sample);
        }
        if let Some(cause) = a.go_back {
            // Go back N: resend from snd_una (`transmit`).
            self.go_back_cause = cause;
            self.snd_nxt = self.snd_una;
        }
        if a.retransmit.is_some() {
            self.pending_rexmit = a.retransmit;
        }
    }

    /// The one path by which loss recovery, RACK-TLP and timeouts change the window; the
    /// controller's own growth (`on_ack`) is its business.
    fn apply_window(&mut self, now: Time, w: WindowChange) {
        let set = |cc: &mut Box<dyn CongestionControl>, c: Cwnd| {
            let cwnd = match c {
                Cwnd::To(w) => w,
                Cwnd::Ssthresh => cc.ssthresh(),
                Cwnd::SsthreshPlus(n) => cc.ssthresh() + n,
            };
            cc.set_window(cwnd);
        };
        match w {
            WindowChange::Decrease { base, then } => {
                self.cc.on_congestion_event(now, base);
                if let Some(c) = then {
                    set(&mut self.cc, c);
                }
            }
            WindowChange::Set(c) => set(&mut self.cc, c),
            WindowChange::Timeout { base, keep } => {
                // eq. 4 (the controller's decrease) and cwnd = LW = 1 SMSS.
                self.cc.on_timeout(now, base);
                if let Some((old, repeated)) = keep {
                    let w = self.cc.window_state_mut();
                    w.ssthresh = if repeated { old } else { w.ssthresh.min(old) };
                }
            }
        }
    }

    /// RFC 5681 §3.1: after a lost SYN the initial window is one segment.
    pub(crate) fn after_lost_syn(&mut self) {
        self.apply_window(Time::ZERO, WindowChange::Set(Cwnd::To(self.smss)));
    }

    /// RFC 6298 §5.4–5.5 and RFC 5681 §3.1 after a retransmission timeout.
    fn on_retransmission_timeout(&mut self, now: Time, st: &mut TcpStats, t: &mut TimerTable) {
        st.timeouts += 1;
        self.consecutive_timeouts += 1;
        // RFC 5681 §3.1: ssthresh is set to *no more than* eq. 4 (FlightSize / 2), and only
        // when the segment has not been resent by the timer before. Inside a loss-recovery
        // episode FlightSize also counts the data sent during recovery, so eq. 4 alone would
        // raise ssthresh above what the episode's congestion response set; keep the smaller
        // (Linux keeps the recovery's ssthresh, ns-2 halves its already halved cwnd). A
        // repeated timeout keeps ssthresh.
        let repeated = self.consecutive_timeouts > 1;
        // Linux tcp_timeout_mark_lost: every segment neither SACKed nor marked yet is lost now,
        // before the controller hears of the timeout (bbr_set_state reads tp->lost).
        self.lost_total += self.sb.unmarked_outstanding();
        self.cc.on_lost_total(self.lost_total);
        let keep = (self.rec.in_episode() || repeated).then(|| (self.cc.ssthresh(), repeated));
        self.apply_window(
            now,
            WindowChange::Timeout {
                base: self.decrease_base(false),
                keep,
            },
        );
        // RFC 6298 §5.5 back off, unless the thin-stream option keeps timeouts linear.
        if !(self.thin_linear_timeouts && self.is_thin()) {
            self.rtt.back_off();
        }
        self.dupacks = 0;
        if self.rec.alg == RecoveryAlgorithm::Sack {
            // RFC 6675 §5.1: everything not SACKed is presumed lost.
            self.sb.mark_all_lost();
        }
        let first_unsacked = self
            .sb
            .segments()
            .find(|x| !x.sacked)
            .map(|x| (x.start, x.end));
        let a = self.rec.on_timeout(&AckFacts {
            first_unsacked,
            ..self.facts(now, 0)
        });
        self.apply(a, None, now, st, t);
    }

    /// RFC 6298 §5.4–5.6 and the persist timer.
    pub fn on_timeout(&mut self, now: Time, st: &mut TcpStats, t: &mut TimerTable) {
        // A probe due with the RTO goes first and re-arms it (RFC 8985 §7.2–7.3).
        if t.is_due(Timer::TailLossProbe, now) {
            self.fire_pto(now, t);
        }
        if t.is_due(Timer::Retransmit, now) {
            t.stop(Timer::Retransmit);
            if self.snd_max > self.snd_una {
                self.on_retransmission_timeout(now, st, t);
                self.arm_rto(now, t);
            }
        }
        if t.is_due(Timer::Persist, now) {
            t.stop(Timer::Persist);
            self.probe_now = true;
        }
        if t.is_due(Timer::Pacing, now) {
            t.stop(Timer::Pacing);
        }
        if t.is_due(Timer::RackReorder, now) {
            // RFC 8985 §6.3: the reordering timer re-runs loss detection.
            let in_recovery = self.rec.in_episode();
            let (min_rtt, srtt) = (self.rtt.min_rtt(), self.rtt.srtt());
            let (sacked, dup_thresh) = (self.sb.sacked_segments(), self.dup_thresh);
            if let Some(rack) = self.rack.as_mut() {
                let reo_wnd = rack.reo_wnd(in_recovery, sacked, dup_thresh, min_rtt, srtt);
                let scan = detect_rack_loss(rack, now, &mut self.sb, reo_wnd, &mut self.lost_total);
                t.put(Timer::RackReorder, scan.timer);
                if scan.newly_lost {
                    self.on_rack_loss(now, st, t);
                }
            }
        }
    }

    /// RFC 8985 §7.3: send a probe, then re-arm the RTO.
    fn fire_pto(&mut self, now: Time, t: &mut TimerTable) {
        t.stop(Timer::TailLossProbe);
        if !self.rec.in_episode() && !self.sb.is_empty() {
            self.tlp_pending = true;
            self.arm_rto(now, t);
        }
    }
}

/// RFC 8985 §6.2 step 5 over the scoreboard: unSACKed segments not yet marked lost; each
/// one marked counts in `lost_total`.
fn detect_rack_loss(
    rack: &Rack,
    now: Time,
    sb: &mut Scoreboard,
    reo_wnd: Duration,
    lost_total: &mut u64,
) -> LossScan {
    rack.detect_loss(
        now,
        reo_wnd,
        sb.segments_mut(),
        |s| (!s.sacked && !s.lost).then_some((s.sent_at, s.end)),
        |s| {
            s.lost = true;
            *lost_total += 1;
        },
    )
}
