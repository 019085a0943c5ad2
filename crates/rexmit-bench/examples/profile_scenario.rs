//! Run a scenario file for profilers and refactoring checks: `profile_scenario FILE [REPS] [--digest]
//! [--witness OUT]`, or `profile_scenario --witness-diff A B` (scripts/witness.sh).
//! `--digest` prints a hash of everything the run produced except wall time, so that a change
//! meant to be behaviour-preserving can be checked to give bit-identical results; `--witness`
//! writes the run's event-order witness (`rexmit_net::witness`) and prints its digest, and
//! `--witness-diff` prints where two witnesses first differ (exit 1) or "identical".

/// The allocator the extension uses (see crates/rexmit-py/src/lib.rs), so that timings match.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn fnv(h: &mut u64, bytes: &[u8]) {
    for b in bytes {
        *h ^= *b as u64;
        *h = h.wrapping_mul(0x100000001b3);
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--witness-diff") {
        let (a, b) = (
            std::path::Path::new(&args[1]),
            std::path::Path::new(&args[2]),
        );
        match rexmit_net::witness::first_divergence(a, b, 8).expect("witness files") {
            None => println!("identical"),
            Some(d) => {
                println!("{d}");
                std::process::exit(1);
            }
        }
        return;
    }
    let witness = args
        .iter()
        .position(|a| a == "--witness")
        .map(|i| std::path::PathBuf::from(&args[i + 1]));
    let text = std::fs::read_to_string(&args[0]).expect("scenario file");
    let reps: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(1);
    let digest = args.iter().any(|a| a == "--digest");
    let dump = args.iter().any(|a| a == "--dump");
    let sc = rexmit_scenario::Scenario::from_toml(&text).expect("valid scenario");
    for _ in 0..reps {
        let (mut r, w) =
            rexmit_scenario::run::run_witnessed(&sc, None, witness.as_deref(), |_| true)
                .expect("runs");
        if let Some((records, digest)) = w {
            println!("{} witness {records} records digest {digest:016x}", args[0]);
        }
        let wall = r.summary.wall_time_s;
        if dump {
            for row in r.flows.iter().chain(&r.links) {
                for (k, v) in &row.metrics {
                    println!("{} {k} {v}", row.name);
                }
            }
        }
        if digest {
            r.summary.wall_time_s = 0.0;
            // Event counts change with engine-level refactors that change nothing else.
            let events = std::mem::take(&mut r.summary.events);
            let mut h = 0xcbf29ce484222325u64;
            fnv(
                &mut h,
                format!(
                    "{:?}{:?}{:?}{:?}{:?}",
                    r.summary, r.flows, r.links, r.nodes, r.tables
                )
                .as_bytes(),
            );
            for s in &r.series {
                fnv(
                    &mut h,
                    format!("{}{:?}{:?}", s.name, s.t_ns, s.values).as_bytes(),
                );
            }
            println!("{} {:016x} hops {}", args[0], h, r.summary.packet_hops);
            eprintln!("events {events}");
        } else {
            eprintln!(
                "wall {wall:.4} s, hops {}, events {}",
                r.summary.packet_hops, r.summary.events
            );
        }
    }
}
