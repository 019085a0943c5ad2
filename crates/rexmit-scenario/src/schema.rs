//! The scenario schema: the one definition of what a scenario file (TOML) or a Python
//! `rexmit.Scenario` (JSON across the boundary) may contain. Unknown keys are errors.

use crate::units::{Bytes, DurationStr, RateStr};
use serde::{Deserialize, Serialize};

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
    /// Hosts that get a network namespace and a TUN device each; their `tcp_bulk` apps run over
    /// kernel sockets. An app must have both ends real or both simulated.
    pub real_hosts: Vec<String>,
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

/// `burst = { messages, interval }`: `messages` sent `interval` apart, one burst per
/// interarrival.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BurstCfg {
    pub messages: u32,
    pub interval: DurationStr,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum AppKind {
    /// Constant bit rate over UDP.
    UdpCbr,
    /// On/off source over UDP, sending at `rate` while on.
    UdpOnoff,
    /// A TCP connection whose application keeps the send buffer full (`bytes` in all, or
    /// forever); settings in `tcp = { ... }`.
    TcpBulk,
    /// An SCTP association whose application keeps the send buffer full with messages of
    /// `message_size` bytes (`messages` in all, or forever); settings in `sctp = { ... }`.
    SctpBulk,
    /// An SCTP association carrying messages of random `size` at random `interarrival` (or a
    /// `source` preset: signalling, thin streams of seed 004 Table 1); latency per message by
    /// retransmission count.
    SctpMessages,
    /// The same message source over a TCP connection (a message arrives with its last byte).
    TcpMessages,
    /// Random UDP background (seed 002 §IV): payload `size` and `interarrival` distributions.
    UdpRandom,
    /// HTTP-like cross traffic (seed 004 §6.2): requests at random `interarrival`, each a new
    /// TCP connection on which the server (`from`) sends a response of `response_size` to the
    /// client (`to`) and closes.
    Http,
}

impl AppKind {
    /// The TOML spelling.
    pub fn name(self) -> &'static str {
        match self {
            AppKind::UdpCbr => "udp_cbr",
            AppKind::UdpOnoff => "udp_onoff",
            AppKind::TcpBulk => "tcp_bulk",
            AppKind::SctpBulk => "sctp_bulk",
            AppKind::SctpMessages => "sctp_messages",
            AppKind::TcpMessages => "tcp_messages",
            AppKind::UdpRandom => "udp_random",
            AppKind::Http => "http",
        }
    }

    /// IP protocol number of the app's packets.
    pub fn protocol(self) -> u8 {
        match self {
            AppKind::UdpCbr | AppKind::UdpOnoff | AppKind::UdpRandom => 17,
            AppKind::TcpBulk | AppKind::TcpMessages | AppKind::Http => 6,
            AppKind::SctpBulk | AppKind::SctpMessages => 132,
        }
    }
}

/// An application flow from node `from` to node `to`. Which optional fields are required
/// depends on `kind` (checked by validation, which names the missing or unused field).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AppCfg {
    pub name: String,
    pub kind: AppKind,
    /// Sending node.
    pub from: String,
    /// Receiving node.
    pub to: String,
    /// Which of the receiver's addresses (0 = its first interface's).
    #[serde(default)]
    pub to_addr: usize,
    /// Source and destination port (default: 49152 + index of the app, the dynamic range).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<u16>,
    #[serde(default = "zero_s")]
    pub start: DurationStr,
    /// A random start: each run starts the app at `start` plus a uniform draw in
    /// [0, start_jitter) from its own seeded stream (`app/NAME/start`), so that replications
    /// of a scenario without other randomness differ in phase (`starts.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_jitter: Option<DurationStr>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<DurationStr>,
    /// udp_cbr, udp_onoff: sending rate at the IP layer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<RateStr>,
    /// udp_cbr, udp_onoff: IP packet size in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packet_size: Option<u32>,
    /// udp_cbr: each send time moves uniformly within ± jitter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jitter: Option<DurationStr>,
    /// udp_onoff: on-period and off-period lengths.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on: Option<PeriodCfg>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub off: Option<PeriodCfg>,
    /// tcp_bulk: bytes to send (default: until the run ends).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<Bytes>,
    /// sctp_bulk: bytes per message (default 1452: one full DATA chunk at PMTU 1500).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_size: Option<u32>,
    /// sctp_bulk, sctp_messages, tcp_messages: messages to send (default: until the run ends).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages: Option<u64>,
    /// sctp_bulk, sctp_messages: unordered delivery (default true for sctp_bulk, as in seed
    /// 000; false for sctp_messages).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unordered: Option<bool>,
    /// sctp_bulk, sctp_messages: messages go round-robin over this many streams (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub streams: Option<u16>,
    /// tcp_bulk, sctp_bulk, the message kinds, http: goodput, rtxq and latency statistics count
    /// from this time (default: start).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warmup: Option<DurationStr>,
    /// sctp_messages, tcp_messages: a ready-made source (signalling, game, wow, ssh, rdp, voip,
    /// sensor: seed 002 §IV.A, seed 004 Table 1) whose `interarrival`, `size` and `burst` the
    /// fields below override.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The message kinds, udp_random, http: time between messages, packets or requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interarrival: Option<DistCfg<DurationStr>>,
    /// The message kinds: message bytes; udp_random: UDP payload bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<DistCfg<Bytes>>,
    /// The message kinds: `messages` sent `interval` apart, one burst per interarrival.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst: Option<BurstCfg>,
    /// http: response bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_size: Option<DistCfg<Bytes>>,
    /// http: server ports, hence connections open at once (default 32).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_connections: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp: Option<crate::transport::TcpCfg>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sctp: Option<crate::transport::SctpCfg>,
}
fn zero_s() -> DurationStr {
    DurationStr(rexmit_time::Duration::ZERO)
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
