//! An incoming ACK in named stages (`Sender::on_ack` lists them in order): the send window,
//! the cumulative part and the SACK blocks against the scoreboard, the RTT sample, snd_una,
//! the duplicate-ACK test, loss recovery, RACK-TLP, PRR, and the controller's rate sample.
//! Each stage is a method citing its rule; the order of their side effects is the order in
//! which the result digests were made, so a stage does not move without a reason.

use super::{Occasion, Sender};
use crate::cc::{AckSample, CaState, CongestionCause, CongestionEvent, EcnEcho, RateAck};
use crate::config::RecoveryAlgorithm;
use crate::recovery::undo::echo_predates;
use crate::recovery::AckFacts;
use crate::sack_scoreboard::{Delivered, SackUpdate};
use crate::stats::TcpStats;
use crate::timers::{Timer, TimerTable};
use rexmit_time::{Duration, Time};

use super::AckInput;

/// What the cumulative part of an ACK acknowledged on the scoreboard.
#[derive(Default)]
struct CumulativePart {
    /// Send time of the last segment acknowledged, and whether any of them was retransmitted
    /// (RFC 6298 §3, Karn).
    last_sent: Option<Time>,
    any_rexmit: bool,
    /// Every segment acknowledged, when RACK needs them.
    delivered: Vec<Delivered>,
    /// The lowest start of a segment acknowledged here without having been SACKed or
    /// retransmitted (`sender/reordering.rs`).
    reord_low: Option<u64>,
    /// The lowest end of the segments acknowledged that were neither retransmitted nor SACKed
    /// before (F-RTO's test, `sender/undo.rs`).
    orig_end: Option<u64>,
}

impl Sender {
    /// Process the acknowledgment fields of an incoming segment, stage by stage. Returns bytes
    /// newly acknowledged.
    pub fn on_ack(
        &mut self,
        now: Time,
        a: &AckInput,
        st: &mut TcpStats,
        t: &mut TimerTable,
    ) -> u64 {
        self.now = now;
        if self.is_quiet_ack(a) {
            // Fast path (`crate::fast_path`): of all the stages below only these act.
            if t.is_due(Timer::Pacing, now) {
                t.stop(Timer::Pacing);
            }
            self.update_send_window(a, t);
            // `observe_reordering` with no evidence: only the statistics' copy of the degree.
            if let Some(r) = &self.reordering {
                (st.reordering, st.reordering_seen) = (r.degree(), r.seen());
            }
            return 0;
        }
        // Before anything changes: what the duplicate-ACK test and the rate sample compare with.
        let prev_wnd = self.snd_wnd;
        let mut undo = super::undo::UndoFacts {
            in_episode_before: self.rec.in_episode(),
            after_rto_before: self.rec.after_rto(),
            ts_ecr: a.ts_ecr,
            ..Default::default()
        };
        let prior_in_flight = if self.rate.is_some() { self.pipe() } else { 0 };
        let lost_before = self.lost_total;
        if t.is_due(Timer::Pacing, now) {
            t.stop(Timer::Pacing);
        }
        self.update_send_window(a, t);
        // Cumulative part first, so that SACK blocks are judged against this ACK's cumulative
        // point (RFC 3708 §2 D-SACK test) and nothing counts as both.
        let prior_fack = self.sb.highest_sacked_start();
        let mut cum = self.scoreboard_cumulative(now, a);
        let mut sack = self.scoreboard_sack(now, a, st);
        self.observe_reordering(prior_fack, &cum, &sack, st);
        let mut acked = 0;
        if a.ack > self.snd_una {
            let rtt = self.rtt_sample(now, a, &cum);
            acked = self.advance_snd_una(a.ack, st);
            let sample = AckSample {
                now,
                acked,
                delivered: acked + sack.newly_sacked,
                srtt: self.rtt.srtt(),
                min_rtt: self.rtt.min_rtt(),
                rtt,
                snd_una: self.snd_una,
                snd_nxt: self.snd_nxt,
                ece: a.ece,
            };
            self.cc.on_delivery(&sample);
            self.recovery_on_new_ack(now, acked, &sample, st, t);
            if self
                .rec
                .is_cumulative_dupack(self.snd_max > self.snd_una, sack.newly_sacked)
            {
                // Its delivery was told with the cumulative part.
                self.recovery_on_duplicate_ack(now, None, a.ece, st, t);
                undo.dupack = true;
            }
        } else if self.is_duplicate_ack(a, prev_wnd, sack.newly_sacked) {
            let delivered = if sack.newly_sacked > 0 {
                sack.newly_sacked
            } else {
                self.smss
            };
            self.recovery_on_duplicate_ack(now, Some(delivered), a.ece, st, t);
            undo.dupack = true;
        }
        if a.ece {
            self.react_to_echo(now, st);
        }
        undo.acked = acked;
        undo.newly_sacked = sack.newly_sacked;
        undo.dsack = sack.dsack_range;
        let sack_orig = sack
            .delivered
            .iter()
            .filter(|d| d.rexmits == 0)
            .map(|d| d.end);
        undo.orig_end = cum.orig_end.into_iter().chain(sack_orig).min();
        // Newly SACKed segments first, then the cumulatively acknowledged ones.
        let mut delivered = std::mem::take(&mut sack.delivered);
        delivered.append(&mut cum.delivered);
        self.detect_losses(now, &delivered, sack.dsack, st, t);
        if acked > 0 {
            // RFC 8985 §7.2: "upon receiving an ACK that cumulatively acknowledges new data"
            // (an ACK that only SACKs does not push the probe back).
            self.arm_pto(now, t);
        }
        self.undo_on_ack(now, &undo, st, t);
        self.prr_window(acked + sack.newly_sacked);
        if a.ack >= self.snd_una {
            self.rate_ack(now, prior_in_flight, lost_before);
        }
        acked
    }

