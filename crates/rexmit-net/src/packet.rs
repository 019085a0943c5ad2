//! The packet as the network sees it: the real IP packet plus simulator-only metadata.
//!
//! The metadata (`uid`, `created`, `enqueued`) never reaches a protocol core: it is the
//! simulator's ground truth, used for metrics (one-way delay, which packet was dropped where)
//! and by queues (sojourn times). What the network may change in the packet itself (TTL, the
//! ECN field) it changes in `ip`.

use crate::ids::{AgentId, IfaceId, NodeId};
use rexmit_time::Time;
use rexmit_wire::{IpPacket, Transport};

#[derive(Clone, Debug)]
pub struct Packet {
    /// Unique per simulation, in order of injection.
    pub uid: u64,
    /// When the sending agent handed the packet to the network.
    pub created: Time,
    /// IPv4 total length in bytes (cached: it is what queues and links count).
    pub size: u32,
    /// When the output queue it last entered took it (the start of its sojourn time).
    pub enqueued: Time,
    /// The interface owning `ip.header.dst` and its node (`None`: no one's address), resolved
    /// once when the packet enters the network. Hot path: addresses never move during a run, so
    /// the nodes on the way compare and index with it instead of hashing the address at every
    /// hop (at 10 000 flows those lookups were cache misses in tables of 40 000 addresses).
    pub dst_owner: Option<DstOwner>,
    /// The agent that takes the packet at `dst_owner`'s node, when the sender's cached way
    /// named it (`way.rs`: that node then reads neither its capture nor its port bindings);
    /// `None`: that node looks the packet's port up.
    pub dst_agent: Option<AgentId>,
    pub ip: IpPacket,
}

/// Where a destination address lives (see `Packet::dst_owner`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DstOwner {
    pub node: NodeId,
    pub iface: IfaceId,
}

impl Packet {
    pub fn protocol(&self) -> u8 {
        self.ip.transport.protocol()
    }
    pub fn dst_port(&self) -> u16 {
        self.ip.transport.dst_port()
    }
    /// The flow this packet belongs to, seen from the network.
    pub fn flow_key(&self) -> FlowKey {
        FlowKey {
            src: self.ip.header.src,
            dst: self.ip.header.dst,
            protocol: self.protocol(),
            src_port: self.ip.transport.src_port(),
            dst_port: self.ip.transport.dst_port(),
        }
    }
    /// TCP sequence number if this is a TCP segment.
    pub fn tcp_seq(&self) -> Option<u32> {
        match &self.ip.transport {
            Transport::Tcp(t) => Some(t.seq),
            _ => None,
        }
    }
}

/// A 5-tuple, as a classifier in the network sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FlowKey {
    pub src: std::net::Ipv4Addr,
    pub dst: std::net::Ipv4Addr,
    pub protocol: u8,
    pub src_port: u16,
    pub dst_port: u16,
}

/// Matches packets of one flow, any field left `None` matches anything.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FlowMatch {
    pub src: Option<std::net::Ipv4Addr>,
    pub dst: Option<std::net::Ipv4Addr>,
    pub protocol: Option<u8>,
    pub src_port: Option<u16>,
    pub dst_port: Option<u16>,
}

impl FlowMatch {
    pub fn matches(&self, k: &FlowKey) -> bool {
        self.src.is_none_or(|a| a == k.src)
            && self.dst.is_none_or(|a| a == k.dst)
            && self.protocol.is_none_or(|p| p == k.protocol)
            && self.src_port.is_none_or(|p| p == k.src_port)
            && self.dst_port.is_none_or(|p| p == k.dst_port)
    }
}
