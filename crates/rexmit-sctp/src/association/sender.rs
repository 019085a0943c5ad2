//! The data sender's loss responses: fast retransmit and fast recovery per destination
//! (RFC 9260 §7.2.4, CMT's recovery point per destination), T3-rtx expiry (§6.3.3), reneging
//! (§6.2.1 D iv) and its guard timer. SACK processing, which calls these, is in `sack.rs`.

use super::timers::Timer;
use super::Association;
use crate::cmt;
use crate::config::T3Rtx;
use crate::controller::congestion_cause;
use crate::rtx_queue::{RtxEntry, TsnState};
use crate::stats::RtxCause;
use crate::tsn::tsn_le;
use rexmit_time::{Duration, Time};
use smallvec::{smallvec, SmallVec};

/// One value per destination, inline for the usual one to four paths (no allocation per SACK).
pub(super) type PerPath<T> = SmallVec<[T; 4]>;

impl Association {
    pub(super) fn in_fr(&self, p: usize) -> bool {
        if self.cfg.cmt.enabled {
            self.paths[p].fr_exit().is_some()
        } else {
            self.tx.fast_recovery().is_some()
        }
    }

    /// Mark `lost` TSNs for fast retransmission and enter fast recovery on their
    /// destinations (§7.2.4 steps 1-2). A plugged controller hears the congestion event (the
    /// cause of the first chunk found lost on its destination) and the episode's start.
    pub(super) fn fast_retransmit(&mut self, now: Time, lost: &[(u32, RtxCause)]) {
        let highest_outstanding = self.tx.rtxq().highest_tsn().unwrap_or(self.tx.cum_point());
        let mut paths_hit: PerPath<(usize, RtxCause)> = SmallVec::new();
        for &(t, cause) in lost {
            if let Some((p, left)) = self.tx.mark_fast_rtx(t, cause) {
                self.paths[p].leave_flight(left);
                self.paths[p].cc_mut().count_lost(1);
                if self.rtx_dest_at_mark() {
                    // sctp_strike_gap_ack_chunks picks the chunk's `whoTo` before
                    // sctp_cwnd_update_after_fr cuts (below).
                    let to = cmt::rtx_destination(&self.paths, p, true, &self.cfg.cmt);
                    self.tx.bind_rtx_dest(t, to);
                }
                if !paths_hit.iter().any(|(q, _)| *q == p) {
                    paths_hit.push((p, cause));
                }
            }
        }
        for (p, cause) in paths_hit {
            if self.in_fr(p) && !(self.cfg.cmt.enabled && self.cfg.cmt.cut_every_sack) {
                continue; // §7.2.4: no further reduction during fast recovery
            }
            let point = self.paths[p].bytes_sent();
            self.paths[p]
                .cc_mut()
                .on_loss(now, congestion_cause(cause), Some(point));
            self.stats.fast_recoveries += 1;
            if self.cfg.cmt.enabled {
                // CMT keeps the recovery point per destination (Iyengar et al., the CMT of
                // seed 000's ns-2 experiments): the highest TSN outstanding on that path.
                let unacked =
                    |e: &&RtxEntry| matches!(e.state, TsnState::InFlight | TsnState::MarkedForRtx);
                let on_path = self
                    .tx
                    .rtxq()
                    .iter()
                    .filter(|e| e.path == p)
                    .filter(unacked)
                    .map(|e| e.tsn)
                    .last();
                self.paths[p].enter_fast_recovery(on_path.unwrap_or(highest_outstanding));
            } else {
                self.tx.enter_fast_recovery(highest_outstanding);
            }
        }
    }

    /// CMT: a destination leaves fast recovery once nothing it carried up to its exit point is
    /// still unacknowledged (its pseudo-cumulative ack passes the point). The association's
    /// cumulative ack would wait for the other paths' data: about one RTT of the slowest path
    /// during which the fast path's cwnd could not grow.
    pub(super) fn end_cmt_fast_recoveries(&mut self, now: Time) {
        if !self.paths.iter().any(|p| p.fr_exit().is_some()) {
            return;
        }
        let mut pending: PerPath<bool> = smallvec![false; self.paths.len()];
        for e in self.tx.rtxq().iter() {
            let unacked = matches!(e.state, TsnState::InFlight | TsnState::MarkedForRtx);
            if unacked
                && self.paths[e.path]
                    .fr_exit()
                    .is_some_and(|x| tsn_le(e.tsn, x))
            {
                pending[e.path] = true;
            }
        }
        for (p, waiting) in self.paths.iter_mut().zip(pending) {
            if !waiting {
                p.exit_fast_recovery();
                p.cc_mut().on_recovery_end(now, false);
            }
        }
    }

    /// `cmt.rtx_dest_at_mark`: a retransmission's destination is fixed when it is marked.
    pub(super) fn rtx_dest_at_mark(&self) -> bool {
        self.cfg.cmt.enabled && self.cfg.cmt.rtx_dest_at_mark
    }

    /// `cmt.no_fr_after_t3`: chunks a T3-rtx expiry marks are never fast retransmitted.
    fn no_fr_after_t3(&self) -> bool {
        self.cfg.cmt.enabled && self.cfg.cmt.no_fr_after_t3
    }

