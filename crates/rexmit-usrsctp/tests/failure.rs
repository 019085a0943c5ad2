//! An association that fails reports it, with the stack's own count of retransmission timeouts:
//! one that cannot be set up (every INIT lost) and one whose path dies after the handshake
//! (RFC 9260 §8.1: the association is closed once its error count exceeds
//! Association.Max.Retrans).

mod common;
use common::*;
use rexmit_net::{ErrorModelConfig, FlowMatch, ScriptSelect};
use rexmit_sctp::SctpConfig;
use rexmit_time::{Duration, Rate};
use rexmit_usrsctp::StackRun;

fn run(cfg: &SctpConfig, keys: &[&str], errors: Vec<ErrorModelConfig>, secs: u64) -> Metrics {
    let mut sim = chain_with_errors(1, Rate::from_mbps(10), Duration::from_millis(10), errors);
    let run = StackRun::open(1).unwrap();
    add_association(
        &mut sim,
        &run,
        cfg,
        keys,
        bulk(1000, Some(20)),
        49152,
        "app",
        None,
    );
    drop(run);
    run_until(&mut sim, secs);
    metrics(&sim)
}

fn short_timers() -> SctpConfig {
    let mut cfg = SctpConfig::default();
    cfg.rto.initial = Duration::from_secs(1);
    cfg.rto.max = Duration::from_secs(2);
    cfg.assoc_max_retrans = 3;
    cfg.path_max_retrans = 3;
    cfg.max_init_retransmits = 3;
    cfg
}

#[test]
fn every_init_lost_fails_the_setup() {
    if !usrsctp_or_skip() {
        return;
    }
    let all_lost = vec![ErrorModelConfig::Uniform { rate: 1.0 }];
    let m = run(&short_timers(), &["rto.initial", "rto.max"], all_lost, 30);
    assert_eq!(m["app"]["failure"], 4.0, "{:?}", m["app"]);
    assert_eq!(m["app"]["messages_sent"], 0.0);
}

#[test]
fn a_dead_path_after_the_handshake_closes_the_association() {
    if !usrsctp_or_skip() {
        return;
    }
    // Packets 1 and 2 on the bottleneck's forward direction are the INIT and the COOKIE-ECHO;
    // everything after them is lost.
    let dead = vec![ErrorModelConfig::Scripted {
        flow: FlowMatch::default(),
        select: ScriptSelect::PacketNumbers((3..=200).collect()),
    }];
    let m = run(
        &short_timers(),
        &[
            "rto.initial",
            "rto.max",
            "assoc_max_retrans",
            "path_max_retrans",
        ],
        dead,
        30,
    );
    let a = &m["app"];
    assert_eq!(a["failure"], 3.0, "{a:?}");
    // FreeBSD aborts when the error count exceeds Association.Max.Retrans (3): at the fourth
    // T3-rtx expiry.
    assert_eq!(a["timeouts"], 4.0, "{a:?}");
    assert!(a["retransmissions"] >= 3.0, "{a:?}");
    assert_eq!(m["app/sink"]["messages_delivered"], 0.0);
}
