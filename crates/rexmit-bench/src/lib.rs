//! Benchmarks behind `make bench`: the engine's event queues under the classic "hold" model, the
//! full scheduler loop, and a UDP dumbbell macro-benchmark built from a scenario.
//!
//! Owns: measuring (median wall time of N repetitions) and formatting. Does not own: any model.

pub mod counting;

use rexmit_engine::{
    CalendarQueue, EventQueue, HeapQueue, RadixQueue, RunLimits, Scheduler, StreamFactory,
};
use rexmit_time::{Duration, Time};
use std::time::Instant;

/// Median of `reps` measurements of `f`, which returns (work units done, seconds taken).
fn median_secs(reps: usize, mut f: impl FnMut() -> f64) -> f64 {
    let v: Vec<f64> = (0..reps.max(1)).map(|_| f()).collect();
    median_range(&v).0
}

/// Mean hold increment: 1 ms, drawn from an exponential stream.
const HOLD_MEAN_NS: f64 = 1e6;

/// Hold model: pre-fill `q` with `n` events, then `ops` times pop one and push one at
/// now + Exp(mean). Returns the wall seconds of the pop/push phase only.
pub fn hold<Q: EventQueue<u32>>(mut q: Q, n: usize, ops: u64, seed: u64) -> f64 {
    let mut rng = StreamFactory::new(seed).stream("bench.hold");
    let mut seq = 0u64;
    for i in 0..n {
        let t = Time::from_nanos(rng.exponential(HOLD_MEAN_NS) as u64);
        q.push(t, seq, i as u32);
        seq += 1;
    }
    let start = Instant::now();
    for _ in 0..ops {
        let (t, _, e) = q.pop().expect("hold keeps the population constant");
        let at = Time::from_nanos(t.as_nanos() + rng.exponential(HOLD_MEAN_NS) as u64);
        q.push(at, seq, e);
        seq += 1;
    }
    let s = start.elapsed().as_secs_f64();
    assert_eq!(q.len(), n);
    s
}

#[derive(Clone, Debug)]
pub struct HoldResult {
    pub n: usize,
    pub ops: u64,
    pub heap_eps: f64,
    pub calendar_eps: f64,
    /// The simulator's queue (a radix heap on the time).
    pub radix_eps: f64,
}

impl HoldResult {
    pub fn ratio(&self) -> f64 {
        self.calendar_eps / self.heap_eps
    }
    pub fn faster(&self) -> &'static str {
        [
            (self.heap_eps, "heap"),
            (self.calendar_eps, "calendar"),
            (self.radix_eps, "radix"),
        ]
        .into_iter()
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map_or("heap", |(_, name)| name)
    }
}

pub fn bench_hold(n: usize, ops: u64, reps: usize) -> HoldResult {
    let h = median_secs(reps, || hold(HeapQueue::new(), n, ops, 1));
    let c = median_secs(reps, || hold(CalendarQueue::new(), n, ops, 1));
    let t = median_secs(reps, || hold(RadixQueue::new(), n, ops, 1));
    HoldResult {
        n,
        ops,
        heap_eps: ops as f64 / h,
        calendar_eps: ops as f64 / c,
        radix_eps: ops as f64 / t,
    }
}

/// Full `Scheduler::run` loop with a trivial handler: `pending` self-rescheduling events, each
/// re-armed 1 us later, until `events` have been processed. Returns events per second.
pub fn bench_run_loop(pending: usize, events: u64, reps: usize) -> f64 {
    let per = events / pending as u64;
    let stop = Time::from_nanos(per * 1_000 - 1);
    let s = median_secs(reps, || {
        let mut s: Scheduler<u32> = Scheduler::new();
        for i in 0..pending {
            s.schedule(Time::from_nanos(i as u64), i as u32);
        }
        let start = Instant::now();
        let out = s
            .run(
                &RunLimits::until(stop),
                |s, _, e| s.schedule_in(Duration::from_nanos(1_000), e),
                |_| true,
            )
            .expect("no guard set");
        assert!(out.events > 0);
        start.elapsed().as_secs_f64()
    });
    (per * pending as u64) as f64 / s
}

