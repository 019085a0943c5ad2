//! End-to-end UDP runs checked against hand calculation.

use rexmit_engine::{RunLimits, StreamFactory};
use rexmit_net::apps::udp::{CbrSource, UdpEndpoints, UdpSink};
use rexmit_net::topology::{
    chain, dual_dumbbell, dumbbell, AccessLink, DualDumbbellSpec, DumbbellSpec, Duplex,
    MultihomedHost,
};
use rexmit_net::*;
use rexmit_time::{Duration, Rate, Time};
use std::collections::BTreeMap;

fn params(mbps: u64, delay_us: u64, qpkts: u32) -> LinkParams {
    let mut l = LinkParams::new(Rate::from_mbps(mbps), Duration::from_micros(delay_us));
    l.queue = QueueConfig {
        limit: QueueLimit::Packets(qpkts),
        discipline: QueueDiscipline::DropTail,
    };
    l
}

fn link(mbps: u64, delay_us: u64, qpkts: u32) -> Duplex {
    Duplex::symmetric(params(mbps, delay_us, qpkts))
}

fn metrics(sim: &Simulation, name: &str) -> BTreeMap<String, f64> {
    sim.agent_metrics()
        .into_iter()
        .find(|(n, _, _)| n == name)
        .expect("agent")
        .2
        .into_iter()
        .collect()
}

fn add_cbr(
    sim: &mut Simulation,
    from: &str,
    to: &str,
    port: u16,
    rate: Rate,
    size: u32,
    stop: Option<Time>,
) {
    let src = sim.net().node_by_name(from).unwrap();
    let dst = sim.net().node_by_name(to).unwrap();
    let dst_addr = sim.net().addrs(dst)[0];
    let rng = sim.net().streams().stream(&format!("app/cbr{port}"));
    let ep = UdpEndpoints {
        src_port: port,
        dst: dst_addr,
        dst_port: port,
    };
    sim.add_agent(
        &format!("cbr{port}"),
        src,
        None,
        Time::ZERO,
        Box::new(CbrSource::new(ep, size, rate, stop, Duration::ZERO, rng)),
    )
    .unwrap();
    sim.add_agent(
        &format!("sink{port}"),
        dst,
        Some((17, port)),
        Time::ZERO,
        Box::new(UdpSink::new()),
    )
    .unwrap();
}

/// 4 CBR flows of 3 Mb/s (12 Mb/s offered) through a 10 Mb/s bottleneck: the sinks together
/// receive 10 Mb/s (± 1%), and the bottleneck drops exactly what it could not send or hold.
#[test]
fn four_cbr_flows_saturate_a_10mbps_bottleneck() {
    let mut net = Network::new(StreamFactory::new(1));
    let access = link(100, 1000, 1000);
    let spec = DumbbellSpec {
        left_router: "R1".into(),
        right_router: "R2".into(),
        bottleneck: link(10, 10_000, 50),
        left: (0..4)
            .map(|i| AccessLink {
                host: format!("S{i}"),
                link: access.clone(),
            })
            .collect(),
        right: (0..4)
            .map(|i| AccessLink {
                host: format!("D{i}"),
                link: access.clone(),
            })
            .collect(),
    };
    dumbbell(&mut net, &spec).unwrap();
    let mut sim = Simulation::new(net);
    for i in 0..4u16 {
        add_cbr(
            &mut sim,
            &format!("S{i}"),
            &format!("D{i}"),
            1000 + i,
            Rate::from_mbps(3),
            1000,
            None,
        );
    }
    sim.run(&RunLimits::until(Time::from_secs(20)), |_| true)
        .unwrap();
    let total: f64 = (0..4)
        .map(|i| metrics(&sim, &format!("sink{}", 1000 + i))["throughput_bps"])
        .sum();
    assert!(
        (total - 10e6).abs() / 10e6 < 0.01,
        "aggregate throughput {total}"
    );
    let bn = sim.net().channel_by_name("R1->R2").unwrap();
    let st = &sim.net().channels[bn.0 as usize].stats();
    // Conservation at the bottleneck queue: offered = sent + dropped + still queued.
    let queued = sim.net().channels[bn.0 as usize].queue_packets() as u64;
    assert_eq!(
        st.offered_packets,
        st.tx_packets + st.drop_overflow + queued
    );
    // Offered 12 Mb/s, served 10: about 1/6 of what is offered is dropped.
    let drop_frac = st.drop_overflow as f64 / st.offered_packets as f64;
    assert!(
        (drop_frac - 1.0 / 6.0).abs() < 0.01,
        "drop fraction {drop_frac}"
    );
    // The bottleneck is busy all the time once the queue has filled.
    assert!(st.busy.as_secs_f64() > 19.9);
    assert_eq!(st.max_queue_packets, 50);
}

