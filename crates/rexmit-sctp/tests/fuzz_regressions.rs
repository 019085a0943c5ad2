//! Inputs that made the `sctp_core` fuzz target fail, replayed as ordinary tests, and a
//! packet-by-packet test of each bug found.

use rexmit_sctp::fuzzing::run;
use rexmit_sctp::{Association, AssociationState, SctpConfig};
use rexmit_time::{Duration, Time};
use std::net::Ipv4Addr;

/// Heartbeat timers armed while established stayed in `poll_timeout` after SHUTDOWN went
/// out, where `handle_timeout` no longer serves them: a timer forever due.
#[test]
fn fuzz_heartbeat_timer_dormant_in_shutdown() {
    run(include_bytes!(
        "../../../fuzz/regressions/sctp_core/heartbeat-timer-dormant-in-shutdown"
    ));
}

/// The FreeBSD early-fast-retransmit timer was re-armed on a SACK at "earliest chunk in flight
/// sent + SRTT + RTTVAR", a deadline already in the past when that chunk had waited longer.
#[test]
fn fuzz_efr_timer_armed_in_past() {
    run(include_bytes!(
        "../../../fuzz/regressions/sctp_core/efr-timer-armed-in-past"
    ));
}

#[test]
fn no_timer_stays_due_after_shutdown_sent_with_heartbeats_on() {
    let (a_ip, b_ip) = (Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 0, 2));
    let cfg = SctpConfig {
        hb_interval: Some(Duration::from_secs(1)),
        ..SctpConfig::default()
    };
    let mut a = Association::connect(
        cfg.clone(),
        vec![a_ip],
        5000,
        vec![b_ip],
        6000,
        0x1111,
        1,
        Time::ZERO,
    );
    let mut b = Association::listen(cfg, vec![b_ip], 6000, 0x2222, 1);
    for _ in 0..3 {
        while let Some(t) = a.poll_transmit(Time::ZERO) {
            b.handle_packet(Time::ZERO, t.src, t.dst, &t.packet);
        }
        while let Some(t) = b.poll_transmit(Time::ZERO) {
            a.handle_packet(Time::ZERO, t.src, t.dst, &t.packet);
        }
    }
    assert!(a.is_established());
    // At 0 s: SHUTDOWN goes out (and is lost); the heartbeat was due at 1 s + RTO.
    a.shutdown(Time::ZERO);
    while a.poll_transmit(Time::ZERO).is_some() {}
    assert_eq!(a.state(), AssociationState::ShutdownSent);
    let now = Time::from_secs(30);
    a.handle_timeout(now);
    let next = a.poll_timeout().expect("T2-shutdown runs");
    assert!(
        next > now,
        "timer at {next:?} due after handle_timeout({now:?})"
    );
}
