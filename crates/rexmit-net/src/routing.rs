//! Static shortest-path routing (hop count), computed once after the topology is built.
//!
//! Only routers forward. A host with one interface sends everything out of it (no table). For
//! every other node (routers, multihomed hosts) and every address, the route is the interface
//! on a shortest path to the address's owning interface whose *last hop is the link attached
//! to that interface* — so a packet to a multihomed host's second address takes that address's
//! own path (seed 000 Figure 6: two disjoint paths). Ties go to the lowest interface index.

use crate::network::{IfaceId, Network, NodeId, NO_ROUTE};
use crate::packet::DstOwner;
use crate::ChannelId;
use std::collections::VecDeque;

const UNREACHABLE: u32 = u32::MAX;

impl Network {
    /// The node at the other end of interface `i`'s link.
    fn neighbour(&self, i: IfaceId) -> NodeId {
        self.ifaces[self.ifaces[i.0 as usize].peer.0 as usize].node
    }

    /// Hop distances from every router to every node, walking only through routers.
    fn router_distances(&self) -> Vec<Option<Vec<u32>>> {
        let n = self.nodes.len();
        let mut all = vec![None; n];
        for (src, node) in self.nodes.iter().enumerate() {
            if !node.forwarding {
                continue;
            }
            let mut dist = vec![UNREACHABLE; n];
            dist[src] = 0;
            let mut q = VecDeque::from([src]);
            while let Some(u) = q.pop_front() {
                if u != src && !self.nodes[u].forwarding {
                    continue; // reached a host: it does not pass packets on
                }
                for &i in &self.nodes[u].ifaces {
                    let peer = self.neighbour(i).0 as usize;
                    if dist[peer] == UNREACHABLE {
                        dist[peer] = dist[u] + 1;
                        q.push_back(peer);
                    }
                }
            }
            all[src] = Some(dist);
        }
        all
    }

    /// Fill the routing tables of routers and multihomed hosts.
    pub fn compute_routes(&mut self) {
        let dist = self.router_distances();
        let addrs: Vec<(std::net::Ipv4Addr, IfaceId)> = {
            let mut v: Vec<_> = self.addr_owner.iter().map(|(a, i)| (*a, *i)).collect();
            v.sort();
            v
        };
        let mut tables: Vec<Vec<u32>> = vec![Vec::new(); self.nodes.len()];
        // Only routers and multihomed hosts have tables: O(addresses × those nodes), so a
        // dumbbell of 10 000 single-homed hosts per side costs two tables, not 20 000.
        let with_table: Vec<usize> = (0..self.nodes.len())
            .filter(|&i| self.nodes[i].forwarding || self.nodes[i].ifaces.len() > 1)
            .collect();
        for &ni in &with_table {
            tables[ni] = vec![NO_ROUTE; self.ifaces.len()];
        }
        // For each of them: its interfaces to routers (in interface order) and its first
        // interface to each neighbour. Only those can be a best next hop (a host neighbour
        // other than the gateway carries nothing further), which keeps a router with 10 000
        // hosts from scanning all its interfaces for every address.
        let router_ifaces: Vec<Vec<IfaceId>> = with_table
            .iter()
            .map(|&ni| {
                self.nodes[ni]
                    .ifaces
                    .iter()
                    .copied()
                    .filter(|&i| self.nodes[self.neighbour(i).0 as usize].forwarding)
                    .collect()
            })
            .collect();
        let first_to: Vec<std::collections::HashMap<NodeId, IfaceId>> = with_table
            .iter()
            .map(|&ni| {
                let mut m = std::collections::HashMap::new();
                for &i in &self.nodes[ni].ifaces {
                    m.entry(self.neighbour(i)).or_insert(i);
                }
                m
            })
            .collect();
        for (_, owner_if) in addrs {
            let owner = self.ifaces[owner_if.0 as usize].node;
            let last_hop_if = self.ifaces[owner_if.0 as usize].peer;
            let gateway = self.ifaces[last_hop_if.0 as usize].node;
            for (k, &ni) in with_table.iter().enumerate() {
                let nid = NodeId(ni as u32);
                if nid == owner {
                    continue;
                }
                if nid == gateway {
                    tables[ni][owner_if.0 as usize] = last_hop_if.0;
                    continue;
                }
                // The interface whose neighbour is closest to the gateway, ties to the lowest
                // interface index. A neighbour that is the gateway is at distance 0.
                let best = match first_to[k].get(&gateway) {
                    Some(&i) => Some(i),
                    None => {
                        let mut best: Option<(u32, IfaceId)> = None;
                        for &i in &router_ifaces[k] {
                            let d = match dist.get(self.neighbour(i).0 as usize) {
                                Some(Some(dv)) => dv[gateway.0 as usize],
                                _ => UNREACHABLE,
                            };
                            if d != UNREACHABLE && best.is_none_or(|(bd, _)| d < bd) {
                                best = Some((d, i));
                            }
                        }
                        best.map(|(_, i)| i)
                    }
                };
                if let Some(i) = best {
                    tables[ni][owner_if.0 as usize] = i.0;
                }
            }
        }
        for (node, table) in self.nodes.iter_mut().zip(tables) {
            node.routes = table;
            node.uplink = node.single_iface().map(|i| self.ifaces[i.0 as usize].tx);
        }
    }

    /// The interface `node` sends a packet for `dst` out of, if any.
    #[inline]
    pub fn route(&self, node: NodeId, dst: std::net::Ipv4Addr) -> Option<IfaceId> {
        self.route_to(node, self.dst_owner(dst))
    }

    /// `route` for a destination already resolved to its owner (`Packet::dst_owner`).
    #[inline]
    pub fn route_to(&self, node: NodeId, owner: Option<DstOwner>) -> Option<IfaceId> {
        let n = &self.nodes[node.0 as usize];
        if let Some(only) = n.single_iface() {
            return Some(only);
        }
        match n.routes.get(owner?.iface.0 as usize) {
            Some(&i) if i != NO_ROUTE => Some(IfaceId(i)),
            _ => None,
        }
    }

    /// The channels a packet sent by `node` to `dst` leaves through, in order; `None` if it
    /// would not reach `dst`'s owner (as `reachable`).
    pub fn path(&self, node: NodeId, dst: std::net::Ipv4Addr) -> Option<Vec<ChannelId>> {
        let owner = self.owner_of(dst)?;
        let (mut at, mut hops) = (node, Vec::new());
        for _ in 0..=self.nodes.len() {
            if at == owner {
                return Some(hops);
            }
            if at != node && !self.nodes[at.0 as usize].forwarding {
                return None;
            }
            let i = self.route(at, dst)?;
            hops.push(self.ifaces[i.0 as usize].tx);
            at = self.neighbour(i);
        }
        None
    }

    /// Whether a packet sent by `node` to `dst` would reach `dst`'s owner (walks the tables).
    pub fn reachable(&self, node: NodeId, dst: std::net::Ipv4Addr) -> bool {
        let Some(owner) = self.owner_of(dst) else {
            return false;
        };
        let mut at = node;
        for _ in 0..=self.nodes.len() {
            if at == owner {
                return true;
            }
            if at != node && !self.nodes[at.0 as usize].forwarding {
                return false;
            }
            let Some(i) = self.route(at, dst) else {
                return false;
            };
            at = self.neighbour(i);
        }
        false
    }
}
