//! `stack = "usrsctp"` from a scenario file (issue 39): FreeBSD's SCTP runs the association on
//! the scenario's nodes, its options mapped from the `sctp` table, its results in the same rows
//! and tables as rexmit's SCTP. Skipped without the library unless REXMIT_REQUIRE_USRSCTP=1
//! (`make test-rust`).

use rexmit_scenario::results::Row;
use rexmit_scenario::run::run;
use rexmit_scenario::{RunResults, Scenario};
use std::path::PathBuf;

fn usrsctp_or_skip() -> bool {
    rexmit_usrsctp::library::available_or_required()
}

fn example(name: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn metric(rows: &[Row], name: &str, key: &str) -> f64 {
    let r = rows.iter().find(|r| r.name == name).expect("row");
    r.metrics
        .iter()
        .find(|(k, _)| k == key)
        .unwrap_or_else(|| panic!("no metric {key} in {:?}", r.metrics))
        .1
}

fn run_in(s: &Scenario, tag: &str) -> RunResults {
    let dir = std::env::temp_dir().join(format!("rexmit-usrsctp-scn-{}-{tag}", std::process::id()));
    let r = run(s, Some(&dir), |_| true).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    r
}

/// The results without the wall time, which is all that may differ between identical runs.
fn comparable(mut r: RunResults) -> String {
    r.summary.wall_time_s = 0.0;
    r.pcap_files.clear();
    serde_json::to_string(&r).unwrap()
}

#[test]
fn example_runs_freebsd_sctp_over_the_lossy_dumbbell() {
    if !usrsctp_or_skip() {
        return;
    }
    let s = Scenario::from_toml(&example("sctp_usrsctp.toml")).unwrap();
    let r = run_in(&s, "example");
    assert!(r.summary.partial.is_none());
    let f = &r.flows;
    let mut names: Vec<&str> = f[0].metrics.iter().map(|(k, _)| k.as_str()).collect();
    names.sort();
    let n = names.len();
    names.dedup();
    assert_eq!(n, names.len(), "each metric once in the flow's row");
    assert!(f[0].labels.contains(&("stack".into(), "usrsctp".into())));
    // 1% loss on a 32 ms RTT: the window stays small, far below 100 Mb/s (rexmit's SCTP gets
    // about 2.4 Mb/s on this path, docs/validation_tables.md), and loss recovery shows.
    let goodput = metric(f, "sctp", "goodput_bps");
    assert!((1e6..20e6).contains(&goodput), "goodput {goodput}");
    assert!(metric(f, "sctp", "retransmissions") > 10.0);
    assert!(metric(f, "sctp", "fast_retransmits") > 0.0);
    assert_eq!(metric(f, "sctp", "failure"), 0.0);
    assert_eq!(metric(f, "sctp", "undecodable_packets"), 0.0);
    assert_eq!(metric(f, "sctp", "random_seeded"), 1.0);
    // Every message after the warm-up counted by its retransmissions (the PPID round trip).
    assert!(metric(f, "sctp", "latency_rtx1_count") > 0.0);
    // The stack's cwnd, sampled: it starts at RFC 4960's 4380 bytes (3 MTUs of 1500 here)...
    let cwnd = r
        .series
        .iter()
        .find(|x| x.name == "sctp:cwnd_primary")
        .unwrap();
    assert!(cwnd.values.iter().any(|&v| v >= 4380.0));
}

#[test]
fn identical_runs_in_one_process_are_identical_and_seeds_differ() {
    if !usrsctp_or_skip() {
        return;
    }
    let text = example("sctp_usrsctp.toml").replace("stop_time = \"20s\"", "stop_time = \"5s\"");
    let s = Scenario::from_toml(&text).unwrap();
    let a = comparable(run_in(&s, "a"));
    let b = comparable(run_in(&s, "b"));
    assert_eq!(a, b, "two runs one after another");
    let mut s2 = s.clone();
    s2.seed += 1;
    assert_ne!(a, comparable(run_in(&s2, "c")));
}

#[test]
fn cmt_over_the_dual_dumbbell_uses_both_paths() {
    if !usrsctp_or_skip() {
        return;
    }
    let text = example("sctp_cmt_dual_dumbbell.toml")
        .replace("stop_time = \"10s\"", "stop_time = \"4s\"")
        .replace("warmup = \"2s\"", "warmup = \"1s\"\nstack = \"usrsctp\"")
        .replace("rtx_policy = \"ssthresh\"", "rtx_policy = \"cwnd\"");
    let s = Scenario::from_toml(&text).unwrap();
    let r = run_in(&s, "cmt");
    let f = &r.flows;
    assert_eq!(metric(f, "cmt", "unknown_path_packets"), 0.0);
    // Both paths carry data: the two bottlenecks' forward directions.
    for link in ["R1->R2", "R3->R4"] {
        let bytes = metric(&r.links, link, "tx_bytes");
        assert!(bytes > 1e6, "{link}: {bytes} bytes");
    }
    assert!(metric(f, "cmt", "path1_cwnd") > 0.0);
}

#[test]
fn messages_fill_the_same_latency_table_as_rexmits_sctp() {
    if !usrsctp_or_skip() {
        return;
    }
    let text = example("thin_stream.toml").replace("stop_time = \"600s\"", "stop_time = \"60s\"");
    let with = |stack: &str| {
        let t = text.replacen(
            "kind = \"sctp_messages\"",
            &format!("kind = \"sctp_messages\"\nstack = \"{stack}\""),
            1,
        );
        let s = Scenario::from_toml(&t).unwrap();
        run_in(&s, stack)
    };
    let (native, freebsd) = (with("rexmit"), with("usrsctp"));
    let tables = |r: &RunResults| -> Vec<(String, String, Vec<String>)> {
        r.tables
            .iter()
            .map(|t| {
                (
                    t.table.clone(),
                    t.flow.clone(),
                    t.columns.iter().map(|(c, _)| c.clone()).collect(),
                )
            })
            .collect()
    };
    assert_eq!(tables(&native), tables(&freebsd));
    let flow = &native.flows[0].name;
    let (a, b) = (
        metric(&native.flows, flow, "messages_delivered"),
        metric(&freebsd.flows, flow, "messages_delivered"),
    );
    assert!(a > 0.0 && (a - b).abs() <= 0.02 * a, "delivered {a} vs {b}");
}

/// `rexmit normalize` writes what FreeBSD runs, in rexmit's option names: its built-in
/// behaviours at FreeBSD's values, no option it has no counterpart for (needs no library).
#[test]
fn normalize_writes_freebsds_built_in_values() {
    let s = Scenario::from_toml(&example("sctp_usrsctp.toml")).unwrap();
    let text = toml::to_string(&s.with_defaults().unwrap()).unwrap();
    assert!(text.contains("cwnd_growth = \"rfc4960\""), "{text}");
    assert!(text.contains("rtx_policy = \"cwnd\""), "{text}");
    assert!(!text.contains("[apps.sctp.rack]") && !text.contains("[apps.sctp.thin]"));
    assert_eq!(
        Scenario::from_toml(&text).unwrap().with_defaults().unwrap(),
        s.with_defaults().unwrap()
    );
}
