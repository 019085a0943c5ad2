//! A SACK, NR-SACK or SHUTDOWN's acknowledgement fields, in the order RFC 9260 §6.2.1 reads
//! them, one stage per function: `on_sack` is the list of stages. Stages share what the SACK
//! said (`BlockFacts`), what held before it (`Before`) and what it newly acknowledged
//! (`AckTally`).

use super::sender::PerPath;
use super::timers::Timer;
use super::Association;
use crate::config::T3Rtx;
use crate::controller::SackOnPath;
use crate::path::Path;
use crate::rtx_queue::{RtxEntry, TsnState};
use crate::stats::RtxCause;
use crate::tsn::{tsn_ge, tsn_gt, tsn_lt};
use rexmit_time::{Duration, Time};
use rexmit_transport::rack::Delivered;
use rexmit_wire::GapBlock;
use smallvec::{smallvec, SmallVec};

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
    /// The newest chunk sent once among those newly acknowledged on each path: its RTT
    /// bounds the path's minimum RTT (Karn's rule, §6.3.1 C5).
    min_rtt_sample: PerPath<Option<Duration>>,
    /// Newly acknowledged chunks for RACK (collected only while RACK is on).
    delivered: Option<Vec<Delivered>>,
    /// What a chunk counts beyond its payload (`SctpConfig::cwnd_bytes`).
    flight_overhead: u32,
}

impl AckTally {
    fn new(n: usize, rack: bool, flight_overhead: u32) -> Self {
        AckTally {
            flight_overhead,
            delivered: rack.then(Vec::new),
            bytes: smallvec![0; n],
            fresh: smallvec![false; n],
            highest: None,
            lowest: None,
            highest_on: smallvec![None; n],
            rtt_sample: smallvec![None; n],
            min_rtt_sample: smallvec![None; n],
        }
    }

    /// `e` is acknowledged for the first time (TSNs are visited in increasing order).
    fn newly_acked(&mut self, paths: &mut [Path], e: &RtxEntry, now: Time) {
        // §7.2: flightsize and the bytes acknowledged count as `cwnd_bytes` says.
        let len = e.flight_len(self.flight_overhead);
        if e.state == TsnState::InFlight {
            paths[e.path].leave_flight(len);
        }
        self.bytes[e.path] += len;
        self.fresh[e.path] |= paths[e.path].ack_is_fresh(e.sent_at);
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
            self.min_rtt_sample[e.path] = Some(now.saturating_since(e.sent_at));
        }
        if e.timed {
            // §6.3.1 C4: one measurement per round trip per destination, of a chunk sent once
            // (C5, Karn's rule: a resent chunk is no longer timed).
            self.rtt_sample[e.path] = Some(now.saturating_since(e.sent_at));
        }
    }
}

/// What held before the SACK was applied.
struct Before {
    /// Flightsize per destination.
    flight: PerPath<u64>,
    /// Lowest TSN in flight on each destination (§6.3.2 R3).
    earliest: PerPath<Option<u32>>,
    /// With `cmt.rtx_pseudo_cumack`, CUC's two pseudo cumulative acks per destination: the
    /// lowest TSN in flight there on its first transmission, and on a retransmission.
    pseudo_cumacks: PerPath<[Option<u32>; 2]>,
    /// The SACK moves the cumulative TSN ack point.
    cum_advanced: bool,
}

/// What the SACK's gap and nr-gap blocks said.
struct BlockFacts {
    any_gap: bool,
    highest_reported: Option<u32>,
    /// Overtaken by a newer SACK (it reports fewer TSNs received than one before it).
    stale: bool,
}

