//! Loss recovery: what each algorithm does on a duplicate ACK, on an ACK of new data, when RACK
//! marks a loss and on a retransmission timeout. One file per algorithm; this module holds
//! their shared state (`Recovery`), what they are told (`AckFacts`) and what they answer
//! (`Actions`).
//!
//! Owns: the episode (RFC 6675 RecoveryPoint), RFC 6582 `recover`, RFC 6675 HighRxt and
//! RescueRxt with NextSeg's retransmission rules (`sack`), RFC 6937 PRR state, and the
//! RFC 5681 / RFC 6675 definition of a duplicate ACK. Does not own: the window — recovery
//! names the change it wants (`Decrease` with its cause, `Cwnd`) and the sender tells the
//! controller (`cc`), whose default methods hold the RFC arithmetic —, the scoreboard
//! (`sack_scoreboard`), timers, statistics, or what is transmitted (the sender carries out
//! `Actions`).

mod newreno;
pub mod prr;
mod reno;
mod sack;
mod tahoe;
pub mod undo;

use crate::cc::CongestionCause;
use crate::config::RecoveryAlgorithm;
use crate::stats::RetransmitCause;
use prr::Prr;
use rexmit_time::Time;

/// One loss-recovery episode.
#[derive(Clone, Debug)]
pub struct Episode {
    /// RFC 6675 RecoveryPoint / RFC 6582 recover: the episode ends when snd_una reaches it.
    pub recovery_point: u64,
    /// Entered by a retransmission timeout (SACK variant only): the window grows by slow start.
    pub after_rto: bool,
    pub partial_acks: u32,
}

/// The loss-recovery state of one sender.
#[derive(Clone, Debug)]
// `repr(C)`, the episode and the algorithm last: every ACK, poll and send reads them (issue 40
// step 6).
#[repr(C)]
pub struct Recovery {
    pub(crate) prr: Option<Prr>,
    /// What PRR's proportional part rounds up to (`Prr::unit`): 1 byte or one SMSS.
    pub(crate) prr_unit: u64,
    /// RFC 6675 RescueRxt.
    pub(crate) rescue_rxt: Option<u64>,
    /// RFC 6582 `recover`: no new fast retransmit until snd_una reaches it.
    pub(crate) recover: u64,
    /// RFC 6675 HighRxt (exclusive end of the highest retransmitted segment).
    pub(crate) high_rxt: u64,
    tahoe_recover_guard: bool,
    /// `recover` was set by a go-back-N resend (timeout or Tahoe), see `may_enter`.
    recover_after_go_back: bool,
    /// RFC 6937 enabled, and its state during a recovery episode.
    prr_enabled: bool,
    /// `rtx_marks`: NextSeg and SetPipe read each segment's retransmission mark.
    pub(crate) rtx_marks: bool,
    pub(crate) alg: RecoveryAlgorithm,
    pub(crate) episode: Option<Episode>,
}

/// What an algorithm is told about the ACK (or timeout) at hand: values at the time of the
/// call, before any of the answer is applied.
#[derive(Clone, Copy, Debug)]
pub struct AckFacts {
    pub now: Time,
    pub snd_una: u64,
    pub snd_max: u64,
    pub smss: u64,
    /// Bytes this ACK newly acknowledged cumulatively (0 for a duplicate ACK).
    pub acked: u64,
    /// How far the last ACK of new data moved snd_una (RFC 6582 §4.1 ACK heuristic).
    pub last_ack_advance: u64,
    /// Duplicate ACKs in a row, this one included, and the threshold in force.
    pub dupacks: u32,
    pub dup_thresh: u32,
    pub cwnd: u64,
    /// RFC 5681 FlightSize (PRR's RecoverFS).
    pub flight_size: u64,
    /// What a congestion response decreases from (`DecreaseBase`, RFC 3042 §2 applied).
    pub decrease_base: u64,
    /// The first unacknowledged segment's start, and the first not SACKed: (start, end).
    pub first_unacked: Option<u64>,
    pub first_unsacked: Option<(u64, u64)>,
    /// The first segment marked lost (RACK or RFC 6675 IsLost), and whether the one at
    /// snd_una is (RFC 6675 §5 step (4): IsLost(HighACK + 1)).
    pub first_lost: Option<u64>,
    pub first_is_lost: bool,
    /// RACK marks losses (RFC 8985).
    pub rack: bool,
}

