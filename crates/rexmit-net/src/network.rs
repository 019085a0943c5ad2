//! Nodes, interfaces and point-to-point links (each a pair of simplex channels), with address
//! assignment. Building a `Network` is separate from running it (see `sim.rs`).

use crate::channel::{Channel, LinkParams};
use crate::fast_map::FastMap;
use crate::packet::DstOwner;
use rexmit_engine::StreamFactory;
use std::net::Ipv4Addr;

pub use crate::ids::{AgentId, ChannelId, IfaceId, NodeId};

/// An entry of `Node::routes` for an address the node has no route to.
pub(crate) const NO_ROUTE: u32 = u32::MAX;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeStats {
    /// Packets dropped because no route leads to their destination.
    pub no_route: u64,
    /// Packets for this node with no agent bound to their protocol and port.
    pub no_listener: u64,
    /// Packets dropped because their TTL ran out (a routing loop).
    pub ttl_expired: u64,
    /// Packets a non-forwarding host received for another address.
    pub not_for_us: u64,
}

/// Layout (hot path): `repr(C)`, aligned to a cache line, with what a packet reads at a host
/// (its way out, captures, its port bindings, whether it forwards) on the first line; with
/// 10 000 hosts most are cold when a packet comes (docs/validation_speed.md, "Session 13").
#[repr(C, align(64))]
pub struct Node {
    /// A single-homed host's one way out: the channel of its only interface (set with the
    /// routes). Its packets go there whatever their destination, as `route_to` says; having it
    /// here spares a packet the reads of `ifaces` and the interface (hot path, `originate`).
    pub(crate) uplink: Option<ChannelId>,
    pub(crate) pcap: Option<usize>,
    pub(crate) ports: FastMap<(u8, u16), AgentId>,
    /// Routers forward packets not addressed to them; hosts (even multihomed ones) never do.
    pub forwarding: bool,
    // Cold for hosts (a router's routes are read at every hop, but there are few routers).
    pub name: String,
    pub ifaces: Vec<IfaceId>,
    /// Routers and multihomed hosts: the interface out to each address, indexed by the
    /// interface owning that address (`NO_ROUTE`: none). Dense rather than hashed by address:
    /// one index per hop (it holds no more entries than a map of every address would).
    pub(crate) routes: Vec<u32>,
    /// Receives every packet for the node that no port binding claims (a real host's bridge in
    /// emulation); `None`: such packets count as `no_listener`.
    pub(crate) catch_all: Option<AgentId>,
    pub stats: NodeStats,
}

impl Node {
    /// A single-homed host's only interface: every packet it sends leaves there, whatever its
    /// destination (no table needed).
    pub(crate) fn single_iface(&self) -> Option<IfaceId> {
        match self.ifaces[..] {
            [only] if !self.forwarding => Some(only),
            _ => None,
        }
    }
}

pub struct Iface {
    pub node: NodeId,
    pub addr: Ipv4Addr,
    /// The channel that carries packets out of this interface.
    pub tx: ChannelId,
    /// The interface at the other end of the link.
    pub peer: IfaceId,
}

/// Nodes, interfaces and channels. Indexes are dense, so lookups are vector indexing.
pub struct Network {
    pub nodes: Vec<Node>,
    pub ifaces: Vec<Iface>,
    pub channels: Vec<Channel>,
    pub(crate) addr_owner: FastMap<Ipv4Addr, IfaceId>,
    /// Name indexes, so building large topologies stays linear.
    node_names: FastMap<String, NodeId>,
    channel_names: FastMap<String, ChannelId>,
    streams: StreamFactory,
    links: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BuildError {
    DuplicateNode(String),
    DuplicateAddress(Ipv4Addr),
    SelfLink(String),
    TooManyLinks,
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BuildError::DuplicateNode(n) => write!(f, "node name {n:?} is used twice"),
            BuildError::DuplicateAddress(a) => {
                write!(f, "address {a} is assigned to two interfaces")
            }
            BuildError::SelfLink(n) => write!(f, "a link connects node {n:?} to itself"),
            BuildError::TooManyLinks => write!(
                f,
                "more than 65536 links: automatic addressing (10.x.y.1/2) ran out"
            ),
        }
    }
}
impl std::error::Error for BuildError {}