    /// An ACK that acknowledges nothing, SACKs nothing and echoes no CE while nothing is
    /// outstanding (what a receiver's every data segment carries in a one-way transfer): then
    /// the cumulative and SACK stages find nothing, it is no duplicate ACK (RFC 5681 §2 (b)
    /// needs outstanding data), loss detection finds an empty scoreboard, and the reordering,
    /// undo, PRR, RACK and rate stages have nothing to do while they are off or idle. Only the
    /// pacing timer, the send window (RFC 9293 §3.10.7.4) and the statistics' copy of the
    /// reordering degree (which a timeout may have lowered) can change. RACK stays on the full
    /// path: its loss policy may be a user's plugin, which is asked on every ACK.
    #[inline]
    fn is_quiet_ack(&self, a: &AckInput) -> bool {
        crate::fast_path::enabled()
            && a.ack == self.snd_una
            && self.snd_una == self.snd_max
            && a.sack.is_empty()
            && !a.ece
            && !self.rec.in_episode()
            && !self.undo.is_armed()
            && !self.sb.any_sacked()
            && self.rack.is_none()
            && self.rate.is_none()
    }

    /// RFC 9293 §3.10.7.4: take the peer's window when the segment is newer than the last one
    /// used (SND.WL1, SND.WL2); an open window ends zero-window probing (§3.8.6.1).
    fn update_send_window(&mut self, a: &AckInput, t: &mut TimerTable) {
        if self.snd_wl1 < a.seq || (self.snd_wl1 == a.seq && self.snd_wl2 <= a.ack) {
            self.snd_wnd = a.window;
            self.max_snd_wnd = self.max_snd_wnd.max(a.window);
            self.snd_wl1 = a.seq;
            self.snd_wl2 = a.ack;
        }
        if self.snd_wnd > 0 {
            t.stop(Timer::Persist);
        }
    }

