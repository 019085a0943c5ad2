//! Loss recovery and congestion control details: one cwnd reduction per fast recovery,
//! Max.Burst in both RFC variants, T3 backoff and association failure, CMT-PF.

mod common;
use common::*;
use rexmit_sctp::{
    AbortReason, Association, CmtConfig, Event, MaxBurstRule, PathState, SctpConfig, Transmit,
};
use rexmit_time::{Duration, Time};
use rexmit_wire::{Chunk, Payload};

const T: u64 = 1452;

fn cfg() -> SctpConfig {
    SctpConfig {
        hb_interval: None,
        ..SctpConfig::default()
    }
}

fn write(a: &mut Association, now: Time, n: usize) {
    for _ in 0..n {
        a.send(now, 0, Payload::zeros(T as u32), true).unwrap();
    }
}

#[test]
fn second_loss_in_the_same_window_does_not_reduce_cwnd_again() {
    let c = SctpConfig {
        initial_cwnd: Some(10 * T),
        max_burst: 0,
        ..cfg()
    };
    let (mut a, mut b) = connect_pair(c, cfg(), 1, 1, false);
    let now = Time::from_millis(1);
    write(&mut a, now, 10);
    let out = drain(&mut a, now);
    assert_eq!(data_tsns(&out), (1..=10).collect::<Vec<_>>());
    let mut rtx = Vec::new();
    // cwnd just before fast recovery (slow start grows it on the gap reports, RFC 9260
    // §7.2.1), and as fast recovery began.
    let (mut before, mut after) = (a.paths()[0].cc().cwnd(), None);
    for t in out
        .iter()
        .filter(|t| ![1, 3].contains(&data_tsns(std::slice::from_ref(t))[0]))
    {
        deliver(&mut b, now, t);
        for s in drain(&mut b, now) {
            deliver(&mut a, now, &s);
        }
        if !a.in_fast_recovery() {
            before = a.paths()[0].cc().cwnd();
        } else if after.is_none() {
            after = Some(a.paths()[0].cc().cwnd());
        }
        rtx.extend(data_tsns(&drain(&mut a, now)));
    }
    assert_eq!(rtx, vec![1, 3], "both losses fast retransmitted");
    assert_eq!(a.stats().fast_retransmits, 2);
    assert_eq!(a.stats().fast_recoveries, 1);
    let halved = (before / 2).max(4 * T);
    assert_eq!(after, Some(halved), "halved at the first loss");
    assert_eq!(
        a.paths()[0].cc().cwnd(),
        halved,
        "not again at the second (RFC 9260 §7.2.4)"
    );
    assert!(a.in_fast_recovery());
}

/// A T3-rtx expiry ends the fast recovery in progress: the chunk it resends is acked by a SACK
/// that does not reach the recovery's exit point (another loss holds the cumulative ack), yet
/// slow start grows cwnd from one MTU to two (RFC 9260 §7.2.1 forbids growth only in fast
/// recovery). Before the fix cwnd stayed at one MTU until the old exit point was acked.
#[test]
fn t3_expiry_ends_fast_recovery_so_slow_start_can_grow_cwnd() {
    let c = SctpConfig {
        initial_cwnd: Some(10 * T),
        max_burst: 0,
        ..cfg()
    };
    let (mut a, mut b) = connect_pair(c, cfg(), 1, 1, false);
    let mut now = Time::from_millis(1);
    write(&mut a, now, 10);
    let out = drain(&mut a, now);
    // TSNs 1 and 6 are lost, and so are their fast retransmissions.
    for t in out
        .iter()
        .filter(|t| ![1, 6].contains(&data_tsns(std::slice::from_ref(t))[0]))
    {
        deliver(&mut b, now, t);
        for s in drain(&mut b, now) {
            deliver(&mut a, now, &s);
        }
        drain(&mut a, now);
    }
    assert!(a.in_fast_recovery());
    now = a.poll_timeout().expect("T3-rtx");
    a.handle_timeout(now);
    assert!(!a.in_fast_recovery(), "the timeout ends fast recovery");
    assert_eq!(a.paths()[0].cc().cwnd(), T, "cwnd = 1 MTU (§7.2.3)");
    let resent = drain(&mut a, now);
    assert_eq!(data_tsns(&resent), vec![1], "one MTU: the first chunk only");
    for t in &resent {
        deliver(&mut b, now, t);
    }
    for s in drain(&mut b, now) {
        deliver(&mut a, now, &s);
    }
    assert_eq!(a.paths()[0].cc().cwnd(), 2 * T, "slow start: one MTU more");
    assert_eq!(
        data_tsns(&drain(&mut a, now)),
        vec![6],
        "the other lost chunk follows"
    );
}