impl Association {
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
        if !self.sack_is_current(cum, extra.dups) {
            return;
        }
        let before = self.before_sack(cum);
        let mut tally = AckTally::new(
            self.paths.len(),
            self.rack.is_some(),
            self.tx.rtxq().flight_overhead(),
        );
        self.ack_cumulative(now, cum, &mut tally);
        let blocks = self.ack_blocks(now, cum, gaps, nr_gaps, all_nr, &mut tally);
        self.track_thin_packets(cum, blocks.highest_reported);
        let thin = self.is_thin();
        let thin_first = thin && self.cfg.thin.fast_rtx_first_indication;
        let er = self.er_threshold();
        self.take_rtt_samples(&tally);
        self.tell_deliveries(now, &tally);
        self.end_fast_recoveries(now, cum);
        if self.cfg.grow_before_cut {
            // FreeBSD's sctp_handle_sack: sctp_cwnd_update_after_sack, then the strikes and
            // sctp_cwnd_update_after_fr, so a cut halves the window this SACK grew.
            self.update_windows(now, &tally, &before);
            self.detect_losses(now, &mut tally, &before, &blocks, extra, thin_first, er);
        } else {
            self.detect_losses(now, &mut tally, &before, &blocks, extra, thin_first, er);
            self.update_windows(now, &tally, &before);
        }
        // FreeBSD handles a SACK without gap blocks after one without them on its express
        // path, which leaves a running T3-rtx alone (sctp_express_handle_sack).
        let gaps_before = std::mem::replace(&mut self.last_sack_had_gaps, blocks.any_gap);
        let slow_path = blocks.any_gap || gaps_before;
        self.update_errors_and_timers(now, &tally, &before, thin, slow_path);
        self.update_peer_rwnd(a_rwnd, blocks.stale);
        self.track_loss_recovery(now, blocks.any_gap, before.cum_advanced);
        self.check_unblocked(now);
        self.progress_shutdown(now);
    }

    /// Counts the SACK and says whether it is to be applied: not while the state ignores
    /// acks, not behind the ack point (§6.2.1 D i), not acknowledging data never sent.
    fn sack_is_current(&mut self, cum: u32, dups: usize) -> bool {
        if !self.state.processes_acks() {
            return false;
        }
        self.stats.sacks_received += 1;
        self.stats.dup_tsns_reported += dups as u64;
        // §6.2.1 D i): a cumulative ack behind the ack point is stale.
        if tsn_lt(cum, self.tx.cum_point()) {
            return false;
        }
        let highest_sent = self.tx.next_tsn().wrapping_sub(1);
        // Acknowledges data never sent: ignored.
        !tsn_gt(cum, highest_sent)
    }

    fn before_sack(&self, cum: u32) -> Before {
        let n = self.paths.len();
        let flight: PerPath<u64> = self.paths.iter().map(|p| p.flight()).collect();
        let mut earliest: PerPath<Option<u32>> = smallvec![None; n];
        let mut found = 0;
        for e in self.tx.rtxq().iter() {
            if e.state == TsnState::InFlight && earliest[e.path].is_none() {
                earliest[e.path] = Some(e.tsn);
                found += 1;
                // Every path's earliest is known: the rest of the queue cannot change them.
                if found == n {
                    break;
                }
            }
        }
        let mut pseudo_cumacks: PerPath<[Option<u32>; 2]> = smallvec![[None; 2]; n];
        if self.cucv2() {
            for e in self.tx.rtxq().iter() {
                let slot = &mut pseudo_cumacks[e.path][usize::from(e.tx_count > 1)];
                if e.state == TsnState::InFlight && slot.is_none() {
                    *slot = Some(e.tsn);
                }
            }
        }
        Before {
            flight,
            earliest,
            pseudo_cumacks,
            cum_advanced: tsn_gt(cum, self.tx.cum_point()),
        }
    }

    /// Cumulatively acked chunks leave the queue (§6.2.1 D ii).
    fn ack_cumulative(&mut self, now: Time, cum: u32, tally: &mut AckTally) {
        let paths = &mut self.paths;
        self.tx
            .ack_cumulative(cum, |e| tally.newly_acked(paths, e, now));
    }

    /// Gap blocks and nr-gap blocks (§6.2.1 D iv; NR-SACK draft §5.1): gap-acked chunks stay
    /// (renegable), nr-gap-acked ones leave the queue, and chunks acked before but missing now
    /// are marked reneged unless the SACK is stale.
    fn ack_blocks(
        &mut self,
        now: Time,
        cum: u32,
        gaps: &[GapBlock],
        nr_gaps: &[GapBlock],
        all_nr: bool,
        tally: &mut AckTally,
    ) -> BlockFacts {
        let mut gap_c = Coverage::new(cum, gaps);
        let mut nr_c = Coverage::new(cum, nr_gaps);
        let any_gap = !gap_c.is_empty() || !nr_c.is_empty();
        let highest_reported = match (gap_c.highest(), nr_c.highest()) {
            (Some(a), Some(b)) => Some(if tsn_ge(a, b) { a } else { b }),
            (a, b) => a.or(b),
        };
        let covers = |tsn| {
            let in_gap = gap_c.covers(tsn);
            let nr = nr_c.covers(tsn) || (all_nr && in_gap);
            (nr || in_gap, nr)
        };
        let paths = &mut self.paths;
        let acked = self
            .tx
            .ack_blocks(cum, any_gap, covers, |e| tally.newly_acked(paths, e, now));
        self.stats.reneged_seen += acked.reneged;
        BlockFacts {
            any_gap,
            highest_reported,
            stale: acked.stale,
        }
    }

    fn track_thin_packets(&mut self, cum: u32, highest_reported: Option<u32>) {
        // Seed 004 §5.1: a packet leaves the flight when this SACK acks its highest TSN (and
        // the outstanding list on the cumulative ack); one whose highest TSN sits in a gap
        // collects a miss towards the loss estimate.
        if self.cfg.thin.tracks_packets() {
            self.tx.track_packets(cum, highest_reported);
        }
    }

    /// RTT samples of the timed chunks (§6.3.1 C4).
    fn take_rtt_samples(&mut self, tally: &AckTally) {
        for (p, s) in tally.min_rtt_sample.iter().copied().enumerate() {
            if let Some(r) = s {
                self.paths[p].on_min_rtt_sample(r);
            }
        }
        for (p, s) in tally.rtt_sample.iter().copied().enumerate() {
            if let Some(r) = s {
                self.paths[p].on_rtt_sample(r);
                self.stats.paths[p].rtt_samples += 1;
            }
        }
    }

    /// A plugged controller hears what this SACK newly acknowledged on its destination
    /// (`on_delivery`), after the RTT samples and before loss detection, as TCP's sender tells
    /// it before loss recovery.
    fn tell_deliveries(&mut self, now: Time, tally: &AckTally) {
        for (p, path) in self.paths.iter_mut().enumerate() {
            if tally.bytes[p] > 0 && path.cc().is_plugged() {
                let ack = path.ack_sample(now, tally.bytes[p], tally.min_rtt_sample[p]);
                path.cc_mut().on_delivery(&ack);
            }
        }
    }

    /// Fast recovery exit (§7.2.4): before cwnd updates, so the SACK that ends it may grow cwnd.
    fn end_fast_recoveries(&mut self, now: Time, cum: u32) {
        if self.tx.end_fast_recovery(cum) {
            self.rack_recovery_end();
            for p in &mut self.paths {
                p.cc_mut().on_recovery_end(now, false);
            }
        }
        self.end_cmt_fast_recoveries(now);
    }

    /// Miss indications (§7.2.4, HTNA; CMT SFR and DAC) or RACK (seed 002 §III), then fast
    /// retransmission of what they find lost.
    #[allow(clippy::too_many_arguments)]
    fn detect_losses(
        &mut self,
        now: Time,
        tally: &mut AckTally,
        before: &Before,
        blocks: &BlockFacts,
        extra: SackExtra,
        thin_first: bool,
        er: Option<u32>,
    ) {
        let cum_advanced = before.cum_advanced;
        let highest_reported = blocks.highest_reported;
        let dups = extra.dups;
        // Miss indications (§7.2.4, HTNA); with CMT SFR only behind a newer ack on the same
        // destination.
        let in_fr_any =
            self.tx.fast_recovery().is_some() || self.paths.iter().any(|p| p.fr_exit().is_some());
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
        // FreeBSD without CMT: a fast-retransmitted chunk is struck again in fast recovery when
        // the cumulative ack moves, otherwise only behind a newly acked TSN sent after it was
        // marked (sctp_strike_gap_ack_chunks, `fast_retran_tsn`).
        let again = self.cfg.fast_rtx_again && !self.cfg.cmt.enabled;
        let recovery_moved = in_fr_any && cum_advanced;
        let newly_highest = tally.highest;
        let mut lost: SmallVec<[(u32, RtxCause); 4]> = SmallVec::new();
        if let Some(delivered) = tally.delivered.take() {
            // RACK replaces the miss-indication rule (seed 002 §III).
            self.rack_on_sack(now, &delivered, dups > 0);
        } else if let Some(limit) = limit {
            let highest_on = &tally.highest_on;
            let weight = |e: &RtxEntry| {
                if sfr && !highest_on[e.path].is_some_and(|h| tsn_lt(e.tsn, h)) {
                    return None;
                }
                if again
                    && e.fast_retransmitted
                    && !recovery_moved
                    && !newly_highest.is_some_and(|h| !tsn_lt(h, e.fast_rtx_next_tsn))
                {
                    return None;
                }
                Some(if dac_below.is_some_and(|l| tsn_lt(e.tsn, l)) {
                    dac_n
                } else {
                    1
                })
            };
            lost = self.tx.count_misses(limit, again, weight, |miss| {
                Self::fr_cause(miss, thin_first, er)
            });
        }
        if !lost.is_empty() {
            self.fast_retransmit(now, &lost);
        }
    }

    /// Congestion control per destination (§7.2.1, §7.2.2; CMT CUC).
    fn update_windows(&mut self, now: Time, tally: &AckTally, before: &Before) {
        let n = self.paths.len();
        let (cum_advanced, flight_before) = (before.cum_advanced, &before.flight);
        let growth = self.cfg.cwnd_growth;
        #[allow(clippy::needless_range_loop)] // indexes several per-path vectors at once
        for p in 0..n {
            let may_grow = cum_advanced
                || (self.cfg.cmt.enabled
                    && self.cfg.cmt.cuc
                    && self.pseudo_cumack_moved(p, before));
            // FreeBSD's CMT grows cwnd in fast recovery too (`cmt.grow_in_recovery`).
            let fr = self.in_fr(p) && !(self.cfg.cmt.enabled && self.cfg.cmt.grow_in_recovery);
            let path = &mut self.paths[p];
            let s = SackOnPath {
                // RFC 3168 §6.1.2: no growth on an acknowledgement that echoes congestion.
                newly_acked: if self.ecn.echo_heard() {
                    0
                } else {
                    tally.bytes[p]
                },
                flight_before: flight_before[p],
                flight_after: path.flight(),
                may_grow,
                in_fast_recovery: fr,
                rule: growth,
            };
            let ack = path
                .cc()
                .is_plugged()
                .then(|| path.ack_sample(now, tally.bytes[p], tally.min_rtt_sample[p]));
            path.cc_mut().on_sack(&s, ack);
        }
    }

    /// Error counters (§8.3), T3-rtx (§6.3.2 R2, R3), EFR, the reneging guard and RACK's PTO.
    /// `slow_path`: the SACK or the one before it carried gap blocks (FreeBSD's T3-rtx rule).
    fn update_errors_and_timers(
        &mut self,
        now: Time,
        tally: &AckTally,
        before: &Before,
        thin: bool,
        slow_path: bool,
    ) {
        let n = self.paths.len();
        let earliest = &before.earliest;
        let mut in_flight_on: PerPath<bool> = smallvec![false; n];
        let mut found = 0;
        for e in self.tx.rtxq().iter() {
            if e.state == TsnState::InFlight && !in_flight_on[e.path] {
                in_flight_on[e.path] = true;
                found += 1;
                // Every path has data in flight: the rest of the queue cannot add one (issue
                // 18: this walked the whole queue at every SACK).
                if found == n {
                    break;
                }
            }
        }
        #[allow(clippy::needless_range_loop)]
        for p in 0..n {
            if tally.fresh[p] {
                // §8.3 clears the error counter on acknowledged data; only data sent since
                // the errors began counts, so stale acks cannot revive a failed path.
                self.ctl.peer_answered();
                if self.paths[p].on_ack() == crate::path::Transition::Up {
                    let addr = self.paths[p].remote();
                    self.emit(crate::event::Event::PathUp { addr });
                }
            }
            let earliest_acked = earliest[p].is_some_and(|t| !self.tx.is_in_flight(t));
            if !in_flight_on[p] {
                self.timers.stop(Timer::T3Rtx(p));
            } else if self.cfg.t3_rtx == T3Rtx::Freebsd {
                self.freebsd_t3_on_sack(now, p, tally, before, slow_path);
            } else if earliest_acked {
                let at = self.t3_restart(now, p, thin);
                self.timers.set(Timer::T3Rtx(p), at);
            }
            self.efr_rearm(now, p);
        }
        self.arm_reneging_guard(now);
        if before.cum_advanced {
            self.rack_arm_pto(now);
        }
    }

    /// FreeBSD's T3-rtx on a SACK (`t3_rtx = "freebsd"`) for path `p`, which has data in
    /// flight: acknowledged data sent once undoes the RTO backoff ("restore any doubled
    /// timers"); a timer is started if none runs; a running one is restarted only on the slow
    /// path, when the cumulative ack moved (with CMT: the path's pseudo-cumulative ack; with
    /// `cmt.rtx_pseudo_cumack` either of CUCv2's two, so a lost retransmission on the path does
    /// not hold the timer while its first transmissions are acked: sctp_handle_sack stops the
    /// timer of every destination with `new_pseudo_cumack`).
    fn freebsd_t3_on_sack(
        &mut self,
        now: Time,
        p: usize,
        tally: &AckTally,
        before: &Before,
        slow_path: bool,
    ) {
        if tally.min_rtt_sample[p].is_some() {
            self.paths[p].reset_rto_backoff();
        }
        let moved = if self.cfg.cmt.enabled {
            self.pseudo_cumack_moved(p, before)
        } else {
            before.cum_advanced
        };
        if !self.timers.is_set(Timer::T3Rtx(p)) || (slow_path && moved) {
            let at = now + self.t3_rto(p);
            self.timers.set(Timer::T3Rtx(p), at);
        }
    }

    /// FreeBSD's CUCv2 (`cmt.rtx_pseudo_cumack` with CUC and CMT on): two pseudo cumulative
    /// acks per destination, tracked in `Before::pseudo_cumacks`.
    fn cucv2(&self) -> bool {
        self.cfg.cmt.enabled && self.cfg.cmt.cuc && self.cfg.cmt.rtx_pseudo_cumack
    }

    /// CMT CUC: this SACK moved destination `p`'s pseudo cumulative ack (the earliest chunk in
    /// flight on it before the SACK is acknowledged now); with CUCv2 either of its two, the
    /// first transmissions' or the retransmissions'. What growth (`update_windows`) and
    /// FreeBSD's T3-rtx restart (`freebsd_t3_on_sack`) both ask.
    fn pseudo_cumack_moved(&self, p: usize, before: &Before) -> bool {
        let acked = |t: &Option<u32>| t.is_some_and(|t| !self.tx.is_in_flight(t));
        if self.cucv2() {
            before.pseudo_cumacks[p].iter().any(acked)
        } else {
            acked(&before.earliest[p])
        }
    }

    /// Peer's window: a_rwnd minus what is still in flight (§6.2.1 D iii); a stale SACK's
    /// window is stale too.
    fn update_peer_rwnd(&mut self, a_rwnd: u32, stale: bool) {
        if !stale {
            let rwnd = (a_rwnd as u64).saturating_sub(self.flight_size());
            self.tx.set_peer_rwnd(rwnd);
        }
    }

    /// Seed 000 §IV.B naive loss-recovery rule: in loss recovery from a SACK with gaps until
    /// one without gaps advances the cumulative ack.
    fn track_loss_recovery(&mut self, now: Time, any_gap: bool, cum_advanced: bool) {
        if any_gap && !self.stats.in_loss_recovery {
            self.stats.in_loss_recovery = true;
            self.stats.loss_recovery_since = Some(now);
        } else if !any_gap && cum_advanced && self.stats.in_loss_recovery {
            self.stats.in_loss_recovery = false;
            if let Some(s) = self.stats.loss_recovery_since.take() {
                self.stats.loss_recovery_time += now.saturating_since(s);
            }
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
