//! RFC 6675 §4 NextSeg rules and §5 recovery entry, driven by hand-made ACKs. Ten packets of
//! data, initial window 10, SACK negotiated, DupThresh 3.

mod common;
use common::*;
use rexmit_tcp::{RecoveryAlgorithm, TcpConfig};

/// Initial window 10, `packets` of data queued, packets 1..=10 sent at 100 ms.
fn window_of_ten(packets: u64) -> Injector {
    let c = TcpConfig {
        initial_cwnd_segments: 10,
        ..cfg(RecoveryAlgorithm::Sack)
    };
    let mut s = Injector::established(c, true, (packets * MSS) as usize);
    assert_eq!(s.sent(), (1..=10).collect::<Vec<_>>());
    s
}

fn ten_packets() -> Injector {
    let mut s = window_of_ten(10);
    // Packets 1 and 2 are acknowledged (slow start: cwnd 12), no new data is left.
    assert_eq!(s.ack(200, 2, &[]), vec![]);
    assert_eq!(s.ack(201, 3, &[]), vec![]);
    s
}

#[test]
fn sack_rescue_retransmission_when_last_segment_lost() {
    // Packets 3 and 10 lost.
    let mut s = ten_packets();
    assert_eq!(s.ack(210, 3, &[(4, 4)]), vec![]);
    assert_eq!(s.ack(211, 3, &[(4, 5)]), vec![]);
    // Entry (RFC 6675 §5 step 4): FlightSize 8 → cwnd = ssthresh = 4; retransmit 3, and (4.3)
    // HighRxt = RescueRxt = the end of 3.
    assert_eq!(s.ack(212, 3, &[(4, 6)]), vec![3]);
    assert_eq!((s.cwnd_pkts(), s.c.pipe() / MSS), (4, 5));
    assert_eq!(s.ack(213, 3, &[(4, 7)]), vec![]);
    // pipe 3 < cwnd 4. Rule (1): nothing lost above HighRxt. Rule (2): no new data. Rule (3):
    // no unSACKed segment below the highest SACKed one. Rule (4) needs HighACK > RescueRxt:
    // the cumulative ACK has not passed the retransmission of 3, so no rescue yet (§5 (4.3):
    // "to prevent ... a premature rescue retransmission").
    assert_eq!(s.ack(214, 3, &[(4, 8)]), vec![]);
    assert_eq!(s.ack(215, 3, &[(4, 9)]), vec![]);
    assert_eq!(s.c.pipe() / MSS, 2);
    // The retransmission of 3 fills the hole: 4..=9 were held, so ACK 10 (partial). HighACK
    // is now past RescueRxt: rule (4) rescues the highest unSACKed segment, packet 10.
    assert_eq!(s.ack(300, 10, &[]), vec![10]);
    assert!(s.c.in_recovery());
    // Only one rescue per recovery episode.
    assert_eq!(s.ack(301, 10, &[]), vec![]);
    // The rescued 10 arrives: everything acknowledged, recovery over, no timeout.
    assert_eq!(s.ack(400, 11, &[]), vec![]);
    assert!(!s.c.in_recovery());
    assert_eq!((s.c.stats().timeouts, s.c.stats().retransmits_fast), (0, 2));
    assert_eq!(s.c.stats().retransmits_rescue, 1);
    assert_eq!(
        s.c.poll_timeout(),
        None,
        "RTO stopped when all data is acknowledged"
    );
}

#[test]
fn nextseg_rule3_retransmits_unsacked_segment_not_yet_lost() {
    // Packets 3 and 8 lost.
    let mut s = ten_packets();
    assert_eq!(s.ack(210, 3, &[(4, 4)]), vec![]);
    assert_eq!(s.ack(211, 3, &[(4, 5)]), vec![]);
    assert_eq!(s.ack(212, 3, &[(4, 6)]), vec![3]);
    assert_eq!(s.ack(213, 3, &[(4, 7)]), vec![]);
    // 9 SACKed: pipe = 3 (3 once more as retransmitted, 8, 10), cwnd 4. Packet 8 has only one
    // SACKed segment above it, so it is not lost: rule (1) fails, (2) has no data, rule (3)
    // returns 8 (unSACKed, above HighRxt, below the highest SACKed octet).
    assert_eq!(s.ack(214, 3, &[(9, 9), (4, 7)]), vec![8]);
    assert_eq!(s.c.pipe() / MSS, 4);
    // 10 SACKed: pipe 3. Nothing above HighRxt (now past 8) qualifies for (1) or (3); the
    // highest unSACKed octet is in packet 8, already retransmitted: no rescue.
    assert_eq!(s.ack(215, 3, &[(9, 10), (4, 7)]), vec![]);
    assert_eq!(s.ack(300, 8, &[(9, 10)]), vec![]);
    assert_eq!(s.ack(301, 11, &[]), vec![]);
    assert!(!s.c.in_recovery());
    assert_eq!(s.c.stats().timeouts, 0);
}

