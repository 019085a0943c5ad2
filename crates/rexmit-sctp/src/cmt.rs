//! Choice of destination for new data and for retransmissions, plain SCTP and CMT
//! (Iyengar et al., "Concurrent Multipath Transfer Using SCTP Multihoming Over Independent
//! End-to-End Paths"). Owns: the RTX-SAME / ASAP / CWND / SSTHRESH policies and CMT's
//! round-robin over paths with cwnd space. Does not own: SFR and CUC, which are applied
//! where SACKs are processed (`association::sack`).

use crate::config::{CmtConfig, RtxPolicy};
use crate::path::{Path, PathState};

/// Destination for new data. Plain SCTP: the primary while it is active, else the next
/// active path (failover, RFC 9260 §6.4.1). CMT: the first path from `next` on that is
/// active and has cwnd space.
pub fn new_data_destination(
    paths: &[Path],
    primary: usize,
    cmt: &CmtConfig,
    next: usize,
) -> Option<usize> {
    let n = paths.len();
    if n == 0 {
        return None;
    }
    if !cmt.enabled {
        if paths[primary].usable() {
            return Some(primary);
        }
        return (1..n)
            .map(|k| (primary + k) % n)
            .find(|&i| paths[i].usable())
            .or(Some(primary));
    }
    let cand = (0..n)
        .map(|k| (next + k) % n)
        .find(|&i| paths[i].usable() && paths[i].can_send());
    // With every path failed CMT still probes the primary with data, like plain SCTP.
    cand.or_else(|| (!paths.iter().any(|p| p.usable())).then_some(primary))
}

/// Destination for a retransmission of a chunk last sent to `last`; `fast`: a fast
/// retransmission rather than one after a timeout (or reneging).
pub fn rtx_destination(paths: &[Path], last: usize, fast: bool, cmt: &CmtConfig) -> usize {
    rtx_destination_with(paths, last, fast, cmt, &|i| {
        (paths[i].cc().cwnd(), paths[i].cc().ssthresh())
    })
}

/// `rtx_destination` with path `i`'s (cwnd, ssthresh) taken as `windows(i)`: for
/// `cmt.rtx_dest_at_mark`, the windows before a T3-rtx expiry's cut.
pub fn rtx_destination_with(
    paths: &[Path],
    last: usize,
    fast: bool,
    cmt: &CmtConfig,
    windows: &dyn Fn(usize) -> (u64, u64),
) -> usize {
    let n = paths.len();
    let last = last.min(n.saturating_sub(1));
    let usable: Vec<usize> = (0..n).filter(|&i| paths[i].usable()).collect();
    if usable.is_empty() {
        // Everything failed: keep probing, preferring a path that is not declared inactive.
        return (0..n)
            .find(|&i| paths[i].state() != PathState::Inactive)
            .unwrap_or(last);
    }
    if !cmt.enabled {
        if fast && paths[last].usable() {
            // Fast retransmit answers SACKs that came back over `last`: it still works.
            return last;
        }
        // RFC 9260 §6.4: after a timeout retransmit to an active destination other than
        // the last one.
        return (1..n)
            .map(|k| (last + k) % n)
            .find(|&i| paths[i].usable())
            .unwrap_or(last);
    }
    // The first usable path with the largest key (FreeBSD breaks ties at random).
    let best_by = |key: &dyn Fn(usize) -> u64| -> usize {
        let mut best = usable[0];
        for &i in &usable {
            if key(i) > key(best) {
                best = i;
            }
        }
        best
    };
    let (cwnd, ssthresh) = (|i| windows(i).0, |i| windows(i).1);
    match cmt.rtx_policy {
        RtxPolicy::Same if paths[last].usable() => last,
        RtxPolicy::Same => best_by(&ssthresh),
        RtxPolicy::Asap => (0..n)
            .map(|k| (last + k) % n)
            .find(|&i| paths[i].usable() && paths[i].can_send())
            .unwrap_or_else(|| best_by(&cwnd)),
        RtxPolicy::Cwnd => best_by(&cwnd),
        RtxPolicy::Ssthresh => best_by(&ssthresh),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::PathCc;
    use rexmit_time::Time;
    use rexmit_transport::RtoConfig;
    use std::net::Ipv4Addr;

    fn paths() -> Vec<Path> {
        (0..2)
            .map(|i| {
                Path::new(
                    Ipv4Addr::new(10, 0, i, 1),
                    Ipv4Addr::new(10, 1, i, 1),
                    RtoConfig::sctp(),
                    PathCc::new(1000, Some(4000), 8000),
                )
            })
            .collect()
    }

    #[test]
    fn plain_sctp_uses_primary_and_fails_over() {
        let mut p = paths();
        let cmt = CmtConfig::default();
        assert_eq!(new_data_destination(&p, 0, &cmt, 0), Some(0));
        assert_eq!(rtx_destination(&p, 0, false, &cmt), 1);
        assert_eq!(rtx_destination(&p, 0, true, &cmt), 0);
        p[0].on_error(Time::ZERO, 0, None); // Path.Max.Retrans 0: down at once
        assert_eq!(p[0].state(), PathState::Inactive);
        assert_eq!(new_data_destination(&p, 0, &cmt, 0), Some(1));
    }

    #[test]
    fn cmt_policies_pick_by_ssthresh_or_cwnd() {
        let mut p = paths();
        let (c1, s0) = (p[1].cc().cwnd(), p[0].cc().ssthresh());
        p[1].cc_mut().set_for_test(c1, 9000);
        p[0].cc_mut().set_for_test(5000, s0);
        let mut cmt = CmtConfig {
            enabled: true,
            ..CmtConfig::default()
        };
        assert_eq!(rtx_destination(&p, 0, false, &cmt), 1);
        cmt.rtx_policy = RtxPolicy::Cwnd;
        assert_eq!(rtx_destination(&p, 1, false, &cmt), 0);
        cmt.rtx_policy = RtxPolicy::Same;
        assert_eq!(rtx_destination(&p, 1, false, &cmt), 1);
        p[0].on_data_sent(Time::ZERO, 5000);
        assert_eq!(new_data_destination(&p, 0, &cmt, 0), Some(1));
    }
}
