//! Small simulations built directly in Rust for the usrsctp tests: one or two associations over
//! a chain or over two disjoint direct links, and the checks every test shares.
#![allow(dead_code)]

use rexmit_endpoints::sctp::{MessageApp, SctpApp};
use rexmit_engine::{RunLimits, StreamFactory};
use rexmit_net::topology::{chain, Duplex};
use rexmit_net::*;
use rexmit_sctp::SctpConfig;
use rexmit_time::{Duration, Rate, Time};
use rexmit_usrsctp::association::{place, AssociationSpec};
use rexmit_usrsctp::wire::{paths_by_index, Addressing};
use rexmit_usrsctp::{StackRun, UsrsctpConfig};
use std::collections::BTreeMap;
use std::rc::Rc;

/// Whether usrsctp can be loaded; without it a test is skipped (see
/// `rexmit_usrsctp::library::available_or_required`).
pub fn usrsctp_or_skip() -> bool {
    rexmit_usrsctp::library::available_or_required()
}

/// S — R — D: a fast access link, then a bottleneck of `rate`, one-way delay `delay` and
/// independent loss `loss` in the data direction.
pub fn lossy_chain(seed: u64, rate: Rate, delay: Duration, loss: f64) -> Simulation {
    let errors = if loss > 0.0 {
        vec![ErrorModelConfig::Uniform { rate: loss }]
    } else {
        Vec::new()
    };
    chain_with_errors(seed, rate, delay, errors)
}

/// `lossy_chain` with any error models on the bottleneck's data direction.
pub fn chain_with_errors(
    seed: u64,
    rate: Rate,
    delay: Duration,
    errors: Vec<ErrorModelConfig>,
) -> Simulation {
    chain_with(seed, rate, delay, |fwd| fwd.errors = errors)
}

/// S — R — D: S–R 100 Mb/s and 1 ms, R–D the bottleneck (`rate`, `delay`), its data direction
/// (R→D) set up by `bottleneck` (queue, error models).
pub fn chain_with(
    seed: u64,
    rate: Rate,
    delay: Duration,
    bottleneck: impl FnOnce(&mut LinkParams),
) -> Simulation {
    let mut net = Network::new(StreamFactory::new(seed));
    let names: Vec<String> = ["S", "R", "D"].iter().map(|s| s.to_string()).collect();
    let fast = Duplex::symmetric(LinkParams::new(
        Rate::from_mbps(100),
        Duration::from_millis(1),
    ));
    let mut slow = Duplex::symmetric(LinkParams::new(rate, delay));
    bottleneck(&mut slow.fwd);
    chain(&mut net, &names, &[fast, slow]).unwrap();
    Simulation::new(net)
}

/// S and D joined by two direct links (two paths, each end multihomed): `paths[i]` is
/// (rate, one-way delay, loss in the S→D direction).
pub fn two_paths(seed: u64, paths: [(Rate, Duration, f64); 2]) -> Simulation {
    let mut net = Network::new(StreamFactory::new(seed));
    let s = net.add_node("S", false).unwrap();
    let d = net.add_node("D", false).unwrap();
    for (rate, delay, loss) in paths {
        let mut fwd = LinkParams::new(rate, delay);
        if loss > 0.0 {
            fwd.errors.push(ErrorModelConfig::Uniform { rate: loss });
        }
        net.add_link(s, d, fwd, LinkParams::new(rate, delay), None)
            .unwrap();
    }
    Simulation::new(net)
}

/// A bulk sender of `messages` messages of `size` bytes (`None`: until the run ends).
pub fn bulk(size: u32, messages: Option<u64>) -> SctpApp {
    SctpApp::Bulk(MessageApp {
        message_size: size,
        messages,
        unordered: true,
        streams: 1,
    })
}

