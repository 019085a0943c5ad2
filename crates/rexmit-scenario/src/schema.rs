//! The scenario schema: the one definition of what a scenario file (TOML) or a Python
//! `rexmit.Scenario` (JSON across the boundary) may contain. Unknown keys are errors.

use crate::units::{Bytes, DurationStr, RateStr};
use serde::{Deserialize, Serialize};

pub use crate::kinds::{
    DistCfg, DistKind, DistSpec, ErrorModelCfg, ErrorModelKind, ErrorModelSpec, PeriodCfg,
    PeriodKind, PeriodSpec, SeriesCfg, SeriesKind, SeriesSpec, Topology, TopologyKind,
    TopologySpec,
};
pub use crate::traffic::BurstCfg;

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
    /// Stop with an error once the simulator's resident memory exceeds this (e.g. "2GiB").
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

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    #[default]
    Both,
    /// From the link's first node to its second.
    Forward,
    Reverse,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct QueueCfg {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packets: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<Bytes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub red: Option<RedCfg>,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RedCfg {
    pub min_th: f64,
    pub max_th: f64,
    #[serde(default = "default_max_p")]
    pub max_p: f64,
    #[serde(default = "default_weight")]
    pub weight: f64,
    #[serde(default = "default_true")]
    pub gentle: bool,
    /// Packet size (bytes) for the idle-time decay of the average (ns-2/ns-3 default: 500).
    #[serde(default = "default_mean_packet_size")]
    pub mean_packet_size: u32,
}

fn default_mean_packet_size() -> u32 {
    500
}

fn default_max_p() -> f64 {
    0.1
}
fn default_weight() -> f64 {
    0.002
}
fn default_true() -> bool {
    true
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ScriptedValueCfg {
    pub value: u64,
    #[serde(default = "one")]
    pub times: u32,
}
fn one() -> u32 {
    1
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(untagged)]
pub enum ScriptedEntry {
    Plain(u64),
    Times(ScriptedValueCfg),
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FlowMatchCfg {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub src: Option<std::net::Ipv4Addr>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dst: Option<std::net::Ipv4Addr>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub src_port: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dst_port: Option<u16>,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(untagged)]
pub enum BurstSizeCfg {
    Fixed(u32),
    Uniform { min: u32, max: u32 },
    Geometric { mean: f64 },
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ReorderCfg {
    pub probability: f64,
    pub mean_delay: DurationStr,
    #[serde(default)]
    pub direction: Direction,
}

/// A link: its rate, delay, queue, error models and reordering (both directions unless a model
/// says otherwise). The same table serves every place a link appears; which naming field it
/// takes depends on the place (checked by validation): `between` in `[[links]]` ("forward" is
/// from `between[0]` to `between[1]`), `name` for a host on a dumbbell side (the host's name;
/// forward = host to router), neither for bottlenecks, chain links and multihomed access links.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LinkProps {
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "two_nodes"
    )]
    pub between: Option<[String; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub rate: RateStr,
    pub delay: DurationStr,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<QueueCfg>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<ErrorModelCfg>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reorder: Option<ReorderCfg>,
}

/// An entry of `[[links]]` (needs `between`).
pub type LinkCfg = LinkProps;
/// A host on a dumbbell side (needs `name`).
pub type HostLinkCfg = LinkProps;

/// Which naming field a link table needs where it appears.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkRole {
    Between,
    Host,
    Plain,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DumbbellCfg {
    #[serde(default = "r1")]
    pub left_router: String,
    #[serde(default = "r2")]
    pub right_router: String,
    pub bottleneck: LinkProps,
    #[serde(default)]
    pub left: Vec<HostLinkCfg>,
    #[serde(default)]
    pub right: Vec<HostLinkCfg>,
}
pub(crate) fn r1() -> String {
    "R1".into()
}
pub(crate) fn r2() -> String {
    "R2".into()
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    Left,
    Right,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MultihomedCfg {
    pub name: String,
    pub side: Side,
    /// Access links to path 1 and path 2.
    pub links: [LinkProps; 2],
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

/// `between = ["A", "B"]`: exactly two node names (a fixed-size array would drop a third one
/// silently).
fn two_nodes<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<Option<[String; 2]>, D::Error> {
    let v: Vec<String> = Deserialize::deserialize(d)?;
    let n = v.len();
    <[String; 2]>::try_from(v)
        .map(Some)
        .map_err(|_| serde::de::Error::custom(format!("a link joins exactly 2 nodes, got {n}")))
}
