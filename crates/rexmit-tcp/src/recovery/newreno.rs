//! NewReno (RFC 6582): fast recovery lasts until the ACK of everything outstanding when it
//! began (`recover`); each partial ACK retransmits the next hole.

use super::super::sender::Sender;
use crate::cc::AckSample;
use crate::stats::{RetransmitCause, TcpStats};
use rexmit_time::Time;

pub(super) fn on_dupack(s: &mut Sender, now: Time, st: &mut TcpStats) {
    if s.episode.is_some() {
        // RFC 6582 §3.2 step 4: inflate by one SMSS per additional duplicate ACK.
        s.cc.set_window(s.cc.window() + s.smss);
        return;
    }
    // RFC 6582 §3.2 steps 1–2: only if the cumulative ACK covers more than `recover`.
    if s.dupacks == s.effective_dup_thresh() && super::may_enter(s) {
        s.recover = s.snd_max;
        s.recover_after_go_back = false;
        super::enter_fast_recovery(s, now, st);
    }
}

pub(super) fn on_new_ack(s: &mut Sender, now: Time, ack: &AckSample, st: &mut TcpStats) -> bool {
    let Some(ep) = s.episode.as_mut() else {
        s.cc.on_ack(ack);
        return true;
    };
    if s.snd_una >= ep.recovery_point {
        // RFC 6582 §3.2 step 3 (full ACK), option (2): cwnd = ssthresh.
        s.cc.set_window(s.cc.ssthresh());
        s.end_episode(now, st);
        return true;
    }
    // RFC 6582 §3.2 step 5 (partial ACK): retransmit the first unacknowledged segment, deflate
    // by the amount acknowledged, add back one SMSS if at least one SMSS was acknowledged.
    ep.partial_acks += 1;
    let first_partial = ep.partial_acks == 1;
    if let Some(first) = s.sb.first() {
        s.pending_rexmit = Some((first.start, RetransmitCause::FastRetransmit));
    }
    let mut cwnd = s.cc.window().saturating_sub(ack.acked);
    if ack.acked >= s.smss {
        cwnd += s.smss;
    }
    s.cc.set_window(cwnd.max(s.smss));
    // Step 5: reset the retransmit timer only for the first partial ACK ("Impatient").
    first_partial
}
