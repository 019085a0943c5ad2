//! Several usrsctp associations in one run share the process's one stack: each gets its own
//! ports and paths inside it, and what the stack sends reaches the right agent.

mod common;
use common::*;
use rexmit_sctp::SctpConfig;
use rexmit_time::{Duration, Rate};
use rexmit_usrsctp::association::{place, AssociationSpec};
use rexmit_usrsctp::{StackError, StackRun, UsrsctpConfig};

#[test]
fn two_associations_over_one_bottleneck_both_deliver_everything() {
    if !usrsctp_or_skip() {
        return;
    }
    let mut sim = lossy_chain(9, Rate::from_mbps(5), Duration::from_millis(20), 0.01);
    let run = StackRun::open(4).unwrap();
    let cfg = SctpConfig::default();
    let size = cfg.max_data_payload();
    let (na, nb) = (1500u64, 700u64);
    let ta = add_association(
        &mut sim,
        &run,
        &cfg,
        &[],
        bulk(size, Some(na)),
        49152,
        "a",
        None,
    );
    let tb = add_association(
        &mut sim,
        &run,
        &cfg,
        &[],
        bulk(1000, Some(nb)),
        49153,
        "b",
        None,
    );
    run_until(&mut sim, 60);
    assert_eq!(run.orphans(), 0, "every packet the stack sent had an owner");
    let m = metrics(&sim);
    assert_eq!(m["a/sink"]["bytes_delivered"], (na * size as u64) as f64);
    assert_eq!(m["b/sink"]["bytes_delivered"], (nb * 1000) as f64);
    assert_eq!(m["a/sink"]["messages_delivered"], na as f64);
    assert_eq!(m["b/sink"]["messages_delivered"], nb as f64);
    assert_eq!(ta.borrow().log.delivered().len() as u64, na);
    assert_eq!(tb.borrow().log.delivered().len() as u64, nb);
    for app in ["a", "b"] {
        assert_eq!(m[app]["failure"], 0.0);
        assert_eq!(m[app]["undecodable_packets"], 0.0);
        // Both lost packets on the shared bottleneck and recovered: the stack's counters are
        // credited to the endpoint that retransmitted.
        assert!(m[app]["retransmissions"] > 0.0, "{app}: {:?}", m[app]);
        assert!(
            m[app]["fast_retransmits"] + m[app]["timeouts"] + m[app]["stack_timeouts_unattributed"]
                > 0.0,
            "{app}: {:?}",
            m[app]
        );
    }
}

#[test]
fn apps_of_one_run_must_agree_on_stack_wide_settings() {
    if !usrsctp_or_skip() {
        return;
    }
    let run = StackRun::open(5).unwrap();
    let spec = |cfg: &SctpConfig| AssociationSpec {
        cfg: UsrsctpConfig::from_sctp(cfg, ["cmt.dac"]).unwrap(),
        app: bulk(1000, Some(1)),
        port: 1,
        paths: vec![("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap())],
        primary: 0,
        measure_from: rexmit_time::Time::ZERO,
        addressing: None,
    };
    let dac_on = SctpConfig::default();
    assert!(place(&run, spec(&dac_on)).is_ok());
    let mut dac_off = SctpConfig::default();
    dac_off.cmt.dac = false;
    let Err(e) = place(&run, spec(&dac_off)) else {
        panic!("a second value of a sysctl is refused")
    };
    assert!(
        matches!(
            e,
            StackError::Conflict {
                option: "cmt.dac",
                ..
            }
        ),
        "{e}"
    );
    assert!(
        e.to_string()
            .starts_with("sctp.cmt.dac: usrsctp has one value per process"),
        "{e}"
    );
}
