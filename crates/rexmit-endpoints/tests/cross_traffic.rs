//! Cross-traffic sources on a small network: seed 002's random UDP background and seed 004's
//! HTTP-like request/response traffic over TCP, checked against their configured statistics
//! and a hand calculation.

use rexmit_endpoints::http::{HttpClient, HttpEndpoints, HttpRef, HttpServerSlot, HttpShared};
use rexmit_endpoints::latency::Tables;
use rexmit_endpoints::messages::{MessageGen, MessageSource};
use rexmit_engine::{RunLimits, StreamFactory};
use rexmit_net::apps::dist::Dist;
use rexmit_net::apps::udp::{RandomSource, UdpEndpoints, UdpSink, MIN_UDP_PACKET};
use rexmit_net::topology::{chain, Duplex};
use rexmit_net::*;
use rexmit_tcp::TcpConfig;
use rexmit_time::{Duration, Rate, Time};
use std::collections::BTreeMap;

fn net(rate: Rate, delay: Duration, seed: u64) -> Simulation {
    let mut n = Network::new(StreamFactory::new(seed));
    let mut p = LinkParams::new(rate, delay);
    p.queue = QueueConfig {
        limit: QueueLimit::Packets(10_000),
        discipline: QueueDiscipline::DropTail,
    };
    chain(
        &mut n,
        &["A".to_string(), "B".to_string()],
        &[Duplex::symmetric(p)],
    )
    .unwrap();
    Simulation::new(n)
}

fn metrics(sim: &Simulation, agent: &str) -> BTreeMap<String, f64> {
    sim.agent_metrics()
        .into_iter()
        .filter(|(n, _, _)| n == agent)
        .flat_map(|(_, _, m)| m)
        .collect()
}

#[test]
fn udp_random_background_has_seed002_sizes_and_gaps() {
    // Seed 002 §IV: payloads uniform in 100..1000 B every uniform 25..100 ms.
    let mut sim = net(Rate::from_mbps(100), Duration::from_millis(1), 1);
    let (a, b) = (
        sim.net().node_by_name("A").unwrap(),
        sim.net().node_by_name("B").unwrap(),
    );
    let size = Dist::Uniform {
        min: 100,
        max: 1000,
    };
    let gap = Dist::Uniform {
        min: 25_000_000,
        max: 100_000_000,
    };
    let ep = UdpEndpoints {
        src_port: 7,
        dst: sim.net().addrs(b)[0],
        dst_port: 7,
    };
    let src = RandomSource::new(
        ep,
        size.clone(),
        gap.clone(),
        None,
        sim.net().streams().stream("app/bg"),
    );
    sim.add_agent(
        "bg/sink",
        b,
        Some((17, 7)),
        Time::ZERO,
        Box::new(UdpSink::new()),
    )
    .unwrap();
    sim.add_agent("bg", a, None, Time::ZERO, Box::new(src))
        .unwrap();
    let secs = 2000;
    sim.run(&RunLimits::until(Time::from_secs(secs)), |_| true)
        .unwrap();
    let (tx, rx) = (metrics(&sim, "bg"), metrics(&sim, "bg/sink"));
    let n = tx["tx_packets"];
    eprintln!(
        "udp_random over {secs} s: {n} packets, mean payload {:.1} B",
        rx["rx_payload_bytes"] / n
    );
    assert_eq!(rx["rx_packets"], n, "a lossless link delivers everything");
    // Renewal process: packets ≈ T/E[gap], with variance ≈ T·Var[gap]/E[gap]^3.
    let (mg, vg) = (gap.mean() / 1e9, gap.variance() / 1e18);
    let expect = secs as f64 / mg;
    let sd = (secs as f64 * vg / mg.powi(3)).sqrt();
    assert!(
        (n - expect).abs() <= 3.0 * sd,
        "{n} packets, expected {expect} ± {}",
        3.0 * sd
    );
    let mean_payload = rx["rx_payload_bytes"] / n;
    let se = (size.variance() / n).sqrt();
    assert!(
        (mean_payload - 550.0).abs() <= 3.0 * se,
        "mean payload {mean_payload}"
    );
    assert!(
        (rx["rx_bytes"] - rx["rx_payload_bytes"] - n * MIN_UDP_PACKET as f64).abs() < 1e-6,
        "IP + UDP headers on every packet"
    );
}

/// An HTTP app with the server on A and the client on B.
fn http(sim: &mut Simulation, requests: MessageSource, slots: u16) -> HttpRef {
    let (a, b) = (
        sim.net().node_by_name("A").unwrap(),
        sim.net().node_by_name("B").unwrap(),
    );
    let shared = HttpShared::new(slots, sim.net().streams().stream("app/web/iss"));
    let ep = HttpEndpoints {
        client_port: 80,
        server: sim.net().addrs(a)[0],
        server_port: 20000,
    };
    for k in 0..slots {
        let slot = HttpServerSlot::new(TcpConfig::default(), k as usize, 20000 + k, shared.clone());
        sim.add_agent(
            &format!("web/server{k}"),
            a,
            Some((6, 20000 + k)),
            Time::ZERO,
            Box::new(slot),
        )
        .unwrap();
    }
    let gen = MessageGen::new(requests, sim.net().streams().stream("app/web"));
    let client = HttpClient::new(
        TcpConfig::default(),
        ep,
        gen,
        sim.net().streams().stream("app/web/client"),
        shared.clone(),
        Time::ZERO,
    );
    sim.add_agent("web", b, Some((6, 80)), Time::ZERO, Box::new(client))
        .unwrap();
    shared
}

fn column(t: &HttpRef, name: &str) -> Vec<u64> {
    t.tables()[0]
        .columns
        .iter()
        .find(|(n, _)| *n == name)
        .unwrap()
        .1
        .clone()
}

