//! Active queues and ECN end to end at the network level (UDP sources, no TCP): what a queue
//! marks arrives marked and shows in a pcap, what it drops is counted by cause, and FQ-CoDel
//! isolates a flow from another's overload.

use rexmit_engine::{RunLimits, StreamFactory};
use rexmit_net::apps::udp::{CbrSource, UdpEndpoints, UdpSink};
use rexmit_net::topology::{chain, Duplex};
use rexmit_net::*;
use rexmit_time::{Duration, Rate, Time};
use rexmit_wire::Ecn;

fn link(mbps: u64, qpkts: u32, discipline: QueueDiscipline) -> Duplex {
    let mut l = LinkParams::new(Rate::from_mbps(mbps), Duration::from_millis(1));
    l.queue = QueueConfig {
        limit: QueueLimit::Packets(qpkts),
        discipline,
    };
    Duplex::symmetric(l)
}

fn aqm(aqm: Aqm, ecn: bool) -> QueueDiscipline {
    QueueDiscipline::Aqm(AqmConfig { aqm, ecn })
}

/// A → R → B with a 10 Mb/s bottleneck R → B of queue `q`.
fn sim(q: QueueDiscipline, qpkts: u32) -> Simulation {
    let mut net = Network::new(StreamFactory::new(9));
    let names: Vec<String> = ["A", "R", "B"].iter().map(|s| s.to_string()).collect();
    chain(
        &mut net,
        &names,
        &[
            link(100, 1000, QueueDiscipline::DropTail),
            link(10, qpkts, q),
        ],
    )
    .unwrap();
    Simulation::new(net)
}

/// A CBR source on A to a sink on B, port `port`; returns the sink's agent.
fn cbr(sim: &mut Simulation, port: u16, mbps: u64, ecn: Ecn) -> AgentId {
    let a = sim.net().node_by_name("A").unwrap();
    let b = sim.net().node_by_name("B").unwrap();
    let ep = UdpEndpoints {
        src_port: port,
        dst: sim.net().addrs(b)[0],
        dst_port: port,
    };
    let rng = sim.net().streams().stream(&format!("app/{port}"));
    let src = CbrSource::new(ep, 1000, Rate::from_mbps(mbps), None, Duration::ZERO, rng);
    sim.add_agent(
        &format!("src{port}"),
        a,
        None,
        Time::ZERO,
        Box::new(src.with_ecn(ecn)),
    )
    .unwrap();
    sim.add_agent(
        &format!("sink{port}"),
        b,
        Some((17, port)),
        Time::ZERO,
        Box::new(UdpSink::new()),
    )
    .unwrap()
}

fn bottleneck(sim: &Simulation) -> &rexmit_net::channel::Channel {
    &sim.net().channels[sim.net().channel_by_name("R->B").unwrap().0 as usize]
}

/// Offered = sent + dropped (by any cause but the error models) + still queued.
fn conserved(sim: &Simulation) {
    let ch = bottleneck(sim);
    let st = &ch.stats();
    assert_eq!(
        st.offered_packets,
        st.tx_packets + st.drop_overflow + st.drop_early + ch.queue_packets() as u64
    );
}

/// IPv4 packets of a pcap file (LINKTYPE_IPV4: each record is a raw IPv4 packet).
fn pcap_packets(path: &std::path::Path) -> Vec<Vec<u8>> {
    let b = std::fs::read(path).unwrap();
    let (mut at, mut out) = (24, Vec::new());
    while at + 16 <= b.len() {
        let len = u32::from_le_bytes(b[at + 8..at + 12].try_into().unwrap()) as usize;
        out.push(b[at + 16..at + 16 + len].to_vec());
        at += 16 + len;
    }
    out
}

