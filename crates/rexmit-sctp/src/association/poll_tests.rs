//! Tests of the fast "nothing to send" answer of `poll_transmit` (`nothing_to_send`) in the
//! situations its clauses stand for, polled through `poll_transmit_checked` (where the test
//! says "nothing", a copy takes the full path and must end equal). Lossy transfers in several
//! configurations are in `tests/poll.rs`.

use super::*;

const A: [Ipv4Addr; 2] = [Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 1, 1)];
const B: [Ipv4Addr; 2] = [Ipv4Addr::new(10, 1, 0, 1), Ipv4Addr::new(10, 1, 1, 1)];
const MSG: u32 = 1_000;

/// Sender `a` and receiver `b`, both with two addresses, after a lossless handshake at t = 0.
fn pair(cfg: &SctpConfig) -> (Association, Association) {
    let mut a = Association::connect(
        cfg.clone(),
        A.to_vec(),
        5000,
        B.to_vec(),
        6000,
        1,
        100,
        Time::ZERO,
    );
    let mut b = Association::listen(cfg.clone(), B.to_vec(), 6000, 2, 900);
    for _ in 0..4 {
        while let Some(t) = a.poll_transmit_checked(Time::ZERO) {
            b.handle_packet(Time::ZERO, t.src, t.dst, &t.packet);
        }
        while let Some(t) = b.poll_transmit_checked(Time::ZERO) {
            a.handle_packet(Time::ZERO, t.src, t.dst, &t.packet);
        }
    }
    assert!(a.is_established() && b.is_established());
    (a, b)
}

/// A sender that sent its initial window of a long write, held by cwnd, and its receiver
/// with nothing to send: both answer fast (the new-data decision, nothing unsent).
#[test]
fn cwnd_limited_sender_and_idle_receiver_answer_fast() {
    let (mut a, mut b) = pair(&SctpConfig::default());
    let now = Time::from_millis(1);
    while a.send(now, 0, Payload::zeros(MSG), false).is_ok() {}
    let sent = std::iter::from_fn(|| a.poll_transmit_checked(now)).count();
    assert!(sent > 0 && !a.tx.queue().is_empty());
    assert!(a.poll_ends_fast(now), "held by cwnd");
    assert!(b.poll_ends_fast(now), "nothing unsent");
}

/// RFC 9260 §6.1 D: after Max.Burst packets in one opportunity the rest waits, and the poll
/// says so fast.
#[test]
fn max_burst_limited_sender_answers_fast() {
    let cfg = SctpConfig {
        initial_cwnd: Some(64 * 1_452),
        max_burst: 2,
        ..SctpConfig::default()
    };
    let (mut a, _) = pair(&cfg);
    let now = Time::from_millis(1);
    while a.send(now, 0, Payload::zeros(MSG), false).is_ok() {}
    assert_eq!(
        std::iter::from_fn(|| a.poll_transmit_checked(now)).count(),
        2
    );
    assert!(a.burst_exhausted(0) && a.paths[0].can_send());
    assert!(a.poll_ends_fast(now));
}

/// CMT with every path full: no destination for new data, answered fast.
#[test]
fn cmt_sender_with_every_path_full_answers_fast() {
    let mut cfg = SctpConfig::default();
    cfg.cmt.enabled = true;
    cfg.max_burst = 0;
    let (mut a, _) = pair(&cfg);
    let now = Time::from_millis(1);
    while a.send(now, 0, Payload::zeros(MSG), false).is_ok() {}
    assert!(std::iter::from_fn(|| a.poll_transmit_checked(now)).count() > 0);
    assert!(a.paths.iter().all(|p| !p.can_send()));
    assert_eq!(a.new_data_destination(), None);
    assert!(a.poll_ends_fast(now));
}

/// Outside the data states only control chunks and SACKs go: a listener answers fast.
#[test]
fn listener_answers_fast() {
    let mut b = Association::listen(SctpConfig::default(), B.to_vec(), 6000, 2, 900);
    assert!(b.poll_ends_fast(Time::ZERO));
    assert_eq!(b.poll_transmit_checked(Time::ZERO), None);
}

/// RFC 9260 §7.2.1: the primary has been idle for more than an RTO while the peer's window
/// holds new data back (data in flight on the other path). The poll sends nothing but decays
/// the primary's cwnd, so the fast test must leave it to the full path.
#[test]
fn idle_decay_due_is_left_to_the_full_path() {
    let cfg = SctpConfig {
        initial_cwnd: Some(16 * 1_452),
        ..SctpConfig::default()
    };
    let (mut a, _) = pair(&cfg);
    // 3.5 s later (RTO.Initial 3 s) one packet goes to the second path.
    let t1 = Time::from_millis(3_500);
    a.send(t1, 0, Payload::zeros(MSG), false).unwrap();
    a.begin_poll(t1);
    assert!(a.new_data_packet_to(t1, 1, false).is_some());
    a.tx.set_peer_rwnd(0);
    a.send(t1, 0, Payload::zeros(MSG), false).unwrap();
    let cwnd = a.paths[0].cc().cwnd();
    let now = Time::from_millis(4_000);
    assert!(a.paths[0].idle_decay_due(now).is_some());
    assert!(!a.poll_ends_fast(now));
    assert_eq!(a.poll_transmit_checked(now), None);
    assert!(a.paths[0].cc().cwnd() < cwnd, "the empty poll decayed cwnd");
}

/// RFC 8985 §7.3 (seed 002 §II.C): when the probe timeout fires with nothing left to send, the
/// next poll sends the tail loss probe whatever cwnd says, so it is not "nothing".
#[test]
fn due_tail_loss_probe_is_left_to_the_full_path() {
    let mut cfg = SctpConfig {
        sack_freq: 1,
        ..SctpConfig::default()
    };
    cfg.rack.enabled = true;
    cfg.rack.tlp = true;
    let (mut a, mut b) = pair(&cfg);
    // One round trip for an RTT sample, then three messages whose SACK does not come.
    let mut now = Time::from_millis(1);
    a.send(now, 0, Payload::zeros(MSG), false).unwrap();
    let out: Vec<_> = std::iter::from_fn(|| a.poll_transmit_checked(now)).collect();
    now = Time::from_millis(11);
    for t in &out {
        b.handle_packet(now, t.src, t.dst, &t.packet);
    }
    let back: Vec<_> = std::iter::from_fn(|| b.poll_transmit_checked(now)).collect();
    now = Time::from_millis(21);
    for t in &back {
        a.handle_packet(now, t.src, t.dst, &t.packet);
    }
    assert!(a.paths[0].rtt().srtt().is_some());
    for _ in 0..3 {
        a.send(now, 0, Payload::zeros(MSG), false).unwrap();
    }
    assert!(std::iter::from_fn(|| a.poll_transmit_checked(now)).count() > 0);
    let pto = a.timers.get(Timer::Pto).expect("probe timeout armed");
    a.handle_timeout(pto);
    assert!(a.probe_due() && a.tx.queue().is_empty());
    assert!(!a.poll_ends_fast(pto));
    assert!(a.poll_transmit_checked(pto).is_some(), "the probe");
    assert_eq!(a.stats().tlp_probes, 1);
}
