//! What the sender transmits next (RFC 6675 NextSeg during SACK recovery, go-back-N, the
//! RFC 8985 §7.3 tail-loss probe, retransmissions, new data under cwnd, the receive window,
//! Nagle and SWS avoidance, pacing) and the timers a transmission arms (RFC 6298 §5.1).

use super::{DataTx, Sender};
use crate::config::{RecoveryAlgorithm, RtoRearm};
use crate::sack_scoreboard::SentSegment;
use crate::stats::{RetransmitCause, TcpStats};
use crate::timers::{Timer, TimerTable};
use rexmit_time::{Duration, Time};

impl Sender {
    /// Choose and record the next data segment to send, if any may go now.
    pub fn next_tx(&mut self, now: Time, st: &mut TcpStats, t: &mut TimerTable) -> Option<DataTx> {
        // Nothing outstanding: the next new segment starts transmission again (read before
        // the idle restart, which counts as a transmission).
        let idle_since = self.last_data_sent.filter(|_| self.snd_una == self.snd_max);
        self.restart_after_idle(now);
        let pipe = if self.rate.is_some() { self.pipe() } else { 0 };
        let Some(tx) = self.choose_tx(now, st, t) else {
            self.cwnd_validate(false);
            return None;
        };
        if let (Some(last), None) = (idle_since, tx.rexmit) {
            self.cc.on_tx_start(&crate::cc::TxStart {
                now,
                idle: now.saturating_since(last),
            });
        }
        self.last_data_sent = Some(now);
        if let Some(prr) = self.rec.prr.as_mut() {
            prr.on_sent(tx.len + tx.fin as u64);
        }
        if let Some(r) = self.rate.as_mut() {
            let len = tx.len + tx.fin as u64;
            r.on_send(now, tx.start + len, len, pipe, tx.rexmit.is_some());
        }
        // Every data segment, a retransmission too, moves the pacing clock (Linux
        // __tcp_transmit_skb -> tcp_update_skb_after_send; BBR paces all data it sends).
        self.pace(now, tx.len);
        self.cwnd_validate(true);
        Some(tx)
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

    fn choose_tx(&mut self, now: Time, st: &mut TcpStats, t: &mut TimerTable) -> Option<DataTx> {
        // Pacing holds every segment until the pacing clock allows it, the fast retransmission
        // included (Linux tcp_xmit_retransmit_queue and tcp_write_xmit both stop at
        // tcp_pacing_check), except the timeout's retransmission of the head, which goes at
        // once (tcp_retransmit_timer). The pacing timer is armed only when something would go:
        // a pending retransmission, or the window lets a segment go.
        let timeout_rexmit = matches!(self.pending_rexmit, Some((_, RetransmitCause::Timeout)));
        if self.pace_at > now && self.cc.pacing_rate().is_some() && !timeout_rexmit {
            let wait = self.pending_rexmit.is_some()
                || (self.cc.window() >= self.pipe() + self.smss
                    && (self.has_unsent() || self.rec.in_episode()));
            t.put(Timer::Pacing, wait.then_some(self.pace_at));
            return None;
        }
        t.stop(Timer::Pacing);
        if let Some((start, cause)) = self.pending_rexmit.take() {
            if let Some(tx) = self.retransmit(now, start, cause, st, t) {
                let end = tx.start + tx.len + tx.fin as u64;
                if self.snd_nxt == tx.start {
                    self.snd_nxt = self.snd_nxt.max(end);
                }
                if self.rec.alg == RecoveryAlgorithm::Sack && self.rec.in_episode() {
                    // RFC 6675 §5 (4.3) retransmission: now below HighRxt and RescueRxt.
                    self.rec.on_first_retransmitted(end);
                }
                return Some(tx);
            }
        }
        if std::mem::take(&mut self.tlp_pending) {
            if let Some(tx) = self.tail_loss_probe(now, st, t) {
                return Some(tx);
            }
        }
        if self.rec.alg == RecoveryAlgorithm::Sack && self.rec.in_episode() {
            return self.next_seg(now, st, t);
        }
        let limit = self.send_limit();
        if self.snd_nxt < self.snd_max {
            // Go-back-N after a Tahoe fast retransmit or a non-SACK timeout.
            let Some(seg) = self.sb.get(self.snd_nxt).cloned() else {
                self.snd_nxt = self.snd_max;
                return self.choose_tx(now, st, t);
            };
            let data_end = seg.end - seg.fin as u64;
            if data_end > limit && data_end > self.snd_nxt {
                return None;
            }
            // Linux after a timeout (tcp_enter_loss marks every segment lost; tcp_cwnd_test:
            // packets in flight < snd_cwnd): the segments resent and not yet acknowledged count
            // one each, so with cwnd 1 only the head goes, even when the next one is small
            // enough to fit in one segment's bytes.
            if self.go_back_in_packets && self.snd_nxt > self.snd_una {
                let resent = self
                    .sb
                    .segments()
                    .take_while(|s| s.start < self.snd_nxt)
                    .count() as u64;
                if resent >= (self.cc.window() / self.smss).max(1) {
                    return None;
                }
            }
            self.snd_nxt = seg.end;
            return self.retransmit(now, seg.start, self.go_back_cause, st, t);
        }
        let tx = self.new_data(now, limit, st, t)?;
        // RFC 3042 §2: what went beyond cwnd went by limited transmit.
        let lt_from = tx.start.max(self.snd_una + self.cc.window());
        self.lt_bytes += self.snd_max.saturating_sub(lt_from);
        Some(tx)
    }

    /// RFC 8985 §7.3: new data if the receive window allows, else the last segment again.
    fn tail_loss_probe(
        &mut self,
        now: Time,
        st: &mut TcpStats,
        t: &mut TimerTable,
    ) -> Option<DataTx> {
        let tx = match self.new_data(now, self.snd_una + self.snd_wnd, st, t) {
            Some(tx) => tx,
            None => {
                let last = self.sb.last()?.start;
                self.retransmit(now, last, RetransmitCause::Tlp, st, t)?
            }
        };
        st.tlp_probes += 1;
        let end = self.snd_max;
        if let Some(rack) = self.rack.as_mut() {
            rack.tlp_end_seq = Some(end);
            rack.tlp_is_retrans = tx.rexmit.is_some();
        }
        // RFC 8985 §7.3: "After attempting to send a loss probe, regardless of whether a loss
        // probe was sent, the sender MUST re-arm the RTO timer, not the PTO timer" (the RTO was
        // re-armed when the PTO fired; a probe of new data must not arm the PTO again).
        t.stop(Timer::TailLossProbe);
        Some(tx)
    }

    /// Outside SACK recovery: where go-back-N and new data stop (cwnd with RFC 3042's
    /// allowance, and the peer's window).
    fn send_limit(&self) -> u64 {
        if self.sack_limited_transmit() {
            // RFC 6675 §5 step (3.3): "If (cwnd - pipe) >= 1 SMSS, there exists previously
            // unsent data, and the receiver's advertised window allows, transmit up to 1 SMSS
            // of data starting with the octet HighData+1" (SACKed data is out of pipe).
            let room = self.cc.window().saturating_sub(self.pipe());
            return (self.snd_max + room).min(self.snd_una + self.snd_wnd);
        }
        let cwnd = self.cc.window() + self.limited_transmit_allowance();
        self.snd_una + cwnd.min(self.snd_wnd)
    }

    /// RFC 6675 §5 step (3): limited transmit of a SACK sender on a DupAck before recovery is
    /// governed by cwnd − pipe, not by RFC 3042's two segments beyond cwnd.
    fn sack_limited_transmit(&self) -> bool {
        self.limited_transmit
            && self.rec.alg == RecoveryAlgorithm::Sack
            && !self.rec.in_episode()
            && self.dupacks > 0
            && self.dupacks < self.effective_dup_thresh()
    }

    /// RFC 3042 §2: the first two duplicate ACKs each allow one new segment beyond cwnd
    /// (without SACK; `sack_limited_transmit` for a SACK sender).
    fn limited_transmit_allowance(&self) -> u64 {
        if self.limited_transmit
            && !self.rec.in_episode()
            && self.dupacks < self.effective_dup_thresh()
        {
            self.dupacks.min(2) as u64 * self.smss
        } else {
            0
        }
    }

    /// RFC 6675 §5 (C) and §4 NextSeg.
    fn next_seg(&mut self, now: Time, st: &mut TcpStats, t: &mut TimerTable) -> Option<DataTx> {
        let cwnd = self.cc.window();
        let pipe = self.pipe();
        // RFC 6675 §5 (C): transmit while cwnd − pipe ≥ 1 SMSS.
        if cwnd < pipe + self.smss {
            return None;
        }
        if let Some(high) = self.frto_sends_new() {
            // RFC 5682 §3 step 2.b: new data instead of retransmissions on this ACK.
            if let Some(tx) = self.new_data(now, self.snd_una + self.snd_wnd, st, t) {
                return Some(tx);
            }
            if self.snd_max > high {
                return None;
            }
            self.frto_give_up();
        }
        let after_rto = self.rec.after_rto();
        let cause = match (after_rto, self.rack_detection) {
            (true, _) => RetransmitCause::Timeout,
            (false, true) => RetransmitCause::Rack,
            (false, false) => RetransmitCause::FastRetransmit,
        };
        if self.rack_detection {
            // RACK marks losses itself: retransmit what it marked, else send new data; tails
            // are covered by TLP instead of rules (3) and (4).
            if let Some(s) = self.sb.first_lost().map(|s| s.start) {
                return self.retransmit(now, s, cause, st, t);
            }
            return self.new_data(now, self.snd_una + self.snd_wnd, st, t);
        }
        // NextSeg (1): first lost unSACKed segment above HighRxt, below the highest SACK.
        if let Some(s) = self.rec.next_seg_lost(&self.sb) {
            let tx = self.retransmit(now, s, cause, st, t);
            return self.raise_high_rxt(tx);
        }
        // NextSeg (2): new data, if the receiver's window allows.
        let wnd_limit = self.snd_una + self.snd_wnd;
        if let Some(tx) = self.new_data(now, wnd_limit, st, t) {
            return Some(tx);
        }
        if self.has_unsent() && self.snd_max < wnd_limit {
            // New data exists but Nagle/segment size holds it; rules 3–4 would only retransmit.
            return None;
        }
        // NextSeg (3): first unSACKed segment above HighRxt below the highest SACK, not lost.
        if let Some(s) = self.rec.next_seg_unsacked(&self.sb) {
            let tx = self.retransmit(now, s, cause, st, t);
            return self.raise_high_rxt(tx);
        }
        // NextSeg (4): one rescue retransmission per episode (`Recovery::next_seg_rescue`).
        if let Some(s) = self
            .rec
            .next_seg_rescue(&self.sb, self.snd_una, self.snd_max)
        {
            let tx = self.retransmit(now, s, cause, st, t);
            st.retransmits_rescue += tx.is_some() as u64;
            return tx;
        }
        None
    }

    /// NextSeg rules (1) and (3) move HighRxt past what they retransmit (RFC 6675 §4).
    fn raise_high_rxt(&mut self, tx: Option<DataTx>) -> Option<DataTx> {
        if let Some(t) = tx {
            self.rec.on_retransmitted(t.start + t.len + t.fin as u64);
        }
        tx
    }

    fn retransmit(
        &mut self,
        now: Time,
        start: u64,
        cause: RetransmitCause,
        st: &mut TcpStats,
        t: &mut TimerTable,
    ) -> Option<DataTx> {
        if start < self.snd_una {
            return None;
        }
        let seg: SentSegment = self.sb.on_retransmit(start, now)?;
        let len = seg.len() - seg.fin as u64;
        match cause {
            RetransmitCause::FastRetransmit => st.retransmits_fast += 1,
            RetransmitCause::Timeout => st.retransmits_timeout += 1,
            RetransmitCause::Rack => st.retransmits_rack += 1,
            RetransmitCause::Tlp => st.retransmits_tlp += 1,
        }
        if self.rack_detection {
            // The retransmission is in flight again (RFC 8985: lost marks clear on resend).
            self.sb.clear_lost(start);
        }
        st.bytes_retransmitted += len;
        self.undo.on_retransmit(now);
        let rearm = match self.rto_rearm {
            RtoRearm::EveryRetransmit => self.rec.in_episode() && !self.rec.after_rto(),
            RtoRearm::HeadRetransmit => seg.start == self.snd_una,
            RtoRearm::NewAck | RtoRearm::FastRetransmit => false,
        };
        if !t.is_set(Timer::Retransmit) || rearm {
            // RFC 6298 §5.1; RFC 6675 §6's variant restarts it on every retransmission,
            // Linux's on every retransmission of the head.
            self.arm_rto(now, t);
        }
        Some(DataTx {
            start: seg.start,
            len,
            fin: seg.fin,
            rexmit: Some(cause),
            window_probe: false,
        })
    }

    /// The next new segment if it fits below `limit` (`plan_new_data`), recorded as sent.
    fn new_data(
        &mut self,
        now: Time,
        limit: u64,
        st: &mut TcpStats,
        t: &mut TimerTable,
    ) -> Option<DataTx> {
        let unsent = self.unsent()?;
        // A due probe is spent by the first decision that finds unsent data.
        let probe = std::mem::take(&mut self.probe_now);
        let (len, fin, window_probe) = match self.plan_new_data(unsent, limit, probe, t) {
            NewData::Send {
                len,
                fin,
                window_probe,
            } => (len, fin, window_probe),
            NewData::Held { arm_persist } => {
                if arm_persist {
                    t.set(Timer::Persist, now + self.rtt.rto());
                }
                return None;
            }
        };
        let start = unsent.start;
        let end = start + len + fin as u64;
        self.sb.push(SentSegment {
            start,
            end,
            fin,
            sent_at: now,
            rexmits: 0,
            sacked: false,
            lost: false,
            rtx_mark: false,
        });
        self.snd_max = end;
        self.snd_nxt = end;
        if !t.is_set(Timer::Retransmit) {
            // RFC 6298 §5.1.
            self.arm_rto(now, t);
        }
        // RFC 8985 §7.2: restart the PTO after sending new data.
        self.arm_pto(now, t);
        let _ = st;
        Some(DataTx {
            start,
            len,
            fin,
            rexmit: None,
            window_probe,
        })
    }

    /// The next new segment before any limit: at most SMSS from snd_max, and whether the FIN
    /// is still to be sent; `None` if nothing is unsent.
    fn unsent(&self) -> Option<Unsent> {
        let start = self.snd_max;
        let avail = self.buf.end().saturating_sub(start);
        let len = avail.min(self.smss);
        let fin_pending = self.fin_at.is_some_and(|f| f >= start);
        if len == 0 && !fin_pending {
            return None;
        }
        Some(Unsent {
            start,
            avail,
            len,
            fin_pending,
        })
    }

    /// Whether (and how much of) `u` may go below `limit`: receive window, SWS avoidance,
    /// window probes and Nagle. Decides only; `new_data` records.
    fn plan_new_data(&self, u: Unsent, limit: u64, probe: bool, t: &TimerTable) -> NewData {
        let Unsent {
            start,
            avail,
            mut len,
            fin_pending,
        } = u;
        let mut window_probe = false;
        if start + len > limit {
            let usable = limit.saturating_sub(start);
            let rwnd_limited = self.snd_una + self.snd_wnd <= limit;
            if usable > 0 && rwnd_limited && usable >= self.max_snd_wnd / 2 {
                // RFC 9293 §3.8.6.2.1 (sender SWS avoidance): a segment of at least half the
                // largest window ever offered may go.
                len = usable;
            } else if probe && self.sb.is_empty() && len > 0 {
                // RFC 9293 §3.8.6.1 window probe, or the SWS override timeout: what fits, or
                // one byte beyond a zero window.
                len = usable.clamp(1, len);
                window_probe = true;
            } else {
                let arm_persist = self.snd_wnd < self.smss.min(avail.max(1))
                    && self.sb.is_empty()
                    && !t.is_set(Timer::Persist);
                return NewData::Held { arm_persist };
            }
        }
        let fin = fin_pending && self.fin_at == Some(start + len);
        // RFC 9293 §3.7.4 Nagle: hold a small segment while data is unacknowledged.
        if self.nagle && len < self.smss && !fin && self.snd_max > self.snd_una {
            return NewData::Held { arm_persist: false };
        }
        NewData::Send {
            len,
            fin,
            window_probe,
        }
    }

    /// Whether `next_tx` would certainly answer `None` and change nothing: the cheap test of
    /// the polls that find nothing to send (one per received segment in a bulk transfer).
    /// Conservative: `false` means "maybe". Each clause stands for the step of `choose_tx`
    /// named in its comment and answers `true` only where that step neither sends nor changes
    /// state (a flag consumed, a timer put, stopped or set); the decisions themselves are the
    /// ones `choose_tx` uses (`send_limit`, `unsent`, `plan_new_data`).
    #[inline]
    pub(crate) fn nothing_to_send(&self, now: Time, t: &TimerTable) -> bool {
        // The pending retransmission and the tail-loss probe are consumed when polled.
        if self.pending_rexmit.is_some() || self.tlp_pending {
            return false;
        }
        // Pacing puts the pacing timer, or stops it when it is set.
        if t.is_set(Timer::Pacing) || (self.pace_at > now && self.cc.pacing_rate().is_some()) {
            return false;
        }
        // SACK recovery's NextSeg and go-back-N are left to the full path.
        if (self.rec.alg == RecoveryAlgorithm::Sack && self.rec.in_episode())
            || self.snd_nxt < self.snd_max
        {
            return false;
        }
        // New data: nothing unsent, or held without spending a probe or arming the persist
        // timer.
        let Some(unsent) = self.unsent() else {
            return true;
        };
        !self.probe_now
            && self.plan_new_data(unsent, self.send_limit(), false, t)
                == NewData::Held { arm_persist: false }
    }
}

/// The next new segment before any limit (`Sender::unsent`).
#[derive(Clone, Copy)]
struct Unsent {
    start: u64,
    /// Bytes written and not yet sent.
    avail: u64,
    len: u64,
    fin_pending: bool,
}

/// What may happen to unsent data (`Sender::plan_new_data`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NewData {
    /// It waits; `arm_persist`: the persist timer should start (RFC 9293 §3.8.6.1).
    Held { arm_persist: bool },
    /// `len` bytes go, and the FIN after them if `fin`; `window_probe`: as a window probe.
    Send {
        len: u64,
        fin: bool,
        window_probe: bool,
    },
}

