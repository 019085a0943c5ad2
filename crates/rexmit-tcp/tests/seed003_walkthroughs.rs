//! Seed 003 §II, Figures 1 and 2: cwnd = 14 packets, packets 2 and 9 lost, DupThresh 3.
//! The ACKs are injected by hand exactly as the receiver of the figures would send them.

mod common;
use common::*;
use rexmit_tcp::{RecoveryAlgorithm, TcpConfig};

fn fig_config(recovery: RecoveryAlgorithm) -> TcpConfig {
    TcpConfig {
        initial_cwnd_segments: 14,
        // Congestion avoidance from the start so that the ACK of packet 1 leaves cwnd at 14.
        initial_ssthresh: 14 * MSS,
        ..cfg(recovery)
    }
}

/// Packets 1..=14 go out, the ACK of packet 1 releases packet 15: the window is 2..=15.
fn open_window(recovery: RecoveryAlgorithm, sack: bool) -> Injector {
    let mut s = Injector::established(fig_config(recovery), sack, 60 * MSS as usize);
    assert_eq!(s.sent(), (1..=14).collect::<Vec<_>>());
    assert_eq!(s.ack(200, 2, &[]), vec![15]);
    assert_eq!(s.cwnd_pkts(), 14);
    s
}

#[test]
fn figure1_newreno_fast_retransmit_and_fast_recovery() {
    let mut s = open_window(RecoveryAlgorithm::NewReno, false);
    // Duplicate ACKs for packets 3 and 4: nothing.
    assert_eq!(s.ack(201, 2, &[]), vec![]);
    assert_eq!(s.ack(202, 2, &[]), vec![]);
    // Third duplicate ACK: retransmit 2, ssthresh = 7, cwnd = 7 + 3 (RFC 6582 §3.2 step 2).
    assert_eq!(s.ack(203, 2, &[]), vec![2]);
    assert_eq!((s.c.ssthresh() / MSS, s.cwnd_pkts()), (7, 10));
    // Duplicate ACKs 4–7 (packets 6, 7, 8, 10) inflate cwnd to 14: still 14 in flight.
    for t in 204..=207 {
        assert_eq!(s.ack(t, 2, &[]), vec![]);
    }
    assert_eq!(s.cwnd_pkts(), 14);
    // "After 8 DUPACKs, the congestion window has grown to 15 packets and the sender is
    // allowed to transmit a new packet every received ACK."
    assert_eq!(s.ack(208, 2, &[]), vec![16]);
    assert_eq!(s.cwnd_pkts(), 15);
    for (t, p) in [(209, 17), (210, 18), (211, 19), (212, 20)] {
        assert_eq!(s.ack(t, 2, &[]), vec![p]);
    }
    // The retransmission of 2 arrives: partial ACK for 9. Retransmit 9 at once; cwnd is
    // deflated by the 7 packets acknowledged and one SMSS is added back (RFC 6582 §3.2 step 5),
    // 19 − 7 + 1 = 13, which releases packet 21. (The seed's text deflates without the add-back
    // and so keeps 9..=20 then 9..=25 buffered; RFC 6582 gives one packet more, 9..=26.)
    assert_eq!(s.ack(300, 9, &[]), vec![9, 21]);
    assert_eq!(s.cwnd_pkts(), 13);
    assert!(s.c.in_recovery());
    // Duplicate ACKs for 16..=20: one new packet each.
    for (t, p) in [(301, 22), (302, 23), (303, 24), (304, 25), (305, 26)] {
        assert_eq!(s.ack(t, 9, &[]), vec![p]);
    }
    assert_eq!(s.c.stats().rtx_queue_bytes / MSS, 26 - 9 + 1);
    // The retransmission of 9 arrives: ACK for 22 covers recover (15): full ACK, cwnd =
    // ssthresh = 7 and recovery ends; 22..=26 are 5 in flight, so 27 and 28 go.
    assert_eq!(s.ack(400, 22, &[]), vec![27, 28]);
    assert!(!s.c.in_recovery());
    assert_eq!(s.cwnd_pkts(), 7);
    let st = s.c.stats();
    assert_eq!(
        (st.fast_retransmits, st.retransmits_fast, st.timeouts),
        (1, 2, 0)
    );
    assert_eq!(st.recoveries.len(), 1);
    assert_eq!(st.recoveries[0].start, ms(203));
    assert_eq!(st.recoveries[0].end, Some(ms(400)));
}

#[test]
fn figure2_sack_loss_recovery() {
    let mut s = open_window(RecoveryAlgorithm::Sack, true);
    // Duplicate ACKs for 3 and 4, each newly SACKing data (RFC 6675 §2 DupAck).
    assert_eq!(s.ack(201, 2, &[(3, 3)]), vec![]);
    assert_eq!(s.ack(202, 2, &[(3, 4)]), vec![]);
    // Third: enter loss recovery, RecoveryPoint = 15, cwnd = ssthresh = 7, retransmit 2.
    // pipe = 1 (2, retransmitted) + 10 (6..=15) = 11.
    assert_eq!(s.ack(203, 2, &[(3, 5)]), vec![2]);
    assert_eq!(
        (s.c.ssthresh() / MSS, s.cwnd_pkts(), s.c.pipe() / MSS),
        (7, 7, 11)
    );
    assert_eq!(s.ack(204, 2, &[(3, 6)]), vec![]);
    assert_eq!(s.ack(205, 2, &[(3, 7)]), vec![]);
    assert_eq!(s.ack(206, 2, &[(3, 8)]), vec![]);
    assert_eq!(s.ack(207, 2, &[(10, 10), (3, 8)]), vec![]);
    assert_eq!(s.c.pipe() / MSS, 7);
    // 8th duplicate ACK: pipe 6 < cwnd 7. No packet is lost yet (9 has only 10 and 11 above
    // it), so NextSeg rule (2) sends new data: packet 16.
    assert_eq!(s.ack(208, 2, &[(10, 11), (3, 8)]), vec![16]);
    // 9th: 10, 11, 12 SACKed above 9, IsLost(9): rule (1) retransmits 9; pipe is then 6, so
    // one more segment fits, new data 17 by rule (2).
    assert_eq!(s.ack(209, 2, &[(10, 12), (3, 8)]), vec![9, 17]);
    for (t, p) in [(210, 18), (211, 19), (212, 20)] {
        let hi = p - 5;
        assert_eq!(s.ack(t, 2, &[(10, hi), (3, 8)]), vec![p]);
    }
    // Retransmitted 2 arrives: cumulative ACK 9, pipe = 1 (9) + 5 (16..=20) = 6: send 21.
    assert_eq!(s.ack(300, 9, &[(10, 15)]), vec![21]);
    for (t, p) in [(301, 22), (302, 23), (303, 24), (304, 25), (305, 26)] {
        assert_eq!(s.ack(t, 9, &[(10, p - 6)]), vec![p]);
    }
    // Retransmitted 9 arrives: cumulative ACK 22 passes RecoveryPoint (15): recovery ends;
    // cwnd stays 7 with 22..=26 in flight, so 27 and 28 go.
    assert_eq!(s.ack(400, 22, &[]), vec![27, 28]);
    assert!(!s.c.in_recovery());
    let st = s.c.stats();
    assert_eq!(
        (st.fast_retransmits, st.retransmits_fast, st.timeouts),
        (1, 2, 0)
    );
    assert_eq!(st.recoveries[0].end, Some(ms(400)));
}
