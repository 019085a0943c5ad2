//! Reno (RFC 5681 §3.2): fast retransmit and fast recovery with window inflation; the first ACK
//! of new data ends recovery, even a partial one.

use super::{AckFacts, Actions, Cwnd, Recovery};

pub(super) fn on_dupack(r: &mut Recovery, f: &AckFacts) -> Actions {
    if r.episode.is_some() {
        // RFC 5681 §3.2 step 4: inflate by one SMSS per additional duplicate ACK.
        return Actions {
            cwnd: Some(Cwnd::InflateOne),
            ..Actions::default()
        };
    }
    // `recover` is only moved by timeouts for Reno (no RFC 6582 guard after fast recovery).
    if f.dupacks == f.dup_thresh && r.may_enter(f) {
        return super::enter_fast_recovery(r, f);
    }
    Actions::default()
}

pub(super) fn on_new_ack(r: &mut Recovery, _f: &AckFacts) -> Actions {
    if r.end_episode() {
        // RFC 5681 §3.2 step 6: deflate to ssthresh on the next ACK of new data.
        return Actions {
            cwnd: Some(Cwnd::Deflate),
            ended: true,
            restart_rto: true,
            ..Actions::default()
        };
    }
    Actions::grow()
}

#[cfg(test)]
mod tests {
    use super::super::test_facts::*;
    use super::*;
    use crate::cc::CongestionCause;
    use crate::config::RecoveryAlgorithm;
    use crate::recovery::Decrease;
    use crate::stats::RetransmitCause;

    #[test]
    fn fast_retransmit_inflates_then_a_partial_ack_deflates_and_ends() {
        let mut r = Recovery::new(RecoveryAlgorithm::Reno, false, false);
        assert_eq!(on_dupack(&mut r, &facts(2)), Actions::default());
        let a = on_dupack(&mut r, &facts(3));
        assert_eq!(
            a.decrease,
            Some(Decrease {
                base: 10 * MSS,
                cause: CongestionCause::DuplicateAcks
            })
        );
        assert_eq!(a.cwnd, Some(Cwnd::Inflate { dupacks: 3 }));
        assert_eq!(a.retransmit, Some((1, RetransmitCause::FastRetransmit)));
        assert!(a.began);
        let a = on_dupack(&mut r, &facts(4));
        assert_eq!(a.cwnd, Some(Cwnd::InflateOne));
        // Reno ends at the first ACK of new data, partial or not.
        let a = on_new_ack(&mut r, &new_ack(1 + MSS, MSS));
        assert_eq!(a.cwnd, Some(Cwnd::Deflate));
        assert!(a.ended && !a.grow && a.restart_rto && !r.in_episode());
        assert!(on_new_ack(&mut r, &new_ack(1 + 2 * MSS, MSS)).grow);
    }
}