/// A congestion response: the controller's ssthresh and cwnd from `base`
/// (`CongestionEvent`), for `cause`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decrease {
    pub base: u64,
    pub cause: CongestionCause,
}

/// The named window change recovery asks of the controller, after the congestion response if
/// there is one (each is a `CongestionControl` method whose default is the RFC's rule).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cwnd {
    /// RFC 5681 §3.2 step 3: cwnd = ssthresh + `dupacks`·SMSS (`on_recovery_inflate`).
    Inflate { dupacks: u32 },
    /// RFC 5681 §3.2 step 4, RFC 6582 §3.2 step 4: cwnd += SMSS (`on_recovery_dupack`).
    InflateOne,
    /// cwnd = ssthresh at the end of fast recovery (RFC 5681 §3.2 step 6, RFC 6582 §3.2
    /// step 3, RFC 6937 §3 after PRR: `on_recovery_deflate`).
    Deflate,
    /// RFC 6582 §3.2 step 5: deflate by the `acked` bytes of a partial ACK (`on_partial_ack`).
    PartialAck { acked: u64 },
    /// Tahoe: slow start again from one segment (`on_go_back`).
    GoBack,
}

/// What the sender does with an algorithm's answer, in this order: the congestion response
/// (`decrease`: the controller's `on_congestion_event`, then `on_recovery_start` if `began`),
/// the window change `cwnd`, episode bookkeeping (`began`, `ended`: `on_recovery_end`), window
/// growth (`grow`: the controller's `on_ack`), and the transmissions (`retransmit` now
/// regardless of cwnd; `go_back`: resend from snd_una).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Actions {
    pub decrease: Option<Decrease>,
    pub cwnd: Option<Cwnd>,
    /// A loss-recovery episode began (not after a timeout): a fast retransmit. It always comes
    /// with a `decrease`.
    pub began: bool,
    pub ended: bool,
    pub grow: bool,
    pub retransmit: Option<(u64, RetransmitCause)>,
    pub go_back: Option<RetransmitCause>,
    /// RFC 6298 §5.3 restart of the retransmission timer on an ACK of new data (RFC 6582
    /// §3.2 step 5 restricts it during NewReno recovery).
    pub restart_rto: bool,
}

impl Actions {
    fn grow() -> Self {
        Actions {
            grow: true,
            restart_rto: true,
            ..Actions::default()
        }
    }
}

impl Recovery {
    pub fn new(alg: RecoveryAlgorithm, tahoe_recover_guard: bool, prr: bool) -> Self {
        Recovery {
            alg,
            tahoe_recover_guard,
            episode: None,
            recover: 0,
            recover_after_go_back: false,
            high_rxt: 0,
            rescue_rxt: None,
            prr_enabled: prr && alg == RecoveryAlgorithm::Sack,
            prr_unit: 1,
            prr: None,
            rtx_marks: false,
        }
    }

    /// PRR's proportional part rounds up to `unit` bytes (`Prr::unit`).
    pub fn with_prr_unit(mut self, unit: u64) -> Self {
        self.prr_unit = unit;
        self
    }

    /// NextSeg and SetPipe by each segment's retransmission mark (`rtx_marks`).
    pub fn with_rtx_marks(mut self, on: bool) -> Self {
        self.rtx_marks = on;
        self
    }

    /// RFC 6675 RecoveryPoint / RFC 6582 `recover` of the open episode.
    pub fn recovery_point(&self) -> Option<u64> {
        self.episode.as_ref().map(|e| e.recovery_point)
    }

    /// Without SACK from the peer, RFC 6675 cannot run: NewReno is its fallback.
    pub fn fall_back_to_newreno(&mut self) {
        self.alg = RecoveryAlgorithm::NewReno;
    }

