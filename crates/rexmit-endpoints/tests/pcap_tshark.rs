//! Captures of real simulated TCP (SACK, under loss) and SCTP (NR-SACK, under loss) traffic
//! decode in tshark with good checksums, no malformed packets and no expert warnings, and show
//! SACK blocks and NR-SACK chunks. Without tshark the test is skipped unless
//! REXMIT_REQUIRE_TSHARK=1 (as `make test` sets), in which case it fails.

use rexmit_endpoints::sctp::{MessageApp, SctpAgent, SharedTruth};
use rexmit_endpoints::tcp::{BulkApp, TcpAgent};
use rexmit_engine::{RunLimits, StreamFactory};
use rexmit_net::topology::{chain, Duplex};
use rexmit_net::*;
use rexmit_sctp::SctpConfig;
use rexmit_tcp::TcpConfig;
use rexmit_time::{Duration, Rate, Time};
use std::path::{Path, PathBuf};
use std::process::Command;

fn tshark() -> Option<&'static str> {
    let found = Command::new("tshark")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if found {
        return Some("tshark");
    }
    assert!(
        std::env::var("REXMIT_REQUIRE_TSHARK").as_deref() != Ok("1"),
        "tshark is required (REXMIT_REQUIRE_TSHARK=1) but not installed"
    );
    eprintln!("skipped: tshark not installed");
    None
}

fn lossy_chain(seed: u64) -> Simulation {
    let mut net = Network::new(StreamFactory::new(seed));
    let names: Vec<String> = ["A", "R", "B"].iter().map(|s| s.to_string()).collect();
    let fast = Duplex::symmetric(LinkParams::new(
        Rate::from_mbps(100),
        Duration::from_millis(1),
    ));
    let mut slow = Duplex::symmetric(LinkParams::new(
        Rate::from_mbps(5),
        Duration::from_millis(20),
    ));
    slow.fwd
        .errors
        .push(ErrorModelConfig::Uniform { rate: 0.03 });
    chain(&mut net, &names, &[fast, slow]).unwrap();
    Simulation::new(net)
}

/// No "decode as": captures must decode as plain data with tshark's defaults (issue 17: the
/// PPID used to carry a message counter, decoded as IUA, M2UA, M3UA ...).
const DECODE_AS: [&str; 0] = [];

fn decode(tshark: &str, pcap: &Path) -> String {
    let fields = Command::new(tshark)
        .args(["-n", "-r"])
        .arg(pcap)
        .args(DECODE_AS)
        .args([
            "-o",
            "ip.check_checksum:TRUE",
            "-o",
            "tcp.check_checksum:TRUE",
            "-o",
            "sctp.checksum:CRC 32c",
        ])
        .args([
            "-T",
            "fields",
            "-e",
            "frame.number",
            "-e",
            "_ws.malformed",
            "-e",
            "ip.checksum.status",
            "-e",
            "tcp.checksum.status",
            "-e",
            "sctp.checksum.status",
        ])
        .output()
        .expect("tshark runs");
    assert!(
        fields.status.success(),
        "{}",
        String::from_utf8_lossy(&fields.stderr)
    );
    let text = String::from_utf8(fields.stdout).unwrap();
    let mut frames = 0;
    for line in text.lines() {
        frames += 1;
        let cols: Vec<&str> = line.split('\t').collect();
        assert_eq!(
            cols.get(1).copied().unwrap_or(""),
            "",
            "malformed frame: {line}"
        );
        assert_eq!(
            cols.get(2).copied(),
            Some("1"),
            "IP checksum not good: {line}"
        );
        let transport_ok = cols[3..].contains(&"1");
        assert!(transport_ok, "transport checksum not good: {line}");
    }
    assert!(frames > 50, "only {frames} frames");
    let expert = Command::new(tshark)
        .args(["-n", "-q", "-z", "expert,warn", "-r"])
        .arg(pcap)
        .args(DECODE_AS)
        .output()
        .expect("tshark runs");
    let out = String::from_utf8_lossy(&expert.stdout).to_string();
    assert!(
        !out.contains("Malformed") && !out.contains("Error"),
        "{out}"
    );
    let verbose = Command::new(tshark)
        .args(["-n", "-V", "-r"])
        .arg(pcap)
        .args(["-o", "sctp.checksum:CRC 32c"])
        .args(DECODE_AS)
        .output()
        .expect("tshark runs");
    String::from_utf8_lossy(&verbose.stdout).to_string()
}

