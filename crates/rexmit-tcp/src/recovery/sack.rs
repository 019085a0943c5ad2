//! SACK-based conservative loss recovery (RFC 6675 §5): entry on DupThresh duplicate ACKs or
//! IsLost(HighACK + 1) (or a RACK loss mark, RFC 8985), exit when the cumulative ACK reaches
//! RecoveryPoint, and NextSeg's retransmission rules (§4: rules 1, 3 and 4 with HighRxt and
//! RescueRxt; rule 2, new data, is the sender's, which asks for these in the RFC's order).
//! IsLost and SetPipe are the scoreboard's (`sack_scoreboard`).

use super::prr::Prr;
use super::{AckFacts, Actions, Cwnd, Decrease, Recovery};
use crate::cc::CongestionCause;
use crate::sack_scoreboard::Scoreboard;
use crate::stats::RetransmitCause;

pub(super) fn on_dupack(r: &mut Recovery, f: &AckFacts) -> Actions {
    if r.episode.is_some() || f.rack {
        // With RACK, loss detection (and so recovery entry) is RACK's (RFC 8985 §6).
        return Actions::default();
    }
    // RFC 6675 §5 step (4): DupAcks >= DupThresh or IsLost(HighACK + 1), when not in loss
    // recovery (HighACK at or past the last RecoveryPoint). No RFC 6582 heuristic is needed:
    // a duplicate ACK here must SACK new data, which resends of received data never do.
    let trigger = f.dupacks >= f.dup_thresh || f.first_is_lost;
    if !trigger || f.snd_una < r.recover {
        return Actions::default();
    }
    enter(r, f)
}

/// RFC 6675 §5 step (4): enter loss recovery.
pub(super) fn enter(r: &mut Recovery, f: &AckFacts) -> Actions {
    // (4.1) RecoveryPoint = HighData.
    r.recover = f.snd_max;
    r.recover_after_go_back = false;
    r.high_rxt = f.snd_una;
    r.rescue_rxt = None;
    if r.prr_enabled {
        // RFC 6937 §3: RecoverFS = FlightSize.
        r.prr = Some(Prr::new(f.flight_size, r.prr_unit));
    }
    r.begin_episode(f, false);
    // (4.3) Retransmit the first segment presumed dropped, regardless of pipe. HighRxt and
    // RescueRxt are set when it is actually sent (`on_first_retransmitted`), so that PRR's pipe
    // excludes it and no rescue goes before HighACK has passed it.
    let (first, cause) = if f.rack {
        (f.first_lost, RetransmitCause::Rack)
    } else {
        (f.first_unacked, RetransmitCause::FastRetransmit)
    };
    let congestion = if f.rack {
        CongestionCause::Rack
    } else if f.dupacks >= f.dup_thresh {
        CongestionCause::DuplicateAcks
    } else {
        // Entered on IsLost(HighACK + 1) alone.
        CongestionCause::SackLoss
    };
    Actions {
        // (4.2) ssthresh = cwnd = FlightSize / 2 (the controller's decrease).
        decrease: Some(Decrease {
            base: f.decrease_base,
            cause: congestion,
        }),
        began: true,
        retransmit: first.map(|s| (s, cause)),
        ..Actions::default()
    }
}

pub(super) fn on_new_ack(r: &mut Recovery, f: &AckFacts) -> Actions {
    let Some(ep) = r.episode.as_ref() else {
        return Actions::grow();
    };
    let after_rto = ep.after_rto;
    let mut a = Actions {
        restart_rto: true,
        grow: after_rto,
        ..Actions::default()
    };
    if f.snd_una >= ep.recovery_point {
        // RFC 6675 §5 (A): end of loss recovery; RFC 6937 §3: cwnd = ssthresh after PRR.
        if r.prr.is_some() {
            a.cwnd = Some(Cwnd::Deflate);
        }
        a.ended = r.end_episode();
    }
    // After a timeout the window regrows by slow start (RFC 5681 §3.1): `grow`.
    r.high_rxt = r.high_rxt.max(f.snd_una);
    a
}

/// RFC 6675 §5.1: after a timeout everything not SACKed is presumed lost (the sender marked
/// the scoreboard) and resent via NextSeg in slow start, until RecoveryPoint = HighData is
/// acknowledged.
pub(super) fn on_timeout(r: &mut Recovery, f: &AckFacts) -> Actions {
    r.high_rxt = f.snd_una;
    r.rescue_rxt = None;
    r.begin_episode(f, true);
    let Some((start, end)) = f.first_unsacked else {
        return Actions::default();
    };
    r.high_rxt = end;
    Actions {
        retransmit: Some((start, RetransmitCause::Timeout)),
        ..Actions::default()
    }
}

