//! Growth only while cwnd-limited (`tcp.cwnd_limited_growth`; RFC 7661 §4.3, Linux
//! tcp_is_cwnd_limited), driven by hand-made ACKs: SYN RTT 100 ms, MSS 1000, initial window 10
//! segments, one ACK per packet (RFC 5681 slow start: one SMSS per ACK).

mod common;
use common::*;
use rexmit_tcp::{RecoveryAlgorithm, TcpConfig};

/// The application writes `pkts` packets; each is acknowledged by its own ACK at 200 ms.
/// cwnd afterwards, in segments.
fn cwnd_after_one_round(validation: bool, pkts: u64) -> u64 {
    let c = TcpConfig {
        initial_cwnd_segments: 10,
        cwnd_limited_growth: validation,
        ..cfg(RecoveryAlgorithm::Sack)
    };
    let mut s = Injector::established(c, true, (pkts * MSS) as usize);
    assert_eq!(s.sent(), (1..=pkts.min(10)).collect::<Vec<_>>());
    for next in 2..=pkts + 1 {
        s.ack(200, next, &[]);
    }
    s.cwnd_pkts()
}

#[test]
fn an_application_limited_flow_does_not_grow_its_window() {
    // Three packets in a window of ten: cwnd was never the limit, and in slow start cwnd (10)
    // is already twice what was outstanding (3): no growth. RFC 5681 alone grows by three.
    assert_eq!(cwnd_after_one_round(true, 3), 10);
    assert_eq!(cwnd_after_one_round(false, 3), 13);
}

#[test]
fn slow_start_grows_to_twice_what_was_outstanding() {
    // Linux: "in slow start, ensure cwnd grows to twice what was ACKed": six outstanding,
    // cwnd grows to 12 on the first two ACKs and stops there; RFC 5681 grows by six.
    assert_eq!(cwnd_after_one_round(true, 6), 12);
    assert_eq!(cwnd_after_one_round(false, 6), 16);
}

#[test]
fn a_cwnd_limited_flow_grows_as_without_the_rule() {
    // Forty packets: the first flight fills cwnd, every ACK may grow it.
    assert_eq!(
        cwnd_after_one_round(true, 40),
        cwnd_after_one_round(false, 40)
    );
    assert!(cwnd_after_one_round(true, 40) > 20);
}
