//! ECN end to end from scenario files: DCTCP over a step-marking bottleneck (RFC 8257 §3.1)
//! holds the queue near K without a drop; Reno with ECN over CoDel is marked where Reno without
//! it is dropped (RFC 3168 §5, RFC 8289 §5); the flow and link rows report the ECN counters;
//! DCTCP without a marking queue runs with a warning.

use rexmit_scenario::results::Row;
use rexmit_scenario::run::run;
use rexmit_scenario::{RunResults, Scenario};

/// A dumbbell of `n` bulk TCP flows with `tcp` through a bottleneck of `rate` and `delay`
/// whose queue is `queue`; access links 1 Gb/s, 50 µs. Goodput counts from `warmup`.
fn dumbbell(n: usize, rate: &str, delay: &str, queue: &str, tcp: &str, stop: &str) -> String {
    let hosts = |p: &str| {
        (0..n)
            .map(|i| format!("{{ name = \"{p}{i}\", rate = \"1Gbps\", delay = \"50us\" }}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut s = format!(
        "seed = 5\nstop_time = \"{stop}\"\n[topology]\nkind = \"dumbbell\"\n\
         bottleneck = {{ rate = \"{rate}\", delay = \"{delay}\", queue = {queue} }}\n\
         left = [{}]\nright = [{}]\n",
        hosts("S"),
        hosts("D")
    );
    for i in 0..n {
        s.push_str(&format!(
            "[[apps]]\nname = \"f{i}\"\nkind = \"tcp_bulk\"\nfrom = \"S{i}\"\nto = \"D{i}\"\n\
             start = \"{}ms\"\nwarmup = \"1s\"\ntcp = {tcp}\n",
            10 * i
        ));
    }
    s
}

fn run_text(text: &str) -> RunResults {
    let s = Scenario::from_toml(text).unwrap();
    run(&s, None, |_| true).unwrap()
}

fn metric(rows: &[Row], name: &str, key: &str) -> Option<f64> {
    let r = rows.iter().find(|r| r.name == name)?;
    r.metrics.iter().find(|(k, _)| k == key).map(|(_, v)| *v)
}

fn link(r: &RunResults, key: &str) -> f64 {
    metric(&r.links, "R1->R2", key).unwrap_or_else(|| panic!("no {key}"))
}

/// The sum of a flow metric over flows f0..f{n-1} (their sender or receiver row).
fn flows(r: &RunResults, n: usize, key: &str) -> f64 {
    (0..n)
        .map(|i| metric(&r.flows, &format!("f{i}"), key).unwrap_or_else(|| panic!("no {key}")))
        .sum()
}

#[test]
fn dctcp_holds_the_queue_near_k_without_a_drop() {
    // RFC 8257 §3.1 step marking at K = 20 packets on a 100 Mb/s, 0.25 ms bottleneck (a BDP
    // of some 7 packets) with a 300-packet buffer; four DCTCP flows. DCTCP's point: the queue
    // stays near K — far below the buffer — with no loss and full utilisation.
    const K: f64 = 20.0;
    let tcp = "{ cc = \"dctcp\", ecn = \"on\", send_buffer = \"4MiB\", recv_buffer = \"4MiB\" }";
    let r = run_text(&dumbbell(
        4,
        "100Mbps",
        "250us",
        "{ packets = 300, ecn_threshold = 20 }",
        tcp,
        "4s",
    ));
    let (mean, max) = (
        link(&r, "queue_packets_mean"),
        link(&r, "queue_packets_max"),
    );
    eprintln!(
        "dctcp K=20: queue mean {mean:.1} max {max} marked {} drops {}+{} util {:.3} \
         goodput {:.1} Mb/s reductions {} retransmissions {}",
        link(&r, "ecn_marked"),
        link(&r, "drop_overflow"),
        link(&r, "drop_early"),
        link(&r, "utilization"),
        flows(&r, 4, "goodput_bps") / 1e6,
        flows(&r, 4, "ecn_reductions"),
        flows(&r, 4, "retransmissions"),
    );
    assert_eq!(link(&r, "drop_overflow") + link(&r, "drop_early"), 0.0);
    assert_eq!(flows(&r, 4, "retransmissions"), 0.0);
    assert!((0.5 * K..1.5 * K).contains(&mean), "queue mean {mean}");
    assert!(max < 5.0 * K, "queue max {max}");
    assert!(link(&r, "utilization") > 0.95);
    assert!(link(&r, "ecn_marked") > 0.0);
    assert!(flows(&r, 4, "ecn_reductions") > 0.0);
    assert!(flows(&r, 4, "ecn_ce_received") > 0.0);
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
}

#[test]
fn reno_with_ecn_over_codel_is_marked_where_reno_without_is_dropped() {
    // CoDel with ecn = true marks ECN-capable packets where it would drop (RFC 8289 §5):
    // Reno without ECN loses packets to it, Reno with ECN none, and halves its window for
    // the echoes instead (RFC 3168 §6.1.2).
    let run_with = |ecn: &str| {
        let tcp = format!("{{ ecn = \"{ecn}\", send_buffer = \"4MiB\", recv_buffer = \"4MiB\" }}");
        run_text(&dumbbell(
            2,
            "10Mbps",
            "10ms",
            "{ packets = 1000, aqm = \"codel\", ecn = true }",
            &tcp,
            "10s",
        ))
    };
    let (plain, ecn) = (run_with("off"), run_with("on"));
    eprintln!(
        "codel: without ECN drops {} marks {} rtx {} delay {:.4}; with ECN drops {} marks {} \
         rtx {} reductions {} cwr {} delay {:.4}",
        link(&plain, "drop_early"),
        link(&plain, "ecn_marked"),
        flows(&plain, 2, "retransmissions"),
        link(&plain, "queue_delay_mean_s"),
        link(&ecn, "drop_early"),
        link(&ecn, "ecn_marked"),
        flows(&ecn, 2, "retransmissions"),
        flows(&ecn, 2, "ecn_reductions"),
        flows(&ecn, 2, "ecn_cwr_sent"),
        link(&ecn, "queue_delay_mean_s"),
    );
    assert!(link(&plain, "drop_early") > 0.0);
    assert_eq!(link(&plain, "ecn_marked"), 0.0);
    assert!(
        metric(&plain.flows, "f0", "ecn_reductions").is_none(),
        "no ECN columns without ECN"
    );
    assert_eq!(link(&ecn, "drop_early") + link(&ecn, "drop_overflow"), 0.0);
    assert!(link(&ecn, "ecn_marked") > 0.0);
    assert_eq!(flows(&ecn, 2, "retransmissions"), 0.0);
    let reductions = flows(&ecn, 2, "ecn_reductions");
    assert!(reductions > 0.0);
    // Each reduction asks for one CWR; every echo is an ACK with ECE (several per reduction).
    assert!(flows(&ecn, 2, "ecn_cwr_sent") >= reductions);
    assert!(flows(&ecn, 2, "ecn_ece_received") >= reductions);
    // CoDel still holds the delay near its 5 ms target.
    assert!(link(&ecn, "queue_delay_mean_s") < 0.015);
}

#[test]
fn dctcp_without_a_marking_queue_runs_with_a_warning() {
    let tcp = "{ cc = \"dctcp\", ecn = \"on\" }";
    let r = run_text(&dumbbell(
        1,
        "10Mbps",
        "10ms",
        "{ packets = 100 }",
        tcp,
        "2s",
    ));
    assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
    let w = &r.warnings[0];
    assert!(
        w.starts_with("apps[0]: cc = \"dctcp\"") && w.contains("ecn_threshold = K"),
        "{w}"
    );
}