#[test]
fn max_burst_clamp_rule_lowers_cwnd_as_in_rfc4960() {
    let c = SctpConfig {
        initial_cwnd: Some(10 * T),
        max_burst_rule: MaxBurstRule::ClampCwnd,
        ..cfg()
    };
    let (mut a, _b) = connect_pair(c, cfg(), 1, 1, false);
    let now = Time::from_millis(1);
    write(&mut a, now, 10);
    assert_eq!(data_tsns(&drain(&mut a, now)), vec![1, 2, 3, 4]);
    assert_eq!(a.paths()[0].cc().cwnd(), 4 * T);
}

#[test]
fn max_burst_default_limits_packets_per_opportunity_and_keeps_cwnd() {
    let c = SctpConfig {
        initial_cwnd: Some(10 * T),
        max_burst_rule: MaxBurstRule::LimitPackets,
        ..cfg()
    };
    let (mut a, mut b) = connect_pair(c, cfg(), 1, 1, false);
    let now = Time::from_millis(1);
    write(&mut a, now, 10);
    let out = drain(&mut a, now);
    assert_eq!(data_tsns(&out), vec![1, 2, 3, 4]);
    assert_eq!(a.paths()[0].cc().cwnd(), 10 * T);
    deliver(&mut b, now, &out[0]);
    deliver(&mut b, now, &out[1]);
    for s in drain(&mut b, now) {
        deliver(&mut a, now, &s);
    }
    assert_eq!(
        data_tsns(&drain(&mut a, now)),
        vec![5, 6, 7, 8],
        "a new opportunity, again at most 4 packets"
    );
}

#[test]
fn t3_backs_off_and_the_association_fails_after_assoc_max_retrans() {
    let c = SctpConfig {
        assoc_max_retrans: 3,
        ..cfg()
    };
    let (mut a, _b) = connect_pair(c, cfg(), 1, 1, false);
    let mut now = Time::from_millis(1);
    write(&mut a, now, 1);
    drain(&mut a, now);
    let mut gaps = Vec::new();
    while let Some(t) = a.poll_timeout() {
        gaps.push((t - now).as_nanos() / 1_000_000_000);
        now = t;
        a.handle_timeout(now);
        let out = drain(&mut a, now);
        if let Some(Chunk::Abort { .. }) = out.last().and_then(|t| t.packet.chunks.first()) {
            break;
        }
        assert_eq!(data_tsns(&out), vec![1], "T3 retransmits the chunk");
    }
    assert_eq!(
        gaps,
        vec![3, 6, 12, 24],
        "RTO.Initial 3 s doubling (RFC 9260 §6.3.3 E2)"
    );
    assert_eq!(
        events(&mut a),
        vec![Event::Aborted {
            reason: AbortReason::MaxRetransmissions
        }]
    );
    assert_eq!(a.stats().timeouts, 4);
}

#[test]
fn cmt_pf_path_carries_no_new_data_until_a_heartbeat_confirms_it() {
    let c = SctpConfig {
        hb_interval: Some(Duration::from_secs(5)),
        cmt: CmtConfig {
            enabled: true,
            pf: true,
            pf_threshold: 0,
            ..CmtConfig::default()
        },
        ..SctpConfig::default()
    };
    let (a, b) = connect_pair(c.clone(), c, 1, 1, true);
    let mut net = Net::new(a, b);
    let mut fate = |t: &Transmit, now: Time| -> Option<Duration> {
        let p0 = [A1, B1].contains(&t.src) || [A1, B1].contains(&t.dst);
        if p0 && now >= Time::from_secs(1) && now < Time::from_secs(6) {
            None
        } else {
            Some(Duration::from_millis(20))
        }
    };
    let mut written = 0u32;
    let mut app = |now: Time, eps: &mut [Association; 2]| {
        while now < Time::from_secs(20) && eps[0].send(now, 0, Payload::zeros(1000), true).is_ok() {
            written += 1;
        }
    };
    net.run(Time::from_secs(5), &mut fate, &mut app);
    assert_eq!(net.eps[0].paths()[0].state(), PathState::PotentiallyFailed);
    let sent_on_p0 = net.eps[0].stats().paths[0].data_chunks_sent;
    assert!(
        net.eps[0].stats().paths[0].heartbeats_sent >= 1,
        "PF path probed"
    );
    assert!(
        !net.events[0]
            .iter()
            .any(|(_, e)| matches!(e, Event::PathDown { .. })),
        "PF is not reported as down"
    );
    net.run(
        Time::from_secs(5) + Duration::from_millis(900),
        &mut fate,
        &mut app,
    );
    assert_eq!(
        net.eps[0].stats().paths[0].data_chunks_sent,
        sent_on_p0,
        "no new data while PF"
    );
    net.run(Time::from_secs(60), &mut fate, &mut app);
    assert_eq!(net.eps[0].paths()[0].state(), PathState::Active);
    assert!(
        net.eps[0].stats().paths[0].data_chunks_sent > sent_on_p0 + 1000,
        "path 0 carries data again"
    );
    assert_eq!(net.eps[1].stats().messages_delivered, written as u64);
}