fn out_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rexmit-pcap-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn simulated_tcp_with_sack_decodes_cleanly() {
    let Some(ts) = tshark() else { return };
    let mut sim = lossy_chain(4);
    let cfg = TcpConfig {
        timestamps: true,
        ..TcpConfig::default()
    };
    let (a, _) = tcp_pair(&mut sim, cfg);
    let pcap = out_dir("tcp").join("a.pcap");
    sim.pcap_node(a, &pcap).unwrap();
    sim.run(&RunLimits::until(Time::from_secs(20)), |_| true)
        .unwrap();
    assert_eq!(sim.pcap_errors(), 0);
    let v = decode(ts, &pcap);
    assert!(
        v.contains("TCP Option - SACK permitted"),
        "no SACK-permitted option in the SYN"
    );
    assert!(
        v.contains("TCP Option - SACK "),
        "no SACK blocks under 3% loss"
    );
    assert!(v.contains("TCP Option - Timestamps"));
    assert!(v.contains("Fin: Set"), "connection never closed");
}

/// A TCP sender on A sending 500 000 bytes to a receiver on B, both with `cfg`; their nodes.
fn tcp_pair(sim: &mut Simulation, cfg: TcpConfig) -> (NodeId, NodeId) {
    let (a, b) = (
        sim.net().node_by_name("A").unwrap(),
        sim.net().node_by_name("B").unwrap(),
    );
    let baddr = sim.net().addrs(b)[0];
    let app = BulkApp {
        bytes: Some(500_000),
        close_when_done: true,
    };
    sim.add_agent(
        "snd",
        a,
        Some((6, 5000)),
        Time::ZERO,
        Box::new(TcpAgent::sender(cfg.clone(), 5000, baddr, 80, 12345, app)),
    )
    .unwrap();
    sim.add_agent(
        "rcv",
        b,
        Some((6, 80)),
        Time::ZERO,
        Box::new(TcpAgent::receiver(cfg, 80, 999, Time::ZERO)),
    )
    .unwrap();
    (a, b)
}

/// An SCTP sender on A sending `app` to a receiver on B, both with `cfg`; their nodes.
fn sctp_pair(sim: &mut Simulation, cfg: SctpConfig, app: MessageApp) -> (NodeId, NodeId) {
    let (a, b) = (
        sim.net().node_by_name("A").unwrap(),
        sim.net().node_by_name("B").unwrap(),
    );
    let baddrs = sim.net().addrs(b);
    let truth = std::rc::Rc::new(std::cell::RefCell::new(SharedTruth::default()));
    let rx = SctpAgent::receiver(cfg.clone(), 7, 0x1234, 77, truth.clone(), Time::ZERO);
    sim.add_agent("rx", b, Some((132, 7)), Time::ZERO, Box::new(rx))
        .unwrap();
    let tx = SctpAgent::sender(cfg, 7, baddrs, 7, 0, 0x5678, 1, app, truth, Time::ZERO);
    sim.add_agent("tx", a, Some((132, 7)), Time::ZERO, Box::new(tx))
        .unwrap();
    (a, b)
}

