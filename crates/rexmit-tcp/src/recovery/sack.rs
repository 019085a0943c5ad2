//! SACK-based conservative loss recovery (RFC 6675 §5): entry on DupThresh duplicate ACKs or
//! IsLost(HighACK + 1), retransmissions chosen by NextSeg under the pipe limit (in `sender`),
//! exit when the cumulative ACK reaches RecoveryPoint.

use super::super::sender::Sender;
use super::prr::Prr;
use crate::cc::AckSample;
use crate::stats::{RetransmitCause, TcpStats};
use rexmit_time::Time;

pub(super) fn on_dupack(s: &mut Sender, now: Time, st: &mut TcpStats) {
    if s.episode.is_some() || s.rack.is_some() {
        // With RACK, loss detection (and so recovery entry) is RACK's (RFC 8985 §6).
        return;
    }
    // RFC 6675 §5 step (4): DupAcks >= DupThresh or IsLost(HighACK + 1), when not in loss
    // recovery (HighACK at or past the last RecoveryPoint). No RFC 6582 heuristic is needed:
    // a duplicate ACK here must SACK new data, which resends of received data never do.
    let trigger = s.dupacks >= s.effective_dup_thresh() || s.sb.first_is_lost();
    if !trigger || s.snd_una < s.recover {
        return;
    }
    enter(s, now, st);
}

/// RFC 6675 §5 step (4): enter loss recovery.
pub(super) fn enter(s: &mut Sender, now: Time, st: &mut TcpStats) {
    st.fast_retransmits += 1;
    // (4.1) RecoveryPoint = HighData.
    s.recover = s.snd_max;
    s.recover_after_go_back = false;
    // (4.2) ssthresh = cwnd = FlightSize / 2 (the controller's decrease).
    s.cc.on_congestion_event(now, s.decrease_base(true));
    s.high_rxt = s.snd_una;
    s.rescue_rxt = None;
    // (4.3) Retransmit the first segment presumed dropped, regardless of pipe.
    // HighRxt rises when it is actually sent (sender), so that PRR's pipe excludes it.
    let first = if s.rack.is_some() {
        s.sb.first_lost()
    } else {
        s.sb.first()
    };
    if let Some(start) = first.map(|f| f.start) {
        let cause = if s.rack.is_some() {
            RetransmitCause::Rack
        } else {
            RetransmitCause::FastRetransmit
        };
        s.pending_rexmit = Some((start, cause));
    }
    if s.prr_enabled {
        s.prr = Some(Prr::new(s.flight_size()));
    }
    if let Some(rack) = s.rack.as_mut() {
        // RFC 8985 §7.2: no probe during recovery (the sender stops the PTO timer).
        rack.tlp_end_seq = None;
    }
    s.begin_episode(now, false, st);
}

pub(super) fn on_new_ack(s: &mut Sender, now: Time, ack: &AckSample, st: &mut TcpStats) -> bool {
    let Some(ep) = s.episode.as_ref() else {
        s.cc.on_ack(ack);
        return true;
    };
    let after_rto = ep.after_rto;
    if s.snd_una >= ep.recovery_point {
        // RFC 6675 §5 (A): end of loss recovery; RFC 6937 §3: cwnd = ssthresh after PRR.
        if s.prr.is_some() {
            s.cc.set_window(s.cc.ssthresh());
        }
        s.end_episode(now, st);
    }
    if after_rto {
        // After a timeout the window regrows by slow start (RFC 5681 §3.1).
        s.cc.on_ack(ack);
    }
    s.high_rxt = s.high_rxt.max(s.snd_una);
    true
}

/// RFC 6675 §5.1: after a timeout everything not SACKed is presumed lost and resent via
/// NextSeg in slow start, until RecoveryPoint = HighData is acknowledged.
pub(super) fn on_timeout(s: &mut Sender, now: Time, st: &mut TcpStats) {
    s.sb.mark_all_lost();
    s.high_rxt = s.snd_una;
    s.rescue_rxt = None;
    s.begin_episode(now, true, st);
    let first =
        s.sb.segments()
            .find(|x| !x.sacked)
            .map(|x| (x.start, x.end));
    if let Some((start, end)) = first {
        s.pending_rexmit = Some((start, RetransmitCause::Timeout));
        s.high_rxt = end;
    }
}