impl Network {
    pub fn new(streams: StreamFactory) -> Self {
        Network {
            nodes: Vec::new(),
            ifaces: Vec::new(),
            channels: Vec::new(),
            addr_owner: FastMap::default(),
            node_names: FastMap::default(),
            channel_names: FastMap::default(),
            streams,
            links: 0,
        }
    }

    pub fn streams(&self) -> &StreamFactory {
        &self.streams
    }

    pub fn add_node(&mut self, name: &str, forwarding: bool) -> Result<NodeId, BuildError> {
        if self.node_by_name(name).is_some() {
            return Err(BuildError::DuplicateNode(name.to_string()));
        }
        self.nodes.push(Node {
            uplink: None,
            name: name.to_string(),
            forwarding,
            ifaces: Vec::new(),
            routes: Vec::new(),
            ports: FastMap::default(),
            catch_all: None,
            stats: NodeStats::default(),
            pcap: None,
        });
        let id = NodeId(self.nodes.len() as u32 - 1);
        self.node_names.insert(name.to_string(), id);
        Ok(id)
    }

    pub fn node_by_name(&self, name: &str) -> Option<NodeId> {
        self.node_names.get(name).copied()
    }

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.0 as usize]
    }

    /// The addresses of a node's interfaces, in the order the links were added.
    pub fn addrs(&self, id: NodeId) -> Vec<Ipv4Addr> {
        self.node(id)
            .ifaces
            .iter()
            .map(|i| self.ifaces[i.0 as usize].addr)
            .collect()
    }

    pub fn channel_by_name(&self, name: &str) -> Option<ChannelId> {
        self.channel_names.get(name).copied()
    }

    /// Connect `a` and `b` with a duplex link: channel a→b uses `ab`, b→a uses `ba`. Addresses
    /// default to 10.x.y.1 (a) and 10.x.y.2 (b) where x.y numbers the link.
    pub fn add_link(
        &mut self,
        a: NodeId,
        b: NodeId,
        ab: LinkParams,
        ba: LinkParams,
        addrs: Option<(Ipv4Addr, Ipv4Addr)>,
    ) -> Result<(ChannelId, ChannelId), BuildError> {
        if a == b {
            return Err(BuildError::SelfLink(self.node(a).name.clone()));
        }
        let k = self.links;
        if k >= 65536 {
            return Err(BuildError::TooManyLinks);
        }
        let (addr_a, addr_b) = addrs.unwrap_or_else(|| {
            let (x, y) = ((k >> 8) as u8, (k & 0xff) as u8);
            (Ipv4Addr::new(10, x, y, 1), Ipv4Addr::new(10, x, y, 2))
        });
        for addr in [addr_a, addr_b] {
            if self.addr_owner.contains_key(&addr) || addr_a == addr_b {
                return Err(BuildError::DuplicateAddress(addr));
            }
        }
        self.links += 1;
        let ia = IfaceId(self.ifaces.len() as u32);
        let ib = IfaceId(ia.0 + 1);
        let ca = ChannelId(self.channels.len() as u32);
        let cb = ChannelId(ca.0 + 1);
        self.ifaces.push(Iface {
            node: a,
            addr: addr_a,
            tx: ca,
            peer: ib,
        });
        self.ifaces.push(Iface {
            node: b,
            addr: addr_b,
            tx: cb,
            peer: ia,
        });
        self.addr_owner.insert(addr_a, ia);
        self.addr_owner.insert(addr_b, ib);
        self.nodes[a.0 as usize].ifaces.push(ia);
        self.nodes[b.0 as usize].ifaces.push(ib);
        let (na, nb) = (self.node(a).name.clone(), self.node(b).name.clone());
        let name_ab = self.unique_channel_name(&format!("{na}->{nb}"));
        let name_ba = self.unique_channel_name(&format!("{nb}->{na}"));
        self.channel_names.insert(name_ab.clone(), ca);
        self.channel_names.insert(name_ba.clone(), cb);
        let ch_ab = Channel::new(name_ab, ia, ib, b, ab, &self.streams);
        self.channels.push(ch_ab);
        let ch_ba = Channel::new(name_ba, ib, ia, a, ba, &self.streams);
        self.channels.push(ch_ba);
        Ok((ca, cb))
    }

    fn unique_channel_name(&self, base: &str) -> String {
        if self.channel_by_name(base).is_none() {
            return base.to_string();
        }
        (2..)
            .map(|i| format!("{base}#{i}"))
            .find(|n| self.channel_by_name(n).is_none())
            .expect("some suffix is free")
    }

    /// The node owning `addr`, if any.
    pub fn owner_of(&self, addr: Ipv4Addr) -> Option<NodeId> {
        self.addr_owner
            .get(&addr)
            .map(|i| self.ifaces[i.0 as usize].node)
    }

    /// The interface owning `addr` and its node, if any.
    #[inline]
    pub fn dst_owner(&self, addr: Ipv4Addr) -> Option<DstOwner> {
        self.addr_owner.get(&addr).map(|&iface| DstOwner {
            node: self.ifaces[iface.0 as usize].node,
            iface,
        })
    }

    /// Whether `node` can reach `addr` (after `compute_routes`).
    pub fn has_route(&self, node: NodeId, addr: Ipv4Addr) -> bool {
        let n = self.node(node);
        let owner = self.dst_owner(addr);
        owner.is_some_and(|o| o.node == node)
            || owner.is_some_and(|o| {
                n.routes
                    .get(o.iface.0 as usize)
                    .is_some_and(|&i| i != NO_ROUTE)
            })
            || (n.ifaces.len() == 1 && owner.is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{align_of, offset_of, size_of};

    /// What a packet reads at a host shares the node's first cache line (see `Node`).
    #[test]
    fn a_hosts_per_packet_fields_share_one_line() {
        assert_eq!(align_of::<Node>(), 64);
        let end = |offset: usize, size: usize| offset + size;
        assert!(end(offset_of!(Node, uplink), size_of::<Option<ChannelId>>()) <= 64);
        assert!(end(offset_of!(Node, pcap), size_of::<Option<usize>>()) <= 64);
        let ports = size_of::<FastMap<(u8, u16), AgentId>>();
        assert!(end(offset_of!(Node, ports), ports) <= 64);
        assert!(end(offset_of!(Node, forwarding), 1) <= 64);
    }

    /// A single-homed host's uplink is its one interface's channel; routers and multihomed
    /// hosts have none (they look their routes up).
    #[test]
    fn only_single_homed_hosts_have_an_uplink() {
        let mut net = Network::new(rexmit_engine::StreamFactory::new(1));
        let h = net.add_node("H", false).unwrap();
        let m = net.add_node("M", false).unwrap();
        let r = net.add_node("R", true).unwrap();
        let p = crate::LinkParams::new(
            rexmit_time::Rate::from_mbps(10),
            rexmit_time::Duration::from_millis(1),
        );
        net.add_link(h, r, p.clone(), p.clone(), None).unwrap();
        net.add_link(m, r, p.clone(), p.clone(), None).unwrap();
        net.add_link(m, r, p.clone(), p, None).unwrap();
        net.compute_routes();
        let hi = net.node(h).ifaces[0];
        assert_eq!(net.node(h).uplink, Some(net.ifaces[hi.0 as usize].tx));
        assert_eq!(net.node(m).uplink, None);
        assert_eq!(net.node(r).uplink, None);
    }
}