impl Sender {
    /// Every field, for the checks that an empty poll changes nothing
    /// (`Connection::poll_transmit_checked`). The pattern names every field, so a new one
    /// cannot be left out.
    #[cfg(any(test, feature = "fuzzing"))]
    pub(crate) fn snapshot(&self) -> String {
        let Sender {
            rec,
            episode_stats,
            dup_thresh,
            limited_transmit,
            early_retransmit,
            thin_linear_timeouts,
            thin_dupack,
            nagle,
            smss,
            snd_una,
            snd_nxt,
            snd_max,
            buf,
            sb,
            fin_at,
            snd_wnd,
            max_snd_wnd,
            snd_wl1,
            snd_wl2,
            cc,
            factory,
            rtt,
            rto_rearm,
            decrease_base,
            probe_now,
            dupacks,
            lt_bytes,
            last_ack_advance,
            consecutive_timeouts,
            pending_rexmit,
            lost_total,
            go_back_cause,
            go_back_in_packets,
            rack,
            rack_detection,
            tlp,
            undo,
            idle_restart,
            initial_window,
            last_data_sent,
            cwnd_use,
            tlp_pending,
            rate,
            pace_at,
            paced_sent,
            ecn,
            loss,
            dsacks,
            reordering,
            now,
        } = self;
        format!(
            "{rec:?} {episode_stats:?} {dup_thresh} {limited_transmit} {early_retransmit} \
             {thin_linear_timeouts} {thin_dupack} {nagle} {smss} {snd_una} {snd_nxt} {snd_max} \
             {buf:?} {sb:?} {fin_at:?} {snd_wnd} {max_snd_wnd} {snd_wl1} {snd_wl2} {cc:?} \
             {factory:?} {rtt:?} {rto_rearm:?} {decrease_base:?} {probe_now} {dupacks} {lt_bytes} \
             {last_ack_advance} {consecutive_timeouts} {pending_rexmit:?} {lost_total} \
             {go_back_cause:?} {go_back_in_packets} {rack:?} {rack_detection} {tlp} {undo:?} {idle_restart:?} {initial_window} {last_data_sent:?} {cwnd_use:?} {tlp_pending} {rate:?} {pace_at:?} {paced_sent} \
             {ecn:?} {} {dsacks} {reordering:?} {now:?}",
            loss.name()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::TcpConfig;

    /// A Reno sender that sent its initial window of a long write and is held by cwnd.
    fn held_by_cwnd(now: Time) -> (Sender, TcpStats, TimerTable) {
        let cfg = TcpConfig::default();
        let smss = cfg.mss as u64;
        let mut s = Sender::new(&cfg, smss);
        s.on_established(Time::ZERO, &cfg, smss, false, 1 << 20, 1);
        s.buf.push_synthetic(100_000);
        let (mut st, mut t) = (TcpStats::default(), TimerTable::default());
        while s.next_tx(now, &mut st, &mut t).is_some() {}
        assert!(s.snd_max > s.snd_una && s.has_unsent());
        (s, st, t)
    }

    #[test]
    fn nothing_to_send_when_cwnd_holds_the_unsent_data() {
        let now = Time::from_millis(5);
        let (mut s, mut st, mut t) = held_by_cwnd(now);
        assert!(s.nothing_to_send(now, &t));
        let before = s.snapshot();
        assert_eq!(s.next_tx(now, &mut st, &mut t), None);
        assert_eq!(s.snapshot(), before);
    }

    #[test]
    fn a_due_window_probe_is_not_nothing_because_the_poll_spends_it() {
        // The persist timer fired while segments are in flight: the poll sends nothing, but
        // consumes the probe, so the fast test must leave it to the full path.
        let now = Time::from_millis(5);
        let (mut s, mut st, mut t) = held_by_cwnd(now);
        s.probe_now = true;
        assert!(!s.nothing_to_send(now, &t));
        assert_eq!(s.next_tx(now, &mut st, &mut t), None);
        assert!(!s.probe_now);
    }

    #[test]
    fn an_armed_pacing_timer_is_not_nothing_because_the_poll_stops_it() {
        let now = Time::from_millis(5);
        let (mut s, mut st, mut t) = held_by_cwnd(now);
        t.set(Timer::Pacing, now);
        assert!(!s.nothing_to_send(now, &t));
        assert_eq!(s.next_tx(now, &mut st, &mut t), None);
        assert!(!t.is_set(Timer::Pacing));
    }
}
