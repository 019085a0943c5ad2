//! The data sender's state (RFC 9260 §6): the send buffer (unsent messages and the
//! retransmission queue), TSN numbering, the cumulative ack point, the peer's window, fast
//! recovery, send-buffer blocking and the transmit opportunity.

use crate::rtx_queue::RtxQueue;
use crate::send_queue::SendQueue;
use crate::thin::PacketTracker;
use rexmit_time::Time;

pub(super) struct SendSide {
    pub(super) send_queue: SendQueue,
    pub(super) rtxq: RtxQueue,
    pub(super) next_tsn: u32,
    /// `next_tsn` unwrapped to 64 bits (first-transmission order of chunks, for RACK).
    pub(super) next_seq: u64,
    /// Cumulative TSN ack point: highest TSN the peer acknowledged cumulatively.
    pub(super) cum_point: u32,
    /// Peer's receive window as last computed (RFC 9260 §6.2.1).
    pub(super) peer_rwnd: u64,
    /// The peer's whole receive buffer (a_rwnd of its INIT / INIT ACK): without a partial
    /// delivery API a larger message could never be reassembled there.
    pub(super) peer_buffer: Option<u64>,
    /// Some rtx-queue entry may be marked for retransmission (a hint that spares scans).
    pub(super) rtx_marked: bool,
    /// Most TSNs any SACK has reported received (cum-acked plus gap-acked).
    pub(super) max_acked_count: u64,
    /// Plain-SCTP fast recovery exit point (RFC 9260 §7.2.4); CMT keeps one per path.
    pub(super) fast_recovery: Option<u32>,
    /// Bytes the refused `send` needed; `Some` while the application is blocked.
    pub(super) blocked_need: Option<u64>,
    /// A transmit opportunity has begun (reset by every input).
    pub(super) round_open: bool,
    /// When the current transmit opportunity began.
    pub(super) round_at: Time,
    pub(super) cmt_next: usize,
    /// DATA packets in flight and the packet loss estimate (seed 004 §5.1), kept only while
    /// a thin-stream option or RFC 5827 early retransmit is on.
    pub(super) packets: PacketTracker,
}

impl SendSide {
    pub(super) fn new(streams: u16, initial_tsn: u32) -> Self {
        SendSide {
            send_queue: SendQueue::new(streams),
            rtxq: RtxQueue::new(),
            next_tsn: initial_tsn,
            next_seq: initial_tsn as u64,
            cum_point: initial_tsn.wrapping_sub(1),
            peer_rwnd: 0,
            peer_buffer: None,
            rtx_marked: false,
            max_acked_count: 0,
            fast_recovery: None,
            blocked_need: None,
            round_open: false,
            round_at: Time::ZERO,
            cmt_next: 0,
            packets: PacketTracker::default(),
        }
    }
}
