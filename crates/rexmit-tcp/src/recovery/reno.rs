//! Reno (RFC 5681 §3.2): fast retransmit and fast recovery with window inflation; the first ACK
//! of new data ends recovery, even a partial one.

use super::super::sender::Sender;
use crate::cc::AckSample;
use crate::stats::TcpStats;
use rexmit_time::Time;

pub(super) fn on_dupack(s: &mut Sender, now: Time, st: &mut TcpStats) {
    if s.episode.is_some() {
        // RFC 5681 §3.2 step 4: inflate by one SMSS per additional duplicate ACK.
        s.cc.set_window(s.cc.window() + s.smss);
        return;
    }
    // `recover` is only moved by timeouts for Reno (no RFC 6582 guard after fast recovery).
    if s.dupacks == s.effective_dup_thresh() && super::may_enter(s) {
        super::enter_fast_recovery(s, now, st);
    }
}

pub(super) fn on_new_ack(s: &mut Sender, now: Time, ack: &AckSample, st: &mut TcpStats) -> bool {
    if s.episode.is_some() {
        // RFC 5681 §3.2 step 6: deflate to ssthresh on the next ACK of new data.
        s.cc.set_window(s.cc.ssthresh());
        s.end_episode(now, st);
        return true;
    }
    s.cc.on_ack(ack);
    true
}
