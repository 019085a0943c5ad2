//! Scenario files: the examples run and match hand calculation; every kind of bad input gives an
//! error naming the key path; a scenario round-trips through TOML and JSON; runs are
//! deterministic.

use rexmit_scenario::run::run;
use rexmit_scenario::{RunResults, Scenario};
use std::path::PathBuf;

fn example(name: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples").join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn metric(rows: &[rexmit_scenario::results::Row], name: &str, key: &str) -> f64 {
    let r = rows.iter().find(|r| r.name == name).unwrap_or_else(|| panic!("no row {name}"));
    r.metrics.iter().find(|(k, _)| k == key).unwrap_or_else(|| panic!("no metric {key}")).1
}

fn run_quiet(s: &Scenario) -> RunResults {
    let dir = std::env::temp_dir().join(format!("rexmit-test-{}-{}", std::process::id(), s.seed));
    run(s, Some(&dir), |_| true).unwrap()
}

#[test]
fn udp_dumbbell_example_matches_hand_calculation() {
    let s = Scenario::from_toml(&example("udp_dumbbell.toml")).unwrap();
    let r = run_quiet(&s);
    assert!(r.summary.partial.is_none());
    // The bottleneck is saturated: utilisation ≈ 1 and it carries 10 Mb/s (the on/off flow
    // alone averages 3 Mb/s, so 12 Mb/s is offered on average).
    let util = metric(&r.links, "R1->R2", "utilization");
    assert!(util > 0.98 && util <= 1.0, "utilisation {util}");
    assert!(metric(&r.links, "R1->R2", "drop_overflow") > 0.0);
    assert_eq!(metric(&r.links, "R1->R2", "queue_packets_max"), 50.0);
    // One-way delay never below 12.96 ms (no queueing) nor above it plus a full queue (50 × 0.8 ms)
    // plus the packet in service.
    for f in ["cbr0", "cbr1", "cbr2", "cbr3"] {
        let dmin = metric(&r.flows, f, "delay_min_s");
        let dmax = metric(&r.flows, f, "delay_max_s");
        assert!(dmin >= 0.01296 - 1e-12, "{f} min {dmin}");
        assert!(dmax <= 0.01296 + 51.0 * 0.0008 + 1e-9, "{f} max {dmax}");
    }
    assert_eq!(r.series.len(), 2);
    assert_eq!(r.series[0].t_ns.len(), 2001); // 0, 10 ms, ..., 20 s
    assert_eq!(r.pcap_files.len(), 1);
    assert_eq!(r.summary.pcap_errors, 0);
}

#[test]
fn lossy_chain_example_runs_and_drops_the_scripted_packets() {
    let s = Scenario::from_toml(&example("lossy_chain.toml")).unwrap();
    let r = run_quiet(&s);
    let sent = metric(&r.flows, "voice", "tx_packets");
    let got = metric(&r.flows, "voice", "rx_packets");
    assert!(sent - got >= 3.0, "the 3 scripted drops at least: sent {sent} got {got}");
    assert!(metric(&r.links, "R1->R2", "drop_error") >= 3.0);
}

#[test]
fn scenario_round_trips_through_toml_and_json() {
    for f in ["udp_dumbbell.toml", "lossy_chain.toml"] {
        let s = Scenario::from_toml(&example(f)).unwrap();
        assert_eq!(Scenario::from_toml(&s.to_toml()).unwrap(), s, "{f} via TOML");
        assert_eq!(Scenario::from_json(&s.to_json()).unwrap(), s, "{f} via JSON");
    }
}

#[test]
fn same_scenario_and_seed_give_identical_results() {
    let s = Scenario::from_toml(&example("lossy_chain.toml")).unwrap();
    let strip = |r: &RunResults| {
        let mut r = r.clone();
        r.summary.wall_time_s = 0.0;
        r.pcap_files.clear();
        let series: Vec<_> = r.series.iter().map(|x| (x.name.clone(), x.t_ns.clone(), x.values.iter().map(|v| v.to_bits()).collect::<Vec<_>>())).collect();
        (serde_json::to_string(&r).unwrap(), series)
    };
    let a = strip(&run_quiet(&s));
    let b = strip(&run_quiet(&s));
    assert_eq!(a, b);
    let mut s2 = s.clone();
    s2.seed += 1;
    assert_ne!(a, strip(&run_quiet(&s2)));
}

const BASE: &str = r#"
stop_time = "1s"
[topology]
kind = "chain"
nodes = ["A", "R", "B"]
links = [ { rate = "10Mbps", delay = "1ms" }, { rate = "10Mbps", delay = "1ms" } ]
[[apps]]
name = "f"
kind = "udp_cbr"
from = "A"
to = "B"
rate = "1Mbps"
packet_size = 1000
"#;