/// One-way delay = Σ (serialization + propagation) when nothing queues:
/// 1000 B at 100 Mb/s = 80 µs, at 10 Mb/s = 800 µs; propagation 1 + 10 + 1 ms.
#[test]
fn one_way_delay_is_serialization_plus_propagation() {
    let mut net = Network::new(StreamFactory::new(1));
    let names: Vec<String> = ["A", "R1", "R2", "B"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    chain(
        &mut net,
        &names,
        &[
            link(100, 1000, 100),
            link(10, 10_000, 100),
            link(100, 1000, 100),
        ],
    )
    .unwrap();
    let mut sim = Simulation::new(net);
    add_cbr(
        &mut sim,
        "A",
        "B",
        7,
        Rate::from_mbps(1),
        1000,
        Some(Time::from_secs(1)),
    );
    sim.run(&RunLimits::until(Time::from_secs(2)), |_| true)
        .unwrap();
    let m = metrics(&sim, "sink7");
    let expect = (80 + 1000 + 800 + 10_000 + 80 + 1000) as f64 * 1e-6;
    assert_eq!(m["rx_packets"], 125.0); // 1 Mb/s of 1000 B packets for 1 s
    assert!((m["delay_min_s"] - expect).abs() < 1e-12, "{m:?}");
    assert!((m["delay_max_s"] - expect).abs() < 1e-12, "{m:?}");
}

/// Queueing delay grows by (800 - 666.667) µs per packet when 12 Mb/s enters a 10 Mb/s link:
/// packet n waits n·133 333 ns (the 12 Mb/s spacing rounds up to 666 667 ns).
#[test]
fn queueing_delay_grows_linearly_under_overload() {
    let mut net = Network::new(StreamFactory::new(1));
    let names: Vec<String> = ["A", "R1", "R2", "B"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    chain(
        &mut net,
        &names,
        &[
            link(100, 1000, 1000),
            link(10, 10_000, 1000),
            link(100, 1000, 1000),
        ],
    )
    .unwrap();
    let mut sim = Simulation::new(net);
    add_cbr(
        &mut sim,
        "A",
        "B",
        7,
        Rate::from_mbps(12),
        1000,
        Some(Time::from_millis(100)),
    );
    sim.run(&RunLimits::until(Time::from_secs(1)), |_| true)
        .unwrap();
    let m = metrics(&sim, "sink7");
    assert_eq!(m["rx_packets"], 150.0);
    let base = (80 + 1000 + 800 + 10_000 + 80 + 1000) as f64 * 1e-6;
    let last_wait = 149.0 * (800_000.0 - 666_667.0) * 1e-9;
    assert!(
        (m["delay_max_s"] - (base + last_wait)).abs() < 1e-12,
        "{} vs {}",
        m["delay_max_s"],
        base + last_wait
    );
    let mean_wait = 74.5 * (800_000.0 - 666_667.0) * 1e-9;
    assert!((m["delay_mean_s"] - (base + mean_wait)).abs() < 1e-9);
}

#[test]
fn scripted_drops_remove_exactly_the_listed_packets() {
    let mut net = Network::new(StreamFactory::new(1));
    let names: Vec<String> = ["A", "R1", "B"].iter().map(|s| s.to_string()).collect();
    let mut lossy = link(10, 1000, 100);
    lossy.fwd.errors.push(ErrorModelConfig::Scripted {
        flow: FlowMatch {
            dst_port: Some(7),
            ..Default::default()
        },
        select: ScriptSelect::PacketNumbers(vec![3, 10, 11]),
    });
    chain(&mut net, &names, &[link(100, 0, 100), lossy]).unwrap();
    let mut sim = Simulation::new(net);
    add_cbr(
        &mut sim,
        "A",
        "B",
        7,
        Rate::from_mbps(1),
        500,
        Some(Time::from_millis(100)),
    );
    sim.run(&RunLimits::until(Time::from_secs(1)), |_| true)
        .unwrap();
    let m = metrics(&sim, "sink7");
    assert_eq!(m["rx_packets"], 25.0 - 3.0);
    let ch = sim.net().channel_by_name("R1->B").unwrap();
    assert_eq!(sim.net().channels[ch.0 as usize].stats().drop_error, 3);
}

/// Seed 000 Figure 6: a packet to the receiver's second address crosses the second bottleneck.
#[test]
fn dual_dumbbell_routes_each_address_over_its_own_path() {
    let mut net = Network::new(StreamFactory::new(1));
    let mk = |l: &str, r: &str, tag: &str| DumbbellSpec {
        left_router: l.into(),
        right_router: r.into(),
        bottleneck: link(100, 2000, 100),
        left: (0..3)
            .map(|i| AccessLink {
                host: format!("{tag}L{i}"),
                link: link(100, 0, 100),
            })
            .collect(),
        right: (0..3)
            .map(|i| AccessLink {
                host: format!("{tag}R{i}"),
                link: link(100, 0, 100),
            })
            .collect(),
    };
    let spec = DualDumbbellSpec {
        paths: [mk("R1", "R2", "a"), mk("R3", "R4", "b")],
        multihomed: vec![
            MultihomedHost {
                name: "S".into(),
                left: true,
                links: [link(100, 14_000, 100), link(100, 14_000, 100)],
            },
            MultihomedHost {
                name: "R".into(),
                left: false,
                links: [link(100, 14_000, 100), link(100, 14_000, 100)],
            },
        ],
    };
    dual_dumbbell(&mut net, &spec).unwrap();
    let mut sim = Simulation::new(net);
    let s = sim.net().node_by_name("S").unwrap();
    let r = sim.net().node_by_name("R").unwrap();
    let r_addrs = sim.net().addrs(r);
    assert_eq!(r_addrs.len(), 2);
    for (k, addr) in r_addrs.iter().enumerate() {
        assert!(sim.net().reachable(s, *addr));
        let rng = sim.net().streams().stream(&format!("p{k}"));
        let ep = UdpEndpoints {
            src_port: 10 + k as u16,
            dst: *addr,
            dst_port: 10 + k as u16,
        };
        let stop = Some(Time::from_millis(10));
        sim.add_agent(
            &format!("src{k}"),
            s,
            None,
            Time::ZERO,
            Box::new(CbrSource::new(
                ep,
                1000,
                Rate::from_mbps(8),
                stop,
                Duration::ZERO,
                rng,
            )),
        )
        .unwrap();
        sim.add_agent(
            &format!("sink{k}"),
            r,
            Some((17, 10 + k as u16)),
            Time::ZERO,
            Box::new(UdpSink::new()),
        )
        .unwrap();
    }
    sim.run(&RunLimits::until(Time::from_secs(1)), |_| true)
        .unwrap();
    let tx = |name: &str| {
        sim.net().channels[sim.net().channel_by_name(name).unwrap().0 as usize]
            .stats()
            .tx_packets
    };
    assert_eq!(tx("R1->R2"), 10);
    assert_eq!(tx("R3->R4"), 10);
    assert_eq!(metrics(&sim, "sink0")["rx_packets"], 10.0);
    assert_eq!(metrics(&sim, "sink1")["rx_packets"], 10.0);
    // Multihomed hosts never forward: no path runs S -> R1 -> ... through another host.
    assert_eq!(sim.net().node(r).stats.not_for_us, 0);
}

/// CBR at `mbps` Mb/s from A to B over a link with 5% uniform loss that delays a `reorder`
/// share of its packets by 3 ms on average.
fn lossy_sim(seed: u64, reorder: f64, mbps: u64) -> Simulation {
    let mut net = Network::new(StreamFactory::new(seed));
    let names: Vec<String> = ["A", "R1", "B"].iter().map(|s| s.to_string()).collect();
    let mut lossy = link(10, 1000, 20);
    lossy
        .fwd
        .errors
        .push(ErrorModelConfig::Uniform { rate: 0.05 });
    lossy.fwd.reorder = Some(ReorderConfig {
        probability: reorder,
        mean_delay: Duration::from_millis(3),
    });
    chain(&mut net, &names, &[link(100, 0, 100), lossy]).unwrap();
    let mut sim = Simulation::new(net);
    add_cbr(&mut sim, "A", "B", 7, Rate::from_mbps(mbps), 700, None);
    sim
}

fn lossy_run(seed: u64) -> Vec<(String, String, Metrics)> {
    let mut sim = lossy_sim(seed, 0.1, 11);
    sim.run(&RunLimits::until(Time::from_secs(2)), |_| true)
        .unwrap();
    sim.agent_metrics()
}

#[test]
fn same_seed_same_results_different_seed_different_draws() {
    let a = lossy_run(5);
    let b = lossy_run(5);
    assert_eq!(format!("{a:?}"), format!("{b:?}"));
    let c = lossy_run(6);
    assert_ne!(format!("{a:?}"), format!("{c:?}"));
}

#[test]
fn red_drops_early_and_keeps_the_average_queue_below_the_limit() {
    let mut net = Network::new(StreamFactory::new(3));
    let names: Vec<String> = ["A", "R1", "B"].iter().map(|s| s.to_string()).collect();
    let mut red = link(10, 1000, 100);
    red.fwd.queue.discipline = QueueDiscipline::Red(RedParams {
        min_th: 5.0,
        max_th: 15.0,
        max_p: 0.1,
        weight: 0.002,
        gentle: true,
        mean_packet_size: 500,
    });
    chain(&mut net, &names, &[link(100, 0, 1000), red]).unwrap();
    let mut sim = Simulation::new(net);
    add_cbr(&mut sim, "A", "B", 7, Rate::from_mbps(12), 1000, None);
    sim.run(&RunLimits::until(Time::from_secs(10)), |_| true)
        .unwrap();
    let ch = &sim.net().channels[sim.net().channel_by_name("R1->B").unwrap().0 as usize];
    assert!(ch.stats().drop_early > 0);
    assert_eq!(
        ch.stats().drop_overflow,
        0,
        "RED should act before the hard limit"
    );
    let avg_q = ch.stats().queue_packet_ns as f64 / 10e9;
    assert!(avg_q < 30.0 && avg_q > 5.0, "average queue {avg_q}");
}

/// A channel's arrivals are computed when read (issue 40 step 3): through losses and
/// reordering, stopped while packets are on the wire, they equal what the far end received.
#[test]
fn arrivals_are_what_the_far_end_received_with_packets_still_on_the_wire() {
    let mut sim = lossy_sim(9, 0.3, 8);
    // 1 ms of propagation on R1->B: at 1.0005 s some packets are on their way.
    sim.run(&RunLimits::until(Time::from_micros(1_000_500)), |_| true)
        .unwrap();
    let m = metrics(&sim, "sink7");
    let ch = sim.net().channel_by_name("R1->B").unwrap();
    let st = sim.net().channels[ch.0 as usize].stats();
    assert!(st.drop_error > 0 && m["rx_packets"] > 1000.0);
    assert_eq!(st.arrived_packets as f64, m["rx_packets"]);
    let on_the_wire = st.tx_packets - st.drop_error - st.arrived_packets;
    assert!(on_the_wire > 0, "nothing in flight at the stop time");
    assert_eq!(st.arrived_bytes, st.arrived_packets * 700);
}
