//! `[[apps]]`: an application flow is the fields every app has (`AppCfg`) and one typed table
//! per kind (`AppTraffic`), declared once below. The struct of a kind is the list of keys it
//! takes: reading (`table.rs`) refuses any other key by name, and validation and building match
//! on `AppTraffic` instead of checking which optional field goes with which kind.

mod table;

use crate::kinds::{DistCfg, PeriodCfg};
use crate::transport::{SctpCfg, SctpStack, TcpCfg};
use crate::units::{Bytes, DurationStr, RateStr};
use serde::{Deserialize, Serialize};
use table::{app_kinds, kind_table, Slots};

pub(crate) use table::move_key_into_path;

/// An application flow from node `from` to node `to`: the fields every kind has, then the kind
/// with its own fields (`traffic`; written `kind = "..."` and the kind's keys in the same table).
#[derive(Clone, Debug, PartialEq)]
pub struct AppCfg {
    pub name: String,
    /// Sending node.
    pub from: String,
    /// Receiving node.
    pub to: String,
    /// Which of the receiver's addresses (0 = its first interface's).
    pub to_addr: usize,
    /// Source and destination port (default: 49152 + index of the app, the dynamic range).
    pub port: Option<u16>,
    /// Default 0s.
    pub start: DurationStr,
    /// A random start: each run starts the app at `start` plus a uniform draw in
    /// [0, start_jitter) from its own seeded stream (`app/NAME/start`), so that replications
    /// of a scenario without other randomness differ in phase (`starts.rs`).
    pub start_jitter: Option<DurationStr>,
    pub traffic: AppTraffic,
}

app_kinds! {
    /// Constant bit rate over UDP.
    UdpCbr = "udp_cbr" (UdpCbrCfg),
    /// On/off source over UDP, sending at `rate` while on.
    UdpOnoff = "udp_onoff" (UdpOnoffCfg),
    /// A TCP connection whose application keeps the send buffer full (`bytes` in all, or
    /// forever); settings in `tcp = { ... }`.
    TcpBulk = "tcp_bulk" (TcpBulkCfg),
    /// An SCTP association whose application keeps the send buffer full with messages of
    /// `message_size` bytes (`messages` in all, or forever); settings in `sctp = { ... }`.
    SctpBulk = "sctp_bulk" (SctpBulkCfg),
    /// An SCTP association carrying messages of random `size` at random `interarrival` (or a
    /// `source` preset: signalling, thin streams of seed 004 Table 1); latency per message by
    /// retransmission count.
    SctpMessages = "sctp_messages" (SctpMessagesCfg),
    /// The same message source over a TCP connection (a message arrives with its last byte).
    TcpMessages = "tcp_messages" (TcpMessagesCfg),
    /// Random UDP background (seed 002 §IV): payload `size` and `interarrival` distributions.
    UdpRandom = "udp_random" (UdpRandomCfg),
    /// HTTP-like cross traffic (seed 004 §6.2): requests at random `interarrival`, each a new
    /// TCP connection on which the server (`from`) sends a response of `response_size` to the
    /// client (`to`) and closes.
    Http = "http" (HttpCfg),
}

// In each table, `req` marks a field the kind requires, `opt` one it may leave out, `part` a
// group of fields shared with another kind.

kind_table! {
    /// `udp_cbr`.
    pub struct UdpCbrCfg {
        stop: opt DurationStr,
        /// Sending rate at the IP layer.
        rate: req RateStr,
        /// IP packet size in bytes.
        packet_size: req u32,
        /// Each send time moves uniformly within ± jitter.
        jitter: opt DurationStr,
    }
}

kind_table! {
    /// `udp_onoff`.
    pub struct UdpOnoffCfg {
        stop: opt DurationStr,
        /// Sending rate at the IP layer while on.
        rate: req RateStr,
        /// IP packet size in bytes.
        packet_size: req u32,
        /// On-period and off-period lengths.
        on: req PeriodCfg,
        off: req PeriodCfg,
    }
}