/// (what to change in BASE, expected path, a word the message must contain)
const BAD: &[(&str, &str, &str, &str)] = &[
    ("unknown top-level key", "stop_time = \"1s\"", "stop_time = \"1s\"\nstoptime = 3", "stoptime"),
    ("unknown key in a link", "{ rate = \"10Mbps\", delay = \"1ms\" }, { rate", "{ rate = \"10Mbps\", delay = \"1ms\", bandwith = 3 }, { rate", "bandwith"),
    ("wrong type", "packet_size = 1000", "packet_size = \"big\"", "packet_size"),
    ("negative rate", "rate = \"1Mbps\"", "rate = \"-1Mbps\"", "rate"),
    ("zero bandwidth", "links = [ { rate = \"10Mbps\"", "links = [ { rate = \"0Mbps\"", "topology.links[0].rate"),
    ("rate without unit", "rate = \"1Mbps\"", "rate = \"1\"", "no unit"),
    ("duration without unit", "stop_time = \"1s\"", "stop_time = \"1\"", "no unit"),
    ("unknown node", "to = \"B\"", "to = \"C\"", "apps[0].to"),
    ("loss above 1", "delay = \"1ms\" }, {", "delay = \"1ms\", errors = [{ kind = \"uniform\", rate = 1.5 }] }, {", "topology.links[0].errors[0].rate"),
    ("negative probability", "delay = \"1ms\" }, {", "delay = \"1ms\", reorder = { probability = -0.1, mean_delay = \"1ms\" } }, {", "topology.links[0].reorder.probability"),
    ("unknown error model", "delay = \"1ms\" }, {", "delay = \"1ms\", errors = [{ kind = \"cosmic_rays\" }] }, {", "cosmic_rays"),
    ("packet too small", "packet_size = 1000", "packet_size = 10", "apps[0].packet_size"),
    ("missing rate", "rate = \"1Mbps\"\n", "", "apps[0].rate"),
    ("start after stop_time", "packet_size = 1000", "packet_size = 1000\nstart = \"2s\"", "apps[0].start"),
    ("zero stop time", "stop_time = \"1s\"", "stop_time = \"0s\"", "stop_time"),
    ("chain link count", ", { rate = \"10Mbps\", delay = \"1ms\" } ]", " ]", "topology.links"),
    ("queue with no limit", "links = [ { rate = \"10Mbps\", delay = \"1ms\" }", "links = [ { rate = \"10Mbps\", delay = \"1ms\", queue = {} }", "topology.links[0].queue"),
    ("zero queue", "links = [ { rate = \"10Mbps\", delay = \"1ms\" }", "links = [ { rate = \"10Mbps\", delay = \"1ms\", queue = { packets = 0 } }", "topology.links[0].queue.packets"),
    ("to_addr out of range", "to = \"B\"", "to = \"B\"\nto_addr = 3", "apps[0].to_addr"),
    ("same node twice", "nodes = [\"A\", \"R\", \"B\"]", "nodes = [\"A\", \"A\", \"B\"]", "twice"),
    ("field of another kind", "packet_size = 1000", "packet_size = 1000\non = { kind = \"fixed\", value = \"1s\" }", "apps[0].on"),
    ("unknown timeseries link", "packet_size = 1000", "packet_size = 1000\n[[metrics.timeseries]]\nkind = \"queue_packets\"\nlink = \"A->C\"\ninterval = \"1ms\"", "metrics.timeseries[0].link"),
    ("unknown probe", "packet_size = 1000", "packet_size = 1000\n[[metrics.timeseries]]\nkind = \"app\"\napp = \"f\"\nvalue = \"cwnd\"\ninterval = \"1ms\"", "metrics.timeseries[0].value"),
    ("burst size range", "delay = \"1ms\" }, {", "delay = \"1ms\", errors = [{ kind = \"burst\", rate = 0.1, size = { min = 5, max = 2 } }] }, {", "topology.links[0].errors[0].size"),
    ("scripted without selection", "delay = \"1ms\" }, {", "delay = \"1ms\", errors = [{ kind = \"scripted\", app = \"f\" }] }, {", "topology.links[0].errors[0]"),
    ("scripted unknown app", "delay = \"1ms\" }, {", "delay = \"1ms\", errors = [{ kind = \"scripted\", app = \"g\", packets = [1] }] }, {", "topology.links[0].errors[0].app"),
    ("toml syntax error", "stop_time = \"1s\"", "stop_time = = \"1s\"", "line"),
    ("red thresholds", "links = [ { rate = \"10Mbps\", delay = \"1ms\" }", "links = [ { rate = \"10Mbps\", delay = \"1ms\", queue = { packets = 10, red = { min_th = 9, max_th = 3 } } }", "topology.links[0].queue.red"),
];

#[test]
fn bad_scenarios_name_the_offending_key() {
    assert!(Scenario::from_toml(BASE).is_ok());
    for (what, from, to, needle) in BAD {
        assert!(BASE.contains(from), "{what}: BASE lacks {from:?}");
        let text = BASE.replacen(from, to, 1);
        let err = match Scenario::from_toml(&text) {
            Err(e) => e,
            Ok(s) => match rexmit_scenario::build::build(&s, None) {
                Err(e) => e,
                Ok(_) => panic!("{what}: accepted"),
            },
        };
        let shown = err.to_string();
        if std::env::var("SHOW_ERRORS").is_ok() { eprintln!("{what:28} -> {shown}"); }
        assert!(shown.contains(needle), "{what}: error {shown:?} does not mention {needle:?}");
    }
}

#[test]
fn impossible_route_is_reported() {
    // Two islands: A-R and B-Q, no link between them.
    let text = r#"
stop_time = "1s"
[[nodes]]
name = "A"
[[nodes]]
name = "R"
[[nodes]]
name = "B"
[[links]]
between = ["A", "R"]
rate = "1Mbps"
delay = "1ms"
[[links]]
between = ["R", "A"]
rate = "1Mbps"
delay = "1ms"
[[apps]]
name = "f"
kind = "udp_cbr"
from = "A"
to = "B"
rate = "1Mbps"
packet_size = 100
"#;
    let s = Scenario::from_toml(text).unwrap();
    let e = rexmit_scenario::build::build(&s, None).err().expect("must fail");
    // B has no links at all: it has no address to send to.
    assert!(e.to_string().contains("apps[0]"), "{e}");
}
