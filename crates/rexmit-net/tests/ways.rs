//! The per-flow ways (issue 40 step 4, `way.rs`): a set-up call made between two runs, while
//! packets are on their way, applies to those packets as it would without the cache.

use rexmit_engine::{RunLimits, StreamFactory};
use rexmit_net::apps::udp::{CbrSource, UdpEndpoints, UdpSink};
use rexmit_net::topology::{chain, Duplex};
use rexmit_net::*;
use rexmit_time::{Duration, Rate, Time};

fn rx_packets(sim: &Simulation, name: &str) -> f64 {
    let (_, _, m) = sim
        .agent_metrics()
        .into_iter()
        .find(|(n, _, _)| n == name)
        .unwrap();
    m.into_iter().find(|(k, _)| k == "rx_packets").unwrap().1
}

/// Records in a pcap file (24-byte file header, then a 16-byte header and the bytes per record).
fn pcap_records(path: &std::path::Path) -> usize {
    let b = std::fs::read(path).unwrap();
    let (mut at, mut n) = (24, 0);
    while at + 16 <= b.len() {
        let incl = u32::from_le_bytes(b[at + 8..at + 12].try_into().unwrap()) as usize;
        at += 16 + incl;
        n += 1;
    }
    n
}

/// A → R → B, 1 Mb/s of 1000 B UDP packets for 2 s; B's capture opens after 1 s, with packets
/// of the flow in flight whose way (and B's agent) was resolved without it: B still writes
/// every packet it receives from then on.
#[test]
fn a_capture_opened_between_runs_sees_packets_already_on_their_way() {
    let mut net = Network::new(StreamFactory::new(1));
    let names: Vec<String> = ["A", "R", "B"].iter().map(|s| s.to_string()).collect();
    let link = Duplex::symmetric(LinkParams::new(
        Rate::from_mbps(10),
        Duration::from_millis(20),
    ));
    chain(&mut net, &names, &[link.clone(), link]).unwrap();
    let mut sim = Simulation::new(net);
    let (a, b) = (
        sim.net().node_by_name("A").unwrap(),
        sim.net().node_by_name("B").unwrap(),
    );
    let ep = UdpEndpoints {
        src_port: 7,
        dst: sim.net().addrs(b)[0],
        dst_port: 7,
    };
    let rng = sim.net().streams().stream("app/cbr");
    let stop = Some(Time::from_secs(2));
    let cbr = CbrSource::new(ep, 1000, Rate::from_mbps(1), stop, Duration::ZERO, rng);
    sim.add_agent("cbr", a, None, Time::ZERO, Box::new(cbr))
        .unwrap();
    sim.add_agent(
        "sink",
        b,
        Some((17, 7)),
        Time::ZERO,
        Box::new(UdpSink::new()),
    )
    .unwrap();
    sim.run(&RunLimits::until(Time::from_secs(1)), |_| true)
        .unwrap();
    let before = rx_packets(&sim, "sink");
    let path = std::env::temp_dir().join(format!("rexmit-ways-{}.pcap", std::process::id()));
    sim.pcap_node(b, &path).unwrap();
    sim.run(&RunLimits::until(Time::from_secs(3)), |_| true)
        .unwrap();
    let after = rx_packets(&sim, "sink");
    let written = pcap_records(&path);
    std::fs::remove_file(&path).ok();
    // 125 packets a second; at 1 s about 5 were between A and B (a 41 ms path).
    assert_eq!(after, 250.0);
    assert!(before < 125.0, "{before}");
    assert_eq!(written as f64, after - before);
}
