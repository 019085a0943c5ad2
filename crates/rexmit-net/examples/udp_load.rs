//! A UDP dumbbell under load, for profiling: `cargo run --release -p rexmit-net --example udp_load -- SECONDS FLOWS`.
use rexmit_engine::{RunLimits, StreamFactory};
use rexmit_net::apps::udp::{CbrSource, UdpEndpoints, UdpSink};
use rexmit_net::topology::{dumbbell, AccessLink, DumbbellSpec, Duplex};
use rexmit_net::*;
use rexmit_time::{Duration, Rate, Time};

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let (secs, flows) = (
        args.first().copied().unwrap_or(200),
        args.get(1).copied().unwrap_or(4),
    );
    let mut net = Network::new(StreamFactory::new(1));
    let access = Duplex::symmetric(LinkParams::new(
        Rate::from_mbps(100),
        Duration::from_millis(1),
    ));
    let mut bn = LinkParams::new(Rate::from_mbps(10), Duration::from_millis(10));
    bn.queue = QueueConfig {
        limit: QueueLimit::Packets(100),
        discipline: QueueDiscipline::DropTail,
    };
    let spec = DumbbellSpec {
        left_router: "R1".into(),
        right_router: "R2".into(),
        bottleneck: Duplex::symmetric(bn),
        left: (0..flows)
            .map(|i| AccessLink {
                host: format!("S{i}"),
                link: access.clone(),
            })
            .collect(),
        right: (0..flows)
            .map(|i| AccessLink {
                host: format!("D{i}"),
                link: access.clone(),
            })
            .collect(),
    };
    dumbbell(&mut net, &spec).unwrap();
    let mut sim = Simulation::new(net);
    for i in 0..flows {
        let s = sim.net().node_by_name(&format!("S{i}")).unwrap();
        let d = sim.net().node_by_name(&format!("D{i}")).unwrap();
        let ep = UdpEndpoints {
            src_port: 1000 + i as u16,
            dst: sim.net().addrs(d)[0],
            dst_port: 1000 + i as u16,
        };
        let rng = sim.net().streams().stream(&format!("cbr{i}"));
        let rate = Rate::from_bps(12_000_000 / flows);
        sim.add_agent(
            "cbr",
            s,
            None,
            Time::ZERO,
            Box::new(CbrSource::new(ep, 1000, rate, None, Duration::ZERO, rng)),
        )
        .unwrap();
        sim.add_agent(
            "sink",
            d,
            Some((17, 1000 + i as u16)),
            Time::ZERO,
            Box::new(UdpSink::new()),
        )
        .unwrap();
    }
    let t = std::time::Instant::now();
    sim.run(&RunLimits::until(Time::from_secs(secs)), |_| true)
        .unwrap();
    let wall = t.elapsed().as_secs_f64();
    let hops: u64 = sim
        .net()
        .channels
        .iter()
        .map(|c| c.stats().tx_packets)
        .sum();
    println!("{secs} s, {flows} flows: wall {wall:.3} s, {} events, {hops} hops, {:.2} M hops/s, {:.2} M events/s", sim.events_processed(), hops as f64 / wall / 1e6, sim.events_processed() as f64 / wall / 1e6);
}
