//! RFC 6937 proportional rate reduction in SACK recovery, driven by hand-made ACKs: a window
//! of 20 packets with packet 1 lost, ssthresh = 10 packets, RecoverFS = 20 packets.

mod common;
use common::*;
use rexmit_tcp::{RecoveryAlgorithm, TcpConfig};

fn sender(prr: bool) -> Injector {
    let c = TcpConfig {
        initial_cwnd_segments: 20,
        prr,
        ..cfg(RecoveryAlgorithm::Sack)
    };
    let mut s = Injector::established(c, true, 60 * MSS as usize);
    assert_eq!(s.sent(), (1..=20).collect::<Vec<_>>());
    assert_eq!(s.ack(200, 1, &[(2, 2)]), vec![]);
    assert_eq!(s.ack(201, 1, &[(2, 3)]), vec![]);
    s
}

#[test]
fn prr_sends_about_one_segment_per_two_acks_while_halving() {
    let mut s = sender(true);
    // Entry: retransmit 1 (prr_out = 1 segment).
    assert_eq!(s.ack(202, 1, &[(2, 4)]), vec![1]);
    // sndcnt = CEIL(prr_delivered · ssthresh / RecoverFS) − prr_out, in bytes: the credit
    // reaches a whole segment every second ACK after the retransmission is paid for.
    let mut out = Vec::new();
    for (i, hi) in (5..=20).enumerate() {
        out.push(s.ack(203 + i as u64, 1, &[(2, hi)]));
    }
    let expect: Vec<Vec<u64>> = vec![
        vec![],
        vec![],
        vec![21],
        vec![],
        vec![22],
        vec![],
        vec![23],
        vec![],
        vec![24],
        vec![],
        // pipe has come down to ssthresh (10): from here PRR-SSRB sends ssthresh − pipe,
        // one segment per segment delivered.
        vec![],
        vec![25],
        vec![26],
        vec![27],
        vec![28],
        vec![29],
    ];
    assert_eq!(out, expect);
    // The retransmission arrives: everything up to 20 is acknowledged, recovery ends with
    // cwnd = ssthresh = 10 packets; 21..=29 are in flight, so one more goes.
    assert_eq!(s.ack(300, 21, &[]), vec![30]);
    assert_eq!(s.cwnd_pkts(), 10);
    assert!(!s.c.in_recovery());
}

#[test]
fn without_prr_the_window_halves_at_once_and_sending_pauses() {
    let mut s = sender(false);
    assert_eq!(s.ack(202, 1, &[(2, 4)]), vec![1]);
    // RFC 6675: cwnd = 10 at once; pipe (17) must drain below 10 before anything is sent.
    let mut first_send = None;
    for (i, hi) in (5..=20).enumerate() {
        let out = s.ack(203 + i as u64, 1, &[(2, hi)]);
        if !out.is_empty() && first_send.is_none() {
            first_send = Some((hi, out));
        }
    }
    assert_eq!(first_send, Some((12, vec![21])));
}
