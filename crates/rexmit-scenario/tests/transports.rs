//! TCP and SCTP apps from scenario files: they run end to end and give the seed papers'
//! qualitative results; their settings are validated with key paths.

use rexmit_scenario::run::run;
use rexmit_scenario::Scenario;
use std::path::PathBuf;

fn example(name: &str) -> String {
    std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples").join(name)).unwrap()
}

fn flow_metric(r: &rexmit_scenario::RunResults, flow: &str, key: &str) -> f64 {
    let row = r.flows.iter().find(|f| f.name == flow).unwrap();
    row.metrics.iter().find(|(k, _)| k == key).unwrap_or_else(|| panic!("no {key}")).1
}

#[test]
fn tcp_seed001_example_recovers_burst_losses_near_capacity() {
    let s = Scenario::from_toml(&example("tcp_seed001.toml")).unwrap();
    let r = run(&s, None, |_| true).unwrap();
    let g = flow_metric(&r, "bulk", "goodput_bps");
    // Seed 001 Fig. 9 at 1e-3: SACK keeps most of the 3.89 Mb/s payload capacity.
    assert!(g > 2.5e6 && g < 3.894e6, "goodput {g}");
    assert!(flow_metric(&r, "bulk", "retransmits") > 10.0);
    assert_eq!(r.series.len(), 1);
    assert!(r.series[0].values.iter().all(|v| *v > 0.0), "cwnd is always positive");
}

#[test]
fn sctp_example_nr_sack_vs_sack_rtxq_util() {
    let nr = Scenario::from_toml(&example("sctp_nrsack.toml")).unwrap();
    let text = example("sctp_nrsack.toml").replace("nr_sack = true", "nr_sack = false");
    let sack = Scenario::from_toml(&text).unwrap();
    let (rn, rs) = (run(&nr, None, |_| true).unwrap(), run(&sack, None, |_| true).unwrap());
    let (un, us) = (flow_metric(&rn, "sctp", "rtxq_util"), flow_metric(&rs, "sctp", "rtxq_util"));
    assert!((un - 1.0).abs() < 1e-9, "NR-SACK RtxQ_Util {un}");
    assert!(us < 0.99, "SACK RtxQ_Util {us}");
    assert!(flow_metric(&rs, "sctp", "rtxq_util_l") < 0.8);
    assert_eq!(flow_metric(&rn, "sctp", "nr_sack"), 1.0);
}

#[test]
fn transport_settings_errors_name_the_key() {
    let base = example("tcp_seed001.toml");
    let cases = [
        ("recovery = \"sack\"", "recovery = \"vegas\"", "apps[0].tcp.recovery"),
        ("cc = \"reno\"", "cc = \"aimd\"", "apps[0].tcp.aimd_a"),
        ("cc = \"reno\"", "cc = \"reno\", aimd_a = 2.0", "apps[0].tcp.aimd_a"),
        ("cc = \"reno\"", "cc = \"reno\", rto = { min = \"0s\" }", "apps[0].tcp.rto.min"),
        ("cc = \"reno\"", "cc = \"reno\", mss = 10", "apps[0].tcp.mss"),
        ("cc = \"reno\"", "cc = \"reno\", windowscale = true", "windowscale"),
        ("kind = \"tcp_bulk\"", "kind = \"tcp_bulk\"\nrate = \"1Mbps\"", "apps[0].rate"),
        ("kind = \"tcp_bulk\"", "kind = \"tcp_bulk\"\nmessages = 3", "apps[0].messages"),
    ];
    for (from, to, needle) in cases {
        let e = Scenario::from_toml(&base.replacen(from, to, 1)).expect_err(to).to_string();
        assert!(e.contains(needle), "{to}: {e}");
    }
    let base = example("sctp_nrsack.toml");
    let cases = [
        ("nr_sack = true", "nr_sack = true, cmt = { rtx_policy = \"never\" }", "apps[0].sctp"),
        ("nr_sack = true", "nr_sack = true, sack_freq = 0", "apps[0].sctp.sack_freq"),
        ("warmup = \"2s\"", "warmup = \"2s\"\nstreams = 0", "apps[0].streams"),
        ("warmup = \"2s\"", "warmup = \"40s\"", "apps[0].warmup"),
        ("warmup = \"2s\"", "warmup = \"2s\"\nbytes = 5", "apps[0].bytes"),
    ];
    for (from, to, needle) in cases {
        let e = Scenario::from_toml(&base.replacen(from, to, 1)).expect_err(to).to_string();
        assert!(e.contains(needle), "{to}: {e}");
    }
}

#[test]
fn scripted_tcp_drop_by_sequence_number_from_a_scenario() {
    // The first data segment after the handshake carries sequence number ISS+1, which a
    // scenario cannot know; drop by packet number of the app's flow instead: its 5th packet.
    let text = example("tcp_seed001.toml")
        .replace("{ kind = \"burst\", rate = 1e-3, size = { min = 2, max = 5 }, direction = \"forward\" },", "{ kind = \"scripted\", app = \"bulk\", packets = [5, 6, 7], direction = \"forward\" },")
        .replace("stop_time = \"60s\"", "stop_time = \"10s\"");
    let s = Scenario::from_toml(&text).unwrap();
    let r = run(&s, None, |_| true).unwrap();
    let link = r.links.iter().find(|l| l.name == "G1->G2").unwrap();
    let drops = link.metrics.iter().find(|(k, _)| k == "drop_error").unwrap().1;
    assert_eq!(drops, 3.0);
    assert!(flow_metric(&r, "bulk", "retransmits") >= 3.0);
    assert_eq!(flow_metric(&r, "bulk", "spurious_retransmits"), 0.0);
}