    pub fn in_episode(&self) -> bool {
        self.episode.is_some()
    }

    pub fn after_rto(&self) -> bool {
        self.episode.as_ref().is_some_and(|e| e.after_rto)
    }

    /// RFC 6675 §2 DupAck (SACK: no cumulative progress and SACK newly covering data) or
    /// RFC 5681 §2 DUPLICATE ACKNOWLEDGMENT (a)–(e) for the others; `ack_is_snd_una` and
    /// `outstanding` are conditions (b)–(c), `bare` (no data, SYN or FIN) and `same_window`
    /// (d)–(e).
    pub fn is_duplicate_ack(
        &self,
        ack_is_snd_una: bool,
        outstanding: bool,
        newly_sacked: u64,
        bare: bool,
        same_window: bool,
    ) -> bool {
        if !ack_is_snd_una || !outstanding {
            return false;
        }
        if self.alg == RecoveryAlgorithm::Sack {
            newly_sacked > 0
        } else {
            bare && same_window
        }
    }

    /// RFC 6675 §5: an ACK that advanced snd_una (DupAcks was reset to zero) is also a DupAck
    /// when it newly SACKs data: "If the incoming ACK is a duplicate acknowledgment per the
    /// definition in Section 2 (regardless of its status as a cumulative acknowledgment), and
    /// the TCP is not currently in loss recovery, the TCP MUST increase DupAcks by one" and
    /// take steps (1)–(3). `outstanding`: data is still unacknowledged after it.
    pub fn is_cumulative_dupack(&self, outstanding: bool, newly_sacked: u64) -> bool {
        self.alg == RecoveryAlgorithm::Sack
            && outstanding
            && newly_sacked > 0
            && self.episode.is_none()
    }

    /// A duplicate ACK arrived (`f.dupacks` counts it).
    pub fn on_dupack(&mut self, f: &AckFacts) -> Actions {
        match self.alg {
            RecoveryAlgorithm::Tahoe => tahoe::on_dupack(self, f),
            RecoveryAlgorithm::Reno => reno::on_dupack(self, f),
            RecoveryAlgorithm::NewReno => newreno::on_dupack(self, f),
            RecoveryAlgorithm::Sack => sack::on_dupack(self, f),
        }
    }

    /// An ACK advanced snd_una (`f.snd_una` is the new value).
    pub fn on_new_ack(&mut self, f: &AckFacts) -> Actions {
        match self.alg {
            RecoveryAlgorithm::Tahoe => tahoe::on_new_ack(self, f),
            RecoveryAlgorithm::Reno => reno::on_new_ack(self, f),
            RecoveryAlgorithm::NewReno => newreno::on_new_ack(self, f),
            RecoveryAlgorithm::Sack => sack::on_new_ack(self, f),
        }
    }

    /// RACK marked a segment lost (RFC 8985 §6.2 step 5): start SACK loss recovery if not in one.
    pub fn on_rack_loss(&mut self, f: &AckFacts) -> Actions {
        if self.episode.is_some() {
            return Actions::default();
        }
        sack::enter(self, f)
    }

    /// After a retransmission timeout (RFC 6298 §5.4, RFC 5681 §3.1; the window and the timer
    /// back-off are the sender's): the episode ends, and RFC 6582 §3.2 step 1 / RFC 6675 §5.1
    /// allow no fast retransmit for data sent before the timeout. SACK then resends everything
    /// not SACKed via NextSeg (RFC 6675 §5.1, the scoreboard marked lost by the sender); the
    /// others go back N from snd_una in slow start (RFC 5681 §3.1 retransmits the earliest
    /// segment, the rest follow as the window opens).
    pub fn on_timeout(&mut self, f: &AckFacts) -> Actions {
        let ended = self.end_episode();
        self.recover = f.snd_max;
        self.recover_after_go_back = false;
        let mut a = if self.alg == RecoveryAlgorithm::Sack {
            sack::on_timeout(self, f)
        } else {
            Actions {
                go_back: Some(RetransmitCause::Timeout),
                retransmit: f.first_unacked.map(|s| (s, RetransmitCause::Timeout)),
                ..Actions::default()
            }
        };
        a.ended = ended;
        a
    }

