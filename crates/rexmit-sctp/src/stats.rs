//! Counters the metrics layer reads. Owns: plain numbers, updated by the association.
//! Time-weighted quantities (rtx-queue size, RtxQ_Util) are integrated outside from
//! `Association::rtx_queue_bytes` and `Association::rtx_queue` snapshots; only durations that
//! need the core's knowledge (blocked time) are accumulated here.

use rexmit_time::{Duration, Time};

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PathStats {
    /// T3-rtx expiries on this destination.
    pub timeouts: u64,
    pub data_chunks_sent: u64,
    pub heartbeats_sent: u64,
    /// RTT measurements of DATA chunks (RFC 9260 §6.3.1 C4: at most one per round trip).
    pub rtt_samples: u64,
}

/// Integrate a condition over time: a period opens at `since` when `on` starts and is added
/// to `total` when it ends.
pub fn track_period(on: bool, now: Time, since: &mut Option<Time>, total: &mut Duration) {
    match (on, *since) {
        (true, None) => *since = Some(now),
        (false, Some(s)) => {
            *since = None;
            *total += now.saturating_since(s);
        }
        _ => {}
    }
}

/// Why a DATA chunk was marked for retransmission.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RtxCause {
    /// T3-rtx expiry (RFC 9260 §6.3.3).
    Timeout,
    /// Three miss indications (RFC 9260 §7.2.4).
    FastRetransmit,
    /// One miss indication while thin (seed 004 §5.4).
    ThinFastRetransmit,
    /// RFC 5827 early retransmit (threshold outstanding − 1).
    EarlyRetransmit,
    /// FreeBSD early fast retransmit timer (seed 004 §2).
    EarlyFastRetransmit,
    /// Gap-acked earlier, then missing: the receiver reneged (RFC 9260 §6.2.1 D iv).
    Reneged,
    /// RACK time-based loss detection (seed 002 §II.A, RFC 8985 §6.2).
    Rack,
    /// Tail loss probe retransmitting the most recent chunk (seed 002 §II.C).
    Tlp,
}

/// Retransmitted DATA chunks by cause (seed 004 Fig. 9: TO, FR, B). A chunk that rides in a
/// retransmission packet behind another chunk, and was not itself detected lost by a
/// SACK-driven rule or EFR (it was only marked by a T3 expiry or reneging), counts as bundled.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RtxByCause {
    pub timeout: u64,
    pub fast_retransmit: u64,
    pub thin_fast_retransmit: u64,
    pub early_retransmit: u64,
    pub early_fast_retransmit: u64,
    pub bundled: u64,
    pub reneged: u64,
    pub rack: u64,
    pub tlp: u64,
}

