//! The retransmission timer around a fast retransmit (RFC 6298 §5, RFC 6675 §6) and the
//! ssthresh a timeout sets inside loss recovery (RFC 5681 §3.1). Initial window 10, MSS 1000,
//! SACK, RTO.min 1 s (the handshake's 100 ms RTT gives RTO = max(1 s, 300 ms) = 1 s).

mod common;
use common::*;
use rexmit_tcp::{RecoveryAlgorithm, RtoRearm, TcpConfig};

fn window_of_ten(rearm: RtoRearm, recovery: RecoveryAlgorithm, packets: u64) -> Injector {
    let c = TcpConfig {
        initial_cwnd_segments: 10,
        rto_rearm: rearm,
        ..cfg(recovery)
    };
    let mut s = Injector::established(
        c,
        recovery == RecoveryAlgorithm::Sack,
        (packets * MSS) as usize,
    );
    assert_eq!(s.sent(), (1..=10).collect::<Vec<_>>());
    s
}

/// Packets 1 and 2 acknowledged at 200/201 ms (slow start opens 4 more: 11–14), then packet
/// 3 is lost and 4, 5, 6 are SACKed at 900–902 ms: recovery starts at 902 ms.
fn loss_of_packet_3(rearm: RtoRearm) -> Injector {
    let mut s = window_of_ten(rearm, RecoveryAlgorithm::Sack, 40);
    assert_eq!(s.ack(200, 2, &[]), vec![11, 12]);
    assert_eq!(s.ack(201, 3, &[]), vec![13, 14]);
    // RFC 6298 §5.3: the ACK of new data at 201 ms restarts the timer.
    assert_eq!(s.c.poll_timeout(), Some(ms(1201)));
    assert_eq!(s.ack(900, 3, &[(4, 4)]), vec![]);
    assert_eq!(s.ack(901, 3, &[(4, 5)]), vec![]);
    // RFC 6675 §5 (4): FlightSize 12 (3–14) → ssthresh = cwnd = 6; retransmit 3.
    assert_eq!(s.ack(902, 3, &[(4, 6)]), vec![3]);
    assert_eq!(s.c.ssthresh() / MSS, 6);
    s
}

/// In that recovery packet 7 is lost too: 8, 9, 10 SACKed at 998–1000 ms make it lost
/// (IsLost: three segments above) and NextSeg (1) retransmits it at 1000 ms.
fn lose_packet_7(s: &mut Injector) {
    assert_eq!(s.ack(998, 3, &[(8, 8), (4, 6)]), vec![]);
    assert_eq!(s.ack(999, 3, &[(8, 9), (4, 6)]), vec![]);
    assert_eq!(s.ack(1000, 3, &[(8, 10), (4, 6)]), vec![7]);
}

#[test]
fn fast_retransmit_restarts_the_timer_by_default() {
    // ns-2 resets its timer in dupack_action; Linux re-arms it when it retransmits the head.
    assert_eq!(TcpConfig::default().rto_rearm, RtoRearm::FastRetransmit);
    let mut s = loss_of_packet_3(RtoRearm::FastRetransmit);
    assert_eq!(
        s.c.poll_timeout(),
        Some(ms(1902)),
        "a full RTO from the fast retransmission"
    );
    // Nothing fires at the old deadline: the retransmission has until 1902 ms.
    assert_eq!(s.timeout(1201), vec![]);
    assert_eq!(s.c.stats().timeouts, 0);
    // More SACKs keep the recovery going without touching the timer (ACKs of no new data).
    assert_eq!(s.ack(1000, 3, &[(4, 7)]), vec![]);
    assert_eq!(s.c.poll_timeout(), Some(ms(1902)));
    // The retransmission of 3 arrives: partial ACK, timer restarted by RFC 6298 §5.3.
    s.ack(1100, 8, &[]);
    assert_eq!(s.c.poll_timeout(), Some(ms(2100)));
}

#[test]
fn new_ack_mode_keeps_the_deadline_of_the_last_new_ack() {
    // RFC 6298 read literally (ns-3): the fast retransmission does not touch the timer, which
    // then fires 299 ms later, before the retransmission could have been acknowledged.
    let mut s = loss_of_packet_3(RtoRearm::NewAck);
    assert_eq!(s.c.poll_timeout(), Some(ms(1201)));
    assert_eq!(s.timeout(1201), vec![3]);
    assert_eq!(s.c.stats().timeouts, 1);
}

