//! A congestion controller written outside the workspace's crates, registered by name and
//! selected from a scenario file with its own parameters (issue 36): the registry is the
//! same path the built-ins take.

use rexmit_scenario::run::run;
use rexmit_scenario::Scenario;
use rexmit_tcp::cc::registry::{self, CcPlugin, ParamSpec, RegisterError};
use rexmit_tcp::cc::{AckSample, CcParams, CongestionControl, CongestionEvent, OwnWrite};
use std::sync::Arc;

/// A fixed window of `segments` SMSS, whatever happens.
#[derive(Debug)]
struct Fixed {
    cwnd: u64,
}

impl CongestionControl for Fixed {
    fn window(&self) -> u64 {
        self.cwnd
    }
    fn ssthresh(&self) -> u64 {
        self.cwnd
    }
    fn name(&self) -> &str {
        "fixed_window"
    }
    fn store_cwnd(&mut self, _cwnd: u64, _: OwnWrite) {}
    fn store_ssthresh(&mut self, _ssthresh: u64, _: OwnWrite) {}
    fn on_ack(&mut self, _ack: &AckSample) {}
    fn on_congestion_event(&mut self, _ev: &CongestionEvent) {}
}

struct FixedPlugin {
    params: Vec<ParamSpec>,
}

impl CcPlugin for FixedPlugin {
    fn name(&self) -> &str {
        "fixed_window"
    }
    fn params(&self) -> &[ParamSpec] {
        &self.params
    }
    fn build(&self, p: &CcParams, values: &[f64]) -> Box<dyn CongestionControl> {
        Box::new(Fixed {
            cwnd: values[0] as u64 * p.smss,
        })
    }
}

fn register() {
    let plugin = FixedPlugin {
        params: vec![ParamSpec::new("segments", "window in segments", 4.0, 1.0, 1000.0).integer()],
    };
    // Tests of this file run in threads of one process: registering twice replaces.
    registry::register(Arc::new(plugin), true).unwrap();
}

/// One flow over a loss-free 10 Mb/s, 2 × 20 ms path with a `cc` table entry.
fn scenario(tcp: &str) -> String {
    format!(
        r#"stop_time = "5s"
[topology]
kind = "chain"
nodes = ["A", "B"]
links = [{{ rate = "10Mbps", delay = "20ms", queue = {{ packets = 1000 }} }}]
[[apps]]
name = "f"
kind = "tcp_bulk"
from = "A"
to = "B"
warmup = "1s"
tcp = {{ {tcp} }}
"#
    )
}

fn goodput(tcp: &str) -> f64 {
    let s = Scenario::from_toml(&scenario(tcp)).unwrap();
    let r = run(&s, None, |_| true).unwrap();
    let row = r.flows.iter().find(|f| f.name == "f").unwrap();
    row.metrics
        .iter()
        .find(|(k, _)| k == "goodput_bps")
        .map(|m| m.1)
        .unwrap()
}

#[test]
fn a_registered_plugin_runs_by_name_with_its_parameters() {
    register();
    // A window of W segments over a ~40 ms RTT: W · 1460 · 8 / 0.04 bit/s, well below the link.
    for w in [2.0, 8.0] {
        let g = goodput(&format!(
            "cc = \"fixed_window\", cc_params = {{ segments = {w} }}"
        ));
        let want = w * 1460.0 * 8.0 / 0.0405;
        assert!((g / want - 1.0).abs() < 0.05, "W = {w}: {g} vs {want}");
    }
    // Its default (4 segments) when cc_params is left out.
    let g = goodput("cc = \"fixed_window\"");
    assert!((g / (4.0 * 1460.0 * 8.0 / 0.0405) - 1.0).abs() < 0.05);
}

#[test]
fn a_plugins_parameters_are_checked_against_its_declared_ranges() {
    register();
    let err = |tcp: &str| Scenario::from_toml(&scenario(tcp)).unwrap_err().to_string();
    assert!(
        err("cc = \"fixed_window\", cc_params = { segments = 0 }").contains(
            "apps[0].tcp.cc_params.segments: 0 is out of range: allowed [1, 1000] (whole numbers)"
        ),
        "{}",
        err("cc = \"fixed_window\", cc_params = { segments = 0 }")
    );
    assert!(err("cc = \"fixed_window\", cc_params = { segments = 2.5 }").contains("whole numbers"));
    assert!(err("cc = \"fixed_window\", cc_params = { window = 3 }")
        .contains("cc_params.window: 3 is out of range: allowed a parameter of cc = \"fixed_window\": segments"));
    assert!(
        err("cc = \"fixed_windo\"").contains("fixed_window"),
        "the names are listed"
    );
}

#[test]
fn registration_refuses_builtin_names_bad_names_and_silent_replacement() {
    register();
    let again = FixedPlugin { params: vec![] };
    assert_eq!(
        registry::register(Arc::new(again), false),
        Err(RegisterError::Taken("fixed_window".into(), "controller"))
    );
    struct Named(&'static str);
    impl CcPlugin for Named {
        fn name(&self) -> &str {
            self.0
        }
        fn build(&self, _: &CcParams, _: &[f64]) -> Box<dyn CongestionControl> {
            unreachable!()
        }
    }
    assert_eq!(
        registry::register(Arc::new(Named("cubic")), true),
        Err(RegisterError::Builtin("cubic".into(), "controller"))
    );
    assert_eq!(
        registry::register(Arc::new(Named("My CC")), true),
        Err(RegisterError::BadName("My CC".into(), "controller"))
    );
}
