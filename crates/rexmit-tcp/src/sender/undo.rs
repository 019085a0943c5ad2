//! The sender's part of undoing a spurious reduction (`recovery::undo` holds the state): when
//! a reduction begins and ends, what each ACK shows, and the controller's `on_undo`.
//!
//! The checks of one ACK, in the order Linux's tcp_fastretrans_alert and tcp_process_loss
//! make them: after a timeout, an ACK of new data that shows the reduction spurious (D-SACK,
//! timestamps) undoes it; then F-RTO (RFC 5682 §3 steps 2–3); an ACK that ended a fast
//! recovery whose reduction was spurious undoes it (Linux tcp_try_undo_recovery); a partial
//! ACK echoing a timestamp older than the first retransmission, with no retransmission in
//! flight, undoes it and ends the episode (tcp_try_undo_partial); a D-SACK
//! that accounts for the last retransmission undoes it inside or after a fast recovery
//! (tcp_try_undo_dsack).

use super::{Occasion, Sender};
use crate::cc::{Undo, UndoCause};
use crate::recovery::undo::{echo_predates, Frto};
use crate::recovery::Actions;
use crate::stats::TcpStats;
use crate::timers::TimerTable;
use rexmit_time::Time;

/// What one ACK told, for the undo checks.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct UndoFacts {
    /// An episode was open before the ACK, and it was a timeout's.
    pub in_episode_before: bool,
    pub after_rto_before: bool,
    /// Bytes the ACK acknowledged cumulatively, and newly SACKed.
    pub acked: u64,
    pub newly_sacked: u64,
    /// A duplicate ACK (RFC 5681 §2 or RFC 6675 §2).
    pub dupack: bool,
    /// The D-SACK block, if any.
    pub dsack: Option<(u64, u64)>,
    /// The lowest end of the segments this ACK newly acknowledged (cumulatively or by SACK)
    /// that were never retransmitted.
    pub orig_end: Option<u64>,
    pub ts_ecr: Option<u32>,
}

impl Sender {
    /// A reduction begins (a congestion event that starts an episode, or a timeout outside
    /// one): the window before it is what an undo restores.
    pub(super) fn undo_begin(&mut self) {
        let (cwnd, ssthresh) = (self.cc.window(), self.cc.ssthresh());
        let prior_ssthresh = if self.undo.ssthresh_floor() {
            // Linux records prior_ssthresh = tcp_current_ssthresh (outside CWR and recovery:
            // max(ssthresh, cwnd/2 + cwnd/4), in packets) in tcp_enter_recovery and
            // tcp_enter_loss; tcp_undo_cwnd_reduction raises ssthresh to it.
            let pkts = cwnd / self.smss.max(1);
            ssthresh.max(((pkts >> 1) + (pkts >> 2)) * self.smss)
        } else {
            ssthresh
        };
        self.undo.begin(self.snd_una, cwnd, prior_ssthresh);
    }

    /// After the timeout's reduction: RFC 5682 §3 step 1 starts F-RTO unless the timeout
    /// interrupted a fast recovery ("If the TCP sender is already in RTO recovery AND recover
    /// is larger than or equal to SND.UNA, do not enter step 2"; Linux allows F-RTO for a
    /// timeout outside recovery or a repeated one).
    pub(super) fn frto_on_timeout(&mut self, fast_recovery_before: bool, high: u64) {
        if self.undo.frto_enabled() && (!fast_recovery_before || self.consecutive_timeouts > 1) {
            self.undo.start_frto(high);
        } else {
            self.undo.set_frto(None);
        }
    }