impl RtxByCause {
    /// Count one retransmitted chunk; `first` = it leads its packet.
    pub fn count(&mut self, cause: RtxCause, first: bool) {
        let c = match cause {
            RtxCause::Timeout | RtxCause::Reneged if !first => &mut self.bundled,
            RtxCause::Timeout => &mut self.timeout,
            RtxCause::Reneged => &mut self.reneged,
            RtxCause::FastRetransmit => &mut self.fast_retransmit,
            RtxCause::ThinFastRetransmit => &mut self.thin_fast_retransmit,
            RtxCause::EarlyRetransmit => &mut self.early_retransmit,
            RtxCause::EarlyFastRetransmit => &mut self.early_fast_retransmit,
            RtxCause::Rack => &mut self.rack,
            RtxCause::Tlp => &mut self.tlp,
        };
        *c += 1;
    }
    pub fn total(&self) -> u64 {
        self.timeout
            + self.fast_retransmit
            + self.thin_fast_retransmit
            + self.early_retransmit
            + self.early_fast_retransmit
            + self.bundled
            + self.reneged
            + self.rack
            + self.tlp
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SctpStats {
    pub packets_sent: u64,
    pub packets_received: u64,
    /// First transmissions of DATA chunks and their user bytes.
    pub data_chunks_sent: u64,
    pub data_bytes_sent: u64,
    /// DATA chunks sent again (fast retransmit, T3, reneging, thin-stream fast retransmit,
    /// RFC 5827 early retransmit, EFR).
    pub retransmissions: u64,
    /// DATA chunks fast retransmitted.
    pub fast_retransmits: u64,
    /// Fast recovery periods entered.
    pub fast_recoveries: u64,
    /// T3-rtx expiries, all paths.
    pub timeouts: u64,
    pub paths: Vec<PathStats>,
    pub messages_sent: u64,
    pub messages_delivered: u64,
    pub bytes_delivered: u64,
    pub sacks_sent: u64,
    pub nr_sacks_sent: u64,
    /// ECN (RFC 9260 Appendix A): negotiated; CE-marked DATA packets received; ECNE chunks
    /// received; window reductions for them; CWR chunks sent.
    pub ecn_negotiated: bool,
    pub ecn_ce_received: u64,
    pub ecn_ece_received: u64,
    pub ecn_reductions: u64,
    pub ecn_cwr_sent: u64,
    pub sacks_received: u64,
    pub dup_tsns_received: u64,
    /// Duplicate TSNs the peer's SACKs reported: the retransmissions this sender can tell
    /// were spurious (seed 002 §IV).
    pub dup_tsns_reported: u64,
    /// Tail loss probes sent (seed 002 §II.C) and RACK reordering-timer expiries.
    pub tlp_probes: u64,
    pub rack_timer_expiries: u64,
    /// Recoveries that began with the acknowledgement of a tail loss probe (seed 002 §V.A).
    pub tail_recoveries: u64,
    /// Seed 002 §IV.A recovery time: from a chunk's first transmission to its first
    /// retransmission, summed over retransmitted chunks, with their count and the maximum.
    pub recovery_time_total: Duration,
    pub recovery_time_count: u64,
    pub recovery_time_max: Duration,
    /// DATA chunks dropped by this receiver when reneging.
    pub reneged_chunks: u64,
    /// TSNs this sender saw reneged (gap-acked, then missing from a later SACK).
    pub reneged_seen: u64,
    /// Times `send` was refused for lack of buffer space, and the total time the
    /// application stayed blocked (from the first refusal until space returned).
    pub send_blocked_events: u64,
    pub send_blocked_time: Duration,
    pub blocked_since: Option<Time>,
    /// Send-buffer blocking in seed 000's sense (§II.B): the application is refused while
    /// the retransmission queue alone fills the buffer (no unsent data waits for cwnd), so the
    /// buffer, not cwnd, stops new transmissions.
    pub rtxq_blocked_time: Duration,
    pub rtxq_blocked_since: Option<Time>,
    /// Seed 000 §IV.B naive loss-recovery rule: entered on a SACK with gap blocks, left on a
    /// SACK with a new cumulative ack and no gap blocks.
    pub in_loss_recovery: bool,
    pub loss_recovery_time: Duration,
    pub loss_recovery_since: Option<Time>,
    /// Retransmitted chunks by cause (sums to `retransmissions`).
    pub rtx_by_cause: RtxByCause,
    /// EFR timer expiries that retransmitted something (seed 004 §2).
    pub efr_expiries: u64,
    /// Time the association was thin (seed 004 Fig. 3); counted only while some seed-004
    /// modification or RFC 5827 early retransmit is on.
    pub thin_time: Duration,
    pub thin_since: Option<Time>,
}

impl SctpStats {
    /// Blocked time including a block still in progress at `now`.
    pub fn blocked_time_until(&self, now: Time) -> Duration {
        self.send_blocked_time
            + self
                .blocked_since
                .map_or(Duration::ZERO, |s| now.saturating_since(s))
    }
    /// Thin time including a thin period in progress at `now`.
    pub fn thin_time_until(&self, now: Time) -> Duration {
        self.thin_time
            + self
                .thin_since
                .map_or(Duration::ZERO, |s| now.saturating_since(s))
    }
    /// Send-buffer (rtx-queue) blocking time including a period in progress at `now`.
    pub fn rtxq_blocked_time_until(&self, now: Time) -> Duration {
        self.rtxq_blocked_time
            + self
                .rtxq_blocked_since
                .map_or(Duration::ZERO, |s| now.saturating_since(s))
    }
}