#[derive(Clone, Debug)]
pub struct DumbbellResult {
    pub flows: usize,
    pub sim_secs: f64,
    pub wall_secs: f64,
    pub packet_hops: u64,
    pub events: u64,
}

impl DumbbellResult {
    pub fn ns_per_hop(&self) -> f64 {
        1e9 * self.wall_secs / self.packet_hops.max(1) as f64
    }
    pub fn hops_per_sec(&self) -> f64 {
        self.packet_hops as f64 / self.wall_secs
    }
    pub fn events_per_sec(&self) -> f64 {
        self.events as f64 / self.wall_secs
    }
    pub fn speedup(&self) -> f64 {
        self.sim_secs / self.wall_secs
    }
}

/// TOML header and topology of a dumbbell with `flows` host pairs S{i}/D{i}: bottleneck
/// `bottleneck` (rate, delay) with a drop-tail queue of `queue` packets, access links `access`.
fn dumbbell_topology(
    flows: usize,
    sim_secs: f64,
    bottleneck: (&str, &str),
    queue: u32,
    access: &str,
) -> String {
    let mut t = format!(
        "seed = 1\nstop_time = \"{}ms\"\n[topology]\nkind = \"dumbbell\"\nbottleneck = {{ rate = \"{}\", delay = \"{}\", queue = {{ packets = {queue} }} }}\n",
        (sim_secs * 1000.0).round() as u64,
        bottleneck.0,
        bottleneck.1
    );
    for side in [("left", "S"), ("right", "D")] {
        t += &format!("{} = [\n", side.0);
        for i in 0..flows {
            t += &format!(
                "  {{ name = \"{}{i}\", rate = \"{access}\", delay = \"1ms\" }},\n",
                side.1
            );
        }
        t += "]\n";
    }
    t
}

/// TOML for a dumbbell with `flows` CBR flows sharing `total_bps` evenly: 10 Mb/s 10 ms
/// bottleneck with a 100-packet drop-tail queue, 100 Mb/s 1 ms access links, 1000 B packets.
pub fn dumbbell_toml(flows: usize, total_bps: u64, sim_secs: f64) -> String {
    let mut t = dumbbell_topology(flows, sim_secs, ("10Mbps", "10ms"), 100, "100Mbps");
    let per = total_bps / flows as u64;
    // Sources start evenly spread over one packet interval: started in phase, N flows would hit
    // the bottleneck queue together and most of their packets would be dropped there.
    let interval_ns = 8_000u128 * 1_000_000_000 / per.max(1) as u128;
    for i in 0..flows {
        let start = interval_ns * i as u128 / flows as u128;
        t += &format!(
            "[[apps]]\nname = \"cbr{i}\"\nkind = \"udp_cbr\"\nfrom = \"S{i}\"\nto = \"D{i}\"\nrate = \"{per}bps\"\npacket_size = 1000\nstart = \"{start}ns\"\n"
        );
    }
    t
}

/// TOML for `flows` bulk TCP (SACK) flows over a 100 Mb/s, 10 ms dumbbell with a 500-packet
/// queue and 1 Gb/s access links; starts spread over the first 100 ms.
pub fn tcp_dumbbell_toml(flows: usize, sim_secs: f64) -> String {
    tcp_dumbbell_toml_with(flows, sim_secs, "100Mbps", 500)
}

/// `tcp_dumbbell_toml` with another bottleneck rate and queue (packets).
pub fn tcp_dumbbell_toml_with(flows: usize, sim_secs: f64, rate: &str, queue: u32) -> String {
    let mut t = dumbbell_topology(flows, sim_secs, (rate, "10ms"), queue, "1Gbps");
    for i in 0..flows {
        let start_us = 100_000 * i as u64 / flows as u64;
        t += &format!("[[apps]]\nname = \"tcp{i}\"\nkind = \"tcp_bulk\"\nfrom = \"S{i}\"\nto = \"D{i}\"\nstart = \"{start_us}us\"\n");
    }
    t
}

