//! Scenario fuzzing over the whole option space: a seed gives a scenario (chain, dumbbell or
//! multihomed dual dumbbell; uniform, burst and Gilbert-Elliott errors, reordering, RED; TCP
//! with every congestion control and recovery option, SCTP with NR-SACK, CMT, RACK, thin-stream
//! modifications, delayed SACK, Max.Burst, reneging, fragmentation; message flows), and every
//! run must (1) be accepted, (2) finish without a guard stopping it, (3) deliver every flow's
//! data exactly once or report why it could not, and (4) give the same results when run again.
//! `random_scenarios.rs` covers the common options with shrinking; this one covers the rest.
//!
//! CI runs a fixed set of seeds. A longer campaign: `REXMIT_FUZZ_CASES=2000 REXMIT_FUZZ_FROM=0
//! cargo test --release -p rexmit-scenario --test random_scenarios_wide -- --nocapture`; a
//! failure prints its seed and the scenario as JSON.

mod fuzz_gen;

use fuzz_gen::{expected, scenario, FlowKind};
use rexmit_scenario::results::Row;
use rexmit_scenario::run::run;
use rexmit_scenario::Scenario;
use serde_json::Value;

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn metric(row: &Row, key: &str) -> Option<f64> {
    row.metrics.iter().find(|(k, _)| k == key).map(|m| m.1)
}

/// Every metric of every row, bits and all (NaN compares equal to NaN).
fn fingerprint(rows: &[Row]) -> Vec<(String, String, u64)> {
    rows.iter()
        .flat_map(|r| {
            r.metrics
                .iter()
                .map(move |(k, v)| (r.name.clone(), k.clone(), v.to_bits()))
        })
        .collect()
}

/// Flows that delivered everything, that reported a failure instead, and that were still
/// going at the stop time.
#[derive(Default)]
struct Outcomes {
    complete: usize,
    failed: usize,
    unfinished: usize,
}

/// The problems of one generated scenario's run (empty: it passed).
fn check(v: &Value, flows: &[(FlowKind, u64)], rerun: bool, out: &mut Outcomes) -> Vec<String> {
    let text = v.to_string();
    let s = match Scenario::from_json(&text) {
        Ok(s) => s,
        Err(e) => return vec![format!("rejected: {e}")],
    };
    let once = || std::panic::catch_unwind(|| run(&s, None, |_| true));
    let r = match once() {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => return vec![format!("run failed: {e}")],
        Err(_) => return vec!["panicked".into()],
    };
    let mut problems = Vec::new();
    if let Some(p) = &r.summary.partial {
        problems.push(format!("a guard stopped the run: {p}"));
    }
    for (i, kind) in flows.iter().enumerate() {
        let name = format!("f{i}");
        let Some(row) = r.flows.iter().find(|x| x.name == name) else {
            problems.push(format!("{name}: no result row"));
            continue;
        };
        let Some((key, want)) = expected(kind) else {
            continue;
        };
        // A message source's messages larger than a buffer are refused and counted.
        let want = want - metric(row, "messages_refused").unwrap_or(0.0);
        let got = metric(row, key).unwrap_or(0.0);
        let failure = metric(row, "failure").unwrap_or(0.0);
        // A transfer at tens of percent of loss may take longer than the stop time (its
        // retransmission timer backs off to rto.max): unfinished, not stalled, when events
        // were still pending at the stop. A stalled flow leaves no event: the run ends early.
        let running = r.summary.end_time_s >= r.summary.stop_time_s;
        if got == want {
            out.complete += 1;
        } else if failure > 0.0 {
            out.failed += 1;
        } else if running {
            out.unfinished += 1;
        }
        if got > want {
            problems.push(format!("{name}: delivered {got} > {want} ({key})"));
        } else if got < want && failure == 0.0 && !running {
            problems.push(format!(
                "{name}: delivered {got} of {want} ({key}) and reports no failure"
            ));
        }
    }
    if rerun && problems.is_empty() {
        match once() {
            Ok(Ok(again)) => {
                if fingerprint(&again.flows) != fingerprint(&r.flows)
                    || fingerprint(&again.links) != fingerprint(&r.links)
                {
                    problems.push("a second run gave other results".into());
                }
            }
            _ => problems.push("the second run failed".into()),
        }
    }
    problems
}

#[test]
fn random_scenarios_over_every_option_deliver_exactly_once_and_repeat() {
    let cases = env_u64("REXMIT_FUZZ_CASES", 40);
    let from = env_u64("REXMIT_FUZZ_FROM", 0);
    let mut failures = Vec::new();
    let mut kinds = [0usize; 6];
    let mut outcomes = Outcomes::default();
    for seed in from..from + cases {
        let (v, flows) = scenario(seed);
        for (k, _) in &flows {
            kinds[*k as usize] += 1;
        }
        let problems = check(&v, &flows, seed % 3 == 0, &mut outcomes);
        if !problems.is_empty() {
            eprintln!("seed {seed}: {}\n{v}", problems.join("; "));
            failures.push(seed);
        }
    }
    eprintln!(
        "{cases} scenarios from seed {from}; flows by kind (tcp, sctp, messages over tcp, over sctp, udp, http): {kinds:?}; {} delivered everything, {} reported a failure, {} were still going at the stop time",
        outcomes.complete, outcomes.failed, outcomes.unfinished
    );
    assert!(
        failures.is_empty(),
        "{} of {cases} seeds failed: {failures:?}",
        failures.len()
    );
    // The generator must keep exercising every kind of flow, and most flows must get through
    // (a generator whose flows mostly fail would pass without testing delivery).
    assert!(
        kinds.iter().all(|&n| n > 0),
        "a flow kind never drawn: {kinds:?}"
    );
    assert!(
        outcomes.complete >= 3 * (outcomes.failed + outcomes.unfinished),
        "{} flows complete, {} failed, {} unfinished",
        outcomes.complete,
        outcomes.failed,
        outcomes.unfinished
    );
}
