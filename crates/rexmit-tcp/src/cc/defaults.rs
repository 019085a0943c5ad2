//! The RFC behaviour of every `CongestionControl` event that has a default, as functions: the
//! trait's default methods are these, and a controller that overrides an event — or a bridge
//! to another language that forwards only the events a plugin defines — calls them for the
//! rest. Each stores the window it computes through the controller's `store_cwnd` /
//! `store_ssthresh`, which only this module (and `cc`) can call.

use super::{CongestionControl, EcnEcho, IdleRestart, Timeout, Undo, OWN};

/// RFC 5681 §3.1: "the initial window used by a sender after a correctly transmitted SYN MUST
/// be one segment": cwnd = 1 SMSS after a retransmitted SYN.
pub fn on_lost_syn<C: CongestionControl + ?Sized>(c: &mut C, smss: u64) {
    c.store_cwnd(smss, OWN);
}

/// RFC 5681 §4.1: cwnd = min(cwnd, RW) when sending restarts after an idle period (and
/// ssthresh at least the event's floor: Linux's tcp_cwnd_restart).
pub fn on_idle_restart<C: CongestionControl + ?Sized>(c: &mut C, ev: &IdleRestart) {
    if ev.ssthresh_floor > c.ssthresh() {
        c.store_ssthresh(ev.ssthresh_floor, OWN);
    }
    c.store_cwnd(c.window().min(ev.restart_window), OWN);
}

/// A retransmission timeout: the congestion event's decrease for ssthresh (RFC 5681 §3.1 eq. 4;
/// cause `Timeout`), the ssthresh RFC 5681 §3.1 lets stand (`Timeout::ssthresh_to_keep`), then
/// cwnd = the loss window LW = 1 SMSS.
pub fn on_timeout<C: CongestionControl + ?Sized>(c: &mut C, ev: &Timeout) {
    c.on_congestion_event(&ev.congestion_event());
    c.store_ssthresh(ev.ssthresh_to_keep(c.ssthresh()), OWN);
    c.store_cwnd(ev.smss, OWN);
}

/// RFC 3168 §6.1.2: an ECN echo is "treated just as a congestion loss" without a
/// retransmission: the controller's decrease (cause `EcnEcho`) sets ssthresh, and cwnd is at
/// most ssthresh.
pub fn on_ecn_echo<C: CongestionControl + ?Sized>(c: &mut C, ev: &EcnEcho) {
    c.on_congestion_event(&ev.congestion_event());
    if c.window() > c.ssthresh() {
        c.store_cwnd(c.ssthresh(), OWN);
    }
}

/// RFC 4015's response to a spurious reduction, as Linux's tcp_undo_cwnd_reduction with
/// tcp_reno_undo_cwnd: cwnd = max(cwnd, prior cwnd), ssthresh = max(ssthresh, prior ssthresh).
pub fn on_undo<C: CongestionControl + ?Sized>(c: &mut C, ev: &Undo) {
    c.store_cwnd(c.window().max(ev.prior_cwnd), OWN);
    c.store_ssthresh(c.ssthresh().max(ev.prior_ssthresh), OWN);
}

/// RFC 5681 §3.2 step 3: cwnd = ssthresh + `dupacks`·SMSS as fast recovery begins.
pub fn on_recovery_inflate<C: CongestionControl + ?Sized>(c: &mut C, dupacks: u32, smss: u64) {
    c.store_cwnd(c.ssthresh() + dupacks as u64 * smss, OWN);
}

/// RFC 5681 §3.2 step 4, RFC 6582 §3.2 step 4: cwnd += SMSS per further duplicate ACK.
pub fn on_recovery_dupack<C: CongestionControl + ?Sized>(c: &mut C, smss: u64) {
    c.store_cwnd(c.window() + smss, OWN);
}

/// RFC 5681 §3.2 step 6, RFC 6582 §3.2 step 3 (2), RFC 6937 §3: cwnd = ssthresh at the end.
pub fn on_recovery_deflate<C: CongestionControl + ?Sized>(c: &mut C) {
    c.store_cwnd(c.ssthresh(), OWN);
}

/// RFC 6582 §3.2 step 5: deflate by the new data acknowledged, add back one SMSS if at least
/// one SMSS was acknowledged; never below one SMSS.
pub fn on_partial_ack<C: CongestionControl + ?Sized>(c: &mut C, acked: u64, smss: u64) {
    let mut cwnd = c.window().saturating_sub(acked);
    if acked >= smss {
        cwnd += smss;
    }
    c.store_cwnd(cwnd.max(smss), OWN);
}

/// RFC 6937 §3: cwnd = pipe + sndcnt on an ACK in SACK recovery with PRR.
pub fn on_prr<C: CongestionControl + ?Sized>(c: &mut C, pipe: u64, sndcnt: u64) {
    c.store_cwnd(pipe + sndcnt, OWN);
}

/// Tahoe's fast retransmit: slow start again from cwnd = 1 SMSS (go-back-N).
pub fn on_go_back<C: CongestionControl + ?Sized>(c: &mut C, smss: u64) {
    c.store_cwnd(smss, OWN);
}
