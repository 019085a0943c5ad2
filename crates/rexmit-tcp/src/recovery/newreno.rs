//! NewReno (RFC 6582): fast recovery lasts until the ACK of everything outstanding when it
//! began (`recover`); each partial ACK retransmits the next hole.

use super::{AckFacts, Actions, Cwnd, Recovery};
use crate::stats::RetransmitCause;

pub(super) fn on_dupack(r: &mut Recovery, f: &AckFacts) -> Actions {
    if r.episode.is_some() {
        // RFC 6582 §3.2 step 4: inflate by one SMSS per additional duplicate ACK.
        return Actions {
            cwnd: Some(Cwnd::InflateOne),
            ..Actions::default()
        };
    }
    // RFC 6582 §3.2 steps 1–2: only if the cumulative ACK covers more than `recover`.
    if f.dupacks == f.dup_thresh && r.may_enter(f) {
        r.recover = f.snd_max;
        r.recover_after_go_back = false;
        return super::enter_fast_recovery(r, f);
    }
    Actions::default()
}

pub(super) fn on_new_ack(r: &mut Recovery, f: &AckFacts) -> Actions {
    let Some(ep) = r.episode.as_mut() else {
        return Actions::grow();
    };
    if f.snd_una >= ep.recovery_point {
        // RFC 6582 §3.2 step 3 (full ACK), option (2): cwnd = ssthresh.
        r.end_episode();
        return Actions {
            cwnd: Some(Cwnd::Deflate),
            ended: true,
            restart_rto: true,
            ..Actions::default()
        };
    }
    // RFC 6582 §3.2 step 5 (partial ACK): retransmit the first unacknowledged segment, deflate
    // by the amount acknowledged, add back one SMSS if at least one SMSS was acknowledged.
    ep.partial_acks += 1;
    Actions {
        cwnd: Some(Cwnd::PartialAck { acked: f.acked }),
        retransmit: f
            .first_unacked
            .map(|s| (s, RetransmitCause::FastRetransmit)),
        // Step 5: reset the retransmit timer only for the first partial ACK ("Impatient").
        restart_rto: ep.partial_acks == 1,
        ..Actions::default()
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_facts::*;
    use super::*;
    use crate::config::RecoveryAlgorithm;

    fn in_recovery() -> Recovery {
        let mut r = Recovery::new(RecoveryAlgorithm::NewReno, false, false);
        assert!(on_dupack(&mut r, &facts(3)).began);
        r
    }

    #[test]
    fn partial_acks_retransmit_the_next_hole_and_deflate() {
        let mut r = in_recovery();
        // 2 segments acknowledged (the controller deflates: 8 − 2 + 1 = 7 from cwnd 8).
        let a = on_new_ack(&mut r, &new_ack(1 + 2 * MSS, 2 * MSS));
        assert_eq!(a.cwnd, Some(Cwnd::PartialAck { acked: 2 * MSS }));
        assert_eq!(
            a.retransmit,
            Some((1 + 2 * MSS, RetransmitCause::FastRetransmit))
        );
        assert!(a.restart_rto && !a.ended && !a.grow);
        // Only the first partial ACK restarts the timer (the "Impatient" variant).
        let a = on_new_ack(&mut r, &new_ack(1 + 3 * MSS, MSS));
        assert!(!a.restart_rto);
        assert_eq!(a.cwnd, Some(Cwnd::PartialAck { acked: MSS }));
    }

    #[test]
    fn full_ack_deflates_to_ssthresh_and_guards_recover() {
        let mut r = in_recovery();
        let a = on_new_ack(&mut r, &new_ack(1 + 10 * MSS, 10 * MSS));
        assert_eq!(a.cwnd, Some(Cwnd::Deflate));
        assert!(a.ended && !r.in_episode());
        // Duplicates of data sent before the full ACK's point cannot start another episode.
        let stale = AckFacts {
            snd_una: 1 + 5 * MSS,
            ..facts(3)
        };
        assert_eq!(on_dupack(&mut r, &stale), Actions::default());
        let fresh = AckFacts {
            snd_una: 1 + 10 * MSS,
            snd_max: 1 + 20 * MSS,
            ..facts(3)
        };
        assert!(on_dupack(&mut r, &fresh).began);
    }
}
