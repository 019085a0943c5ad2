//! HyStart in CUBIC at the packet level: a sender in slow start behind a bottleneck of one
//! packet per 3 ms (333 packets/s) with 100 ms of base RTT, so the BDP is 33 packets. Every
//! packet is acknowledged on its own when it leaves the bottleneck (ACKs 3 ms apart: no ACK
//! train, only HyStart's delay detector can fire). MSS 1000.

mod common;
use common::*;
use rexmit_tcp::{CcAlgorithm, RecoveryAlgorithm, TcpConfig};

const BOTTLENECK_MS: u64 = 3;
const BASE_RTT_MS: u64 = 100;

/// Run until `end_ms`; returns (time in ms, ssthresh in packets) of the ACK at which slow
/// start ended, if it did, and cwnd in packets then (or at the end).
fn slow_start(hystart: bool, end_ms: u64) -> (Option<(u64, u64)>, u64) {
    let c = TcpConfig {
        initial_cwnd_segments: 10,
        cc: CcAlgorithm::Cubic.into(),
        hystart,
        ..cfg(RecoveryAlgorithm::Sack)
    };
    let mut s = Injector::established(c, true, 10_000 * MSS as usize);
    // (time the ACK arrives, packet it acknowledges), in arrival order.
    let mut acks: std::collections::VecDeque<(u64, u64)> = std::collections::VecDeque::new();
    let mut last_out = 0;
    let mut send = |acks: &mut std::collections::VecDeque<(u64, u64)>, t: u64, pkts: Vec<u64>| {
        for p in pkts {
            // Leaves the bottleneck one slot after the previous packet, arrives back 100 ms on.
            last_out = (t + BASE_RTT_MS / 2).max(last_out + BOTTLENECK_MS);
            acks.push_back((last_out + BASE_RTT_MS / 2, p));
        }
    };
    let first = s.sent();
    send(&mut acks, 100, first);
    while let Some((t, p)) = acks.pop_front() {
        if t > end_ms {
            break;
        }
        let out = s.ack(t, p + 1, &[]);
        if s.c.ssthresh() < u64::MAX / 4 {
            return (Some((t, s.c.ssthresh() / MSS)), s.cwnd_pkts());
        }
        send(&mut acks, t, out);
    }
    (None, s.cwnd_pkts())
}

/// Without HyStart slow start runs on (cwnd past 200 packets by 1.5 s, the flight limited only
/// by the peer's 64 KB window). With it, slow start ends when the smallest of a round's first
/// 8 RTT samples exceeds the 100 ms minimum by more than clamp(100/8, 4, 16) = 12.5 ms, i.e.
/// when those packets found more than 12.5/3 ≈ 4.2 packets queued. Rounds begin where the
/// flights do, from the first (Linux ≥ 6.13), and cwnd doubles per round: 10, 20, 40, 80. A
/// flight's first packets find what is left of the flight before it, its size less the 33
/// the bottleneck drains in a round trip: the flight of 40 packets (sent in the round begun at
/// cwnd 20) leaves 7 (21 ms), the one of 20 none. So the first 8 samples of the round begun at
/// cwnd 80, those of the flight sent from cwnd 40 on, decide: at its ninth ACK, cwnd 80 + 8.
/// ssthresh = cwnd at that ACK (Linux).
#[test]
fn hystart_ends_slow_start_when_the_bottleneck_queue_adds_an_eighth_of_the_rtt() {
    let (exit, cwnd) = slow_start(false, 1_500);
    assert_eq!(exit, None);
    assert!(cwnd > 200, "cwnd {cwnd}");
    let (exit, cwnd) = slow_start(true, 1_500);
    let (t, ssthresh) = exit.expect("HyStart ended slow start");
    assert_eq!(ssthresh, 88, "ssthresh {ssthresh} packets at {t} ms");
    assert_eq!(ssthresh, cwnd);
}
