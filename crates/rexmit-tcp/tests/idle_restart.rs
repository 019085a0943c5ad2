//! Restart after idle (`tcp.idle_restart`), driven by hand-made ACKs: SYN RTT 100 ms, MSS
//! 1000, initial window 4 segments, RTO 1 s (RFC 6298's minimum). Eight packets are sent and
//! acknowledged one by one (slow start: cwnd 12 segments), then the connection is idle, then the
//! application writes twenty packets more.

mod common;
use common::*;
use rexmit_tcp::{IdleRestartRule, RecoveryAlgorithm, TcpConfig};

/// The flight after `idle_ms` of silence following the ACK of packet 8 at 300 ms.
fn flight_after_idle(rule: IdleRestartRule, idle_ms: u64) -> Vec<u64> {
    let c = TcpConfig {
        initial_cwnd_segments: 4,
        idle_restart: rule,
        ..cfg(RecoveryAlgorithm::Sack)
    };
    let mut s = Injector::established(c, true, 8 * MSS as usize);
    assert_eq!(s.sent(), vec![1, 2, 3, 4]);
    // One ACK per packet: RFC 5681 slow start, one SMSS each.
    let mut out = Vec::new();
    for next in 2..=5 {
        out.extend(s.ack(200, next, &[]));
    }
    assert_eq!(out, vec![5, 6, 7, 8]);
    for next in 6..=9 {
        assert_eq!(s.ack(300, next, &[]), Vec::<u64>::new());
    }
    assert_eq!(s.cwnd_pkts(), 12);
    s.now = ms(300 + idle_ms);
    s.c.send(s.now, 20 * MSS as usize);
    s.sent()
}

#[test]
fn rfc5681_restarts_from_the_initial_window_after_an_idle_rto() {
    // RFC 5681 §4.1: no data sent for more than the RTO (1.6 s > 1 s): cwnd = RW =
    // min(IW, cwnd) = 4 segments before the transmission begins.
    assert_eq!(
        flight_after_idle(IdleRestartRule::Rfc5681, 1_600),
        (9..=12).collect::<Vec<_>>()
    );
    // Idle for less than the RTO: the window stands.
    assert_eq!(
        flight_after_idle(IdleRestartRule::Rfc5681, 900),
        (9..=20).collect::<Vec<_>>()
    );
    // Off: twelve segments however long the silence.
    assert_eq!(
        flight_after_idle(IdleRestartRule::Off, 5_000),
        (9..=20).collect::<Vec<_>>()
    );
}

#[test]
fn linux_halves_the_window_once_per_rto_of_idleness_down_to_the_initial_window() {
    // Linux tcp_cwnd_restart: 1.6 s idle is one full RTO: cwnd 12 → 6; 2.6 s is two:
    // 12 → 6 → 3, held at RW = 4.
    assert_eq!(
        flight_after_idle(IdleRestartRule::Linux, 1_600),
        (9..=14).collect::<Vec<_>>()
    );
    assert_eq!(
        flight_after_idle(IdleRestartRule::Linux, 2_600),
        (9..=12).collect::<Vec<_>>()
    );
}
