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

// ---- SCTP (RFC 9260 Appendix A) ----
// ECN for SCTP end to end (RFC 9260 Appendix A): two bulk associations through a CoDel
// bottleneck that marks ECN-capable packets (RFC 8289 §5). Without ECN, CoDel drops and the
// associations retransmit; with `sctp.ecn = true` it marks instead, the receivers echo the
// marks in ECNE chunks, the senders reduce and answer with CWR chunks, and nothing is lost.
// A plugged controller hears the echo as `on_ecn_echo`.

fn sctp_dumbbell(sctp: &str) -> String {
    let mut s = String::from(
        "seed = 3\nstop_time = \"10s\"\n[topology]\nkind = \"dumbbell\"\n\
         bottleneck = { rate = \"10Mbps\", delay = \"10ms\", queue = { packets = 1000, aqm = \"codel\", ecn = true } }\n\
         left = [{ name = \"S0\", rate = \"1Gbps\", delay = \"50us\" }, { name = \"S1\", rate = \"1Gbps\", delay = \"50us\" }]\n\
         right = [{ name = \"D0\", rate = \"1Gbps\", delay = \"50us\" }, { name = \"D1\", rate = \"1Gbps\", delay = \"50us\" }]\n",
    );
    for i in 0..2 {
        s.push_str(&format!(
            "[[apps]]\nname = \"f{i}\"\nkind = \"sctp_bulk\"\nfrom = \"S{i}\"\nto = \"D{i}\"\n\
             start = \"{}ms\"\nwarmup = \"1s\"\n\
             sctp = {{ send_buffer = \"4MiB\", recv_buffer = \"4MiB\"{sctp} }}\n",
            10 * i
        ));
    }
    s
}

/// A flow metric summed over both flows' rows (sender and receiver rows share the name).
fn sctp_flows(r: &RunResults, key: &str) -> f64 {
    r.flows
        .iter()
        .filter(|row| row.name == "f0" || row.name == "f1")
        .flat_map(|row| row.metrics.iter().filter(|(k, _)| k == key))
        .map(|(_, v)| *v)
        .sum()
}

#[test]
fn sctp_with_ecn_over_codel_is_marked_where_sctp_without_is_dropped() {
    let plain = run_text(&sctp_dumbbell(""));
    let ecn = run_text(&sctp_dumbbell(", ecn = true"));
    let reno = run_text(&sctp_dumbbell(", ecn = true, cc = \"reno\""));
    for (name, r) in [("plain", &plain), ("ecn", &ecn), ("ecn+reno", &reno)] {
        eprintln!(
            "{name}: drops {} marks {} rtx {} ce {} echoes {} reductions {} cwr {} \
             delay {:.4} goodput {:.2} Mb/s",
            link(r, "drop_early") + link(r, "drop_overflow"),
            link(r, "ecn_marked"),
            sctp_flows(r, "retransmissions"),
            sctp_flows(r, "ecn_ce_received"),
            sctp_flows(r, "ecn_ece_received"),
            sctp_flows(r, "ecn_reductions"),
            sctp_flows(r, "ecn_cwr_sent"),
            link(r, "queue_delay_mean_s"),
            sctp_flows(r, "goodput_bps") / 1e6,
        );
    }
    // Without ECN: CoDel drops, the associations retransmit, no ECN columns.
    assert!(link(&plain, "drop_early") > 0.0);
    assert_eq!(link(&plain, "ecn_marked"), 0.0);
    assert!(sctp_flows(&plain, "retransmissions") > 0.0);
    assert!(metric(&plain.flows, "f0", "ecn_reductions").is_none());
    for r in [&ecn, &reno] {
        // With ECN: marks instead of drops, no retransmission, each mark seen by a receiver.
        // CoDel still drops what is not ECN-capable where it would mark: a CWR alone (a full
        // DATA chunk leaves it no room) is a packet without DATA, Not-ECT (RFC 3168 §6.1.4).
        assert!(link(r, "drop_early") * 4.0 < link(&plain, "drop_early"));
        assert_eq!(link(r, "drop_overflow"), 0.0);
        let marks = link(r, "ecn_marked");
        assert!(marks > 0.0);
        assert_eq!(sctp_flows(r, "retransmissions"), 0.0);
        assert_eq!(
            sctp_flows(r, "ecn_ce_received"),
            marks,
            "every mark reaches a receiver"
        );
        // Echoes until CWR: at least one ECNE per reduction, one CWR per ECNE heard at most.
        let reductions = sctp_flows(r, "ecn_reductions");
        assert!(reductions > 0.0);
        assert!(sctp_flows(r, "ecn_ece_received") >= reductions);
        assert!(sctp_flows(r, "ecn_cwr_sent") >= reductions);
        assert!(sctp_flows(r, "ecn_cwr_sent") <= sctp_flows(r, "ecn_ece_received"));
        // CoDel still holds the delay near its 5 ms target, and the link stays busy.
        assert!(link(r, "queue_delay_mean_s") < 0.015);
        assert!(
            sctp_flows(r, "goodput_bps") > 0.8 * 10e6,
            "{}",
            sctp_flows(r, "goodput_bps")
        );
    }
}

#[test]
fn a_controller_that_needs_dctcp_feedback_is_refused_on_sctp() {
    let e = Scenario::from_toml(&sctp_dumbbell(", ecn = true, cc = \"dctcp\""))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("apps[0].sctp.cc") && e.contains("RFC 8257"),
        "{e}"
    );
}