    /// The cumulative part: segments up to the ACK leave the scoreboard (and are delivered
    /// for the delivery-rate estimator), remembering what RFC 6298 §3 (Karn) and RACK need.
    fn scoreboard_cumulative(&mut self, now: Time, a: &AckInput) -> CumulativePart {
        let mut cum = CumulativePart::default();
        if a.ack <= self.snd_una {
            return cum;
        }
        if let Some(r) = self.rate.as_mut() {
            r.on_cum_ack(now, a.ack);
        }
        let rack = self.rack_detection;
        self.sb.on_cum_ack(a.ack, |s| {
            cum.last_sent = Some(s.sent_at);
            cum.any_rexmit |= s.rexmits > 0;
            if s.rexmits == 0 && !s.sacked && cum.orig_end.is_none() {
                cum.orig_end = Some(s.end);
            }
            // Reordering evidence (`sender/reordering.rs`): data never retransmitted and not
            // SACKed; or retransmitted data whose ACK echoes a timestamp older than the
            // retransmission, so the original arrived late (RFC 3522's test, Linux's
            // tcp_packet_delayed).
            let late_original =
                s.rexmits > 0 && a.ts_ecr.is_some_and(|e| echo_predates(e, s.sent_at));
            if (s.rexmits == 0 || late_original) && !s.sacked && cum.reord_low.is_none() {
                cum.reord_low = Some(s.start);
            }
            if rack {
                cum.delivered.push(Delivered::from(s));
            }
        });
        cum
    }

    /// The SACK blocks (RFC 2018; RFC 6675 §4 Update()) above this ACK's cumulative point, and
    /// a D-SACK among them (RFC 2883, RFC 3708 §2); newly SACKed segments are delivered for
    /// the delivery-rate estimator.
    fn scoreboard_sack(&mut self, now: Time, a: &AckInput, st: &mut TcpStats) -> SackUpdate {
        let up = self.sb.on_sack(&a.sack, a.ack.max(self.snd_una));
        if let Some(r) = self.rate.as_mut() {
            for d in &up.delivered {
                r.on_sacked(now, d.end);
            }
        }
        if up.dsack {
            st.dsacks_received += 1;
            self.dsacks += 1;
        }
        up
    }

    /// Linux's adaptive reordering degree (`adaptive_reordering`): data first acknowledged
    /// below the start of the highest SACKed segment: cumulatively, below the one before this
    /// ACK; by its blocks, below the one after them.
    fn observe_reordering(
        &mut self,
        prior_fack: u64,
        cum: &CumulativePart,
        sack: &SackUpdate,
        st: &mut TcpStats,
    ) {
        let Some(r) = self.reordering.as_mut() else {
            return;
        };
        // The cumulative part against the highest SACKed segment before this ACK (its blocks
        // may report the hole just above it), the blocks against the one after them.
        let fack = self.sb.highest_sacked_start();
        r.observe(
            &[(cum.reord_low, prior_fack), (sack.reord_low, fack)],
            self.smss,
        );
        (st.reordering, st.reordering_seen) = (r.degree(), r.seen());
    }

    /// RFC 6298 §3: the RTT this ACK measures, fed to the estimator — from the echoed timestamp
    /// (RFC 7323 §4.1), else (Karn) only when no acknowledged segment was retransmitted.
    fn rtt_sample(&mut self, now: Time, a: &AckInput, cum: &CumulativePart) -> Option<Duration> {
        let rtt = a.ts_rtt.or(cum
            .last_sent
            .filter(|_| !cum.any_rexmit)
            .map(|s| now.saturating_since(s)));
        if let Some(r) = rtt {
            // SND.UNA as this ACK moves it and the highest sequence sent delimit the round
            // trips of Linux's estimator (tcp_ack moves snd_una before the sample).
            self.rtt.on_sample_at(r, a.ack, self.snd_max);
        }
        rtt
    }

    /// RFC 9293 §3.10.7.4: SND.UNA ← SEG.ACK; the acknowledged data leaves the send buffer,
    /// and what counts since snd_una last advanced starts again (duplicate ACKs, RFC 3042
    /// limited transmit, the RFC 9293 §3.8.3 R2 timeout count). Returns the bytes acknowledged.
    fn advance_snd_una(&mut self, ack: u64, st: &mut TcpStats) -> u64 {
        let acked = ack - self.snd_una;
        let data_end = self.buf.end();
        self.buf.release_to(ack.min(data_end));
        self.snd_una = ack;
        self.last_ack_advance = acked;
        self.consecutive_timeouts = 0;
        self.snd_nxt = self.snd_nxt.max(self.snd_una);
        self.sb.reset_high_sacked_below(self.snd_una);
        st.bytes_acked += acked.min(data_end.saturating_sub(self.snd_una - acked));
        self.dupacks = 0;
        self.lt_bytes = 0;
        acked
    }