/// Seed 001's scenario (examples/tcp_seed001.toml: SACK, burst errors 1e-3) run for `sim_secs`.
pub fn seed001_toml(sim_secs: f64) -> String {
    include_str!("../../../examples/tcp_seed001.toml").replace(
        "stop_time = \"60s\"",
        &format!("stop_time = \"{}ms\"", (sim_secs * 1000.0).round() as u64),
    )
}

/// Run a scenario `reps` times; the median run (simulation loop only).
pub fn bench_scenario(toml: &str, flows: usize, sim_secs: f64, reps: usize) -> DumbbellResult {
    let sc = rexmit_scenario::Scenario::from_toml(toml).expect("valid benchmark scenario");
    let mut last = None;
    let wall = median_secs(reps, || {
        let r = rexmit_scenario::run::run(&sc, None, |_| true).expect("benchmark scenario runs");
        let w = r.summary.wall_time_s;
        last = Some(r.summary);
        w
    });
    let s = last.expect("at least one repetition");
    DumbbellResult {
        flows,
        sim_secs,
        wall_secs: wall,
        packet_hops: s.packet_hops,
        events: s.events,
    }
}

/// Per-hop wall time after the start-up: the loop time and hops of the second half of a run,
/// as the difference between the whole run and a run of the same scenario stopped at half
/// time (the simulation is deterministic, so the shorter run is the longer one's first half).
/// At 10 000 flows the first half holds every connection's set-up (first touch of its memory),
/// which the whole run's per-hop time spreads over few hops.
#[derive(Clone, Debug)]
pub struct SteadyResult {
    pub whole: DumbbellResult,
    pub half: DumbbellResult,
}

impl SteadyResult {
    pub fn ns_per_hop(&self) -> f64 {
        let hops = self
            .whole
            .packet_hops
            .saturating_sub(self.half.packet_hops)
            .max(1);
        // Not clamped: a half run slower than the whole one (noise) shows as a negative time.
        1e9 * (self.whole.wall_secs - self.half.wall_secs) / hops as f64
    }
}

/// `toml_at(seconds)` builds the scenario stopped at `seconds`; both runs take the median of
/// `reps` repetitions.
pub fn bench_steady(
    toml_at: impl Fn(f64) -> String,
    flows: usize,
    sim_secs: f64,
    reps: usize,
) -> SteadyResult {
    SteadyResult {
        whole: bench_scenario(&toml_at(sim_secs), flows, sim_secs, reps),
        half: bench_scenario(&toml_at(sim_secs / 2.0), flows, sim_secs / 2.0, reps),
    }
}

pub fn bench_dumbbell(flows: usize, total_bps: u64, sim_secs: f64, reps: usize) -> DumbbellResult {
    bench_scenario(
        &dumbbell_toml(flows, total_bps, sim_secs),
        flows,
        sim_secs,
        reps,
    )
}

/// The benchmark programs' options: `--quick`, and `--json PATH`.
pub fn cli_args() -> (bool, Option<String>) {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick");
    let json = args
        .iter()
        .position(|a| a == "--json")
        .and_then(|i| args.get(i + 1).cloned());
    (quick, json)
}

/// Peak resident memory of this process (`VmHWM`, Linux), for the benchmark's memory line.
pub fn peak_memory_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? * 1024)
}

