//! Undo of a spurious window reduction (`tcp.undo`, `tcp.frto`), driven by hand-made ACKs:
//! SYN RTT 100 ms, MSS 1000, SACK recovery, packets sent at 100 ms in the initial window.
//! The reductions here are spurious because a segment was only late (reordering, a delay
//! spike), not lost: the window before them comes back (RFC 4015's response), when a D-SACK
//! reports the retransmission a duplicate (RFC 3708), when an echoed timestamp predates the
//! retransmission (RFC 3522), or, after a timeout, by F-RTO (RFC 5682 §3).

mod common;
use common::*;
use rexmit_tcp::{RecoveryAlgorithm, TcpConfig};

fn config(undo: bool, frto: bool, iw: u32) -> TcpConfig {
    TcpConfig {
        initial_cwnd_segments: iw,
        undo,
        frto,
        ..cfg(RecoveryAlgorithm::Sack)
    }
}

/// Packet 1 is late: 2..=4 are SACKed first, and the third DupAck retransmits it (RFC 6675
/// entry: cwnd 10 → 5). Then the original 1 arrives: the ACK covers 1..=10 and ends the episode.
fn reordered_first_packet(s: &mut Injector) {
    s.lose_first_of_flight();
    assert_eq!(s.cwnd_pkts(), 5);
    s.ack(210, 11, &[]);
    assert!(!s.c.in_recovery());
}

#[test]
fn dsack_of_the_only_retransmission_restores_the_window() {
    // RFC 3708: the retransmission of 1 reaches the receiver as a duplicate and is reported
    // by a D-SACK below the cumulative ACK: every retransmission of the episode was
    // unnecessary, so cwnd and ssthresh return to their values before it (10 segments, and
    // the initial ssthresh: slow start again).
    let mut s = Injector::established(config(true, false, 10), true, 40 * MSS as usize);
    s.sent();
    reordered_first_packet(&mut s);
    assert_eq!(s.cwnd_pkts(), 5);
    s.ack(300, 11, &[(1, 1)]);
    assert_eq!(s.cwnd_pkts(), 10);
    assert!(s.c.ssthresh() > 1_000 * MSS);
    assert_eq!(s.c.stats().undos_dsack, 1);

    // Without tcp.undo the D-SACK changes nothing.
    let mut s = Injector::established(config(false, false, 10), true, 40 * MSS as usize);
    s.sent();
    reordered_first_packet(&mut s);
    s.ack(300, 11, &[(1, 1)]);
    assert_eq!(s.cwnd_pkts(), 5);
}

#[test]
fn linux_restores_at_least_three_quarters_of_the_prior_window_as_ssthresh() {
    // Congestion avoidance from the start (ssthresh 4 < cwnd 10), then the spurious fast
    // retransmission of the late packet 1 (ssthresh 5), undone by its D-SACK. cwnd comes back
    // to 10 either way; ssthresh becomes the larger of its value and the one recorded before
    // the reduction (4: it stays 5), or with Linux's prior_ssthresh (tcp_current_ssthresh:
    // max(ssthresh, cwnd/2 + cwnd/4) = max(4, 5 + 2) packets) 7.
    for (floor, ssthresh) in [(false, 5), (true, 7)] {
        let c = TcpConfig {
            initial_ssthresh: 4 * MSS,
            undo_ssthresh_floor: floor,
            ..config(true, false, 10)
        };
        let mut s = Injector::established(c, true, 40 * MSS as usize);
        s.sent();
        reordered_first_packet(&mut s);
        s.ack(300, 11, &[(1, 1)]);
        assert_eq!(s.c.stats().undos_dsack, 1);
        assert_eq!(
            (s.cwnd_pkts(), s.c.ssthresh() / MSS),
            (10, ssthresh),
            "floor {floor}"
        );
    }
}

