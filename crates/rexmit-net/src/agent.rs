//! The interface between the network and whatever runs on a node: UDP applications now, TCP and
//! SCTP endpoints (sans-IO cores behind small adapters) later.

use crate::ids::NodeId;
use crate::packet::Packet;
use rexmit_time::Time;
use rexmit_wire::IpPacket;
use std::net::Ipv4Addr;

/// What an agent asks the simulation to do.
pub(crate) enum Action {
    Send(IpPacket),
    Timer(Time, u64),
}

/// An agent's view of the simulation during one callback.
pub struct Ctx<'a> {
    pub now: Time,
    pub node: NodeId,
    /// The addresses of the agent's node (multihomed nodes have several).
    pub addrs: &'a [Ipv4Addr],
    pub(crate) actions: &'a mut Vec<Action>,
}

impl Ctx<'_> {
    /// Hand a packet to the node's IP layer.
    pub fn send(&mut self, pkt: IpPacket) {
        self.actions.push(Action::Send(pkt));
    }
    /// Ask for `on_timer(token)` at `at` (≥ now). Timers cannot be cancelled: an agent ignores
    /// tokens it no longer expects.
    pub fn set_timer(&mut self, at: Time, token: u64) {
        self.actions.push(Action::Timer(at.max(self.now), token));
    }
}

/// A named metric value reported by an agent at the end of a run.
pub type Metrics = Vec<(String, f64)>;

pub trait Agent {
    /// Called once at the agent's start time.
    fn start(&mut self, ctx: &mut Ctx<'_>);
    /// A packet for this agent. Borrowed: the network recycles the packet's memory afterwards
    /// (no allocation per packet); an agent that keeps something copies it out.
    fn on_packet(&mut self, ctx: &mut Ctx<'_>, pkt: &mut Packet);
    fn on_timer(&mut self, ctx: &mut Ctx<'_>, token: u64);
    /// The flow's metrics, computed at `now` (the end of the run).
    fn metrics(&self, now: Time) -> Metrics;
    /// A named instantaneous value for time series (e.g. "rx_bytes"); `None` if unknown.
    fn probe(&self, name: &str) -> Option<f64>;
    /// Names accepted by `probe`, for validating scenario files.
    fn probe_names(&self) -> &'static [&'static str];
}
