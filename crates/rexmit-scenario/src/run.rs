//! Run a scenario and collect its results.

use crate::build::{build, Built};
use crate::error::Result;
use crate::results::{Row, RunResults, SeriesData, Summary, TableData};
use crate::schema::Scenario;
use rexmit_engine::Progress;
use rexmit_engine::RunLimits;
use rexmit_time::Time;
use std::path::Path;

pub fn run(
    s: &Scenario,
    out_dir: Option<&Path>,
    progress: impl FnMut(Progress) -> bool,
) -> Result<RunResults> {
    run_witnessed(s, out_dir, None, progress).map(|(r, _)| r)
}

/// `run`, writing the event-order witness to `witness` when given (`rexmit_net::witness`;
/// issue 40): also returns (records, digest) of the witness.
pub fn run_witnessed(
    s: &Scenario,
    out_dir: Option<&Path>,
    witness: Option<&Path>,
    progress: impl FnMut(Progress) -> bool,
) -> Result<(RunResults, Option<(u64, u64)>)> {
    let s = &s.with_resolved_starts();
    let mut built = build(s, out_dir)?;
    let io_err = |p: &Path, e: std::io::Error| {
        crate::error::ScenarioError::new("witness", format!("{}: {e}", p.display()))
    };
    if let Some(p) = witness {
        built.sim.set_witness(p).map_err(|e| io_err(p, e))?;
    }
    let limits = limits(s);
    let started = std::time::Instant::now();
    let outcome = built.sim.run(&limits, progress);
    let partial = outcome.as_ref().err().map(|e| e.to_string());
    let digest = match (witness, built.sim.finish_witness()) {
        (Some(p), Some(r)) => Some(r.map_err(|e| io_err(p, e))?),
        _ => None,
    };
    Ok((
        collect(s, built, started.elapsed().as_secs_f64(), partial),
        digest,
    ))
}

/// The run limits a scenario asks for.
pub fn limits(s: &Scenario) -> RunLimits {
    let mut limits = RunLimits::until(Time::ZERO + s.stop_time.0);
    limits.max_events = s.limits.max_events;
    limits.max_wall = s
        .limits
        .max_wall_time
        .map(|d| std::time::Duration::from_nanos(d.0.as_nanos()));
    limits.max_memory = s
        .limits
        .max_memory
        .map(|b| b.0)
        .or_else(rexmit_engine::memory::default_limit);
    limits
}

/// The labels of an app's row in `flows` (`stack = "usrsctp"` for an association run by
/// FreeBSD's SCTP, as emulation labels a real host's flow `stack = "linux"`).
pub fn flow_labels(a: &crate::schema::AppCfg) -> Vec<(String, String)> {
    let mut labels = vec![
        ("kind".to_string(), a.kind().name().to_string()),
        ("from".to_string(), a.from.clone()),
        ("to".to_string(), a.to.clone()),
    ];
    if crate::usrsctp::is_usrsctp(a) {
        labels.push(("stack".to_string(), "usrsctp".to_string()));
    }
    labels
}