kind_table! {
    /// `udp_random` (seed 002 §IV; defaults in `traffic::udp_random`).
    pub struct UdpRandomCfg {
        stop: opt DurationStr,
        /// Time between packets.
        interarrival: opt DistCfg<DurationStr>,
        /// UDP payload bytes.
        size: opt DistCfg<Bytes>,
    }
}

kind_table! {
    /// `tcp_bulk`.
    pub struct TcpBulkCfg {
        /// Bytes to send (default: until the run ends).
        bytes: opt Bytes,
        /// Goodput and rtxq statistics count from this time (default: start).
        warmup: opt DurationStr,
        tcp: opt TcpCfg,
    }
}

kind_table! {
    /// `sctp_bulk`.
    pub struct SctpBulkCfg {
        /// Bytes per message (default: one full DATA chunk at the association's pmtu).
        message_size: opt u32,
        /// Messages to send (default: until the run ends).
        messages: opt u64,
        /// Unordered delivery (default true, as in seed 000).
        unordered: opt bool,
        /// Messages go round-robin over this many streams (default 1).
        streams: opt u16,
        /// Goodput and rtxq statistics count from this time (default: start).
        warmup: opt DurationStr,
        /// Which SCTP runs the association (default "rexmit"; "usrsctp": FreeBSD's stack).
        stack: opt SctpStack,
        sctp: opt SctpCfg,
    }
}

kind_table! {
    /// The message source of `tcp_messages` and `sctp_messages` (`traffic::message_source`).
    pub struct MessageSourceCfg {
        stop: opt DurationStr,
        /// Messages to send (default: until the run ends).
        messages: opt u64,
        /// A ready-made source (signalling, game, wow, ssh, rdp, voip, sensor: seed 002 §IV.A,
        /// seed 004 Table 1) whose `interarrival`, `size` and `burst` the fields below override.
        source: opt String,
        /// Time between messages (required without a `source`).
        interarrival: opt DistCfg<DurationStr>,
        /// Message bytes (required without a `source`).
        size: opt DistCfg<Bytes>,
        /// `messages` sent `interval` apart, one burst per interarrival.
        burst: opt BurstCfg,
    }
}

kind_table! {
    /// `tcp_messages`.
    pub struct TcpMessagesCfg {
        traffic: part MessageSourceCfg,
        /// Latency statistics count from this time (default: start).
        warmup: opt DurationStr,
        tcp: opt TcpCfg,
    }
}

kind_table! {
    /// `sctp_messages`.
    pub struct SctpMessagesCfg {
        traffic: part MessageSourceCfg,
        /// Unordered delivery (default false: seed 004's thin streams and seed 002's
        /// signalling are ordered).
        unordered: opt bool,
        /// Messages go round-robin over this many streams (default 1).
        streams: opt u16,
        /// Latency statistics count from this time (default: start).
        warmup: opt DurationStr,
        /// Which SCTP runs the association (default "rexmit"; "usrsctp": FreeBSD's stack).
        stack: opt SctpStack,
        sctp: opt SctpCfg,
    }
}

kind_table! {
    /// `http` (seed 004 §6.2; defaults in `traffic::http_requests`).
    pub struct HttpCfg {
        stop: opt DurationStr,
        /// Response statistics count from this time (default: start).
        warmup: opt DurationStr,
        /// Time between requests.
        interarrival: opt DistCfg<DurationStr>,
        /// Response bytes.
        response_size: opt DistCfg<Bytes>,
        /// Server ports, hence connections open at once (default 32).
        max_connections: opt u16,
        tcp: opt TcpCfg,
    }
}

/// `burst = { messages, interval }`: `messages` sent `interval` apart, one burst per
/// interarrival.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BurstCfg {
    pub messages: u32,
    pub interval: DurationStr,
}

