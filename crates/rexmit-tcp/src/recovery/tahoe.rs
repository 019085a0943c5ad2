//! Tahoe: on DupThresh duplicate ACKs, fast retransmit and slow start from one segment, resending
//! everything after the lost segment (go-back-N). No fast recovery; later duplicate ACKs are
//! ignored until snd_una passes the data outstanding at the loss (RFC 6582 §3.2 step 1 guard).

use super::{AckFacts, Actions, Cwnd, Decrease, Recovery};
use crate::cc::CongestionCause;
use crate::stats::RetransmitCause;

pub(super) fn on_dupack(r: &mut Recovery, f: &AckFacts) -> Actions {
    if f.dupacks != f.dup_thresh || !r.may_enter(f) {
        return Actions::default();
    }
    r.recover = f.snd_max;
    r.recover_after_go_back = true;
    r.begin_episode(f, false);
    Actions {
        decrease: Some(Decrease {
            base: f.decrease_base,
            cause: CongestionCause::DuplicateAcks,
        }),
        cwnd: Some(Cwnd::GoBack),
        began: true,
        go_back: Some(RetransmitCause::FastRetransmit),
        ..Actions::default()
    }
}

pub(super) fn on_new_ack(r: &mut Recovery, f: &AckFacts) -> Actions {
    let ended = r
        .episode
        .as_ref()
        .is_some_and(|e| f.snd_una >= e.recovery_point)
        && r.end_episode();
    Actions {
        ended,
        ..Actions::grow()
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_facts::*;
    use super::*;
    use crate::config::RecoveryAlgorithm;

    #[test]
    fn third_duplicate_goes_back_to_one_segment() {
        let mut r = Recovery::new(RecoveryAlgorithm::Tahoe, true, false);
        assert_eq!(on_dupack(&mut r, &facts(2)), Actions::default());
        let a = on_dupack(&mut r, &facts(3));
        assert_eq!(a.decrease.map(|d| d.base), Some(10 * MSS));
        assert_eq!(a.cwnd, Some(Cwnd::GoBack));
        assert_eq!(a.go_back, Some(RetransmitCause::FastRetransmit));
        assert!(a.began && a.retransmit.is_none());
        assert_eq!(r.recover, 1 + 10 * MSS);
        // The go-back-N resends draw more duplicates: no second fast retransmit.
        assert_eq!(on_dupack(&mut r, &facts(3)), Actions::default());
    }

    #[test]
    fn episode_ends_when_everything_outstanding_is_acknowledged() {
        let mut r = Recovery::new(RecoveryAlgorithm::Tahoe, true, false);
        on_dupack(&mut r, &facts(3));
        let a = on_new_ack(&mut r, &new_ack(1 + 5 * MSS, 5 * MSS));
        assert!(a.grow && !a.ended && r.in_episode());
        let a = on_new_ack(&mut r, &new_ack(1 + 10 * MSS, 5 * MSS));
        assert!(a.grow && a.ended && !r.in_episode());
    }
}
