//! The simulation: a built `Network`, the agents on its nodes, the scheduler, and the event
//! handlers that move packets through channels and nodes.

use crate::agent::{Action, Agent, Ctx, Metrics};
use crate::channel::{Offer, TxOutcome};
use crate::network::{AgentId, ChannelId, IfaceId, Network, NodeId};
use crate::packet::Packet;
use crate::pcap_tap::PcapTaps;
use crate::series::{Series, SeriesSource};
use crate::way::{Out, Way};
use crate::witness::{Kind, Witness};
use rexmit_engine::{Pacer, Progress, RunError, RunLimits, RunOutcome, Scheduler, TieOrder};
use rexmit_time::{Duration, Time};
use rexmit_wire::IpPacket;
use std::net::Ipv4Addr;

/// Events of the network model.
pub enum Event {
    /// A channel finished serializing a packet.
    TxDone(ChannelId),
    /// The head of a channel's delay line reached the far end.
    Arrive(ChannelId),
    /// A packet of a reordering channel reached the far end (its own event: not FIFO).
    ArriveReordered(ChannelId, Box<Packet>),
    /// A packet an agent sent to an address of its own node.
    Local(NodeId, Box<Packet>),
    Timer(AgentId, u64),
    /// A packet from outside the simulation (a real host's, in emulation) leaves `NodeId` as
    /// if one of its agents had sent it.
    External(NodeId, Box<IpPacket>),
    Start(AgentId),
    Sample(u32),
}

/// Layout (hot path): one cache line per agent, with what a packet to or from it reads: the
/// agent, its node and that node's addresses, and the way its last packet went (`way.rs`).
/// The name is cold and lives in `World::agent_names`.
#[repr(C, align(64))]
struct AgentSlot {
    agent: Box<dyn Agent>,
    node: NodeId,
    /// `World::node_addr_span[node]`, copied here (`Ctx::addrs` at every call).
    addr_span: (u32, u32),
    /// The way of the agent's last packet; `None` until it sends one (not used again after
    /// `Simulation::tables_changed`).
    way: Option<Way>,
}

/// Everything the event handlers touch (kept apart from the scheduler so both can be borrowed).
pub struct World {
    pub net: Network,
    agents: Vec<AgentSlot>,
    agent_names: Vec<String>,
    /// Whether cached ways may be used (`way.rs`): true unless a set-up call changed bindings
    /// or captures after the run had begun (`Simulation::tables_changed`).
    ways_on: bool,
    /// Every node's addresses in one vector, node after node, and where each node's addresses
    /// start and end (`Ctx::addrs` at every agent call: two dense arrays, not a vector per node).
    node_addrs: Vec<Ipv4Addr>,
    node_addr_span: Vec<(u32, u32)>,
    actions: Vec<Action>,
    /// Boxes of delivered packets, reused by `originate` (see `recycle`): the boxes themselves
    /// are the point, since packets move through the network as pointers.
    #[allow(clippy::vec_box)]
    packet_pool: Vec<Box<Packet>>,
    next_uid: u64,
    pub(crate) series: Vec<Series>,
    pcaps: PcapTaps,
    /// The event-order witness, when one is being written (`Simulation::set_witness`).
    witness: Option<Box<Witness>>,
}

pub struct Simulation {
    sched: Scheduler<Event>,
    pub world: World,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SetupError {
    PortInUse {
        node: String,
        protocol: u8,
        port: u16,
    },
    UnknownProbe {
        series: String,
        probe: String,
        allowed: Vec<String>,
    },
    Pcap(String),
}

impl std::fmt::Display for SetupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SetupError::PortInUse {
                node,
                protocol,
                port,
            } => {
                write!(
                    f,
                    "node {node:?}: protocol {protocol} port {port} is bound twice"
                )
            }
            SetupError::UnknownProbe {
                series,
                probe,
                allowed,
            } => {
                write!(
                    f,
                    "time series {series:?}: unknown value {probe:?} (allowed: {})",
                    allowed.join(", ")
                )
            }
            SetupError::Pcap(e) => write!(f, "pcap: {e}"),
        }
    }
}
impl std::error::Error for SetupError {}

