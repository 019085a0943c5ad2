//! Loss recovery: what each algorithm does on a duplicate ACK, on an ACK of new data and on a
//! retransmission timeout. One file per algorithm; this module dispatches and holds what they
//! share (RFC 6298 timeout handling, episode bookkeeping).
//!
//! Owns the reactions only. Transmission selection (including NextSeg) is in `sender`, the
//! scoreboard in `sack_scoreboard`, window arithmetic in `cc`.

mod newreno;
pub mod prr;
mod reno;
mod sack;
mod tahoe;

use crate::cc::AckSample;
use crate::config::RecoveryAlgorithm;
use crate::sender::Sender;
use crate::stats::{RetransmitCause, TcpStats};
use rexmit_time::Time;

/// A duplicate ACK arrived (`s.dupacks` already counts it).
pub(crate) fn on_dupack(s: &mut Sender, now: Time, st: &mut TcpStats) {
    match s.alg {
        RecoveryAlgorithm::Tahoe => tahoe::on_dupack(s, now, st),
        RecoveryAlgorithm::Reno => reno::on_dupack(s, now, st),
        RecoveryAlgorithm::NewReno => newreno::on_dupack(s, now, st),
        RecoveryAlgorithm::Sack => sack::on_dupack(s, now, st),
    }
}

/// An ACK advanced snd_una (already updated). Returns whether the RTO timer is restarted
/// (RFC 6298 §5.3; RFC 6582 §3.2 step 5 restricts it during NewReno recovery).
pub(crate) fn on_new_ack(s: &mut Sender, now: Time, ack: &AckSample, st: &mut TcpStats) -> bool {
    match s.alg {
        RecoveryAlgorithm::Tahoe => tahoe::on_new_ack(s, now, ack, st),
        RecoveryAlgorithm::Reno => reno::on_new_ack(s, now, ack, st),
        RecoveryAlgorithm::NewReno => newreno::on_new_ack(s, now, ack, st),
        RecoveryAlgorithm::Sack => sack::on_new_ack(s, now, ack, st),
    }
}

/// RACK marked a segment lost (RFC 8985 §6.2 step 5): start SACK loss recovery if not in one.
pub(crate) fn on_rack_loss(s: &mut Sender, now: Time, st: &mut TcpStats) {
    if s.episode.is_none() {
        sack::enter(s, now, st);
    }
}

/// RFC 6298 §5.4–5.5 and RFC 5681 §3.1 after a retransmission timeout.
pub(crate) fn on_timeout(s: &mut Sender, now: Time, st: &mut TcpStats) {
    st.timeouts += 1;
    s.consecutive_timeouts += 1;
    // RFC 5681 §3.1: ssthresh is set to *no more than* eq. 4 (FlightSize / 2), and only when the
    // segment has not been resent by the timer before. Inside a loss-recovery episode FlightSize
    // also counts the data sent during recovery, so eq. 4 alone would raise ssthresh above what
    // the episode's congestion response set; keep the smaller (Linux keeps the recovery's
    // ssthresh, ns-2 halves its already halved cwnd). A repeated timeout keeps ssthresh.
    let keep = (s.episode.is_some() || s.consecutive_timeouts > 1).then(|| s.cc.ssthresh());
    // eq. 4 (the controller's decrease) and cwnd = LW = 1 SMSS.
    s.cc.on_timeout(now, s.decrease_base(false));
    if let Some(old) = keep {
        let w = s.cc.window_state_mut();
        w.ssthresh = if s.consecutive_timeouts > 1 { old } else { w.ssthresh.min(old) };
    }
    s.end_episode(now, st);
    // RFC 6298 §5.5 back off, unless the thin-stream option keeps timeouts linear.
    if !(s.thin_linear_timeouts && s.is_thin()) {
        s.rtt.back_off();
    }
    // RFC 6582 §3.2 step 1 / RFC 6675 §5.1: no fast retransmit for data sent before the timeout.
    s.recover = s.snd_max;
    s.recover_after_go_back = false;
    s.dupacks = 0;
    if s.alg == RecoveryAlgorithm::Sack {
        sack::on_timeout(s, now, st);
    } else {
        // Go back N: resend from snd_una in slow start (RFC 5681 §3.1 retransmits the earliest
        // segment, RFC 6298 §5.4; the rest follow as the window opens).
        s.go_back_cause = RetransmitCause::Timeout;
        s.snd_nxt = s.snd_una;
        if let Some(first) = s.sb.first() {
            s.pending_rexmit = Some((first.start, RetransmitCause::Timeout));
        }
    }
}

/// RFC 6582 §3.2 step 1: no new fast retransmit until the cumulative ACK reaches `recover`
/// (the data outstanding at the last fast retransmit or timeout). After Tahoe's fast
/// retransmit, whose go-back-N resends reach the receiver a second time and draw duplicate
/// ACKs, the RFC's strict test applies — the ACK must cover *more* than `recover` — and when it
/// covers exactly `recover` the §4.1 ACK heuristic decides: a loss only if the last advance of
/// the cumulative ACK was at most 4·SMSS (cwnd above one SMSS). Elsewhere reaching `recover`
/// suffices: after timeouts the heuristic mistook real drop-tail losses right at `recover` for
/// duplicates and cost extra timeouts in the seed 001 setting (see `rexmit-endpoints` tests).
fn may_enter(s: &Sender) -> bool {
    if s.alg == RecoveryAlgorithm::Tahoe && !s.tahoe_recover_guard {
        return true;
    }
    if !s.recover_after_go_back {
        return s.snd_una >= s.recover;
    }
    s.snd_una > s.recover
        || (s.snd_una == s.recover && s.cc.window() > s.smss && s.last_ack_advance <= 4 * s.smss)
}

/// RFC 5681 §3.2 steps 2–3 shared by Reno and NewReno: halve, retransmit, inflate by DupThresh.
fn enter_fast_recovery(s: &mut Sender, now: Time, st: &mut TcpStats) {
    st.fast_retransmits += 1;
    s.cc.on_congestion_event(now, s.decrease_base(true));
    let inflated = s.cc.ssthresh() + s.dupacks as u64 * s.smss;
    s.cc.set_window(inflated);
    if let Some(first) = s.sb.first() {
        s.pending_rexmit = Some((first.start, RetransmitCause::FastRetransmit));
    }
    s.begin_episode(now, false, st);
}