    /// Loss recovery on an ACK of new data (`recovery`: exit, partial ACK, growth), then the
    /// retransmission timer: RFC 6298 §5.2 stop it when everything is acknowledged, §5.3
    /// restart it when recovery says so.
    fn recovery_on_new_ack(
        &mut self,
        now: Time,
        acked: u64,
        sample: &AckSample,
        st: &mut TcpStats,
        t: &mut TimerTable,
    ) {
        let a = self.rec.on_new_ack(&self.facts(now, acked));
        self.apply(a, Occasion::NewAck(sample), now, st, t);
        if self.snd_una >= self.snd_max {
            t.stop(Timer::Retransmit);
        } else if a.restart_rto {
            self.arm_rto(now, t);
        }
    }

    /// RFC 5681 §2 DUPLICATE ACKNOWLEDGMENT (a)–(e), or RFC 6675 §2 DupAck with SACK
    /// (`Recovery::is_duplicate_ack`), for an ACK that did not advance snd_una.
    fn is_duplicate_ack(&self, a: &AckInput, prev_wnd: u64, newly_sacked: u64) -> bool {
        self.rec.is_duplicate_ack(
            a.ack == self.snd_una,
            self.snd_max > self.snd_una,
            newly_sacked,
            !a.has_data_or_flags,
            a.window == prev_wnd,
        )
    }

    /// A duplicate ACK: count it, tell the controller what left the network (`delivered`: the
    /// newly SACKed bytes, else one SMSS; `None` when a cumulative ACK that is also a DupAck
    /// told it already), mark losses by RFC 6675 IsLost (without RACK), and let loss recovery
    /// decide (fast retransmit, inflation).
    fn recovery_on_duplicate_ack(
        &mut self,
        now: Time,
        delivered: Option<u64>,
        ece: bool,
        st: &mut TcpStats,
        t: &mut TimerTable,
    ) {
        self.dupacks += 1;
        if let Some(delivered) = delivered {
            self.cc.on_delivery(&AckSample {
                now,
                acked: 0,
                delivered,
                srtt: self.rtt.srtt(),
                min_rtt: self.rtt.min_rtt(),
                rtt: None,
                snd_una: self.snd_una,
                snd_nxt: self.snd_nxt,
                ece,
            });
        }
        if !self.rack_detection {
            self.lost_total += self.sb.update_lost(self.effective_dup_thresh(), self.smss);
        }
        let a = self.rec.on_dupack(&self.facts(now, 0));
        self.apply(a, Occasion::Loss, now, st, t);
    }

    /// An ACK with ECE, after loss recovery handled it (RFC 3168 §6.1.2): the controller
    /// reduces the window (`on_ecn_echo`) unless a loss recovery is open or snd_una has not yet
    /// passed the data outstanding at the last reduction; the next new data carries CWR.
    fn react_to_echo(&mut self, now: Time, st: &mut TcpStats) {
        st.ecn_ece_received += 1;
        if !self.ecn.reduces(self.snd_una, self.rec.in_episode()) {
            return;
        }
        st.ecn_reductions += 1;
        self.cc.on_ecn_echo(&EcnEcho {
            now,
            base: self.decrease_base(false),
            smss: self.smss,
        });
        self.ecn.on_echo_reduction(self.snd_max);
    }