#[test]
fn every_and_head_retransmit_modes_after_a_second_loss() {
    // Both restart the timer at the fast retransmission of 3, the head: a full RTO from it.
    // Then packet 7, lost too, is resent at 1000 ms. RFC 6675 §6's conservative variant
    // "re-arms the RTO timer on each retransmission that is sent during recovery"; Linux
    // (tcp_xmit_retransmit_queue) only when it resends the segment at SND.UNA, which 7 is not.
    for (rearm, after_7) in [
        (RtoRearm::EveryRetransmit, 2000),
        (RtoRearm::HeadRetransmit, 1902),
    ] {
        let mut s = loss_of_packet_3(rearm);
        assert_eq!(s.c.poll_timeout(), Some(ms(1902)), "{rearm:?}");
        lose_packet_7(&mut s);
        assert_eq!(s.c.poll_timeout(), Some(ms(after_7)), "{rearm:?}");
    }
}

#[test]
fn timeout_inside_fast_recovery_does_not_raise_ssthresh() {
    // RFC 5681 §3.1: ssthresh is set to *no more than* FlightSize / 2. Here FlightSize at the
    // timeout also counts the new data sent during recovery, so eq. 4 alone would give more
    // than the 6 segments the fast retransmit set.
    let mut s = loss_of_packet_3(RtoRearm::NewAck);
    // SACKs of 7..14 while 3 stays missing: pipe falls below cwnd 6 and NextSeg (2) sends new
    // data (15, 16, ...), so snd_max grows.
    let mut sent = Vec::new();
    for (i, high) in (7..=14).enumerate() {
        sent.extend(s.ack(1000 + i as u64, 3, &[(4, high)]));
    }
    assert!(
        sent.iter().any(|&p| p > 14),
        "new data during recovery: {sent:?}"
    );
    let flight_pkts = sent.iter().copied().max().unwrap() - 3 + 1;
    assert!(
        flight_pkts / 2 > 6,
        "eq. 4 would raise ssthresh: FlightSize {flight_pkts}"
    );
    assert_eq!(s.timeout(1201), vec![3]);
    assert_eq!(
        s.c.ssthresh() / MSS,
        6,
        "ssthresh of the fast retransmit kept"
    );
    assert_eq!(s.cwnd_pkts(), 1, "loss window");
    // The timer backs off to 2 s; a second timeout of the same segment keeps ssthresh too.
    assert_eq!(s.timeout(3201), vec![3]);
    assert_eq!((s.c.ssthresh() / MSS, s.c.stats().timeouts), (6, 2));
}

#[test]
fn timeout_outside_recovery_sets_ssthresh_from_flight_size() {
    // No recovery in progress: eq. 4 applies as before (FlightSize 3–14 = 12 → 6).
    let mut s = window_of_ten(RtoRearm::FastRetransmit, RecoveryAlgorithm::Sack, 40);
    assert_eq!(s.ack(200, 2, &[]), vec![11, 12]);
    assert_eq!(s.ack(201, 3, &[]), vec![13, 14]);
    assert_eq!(s.timeout(1201), vec![3]);
    assert_eq!((s.c.ssthresh() / MSS, s.cwnd_pkts()), (6, 1));
}

#[test]
fn newreno_timeout_after_partial_acks_keeps_the_fast_retransmit_ssthresh() {
    // Without SACK: fast recovery inflates cwnd per duplicate ACK and sends new data, so
    // FlightSize at the timeout exceeds twice the ssthresh of the fast retransmit.
    let mut s = window_of_ten(RtoRearm::NewAck, RecoveryAlgorithm::NewReno, 60);
    assert_eq!(s.ack(200, 2, &[]), vec![11, 12]);
    assert_eq!(s.ack(201, 3, &[]), vec![13, 14]);
    let mut sent = Vec::new();
    for i in 0..11 {
        sent.extend(s.ack(900 + i, 3, &[]));
    }
    // Third duplicate: ssthresh = 12 / 2 = 6, retransmit 3; later duplicates inflate cwnd and
    // release new segments.
    assert_eq!(sent[0], 3);
    assert_eq!(s.c.ssthresh() / MSS, 6);
    assert!(
        sent.iter().any(|&p| p > 14),
        "inflation sends new data: {sent:?}"
    );
    s.timeout(1201);
    assert_eq!(s.c.ssthresh() / MSS, 6);
}