impl Recovery {
    /// NextSeg rule (1): the first unSACKed segment above HighRxt, below the highest SACKed
    /// octet, for which IsLost holds (after a timeout every unSACKed one, in order).
    pub fn next_seg_lost(&self, sb: &Scoreboard) -> Option<u64> {
        sb.next_hole(self.high_rxt, true, !self.after_rto(), self.rtx_marks)
            .map(|s| s.start)
    }

    /// NextSeg rule (3): the first unSACKed segment above HighRxt below the highest SACKed
    /// octet, lost or not (when rule 2 had no new data to send).
    pub fn next_seg_unsacked(&self, sb: &Scoreboard) -> Option<u64> {
        sb.next_hole(self.high_rxt, false, true, self.rtx_marks)
            .map(|s| s.start)
    }

    /// NextSeg rule (4): if HighACK > RescueRxt (or RescueRxt is undefined), one rescue
    /// retransmission of the highest unSACKed segment, RescueRxt = RecoveryPoint; HighRxt is
    /// not updated. RescueRxt holds an exclusive end (the RFC's highest sequence number plus
    /// one), as snd_una is HighACK plus one. A segment below HighRxt
    /// was already retransmitted in this episode, so rescuing it again would add nothing (our
    /// reading of the rule's intent).
    pub fn next_seg_rescue(&mut self, sb: &Scoreboard, snd_una: u64, snd_max: u64) -> Option<u64> {
        if matches!(self.rescue_rxt, Some(r) if snd_una <= r) {
            return None;
        }
        let tail = sb
            .highest_unsacked()
            .filter(|s| s.start >= self.high_rxt)
            .map(|s| s.start)?;
        self.rescue_rxt = Some(self.episode.as_ref().map_or(snd_max, |e| e.recovery_point));
        Some(tail)
    }

    /// A retransmission under rules (1) and (3) went out up to `end`: HighRxt rises to it.
    pub fn on_retransmitted(&mut self, end: u64) {
        self.high_rxt = self.high_rxt.max(end);
    }

    /// The retransmission that begins the episode went out up to `end`. RFC 6675 §5 (4.3): "To
    /// prevent repeated retransmission of the same data or a premature rescue retransmission,
    /// set both HighRxt and RescueRxt to the highest sequence number in the retransmitted
    /// segment." (After a timeout, RFC 6675 §5.1 leaves RescueRxt undefined.)
    pub fn on_first_retransmitted(&mut self, end: u64) {
        self.on_retransmitted(end);
        if !self.after_rto() {
            self.rescue_rxt = Some(end);
        }
    }