#[test]
fn simulated_sctp_with_nr_sack_decodes_cleanly() {
    let Some(ts) = tshark() else { return };
    let mut sim = lossy_chain(5);
    let cfg = SctpConfig {
        nr_sack: true,
        ..SctpConfig::default()
    };
    let app = MessageApp {
        message_size: 1000,
        messages: Some(2000),
        unordered: true,
        streams: 2,
    };
    let (a, _) = sctp_pair(&mut sim, cfg, app);
    let pcap = out_dir("sctp").join("a.pcap");
    sim.pcap_node(a, &pcap).unwrap();
    sim.run(&RunLimits::until(Time::from_secs(20)), |_| true)
        .unwrap();
    assert_eq!(sim.pcap_errors(), 0);
    let v = decode(ts, &pcap);
    assert!(v.contains("INIT chunk"), "no INIT");
    assert!(
        v.contains("NR_SACK chunk") || v.contains("NR-SACK"),
        "no NR-SACK chunk under 3% loss"
    );
    assert!(v.contains("NR-Gap"), "no nr-gap blocks");
    // Every DATA chunk carries PPID 0 on the wire, and its payload decodes as plain data.
    assert!(
        v.contains("Payload protocol identifier: not specified (0)"),
        "PPID not 0"
    );
    assert!(
        !v.contains("Payload protocol identifier: IUA") && !v.contains("M2UA"),
        "a PPID decoded as a signalling protocol"
    );
}