/// Results of a finished (or stopped: `partial` says why) run. Apps without agents (between
/// real hosts in emulation) get no row here: the emulator adds theirs.
pub fn collect(s: &Scenario, built: Built, wall: f64, partial: Option<String>) -> RunResults {
    let Built {
        mut sim,
        apps,
        tables,
        pcap_files,
        warnings: build_warnings,
    } = built;
    let now = sim.now();
    let metrics = sim.agent_metrics();
    let flows = s
        .apps
        .iter()
        .zip(&apps)
        .filter_map(|(a, placed)| {
            let (src, sink) = (*placed)?;
            let mut m = metrics[src.0 as usize].2.clone();
            m.extend(metrics[sink.0 as usize].2.iter().cloned());
            Some(Row {
                name: a.name.clone(),
                labels: flow_labels(a),
                metrics: m,
            })
        })
        .collect();
    let elapsed = now.as_secs_f64();
    let mut packet_hops = 0;
    let mut warnings = build_warnings;
    let links = sim
        .net()
        .channels
        .iter()
        .map(|c| {
            let st = &c.stats();
            packet_hops += st.tx_packets;
            let secs = elapsed.max(f64::MIN_POSITIVE);
            let m = vec![
                ("rate_bps", c.params().rate.bps() as f64),
                ("delay_s", c.params().delay.as_secs_f64()),
                ("offered_packets", st.offered_packets as f64),
                ("tx_packets", st.tx_packets as f64),
                ("tx_bytes", st.tx_bytes as f64),
                ("arrived_packets", st.arrived_packets as f64),
                ("drop_overflow", st.drop_overflow as f64),
                ("drop_early", st.drop_early as f64),
                ("drop_error", st.drop_error as f64),
                ("utilization", st.busy.as_secs_f64() / secs),
                ("throughput_bps", st.tx_bytes as f64 * 8.0 / secs),
                (
                    "queue_packets_mean",
                    st.queue_packet_ns as f64 / now.as_nanos().max(1) as f64,
                ),
                (
                    "queue_bytes_mean",
                    st.queue_byte_ns as f64 / now.as_nanos().max(1) as f64,
                ),
                ("queue_packets_max", st.max_queue_packets as f64),
                ("queue_bytes_max", st.max_queue_bytes as f64),
                (
                    "queue_delay_mean_s",
                    if st.tx_packets > 0 {
                        st.queue_delay_sum.as_secs_f64() / st.tx_packets as f64
                    } else {
                        0.0
                    },
                ),
            ];
            let mut m: Vec<(&str, f64)> = m;
            if let Some(q) = c.queue_stats() {
                // Active queues only (`queue = { aqm = ... }`, `ecn`, `ecn_threshold`): the
                // packets marked CE instead of dropped, and the 99th percentile of the sojourn
                // times (queue_delay_mean_s is their mean) from a histogram within 1/128.
                m.push(("ecn_marked", q.ecn_marked as f64));
                m.push((
                    "queue_delay_p99_s",
                    q.sojourn.quantile(0.99).map_or(0.0, |d| d.as_secs_f64()),
                ));
            }
            if let Some((n, lines)) = c.scripted_unfired() {
                // A scripted drop that never matched is a silent no-op otherwise (issue 17).
                m.push(("scripted_unfired", n as f64));
                warnings.extend(
                    lines
                        .into_iter()
                        .map(|l| format!("link {}: scripted drop {l}", c.name)),
                );
            }
            let node = |i: rexmit_net::IfaceId| {
                sim.net()
                    .node(sim.net().ifaces[i.0 as usize].node)
                    .name
                    .clone()
            };
            Row {
                name: c.name.clone(),
                labels: vec![
                    ("from".into(), node(c.from_iface)),
                    ("to".into(), node(c.to_iface)),
                ],
                metrics: m.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
            }
        })
        .collect();
    let nodes = sim
        .net()
        .nodes
        .iter()
        .map(|n| Row {
            name: n.name.clone(),
            labels: vec![("forwarding".into(), n.forwarding.to_string())],
            metrics: vec![
                ("no_route".into(), n.stats.no_route as f64),
                ("no_listener".into(), n.stats.no_listener as f64),
                ("ttl_expired".into(), n.stats.ttl_expired as f64),
                ("not_for_us".into(), n.stats.not_for_us as f64),
            ],
        })
        .collect();
    let series = sim
        .take_series()
        .into_iter()
        .map(|s| SeriesData {
            name: s.name,
            t_ns: s.t_ns,
            values: s.values,
        })
        .collect();
    warnings.extend(tables.iter().flat_map(|(i, t)| {
        let flow = &s.apps[*i].name;
        t.warnings()
            .into_iter()
            .map(move |w| format!("flow {flow}: {w}"))
    }));
    let tables = tables
        .iter()
        .flat_map(|(i, t)| {
            let flow = s.apps[*i].name.clone();
            t.tables().into_iter().map(move |ft| TableData {
                table: ft.table.to_string(),
                flow: flow.clone(),
                columns: ft
                    .columns
                    .into_iter()
                    .map(|(c, v)| (c.to_string(), v))
                    .collect(),
            })
        })
        .collect();
    RunResults {
        summary: Summary {
            seed: s.seed,
            stop_time_s: s.stop_time.0.as_secs_f64(),
            end_time_s: elapsed,
            events: sim.events_processed(),
            wall_time_s: wall,
            packet_hops,
            partial,
            pcap_errors: sim.pcap_errors(),
        },
        flows,
        links,
        nodes,
        series,
        tables,
        pcap_files,
        emulation: None,
        warnings,
    }
}