    /// RFC 6675 SetPipe's argument.
    pub fn high_rxt(&self) -> u64 {
        self.high_rxt
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_facts::*;
    use super::*;
    use crate::config::RecoveryAlgorithm;
    use crate::sack_scoreboard::SentSegment;
    use rexmit_time::Time;

    fn recovery(prr: bool) -> Recovery {
        Recovery::new(RecoveryAlgorithm::Sack, false, prr)
    }

    /// Ten segments of MSS from byte 1; the given ones SACKed.
    fn board(sacked: &[u64]) -> Scoreboard {
        let mut sb = Scoreboard::default();
        for i in 0..10 {
            let start = 1 + i * MSS;
            sb.push(SentSegment {
                start,
                end: start + MSS,
                fin: false,
                sent_at: Time::ZERO,
                rexmits: 0,
                sacked: false,
                lost: false,
                rtx_mark: false,
            });
        }
        let blocks: Vec<(u64, u64)> = sacked
            .iter()
            .map(|&i| (1 + i * MSS, 1 + (i + 1) * MSS))
            .collect();
        sb.on_sack(&blocks, 1);
        sb
    }

    #[test]
    fn third_dupack_or_islost_enters_and_sets_recovery_point() {
        let mut r = recovery(true);
        assert_eq!(on_dupack(&mut r, &facts(2)), Actions::default());
        let a = on_dupack(
            &mut r,
            &AckFacts {
                first_is_lost: true,
                ..facts(2)
            },
        );
        assert!(a.began);
        assert_eq!(
            a.decrease,
            Some(Decrease {
                base: 10 * MSS,
                cause: CongestionCause::SackLoss
            }),
            "IsLost(HighACK + 1) before DupThresh duplicates"
        );
        assert_eq!(a.retransmit, Some((1, RetransmitCause::FastRetransmit)));
        assert_eq!(r.recover, 1 + 10 * MSS);
        assert_eq!(r.high_rxt(), 1);
        assert_eq!(r.prr.map(|p| p.recover_fs), Some(10 * MSS));
        // Further duplicates inside the episode change nothing.
        assert_eq!(on_dupack(&mut r, &facts(4)), Actions::default());
        let a = on_dupack(&mut recovery(true), &facts(3));
        assert_eq!(
            a.decrease.map(|d| d.cause),
            Some(CongestionCause::DuplicateAcks)
        );
    }

    #[test]
    fn rack_marks_decide_entry_and_what_is_resent() {
        let mut r = recovery(false);
        let f = AckFacts {
            rack: true,
            first_lost: Some(1 + 2 * MSS),
            ..facts(3)
        };
        assert_eq!(
            on_dupack(&mut r, &f),
            Actions::default(),
            "duplicates do not enter with RACK"
        );
        let a = r.on_rack_loss(&f);
        assert_eq!(a.retransmit, Some((1 + 2 * MSS, RetransmitCause::Rack)));
        assert_eq!(a.decrease.map(|d| d.cause), Some(CongestionCause::Rack));
        assert!(
            r.on_rack_loss(&f) == Actions::default(),
            "one episode at a time"
        );
    }

    #[test]
    fn exit_at_recovery_point_sets_cwnd_to_ssthresh_after_prr() {
        let mut r = recovery(true);
        on_dupack(&mut r, &facts(3));
        let a = on_new_ack(&mut r, &new_ack(1 + 4 * MSS, 4 * MSS));
        assert!(!a.ended && a.cwnd.is_none() && !a.grow && a.restart_rto);
        assert_eq!(r.high_rxt(), 1 + 4 * MSS, "HighRxt never lags HighACK");
        let a = on_new_ack(&mut r, &new_ack(1 + 10 * MSS, 6 * MSS));
        assert!(a.ended && !r.in_episode() && r.prr.is_none());
        assert_eq!(a.cwnd, Some(Cwnd::Deflate));
    }

    #[test]
    fn after_timeout_everything_unsacked_is_resent_in_order_in_slow_start() {
        let mut r = recovery(false);
        let sb = {
            let mut sb = board(&[5]);
            sb.mark_all_lost();
            sb
        };
        let a = r.on_timeout(&AckFacts {
            first_unsacked: Some((1, 1 + MSS)),
            ..facts(0)
        });
        assert_eq!(a.retransmit, Some((1, RetransmitCause::Timeout)));
        assert!(r.after_rto() && !a.began);
        // Rule (1) without (1.b): the next hole above HighRxt even beyond the highest SACK.
        assert_eq!(r.next_seg_lost(&sb), Some(1 + MSS));
        r.on_retransmitted(1 + 9 * MSS);
        assert_eq!(
            r.next_seg_lost(&sb),
            Some(1 + 9 * MSS),
            "segment 5 is SACKed, 9 is beyond it"
        );
        assert!(
            on_new_ack(&mut r, &new_ack(1 + MSS, MSS)).grow,
            "slow start after the timeout"
        );
    }

    #[test]
    fn nextseg_rules_1_3_and_one_rescue() {
        let mut r = recovery(false);
        on_dupack(&mut r, &facts(3));
        let mut sb = board(&[3, 4, 5, 6]);
        sb.update_lost(3, MSS);
        // Rule (1): segments 0–2 lie below three SACKed segments' worth: lost.
        assert_eq!(r.next_seg_lost(&sb), Some(1));
        r.on_retransmitted(1 + 3 * MSS);
        assert_eq!(r.next_seg_lost(&sb), None);
        // Rule (3): nothing unSACKed above HighRxt below the highest SACK (segments 7–9 are above it).
        assert_eq!(r.next_seg_unsacked(&sb), None);
        // Rule (4): the highest unSACKed segment, once per episode.
        assert_eq!(r.next_seg_rescue(&sb, 1, 1 + 10 * MSS), Some(1 + 9 * MSS));
        assert_eq!(r.rescue_rxt, Some(1 + 10 * MSS));
        assert_eq!(r.next_seg_rescue(&sb, 1, 1 + 10 * MSS), None);
    }

    #[test]
    fn no_rescue_before_highack_passes_the_first_retransmission() {
        // RFC 6675 §5 (4.3): RescueRxt = the end of the retransmission that began the episode;
        // rule (4) needs HighACK > RescueRxt.
        let mut r = recovery(false);
        on_dupack(&mut r, &facts(3));
        r.on_first_retransmitted(1 + MSS);
        let sb = board(&[3, 4, 5, 6]);
        assert_eq!(r.next_seg_rescue(&sb, 1, 1 + 10 * MSS), None);
        assert_eq!(r.next_seg_rescue(&sb, 1 + MSS, 1 + 10 * MSS), None);
        assert_eq!(
            r.next_seg_rescue(&sb, 2 + MSS, 1 + 10 * MSS),
            Some(1 + 9 * MSS)
        );
    }
}
