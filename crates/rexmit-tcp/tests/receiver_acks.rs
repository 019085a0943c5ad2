//! Receiver behaviour, segment by segment: delayed ACKs (RFC 5681 §4.2), SACK block choice and
//! order (RFC 2018 §4), D-SACK (RFC 2883 §4), the out-of-order queue statistics.

mod common;
use common::*;
use rexmit_tcp::{RecoveryAlgorithm, TcpConfig};

fn rx(ack_every: u32, sack: bool, timestamps: bool) -> RxInjector {
    let c = TcpConfig {
        ack_every,
        timestamps,
        ..cfg(RecoveryAlgorithm::Sack)
    };
    RxInjector::new(c, sack, timestamps)
}

#[test]
fn delayed_ack_every_second_segment_or_after_200ms() {
    let mut r = rx(2, true, false);
    assert_eq!(r.data(200, 1), vec![]);
    assert_eq!(r.c.poll_timeout(), Some(ms(400)));
    assert_eq!(r.data(210, 2), vec![ackv(3, &[])]);
    assert_eq!(r.c.poll_timeout(), None);
    assert_eq!(r.data(300, 3), vec![]);
    assert_eq!(r.timeout(499), vec![]);
    assert_eq!(r.timeout(500), vec![ackv(4, &[])]);
}

#[test]
fn out_of_order_and_gap_filling_segments_are_acked_at_once() {
    let mut r = rx(2, true, false);
    assert_eq!(r.data(200, 1), vec![]);
    // Out of order: immediate duplicate ACK with SACK (RFC 5681 §4.2, RFC 2018 §4).
    assert_eq!(r.data(201, 3), vec![ackv(2, &[(3, 3)])]);
    // Fills the gap: immediate ACK.
    assert_eq!(r.data(202, 2), vec![ackv(4, &[])]);
    assert_eq!(r.c.stats().ooo_bytes_max, MSS);
    assert_eq!(r.c.stats().ooo_bytes, 0);
    assert_eq!(r.c.stats().bytes_delivered, 3 * MSS);
}

#[test]
fn sack_blocks_first_holds_triggering_segment_then_most_recent() {
    let mut r = rx(1, true, false);
    assert_eq!(r.data(200, 1), vec![ackv(2, &[])]);
    assert_eq!(r.data(201, 3), vec![ackv(2, &[(3, 3)])]);
    assert_eq!(r.data(202, 5), vec![ackv(2, &[(5, 5), (3, 3)])]);
    assert_eq!(r.data(203, 7), vec![ackv(2, &[(7, 7), (5, 5), (3, 3)])]);
    // Extending the oldest block moves it to the front (RFC 2018 §4: the first block must
    // hold the segment that triggered this ACK).
    assert_eq!(r.data(204, 4), vec![ackv(2, &[(3, 5), (7, 7)])]);
    assert_eq!(r.data(205, 9), vec![ackv(2, &[(9, 9), (3, 5), (7, 7)])]);
    assert_eq!(
        r.data(206, 11),
        vec![ackv(2, &[(11, 11), (9, 9), (3, 5), (7, 7)])]
    );
    // Without timestamps four blocks fit (RFC 2018 §3); the oldest reported one drops out.
    assert_eq!(
        r.data(207, 13),
        vec![ackv(2, &[(13, 13), (11, 11), (9, 9), (3, 5)])]
    );
    // Filling 2 delivers 2..=5; blocks below the cumulative ACK disappear.
    assert_eq!(
        r.data(208, 2),
        vec![ackv(6, &[(13, 13), (11, 11), (9, 9), (7, 7)])]
    );
    assert_eq!(r.c.stats().ooo_bytes_max, 7 * MSS);
}

#[test]
fn three_sack_blocks_fit_with_timestamps() {
    let mut r = rx(1, true, true);
    r.data(200, 1);
    for (t, p) in [(201, 3), (202, 5), (203, 7)] {
        r.data(t, p);
    }
    assert_eq!(r.data(204, 9), vec![ackv(2, &[(9, 9), (7, 7), (5, 5)])]);
}

#[test]
fn no_sack_blocks_unless_negotiated() {
    let mut r = rx(1, false, false);
    r.data(200, 1);
    assert_eq!(r.data(201, 3), vec![ackv(2, &[])]);
}

#[test]
fn dsack_reports_duplicate_below_cumulative_ack() {
    let mut r = rx(1, true, false);
    r.data(200, 1);
    r.data(201, 2);
    // Packet 1 again (a spurious retransmission): D-SACK block first (RFC 2883 §4.1.1).
    assert_eq!(r.data(300, 1), vec![ackv(3, &[(1, 1)])]);
    assert_eq!(r.c.stats().dsacks_sent, 1);
    // Reported once only.
    assert_eq!(r.data(301, 3), vec![ackv(4, &[])]);
}

#[test]
fn dsack_for_duplicate_out_of_order_segment_is_followed_by_its_block() {
    let mut r = rx(1, true, false);
    r.data(200, 1);
    r.data(201, 3);
    r.data(202, 4);
    r.data(203, 6);
    // Packet 4 again: D-SACK (4), then the block holding it (3..=4), then the others
    // (RFC 2883 §4.1.2).
    assert_eq!(r.data(300, 4), vec![ackv(2, &[(4, 4), (3, 4), (6, 6)])]);
}
