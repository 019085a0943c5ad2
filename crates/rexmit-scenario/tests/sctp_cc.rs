//! `sctp = { cc = ..., cc_params = ... }` from scenario files: a registered controller runs on
//! the association's path and owns its window (docs/congestion_control.md, "SCTP"). The
//! built-in CUBIC and a Rust plugin registered here carry bulk transfers to the end, the
//! traced cwnd follows each, and options that write the window are refused by key path.

use rexmit_scenario::run::run;
use rexmit_scenario::{RunResults, Scenario};
use rexmit_tcp::cc::registry::{self, CcPlugin, ParamSpec};
use rexmit_tcp::cc::{AckSample, CcParams, CongestionControl, CongestionEvent, OwnWrite};
use std::sync::Arc;

/// The MTU of SCTP's window rules at the default pmtu 1500 (`max_data_payload`).
const MTU: u64 = 1452;
const MESSAGES: u64 = 2000;

/// A chain A-R-B (10 Mb/s, 5 ms per link) whose first link drops the first transmission of
/// each TSN in `drops`, carrying `MESSAGES` full chunks with `sctp`, traced.
fn scenario(drops: &str, sctp: &str) -> String {
    format!(
        r#"stop_time = "20s"
[topology]
kind = "chain"
nodes = ["A", "R", "B"]
links = [
  {{ rate = "10Mbps", delay = "5ms", errors = [{{ kind = "scripted", app = "f", sctp_tsns = [{drops}], direction = "forward" }}] }},
  {{ rate = "10Mbps", delay = "5ms" }},
]
[[apps]]
name = "f"
kind = "sctp_bulk"
from = "A"
to = "B"
messages = {MESSAGES}
sctp = {{ send_buffer = "1MiB", recv_buffer = "1MiB"{sctp} }}
[[metrics.trace]]
flow = "f"
"#
    )
}

/// The run of `scenario(drops, sctp)`.
fn run_with(drops: &str, sctp: &str) -> RunResults {
    run(
        &Scenario::from_toml(&scenario(drops, sctp)).unwrap(),
        None,
        |_| true,
    )
    .unwrap()
}

/// Column `col` of the flow's trace table `name` (`trace_state`, `trace_acks`, ...).
fn traced<'a>(r: &'a RunResults, name: &str, col: &str) -> &'a [u64] {
    let t = r.tables.iter().find(|t| t.table == name && t.flow == "f");
    let t = t.unwrap_or_else(|| panic!("no table {name}"));
    &t.columns
        .iter()
        .find(|(c, _)| c == col)
        .expect("a column")
        .1
}

/// Every message was acknowledged: the cumulative TSN ack point reached the last one.
fn completed(r: &RunResults) -> bool {
    traced(r, "trace_acks", "cum").last() == Some(&(MESSAGES + 1))
}

/// (cwnd before, ssthresh set) at each entry into fast recovery, from the traced state.
fn reductions(r: &RunResults) -> Vec<(u64, u64)> {
    let state = |col| traced(r, "trace_state", col);
    let (cwnd, ssthresh, rec) = (state("cwnd"), state("ssthresh"), state("recovery"));
    (1..rec.len())
        .filter(|&i| rec[i - 1] == 0 && rec[i] == 1)
        .map(|i| (cwnd[i - 1], ssthresh[i]))
        .collect()
}

#[test]
fn cubic_carries_an_sctp_transfer_and_reduces_by_its_beta() {
    let drops = "300, 1200";
    let cubic = run_with(drops, ", cc = \"cubic\"");
    assert!(completed(&cubic));
    // RFC 9438 §4.6: ssthresh = cwnd · β_cubic (0.7), from cwnd (SCTP decreases from cwnd,
    // RFC 9260 §7.2.3), at least CUBIC's own floor of 2·SMSS.
    let r = reductions(&cubic);
    assert_eq!(r.len(), 2, "{r:?}");
    for (cwnd, ssthresh) in r {
        assert_eq!(
            ssthresh,
            ((cwnd as f64 * 0.7) as u64).max(2 * MTU),
            "{cwnd}"
        );
    }
    // The built-in rules on the same drops: RFC 9260 §7.2.3, max(cwnd/2, 4·MTU).
    let builtin = run_with(drops, "");
    assert!(completed(&builtin));
    let r = reductions(&builtin);
    assert_eq!(r.len(), 2, "{r:?}");
    for (cwnd, ssthresh) in r {
        assert_eq!(ssthresh, (cwnd / 2).max(4 * MTU), "{cwnd}");
    }
}

/// A plugin written here, outside the crates: a window of `segments` MTUs that halves at
/// each congestion event (never below one MTU) and never grows.
#[derive(Debug)]
struct Halving {
    cwnd: u64,
    mtu: u64,
}

impl CongestionControl for Halving {
    fn name(&self) -> &str {
        "sctp_halving"
    }
    fn on_congestion_event(&mut self, _ev: &CongestionEvent) {
        self.cwnd = (self.cwnd / 2).max(self.mtu);
    }
    fn on_ack(&mut self, _ack: &AckSample) {}
    fn window(&self) -> u64 {
        self.cwnd
    }
    fn ssthresh(&self) -> u64 {
        self.cwnd
    }
    fn store_cwnd(&mut self, cwnd: u64, _: OwnWrite) {
        self.cwnd = cwnd;
    }
    fn store_ssthresh(&mut self, _ssthresh: u64, _: OwnWrite) {}
}

