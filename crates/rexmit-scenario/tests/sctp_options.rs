//! SCTP's RACK (seed 002) and CMT DAC settings from scenario files: they reach the core, and
//! bad combinations come back with the key path.

use rexmit_scenario::run::run;
use rexmit_scenario::Scenario;
use std::path::PathBuf;

fn example(name: &str) -> String {
    std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../examples")
            .join(name),
    )
    .unwrap()
}

fn with_sctp(extra: &str) -> String {
    example("sctp_nrsack.toml").replace(
        "sctp = { nr_sack = true,",
        &format!("sctp = {{ {extra}, nr_sack = true,"),
    )
}

/// The `sctp = { ... }` table of an SCTP app.
fn sctp_table(a: &rexmit_scenario::schema::AppCfg) -> &rexmit_scenario::transport::SctpCfg {
    match a.transport() {
        rexmit_scenario::schema::Transport::Sctp(Some(t)) => t,
        _ => panic!("app {} has no sctp table", a.name),
    }
}

#[test]
fn rack_settings_reach_the_association_and_run() {
    let text = with_sctp(
        "rack = { enabled = true, burst_mitigation = \"max_burst\", pto_extra = \"1ms\", reo_wnd_persist = \"reordering\", rtt_probe = \"2s\" }",
    );
    let s = Scenario::from_toml(&text).unwrap();
    let cfg = sctp_table(&s.apps[0]).to_config("apps[0].sctp").unwrap();
    assert!(cfg.rack.enabled && cfg.rack.tlp);
    assert_eq!(
        cfg.rack.burst_mitigation,
        rexmit_sctp::BurstMitigation::MaxBurst
    );
    assert_eq!(cfg.rack.pto_extra, rexmit_time::Duration::from_millis(1));
    assert_eq!(
        cfg.rack.reo_wnd_persist,
        rexmit_transport::PersistFrom::Reordering
    );
    assert_eq!(
        cfg.rack.rtt_probe,
        Some(rexmit_time::Duration::from_secs(2))
    );
    let short =
        Scenario::from_toml(&text.replace("stop_time = \"30s\"", "stop_time = \"5s\"")).unwrap();
    let r = run(&short, None, |_| true).unwrap();
    let row = r.flows.iter().find(|f| f.name == "sctp").unwrap();
    let rack = row
        .metrics
        .iter()
        .find(|(k, _)| k == "rtx_rack")
        .map(|m| m.1);
    assert!(
        rack.is_some_and(|n| n > 0.0),
        "RACK retransmits under 1% loss: {rack:?}"
    );
}

/// `max_burst_rule` reaches the core (RFC 4960's cwnd clamp or RFC 9260's packet limit) and
/// an unknown rule is refused with its key.
#[test]
fn max_burst_rule_reaches_the_association() {
    let cfg = |extra: &str| {
        sctp_table(&Scenario::from_toml(&with_sctp(extra)).unwrap().apps[0])
            .to_config("apps[0].sctp")
            .unwrap()
            .max_burst_rule
    };
    assert_eq!(
        cfg("max_burst_rule = \"clamp_cwnd\""),
        rexmit_sctp::MaxBurstRule::ClampCwnd
    );
    assert_eq!(
        cfg("max_burst = 4"),
        rexmit_sctp::MaxBurstRule::LimitPackets
    );
    let e = Scenario::from_toml(&with_sctp("max_burst_rule = \"sometimes\""))
        .expect_err("unknown rule")
        .to_string();
    assert!(e.contains("max_burst_rule"), "{e}");
}

#[test]
fn rack_and_dac_errors_name_the_key() {
    let cases = [
        (
            "rack = { enabled = true }, cmt = { enabled = true }",
            "apps[0].sctp.rack.enabled",
        ),
        (
            "rack = { burst_mitigation = \"sometimes\" }",
            "burst_mitigation",
        ),
        (
            "rack = { pto_extra = \"1s\" }",
            "apps[0].sctp.rack.pto_extra",
        ),
        ("cmt = { dac = 1 }", "dac"),
    ];
    for (extra, needle) in cases {
        let e = Scenario::from_toml(&with_sctp(extra))
            .expect_err(extra)
            .to_string();
        assert!(e.contains(needle), "{extra}: {e}");
    }
}