    /// T3-rtx expiry on path `p` (§6.3.3 E1-E3, §8.2).
    pub(super) fn on_t3_expiry(&mut self, now: Time, p: usize) {
        // Armed by `arm_reneging_guard` rather than by data in flight?
        let guard_expired = self.flight_size() == 0;
        let windows_before: Option<PerPath<(u64, u64)>> = self.rtx_dest_at_mark().then(|| {
            let w = |q: &crate::path::Path| (q.cc().cwnd(), q.cc().ssthresh());
            self.paths.iter().map(w).collect()
        });
        let thin = self.is_thin();
        self.timers.stop(Timer::T3Rtx(p));
        self.rack_on_t3();
        self.stats.timeouts += 1;
        self.stats.paths[p].timeouts += 1;
        let freebsd = self.cfg.t3_rtx == T3Rtx::Freebsd && !guard_expired;
        let freebsd_marked = freebsd && self.mark_timed_out_freebsd(now, p);
        if !freebsd {
            let marked = self.tx.mark_timed_out(p, self.no_fr_after_t3());
            // §7.2.3; a plugged controller's `on_timeout` counts the chunks just marked lost.
            let cc = self.paths[p].cc_mut();
            cc.count_lost(marked);
            cc.on_t3_expiry(now);
            self.paths[p].clear_flight();
        }
        if thin && self.cfg.thin.linear_timeouts {
            // Seed 004 §5.3: linear timeouts while thin.
            self.paths[p].reset_rto_backoff();
        } else {
            self.paths[p].back_off_rto();
        }
        if freebsd {
            // What this expiry opens is its output call (`T3Call`).
            self.tx.begin_t3_call();
        }
        if freebsd_marked || (freebsd && self.paths[p].flight() > 0) {
            // FreeBSD restarts the timer at once, with the RTO just doubled: retransmissions
            // wait (cwnd is one MTU) and so must a timer (sctp_timer_validation); and after an
            // expiry that marked nothing, the timeout handler's safeguard restarts it for the
            // data still outstanding (sctp_timeout_handler, SCTP_TIMER_TYPE_SEND). SACKs without
            // gap blocks leave it running, so the next expiry is two RTOs away, not one.
            let at = now + self.t3_rto(p);
            self.timers.set(Timer::T3Rtx(p), at);
        }
        self.timers.stop(Timer::EarlyFastRtx(p));
        // The timeout's slow start from one MTU replaces the fast recovery in progress (as
        // Linux's sctp_transport_lower_cwnd): kept, it would forbid slow start (§7.2.1) until
        // the old exit point is acknowledged, freezing cwnd at one MTU for that long.
        if self.cfg.cmt.enabled {
            self.paths[p].exit_fast_recovery();
            self.paths[p].cc_mut().on_recovery_end(now, true);
        } else {
            self.tx.cancel_fast_recovery();
            for path in &mut self.paths {
                path.cc_mut().on_recovery_end(now, true);
            }
        }
        if guard_expired {
            // Nothing in flight yet the cumulative ack is stuck below gap-acked data: the
            // receiver must have reneged without a SACK showing it (see
            // `arm_reneging_guard`); resend the renegable gap-acked chunks.
            let gap_acked = self.tx.gap_acked();
            self.mark_reneged(&gap_acked);
        }
        self.path_error(now, p);
        if let Some(w) = windows_before {
            // sctp_t3rxt_timer: the error count first (the path may be potentially failed
            // now), then sctp_find_alternate_net over the windows before
            // sctp_backoff_on_timeout's cut, and every chunk marked for `p` moves there.
            let to = cmt::rtx_destination_with(&self.paths, p, false, &self.cfg.cmt, &|i| w[i]);
            self.tx.rebind_marked(p, to);
        }
    }

    /// FreeBSD's T3-rtx expiry (`t3_rtx = "freebsd"`; sctp_t3rxt_timer and
    /// sctp_mark_all_for_resend): only chunks outstanding on `p` for at least SRTT + 4·RTTVAR
    /// (the RTO before its lower bound and backoff) are marked, and cwnd falls to one MTU
    /// only if one was (returned). Its timer is not restarted by SACKs without gap blocks, so it also
    /// expires in a transfer without loss; then it finds the chunks whose SACK the delayed-SACK
    /// rule holds back.
    fn mark_timed_out_freebsd(&mut self, now: Time, p: usize) -> bool {
        let wait = self.paths[p]
            .rtt()
            .unbounded_rto()
            .unwrap_or(Duration::ZERO);
        let sent_by = Time::ZERO + now.saturating_since(Time::ZERO).saturating_sub(wait);
        let no_fr = self.no_fr_after_t3();
        let Some(marked) = self.tx.mark_timed_out_sent_by(p, sent_by, no_fr) else {
            return false;
        };
        self.paths[p].leave_flight(marked.bytes);
        let cc = self.paths[p].cc_mut();
        cc.count_lost(marked.chunks);
        cc.on_t3_expiry(now);
        true
    }

    pub(super) fn mark_reneged(&mut self, tsns: &[u32]) {
        self.stats.reneged_seen += self.tx.mark_reneged(tsns);
    }

    /// With nothing in flight no SACK will come to reveal reneging that a stale-looking
    /// SACK hid, so keep a T3-rtx timer running while renegable gap-acked data waits.
    pub(super) fn arm_reneging_guard(&mut self, now: Time) {
        if self.flight_size() > 0 || self.tx.rtx_marked() {
            return;
        }
        let Some(p) = self
            .tx
            .rtxq()
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