#[test]
fn an_echo_older_than_the_retransmission_undoes_at_the_end_of_recovery() {
    // RFC 3522 Eifel detection: the ACK that ends the episode echoes the timestamp of the
    // original 1 (sent at 100 ms), older than its retransmission (202 ms): the original
    // arrived, the reduction is undone on that ACK, before any D-SACK.
    let mut s = Injector::established_ts(config(true, false, 10), 40 * MSS as usize);
    assert_eq!(s.sent(), (1..=10).collect::<Vec<_>>());
    reordered_first_packet(&mut s);
    assert_eq!(s.cwnd_pkts(), 10);
    assert_eq!(s.c.stats().undos_timestamps, 1);
}

/// Initial window 4, 20 packets queued: 1..=4 sent at 100 ms, then no ACK until after the
/// retransmission timeout at 1 100 ms, which resends 1 (cwnd 1 segment).
fn delay_spike(frto: bool) -> Injector {
    let mut s = Injector::established(config(false, frto, 4), true, 20 * MSS as usize);
    assert_eq!(s.sent(), vec![1, 2, 3, 4]);
    assert_eq!(s.timeout(1_100), vec![1]);
    s
}

#[test]
fn frto_sends_new_data_then_finds_the_timeout_spurious() {
    // RFC 5682 §3 step 2.b: the ACK of 1 (the original, only late) advances SND.UNA: two new
    // segments go instead of retransmissions. Step 3.b: the next ACK acknowledges 2, sent
    // before the timeout and never retransmitted: the timeout was spurious; the window of
    // before it (4 segments) comes back and 2..=4 are not resent.
    let mut s = delay_spike(true);
    assert_eq!(s.ack(1_150, 2, &[]), vec![5, 6]);
    s.ack(1_151, 3, &[]);
    assert_eq!(s.c.stats().undos_frto, 1);
    assert!(!s.c.in_recovery());
    assert_eq!(s.cwnd_pkts(), 4);
    s.ack(1_152, 4, &[]);
    s.ack(1_153, 5, &[]);
    assert_eq!(
        s.c.stats().retransmits(),
        1,
        "only the timeout's resend of 1"
    );

    // Conventional recovery resends 2 and 3, which were only late.
    let mut s = delay_spike(false);
    assert_eq!(s.ack(1_150, 2, &[]), vec![2, 3]);
}

#[test]
fn frto_falls_back_to_conventional_recovery_when_the_loss_was_real() {
    // 2..=4 were lost. Step 2.b sends 5 and 6; the receiver SACKs 5 without acknowledging
    // anything sent before the timeout: step 3.a, the loss was real — retransmit 2.
    let mut s = delay_spike(true);
    assert_eq!(s.ack(1_150, 2, &[]), vec![5, 6]);
    assert_eq!(s.ack(1_250, 2, &[(5, 5)]), vec![2]);
    assert_eq!(s.c.stats().undos_frto, 0);
    assert!(s.c.in_recovery());
}

#[test]
fn dsack_undo_waits_until_every_retransmission_is_reported_duplicate() {
    // Linux undo_retrans (tcp_try_undo_dsack): packets 1 and 5 are both late and both
    // retransmitted in one episode; the first D-SACK accounts for one retransmission of two
    // and changes nothing, the second shows the whole reduction spurious (RFC 3708 §3).
    let mut s = Injector::established(config(true, false, 10), true, 40 * MSS as usize);
    s.sent();
    s.lose_first_of_flight();
    // RFC 6675 §5 IsLost(5): three segments SACKed above it (6..=8).
    s.ack(203, 1, &[(6, 6), (2, 4)]);
    s.ack(204, 1, &[(6, 7), (2, 4)]);
    assert!(s.ack(205, 1, &[(6, 8), (2, 4)]).contains(&5));
    assert_eq!(s.c.stats().retransmits(), 2);
    // The originals of 1 and 5 arrive: everything up to 10 is acknowledged, the episode
    // ends (RFC 6675 §5 step (4) exit) with the reduced window.
    s.ack(210, 11, &[]);
    assert!(!s.c.in_recovery());
    assert_eq!(s.cwnd_pkts(), 5);
    s.ack(300, 11, &[(1, 1)]);
    assert_eq!(
        s.cwnd_pkts(),
        5,
        "one retransmission of two reported duplicate"
    );
    assert_eq!(s.c.stats().undos_dsack, 0);
    s.ack(301, 11, &[(5, 5)]);
    assert_eq!(s.cwnd_pkts(), 10);
    assert_eq!(s.c.stats().undos_dsack, 1);
}