#[test]
fn nextseg_rule1_lost_segment_before_new_data() {
    let mut s = window_of_ten(30);
    // Packets 1 and 5 lost. Three SACKed segments above 1 → entry on the third dupack.
    assert_eq!(s.ack(200, 1, &[(2, 2)]), vec![]);
    assert_eq!(s.ack(201, 1, &[(2, 3)]), vec![]);
    assert_eq!(s.ack(202, 1, &[(2, 4)]), vec![1]);
    // cwnd 5, pipe = 1 + 6 (5..=10) = 7.
    assert_eq!((s.cwnd_pkts(), s.c.pipe() / MSS), (5, 7));
    assert_eq!(s.ack(203, 1, &[(6, 6), (2, 4)]), vec![]);
    assert_eq!(s.ack(204, 1, &[(6, 7), (2, 4)]), vec![]);
    // 8 SACKed: 5 becomes lost (6, 7, 8 above it), pipe = 1 + 2 (9, 10) = 3: rule (1) sends 5
    // first, then rule (2) new data 11.
    assert_eq!(s.ack(205, 1, &[(6, 8), (2, 4)]), vec![5, 11]);
}

#[test]
fn recovery_entered_by_islost_before_three_duplicate_acks() {
    // RFC 6675 §5 step (3): one ACK SACKing three segments makes IsLost(HighACK + 1) true.
    let mut s = window_of_ten(30);
    assert_eq!(s.ack(200, 1, &[(2, 4)]), vec![1]);
    assert!(s.c.in_recovery());
    assert_eq!(s.c.stats().fast_retransmits, 1);
}

#[test]
fn ack_without_new_sack_information_is_not_a_duplicate() {
    // RFC 6675 §2: a DupAck must newly SACK data; repeats of old SACK blocks do not count.
    let c = TcpConfig {
        initial_cwnd_segments: 10,
        ..cfg(RecoveryAlgorithm::Sack)
    };
    let mut s = Injector::established(c, true, 30 * MSS as usize);
    s.sent();
    for t in 200..210 {
        assert_eq!(s.ack(t, 1, &[(2, 2)]), vec![]);
    }
    assert!(!s.c.in_recovery());
}

#[test]
fn after_timeout_sack_recovery_resends_holes_in_order_before_new_data() {
    // RFC 6675 §5.1: after an RTO everything unSACKed is presumed lost; with nothing SACKed
    // the retransmissions still come first, in slow start from one segment.
    let c = TcpConfig {
        initial_cwnd_segments: 4,
        ..cfg(RecoveryAlgorithm::Sack)
    };
    let mut s = Injector::established(c.clone(), true, 20 * MSS as usize);
    assert_eq!(s.sent(), vec![1, 2, 3, 4]);
    assert_eq!(s.timeout(1_100), vec![1]);
    assert_eq!(s.ack(1_200, 2, &[]), vec![2, 3]);
    // cwnd = ssthresh = 2 SMSS: congestion avoidance. Counting ACKs (RFC 5681 §3.1 eq. 3),
    // one ACK for two segments adds SMSS²/cwnd = half a segment: cwnd stays 2.
    assert_eq!(s.ack(1_300, 4, &[]), vec![4, 5]);
    assert_eq!(s.c.stats().retransmits_timeout, 4);
    assert!(s.c.in_recovery());
    s.ack(1_400, 6, &[]);
    assert!(!s.c.in_recovery(), "RecoveryPoint (end of 4) was passed");

    // Counting bytes (RFC 3465 §2.1), the same ACK covers a whole cwnd: cwnd becomes 3.
    let mut s = Injector::established(
        TcpConfig {
            byte_counting: true,
            ..c
        },
        true,
        20 * MSS as usize,
    );
    s.sent();
    s.timeout(1_100);
    s.ack(1_200, 2, &[]);
    assert_eq!(s.ack(1_300, 4, &[]), vec![4, 5, 6]);
}

