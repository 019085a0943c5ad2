//! What the association hands to its driver: packets to send, application events, and the
//! errors of `send`.

use rexmit_wire::{Payload, SctpPacket};
use std::fmt;
use std::net::Ipv4Addr;

/// One SCTP packet to put on the wire from `src` to `dst`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transmit {
    pub src: Ipv4Addr,
    pub dst: Ipv4Addr,
    pub packet: SctpPacket,
    /// The IP header's ECN codepoint (RFC 3168 §5): ECT(0) on new DATA once ECN was
    /// negotiated, else Not-ECT.
    pub ecn: rexmit_wire::Ecn,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AbortReason {
    /// The peer sent ABORT.
    ByPeer,
    /// The local application called `abort`.
    Local,
    /// Association.Max.Retrans consecutive timeouts (RFC 9260 §8.1).
    MaxRetransmissions,
    /// Max.Init.Retransmits exceeded during setup (RFC 9260 §5.1).
    InitFailed,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The association reached ESTABLISHED. `nr_sack` tells whether both ends negotiated
    /// NR-SACK.
    Connected {
        nr_sack: bool,
    },
    /// A complete user message was delivered to the application. `msg` is the sender's
    /// message number (the value `Association::send` returned, mod 2^32), carried as the
    /// PPID, so delivery latency can be matched outside; `ppid` is the same value.
    MessageDelivered {
        stream: u16,
        ssn: u16,
        unordered: bool,
        msg: u32,
        ppid: u32,
        payload: Payload,
    },
    /// The send buffer has room again after `send` returned `BufferFull`.
    SendBufferSpace,
    /// A destination address became unreachable (RFC 9260 §8.2) or potentially failed.
    PathDown {
        addr: Ipv4Addr,
    },
    PathUp {
        addr: Ipv4Addr,
    },
    /// Graceful shutdown finished.
    Closed,
    Aborted {
        reason: AbortReason,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SendError {
    /// The send buffer cannot take the message now (send-buffer blocking, seed 000 §II.B).
    BufferFull,
    /// The message is larger than the whole send buffer, or than the peer's whole receive
    /// buffer (rexmit has no partial delivery API, RFC 6458 §8.1.20).
    MessageTooLarge,
    /// Empty messages cannot be sent (RFC 9260 §6.1: DATA must carry user data).
    EmptyMessage,
    InvalidStream,
    /// Not established (or shutting down).
    NotConnected,
}

impl fmt::Display for SendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}
impl std::error::Error for SendError {}
