//! Tahoe: on DupThresh duplicate ACKs, fast retransmit and slow start from one segment, resending
//! everything after the lost segment (go-back-N). No fast recovery; later duplicate ACKs are
//! ignored until snd_una passes the data outstanding at the loss (RFC 6582 §3.2 step 1 guard).

use super::super::sender::Sender;
use crate::cc::AckSample;
use crate::stats::{RetransmitCause, TcpStats};
use rexmit_time::Time;

pub(super) fn on_dupack(s: &mut Sender, now: Time, st: &mut TcpStats) {
    if s.dupacks != s.effective_dup_thresh() || !super::may_enter(s) {
        return;
    }
    st.fast_retransmits += 1;
    s.cc.on_congestion_event(now, s.decrease_base(true));
    s.cc.set_window(s.smss);
    s.recover = s.snd_max;
    s.recover_after_go_back = true;
    s.go_back_cause = RetransmitCause::FastRetransmit;
    s.snd_nxt = s.snd_una;
    s.begin_episode(now, false, st);
}

pub(super) fn on_new_ack(s: &mut Sender, now: Time, ack: &AckSample, st: &mut TcpStats) -> bool {
    if s.episode
        .as_ref()
        .is_some_and(|e| s.snd_una >= e.recovery_point)
    {
        s.end_episode(now, st);
    }
    s.cc.on_ack(ack);
    true
}