    /// RFC 6582 §3.2 step 1: no new fast retransmit until the cumulative ACK reaches `recover`
    /// (the data outstanding at the last fast retransmit or timeout). After Tahoe's fast
    /// retransmit, whose go-back-N resends reach the receiver a second time and draw duplicate
    /// ACKs, the RFC's strict test applies — the ACK must cover *more* than `recover` — and
    /// when it covers exactly `recover` the §4.1 ACK heuristic decides: a loss only if the
    /// last advance of the cumulative ACK was at most 4·SMSS (cwnd above one SMSS). Elsewhere
    /// reaching `recover` suffices: after timeouts the heuristic mistook real drop-tail losses
    /// right at `recover` for duplicates and cost extra timeouts in the seed 001 setting (see
    /// `rexmit-endpoints` tests).
    fn may_enter(&self, f: &AckFacts) -> bool {
        if self.alg == RecoveryAlgorithm::Tahoe && !self.tahoe_recover_guard {
            return true;
        }
        if !self.recover_after_go_back {
            return f.snd_una >= self.recover;
        }
        f.snd_una > self.recover
            || (f.snd_una == self.recover && f.cwnd > f.smss && f.last_ack_advance <= 4 * f.smss)
    }

    fn begin_episode(&mut self, f: &AckFacts, after_rto: bool) {
        self.episode = Some(Episode {
            recovery_point: f.snd_max,
            after_rto,
            partial_acks: 0,
        });
    }

    /// The reduction that began the open episode proved spurious and is undone
    /// (`undo::Undo`): the episode ends here, and as it was no loss, a new one may start at
    /// once (Linux returns to Open): `recover` comes down to snd_una.
    pub fn end_by_undo(&mut self, snd_una: u64) -> bool {
        let open = self.end_episode();
        if open {
            self.recover = self.recover.min(snd_una);
        }
        open
    }

    /// Whether an episode was open (and is now closed).
    fn end_episode(&mut self) -> bool {
        self.prr = None;
        self.episode.take().is_some()
    }
}

/// RFC 5681 §3.2 steps 2–3 shared by Reno and NewReno: halve, retransmit, inflate by DupThresh.
fn enter_fast_recovery(r: &mut Recovery, f: &AckFacts) -> Actions {
    r.begin_episode(f, false);
    Actions {
        decrease: Some(Decrease {
            base: f.decrease_base,
            cause: CongestionCause::DuplicateAcks,
        }),
        cwnd: Some(Cwnd::Inflate { dupacks: f.dupacks }),
        began: true,
        retransmit: f
            .first_unacked
            .map(|s| (s, RetransmitCause::FastRetransmit)),
        ..Actions::default()
    }
}

#[cfg(test)]
pub(crate) mod test_facts {
    use super::*;

    pub const MSS: u64 = 1000;

    /// Ten segments outstanding from byte 1, the first one missing, cwnd 10 segments.
    pub fn facts(dupacks: u32) -> AckFacts {
        AckFacts {
            now: Time::from_millis(100),
            snd_una: 1,
            snd_max: 1 + 10 * MSS,
            smss: MSS,
            acked: 0,
            last_ack_advance: MSS,
            dupacks,
            dup_thresh: 3,
            cwnd: 10 * MSS,
            flight_size: 10 * MSS,
            decrease_base: 10 * MSS,
            first_unacked: Some(1),
            first_unsacked: Some((1, 1 + MSS)),
            first_lost: None,
            first_is_lost: false,
            rack: false,
        }
    }

    /// The cumulative ACK moved to `una` (acknowledging `acked` bytes).
    pub fn new_ack(una: u64, acked: u64) -> AckFacts {
        AckFacts {
            snd_una: una,
            acked,
            last_ack_advance: acked,
            dupacks: 0,
            first_unacked: Some(una),
            ..facts(0)
        }
    }
}