#[test]
fn codel_marks_ect_packets_instead_of_dropping_and_the_pcap_shows_ce() {
    // 12 Mb/s of ECT(0) packets into 10 Mb/s under CoDel with ECN: CoDel's signals are marks
    // (no AQM drop), each marked packet reaches the sink as CE and is CE in the capture of the
    // bottleneck. An unresponsive source keeps the queue growing, so the limit still drops.
    let mut s = sim(aqm(Aqm::Codel(CodelConfig::default()), true), 300);
    let sink = cbr(&mut s, 5, 12, Ecn::Ect0);
    let dir = std::env::temp_dir().join(format!("rexmit_aqm_ecn_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pcap = dir.join("bottleneck.pcap");
    s.pcap_channel(s.net().channel_by_name("R->B").unwrap(), &pcap)
        .unwrap();
    s.run(&RunLimits::until(Time::from_secs(5)), |_| true)
        .unwrap();
    let ch = bottleneck(&s);
    let marked = ch.queue_stats().unwrap().ecn_marked;
    assert!(marked > 10, "{marked}");
    assert_eq!(ch.stats().drop_early, 0);
    assert!(ch.stats().drop_overflow > 0);
    conserved(&s);
    // Every mark arrives (the link has no loss); the last packets may still be in flight.
    let ce = s.agent(sink).probe("rx_ce_packets").unwrap() as u64;
    assert!(ce <= marked && ce + 10 >= marked, "{ce} of {marked}");
    let pcap_ce = pcap_packets(&pcap)
        .iter()
        .filter(|p| p[1] & 0b11 == 0b11)
        .count() as u64;
    assert_eq!(pcap_ce, marked);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn not_ect_packets_are_dropped_by_the_same_codel() {
    let mut s = sim(aqm(Aqm::Codel(CodelConfig::default()), true), 300);
    let sink = cbr(&mut s, 5, 12, Ecn::NotEct);
    s.run(&RunLimits::until(Time::from_secs(5)), |_| true)
        .unwrap();
    let ch = bottleneck(&s);
    assert!(ch.stats().drop_early > 10);
    assert_eq!(ch.queue_stats().unwrap().ecn_marked, 0);
    assert_eq!(s.agent(sink).probe("rx_ce_packets"), Some(0.0));
    conserved(&s);
}

#[test]
fn codel_keeps_the_sojourn_time_of_a_paced_overload_near_target() {
    // CoDel alone cannot slow a CBR source, but with a limit far above the standing queue it
    // drops enough at dequeue that the sojourn p99 stays well below what a 300-packet
    // drop-tail queue gives (240 ms at 10 Mb/s).
    let mut s = sim(aqm(Aqm::Codel(CodelConfig::default()), false), 300);
    cbr(&mut s, 5, 11, Ecn::NotEct);
    s.run(&RunLimits::until(Time::from_secs(10)), |_| true)
        .unwrap();
    let codel_p99 = bottleneck(&s)
        .queue_stats()
        .unwrap()
        .sojourn
        .quantile(0.99)
        .unwrap();
    let mut t = sim(aqm(Aqm::DropTail, false), 300);
    cbr(&mut t, 5, 11, Ecn::NotEct);
    t.run(&RunLimits::until(Time::from_secs(10)), |_| true)
        .unwrap();
    let tail = bottleneck(&t).queue_stats().unwrap();
    let tail_p99 = tail.sojourn.quantile(0.99).unwrap();
    assert!(tail_p99 > Duration::from_millis(200), "{tail_p99:?}");
    assert!(codel_p99 < tail_p99 / 2, "{codel_p99:?} vs {tail_p99:?}");
    assert!(bottleneck(&s).stats().drop_early > 0);
    assert_eq!(bottleneck(&t).stats().drop_early, 0);
}

#[test]
fn step_marking_marks_above_k_and_drops_only_what_it_cannot_mark() {
    // DCTCP's step marking, K = 20 packets, on a 1000-packet queue: 11 Mb/s of ECT(0) and 1 Mb/s
    // of Not-ECT into 10 Mb/s for 2 s builds a queue of about 250 packets, never full: no overflow, every
    // ECT packet that found 20 or more ahead of it is marked, and a Not-ECT packet that found
    // them is dropped in place of a mark (RFC 3168 §5): the 1 Mb/s Not-ECT source loses almost
    // everything it sends once the queue passes K (about 0.1 s in), none before.
    let mut s = sim(aqm(Aqm::StepMark(QueueLimit::Packets(20)), true), 1000);
    let sink = cbr(&mut s, 5, 11, Ecn::Ect0);
    let plain = cbr(&mut s, 6, 1, Ecn::NotEct);
    s.run(&RunLimits::until(Time::from_secs(2)), |_| true)
        .unwrap();
    let ch = bottleneck(&s);
    assert_eq!(ch.stats().drop_overflow, 0);
    let early = ch.stats().drop_early;
    let plain_rx = s.agent(plain).probe("rx_packets").unwrap() as u64;
    assert!(
        early > 150 && plain_rx > 0 && plain_rx < 40,
        "{early} dropped, {plain_rx} received"
    );
    let marked = ch.queue_stats().unwrap().ecn_marked;
    assert!(marked > 1000, "{marked}");
    // Marked packets not yet arrived are still queued (or on the 1 ms line).
    let ce = s.agent(sink).probe("rx_ce_packets").unwrap() as u64;
    let waiting = ch.queue_packets() as u64;
    assert!(waiting > 200, "{waiting}");
    assert!(
        ce <= marked && ce + waiting + 5 >= marked,
        "{ce} of {marked}"
    );
    conserved(&s);
}

#[test]
fn fq_codel_isolates_a_light_flow_from_a_heavy_one() {
    // 8 + 3 Mb/s into 10 Mb/s. Max-min fairness gives the 3 Mb/s flow all it sends: under
    // FQ-CoDel it loses nothing, the 8 Mb/s flow takes the drops. Under drop-tail it loses
    // some (the two periodic sources' phases decide how many).
    let run = |q: QueueDiscipline| {
        let mut s = sim(q, 200);
        let heavy = cbr(&mut s, 5, 8, Ecn::NotEct);
        let light = cbr(&mut s, 6, 3, Ecn::NotEct);
        s.run(&RunLimits::until(Time::from_secs(10)), |_| true)
            .unwrap();
        let rx = |a| s.agent(a).probe("rx_packets").unwrap();
        conserved(&s);
        (rx(heavy), rx(light))
    };
    // 3 Mb/s of 1000-byte packets for 10 s: 3750 packets.
    let (heavy, light) = run(aqm(Aqm::FqCodel(FqCodelConfig::default()), false));
    assert!(light >= 3745.0, "light {light}");
    assert!((heavy / 1250.0 - 7.0).abs() < 0.1, "heavy {heavy}");
    let (_, light_tail) = run(QueueDiscipline::DropTail);
    assert!(light_tail < light - 20.0, "drop-tail light {light_tail}");
}