    /// RFC 6937 §3 on every ACK during fast recovery with PRR: the controller hears
    /// cwnd = pipe + sndcnt, from `delivered` bytes (DeliveredData) and its own ssthresh.
    fn prr_window(&mut self, delivered: u64) {
        if !self.rec.in_episode() || self.rec.after_rto() {
            return;
        }
        let (pipe, ssthresh, smss) = (self.pipe(), self.cc.ssthresh(), self.smss);
        if let Some(prr) = self.rec.prr.as_mut() {
            let cwnd = prr.on_ack(delivered, pipe, ssthresh, smss);
            self.cc.on_prr(pipe, cwnd - pipe);
        }
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

    /// Loss detection after the ACK: without RACK, for SACK the RFC 6675 IsLost marks of the
    /// updated scoreboard; with it, RFC 8985 §6.2 on every ACK. With TLP, §7.4's bookkeeping
    /// of an outstanding probe.
    fn detect_losses(
        &mut self,
        now: Time,
        delivered: &[Delivered],
        dsack: bool,
        st: &mut TcpStats,
        t: &mut TimerTable,
    ) {
        if !self.rack_detection && self.rec.alg == RecoveryAlgorithm::Sack {
            self.lost_total += self.sb.update_lost(self.effective_dup_thresh(), self.smss);
        }
        let min_rtt = self.rtt.min_rtt();
        let in_recovery = self.rec.in_episode();
        let Some(rack) = self.rack.as_mut() else {
            return;
        };
        // Counted only for RACK, which needs it (a scan of the scoreboard on every ACK).
        let sacked = self.sb.sacked_segments();
        if self.rack_detection {
            rack.on_ack(now, delivered, min_rtt, dsack, self.snd_una, self.snd_max);
        }
        if self.tlp && rack.tlp_loss_repaired(self.snd_una, dsack) {
            // RFC 8985 §7.4: only the probe arrived, so it repaired a loss: the congestion
            // response of a fast recovery, without entering one. The flight that lost the
            // segment is long gone, so the decrease applies to cwnd.
            st.tlp_repairs += 1;
            // As Linux's CWR after a TLP repair: an earlier reduction can no longer be undone.
            let _ = self.undo.take();
            self.cc.on_congestion_event(&CongestionEvent {
                now,
                cause: CongestionCause::TlpRepair,
                base: self.cc.window(),
                smss: self.smss,
            });
            self.ecn.on_loss_reduction(self.snd_max);
        }
        let (Some(reo_wnd), Some(rack)) =
            (self.reo_wnd(now, in_recovery, sacked), self.rack.as_mut())
        else {
            return;
        };
        let scan = super::detect_rack_loss(rack, now, &mut self.sb, reo_wnd, &mut self.lost_total);
        t.put(Timer::RackReorder, scan.timer);
        if scan.newly_lost {
            self.on_rack_loss(now, st, t);
        }
    }

    /// RFC 8985 §7.2: (re)arm the probe timeout (rexmit_transport's policy), after new data
    /// that was not itself a probe or an ACK of new data: "The sender SHOULD start or restart a
    /// loss probe PTO timer after transmitting new data (that was not itself a loss probe) or
    /// upon receiving an ACK that cumulatively acknowledges new data unless it is already in
    /// fast recovery, RTO recovery, or segments have been SACKed (i.e., RACK.segs_sacked is not
    /// zero)." In those cases the timer stops (the RTO stays).
    pub(super) fn arm_pto(&self, now: Time, t: &mut TimerTable) {
        let flight = self.sb.len();
        let Some(rack) = self.rack.as_ref().filter(|_| self.tlp) else {
            return;
        };
        if self.sb.any_sacked() {
            t.stop(Timer::TailLossProbe);
            return;
        }
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
    pub(super) fn on_rack_loss(&mut self, now: Time, st: &mut TcpStats, t: &mut TimerTable) {
        let f = AckFacts {
            first_lost: self.sb.first_lost().map(|s| s.start),
            ..self.facts(now, 0)
        };
        let a = self.rec.on_rack_loss(&f);
        self.apply(a, Occasion::Loss, now, st, t);
    }

    /// What recovery is told (`recovery::AckFacts`); `first_lost` and `first_unsacked` are
    /// filled by the calls that need them (RACK entry, timeouts).
    pub(super) fn facts(&self, now: Time, acked: u64) -> AckFacts {
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
            rack: self.rack_detection,
        }
    }
}
