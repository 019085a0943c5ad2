//! Traffic-source kinds from scenario files: each runs end to end, its per-flow tables agree
//! with its metrics, and the thin-stream example shows seed 004's latency structure (messages
//! that needed retransmissions wait at least one RTO more than those that did not).

use rexmit_scenario::results::TableData;
use rexmit_scenario::run::run;
use rexmit_scenario::{RunResults, Scenario};
use std::path::PathBuf;

fn example(name: &str) -> String {
    std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../examples")
            .join(name),
    )
    .unwrap()
}

fn metric(r: &RunResults, flow: &str, key: &str) -> f64 {
    let row = r.flows.iter().find(|f| f.name == flow).unwrap();
    row.metrics
        .iter()
        .find(|(k, _)| k == key)
        .unwrap_or_else(|| panic!("{flow}: no {key}"))
        .1
}

fn table<'a>(r: &'a RunResults, table: &str, flow: &str) -> &'a TableData {
    r.tables
        .iter()
        .find(|t| t.table == table && t.flow == flow)
        .unwrap_or_else(|| panic!("no {table} table for {flow}"))
}

fn column<'a>(t: &'a TableData, name: &str) -> &'a [u64] {
    &t.columns.iter().find(|(c, _)| c == name).unwrap().1
}

/// A dumbbell with one host pair per app, 10 Mb/s / 20 ms bottleneck, 1 % loss on the data
/// direction, and the four new kinds.
const ALL_KINDS: &str = r#"
seed = 7
stop_time = "60s"
[topology]
kind = "dumbbell"
bottleneck = { rate = "10Mbps", delay = "20ms", queue = { packets = 100 }, errors = [ { kind = "uniform", rate = 0.01, direction = "forward" } ] }
left = [ { name = "S1", rate = "100Mbps", delay = "1ms" }, { name = "S2", rate = "100Mbps", delay = "1ms" }, { name = "S3", rate = "100Mbps", delay = "1ms" }, { name = "S4", rate = "100Mbps", delay = "1ms" } ]
right = [ { name = "D1", rate = "100Mbps", delay = "1ms" }, { name = "D2", rate = "100Mbps", delay = "1ms" }, { name = "D3", rate = "100Mbps", delay = "1ms" }, { name = "D4", rate = "100Mbps", delay = "1ms" } ]

[[apps]]
name = "sig"
kind = "sctp_messages"
from = "S1"
to = "D1"
source = "signalling"
interarrival = { kind = "fixed", value = "20ms" }

[[apps]]
name = "ssh"
kind = "tcp_messages"
from = "S2"
to = "D2"
source = "ssh"

[[apps]]
name = "bg"
kind = "udp_random"
from = "S3"
to = "D3"

[[apps]]
name = "web"
kind = "http"
from = "S4"
to = "D4"
warmup = "5s"
"#;

#[test]
fn every_traffic_kind_runs_and_its_tables_match_its_metrics() {
    let s = Scenario::from_toml(ALL_KINDS).unwrap();
    assert_eq!(
        Scenario::from_toml(&s.to_toml()).unwrap(),
        s,
        "round trip through TOML"
    );
    assert_eq!(
        Scenario::from_json(&s.to_json()).unwrap(),
        s,
        "round trip through JSON"
    );
    let r = run(&s, None, |_| true).unwrap();
    assert!(r.summary.partial.is_none());
    // Signalling (seed 002 §IV.A): 50-byte messages every 20 ms from 20 ms on.
    let sig = table(&r, "messages", "sig");
    assert!(column(sig, "size").iter().all(|&b| b == 50));
    let n = column(sig, "msg").len() as f64;
    assert!((2950.0..=3000.0).contains(&n), "{n} messages delivered");
    // Minimum one-way: 1 + 20 + 1 ms of propagation plus serialization.
    assert!(column(sig, "latency_ns").iter().all(|&l| l > 22_000_000));
    for (flow, t) in [("sig", sig), ("ssh", table(&r, "messages", "ssh"))] {
        let rtx = column(t, "rtx");
        for (b, name) in ["rtx0", "rtx1", "rtx2", "rtx3"].iter().enumerate() {
            let count = rtx.iter().filter(|&&x| x == b as u64).count() as f64;
            assert_eq!(
                metric(&r, flow, &format!("latency_{name}_count")),
                count,
                "{flow} {name}"
            );
        }
        assert!(
            rtx.iter().any(|&x| x >= 1),
            "{flow}: 1 % loss retransmits something"
        );
        assert_eq!(metric(&r, flow, "messages_delivered"), rtx.len() as f64);
    }
    // udp_random: about one packet per 62.5 ms on average (uniform 25..100 ms).
    let bg = metric(&r, "bg", "tx_packets");
    assert!((900.0..=1020.0).contains(&bg), "{bg} packets");
    assert!(metric(&r, "bg", "rx_packets") < bg, "1 % loss");
    // http: about 60/0.655 requests, nearly all complete.
    let web = table(&r, "responses", "web");
    let req = column(web, "request").len() as f64;
    assert_eq!(metric(&r, "web", "requests"), req);
    assert!((60.0..=125.0).contains(&req), "{req} requests");
    let done: u64 = column(web, "completed").iter().sum();
    assert!(done as f64 >= req - 3.0);
    assert!(column(web, "size").iter().all(|&b| b >= 1000));
    assert!(
        metric(&r, "web", "completion_time_mean_s") > 0.044,
        "at least two RTTs of 44 ms"
    );
}

