//! Seed 001 Figure 9 as a table: goodput of Tahoe, Reno, NewReno, SACK and Westwood+ vs burst
//! error rate (4 Mb/s, 50 ms bottleneck; burst size 2–5; delayed ACK 2/200 ms).
//! Usage: cargo run --release -p rexmit-endpoints --example seed001_table -- [SECONDS] [SEEDS]

use rexmit_endpoints::testbeds::seed001_single_flow;
use rexmit_engine::RunLimits;
use rexmit_tcp::{CcAlgorithm, RecoveryAlgorithm, TcpConfig};
use rexmit_time::Time;

fn run(
    burst_rate: f64,
    recovery: RecoveryAlgorithm,
    cc: CcAlgorithm,
    secs: u64,
    seed: u64,
) -> (f64, f64, f64) {
    let cfg = TcpConfig {
        recovery,
        cc: cc.into(),
        send_buffer: 1 << 20,
        recv_buffer: 1 << 20,
        ..TcpConfig::default()
    };
    let mut sim = seed001_single_flow(burst_rate, cfg, seed);
    sim.run(&RunLimits::until(Time::from_secs(secs)), |_| true)
        .unwrap();
    let m: std::collections::BTreeMap<String, f64> = sim
        .agent_metrics()
        .into_iter()
        .flat_map(|(_, _, m)| m)
        .collect();
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
        (
            "Westwood+",
            RecoveryAlgorithm::NewReno,
            CcAlgorithm::Westwood,
        ),
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
                let (gg, tt, _) = run(rate, *rec, *cc, secs, seed);
                g += gg;
                t += tt;
            }
            print!(
                "{:>11.3} ({:>4.0})",
                g / seeds as f64 / 1e6,
                t / seeds as f64
            );
        }
        println!();
    }
}
