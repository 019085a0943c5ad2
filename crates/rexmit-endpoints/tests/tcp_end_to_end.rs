//! TCP over the simulated network, checked against what the seed 001 setup must give.

use rexmit_endpoints::testbeds::seed001_single_flow;
use rexmit_engine::RunLimits;
use rexmit_tcp::{CcAlgorithm, RecoveryAlgorithm, TcpConfig};
use rexmit_time::Time;
use std::collections::BTreeMap;

fn seed001(burst_rate: f64, recovery: RecoveryAlgorithm, cc: CcAlgorithm, secs: u64, seed: u64) -> BTreeMap<String, f64> {
    let cfg = TcpConfig { recovery, cc, send_buffer: 1 << 20, recv_buffer: 1 << 20, ..TcpConfig::default() };
    let mut sim = seed001_single_flow(burst_rate, cfg, seed);
    sim.run(&RunLimits::until(Time::from_secs(secs)), |_| true).unwrap();
    sim.agent_metrics().into_iter().flat_map(|(_, _, m)| m).collect()
}

const VARIANTS: [(RecoveryAlgorithm, CcAlgorithm); 5] = [
    (RecoveryAlgorithm::Tahoe, CcAlgorithm::Reno),
    (RecoveryAlgorithm::Reno, CcAlgorithm::Reno),
    (RecoveryAlgorithm::NewReno, CcAlgorithm::Reno),
    (RecoveryAlgorithm::Sack, CcAlgorithm::Reno),
    (RecoveryAlgorithm::NewReno, CcAlgorithm::Westwood),
];

/// Seed 001 Fig. 9: at burst error rates ≤ 1e-5 every variant fills the 4 Mb/s bottleneck.
/// Payload ceiling: 4 Mb/s × 1460/1500 = 3.89 Mb/s; over 60 s the slow-start ramp and the rare
/// burst cost a little, so ≥ 90 % of the ceiling is required.
#[test]
fn every_variant_fills_the_bottleneck_at_low_error_rates() {
    for (rec, cc) in VARIANTS {
        let m = seed001(1e-5, rec, cc.clone(), 60, 1);
        let g = m["goodput_bps"];
        assert!(g > 0.9 * 3.893e6, "{rec:?}/{cc:?}: goodput {g}");
        assert!(g < 3.894e6, "{rec:?}/{cc:?}: goodput {g} above the link's payload capacity");
        assert!(m["bytes_acked"] <= m["bytes_delivered"], "acked data must have been delivered");
    }
}

/// With burst losses every variant still delivers every acknowledged byte, and recovers.
#[test]
fn burst_losses_are_recovered_by_every_variant() {
    for (rec, cc) in VARIANTS {
        let m = seed001(1e-3, rec, cc.clone(), 30, 2);
        assert!(m["retransmits"] > 0.0, "{rec:?}: {m:?}");
        assert!(m["bytes_delivered"] >= m["bytes_acked"], "{rec:?}: acked data was delivered");
        assert!(m["goodput_bps"] > 0.3e6, "{rec:?}/{cc:?}: {m:?}");
        // Recovery episodes: each lasts at least one round trip (≈ 100 ms here) and their
        // total stays within the run.
        assert!(m["recoveries"] > 0.0, "{rec:?}");
        assert!(m["recovery_max_s"] >= m["recovery_mean_s"] && m["recovery_mean_s"] >= 0.1, "{rec:?}: {m:?}");
        assert!(m["recovery_total_s"] <= 30.0 && m["recovery_total_s"] >= m["recovery_max_s"], "{rec:?}: {m:?}");
    }
}
