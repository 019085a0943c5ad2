//! Where a packet goes, resolved once per flow (issue 40 step 4): the owner of its destination
//! address, the channel it leaves its node by, and the agent that will take it at the far end.
//!
//! Without it every packet walked the address tables twice: `originate` hashed the destination
//! address (a table of every address: 40 000 at 10 000 flows), read the owning interface and
//! the sending node, and the destination node hashed (protocol, port) in its port bindings.
//! With thousands of flows each of those reads was a cache miss. A flow sends packet after
//! packet to the same (address, protocol, port), so the sending agent's slot keeps the last
//! answer (`sim.rs`, `AgentSlot::way`) and the packet carries the destination agent.
//!
//! The answers are the ones the tables give hop by hop, because the tables do not change while
//! packets move: addresses, routes, uplinks and port bindings are fixed when the run starts,
//! and the set-up calls that change bindings or captures forget every cached way
//! (`World::forget_ways`). Owns no state of its own; does not cover routers' per-hop route
//! lookups (a router's table is indexed by the packet's `dst_owner`, already resolved).

use crate::ids::{AgentId, ChannelId, NodeId};
use crate::network::Network;
use crate::packet::DstOwner;
use std::net::Ipv4Addr;

/// How a packet leaves the node that sends it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Out {
    /// Its destination is an address of the sending node itself.
    Local,
    /// Out of this channel.
    Channel(ChannelId),
    /// No route: the sending node counts it (`NodeStats::no_route`).
    NoRoute,
}

/// One flow's answers (see the module doc): what `originate` and the destination's `at_node`
/// would find in the tables for a packet from `node` to (`dst`, `protocol`, `dst_port`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Way {
    pub dst: Ipv4Addr,
    pub protocol: u8,
    pub dst_port: u16,
    pub owner: Option<DstOwner>,
    pub out: Out,
    /// The agent the destination node hands the packet to, when that node can hand it over
    /// without looking at its tables: it is the owner, it has no capture to write, and a port
    /// binding (or its catch-all agent) takes the packet. `None`: `at_node` looks it up.
    pub agent: Option<AgentId>,
}

impl Way {
    /// Whether this is the way for a packet to (`dst`, `protocol`, `dst_port`).
    #[inline(always)]
    pub fn is_for(&self, dst: Ipv4Addr, protocol: u8, dst_port: u16) -> bool {
        self.dst == dst && self.protocol == protocol && self.dst_port == dst_port
    }
}

impl Network {
    /// The way of a packet from `node` to (`dst`, `protocol`, `dst_port`), from the tables
    /// (the answer the per-hop lookups give; see the module doc).
    pub(crate) fn way(&self, node: NodeId, dst: Ipv4Addr, protocol: u8, dst_port: u16) -> Way {
        let owner = self.dst_owner(dst);
        let n = &self.nodes[node.0 as usize];
        let out = if owner.is_some_and(|o| o.node == node) {
            Out::Local
        } else if let Some(ch) = n.uplink {
            // `route_to`'s answer for a single-homed host.
            Out::Channel(ch)
        } else {
            match self.route_to(node, owner) {
                Some(iface) => Out::Channel(self.ifaces[iface.0 as usize].tx),
                None => Out::NoRoute,
            }
        };
        let agent = owner.and_then(|o| {
            let d = &self.nodes[o.node.0 as usize];
            if d.pcap.is_some() {
                return None;
            }
            d.ports.get(&(protocol, dst_port)).copied().or(d.catch_all)
        });
        Way {
            dst,
            protocol,
            dst_port,
            owner,
            out,
            agent,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LinkParams;
    use rexmit_time::{Duration, Rate};

    fn params() -> LinkParams {
        LinkParams::new(Rate::from_mbps(10), Duration::from_millis(1))
    }

    /// H — R — M, M multihomed (two links to R): the ways agree with the tables for every
    /// kind of destination.
    #[test]
    fn a_way_is_what_the_tables_say_hop_by_hop() {
        let mut net = Network::new(rexmit_engine::StreamFactory::new(1));
        let h = net.add_node("H", false).unwrap();
        let r = net.add_node("R", true).unwrap();
        let m = net.add_node("M", false).unwrap();
        let (h_up, _) = net.add_link(h, r, params(), params(), None).unwrap();
        let (m_up1, _) = net.add_link(m, r, params(), params(), None).unwrap();
        let (m_up2, _) = net.add_link(m, r, params(), params(), None).unwrap();
        net.compute_routes();
        net.nodes[m.0 as usize].ports.insert((6, 80), AgentId(7));
        net.nodes[h.0 as usize].catch_all = Some(AgentId(3));
        let (h_addrs, m_addrs) = (net.addrs(h), net.addrs(m));
        let addr = |n: NodeId, k: usize| if n == h { h_addrs[k] } else { m_addrs[k] };

        // A single-homed host: its uplink, whatever the destination; M's agent on port 80.
        let w = net.way(h, addr(m, 1), 6, 80);
        assert_eq!(w.out, Out::Channel(h_up));
        assert_eq!(w.owner, net.dst_owner(addr(m, 1)));
        assert_eq!(w.agent, Some(AgentId(7)));
        // No binding on that port: no agent (at_node counts `no_listener`).
        assert_eq!(net.way(h, addr(m, 0), 6, 81).agent, None);
        // A multihomed host routes each of H's addresses by its table (the first link, as the
        // tie goes to the lowest interface), and H's catch-all agent takes any port.
        let w = net.way(m, addr(h, 0), 17, 9);
        let via = net.route(m, addr(h, 0)).unwrap();
        assert_eq!(w.out, Out::Channel(net.ifaces[via.0 as usize].tx));
        assert!(w.out == Out::Channel(m_up1) || w.out == Out::Channel(m_up2));
        assert_eq!(w.agent, Some(AgentId(3)));
        // To its own address: local; to no one's address: no route and no owner.
        assert_eq!(net.way(m, addr(m, 1), 6, 80).out, Out::Local);
        let nowhere = net.way(r, Ipv4Addr::new(192, 0, 2, 1), 6, 80);
        assert_eq!(
            (nowhere.out, nowhere.owner, nowhere.agent),
            (Out::NoRoute, None, None)
        );
        // A captured destination node looks its agent up itself (it writes the packet first).
        net.nodes[m.0 as usize].pcap = Some(0);
        assert_eq!(net.way(h, addr(m, 1), 6, 80).agent, None);
    }
}