#[test]
fn an_echo_older_than_the_timeout_retransmission_undoes_the_timeout() {
    // RFC 3522 Eifel detection after a timeout (Linux tcp_try_undo_loss): 1..=4 sent at
    // 100 ms, a delay spike; the RTO at 1 100 ms resends 1. The ACK of 1 echoes 100 ms: the
    // original arrived, the timeout was spurious. cwnd returns to 4 segments and 2..=4, no
    // longer marked lost, are not resent: 5 fills the window behind 2..=4.
    let mut s = Injector::established_ts(config(true, false, 4), 20 * MSS as usize);
    assert_eq!(s.sent(), vec![1, 2, 3, 4]);
    assert_eq!(s.timeout(1_100), vec![1]);
    assert_eq!(s.cwnd_pkts(), 1);
    assert_eq!(s.ack(1_150, 2, &[]), vec![5]);
    assert_eq!(s.c.stats().undos_timestamps, 1);
    assert!(!s.c.in_recovery());
    assert_eq!(s.cwnd_pkts(), 4);

    // The same ACK echoing the retransmission's time (1 100 ms): a real loss, go-back-N.
    let mut s = Injector::established_ts(config(true, false, 4), 20 * MSS as usize);
    s.sent();
    s.timeout(1_100);
    s.echo = Some(1_100);
    assert_eq!(s.ack(1_150, 2, &[]), vec![2, 3]);
    assert_eq!(s.c.stats().undos_timestamps, 0);
}

#[test]
fn frto_undoes_on_an_ack_of_everything_sent_before_the_timeout() {
    // The first ACK after the timeout acknowledges 1..=4: 2..=4 were never retransmitted, so
    // their originals arrived (RFC 5682 §3 step 3.b, as Linux's FLAG_ORIG_SACK_ACKED test,
    // made before it looks at whether the episode ended): the window of before it returns.
    let mut s = delay_spike(true);
    s.ack(1_150, 5, &[]);
    assert_eq!(s.c.stats().undos_frto, 1);
    assert_eq!(s.cwnd_pkts(), 4);

    // Without F-RTO the timeout's reduction stands (slow start from 1 segment: 2).
    let mut s = delay_spike(false);
    s.ack(1_150, 5, &[]);
    assert_eq!(s.cwnd_pkts(), 2);
}

#[test]
fn a_partial_ack_echoing_the_original_undoes_when_no_retransmission_is_in_flight() {
    // Linux tcp_try_undo_partial (RFC 3522 detection on a partial ACK): packet 1 was late;
    // its original fills the hole and the ACK of 1..=4 echoes 100 ms, older than the
    // retransmission (202 ms). Only the retransmission of 1 was sent, now acknowledged: the
    // reduction is undone on this partial ACK and the episode ends, before its recovery
    // point (10) is reached.
    let mut s = Injector::established_ts(config(true, false, 10), 40 * MSS as usize);
    s.sent();
    s.lose_first_of_flight();
    assert_eq!(s.cwnd_pkts(), 5);
    s.ack(210, 5, &[]);
    assert_eq!(s.c.stats().undos_timestamps, 1);
    assert!(!s.c.in_recovery());
    assert_eq!(s.cwnd_pkts(), 10);

    // Packets 1 and 5 late, both retransmitted: the partial ACK of 1..=4 leaves the
    // retransmission of 5 in flight, so nothing is undone yet (Linux holds instead).
    let mut s = Injector::established_ts(config(true, false, 10), 40 * MSS as usize);
    s.sent();
    s.lose_first_of_flight();
    s.ack(203, 1, &[(6, 6), (2, 4)]);
    s.ack(204, 1, &[(6, 7), (2, 4)]);
    assert!(s.ack(205, 1, &[(6, 8), (2, 4)]).contains(&5));
    s.ack(210, 5, &[(6, 8)]);
    assert_eq!(s.c.stats().undos_timestamps, 0);
    assert!(s.c.in_recovery());
}