impl Simulation {
    /// Take a built network; routes are computed here.
    pub fn new(mut net: Network) -> Self {
        net.compute_routes();
        let mut node_addrs = Vec::new();
        let mut node_addr_span = Vec::with_capacity(net.nodes.len());
        for i in 0..net.nodes.len() {
            let start = node_addrs.len() as u32;
            node_addrs.extend(net.addrs(NodeId(i as u32)));
            node_addr_span.push((start, node_addrs.len() as u32));
        }
        Simulation {
            sched: Scheduler::new(),
            world: World {
                net,
                agents: Vec::new(),
                agent_names: Vec::new(),
                ways_on: true,
                node_addrs,
                node_addr_span,
                actions: Vec::new(),
                packet_pool: Vec::new(),
                next_uid: 0,
                series: Vec::new(),
                pcaps: PcapTaps::default(),
                witness: None,
            },
        }
    }

    /// How events at the same nanosecond are ordered (set before adding agents).
    pub fn set_tie_order(&mut self, ties: TieOrder) {
        self.sched.set_tie_order(ties);
    }

    pub fn net(&self) -> &Network {
        &self.world.net
    }

    pub fn now(&self) -> Time {
        self.sched.now()
    }

    /// Place an agent on `node`, listening on `bind` = (protocol, port) if given, started at `start`.
    pub fn add_agent(
        &mut self,
        name: &str,
        node: NodeId,
        bind: Option<(u8, u16)>,
        start: Time,
        agent: Box<dyn Agent>,
    ) -> Result<AgentId, SetupError> {
        let id = AgentId(self.world.agents.len() as u32);
        if let Some(key) = bind {
            let n = &mut self.world.net.nodes[node.0 as usize];
            if n.ports.contains_key(&key) {
                return Err(SetupError::PortInUse {
                    node: n.name.clone(),
                    protocol: key.0,
                    port: key.1,
                });
            }
            n.ports.insert(key, id);
        }
        self.tables_changed();
        self.world.agents.push(AgentSlot {
            node,
            addr_span: self.world.node_addr_span[node.0 as usize],
            agent,
            way: None,
        });
        self.world.agent_names.push(name.to_string());
        self.sched.schedule_first(start, Event::Start(id));
        Ok(id)
    }

    /// Place an agent that receives every packet for `node` that no port binding claims (all of
    /// a real host's traffic in emulation). One per node.
    pub fn add_catch_all_agent(
        &mut self,
        name: &str,
        node: NodeId,
        start: Time,
        agent: Box<dyn Agent>,
    ) -> Result<AgentId, SetupError> {
        let n = &self.world.net.nodes[node.0 as usize];
        if n.catch_all.is_some() {
            return Err(SetupError::PortInUse {
                node: n.name.clone(),
                protocol: 0,
                port: 0,
            });
        }
        let id = self.add_agent(name, node, None, start, agent)?;
        self.world.net.nodes[node.0 as usize].catch_all = Some(id);
        self.tables_changed();
        Ok(id)
    }

    /// The event a paced run's pacer injects for a packet from outside that leaves `node`.
    pub fn external_packet(node: NodeId, ip: IpPacket) -> Event {
        Event::External(node, Box::new(ip))
    }

    pub fn agent(&self, id: AgentId) -> &dyn Agent {
        self.world.agents[id.0 as usize].agent.as_ref()
    }

    /// Record `source` every `interval` from `start`.
    pub fn add_series(
        &mut self,
        name: &str,
        source: SeriesSource,
        interval: Duration,
        start: Time,
    ) -> Result<(), SetupError> {
        if let SeriesSource::AgentProbe(a, probe) = &source {
            let agent = &self.world.agents[a.0 as usize].agent;
            if !agent.probe_names().contains(&probe.as_str()) {
                return Err(SetupError::UnknownProbe {
                    series: name.to_string(),
                    probe: probe.clone(),
                    allowed: agent.probe_names().iter().map(|s| s.to_string()).collect(),
                });
            }
        }
        let idx = self.world.series.len() as u32;
        self.world.series.push(Series::new(name, source, interval));
        self.sched.schedule_sample(start, Event::Sample(idx));
        Ok(())
    }