#[test]
fn thin_stream_example_shows_rto_bound_retransmission_latency() {
    // Seed 004 §6.1: 4 × 100 B per second, RTT 100 ms, 5 % loss. Delivered in order, with
    // RTO.min = 1 s (RFC 4960 default, seed 004 §4): a message whose chunk was lost arrives
    // after fast retransmission or a timeout, both far above the 50 ms of a clean delivery.
    let s = Scenario::from_toml(&example("thin_stream.toml")).unwrap();
    let r = run(&s, None, |_| true).unwrap();
    let t = table(&r, "messages", "thin");
    let n = column(t, "msg").len();
    assert!((2390..=2400).contains(&n), "{n} messages delivered");
    let mean = |k: &str| metric(&r, "thin", &format!("latency_{k}_mean_s"));
    assert!(metric(&r, "thin", "latency_rtx1_count") > 50.0);
    // Without retransmission: 50 ms + 148 B at 10 Mb/s (118.4 µs), unless the message waits
    // behind a lost one (ordered delivery: head-of-line blocking lifts the rtx0 p99).
    let clean = 50_118_400;
    let (lat, rtx) = (column(t, "latency_ns"), column(t, "rtx"));
    let rtx0: Vec<u64> = lat
        .iter()
        .zip(rtx)
        .filter(|(_, &x)| x == 0)
        .map(|(&l, _)| l)
        .collect();
    assert_eq!(rtx0.iter().min(), Some(&clean));
    assert!(rtx0.iter().filter(|&&l| l == clean).count() * 2 > rtx0.len());
    assert!(
        metric(&r, "thin", "latency_rtx0_p99_s") > 0.25,
        "blocked messages wait for the lost one"
    );
    assert!(
        mean("rtx1") > 0.25,
        "first retransmission: at least a dupthresh's worth of later messages"
    );
    assert!(
        mean("rtx2") > mean("rtx1"),
        "second retransmissions wait longer"
    );
    let thin_mods = Scenario::from_toml(&example("thin_stream.toml").replace(
        "sctp = { sack_freq = 1 }",
        "sctp = { sack_freq = 1, thin = { all = true } }",
    ))
    .unwrap();
    let m = run(&thin_mods, None, |_| true).unwrap();
    // Seed 004 Fig. 8a: all modifications together lower the retransmission latencies.
    let mean_m = |k: &str| metric(&m, "thin", &format!("latency_{k}_mean_s"));
    assert!(
        mean_m("rtx1") < mean("rtx1"),
        "modified {} vs {}",
        mean_m("rtx1"),
        mean("rtx1")
    );
    eprintln!(
        "thin stream 600 s: rtx1 {} msgs mean {:.3} s (modified {:.3} s), rtx2 mean {:.3} s (modified {:.3} s), rtx0 p99 {:.4} s",
        metric(&r, "thin", "latency_rtx1_count"),
        mean("rtx1"),
        mean_m("rtx1"),
        mean("rtx2"),
        mean_m("rtx2"),
        metric(&r, "thin", "latency_rtx0_p99_s")
    );
}

#[test]
fn message_tables_are_identical_for_the_same_seed() {
    let s = Scenario::from_toml(ALL_KINDS).unwrap();
    let key = |r: &RunResults| serde_json::to_string(&r.tables).unwrap();
    let (a, b) = (
        run(&s, None, |_| true).unwrap(),
        run(&s, None, |_| true).unwrap(),
    );
    assert_eq!(key(&a), key(&b));
    let mut s2 = s.clone();
    s2.seed += 1;
    assert_ne!(key(&a), key(&run(&s2, None, |_| true).unwrap()));
}
