//! `rexmit-mem [--quick] [--json PATH]`: memory per flow (issue 18), measured by a counting
//! allocator (bytes the program asked for, live on the heap; the allocator's own overhead and
//! the process's code and stacks are not in it) on TCP (SACK) dumbbells.
//!
//! Per run: the bytes the built simulation holds before it runs (hosts, links, routes, agents:
//! no connection exists before its app starts), the bytes it holds at the stop time beyond
//! that (the connections with their buffers, scoreboards and statistics, and the packets queued
//! and in flight), and the peak during the run. Per flow = the difference between two flow
//! counts divided by the difference in flows, so the network's shared part cancels. Each flow
//! has its own sender and receiver host and their access links, so a flow's set-up is two
//! hosts and two links, and its connection state is both endpoints.
//!
//! - **active**: bulk senders still sending at the stop time, each with a 10 Mb/s share of the
//!   bottleneck (N × 10 Mb/s, a queue of N × 50 packets; at 100 flows each flow had 9.6 Mb/s
//!   and a smoothed RTT of 82 ms, the queue mostly full: about 70 segments in flight and 50
//!   queued per flow), 10 and 100 flows, 10 s;
//! - **idle**: 10-segment transfers long finished (the connections stay open with nothing to
//!   send), 1 000 and 10 000 flows on the 100 Mb/s dumbbell, 10 s;
//! - **10 000 flows**: `rexmit-bench`'s largest scaling run (bulk flows on the 100 Mb/s
//!   dumbbell, 5 s), first, so that the process's peak resident memory (VmHWM) is its.

use rexmit_bench::counting::{live_bytes, peak_bytes, reset_peak, Counting};
use rexmit_bench::{tcp_dumbbell_toml, tcp_dumbbell_toml_with};

#[global_allocator]
static ALLOC: Counting = Counting;

/// Byte counts relative to the heap before the build; signed, as the run may free more than
/// it allocates (nothing is clamped).
struct Measured {
    flows: usize,
    setup: i64,
    at_stop: i64,
    peak: i64,
}

fn measure(toml: &str, flows: usize) -> Measured {
    let sc = rexmit_scenario::Scenario::from_toml(toml).expect("valid benchmark scenario");
    let s = sc.with_resolved_starts();
    let base = live_bytes() as i64;
    reset_peak();
    let mut built = rexmit_scenario::build::build(&s, None).expect("benchmark scenario builds");
    let setup = live_bytes() as i64 - base;
    built
        .sim
        .run(&rexmit_scenario::run::limits(&s), |_| true)
        .expect("benchmark scenario runs");
    let m = Measured {
        flows,
        setup,
        at_stop: live_bytes() as i64 - base - setup,
        peak: peak_bytes() as i64 - base,
    };
    drop(built);
    m
}

fn per_flow(a: &Measured, b: &Measured, f: impl Fn(&Measured) -> i64) -> f64 {
    (f(b) as f64 - f(a) as f64) / (b.flows - a.flows) as f64
}

fn mib(b: i64) -> f64 {
    b as f64 / (1u64 << 20) as f64
}

fn main() {
    let (quick, json) = rexmit_bench::cli_args();
    let mut rows = Vec::new();
    let row = |workload: &str, secs: f64, m: &Measured| {
        println!(
            "{:>9} {:>7} {:>6} {:>12.2} {:>14.2} {:>12.2}",
            workload,
            m.flows,
            secs,
            mib(m.setup),
            mib(m.at_stop),
            mib(m.peak)
        );
        format!(
            "{{\"workload\":\"{workload}\",\"flows\":{},\"sim_s\":{secs},\"setup_bytes\":{},\"at_stop_bytes\":{},\"peak_bytes\":{}}}",
            m.flows, m.setup, m.at_stop, m.peak
        )
    };
    println!("Memory of TCP dumbbells: heap bytes live (counting allocator)");
    println!(
        "{:>9} {:>7} {:>6} {:>12} {:>14} {:>12}",
        "workload", "flows", "sim s", "set-up MiB", "at stop MiB", "peak MiB"
    );
    let big = if quick { 1_000 } else { 10_000 };
    let m = measure(&tcp_dumbbell_toml(big, 5.0), big);
    rows.push(row("scaling", 5.0, &m));
    let hwm = rexmit_bench::peak_memory_bytes();

    let mut per = Vec::new();
    let active: [usize; 2] = [10, 100];
    let idle: [usize; 2] = if quick { [100, 1_000] } else { [1_000, 10_000] };
    for (workload, counts) in [("active", active), ("idle", idle)] {
        let mut ms = Vec::new();
        for n in counts {
            let toml = if workload == "active" {
                tcp_dumbbell_toml_with(n, 10.0, &format!("{}Mbps", 10 * n), 50 * n as u32)
            } else {
                tcp_dumbbell_toml(n, 10.0).replace(
                    "kind = \"tcp_bulk\"\n",
                    "kind = \"tcp_bulk\"\nbytes = 14480\n",
                )
            };
            let m = measure(&toml, n);
            rows.push(row(workload, 10.0, &m));
            ms.push(m);
        }
        let (a, b) = (&ms[0], &ms[1]);
        let (setup, conn) = (per_flow(a, b, |m| m.setup), per_flow(a, b, |m| m.at_stop));
        println!(
            "{workload}: per flow ({} -> {} flows) set-up {setup:.0} B, at the stop time {conn:.0} B",
            a.flows, b.flows
        );
        per.push(format!(
            "{{\"workload\":\"{workload}\",\"from_flows\":{},\"to_flows\":{},\"setup_bytes_per_flow\":{setup:.1},\"at_stop_bytes_per_flow\":{conn:.1}}}",
            a.flows, b.flows
        ));
    }
    if let Some(h) = hwm {
        println!(
            "Peak resident memory of this process after the {big}-flow run (VmHWM): {:.1} MiB",
            mib(h as i64)
        );
    }
    if let Some(path) = json {
        let text = format!(
            "{{\"quick\":{quick},\"runs\":[{}],\"per_flow\":[{}],\"peak_rss_bytes_after_scaling_run\":{}}}\n",
            rows.join(","),
            per.join(","),
            hwm.map_or("null".to_string(), |h| h.to_string())
        );
        std::fs::write(&path, text).expect("write the JSON file");
    }
}
