//! The scenario schema: the one definition of what a scenario file (TOML) or a Python
//! `rexmit.Scenario` (JSON across the boundary) may contain. Unknown keys are errors.

use crate::units::DurationStr;
use serde::{Deserialize, Serialize};

pub use crate::apps::{
    AppCfg, AppKind, AppTraffic, BurstCfg, HttpCfg, MessageSourceCfg, SctpBulkCfg, SctpMessagesCfg,
    TcpBulkCfg, TcpMessagesCfg, Transport, UdpCbrCfg, UdpOnoffCfg, UdpRandomCfg,
};
pub use crate::kinds::{
    BurstSizeCfg, Direction, DistCfg, DistKind, DistSpec, ErrorModelCfg, ErrorModelKind,
    ErrorModelSpec, FlowMatchCfg, PeriodCfg, PeriodKind, PeriodSpec, ScriptedEntry,
    ScriptedValueCfg, SeriesCfg, SeriesKind, SeriesSpec,
};
pub use crate::topology::{
    DumbbellCfg, HostLinkCfg, LinkCfg, LinkProps, LinkRole, MultihomedCfg, QueueCfg, RedCfg,
    ReorderCfg, Side, Topology, TopologyKind, TopologySpec,
};

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Free text, copied to the results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Seed of every random stream in the run.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Simulated time at which the run ends.
    pub stop_time: DurationStr,
    /// Order of events due at the same nanosecond: "random" (default; a seeded order, so that
    /// no flow wins every tie at a queue) or "fifo" (scheduling order, as ns-3).
    #[serde(default)]
    pub event_ties: EventTies,
    #[serde(default)]
    pub limits: Limits,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topology: Option<Topology>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<NodeCfg>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<LinkCfg>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub apps: Vec<AppCfg>,
    #[serde(default)]
    pub metrics: MetricsCfg,
    /// Hosts run by the Linux kernel under `rexmit emulate`; `rexmit run` ignores this table and
    /// simulates every host (the same scenario run both ways is the Linux comparison).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub emulation: Option<EmulationCfg>,
}

/// `[emulation]`: which hosts are real, and the timing bound of the emulator.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct EmulationCfg {
    /// Hosts that get a network namespace and a TUN device each; their `tcp_bulk` apps (and
    /// `tcp_messages` apps of fixed interarrival and size) run over kernel sockets. An app must
    /// have both ends real or both simulated.
    pub real_hosts: Vec<String>,
    /// Sample each real sender's TCP_INFO this often into `emulation.json` (default: only at
    /// the stop time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp_info_interval: Option<DurationStr>,
    /// A run whose event lateness (wall-clock time an event ran minus its scheduled time) has a
    /// 99th percentile above this is marked partial (default 1 ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_lateness: Option<DurationStr>,
}

fn default_seed() -> u64 {
    1
}

/// How same-instant events are ordered (see `Scenario::event_ties`).
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum EventTies {
    #[default]
    Random,
    Fifo,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Stop with an error after this many events.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_events: Option<u64>,
    /// Stop with an error after this much wall-clock time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_wall_time: Option<DurationStr>,
    /// Stop with an error once the simulator's resident memory exceeds this (e.g. "2GiB");
    /// default three quarters of the machine's memory (`MemTotal`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_memory: Option<crate::units::Bytes>,
    /// Refuse to start a run whose links could carry more packet transmissions than this over
    /// `stop_time` (at full rate, 1500-byte packets); default 1e11 (hours of wall time). Not
    /// checked when `max_wall_time` or `max_events` bounds the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_work: Option<f64>,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct NodeCfg {
    pub name: String,
    /// Whether the node forwards packets not addressed to it (routers). Default: true for
    /// nodes with more than one link.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forward: Option<bool>,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PcapCfg {
    /// A link direction, named "A->B".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MetricsCfg {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub timeseries: Vec<SeriesCfg>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pcap: Vec<PcapCfg>,
    /// Per-flow event records for `rexmit plot` (opt-in: untraced flows cost nothing).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trace: Vec<TraceCfg>,
}

/// `[[metrics.trace]]`: record one TCP or SCTP flow's sent segments or chunks, the
/// acknowledgements it received and its state changes (see `rexmit_endpoints::trace`).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TraceCfg {
    /// The app's name.
    pub flow: String,
    /// Record from this time (default: the start of the run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<DurationStr>,
    /// Record until this time (default: the end of the run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<DurationStr>,
}