    /// Write every packet a channel transmits (including ones its error model then corrupts).
    pub fn pcap_channel(
        &mut self,
        ch: ChannelId,
        path: &std::path::Path,
    ) -> Result<(), SetupError> {
        let idx = self
            .world
            .pcaps
            .open(path)
            .map_err(|e| SetupError::Pcap(format!("{}: {e}", path.display())))?;
        let c = &mut self.world.net.channels[ch.0 as usize];
        c.pcap = Some(idx);
        c.set_captured();
        Ok(())
    }

    /// Write the event-order witness of this run to `path` (`witness.rs`).
    pub fn set_witness(&mut self, path: &std::path::Path) -> std::io::Result<()> {
        self.world.witness = Some(Box::new(Witness::create(path)?));
        Ok(())
    }

    /// Flush the witness: (records, digest), or the first write error; None without one.
    pub fn finish_witness(&mut self) -> Option<std::io::Result<(u64, u64)>> {
        self.world.witness.as_mut().map(|w| w.finish())
    }

    /// Port bindings or captures changed. Before the first event no packet exists, so no way
    /// was resolved; after it, the ways in agents' slots and in packets on their way may be
    /// stale, so none is used again (each packet then looks its way up as it goes).
    fn tables_changed(&mut self) {
        if self.sched.processed() > 0 {
            self.world.ways_on = false;
        }
    }

    /// Write every packet a node sends or receives.
    pub fn pcap_node(&mut self, node: NodeId, path: &std::path::Path) -> Result<(), SetupError> {
        let idx = self
            .world
            .pcaps
            .open(path)
            .map_err(|e| SetupError::Pcap(format!("{}: {e}", path.display())))?;
        self.tables_changed();
        let net = &mut self.world.net;
        net.nodes[node.0 as usize].pcap = Some(idx);
        // The node's packets are captured as they start on its channels (`start_tx`).
        for &i in &net.nodes[node.0 as usize].ifaces {
            net.channels[net.ifaces[i.0 as usize].tx.0 as usize].set_captured();
        }
        Ok(())
    }

    pub fn run(
        &mut self,
        limits: &RunLimits,
        progress: impl FnMut(Progress) -> bool,
    ) -> Result<RunOutcome, RunError> {
        let world = &mut self.world;
        let stop = limits.stop_time;
        let r = self
            .sched
            .run(limits, |s, t, e| world.handle(s, t, e, stop), progress);
        self.finish();
        r
    }

    /// Run against an outside clock (emulation): see `Scheduler::run_paced`.
    pub fn run_paced(
        &mut self,
        limits: &RunLimits,
        pacer: &mut dyn Pacer<Event>,
        progress: impl FnMut(Progress) -> bool,
    ) -> Result<RunOutcome, RunError> {
        let world = &mut self.world;
        let stop = limits.stop_time;
        let r = self.sched.run_paced(
            limits,
            pacer,
            |s, t, e| world.handle(s, t, e, stop),
            progress,
        );
        self.finish();
        r
    }

    fn finish(&mut self) {
        let now = self.sched.now();
        for ch in &mut self.world.net.channels {
            ch.finish(now);
        }
        self.world.pcaps.flush();
    }

    /// Per-agent metrics at the current time.
    pub fn agent_metrics(&self) -> Vec<(String, String, Metrics)> {
        let now = self.sched.now();
        self.world
            .agents
            .iter()
            .zip(&self.world.agent_names)
            .map(|(a, name)| {
                (
                    name.clone(),
                    self.world.net.node(a.node).name.clone(),
                    a.agent.metrics(now),
                )
            })
            .collect()
    }

