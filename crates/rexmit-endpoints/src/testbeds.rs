//! Ready-made simulations of the seed papers' topologies, shared by tests, examples and
//! benchmarks (scenario files describe the same setups for users).

use crate::tcp::{BulkApp, TcpAgent};
use rexmit_engine::StreamFactory;
use rexmit_net::topology::{chain, Duplex};
use rexmit_net::*;
use rexmit_tcp::TcpConfig;
use rexmit_time::{Duration, Rate, Time};

/// Seed 001 Table 1 with one bulk TCP flow S → D: 10 Mb/s / 0.1 ms access links, 4 Mb/s / 50 ms
/// bottleneck, drop-tail queues of 100 packets (ns-3's default), burst errors (start
/// probability `burst_rate`, size uniform 2–5) on the bottleneck's data direction. Agents are
/// named "snd" and "rcv".
pub fn seed001_single_flow(burst_rate: f64, cfg: TcpConfig, seed: u64) -> Simulation {
    let mut net = Network::new(StreamFactory::new(seed));
    let names: Vec<String> = ["S", "G1", "G2", "D"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let queue = QueueConfig {
        limit: QueueLimit::Packets(100),
        discipline: QueueDiscipline::DropTail,
    };
    let mut access = LinkParams::new(Rate::from_mbps(10), Duration::from_micros(100));
    access.queue = queue.clone();
    let mut bottleneck = LinkParams::new(Rate::from_mbps(4), Duration::from_millis(50));
    bottleneck.queue = queue;
    let mut lossy = Duplex::symmetric(bottleneck);
    if burst_rate > 0.0 {
        lossy.fwd.errors.push(ErrorModelConfig::Burst {
            rate: burst_rate,
            size: BurstSize::Uniform { min: 2, max: 5 },
        });
    }
    chain(
        &mut net,
        &names,
        &[
            Duplex::symmetric(access.clone()),
            lossy,
            Duplex::symmetric(access),
        ],
    )
    .expect("a fixed, valid topology");
    let mut sim = Simulation::new(net);
    let s = sim.net().node_by_name("S").expect("built above");
    let d = sim.net().node_by_name("D").expect("built above");
    let daddr = sim.net().addrs(d)[0];
    let mut iss = sim.net().streams().stream("tcp/iss");
    let app = BulkApp {
        bytes: None,
        close_when_done: false,
    };
    let sender = TcpAgent::sender(cfg.clone(), 4000, daddr, 80, iss.next_u64() as u32, app);
    let receiver = TcpAgent::receiver(cfg, 80, iss.next_u64() as u32, Time::ZERO);
    sim.add_agent("snd", s, Some((6, 4000)), Time::ZERO, Box::new(sender))
        .expect("free port");
    sim.add_agent("rcv", d, Some((6, 80)), Time::ZERO, Box::new(receiver))
        .expect("free port");
    sim
}