struct HalvingPlugin(Vec<ParamSpec>);

impl CcPlugin for HalvingPlugin {
    fn name(&self) -> &str {
        "sctp_halving"
    }
    fn params(&self) -> &[ParamSpec] {
        &self.0
    }
    fn build(&self, p: &CcParams, values: &[f64]) -> Box<dyn CongestionControl> {
        let mtu = p.smss;
        Box::new(Halving {
            cwnd: values[0] as u64 * mtu,
            mtu,
        })
    }
}

fn register_halving() {
    let spec = ParamSpec::new("segments", "initial window in MTUs", 4.0, 1.0, 1000.0).integer();
    // Tests of this file run in threads of one process: registering again replaces.
    registry::register(Arc::new(HalvingPlugin(vec![spec])), true).unwrap();
}

#[test]
fn a_rust_plugin_owns_the_window_of_an_sctp_transfer() {
    register_halving();
    let r = run_with(
        "300",
        ", cc = \"sctp_halving\", cc_params = { segments = 8 }",
    );
    assert!(completed(&r));
    // Its window at every traced state: 8 MTUs (SMSS = the MTU of SCTP's rules) until the
    // fast retransmit of TSN 300, 4 after it; no slow start, no RFC 9260 §7.2 rule.
    let cwnd = traced(&r, "trace_state", "cwnd");
    let rec = traced(&r, "trace_state", "recovery");
    let first = rec.iter().position(|x| *x == 1).expect("a fast recovery");
    assert!(cwnd[..first].iter().all(|c| *c == 8 * MTU), "{cwnd:?}");
    assert!(cwnd[first..].iter().all(|c| *c == 4 * MTU), "{cwnd:?}");
    // Window-limited: 8, then 4 chunks per round trip (20 ms of propagation, 2.4 ms of
    // serializing a 1500-byte packet on two links), from the first DATA to the last SACK.
    let start = traced(&r, "trace_sent", "t_ns")[0];
    let end = *traced(&r, "trace_acks", "t_ns").last().unwrap();
    let took = (end - start) as f64 / 1e9;
    let rtt = 0.020 + 2.0 * 1500.0 * 8.0 / 10e6;
    let want = (300.0 / 8.0 + (MESSAGES as f64 - 300.0) / 4.0) * rtt;
    assert!((took / want - 1.0).abs() < 0.1, "{took} s vs {want} s");
}

#[test]
fn sctp_controller_errors_name_the_key() {
    register_halving();
    let err = |sctp: &str| {
        Scenario::from_toml(&scenario("300", sctp))
            .unwrap_err()
            .to_string()
    };
    let cases = [
        (
            ", cc = \"cubic\", max_burst_rule = \"clamp_cwnd\"",
            "apps[0].sctp.max_burst_rule: \"clamp_cwnd\" writes the window, which a plugged controller owns: allowed \"limit_packets\" with sctp.cc",
        ),
        (
            ", cc = \"cubic\", thin = { early_fast_retransmit = true }",
            "apps[0].sctp.thin.early_fast_retransmit: true lowers cwnd by one MTU with no event for it, and a plugged controller owns the window: allowed false with sctp.cc",
        ),
        (
            ", cc = \"bbr\"",
            "apps[0].sctp.cc: \"bbr\" needs delivery-rate samples (on_rate_ack), which SCTP does not produce (no rate estimator): allowed a controller that needs no delivery-rate samples",
        ),
        (
            ", cc = \"dctcp\"",
            "apps[0].sctp.cc: \"dctcp\" needs DCTCP's per-packet ECN echo (RFC 8257 §3.2); SCTP's ECNE echoes one mark until a CWR (RFC 9260 Appendix A): allowed a controller that needs no per-packet ECN feedback",
        ),
        (
            ", cc = \"vegas9\"",
            "apps[0].sctp.cc: \"vegas9\" is not a registered congestion controller: one of aimd, bbr, bic, cubic",
        ),
        (
            ", cc_params = { a = 2 }",
            "apps[0].sctp.cc_params: { a = 2 } is out of range: allowed empty without cc",
        ),
        (
            ", cc = \"sctp_halving\", cc_params = { segments = 0 }",
            "apps[0].sctp.cc_params.segments: 0 is out of range: allowed [1, 1000] (whole numbers)",
        ),
    ];
    for (sctp, want) in cases {
        let got = err(sctp);
        assert!(got.contains(want), "{sctp}:\n{got}");
    }
}

/// `rexmit normalize` writes the controller with every parameter; unset, it writes neither
/// key (scenarios written before `cc` existed keep their normalized text).
#[test]
fn normalize_writes_the_controller_and_its_parameters_only_when_set() {
    let filled = |sctp: &str| {
        let s = Scenario::from_toml(&scenario("300", sctp)).unwrap();
        s.with_defaults().unwrap().to_toml()
    };
    let aimd = filled(", cc = \"aimd\", cc_params = { a = 2 }");
    assert!(aimd.contains("\ncc = \"aimd\"\n"), "{aimd}");
    assert!(
        aimd.contains("[apps.sctp.cc_params]\na = 2.0\nb = 0.5\n"),
        "{aimd}"
    );
    let unset = filled("");
    assert!(
        !unset.contains("\ncc = ") && !unset.contains("cc_params"),
        "{unset}"
    );
}
