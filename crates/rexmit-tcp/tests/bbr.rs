//! BBR v1 at the packet level, with Linux's tcp_bbr details: pacing from the tenth segment at
//! 2/ln 2 × the initial window per RTT, retransmissions paced as new data, and packet
//! conservation in fast recovery. One
//! connection driven by hand-made ACKs; MSS 1000, RTT 100 ms (handshake at 0–100 ms).

mod common;
use common::*;
use rexmit_tcp::{CcAlgorithm, RecoveryAlgorithm, TcpConfig};
use rexmit_time::Time;

fn bbr(packets: u64) -> Injector {
    let c = TcpConfig {
        initial_cwnd_segments: 10,
        cc: CcAlgorithm::Bbr.into(),
        ..cfg(RecoveryAlgorithm::Sack)
    };
    let mut s = Injector::established(c, true, (packets * MSS) as usize);
    // Linux paces from the tenth data segment on: the initial window leaves at once.
    assert_eq!(s.sent(), (1..=10).collect::<Vec<_>>());
    s
}

fn ns(x: u64) -> Time {
    Time::from_nanos(x)
}

/// Fire the pacing timer: the connection's deadline is `at`, and these packets leave then.
fn paced(s: &mut Injector, at: Time) -> Vec<u64> {
    assert_eq!(s.c.poll_timeout(), Some(at));
    s.now = at;
    s.c.handle_timeout(at);
    s.sent()
}

/// Pacing rate before any bandwidth sample: 2.885 × 10 000 B per 100 ms, less 1 % =
/// 285 785 B/s, so 1000 B take 3 499 133 ns (Linux bbr_init_pacing_rate_from_rtt and
/// tcp_update_skb_after_send).
const GAP: u64 = 3_499_133;

#[test]
fn new_data_is_paced_at_high_gain_before_the_first_bandwidth_sample() {
    let mut s = bbr(40);
    // The window is full: no pacing timer, only the RTO (100 ms + 1 s).
    assert_eq!(s.c.poll_timeout(), Some(ns(1_100_000_000)));
    // t = 200 ms, packets 1–2 acknowledged: cwnd 12 (Startup grows by what is acknowledged),
    // room for 11–14. The tenth packet's gap ended at 103.5 ms; the sender is late, so half
    // of the next gap is forgiven: 11 now, 12 at 200 ms + GAP/2, then one GAP each.
    assert_eq!(s.ack(200, 3, &[]), vec![11]);
    assert_eq!(s.cwnd_pkts(), 12);
    let t12 = 200_000_000 + GAP - GAP / 2;
    assert_eq!(paced(&mut s, ns(t12)), vec![12]);
    assert_eq!(paced(&mut s, ns(t12 + GAP)), vec![13]);
    assert_eq!(paced(&mut s, ns(t12 + 2 * GAP)), vec![14]);
    // The window is full: no pacing timer, the RTO restarted at 200 ms (RTO.min 1 s).
    assert_eq!(s.c.poll_timeout(), Some(ns(1_200_000_000)));
}

/// Fast recovery with BBR: the first round sends one packet per packet delivered (Linux
/// packet conservation: cwnd = inflight + acked), not PRR's reduction; when recovery ends the
/// window from before it comes back.
#[test]
fn the_first_round_of_fast_recovery_conserves_packets_and_the_window_returns_after() {
    let mut s = bbr(20);
    // Packet 1 lost. 200 ms: 2 SACKed, cwnd 11 (Startup), 11 goes.
    assert_eq!(s.ack(200, 1, &[(2, 2)]), vec![11]);
    // 201 ms: 3 SACKed, cwnd 12; outside recovery new data stays below snd_una + cwnd.
    assert_eq!(s.ack(201, 1, &[(2, 3)]), vec![]);
    assert_eq!(s.cwnd_pkts(), 12);
    // 202 ms: 4 SACKed, the third duplicate: recovery (RFC 6675). In flight: 5–11 (1 is lost),
    // 7 packets; one delivered: cwnd = 7 + 1 = 8, and the retransmission of 1 fills it.
    assert_eq!(s.ack(202, 1, &[(2, 4)]), vec![1]);
    assert!(s.c.in_recovery());
    assert_eq!((s.cwnd_pkts(), s.c.pipe() / MSS), (8, 8));
    // 203 ms: 5 SACKed: one delivered, room for one new packet, but the retransmission moved
    // the pacing clock as a new packet would (Linux tcp_update_skb_after_send): 11 at 200 ms
    // set it to 200 ms + GAP/2 (late sender); 1's retransmission at 202 ms, 0.25 ms late,
    // to 202 ms + GAP − 0.25 ms, when 12 leaves.
    assert_eq!(s.ack(203, 1, &[(2, 5)]), vec![]);
    let t11 = 200_000_000 + GAP - GAP / 2;
    let t12 = 202_000_000 + GAP - (202_000_000 - t11);
    assert_eq!(paced(&mut s, ns(t12)), vec![12]);
    assert_eq!((s.cwnd_pkts(), s.c.pipe() / MSS), (8, 8));
    // 300 ms: the retransmission and 6–11 acknowledged: recovery over. The window saved at its
    // start (12) returns, and Startup adds what this ACK delivered (7): 19.
    assert_eq!(s.ack(300, 12, &[]), vec![13]);
    assert!(!s.c.in_recovery());
    assert_eq!(s.cwnd_pkts(), 19);
}

/// Three holes found by one SACK: BBR's retransmissions leave at the pacing rate, one gap
/// apart, as new data would (Linux tcp_xmit_retransmit_queue stops at tcp_pacing_check), not
/// as a burst of three into the bottleneck's queue.
#[test]
fn retransmissions_are_paced_like_new_data() {
    let mut s = bbr(20);
    // 200 ms: 4–7 SACKed, 1–3 lost (RFC 6675 IsLost). The pacing clock stood at 103.5 ms (the
    // tenth packet's gap), so 1 goes at once and, the sender being late, half of its gap is
    // forgiven.
    assert_eq!(s.ack(200, 1, &[(4, 7)]), vec![1]);
    assert!(s.c.in_recovery());
    let t2 = 200_000_000 + GAP - GAP / 2;
    assert_eq!(paced(&mut s, ns(t2)), vec![2]);
    assert_eq!(paced(&mut s, ns(t2 + GAP)), vec![3]);
    // Then new data, at the same rate.
    assert_eq!(paced(&mut s, ns(t2 + 2 * GAP)), vec![11]);
}