    /// The undo checks of one ACK (module doc), after loss detection.
    pub(super) fn undo_on_ack(
        &mut self,
        now: Time,
        f: &UndoFacts,
        st: &mut TcpStats,
        t: &mut TimerTable,
    ) {
        if let Some((l, r)) = f.dsack {
            self.undo.on_dsack(l, r, self.smss);
        }
        if !self.undo.is_armed() {
            return;
        }
        let echo_old = match (f.ts_ecr, self.undo.first_rexmit()) {
            (Some(ecr), Some(first)) => echo_predates(ecr, first),
            _ => false,
        };
        let spurious = self.undo.spurious(echo_old);
        if f.after_rto_before {
            // Linux tcp_try_undo_loss on an ACK of new data, then F-RTO — also on the ACK
            // that ends the timeout's episode (all of it acknowledged by its originals).
            if let (Some(cause), true) = (spurious, f.acked > 0) {
                return self.undo_now(now, cause, true, st, t);
            }
            if self.frto_on_ack(f) {
                return self.undo_now(now, UndoCause::Frto, true, st, t);
            }
            if !self.rec.after_rto() {
                self.undo.set_frto(None);
            }
            return;
        }
        let ended_now = f.in_episode_before && !self.rec.in_episode();
        if let (Some(cause), true) = (spurious, ended_now) {
            return self.undo_now(now, cause, false, st, t);
        }
        // Linux tcp_try_undo_partial: a partial ACK inside a fast recovery whose echo predates
        // the first retransmission filled the hole with the original; with no retransmission
        // left in flight the reduction is undone and the episode ends. (With one in flight
        // Linux holds further retransmissions; rexmit goes on with the recovery.)
        if spurious == Some(UndoCause::Timestamps)
            && f.acked > 0
            && self.rec.in_episode()
            && !self.sb.any_retransmission_in_flight(self.rack_detection)
        {
            return self.undo_now(now, UndoCause::Timestamps, true, st, t);
        }
        if spurious == Some(UndoCause::Dsack) && f.dsack.is_some() && !self.rec.after_rto() {
            self.undo_now(now, UndoCause::Dsack, false, st, t);
        }
    }

    /// RFC 5682 §3 steps 2–3 on an ACK during a timeout's recovery; true when it shows the
    /// timeout spurious.
    fn frto_on_ack(&mut self, f: &UndoFacts) -> bool {
        let Some(fr) = self.undo.frto() else {
            return false;
        };
        // Step 3.b (as Linux, at any ACK of the episode): data sent before the timeout and
        // never retransmitted was acknowledged, "because the segment acknowledged with this
        // ACK was transmitted before the timeout".
        if f.orig_end.is_some_and(|e| e <= fr.high) {
            return true;
        }
        let mut next = Frto {
            send_new: false,
            ..fr
        };
        if self.snd_max > fr.high {
            // Step 3.a: new data went after the timeout and this ACK does not acknowledge
            // anything sent before it: "proceed with the conventional RTO recovery".
            if f.newly_sacked > 0 || f.dupack {
                self.undo.set_frto(None);
                return false;
            }
        } else if f.acked > 0 && self.snd_una < fr.high {
            // Step 2.b: the retransmission was acknowledged: "transmit up to two new
            // (previously unsent) segments" (cwnd, two after slow start, allows them) — or,
            // with nothing new to send, continue with the conventional recovery.
            if self.has_unsent() && self.snd_max < self.snd_una + self.snd_wnd() {
                next.send_new = true;
            } else {
                self.undo.set_frto(None);
                return false;
            }
        }
        self.undo.set_frto(Some(next));
        false
    }

    /// F-RTO step 2.b holds retransmissions for new data: `Some(high)` while it does.
    pub(super) fn frto_sends_new(&self) -> Option<u64> {
        self.undo.frto().filter(|f| f.send_new).map(|f| f.high)
    }

    /// Step 2.b found no new data to send after all: conventional recovery.
    pub(super) fn frto_give_up(&mut self) {
        self.undo.set_frto(None);
    }

    /// Undo: the controller hears `on_undo` with the window before the reduction; loss marks
    /// are forgotten after a timeout (Linux tcp_undo_cwnd_reduction with unmark_loss); an open
    /// episode ends (`on_recovery_end` follows).
    fn undo_now(
        &mut self,
        now: Time,
        cause: UndoCause,
        unmark: bool,
        st: &mut TcpStats,
        t: &mut TimerTable,
    ) {
        let (prior_cwnd, prior_ssthresh) = self.undo.take();
        self.cc.on_undo(&Undo {
            now,
            cause,
            prior_cwnd,
            prior_ssthresh,
        });
        match cause {
            UndoCause::Dsack => st.undos_dsack += 1,
            UndoCause::Timestamps => st.undos_timestamps += 1,
            UndoCause::Frto => st.undos_frto += 1,
        }
        if unmark {
            self.sb.unmark_lost();
        }
        if self.rec.end_by_undo(self.snd_una) {
            self.pending_rexmit = None;
            let a = Actions {
                ended: true,
                ..Actions::default()
            };
            self.apply(a, Occasion::Loss, now, st, t);
        }
    }
}