/// Place an association from node "S" to node "D" on `port`, every address of each paired by
/// index, the stack's addressing `addressing` (`None`: the default); returns the shared message
/// truth.
#[allow(clippy::too_many_arguments)]
pub fn add_association(
    sim: &mut Simulation,
    run: &Rc<StackRun>,
    cfg: &SctpConfig,
    set_keys: &[&str],
    app: SctpApp,
    port: u16,
    name: &str,
    addressing: Option<Addressing>,
) -> rexmit_endpoints::sctp::Truth {
    let s = sim.net().node_by_name("S").unwrap();
    let d = sim.net().node_by_name("D").unwrap();
    let paths = paths_by_index(&sim.net().addrs(s), &sim.net().addrs(d));
    let placed = place(
        run,
        AssociationSpec {
            cfg: UsrsctpConfig::from_sctp(cfg, set_keys).unwrap(),
            app,
            port,
            paths,
            primary: 0,
            measure_from: Time::ZERO,
            addressing,
        },
    )
    .unwrap();
    sim.add_agent(
        &format!("{name}/sink"),
        d,
        Some((132, port)),
        Time::ZERO,
        Box::new(placed.receiver),
    )
    .unwrap();
    sim.add_agent(
        name,
        s,
        Some((132, port)),
        Time::ZERO,
        Box::new(placed.sender),
    )
    .unwrap();
    placed.truth
}

pub fn run_until(sim: &mut Simulation, secs: u64) {
    sim.run(&RunLimits::until(Time::from_secs(secs)), |_| true)
        .unwrap();
}

pub type Metrics = BTreeMap<String, BTreeMap<String, f64>>;

/// Every agent's metrics, by agent name.
pub fn metrics(sim: &Simulation) -> Metrics {
    sim.agent_metrics()
        .into_iter()
        .map(|(agent, _, m)| (agent, m.into_iter().collect()))
        .collect()
}

/// The records of a pcap file rexmit wrote (classic format, raw IPv4 link type).
pub fn pcap_records(path: &std::path::Path) -> Vec<Vec<u8>> {
    timed_pcap_records(path)
        .into_iter()
        .map(|(_, b)| b)
        .collect()
}

/// The records of a pcap file (nanosecond variant) with their times in nanoseconds.
pub fn timed_pcap_records(path: &std::path::Path) -> Vec<(u64, Vec<u8>)> {
    let b = std::fs::read(path).unwrap();
    let word = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap()) as u64;
    let mut at = 24;
    let mut out = Vec::new();
    while at + 16 <= b.len() {
        let (secs, nanos, incl) = (word(at), word(at + 4), word(at + 8) as usize);
        out.push((
            secs * 1_000_000_000 + nanos,
            b[at + 16..at + 16 + incl].to_vec(),
        ));
        at += 16 + incl;
    }
    out
}

/// A captured SCTP packet.
pub struct Captured {
    pub t_ns: u64,
    /// IPv4 total length.
    pub len: usize,
    pub src: std::net::Ipv4Addr,
    pub dst: std::net::Ipv4Addr,
    pub sctp: rexmit_wire::SctpPacket,
    /// The captured bytes (IPv4 header and SCTP).
    pub raw: Vec<u8>,
}

/// Every packet of a capture, decoded (IPv4 and CRC32c checksums verified).
pub fn sctp_packets(path: &std::path::Path) -> Vec<Captured> {
    timed_pcap_records(path)
        .into_iter()
        .map(|(t_ns, b)| {
            let ip = rexmit_wire::IpPacket::decode(&b).unwrap();
            match ip.transport {
                rexmit_wire::Transport::Sctp(sctp) => Captured {
                    t_ns,
                    len: b.len(),
                    src: ip.header.src,
                    dst: ip.header.dst,
                    sctp,
                    raw: b,
                },
                other => panic!("not SCTP: {other:?}"),
            }
        })
        .collect()
}

/// A fresh directory for this test's files.
pub fn scratch_dir(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("rexmit-usrsctp-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}
