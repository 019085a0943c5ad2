//! Seed 001 Figure 9 as a table: goodput of Tahoe, Reno, NewReno, SACK and Westwood+ vs burst
//! error rate (4 Mb/s, 50 ms bottleneck; burst size 2–5; delayed ACK 2/200 ms).
//! Usage: cargo run --release -p rexmit-endpoints --example seed001_table -- [SECONDS] [SEEDS]

use rexmit_endpoints::tcp::{BulkApp, TcpAgent};
use rexmit_engine::{RunLimits, StreamFactory};
use rexmit_net::topology::{chain, Duplex};
use rexmit_net::*;
use rexmit_tcp::{CcAlgorithm, RecoveryAlgorithm, TcpConfig};
use rexmit_time::{Duration, Rate, Time};

fn run(burst_rate: f64, recovery: RecoveryAlgorithm, cc: CcAlgorithm, secs: u64, seed: u64) -> (f64, f64, f64) {
    let mut net = Network::new(StreamFactory::new(seed));
    let names: Vec<String> = ["S", "G1", "G2", "D"].iter().map(|s| s.to_string()).collect();
    let mut access = LinkParams::new(Rate::from_mbps(10), Duration::from_micros(100));
    access.queue = QueueConfig { limit: QueueLimit::Packets(100), discipline: QueueDiscipline::DropTail };
    let mut bottleneck = LinkParams::new(Rate::from_mbps(4), Duration::from_millis(50));
    bottleneck.queue = access.queue.clone();
    let mut lossy = Duplex::symmetric(bottleneck);
    lossy.fwd.errors.push(ErrorModelConfig::Burst { rate: burst_rate, size: BurstSize::Uniform { min: 2, max: 5 } });
    chain(&mut net, &names, &[Duplex::symmetric(access.clone()), lossy, Duplex::symmetric(access)]).unwrap();
    let mut sim = Simulation::new(net);
    let s = sim.net().node_by_name("S").unwrap();
    let d = sim.net().node_by_name("D").unwrap();
    let daddr = sim.net().addrs(d)[0];
    let cfg = TcpConfig { recovery, cc, send_buffer: 1 << 20, recv_buffer: 1 << 20, ..TcpConfig::default() };
    let app = BulkApp { bytes: None, close_when_done: false };
    sim.add_agent("snd", s, Some((6, 4000)), Time::ZERO, Box::new(TcpAgent::sender(cfg.clone(), 4000, daddr, 80, 1_000_000 + seed as u32, app))).unwrap();
    sim.add_agent("rcv", d, Some((6, 80)), Time::ZERO, Box::new(TcpAgent::receiver(cfg, 80, 7_000_000, Time::ZERO))).unwrap();
    sim.run(&RunLimits::until(Time::from_secs(secs)), |_| true).unwrap();
    let m: std::collections::BTreeMap<String, f64> = sim.agent_metrics().into_iter().flat_map(|(_, _, m)| m).collect();
    (m["goodput_bps"], m["timeouts"], m["spurious_retransmits"])
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let secs: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(600);
    let seeds: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(10);
    let variants = [
        ("Tahoe", RecoveryAlgorithm::Tahoe, CcAlgorithm::Reno),
        ("Reno", RecoveryAlgorithm::Reno, CcAlgorithm::Reno),
        ("NewReno", RecoveryAlgorithm::NewReno, CcAlgorithm::Reno),
        ("SACK", RecoveryAlgorithm::Sack, CcAlgorithm::Reno),
        ("Westwood+", RecoveryAlgorithm::NewReno, CcAlgorithm::Westwood),
    ];
    println!("goodput (Mb/s), mean of {seeds} seeds, {secs} s; timeouts in parentheses");
    print!("{:>10}", "burst rate");
    for (n, _, _) in &variants {
        print!("{n:>18}");
    }
    println!();
    for rate in [1e-7, 1e-6, 1e-5, 1e-4, 1e-3] {
        print!("{rate:>10.0e}");
        for (_, rec, cc) in &variants {
            let (mut g, mut t) = (0.0, 0.0);
            for seed in 1..=seeds {
                let (gg, tt, _) = run(rate, *rec, cc.clone(), secs, seed);
                g += gg;
                t += tt;
            }
            print!("{:>11.3} ({:>4.0})", g / seeds as f64 / 1e6, t / seeds as f64);
        }
        println!();
    }
}
