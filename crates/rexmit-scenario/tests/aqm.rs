//! Active queues from scenario files: CoDel holds the sojourn time of TCP flows near its
//! target where drop-tail builds a standing queue, FQ-CoDel shares a bottleneck evenly among
//! flows of different RTTs, the link rows report marks and the sojourn p99, and normalize
//! writes an AQM's defaults out.

use rexmit_scenario::run::run;
use rexmit_scenario::{RunResults, Scenario};

/// A dumbbell of four bulk TCP flows (host i's access links have delay `access[i]` each way)
/// through a 10 Mb/s, 10 ms bottleneck whose queue is `queue`; the flows' goodput counts from
/// 10 s on when the run is longer than 20 s.
fn dumbbell(queue: &str, access: [u32; 4], stop: &str) -> String {
    let long = stop
        .trim_end_matches('s')
        .parse::<u32>()
        .is_ok_and(|s| s > 20);
    let warmup = if long { "warmup = \"10s\"\n" } else { "" };
    let hosts = |p: &str| {
        (0..4)
            .map(|i| {
                format!(
                    "{{ name = \"{p}{i}\", rate = \"100Mbps\", delay = \"{}ms\" }}",
                    access[i]
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut s = format!(
        "seed = 3\nstop_time = \"{stop}\"\n[topology]\nkind = \"dumbbell\"\n\
         bottleneck = {{ rate = \"10Mbps\", delay = \"10ms\", queue = {queue} }}\n\
         left = [{}]\nright = [{}]\n",
        hosts("S"),
        hosts("D")
    );
    for i in 0..4 {
        s.push_str(&format!(
            "[[apps]]\nname = \"f{i}\"\nkind = \"tcp_bulk\"\nfrom = \"S{i}\"\nto = \"D{i}\"\n\
             {warmup}tcp = {{ send_buffer = \"4MiB\", recv_buffer = \"4MiB\" }}\n"
        ));
    }
    s
}

fn run_text(text: &str) -> RunResults {
    let s = Scenario::from_toml(text).unwrap();
    run(&s, None, |_| true).unwrap()
}

fn metric(rows: &[rexmit_scenario::results::Row], name: &str, key: &str) -> Option<f64> {
    let r = rows.iter().find(|r| r.name == name)?;
    r.metrics.iter().find(|(k, _)| k == key).map(|(_, v)| *v)
}

fn link(r: &RunResults, key: &str) -> f64 {
    metric(&r.links, "R1->R2", key).unwrap_or_else(|| panic!("no {key}"))
}

/// Jain's fairness index of the flows' goodputs: (Σx)² / (n·Σx²).
fn jain(r: &RunResults) -> f64 {
    let x: Vec<f64> = (0..4)
        .map(|i| metric(&r.flows, &format!("f{i}"), "goodput_bps").unwrap())
        .collect();
    let sum: f64 = x.iter().sum();
    sum * sum / (x.len() as f64 * x.iter().map(|v| v * v).sum::<f64>())
}

#[test]
fn codel_keeps_four_tcp_flows_near_its_target_delay() {
    // RFC 8289's point: with a 1000-packet buffer, four Reno flows fill a drop-tail queue (a
    // sojourn of hundreds of ms: 1000 packets are 1.2 s at 10 Mb/s), while CoDel holds the
    // standing queue near TARGET = 5 ms at full utilisation.
    let codel = run_text(&dumbbell(
        "{ packets = 1000, aqm = \"codel\" }",
        [1, 1, 1, 1],
        "60s",
    ));
    let tail = run_text(&dumbbell(
        "{ packets = 1000, aqm = \"drop_tail\" }",
        [1, 1, 1, 1],
        "20s",
    ));
    let (c_mean, t_mean) = (
        link(&codel, "queue_delay_mean_s"),
        link(&tail, "queue_delay_mean_s"),
    );
    eprintln!(
        "codel: mean {c_mean:.4} s p99 {:.4} s drops {} util {:.3}; drop-tail: mean {t_mean:.4} s p99 {:.4} s util {:.3}",
        link(&codel, "queue_delay_p99_s"),
        link(&codel, "drop_early"),
        link(&codel, "utilization"),
        link(&tail, "queue_delay_p99_s"),
        link(&tail, "utilization"),
    );
    // CoDel controls the standing (minimum) delay; Reno's sawtooth puts the mean above it.
    assert!(
        (0.0025..0.010).contains(&c_mean),
        "codel mean sojourn {c_mean}"
    );
    assert!(
        t_mean > 10.0 * c_mean,
        "drop-tail {t_mean} vs codel {c_mean}"
    );
    assert!(link(&codel, "queue_delay_p99_s") < 0.04);
    assert!(link(&codel, "drop_early") > 0.0);
    assert_eq!(link(&codel, "ecn_marked"), 0.0);
    assert!(link(&codel, "utilization") > 0.9);
}

#[test]
fn fq_codel_shares_evenly_among_flows_of_different_rtts() {
    // Round-trip times 24, 44, 84 and 164 ms. Under one queue the short flows take more
    // (Reno's rate goes as 1/RTT); FQ-CoDel's DRR serves the four flow queues in turn, so a
    // flow gets less than a quarter only while its own queue is empty (the long flows' windows
    // refill slowly after a CoDel drop). Goodput from 10 s to 60 s.
    let access = [1, 6, 16, 36];
    let jains: Vec<f64> = [
        "{ packets = 1000, aqm = \"fq_codel\" }",
        "{ packets = 1000, aqm = \"codel\" }",
        "{ packets = 100, aqm = \"drop_tail\" }",
    ]
    .iter()
    .map(|q| {
        let r = run_text(&dumbbell(q, access, "60s"));
        assert!(link(&r, "utilization") > 0.9);
        jain(&r)
    })
    .collect();
    eprintln!(
        "Jain: fq_codel {:.4}, codel {:.4}, drop-tail {:.4}",
        jains[0], jains[1], jains[2]
    );
    assert!(jains[0] > 0.98, "fq_codel Jain {}", jains[0]);
    assert!(jains[0] > jains[1] && jains[0] > jains[2], "{jains:?}");
}

#[test]
fn only_queues_written_with_the_aqm_keys_report_marks_and_p99() {
    let r = run_text(&dumbbell("{ packets = 100 }", [1, 1, 1, 1], "2s"));
    assert!(metric(&r.links, "R1->R2", "ecn_marked").is_none());
    assert!(metric(&r.links, "R1->R2", "queue_delay_p99_s").is_none());
    let r = run_text(&dumbbell(
        "{ packets = 100, aqm = \"drop_tail\" }",
        [1, 1, 1, 1],
        "2s",
    ));
    assert_eq!(link(&r, "ecn_marked"), 0.0);
    let p99 = link(&r, "queue_delay_p99_s");
    // At most a full queue: 100 packets of 1500 bytes at 10 Mb/s.
    assert!(p99 > 0.0 && p99 <= 0.121, "{p99}");
}

#[test]
fn normalize_writes_the_aqm_defaults_and_is_a_fixed_point() {
    let text = dumbbell("{ packets = 1000, aqm = \"fq_codel\" }", [1, 1, 1, 1], "1s");
    let s = Scenario::from_toml(&text).unwrap().with_defaults().unwrap();
    let shown = s.to_toml();
    for key in [
        "quantum = 1514",
        "flows = 1024",
        "target = \"5ms\"",
        "ecn = true",
    ] {
        assert!(shown.contains(key), "{key} missing in\n{shown}");
    }
    let again = Scenario::from_toml(&shown)
        .unwrap()
        .with_defaults()
        .unwrap();
    assert_eq!(again.to_toml(), shown);
    // A queue without the AQM keys is printed as written.
    let plain = dumbbell("{ packets = 100 }", [1, 1, 1, 1], "1s");
    let shown = Scenario::from_toml(&plain)
        .unwrap()
        .with_defaults()
        .unwrap()
        .to_toml();
    assert!(!shown.contains("aqm"));
}