    pub fn series(&self) -> &[Series] {
        &self.world.series
    }

    /// Move the recorded series out (the results take them without a copy: a run stopped by
    /// its memory guard must not double its largest structure while collecting).
    pub fn take_series(&mut self) -> Vec<Series> {
        std::mem::take(&mut self.world.series)
    }

    pub fn events_processed(&self) -> u64 {
        self.sched.processed()
    }

    pub fn pcap_errors(&self) -> u64 {
        self.world.pcaps.encode_errors
    }
}

impl World {
    fn handle(&mut self, s: &mut Scheduler<Event>, now: Time, e: Event, stop: Time) {
        match e {
            Event::TxDone(ch) => {
                if let Some(p) = self.net.channels[ch.0 as usize].next_to_send(now) {
                    self.start_tx(s, now, ch, p);
                }
            }
            Event::Arrive(ch) => {
                let c = &mut self.net.channels[ch.0 as usize];
                let (pkt, next) = c.land();
                if let Some((at, seq)) = next {
                    s.schedule_reserved(at, seq, Event::Arrive(ch));
                }
                let (node, iface) = (c.to_node, c.to_iface);
                self.at_node(s, now, node, Some(iface), pkt);
            }
            Event::ArriveReordered(ch, pkt) => {
                let c = &mut self.net.channels[ch.0 as usize];
                c.land_reordered(&pkt);
                let (node, iface) = (c.to_node, c.to_iface);
                self.at_node(s, now, node, Some(iface), pkt);
            }
            Event::Local(node, pkt) => self.at_node(s, now, node, None, pkt),
            Event::Timer(a, token) => {
                self.witness(now, Kind::Timer, a.0, token);
                self.with_agent(s, now, a, |ag, ctx| ag.on_timer(ctx, token))
            }
            Event::External(node, ip) => {
                self.witness(now, Kind::External, node.0, 0);
                self.originate(s, now, node, None, *ip)
            }
            Event::Start(a) => {
                self.witness(now, Kind::Start, a.0, 0);
                self.with_agent(s, now, a, |ag, ctx| ag.start(ctx))
            }
            Event::Sample(i) => {
                self.witness(now, Kind::Sample, i, 0);
                let series = &mut self.series[i as usize];
                let v = match &series.source {
                    SeriesSource::QueuePackets(ch) => {
                        self.net.channels[ch.0 as usize].queue_packets() as f64
                    }
                    SeriesSource::QueueBytes(ch) => {
                        self.net.channels[ch.0 as usize].queue_bytes() as f64
                    }
                    SeriesSource::Drops(ch) => {
                        let st = &self.net.channels[ch.0 as usize].stats();
                        (st.drop_overflow + st.drop_early + st.drop_error) as f64
                    }
                    SeriesSource::AgentProbe(a, name) => self.agents[a.0 as usize]
                        .agent
                        .probe(name)
                        .unwrap_or(f64::NAN),
                };
                series.push(now, v);
                let next = now + series.interval;
                if next <= stop {
                    s.schedule_sample(next, Event::Sample(i));
                }
            }
        }
    }

    /// One witness record, when a witness is being written.
    #[inline(always)]
    fn witness(&mut self, now: Time, kind: Kind, target: u32, item: u64) {
        if let Some(w) = self.witness.as_deref_mut() {
            w.record(now, kind, target, item);
        }
    }

