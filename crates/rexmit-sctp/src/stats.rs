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
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SctpStats {
    pub packets_sent: u64,
    pub packets_received: u64,
    /// First transmissions of DATA chunks and their user bytes.
    pub data_chunks_sent: u64,
    pub data_bytes_sent: u64,
    /// DATA chunks sent again (fast retransmit, T3, reneging).
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
    pub sacks_received: u64,
    pub dup_tsns_received: u64,
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
}

impl SctpStats {
    /// Blocked time including a block still in progress at `now`.
    pub fn blocked_time_until(&self, now: Time) -> Duration {
        self.send_blocked_time
            + self
                .blocked_since
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
