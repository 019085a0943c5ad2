//! One destination transport address of a multihomed association (RFC 9260 §8): its RTO,
//! congestion state, flightsize, error counter, reachability (active / potentially failed /
//! inactive) and heartbeat bookkeeping. Owns: the per-path numbers and the state transitions
//! on errors and acknowledgements. Does not own: the choice of path for data (`cmt` and the
//! association).

use crate::cc::PathCc;
use rexmit_time::Time;
use rexmit_transport::{RtoConfig, RttEstimator};
use std::net::Ipv4Addr;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathState {
    Active,
    /// CMT-PF: timed out; probed with heartbeats, no new data until confirmed.
    PotentiallyFailed,
    /// Error counter exceeded Path.Max.Retrans (RFC 9260 §8.2).
    Inactive,
}

/// What an error or acknowledgement did to the path's reachability.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transition {
    None,
    /// Became potentially failed (CMT-PF): probe it, but it is not reported down.
    PotentiallyFailed,
    /// Became inactive: unreachable (RFC 9260 §8.2).
    Down,
    /// An inactive path answered again.
    Up,
}

#[derive(Clone, Debug)]
pub struct Path {
    pub remote: Ipv4Addr,
    pub local: Ipv4Addr,
    pub state: PathState,
    /// Consecutive unacknowledged retransmissions / heartbeats (RFC 9260 §8.2).
    pub error_count: u32,
    /// When the current run of errors began: acks of data sent before it do not prove the
    /// path works now (they answer transmissions from before the trouble).
    pub errors_since: Option<Time>,
    pub rtt: RttEstimator,
    pub cc: PathCc,
    /// Bytes of DATA in flight to this destination.
    pub flight: u64,
    /// The HEARTBEAT awaiting its ACK: (nonce, sent at). Its deadlines are in the
    /// association's timer table.
    pub hb_outstanding: Option<(u64, Time)>,
    pub hb_nonce: u64,
    pub last_sent: Time,
    /// CMT per-destination fast recovery exit point.
    pub fr_exit: Option<u32>,
    /// New-data packets sent in the current transmit opportunity (RFC 9260 Max.Burst).
    pub burst_sent: u32,
}

impl Path {
    pub fn new(local: Ipv4Addr, remote: Ipv4Addr, rto: RtoConfig, cc: PathCc) -> Self {
        Path {
            remote,
            local,
            state: PathState::Active,
            error_count: 0,
            errors_since: None,
            rtt: RttEstimator::new(rto),
            cc,
            flight: 0,
            hb_outstanding: None,
            hb_nonce: 0,
            last_sent: Time::ZERO,
            fr_exit: None,
            burst_sent: 0,
        }
    }

    /// May carry new data (CMT-PF keeps potentially-failed paths for heartbeats only).
    pub fn usable(&self) -> bool {
        self.state == PathState::Active
    }

    /// One more error (T3-rtx or unanswered heartbeat). `pf_threshold`: `Some(n)` when CMT-PF
    /// is on.
    pub fn on_error(
        &mut self,
        now: Time,
        path_max_retrans: u32,
        pf_threshold: Option<u32>,
    ) -> Transition {
        self.error_count += 1;
        self.errors_since.get_or_insert(now);
        match self.state {
            PathState::Inactive => Transition::None,
            _ if self.error_count > path_max_retrans => {
                self.state = PathState::Inactive;
                Transition::Down
            }
            PathState::Active if pf_threshold.is_some_and(|t| self.error_count > t) => {
                self.state = PathState::PotentiallyFailed;
                Transition::PotentiallyFailed
            }
            _ => Transition::None,
        }
    }

    /// An acknowledgement of data or a heartbeat sent to this path (RFC 9260 §8.3).
    pub fn on_ack(&mut self) -> Transition {
        self.error_count = 0;
        self.errors_since = None;
        let was = self.state;
        self.state = PathState::Active;
        if was == PathState::Inactive {
            Transition::Up
        } else {
            Transition::None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path() -> Path {
        Path::new(
            Ipv4Addr::new(10, 0, 0, 1),
            Ipv4Addr::new(10, 0, 1, 1),
            RtoConfig::sctp(),
            PathCc::new(1452, None, u64::MAX),
        )
    }

    #[test]
    fn path_goes_down_after_path_max_retrans_and_up_on_ack() {
        let mut p = path();
        for _ in 0..5 {
            assert_eq!(p.on_error(Time::ZERO, 5, None), Transition::None);
        }
        assert_eq!(p.on_error(Time::ZERO, 5, None), Transition::Down);
        assert_eq!(p.state, PathState::Inactive);
        assert_eq!(p.on_ack(), Transition::Up);
        assert_eq!(p.error_count, 0);
    }

    #[test]
    fn cmt_pf_marks_potentially_failed_after_threshold() {
        let mut p = path();
        assert_eq!(p.on_error(Time::ZERO, 5, Some(1)), Transition::None);
        assert_eq!(
            p.on_error(Time::ZERO, 5, Some(1)),
            Transition::PotentiallyFailed
        );
        assert_eq!(p.state, PathState::PotentiallyFailed);
        assert!(!p.usable());
        assert_eq!(p.on_ack(), Transition::None, "back from PF silently");
        assert!(p.usable());
    }
}