    fn with_agent(
        &mut self,
        s: &mut Scheduler<Event>,
        now: Time,
        a: AgentId,
        f: impl FnOnce(&mut dyn Agent, &mut Ctx<'_>),
    ) {
        let slot = &mut self.agents[a.0 as usize];
        let node = slot.node;
        let (start, end) = slot.addr_span;
        let mut ctx = Ctx {
            now,
            node,
            addrs: &self.node_addrs[start as usize..end as usize],
            actions: &mut self.actions,
        };
        f(slot.agent.as_mut(), &mut ctx);
        let mut actions = std::mem::take(&mut self.actions);
        for act in actions.drain(..) {
            match act {
                Action::Timer(at, token) => s.schedule(at, Event::Timer(a, token)),
                Action::Send(ip) => self.originate(s, now, node, Some(a), ip),
            }
        }
        self.actions = actions;
    }

    /// A packet leaves an agent on `node` (`from`; `None`: a packet from outside).
    fn originate(
        &mut self,
        s: &mut Scheduler<Event>,
        now: Time,
        node: NodeId,
        from: Option<AgentId>,
        ip: IpPacket,
    ) {
        let (dst, protocol, dst_port) = (
            ip.header.dst,
            ip.transport.protocol(),
            ip.transport.dst_port(),
        );
        let way = match from {
            Some(a) if self.ways_on => self.cached_way(a, node, dst, protocol, dst_port),
            _ => self.net.way(node, dst, protocol, dst_port),
        };
        // Boxed once here: the network then moves a pointer, not the packet, at every step.
        let fresh = Packet {
            uid: self.next_uid,
            created: now,
            size: ip.wire_len() as u32,
            enqueued: now,
            dst_owner: way.owner,
            dst_agent: way.agent.filter(|_| self.ways_on),
            ip,
        };
        let pkt = match self.packet_pool.pop() {
            Some(mut b) => {
                *b = fresh;
                b
            }
            None => Box::new(fresh),
        };
        self.next_uid += 1;
        match way.out {
            // Ahead of other same-instant events and in order among themselves.
            Out::Local => s.schedule_first(now, Event::Local(node, pkt)),
            Out::Channel(ch) => self.offer(s, now, ch, pkt),
            Out::NoRoute => self.net.nodes[node.0 as usize].stats.no_route += 1,
        }
    }

    /// The way of agent `a`'s packet (`way.rs`): its last packet's, when that went to the same
    /// address, protocol and port (a flow's packets do), else the tables' answer, kept.
    #[inline(always)]
    fn cached_way(
        &mut self,
        a: AgentId,
        node: NodeId,
        dst: Ipv4Addr,
        protocol: u8,
        dst_port: u16,
    ) -> Way {
        let slot = &mut self.agents[a.0 as usize];
        match slot.way {
            Some(w) if w.is_for(dst, protocol, dst_port) => w,
            _ => {
                let w = self.net.way(node, dst, protocol, dst_port);
                slot.way = Some(w);
                w
            }
        }
    }

    fn at_node(
        &mut self,
        s: &mut Scheduler<Event>,
        now: Time,
        node: NodeId,
        _from: Option<IfaceId>,
        mut pkt: Box<Packet>,
    ) {
        self.witness(now, Kind::AtNode, node.0, pkt.uid);
        let here = pkt.dst_owner.is_some_and(|o| o.node == node);
        let agent = match pkt.dst_agent {
            // Named by the sender's way (`way.rs`): this node has no capture and binds it, so
            // neither is read here (with 10 000 flows, cache misses on a cold node).
            Some(a) if here && self.ways_on => Some(a),
            _ => {
                let n = &self.net.nodes[node.0 as usize];
                if let Some(tap) = n.pcap {
                    self.pcaps.write(tap, now, &pkt.ip);
                }
                if !here {
                    return self.pass_on(s, now, node, pkt);
                }
                let key = (pkt.protocol(), pkt.dst_port());
                n.ports.get(&key).copied().or(n.catch_all)
            }
        };
        match agent {
            Some(a) => self.with_agent(s, now, a, |ag, ctx| ag.on_packet(ctx, &mut pkt)),
            None => self.net.nodes[node.0 as usize].stats.no_listener += 1,
        }
        self.recycle(pkt);
    }

    /// A packet at `node` for another node's address: routers forward it, hosts drop it.
    fn pass_on(&mut self, s: &mut Scheduler<Event>, now: Time, node: NodeId, mut pkt: Box<Packet>) {
        let n = &mut self.net.nodes[node.0 as usize];
        if !n.forwarding {
            n.stats.not_for_us += 1;
            return;
        }
        // RFC 791: TTL is decremented by each router; a packet whose TTL reaches 0 is discarded.
        if pkt.ip.header.ttl <= 1 {
            n.stats.ttl_expired += 1;
            return;
        }
        pkt.ip.header.ttl -= 1;
        match self.net.route_to(node, pkt.dst_owner) {
            Some(iface) => self.forward(s, now, iface, pkt),
            None => self.net.nodes[node.0 as usize].stats.no_route += 1,
        }
    }

    /// Keep a packet's box for the next `originate`. Hot path: one allocation and one free
    /// per packet were ≈ 5% of the loop's instructions, and a recently freed box is still in
    /// the cache. The pool is bounded; what it holds is overwritten whole before reuse.
    fn recycle(&mut self, pkt: Box<Packet>) {
        const POOL_MAX: usize = 1024;
        if self.packet_pool.len() < POOL_MAX {
            self.packet_pool.push(pkt);
        }
    }

    fn forward(&mut self, s: &mut Scheduler<Event>, now: Time, iface: IfaceId, pkt: Box<Packet>) {
        let ch = self.net.ifaces[iface.0 as usize].tx;
        self.offer(s, now, ch, pkt);
    }

    /// Hand a packet to channel `ch`.
    #[inline(always)]
    fn offer(&mut self, s: &mut Scheduler<Event>, now: Time, ch: ChannelId, pkt: Box<Packet>) {
        let uid = pkt.uid;
        match self.net.channels[ch.0 as usize].offer(now, pkt) {
            Offer::StartNow(p) => {
                self.witness(now, Kind::OfferSent, ch.0, uid);
                self.start_tx(s, now, ch, p)
            }
            Offer::Queued { tx_done_at } => {
                self.witness(now, Kind::OfferQueued, ch.0, uid);
                if let Some(t) = tx_done_at {
                    s.schedule(t, Event::TxDone(ch));
                }
            }
            Offer::Dropped(_) => self.witness(now, Kind::OfferDropped, ch.0, uid),
        }
    }

    fn start_tx(&mut self, s: &mut Scheduler<Event>, now: Time, ch: ChannelId, pkt: Box<Packet>) {
        let (done, outcome) = self.net.channels[ch.0 as usize].start_tx(now, &pkt);
        let kind = match outcome {
            TxOutcome::Deliver { .. } => Kind::TxDeliver,
            _ => Kind::TxLost,
        };
        self.witness(now, kind, ch.0, pkt.uid);
        let c = &mut self.net.channels[ch.0 as usize];
        if c.captured() {
            if let Some(tap) = c.pcap {
                self.pcaps.write(tap, now, &pkt.ip);
            }
            let from_node = self.net.ifaces[c.from_iface.0 as usize].node;
            if let Some(tap) = self.net.nodes[from_node.0 as usize].pcap {
                self.pcaps.write(tap, now, &pkt.ip);
            }
        }
        // The line frees itself at `done`; an event is needed only to serve a waiting packet.
        if c.has_waiting() {
            s.schedule(done, Event::TxDone(ch));
        }
        if let TxOutcome::Deliver { arrival } = outcome {
            if c.is_fifo() {
                let seq = s.reserve_seq();
                if c.launch(arrival, seq, pkt) {
                    s.schedule_reserved(arrival, seq, Event::Arrive(ch));
                }
            } else {
                c.launch_reordered(&pkt);
                s.schedule(arrival, Event::ArriveReordered(ch, pkt));
            }
        } else {
            self.recycle(pkt);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a packet to or from an agent reads of its slot is one cache line (see `AgentSlot`).
    #[test]
    fn an_agents_slot_is_one_line() {
        assert_eq!(std::mem::align_of::<AgentSlot>(), 64);
        assert_eq!(std::mem::size_of::<AgentSlot>(), 64);
    }
}
