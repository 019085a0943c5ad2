//! Counters and gauges a connection keeps for metrics. Plain data; the connection updates it.

use rexmit_time::{Duration, Time};

/// Why a segment was retransmitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RetransmitCause {
    /// Fast retransmit and every retransmission made during dupack/SACK-based recovery.
    FastRetransmit,
    /// Retransmission timeout (including the go-back-N resends that follow it).
    Timeout,
    /// Marked lost by RACK (RFC 8985 §6).
    Rack,
    /// Tail loss probe retransmitting the last segment (RFC 8985 §7.3).
    Tlp,
}

/// One loss-recovery episode (fast recovery or SACK loss recovery; timeouts are counted apart).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecoveryEpisode {
    pub start: Time,
    pub end: Option<Time>,
}

/// Laid out in declaration order (`repr(C)`), the gauges and counters a connection writes on
/// every segment first, so that at 10 000 flows a segment touches two or three of the struct's
/// cache lines instead of one per field group (issue 40 step 6; field order is not API).
#[derive(Clone, Debug, Default, PartialEq)]
#[repr(C)]
pub struct TcpStats {
    pub cwnd: u64,
    pub ssthresh: u64,
    /// Bytes between snd_una and snd_max (the retransmission queue).
    pub rtx_queue_bytes: u64,
    pub rtx_queue_bytes_max: u64,
    pub send_buffer_bytes: u64,
    pub segments_sent: u64,
    pub segments_received: u64,
    /// Data bytes cumulatively acknowledged by the peer.
    pub bytes_acked: u64,
    pub srtt: Option<Duration>,
    pub rto: Duration,
    pub data_segments_sent: u64,
    /// In-order data bytes delivered to the application side of this endpoint.
    pub bytes_delivered: u64,
    pub ooo_bytes: u64,
    pub ooo_bytes_max: u64,
    /// Data bytes the application wrote and the send buffer accepted.
    pub bytes_accepted: u64,
    pub retransmits_fast: u64,
    pub retransmits_timeout: u64,
    pub retransmits_rack: u64,
    pub retransmits_tlp: u64,
    /// Of `retransmits_fast`: RFC 6675 NextSeg (4) rescue retransmissions (one per episode).
    pub retransmits_rescue: u64,
    /// Tail loss probes sent (new data or retransmission).
    pub tlp_probes: u64,
    /// Retransmitted probes that repaired a loss (RFC 8985 §7.4), each with a window reduction.
    pub tlp_repairs: u64,
    /// Reductions undone as spurious (`tcp.undo`, `tcp.frto`): every retransmission reported
    /// duplicate by D-SACK, an echoed timestamp older than the first retransmission, F-RTO.
    pub undos_dsack: u64,
    pub undos_timestamps: u64,
    pub undos_frto: u64,
    pub bytes_retransmitted: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub recoveries: Vec<RecoveryEpisode>,
    pub dsacks_received: u64,
    /// With `adaptive_reordering`: the reordering degree in force (the duplicate threshold)
    /// and how often reordering was seen.
    pub reordering: u32,
    pub reordering_seen: u64,
    pub dsacks_sent: u64,
    /// Total time the application was blocked by a full send buffer.
    pub app_blocked: Duration,
    /// ECN was negotiated in the handshake (RFC 3168 §6.1.1).
    pub ecn_negotiated: bool,
    /// Data segments that arrived marked CE (the receiver's side).
    pub ecn_ce_received: u64,
    /// ACKs that arrived with ECE (the sender's side).
    pub ecn_ece_received: u64,
    /// Window reductions in answer to ECE (at most one per window of data).
    pub ecn_reductions: u64,
    /// Data segments sent with CWR.
    pub ecn_cwr_sent: u64,
}

impl TcpStats {
    pub fn retransmits(&self) -> u64 {
        self.retransmits_fast
            + self.retransmits_timeout
            + self.retransmits_rack
            + self.retransmits_tlp
    }
}
