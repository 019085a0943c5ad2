//! What the sender transmits next (RFC 6675 NextSeg during SACK recovery, go-back-N, the
//! RFC 8985 §7.3 tail-loss probe, retransmissions, new data under cwnd, the receive window,
//! Nagle and SWS avoidance, pacing) and the timers a transmission arms (RFC 6298 §5.1).

use super::{DataTx, Sender};
use crate::config::{RecoveryAlgorithm, RtoRearm};
use crate::sack_scoreboard::SentSegment;
use crate::stats::{RetransmitCause, TcpStats};
use crate::timers::{Timer, TimerTable};
use rexmit_time::Time;

impl Sender {
    /// Choose and record the next data segment to send, if any may go now.
    pub fn next_tx(&mut self, now: Time, st: &mut TcpStats, t: &mut TimerTable) -> Option<DataTx> {
        let pipe = if self.rate.is_some() { self.pipe() } else { 0 };
        let tx = self.choose_tx(now, st, t)?;
        if let Some(prr) = self.rec.prr.as_mut() {
            prr.on_sent(tx.len + tx.fin as u64);
        }
        if let Some(r) = self.rate.as_mut() {
            let len = tx.len + tx.fin as u64;
            r.on_send(now, tx.start + len, len, pipe, tx.rexmit.is_some());
        }
        if tx.rexmit.is_none() {
            self.pace(now, tx.len);
        }
        Some(tx)
    }

    fn choose_tx(&mut self, now: Time, st: &mut TcpStats, t: &mut TimerTable) -> Option<DataTx> {
        if let Some((start, cause)) = self.pending_rexmit.take() {
            if let Some(tx) = self.retransmit(now, start, cause, st, t) {
                let end = tx.start + tx.len + tx.fin as u64;
                if self.snd_nxt == tx.start {
                    self.snd_nxt = self.snd_nxt.max(end);
                }
                if self.rec.alg == RecoveryAlgorithm::Sack && self.rec.in_episode() {
                    // RFC 6675 §5 (4.3) retransmission: now below HighRxt.
                    self.rec.on_retransmitted(end);
                }
                return Some(tx);
            }
        }
        // Pacing holds everything but the retransmissions that go regardless of cwnd; the
        // pacing timer is armed only when the window would let something go.
        if self.pace_at > now && self.cc.pacing_rate().is_some() {
            let wait = self.cc.window() >= self.pipe() + self.smss
                && (self.has_unsent() || self.rec.in_episode());
            t.put(Timer::Pacing, wait.then_some(self.pace_at));
            return None;
        }
        t.stop(Timer::Pacing);
        if std::mem::take(&mut self.tlp_pending) {
            if let Some(tx) = self.tail_loss_probe(now, st, t) {
                return Some(tx);
            }
        }
        if self.rec.alg == RecoveryAlgorithm::Sack && self.rec.in_episode() {
            return self.next_seg(now, st, t);
        }
        let cwnd = self.cc.window() + self.limited_transmit_allowance();
        let limit = self.snd_una + cwnd.min(self.snd_wnd);
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
            self.snd_nxt = seg.end;
            return self.retransmit(now, seg.start, self.go_back_cause, st, t);
        }
        let cwnd_only = self.snd_una + cwnd;
        let tx = self.new_data(now, limit.min(cwnd_only), st, t)?;
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
        Some(tx)
    }

    /// RFC 3042 §2: the first two duplicate ACKs each allow one new segment beyond cwnd.
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
        let after_rto = self.rec.after_rto();
        let cause = match (after_rto, self.rack.is_some()) {
            (true, _) => RetransmitCause::Timeout,
            (false, true) => RetransmitCause::Rack,
            (false, false) => RetransmitCause::FastRetransmit,
        };
        if self.rack.is_some() {
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
        if self.rack.is_some() {
            // The retransmission is in flight again (RFC 8985: lost marks clear on resend).
            self.sb.clear_lost(start);
        }
        st.bytes_retransmitted += len;
        let rearm = self.rto_rearm == RtoRearm::EveryRetransmit
            && self.rec.in_episode()
            && !self.rec.after_rto();
        if !t.is_set(Timer::Retransmit) || rearm {
            // RFC 6298 §5.1; RFC 6675 §6's variant restarts it on every retransmission.
            self.arm_rto(now, t);
        }
        Some(DataTx {
            start: seg.start,
            len,
            fin: seg.fin,
            rexmit: Some(cause),
        })
    }

    /// The next new segment if it fits below `limit` (Nagle and SWS avoidance permitting).
    fn new_data(
        &mut self,
        now: Time,
        limit: u64,
        st: &mut TcpStats,
        t: &mut TimerTable,
    ) -> Option<DataTx> {
        let start = self.snd_max;
        let avail = self.buf.end().saturating_sub(start);
        let mut len = avail.min(self.smss);
        let fin_pending = self.fin_at.is_some_and(|f| f >= start);
        if len == 0 && !fin_pending {
            return None;
        }
        let probe = std::mem::take(&mut self.probe_now);
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
            } else {
                if self.snd_wnd < self.smss.min(avail.max(1))
                    && self.sb.is_empty()
                    && !t.is_set(Timer::Persist)
                {
                    t.set(Timer::Persist, now + self.rtt.rto());
                }
                return None;
            }
        }
        let fin = fin_pending && self.fin_at == Some(start + len);
        // RFC 9293 §3.7.4 Nagle: hold a small segment while data is unacknowledged.
        if self.nagle && len < self.smss && !fin && self.snd_max > self.snd_una {
            return None;
        }
        let end = start + len + fin as u64;
        self.sb.push(SentSegment {
            start,
            end,
            fin,
            sent_at: now,
            rexmits: 0,
            sacked: false,
            lost: false,
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
        })
    }
}
