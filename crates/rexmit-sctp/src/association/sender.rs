//! The data sender's reaction to acknowledgements and timeouts: SACK / NR-SACK processing
//! (RFC 9260 §6.2.1, NR-SACK draft §5), miss indications and fast retransmit (§7.2.4, with
//! CMT's split fast retransmit), cwnd updates (§7.2, CMT's CUC), T3-rtx (§6.3.3) and
//! reneging detection.

use super::timers::Timer;
use super::Association;
use crate::path::Path;
use crate::rtx_queue::{RtxEntry, TsnState};
use crate::stats::RtxCause;
use crate::tsn::{tsn_ge, tsn_gt, tsn_le, tsn_lt};
use rexmit_time::{Duration, Time};
use rexmit_transport::rack::Delivered;
use rexmit_wire::GapBlock;
use smallvec::{smallvec, SmallVec};

/// One value per destination, inline for the usual one to four paths (no allocation per SACK).
type PerPath<T> = SmallVec<[T; 4]>;

/// Membership of TSNs in a set of gap blocks, asked in increasing TSN order: one pass over
/// the blocks sorted by start (blocks from the wire may be unsorted, overlapping or empty).
struct Coverage {
    cum: u32,
    blocks: SmallVec<[(u32, u32); 8]>,
    at: usize,
}

impl Coverage {
    fn new(cum: u32, blocks: &[GapBlock]) -> Self {
        let mut v: SmallVec<[(u32, u32); 8]> = blocks
            .iter()
            .filter(|b| b.start >= 1 && b.start <= b.end)
            .map(|b| (b.start as u32, b.end as u32))
            .collect();
        v.sort_unstable();
        Coverage {
            cum,
            blocks: v,
            at: 0,
        }
    }
    fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }
    /// Highest TSN any block reports.
    fn highest(&self) -> Option<u32> {
        self.blocks
            .iter()
            .map(|b| b.1)
            .max()
            .map(|e| self.cum.wrapping_add(e))
    }
    /// Is `tsn` covered? Calls must come with non-decreasing TSNs above `cum`.
    fn covers(&mut self, tsn: u32) -> bool {
        let off = tsn.wrapping_sub(self.cum);
        while let Some(&(_, end)) = self.blocks.get(self.at) {
            if end >= off {
                break;
            }
            self.at += 1;
        }
        self.blocks
            .get(self.at)
            .is_some_and(|&(start, _)| start <= off)
    }
}

/// What a SACK chunk says besides its blocks.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct SackExtra {
    /// Duplicate TSNs it reports.
    pub dups: usize,
    /// CMT DAC: DATA packets it acknowledges (chunk flags).
    pub dac_packets: u8,
}

/// What one SACK newly acknowledged, per destination.
struct AckTally {
    bytes: PerPath<u64>,
    /// Some newly acked chunk on the path was sent after its current run of errors began.
    fresh: PerPath<bool>,
    highest: Option<u32>,
    /// Lowest TSN newly acknowledged (TSNs are visited in increasing order).
    lowest: Option<u32>,
    highest_on: PerPath<Option<u32>>,
    rtt_sample: PerPath<Option<Duration>>,
    /// Newly acknowledged chunks for RACK (collected only while RACK is on).
    delivered: Option<Vec<Delivered>>,
}

impl AckTally {
    fn new(n: usize, rack: bool) -> Self {
        AckTally {
            delivered: rack.then(Vec::new),
            bytes: smallvec![0; n],
            fresh: smallvec![false; n],
            highest: None,
            lowest: None,
            highest_on: smallvec![None; n],
            rtt_sample: smallvec![None; n],
        }
    }

    /// `e` is acknowledged for the first time (TSNs are visited in increasing order).
    fn newly_acked(&mut self, paths: &mut [Path], e: &RtxEntry, now: Time) {
        if e.state == TsnState::InFlight {
            paths[e.path].flight -= e.len as u64;
        }
        self.bytes[e.path] += e.len as u64;
        self.fresh[e.path] |= !matches!(paths[e.path].errors_since, Some(t) if e.sent_at < t);
        self.highest = Some(e.tsn);
        self.lowest.get_or_insert(e.tsn);
        self.highest_on[e.path] = Some(e.tsn);
        if let Some(d) = self.delivered.as_mut() {
            d.push(Delivered {
                end: e.seq,
                sent_at: e.sent_at,
                rexmits: e.tx_count.saturating_sub(1),
            });
        }
        if e.tx_count == 1 {
            // Karn's rule (§6.3.1 C5): only chunks sent once are timed.
            self.rtt_sample[e.path] = Some(now.saturating_since(e.sent_at));
        }
    }
}