/// The built-in `reno` registered a second time, as a plugin from outside `rexmit-tcp`
/// (`reno_plugin`): the same controller through the same registry path, so that the benchmark
/// can show a Rust plugin costs nothing over a built-in.
pub fn register_reno_plugin() {
    use rexmit_tcp::cc::registry::{self, CcPlugin};
    use rexmit_tcp::cc::{reno, CcParams, CongestionControl, Window};
    struct RenoPlugin;
    impl CcPlugin for RenoPlugin {
        fn name(&self) -> &str {
            "reno_plugin"
        }
        fn build(&self, p: &CcParams, _values: &[f64]) -> Box<dyn CongestionControl> {
            let mut w = Window::new(p.initial_cwnd, p.initial_ssthresh, p.smss);
            w.byte_counting = p.byte_counting;
            w.whole_segments = p.whole_segments;
            w.slow_start_limit = p.slow_start_limit;
            Box::new(reno(w))
        }
    }
    registry::register(std::sync::Arc::new(RenoPlugin), true).expect("a free name");
}

/// `tcp_dumbbell_toml(flows, sim_secs)` with every flow running controller `cc`.
pub fn tcp_dumbbell_toml_cc(flows: usize, sim_secs: f64, cc: &str) -> String {
    tcp_dumbbell_toml(flows, sim_secs).replace(
        "kind = \"tcp_bulk\"\n",
        &format!("kind = \"tcp_bulk\"\ntcp = {{ cc = \"{cc}\" }}\n"),
    )
}

/// Issue 40's scaling ratio measured in pairs: the per-hop wall time at `large` flows over the
/// one at `small` flows, from runs taken one right after the other, `pairs` times, so that the
/// machine's speed drifting between the two series (a shared VM's does, by 2× within an hour)
/// does not enter the ratio. Each flow count runs stopped at its time and at half that time
/// (see `SteadyResult`) in every pair; the ratios are per pair, whole run and after the start-up.
#[derive(Clone, Debug)]
pub struct PairedScaling {
    pub small: (usize, f64),
    pub large: (usize, f64),
    pub whole: Vec<f64>,
    pub steady: Vec<f64>,
}

/// The median of a non-empty list, and its minimum and maximum.
pub fn median_range(v: &[f64]) -> (f64, f64, f64) {
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    (s[s.len() / 2], s[0], s[s.len() - 1])
}

/// See `PairedScaling`: `small` and `large` are (flows, simulated seconds) of the TCP dumbbell.
pub fn paired_scaling(small: (usize, f64), large: (usize, f64), pairs: usize) -> PairedScaling {
    let build = |(flows, secs): (usize, f64)| {
        [secs, secs / 2.0].map(|t| {
            let sc = rexmit_scenario::Scenario::from_toml(&tcp_dumbbell_toml(flows, t))
                .expect("valid benchmark scenario");
            (sc, flows, t)
        })
    };
    let (a, b) = (build(small), build(large));
    let once = |(sc, flows, secs): &(rexmit_scenario::Scenario, usize, f64)| {
        let r = rexmit_scenario::run::run(sc, None, |_| true).expect("benchmark scenario runs");
        DumbbellResult {
            flows: *flows,
            sim_secs: *secs,
            wall_secs: r.summary.wall_time_s,
            packet_hops: r.summary.packet_hops,
            events: r.summary.events,
        }
    };
    // (whole run, after the start-up) per hop, as `make bench`'s unpaired series measures them.
    let per_hop = |[whole, half]: &[_; 2]| {
        let st = SteadyResult {
            whole: once(whole),
            half: once(half),
        };
        (st.whole.ns_per_hop(), st.ns_per_hop())
    };
    let (mut whole, mut steady) = (Vec::new(), Vec::new());
    for i in 0..pairs.max(1) {
        // Alternate which one goes first, so that neither always follows the other.
        let (s, l) = if i % 2 == 0 {
            let s = per_hop(&a);
            (s, per_hop(&b))
        } else {
            let l = per_hop(&b);
            (per_hop(&a), l)
        };
        whole.push(l.0 / s.0);
        steady.push(l.1 / s.1);
    }
    PairedScaling {
        small,
        large,
        whole,
        steady,
    }
}