#[test]
fn one_http_response_takes_the_handshake_plus_the_data() {
    // 1 Gb/s, 10 ms: serialization is microseconds. SYN →, SYN-ACK ←, ACK → (the server
    // writes the response once established), data ←: four one-way delays, 40 ms.
    let mut sim = net(Rate::from_gbps(1), Duration::from_millis(10), 1);
    let src = MessageSource {
        interarrival: Dist::Fixed(1_000_000_000),
        size: Dist::Fixed(1000),
        burst: None,
        count: Some(1),
        stop: None,
    };
    let shared = http(&mut sim, src, 4);
    sim.run(&RunLimits::until(Time::from_secs(5)), |_| true)
        .unwrap();
    let m = metrics(&sim, "web");
    assert_eq!(
        (
            m["requests"],
            m["responses_completed"],
            m["responses_failed"]
        ),
        (1.0, 1.0, 0.0)
    );
    assert_eq!(m["bytes_delivered"], 1000.0);
    let t = m["completion_time_mean_s"];
    assert!((0.040..0.040 + 50e-6).contains(&t), "completion {t}");
    assert_eq!(m["connections_open"], 0.0, "both sides closed");
    assert_eq!(column(&shared, "completion_ns")[0] as f64 / 1e9, t);
}

#[test]
fn http_connections_overlap_and_every_response_completes() {
    // 100 kB responses every 50 ms over 10 Mb/s (80 ms of data each): connections overlap.
    let mut sim = net(Rate::from_mbps(10), Duration::from_millis(5), 1);
    let src = MessageSource {
        interarrival: Dist::Fixed(50_000_000),
        size: Dist::Fixed(100_000),
        burst: None,
        count: Some(40),
        stop: None,
    };
    let shared = http(&mut sim, src, 32);
    sim.add_series(
        "open",
        SeriesSource::AgentProbe(AgentId(32), "connections_open".into()),
        Duration::from_millis(5),
        Time::ZERO,
    )
    .unwrap();
    sim.run(&RunLimits::until(Time::from_secs(30)), |_| true)
        .unwrap();
    let m = metrics(&sim, "web");
    assert_eq!(
        (
            m["requests"],
            m["responses_completed"],
            m["responses_failed"]
        ),
        (40.0, 40.0, 0.0)
    );
    assert_eq!(m["bytes_delivered"], 4_000_000.0);
    let most_open = sim.series()[0].values.iter().copied().fold(0.0, f64::max);
    assert!(
        most_open >= 2.0,
        "connections overlap: at most {most_open} open"
    );
    // Offered 16 Mb/s on a 10 Mb/s link: completion times grow beyond one response's 80 ms.
    assert!(m["completion_time_max_s"] > 0.2);
    assert!(column(&shared, "completed").iter().all(|&c| c == 1));
}

#[test]
fn http_requests_wait_for_a_free_slot() {
    // One slot: responses run one after another, so the requests queue at the client.
    let mut sim = net(Rate::from_mbps(10), Duration::from_millis(5), 1);
    let src = MessageSource {
        interarrival: Dist::Fixed(10_000_000),
        size: Dist::Fixed(50_000),
        burst: None,
        count: Some(5),
        stop: None,
    };
    let shared = http(&mut sim, src, 1);
    sim.run(&RunLimits::until(Time::from_secs(30)), |_| true)
        .unwrap();
    let m = metrics(&sim, "web");
    assert_eq!(m["responses_completed"], 5.0);
    let done: Vec<u64> = column(&shared, "requested_ns")
        .iter()
        .zip(column(&shared, "completion_ns"))
        .map(|(r, c)| r + c)
        .collect();
    assert!(
        done.windows(2).all(|w| w[1] > w[0] + 40_000_000),
        "one 50 kB response (40 ms of data) after another: {done:?}"
    );
}

#[test]
fn seed004_http_source_has_poisson_requests_and_pareto_sizes() {
    // Seed 004 §6.2: exponential request interarrivals with mean 655 ms; Pareto sizes, minimum
    // 1000 B, mean ≈ 9200 B. Fast, lossless path: every response completes.
    let mut sim = net(Rate::from_mbps(100), Duration::from_millis(5), 3);
    let size = Dist::pareto_with_mean(1000, 9200.0, Some(64_000_000)).unwrap();
    let gap = Dist::Exponential {
        mean: 655e6,
        min: 0,
        max: None,
    };
    let src = MessageSource {
        interarrival: gap,
        size,
        burst: None,
        count: None,
        stop: Some(Time::from_secs(1800)),
    };
    let shared = http(&mut sim, src, 32);
    sim.run(&RunLimits::until(Time::from_secs(2000)), |_| true)
        .unwrap();
    let m = metrics(&sim, "web");
    let sizes = column(&shared, "size");
    eprintln!(
        "http 1800 s: {} requests, mean size {:.0} B, completion mean {:.4} s, max {:.3} s",
        m["requests"],
        sizes.iter().sum::<u64>() as f64 / sizes.len() as f64,
        m["completion_time_mean_s"],
        m["completion_time_max_s"]
    );
    // Poisson count over 1800 s: mean 1800/0.655, standard deviation its square root.
    let expect = 1800.0 / 0.655;
    assert!(
        (m["requests"] - expect).abs() <= 3.0 * expect.sqrt(),
        "{} requests, expected {expect}",
        m["requests"]
    );
    assert_eq!(m["responses_completed"], m["requests"]);
    assert!(sizes.iter().all(|&s| s >= 1000));
    assert_eq!(m["bytes_delivered"], sizes.iter().sum::<u64>() as f64);
    assert_eq!(m["retransmissions"], 0.0);
}
