//! The controllers of issue 37, built by name from the registry and seen through a connection:
//! the decrease each applies at a fast retransmit (the seed 003 window: 14 packets in flight,
//! DupThresh duplicate ACKs, no RTT sample yet apart from the handshake's), and the registry's
//! protection of their names.

mod common;
use common::*;
use rexmit_tcp::cc::registry::{self, CcPlugin, RegisterError};
use rexmit_tcp::cc::{CcParams, CongestionControl};
use rexmit_tcp::{RecoveryAlgorithm, TcpConfig};
use std::sync::Arc;

fn ssthresh_after_fast_retransmit(cc: &str) -> (u64, String) {
    let c = TcpConfig {
        initial_cwnd_segments: 14,
        initial_ssthresh: 14 * MSS,
        cc: cc.into(),
        ..cfg(RecoveryAlgorithm::NewReno)
    };
    c.validate().unwrap();
    let mut s = Injector::established(c, false, 40 * MSS as usize);
    assert_eq!(s.sent().len(), 14);
    for t in 200..203 {
        s.ack(t, 1, &[]);
    }
    assert_eq!(s.c.stats().fast_retransmits, 1, "{cc}");
    (s.c.ssthresh(), s.c.cc_name().to_string())
}

#[test]
fn each_new_controller_applies_its_own_decrease() {
    let cases = [
        // ns-3's TcpVegas::GetSsThresh: min(ssthresh, cwnd − 1 segment).
        ("vegas", 13_000),
        // Veno: no backlog measured (N = 0 < β): a random loss, 4/5.
        ("veno", 11_200),
        // Illinois below win_thresh (15 segments): β_base = 1/2.
        ("illinois", 7_000),
        // H-TCP's first congestion event: no previous throughput, β = 1/2.
        ("htcp", 7_000),
        ("hybla", 7_000),
        // YeAH not competing with Reno: max(Q = 0, 14 >> 3 = 1) segment off.
        ("yeah", 13_000),
        // BIC at low_wnd (14 segments) and above: β = 0.8.
        ("bic", 11_200),
        ("lp", 7_000),
        // LEDBAT (RFC 6817 §2.4.2): half.
        ("ledbat", 7_000),
    ];
    for (cc, ssthresh) in cases {
        assert_eq!(
            ssthresh_after_fast_retransmit(cc),
            (ssthresh, cc.to_string())
        );
    }
}

#[test]
fn the_new_controllers_are_built_ins_a_plugin_cannot_replace() {
    struct Impostor;
    impl CcPlugin for Impostor {
        fn name(&self) -> &str {
            "vegas"
        }
        fn build(&self, _: &CcParams, _: &[f64]) -> Box<dyn CongestionControl> {
            unreachable!()
        }
    }
    assert_eq!(
        registry::register(Arc::new(Impostor), true),
        Err(RegisterError::Builtin("vegas".into(), "controller"))
    );
    for name in [
        "vegas", "veno", "illinois", "htcp", "hybla", "yeah", "bic", "lp", "ledbat",
    ] {
        assert!(registry::is_builtin(name), "{name}");
        let p = registry::lookup(name).unwrap();
        assert!(!p.doc().is_empty(), "{name}");
        // Every default lies in its declared range.
        registry::resolve(p.as_ref(), &Default::default()).unwrap();
    }
    // ns-3.44's defaults.
    let defaults = |name: &str| -> Vec<(String, f64)> {
        let p = registry::lookup(name).unwrap();
        p.params()
            .iter()
            .map(|s| (s.name.clone(), s.default))
            .collect()
    };
    let d = defaults("vegas");
    assert_eq!(
        d,
        // slow_start_hold: the paper's slow start (§3.3); ns-3's is 0.
        [
            ("alpha", 2.0),
            ("beta", 4.0),
            ("gamma", 1.0),
            ("slow_start_hold", 1.0)
        ]
        .map(|(k, v)| (k.to_string(), v))
    );
    assert_eq!(defaults("veno"), [("beta".to_string(), 3.0)]);
    assert_eq!(
        defaults("ledbat")[..2],
        [("target_ms".to_string(), 100.0), ("gain".to_string(), 1.0)]
    );
    assert_eq!(defaults("hybla"), [("rtt0_ms".to_string(), 50.0)]);
    assert!(!registry::is_builtin("fixed_window"));
}