/// How many frames of `pcap` match the display filter `filter`.
fn count(tshark: &str, pcap: &Path, filter: &str) -> usize {
    let out = Command::new(tshark)
        .args(["-n", "-r"])
        .arg(pcap)
        .args(["-Y", filter, "-T", "fields", "-e", "frame.number"])
        .output()
        .expect("tshark runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).lines().count()
}

/// A -> R -> B: 100 Mb/s 1 ms, then 5 Mb/s 20 ms whose R -> B queue marks ECN-capable packets
/// CE above 5 packets (RFC 8257 §3.1 step marking), 100 packets long.
fn marking_chain() -> Simulation {
    let mut net = Network::new(StreamFactory::new(6));
    let names: Vec<String> = ["A", "R", "B"].iter().map(|s| s.to_string()).collect();
    let fast = Duplex::symmetric(LinkParams::new(
        Rate::from_mbps(100),
        Duration::from_millis(1),
    ));
    let mut slow = Duplex::symmetric(LinkParams::new(
        Rate::from_mbps(5),
        Duration::from_millis(20),
    ));
    slow.fwd.queue = QueueConfig {
        limit: QueueLimit::Packets(100),
        discipline: QueueDiscipline::Aqm(AqmConfig {
            aqm: Aqm::StepMark(QueueLimit::Packets(5)),
            ecn: true,
        }),
    };
    chain(&mut net, &names, &[fast, slow]).unwrap();
    Simulation::new(net)
}

#[test]
fn simulated_tcp_ecn_shows_ect_ce_ece_and_cwr() {
    // RFC 3168 on the wire: an ECN-setup SYN (ECE + CWR) and SYN-ACK (ECE), data ECT(0) as sent
    // at A, some of it CE at B after the step-marking queue of R -> B (RFC 8257 §3.1, K = 5),
    // ACKs with ECE, and data with CWR.
    let Some(ts) = tshark() else { return };
    let mut sim = marking_chain();
    let cfg = TcpConfig {
        ecn: rexmit_tcp::EcnMode::On,
        ..TcpConfig::default()
    };
    let (a, b) = tcp_pair(&mut sim, cfg);
    let dir = out_dir("ecn");
    let (pa, pb) = (dir.join("a.pcap"), dir.join("b.pcap"));
    sim.pcap_node(a, &pa).unwrap();
    sim.pcap_node(b, &pb).unwrap();
    sim.run(&RunLimits::until(Time::from_secs(20)), |_| true)
        .unwrap();
    assert_eq!(sim.pcap_errors(), 0);
    decode(ts, &pa);
    let v = decode(ts, &pb);
    assert!(
        v.contains("Explicit Congestion Notification"),
        "no ECN field decoded"
    );
    let syn = "tcp.flags.syn == 1 && tcp.flags.ack == 0";
    let synack = "tcp.flags.syn == 1 && tcp.flags.ack == 1";
    assert_eq!(
        count(
            ts,
            &pa,
            &format!("{syn} && tcp.flags.ece == 1 && tcp.flags.cwr == 1")
        ),
        1
    );
    assert_eq!(
        count(
            ts,
            &pa,
            &format!("{synack} && tcp.flags.ece == 1 && tcp.flags.cwr == 0")
        ),
        1
    );
    // Nothing but data is ECN-capable (RFC 3168 §6.1.1, §6.1.4).
    assert_eq!(count(ts, &pa, "tcp.len == 0 && ip.dsfield.ecn != 0"), 0);
    let data_a = count(ts, &pa, "ip.src == 10.0.0.1 && tcp.len > 0");
    let ect0_a = count(
        ts,
        &pa,
        "ip.src == 10.0.0.1 && tcp.len > 0 && ip.dsfield.ecn == 2",
    );
    let ce_b = count(ts, &pb, "tcp.len > 0 && ip.dsfield.ecn == 3");
    let ece = count(ts, &pa, "tcp.flags.syn == 0 && tcp.flags.ece == 1");
    let cwr = count(ts, &pa, "tcp.flags.syn == 0 && tcp.flags.cwr == 1");
    eprintln!("data {data_a}, ECT(0) {ect0_a}, CE at B {ce_b}, ECE {ece}, CWR {cwr}");
    assert!(
        data_a > 300 && ect0_a == data_a,
        "no loss: every data segment is new data"
    );
    assert!(ce_b > 0 && ce_b < data_a);
    assert!(ece >= ce_b.min(1) && ece > 0);
    assert!(cwr > 0 && cwr <= ece);
}

#[test]
fn simulated_sctp_ecn_shows_ecn_capable_ect_ce_ecne_and_cwr() {
    // RFC 9260 Appendix A on the wire: ECN Capable (0x8000) in INIT and INIT ACK, DATA ECT(0)
    // at A, some CE at B, ECNE chunks from B and CWR chunks from A, all decoded by tshark.
    let Some(ts) = tshark() else { return };
    let mut sim = marking_chain();
    let cfg = SctpConfig {
        ecn: true,
        ..SctpConfig::default()
    };
    let app = MessageApp {
        message_size: 1000,
        messages: Some(500),
        unordered: false,
        streams: 1,
    };
    let (a, b) = sctp_pair(&mut sim, cfg, app);
    let dir = out_dir("sctp_ecn");
    let (pa, pb) = (dir.join("a.pcap"), dir.join("b.pcap"));
    sim.pcap_node(a, &pa).unwrap();
    sim.pcap_node(b, &pb).unwrap();
    sim.run(&RunLimits::until(Time::from_secs(20)), |_| true)
        .unwrap();
    assert_eq!(sim.pcap_errors(), 0);
    decode(ts, &pa);
    decode(ts, &pb);
    let capable = "sctp.parameter_type == 0x8000";
    assert_eq!(
        count(ts, &pa, &format!("sctp.chunk_type == 1 && {capable}")),
        1
    );
    assert_eq!(
        count(ts, &pa, &format!("sctp.chunk_type == 2 && {capable}")),
        1
    );
    let data = "ip.src == 10.0.0.1 && sctp.chunk_type == 0";
    let data_a = count(ts, &pa, data);
    let ect0_a = count(ts, &pa, &format!("{data} && ip.dsfield.ecn == 2"));
    let ce_b = count(ts, &pb, "sctp.chunk_type == 0 && ip.dsfield.ecn == 3");
    let ecne = count(ts, &pa, "sctp.chunk_type == 12");
    let cwr = count(ts, &pa, "sctp.chunk_type == 13");
    eprintln!("DATA packets {data_a}, ECT(0) {ect0_a}, CE at B {ce_b}, ECNE {ecne}, CWR {cwr}");
    // Nothing without DATA is ECN-capable (RFC 3168 §6.1.4).
    assert_eq!(
        count(ts, &pa, "!(sctp.chunk_type == 0) && ip.dsfield.ecn != 0"),
        0
    );
    assert!(
        data_a >= 500 && ect0_a == data_a,
        "no loss: every DATA packet is new data"
    );
    assert!(ce_b > 0 && ce_b < data_a);
    assert!(ecne > 0 && cwr > 0 && cwr <= ecne);
}