impl Association {
    fn is_in_flight(&self, tsn: u32) -> bool {
        matches!(self.rtxq.get(tsn), Some(e) if e.state == TsnState::InFlight)
    }

    fn in_fr(&self, p: usize) -> bool {
        if self.cfg.cmt.enabled {
            self.paths[p].fr_exit.is_some()
        } else {
            self.fast_recovery.is_some()
        }
    }

    /// Process the acknowledgement fields of a SACK, NR-SACK or SHUTDOWN.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn on_sack(
        &mut self,
        now: Time,
        cum: u32,
        a_rwnd: u32,
        gaps: &[GapBlock],
        nr_gaps: &[GapBlock],
        all_nr: bool,
        extra: SackExtra,
    ) {
        let dups = extra.dups;
        if !self.state.processes_acks() {
            return;
        }
        self.stats.sacks_received += 1;
        self.stats.dup_tsns_reported += dups as u64;
        // §6.2.1 D i): a cumulative ack behind the ack point is stale.
        if tsn_lt(cum, self.cum_point) {
            return;
        }
        let highest_sent = self.next_tsn.wrapping_sub(1);
        if tsn_gt(cum, highest_sent) {
            return; // acknowledges data never sent: ignored
        }
        let n = self.paths.len();
        let flight_before: PerPath<u64> = self.paths.iter().map(|p| p.flight).collect();
        // Lowest TSN in flight on each path before the SACK (§6.3.2 R3).
        let mut earliest: PerPath<Option<u32>> = smallvec![None; n];
        for e in self.rtxq.iter() {
            if e.state == TsnState::InFlight && earliest[e.path].is_none() {
                earliest[e.path] = Some(e.tsn);
            }
        }
        let cum_advanced = tsn_gt(cum, self.cum_point);
        let mut tally = AckTally::new(n, self.rack.is_some());

        // Cumulatively acked chunks leave the queue (§6.2.1 D ii).
        let paths = &mut self.paths;
        self.rtxq.cum_ack(cum, |e| {
            if matches!(e.state, TsnState::InFlight | TsnState::MarkedForRtx) {
                tally.newly_acked(paths, &e, now);
            }
        });
        self.cum_point = cum;

        // Gap blocks and nr-gap blocks (§6.2.1 D iv; NR-SACK draft §5.1).
        let mut gap_c = Coverage::new(cum, gaps);
        let mut nr_c = Coverage::new(cum, nr_gaps);
        let any_gap = !gap_c.is_empty() || !nr_c.is_empty();
        let highest_reported = match (gap_c.highest(), nr_c.highest()) {
            (Some(a), Some(b)) => Some(if tsn_ge(a, b) { a } else { b }),
            (a, b) => a.or(b),
        };
        let mut to_free: SmallVec<[u32; 16]> = SmallVec::new();
        let mut reneged: SmallVec<[u32; 4]> = SmallVec::new();
        // TSNs this SACK reports received: never fewer in a newer SACK unless the receiver
        // reneged, so a smaller count marks a SACK overtaken by a newer one (SACKs on
        // different paths arrive out of order) whose gaps must not be read as reneging.
        let mut acked_count = cum.wrapping_sub(self.local_initial_tsn.wrapping_sub(1)) as u64;
        for e in self.rtxq.iter_mut() {
            let in_gap = gap_c.covers(e.tsn);
            let nr = nr_c.covers(e.tsn) || (all_nr && in_gap);
            let gap = nr || in_gap;
            acked_count += gap as u64;
            match e.state {
                TsnState::InFlight | TsnState::MarkedForRtx if gap => {
                    tally.newly_acked(&mut self.paths, e, now);
                    e.state = TsnState::GapAcked;
                    e.fast_rtx_pending = false;
                    if nr {
                        to_free.push(e.tsn);
                    }
                }
                TsnState::GapAcked if nr => to_free.push(e.tsn),
                TsnState::GapAcked if !gap => reneged.push(e.tsn),
                _ => {}
            }
        }
        let stale = acked_count < self.max_acked_count;
        self.max_acked_count = self.max_acked_count.max(acked_count);
        if !stale {
            // Reneged (§6.2.1 D iv): acked before, missing from a current SACK; send again.
            self.mark_reneged(&reneged);
        }
        for t in to_free {
            self.rtxq.free(t);
        }
        // Seed 004 §5.1: a packet leaves the flight when this SACK acks its highest TSN (and
        // the outstanding list on the cumulative ack); one whose highest TSN sits in a gap
        // collects a miss towards the loss estimate.
        if self.cfg.thin.tracks_packets() {
            let rtxq = &self.rtxq;
            self.packets.on_sack(cum, highest_reported, |t| {
                rtxq.get(t)
                    .is_some_and(|e| matches!(e.state, TsnState::GapAcked | TsnState::NrAcked))
            });
        }
        let thin = self.is_thin();
        let thin_first = thin && self.cfg.thin.fast_rtx_first_indication;
        let er = self.er_threshold();

        // RTT samples: at most one per path per SACK (§6.3.1 C4).
        for (p, s) in tally.rtt_sample.iter().copied().enumerate() {
            if let Some(r) = s {
                self.paths[p].rtt.on_sample(r);
            }
        }

        // Fast recovery exit (§7.2.4): before cwnd updates, so the SACK that ends it may grow cwnd.
        if let Some(exit) = self.fast_recovery {
            if tsn_ge(cum, exit) {
                self.fast_recovery = None;
                self.rack_recovery_end();
            }
        }
        self.end_cmt_fast_recoveries();

        // Miss indications (§7.2.4, HTNA); with CMT SFR only behind a newer ack on the same
        // destination.
        let in_fr_any =
            self.fast_recovery.is_some() || self.paths.iter().any(|p| p.fr_exit.is_some());
        let limit = if in_fr_any && cum_advanced {
            highest_reported.or(tally.highest)
        } else {
            tally.highest
        };
        let sfr = self.cfg.cmt.enabled && self.cfg.cmt.sfr;
        // CMT DAC: a SACK covering n packets, all newly acked data from one destination, counts
        // n miss indications for TSNs below the lowest newly acked one.
        let dac_n = if self.cfg.cmt.enabled
            && self.cfg.cmt.dac
            && extra.dac_packets > 1
            && tally.bytes.iter().filter(|b| **b > 0).count() == 1
        {
            u32::from(extra.dac_packets)
        } else {
            1
        };
        let dac_below = tally.lowest;
        let mut lost: SmallVec<[(u32, RtxCause); 4]> = SmallVec::new();
        if let Some(delivered) = tally.delivered.take() {
            // RACK replaces the miss-indication rule (seed 002 §III).
            self.rack_on_sack(now, &delivered, dups > 0);
        } else if let Some(limit) = limit {
            for e in self.rtxq.iter_mut() {
                if e.state != TsnState::InFlight || !tsn_lt(e.tsn, limit) {
                    continue;
                }
                if sfr && !tally.highest_on[e.path].is_some_and(|h| tsn_lt(e.tsn, h)) {
                    continue;
                }
                e.miss_indications += if dac_below.is_some_and(|l| tsn_lt(e.tsn, l)) {
                    dac_n
                } else {
                    1
                };
                if e.fast_retransmitted {
                    continue;
                }
                if let Some(c) = Self::fr_cause(e.miss_indications, thin_first, er) {
                    lost.push((e.tsn, c));
                }
            }
        }
        if !lost.is_empty() {
            self.fast_retransmit(&lost);
        }

        // Congestion control per destination (§7.2.1, §7.2.2; CMT CUC).
        #[allow(clippy::needless_range_loop)] // indexes several per-path vectors at once
        for p in 0..n {
            let may_grow = cum_advanced
                || (self.cfg.cmt.enabled
                    && self.cfg.cmt.cuc
                    && earliest[p].is_some_and(|t| !self.is_in_flight(t)));
            let fr = self.in_fr(p);
            let path = &mut self.paths[p];
            path.cc
                .on_ack(tally.bytes[p], flight_before[p], path.flight, may_grow, fr);
        }

        // Error counters (§8.3) and T3-rtx (§6.3.2 R2, R3).
        let mut in_flight_on: PerPath<bool> = smallvec![false; n];
        for e in self.rtxq.iter() {
            if e.state == TsnState::InFlight {
                in_flight_on[e.path] = true;
            }
        }
        #[allow(clippy::needless_range_loop)]
        for p in 0..n {
            if tally.fresh[p] {
                // §8.3 clears the error counter on acknowledged data; only data sent since
                // the errors began counts, so stale acks cannot revive a failed path.
                self.assoc_errors = 0;
                if self.paths[p].on_ack() == crate::path::Transition::Up {
                    let addr = self.paths[p].remote;
                    self.emit(crate::event::Event::PathUp { addr });
                }
            }
            if !in_flight_on[p] {
                self.timers.stop(Timer::T3Rtx(p));
            } else if earliest[p].is_some_and(|t| !self.is_in_flight(t)) {
                let at = self.t3_restart(now, p, thin);
                self.timers.set(Timer::T3Rtx(p), at);
            }
            self.efr_rearm(now, p);
        }
        self.arm_reneging_guard(now);
        if cum_advanced {
            self.rack_arm_pto(now);
        }

        // Peer's window: a_rwnd minus what is still in flight (§6.2.1 D iii); a stale SACK's
        // window is stale too.
        if !stale {
            self.peer_rwnd = (a_rwnd as u64).saturating_sub(self.flight_size());
        }

        // Seed 000 §IV.B naive loss-recovery rule.
        if any_gap && !self.stats.in_loss_recovery {
            self.stats.in_loss_recovery = true;
            self.stats.loss_recovery_since = Some(now);
        } else if !any_gap && cum_advanced && self.stats.in_loss_recovery {
            self.stats.in_loss_recovery = false;
            if let Some(s) = self.stats.loss_recovery_since.take() {
                self.stats.loss_recovery_time += now.saturating_since(s);
            }
        }

        self.check_unblocked(now);
        self.progress_shutdown(now);
    }

    /// Mark `lost` TSNs for fast retransmission and enter fast recovery on their
    /// destinations (§7.2.4 steps 1-2).
    pub(super) fn fast_retransmit(&mut self, lost: &[(u32, RtxCause)]) {
        let highest_outstanding = self.rtxq.highest_tsn().unwrap_or(self.cum_point);
        let mut paths_hit: PerPath<usize> = SmallVec::new();
        for &(t, cause) in lost {
            if let Some(e) = self.rtxq.get_mut(t) {
                e.rtx_cause = cause;
                if e.state == TsnState::InFlight {
                    self.paths[e.path].flight -= e.len as u64;
                }
                e.state = TsnState::MarkedForRtx;
                e.fast_retransmitted = true;
                e.fast_rtx_pending = true;
                e.miss_indications = 0;
                self.rtx_marked = true;
                if !paths_hit.contains(&e.path) {
                    paths_hit.push(e.path);
                }
            }
        }
        for p in paths_hit {
            if self.in_fr(p) {
                continue; // §7.2.4: no further reduction during fast recovery
            }
            self.paths[p].cc.on_fast_retransmit();
            self.stats.fast_recoveries += 1;
            if self.cfg.cmt.enabled {
                // CMT keeps the recovery point per destination (Iyengar et al., the CMT of
                // seed 000's ns-2 experiments): the highest TSN outstanding on that path.
                let unacked =
                    |e: &&RtxEntry| matches!(e.state, TsnState::InFlight | TsnState::MarkedForRtx);
                let on_path = self
                    .rtxq
                    .iter()
                    .filter(|e| e.path == p)
                    .filter(unacked)
                    .map(|e| e.tsn)
                    .last();
                self.paths[p].fr_exit = Some(on_path.unwrap_or(highest_outstanding));
            } else {
                self.fast_recovery = Some(highest_outstanding);
            }
        }
    }

    /// CMT: a destination leaves fast recovery once nothing it carried up to its exit point is
    /// still unacknowledged (its pseudo-cumulative ack passes the point). The association's
    /// cumulative ack would wait for the other paths' data: about one RTT of the slowest path
    /// during which the fast path's cwnd could not grow.
    fn end_cmt_fast_recoveries(&mut self) {
        if !self.paths.iter().any(|p| p.fr_exit.is_some()) {
            return;
        }
        let mut pending: PerPath<bool> = smallvec![false; self.paths.len()];
        for e in self.rtxq.iter() {
            let unacked = matches!(e.state, TsnState::InFlight | TsnState::MarkedForRtx);
            if unacked && self.paths[e.path].fr_exit.is_some_and(|x| tsn_le(e.tsn, x)) {
                pending[e.path] = true;
            }
        }
        for (p, waiting) in self.paths.iter_mut().zip(pending) {
            if !waiting {
                p.fr_exit = None;
            }
        }
    }

    /// T3-rtx expiry on path `p` (§6.3.3 E1-E3, §8.2).
    pub(super) fn on_t3_expiry(&mut self, now: Time, p: usize) {
        // Armed by `arm_reneging_guard` rather than by data in flight?
        let guard_expired = self.flight_size() == 0;
        let thin = self.is_thin();
        self.timers.stop(Timer::T3Rtx(p));
        self.rack_on_t3();
        self.stats.timeouts += 1;
        self.stats.paths[p].timeouts += 1;
        self.paths[p].cc.on_t3_expiry();
        if thin && self.cfg.thin.linear_timeouts {
            // Seed 004 §5.3: linear timeouts while thin.
            self.paths[p].rtt.reset_backoff();
        } else {
            self.paths[p].rtt.back_off();
        }
        self.timers.stop(Timer::EarlyFastRtx(p));
        for e in self.rtxq.iter_mut() {
            if e.path == p && e.state == TsnState::InFlight {
                e.state = TsnState::MarkedForRtx;
                e.rtx_cause = RtxCause::Timeout;
                e.miss_indications = 0;
                self.rtx_marked = true;
            }
        }
        self.paths[p].flight = 0;
        if self.cfg.cmt.enabled {
            self.paths[p].fr_exit = None;
        }
        if guard_expired {
            // Nothing in flight yet the cumulative ack is stuck below gap-acked data: the
            // receiver must have reneged without a SACK showing it (see
            // `arm_reneging_guard`); resend the renegable gap-acked chunks.
            let gap_acked: Vec<u32> = self
                .rtxq
                .iter()
                .filter(|e| e.state == TsnState::GapAcked)
                .map(|e| e.tsn)
                .collect();
            self.mark_reneged(&gap_acked);
        }
        self.path_error(now, p);
    }

    fn mark_reneged(&mut self, tsns: &[u32]) {
        for &t in tsns {
            if let Some(e) = self.rtxq.get_mut(t) {
                e.state = TsnState::MarkedForRtx;
                e.rtx_cause = RtxCause::Reneged;
                e.miss_indications = 0;
                self.stats.reneged_seen += 1;
                self.rtx_marked = true;
            }
        }
    }

    /// With nothing in flight no SACK will come to reveal reneging that a stale-looking
    /// SACK hid, so keep a T3-rtx timer running while renegable gap-acked data waits.
    fn arm_reneging_guard(&mut self, now: Time) {
        if self.flight_size() > 0 || self.rtx_marked {
            return;
        }
        let Some(p) = self
            .rtxq
            .iter()
            .find(|e| e.state == TsnState::GapAcked)
            .map(|e| e.path)
        else {
            return;
        };
        if !self.timers.is_set(Timer::T3Rtx(p)) {
            let at = now + self.t3_rto(p);
            self.timers.set(Timer::T3Rtx(p), at);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coverage_handles_unsorted_overlapping_and_empty_blocks() {
        let g = |start, end| GapBlock { start, end };
        let mut c = Coverage::new(u32::MAX - 1, &[g(5, 9), g(0, 3), g(2, 3), g(4, 2), g(3, 6)]);
        let hits: Vec<u32> = (1..12)
            .filter(|o| c.covers((u32::MAX - 1).wrapping_add(*o)))
            .collect();
        assert_eq!(hits, vec![2, 3, 4, 5, 6, 7, 8, 9]);
        assert_eq!(c.highest(), Some(7));
    }
}