#[test]
fn loss_right_after_recovery_point_starts_a_new_recovery() {
    // RFC 6675 §5: a new episode may start once the cumulative ACK reaches RecoveryPoint, even
    // if that ACK jumped far (here over the whole repaired window).
    let mut s = window_of_ten(40);
    let mut new = Vec::new();
    new.extend(s.ack(200, 1, &[(2, 2)]));
    new.extend(s.ack(201, 1, &[(2, 3)]));
    assert_eq!(s.ack(202, 1, &[(2, 4)]), vec![1]);
    for (t, hi) in (203..).zip(5..=10) {
        new.extend(s.ack(t, 1, &[(2, hi)]));
    }
    // The retransmission of 1 arrives: everything through 10 (RecoveryPoint) is acknowledged.
    new.extend(s.ack(300, 11, &[]));
    assert!(!s.c.in_recovery());
    assert_eq!(new[0], 11);
    // Packet 11 was lost; three later packets are SACKed: fast retransmit, not a timeout.
    let (a, b, c) = (new[1], new[2], new[3]);
    s.ack(301, 11, &[(a, a)]);
    s.ack(302, 11, &[(a, b)]);
    let out = s.ack(303, 11, &[(a, c)]);
    assert_eq!(out.first(), Some(&11));
    assert!(s.c.in_recovery());
    assert_eq!((s.c.stats().fast_retransmits, s.c.stats().timeouts), (2, 0));
}

#[test]
fn cumulative_ack_with_new_sack_information_is_a_duplicate_and_may_enter_recovery() {
    // RFC 6675 §5: "If the incoming ACK is a duplicate acknowledgment per the definition in
    // Section 2 (regardless of its status as a cumulative acknowledgment), and the TCP is not
    // currently in loss recovery, the TCP MUST increase DupAcks by one" and take steps (1)–(3),
    // of which (2) enters recovery when IsLost(HighACK + 1).
    let mut s = window_of_ten(30);
    // Packet 3 lost; a delayed ACK covers 1 and 2 and, as 4..=6 arrived out of order, SACKs
    // them: three SACKed segments lie above HighACK + 1 = packet 3, so it is lost, and this
    // ACK, cumulative but carrying new SACK information, is the DupAck that starts recovery.
    let out = s.ack(200, 3, &[(4, 6)]);
    assert_eq!(out.first(), Some(&3), "fast retransmit of 3 first: {out:?}");
    assert!(s.c.in_recovery());
    assert_eq!(s.c.stats().fast_retransmits, 1);
    // Further DupAcks inside the episode start no new one.
    s.ack(210, 3, &[(4, 7)]);
    assert_eq!(s.c.stats().fast_retransmits, 1);
}

#[test]
fn limited_transmit_with_sack_follows_cwnd_minus_pipe() {
    // RFC 6675 §5 step (3): on a DupAck before recovery "the number of octets which may be
    // sent is governed by pipe and cwnd": (3.3) while cwnd − pipe ≥ 1 SMSS, new data goes.
    // One DupAck SACKing 2 and 3 takes two segments out of pipe (cwnd 10, pipe 8): two new
    // segments go, where RFC 3042 alone allows one per DupAck.
    let c = TcpConfig {
        initial_cwnd_segments: 10,
        limited_transmit: true,
        ..cfg(RecoveryAlgorithm::Sack)
    };
    let mut s = Injector::established(c, true, 30 * MSS as usize);
    assert_eq!(s.sent(), (1..=10).collect::<Vec<_>>());
    assert_eq!(s.ack(200, 1, &[(2, 3)]), vec![11, 12]);
    assert!(!s.c.in_recovery());
    assert_eq!(s.c.pipe(), 10 * MSS);
}