impl AppKind {
    /// IP protocol number of the app's packets.
    pub fn protocol(self) -> u8 {
        match self {
            AppKind::UdpCbr | AppKind::UdpOnoff | AppKind::UdpRandom => 17,
            AppKind::TcpBulk | AppKind::TcpMessages | AppKind::Http => 6,
            AppKind::SctpBulk | AppKind::SctpMessages => 132,
        }
    }
}

impl AppCfg {
    pub fn kind(&self) -> AppKind {
        self.traffic.kind()
    }

    /// When the source stops sending, for the kinds that take `stop`.
    pub fn stop(&self) -> Option<DurationStr> {
        match &self.traffic {
            AppTraffic::UdpCbr(c) => c.stop,
            AppTraffic::UdpOnoff(c) => c.stop,
            AppTraffic::UdpRandom(c) => c.stop,
            AppTraffic::TcpMessages(c) => c.traffic.stop,
            AppTraffic::SctpMessages(c) => c.traffic.stop,
            AppTraffic::Http(c) => c.stop,
            AppTraffic::TcpBulk(_) | AppTraffic::SctpBulk(_) => None,
        }
    }

    /// When statistics start counting, for the kinds that take `warmup`.
    pub fn warmup(&self) -> Option<DurationStr> {
        match &self.traffic {
            AppTraffic::TcpBulk(c) => c.warmup,
            AppTraffic::SctpBulk(c) => c.warmup,
            AppTraffic::TcpMessages(c) => c.warmup,
            AppTraffic::SctpMessages(c) => c.warmup,
            AppTraffic::Http(c) => c.warmup,
            AppTraffic::UdpCbr(_) | AppTraffic::UdpOnoff(_) | AppTraffic::UdpRandom(_) => None,
        }
    }

    /// The SCTP stack of an SCTP kind (`None` for the others).
    pub fn sctp_stack(&self) -> Option<SctpStack> {
        match &self.traffic {
            AppTraffic::SctpBulk(c) => Some(c.stack.unwrap_or_default()),
            AppTraffic::SctpMessages(c) => Some(c.stack.unwrap_or_default()),
            _ => None,
        }
    }

    /// The `tcp` or `sctp` table of a TCP or SCTP kind (`None` when left out).
    pub fn transport(&self) -> Transport<&Option<TcpCfg>, &Option<SctpCfg>> {
        match &self.traffic {
            AppTraffic::TcpBulk(c) => Transport::Tcp(&c.tcp),
            AppTraffic::TcpMessages(c) => Transport::Tcp(&c.tcp),
            AppTraffic::Http(c) => Transport::Tcp(&c.tcp),
            AppTraffic::SctpBulk(c) => Transport::Sctp(&c.sctp),
            AppTraffic::SctpMessages(c) => Transport::Sctp(&c.sctp),
            AppTraffic::UdpCbr(_) | AppTraffic::UdpOnoff(_) | AppTraffic::UdpRandom(_) => {
                Transport::Udp
            }
        }
    }

    /// `transport`, to change.
    pub fn transport_mut(&mut self) -> Transport<&mut Option<TcpCfg>, &mut Option<SctpCfg>> {
        match &mut self.traffic {
            AppTraffic::TcpBulk(c) => Transport::Tcp(&mut c.tcp),
            AppTraffic::TcpMessages(c) => Transport::Tcp(&mut c.tcp),
            AppTraffic::Http(c) => Transport::Tcp(&mut c.tcp),
            AppTraffic::SctpBulk(c) => Transport::Sctp(&mut c.sctp),
            AppTraffic::SctpMessages(c) => Transport::Sctp(&mut c.sctp),
            AppTraffic::UdpCbr(_) | AppTraffic::UdpOnoff(_) | AppTraffic::UdpRandom(_) => {
                Transport::Udp
            }
        }
    }
}

/// An app's transport settings, by reference (`AppCfg::transport`, `transport_mut`).
pub enum Transport<T, S> {
    Udp,
    Tcp(T),
    Sctp(S),
}
