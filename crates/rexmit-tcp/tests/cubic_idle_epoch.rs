//! CUBIC's epoch over an idle period (`tcp.cubic_idle_epoch`, RFC 9438 §5.8), driven by
//! hand-made ACKs: MSS 1000, initial window 10 segments and ssthresh 10 (congestion avoidance
//! from the first ACK), RTT 100 ms, no restart after idle. Ten packets are acknowledged at
//! 200 ms (the epoch starts there: K = 0, W_max = 10), the sender is idle for ten seconds,
//! then the application writes again and the new flight is acknowledged one packet at a time.

mod common;
use common::*;
use rexmit_tcp::{CcAlgorithm, RecoveryAlgorithm, TcpConfig};

/// cwnd in packets after the first round trip that follows `idle_ms` of silence.
fn cwnd_after_idle(idle_epoch: bool, idle_ms: u64) -> u64 {
    let c = TcpConfig {
        cc: CcAlgorithm::Cubic.into(),
        initial_cwnd_segments: 10,
        initial_ssthresh: 10 * MSS,
        cubic_idle_epoch: idle_epoch,
        hystart_detect: 3,
        ..cfg(RecoveryAlgorithm::Sack)
    };
    let mut s = Injector::established(c, true, 10 * MSS as usize);
    assert_eq!(s.sent(), (1..=10).collect::<Vec<_>>());
    for next in 2..=11 {
        assert_eq!(s.ack(200, next, &[]), Vec::<u64>::new());
    }
    assert_eq!(s.cwnd_pkts(), 10);
    let resume = 200 + idle_ms;
    s.now = ms(resume);
    s.c.send(s.now, 40 * MSS as usize);
    let flight = s.sent();
    assert_eq!(
        flight,
        (11..=20).collect::<Vec<_>>(),
        "the window of before the pause"
    );
    for next in 12..=21 {
        s.ack(resume + 100, next, &[]);
    }
    s.cwnd_pkts()
}

#[test]
fn the_cubic_epoch_leaves_out_ten_seconds_of_idleness() {
    // RFC 9438 §5.8: t must not count the idle period. With it left out, t is 0.1 s at the
    // next round: W_cubic(t) stays at W_max = 10 and cwnd grows the Reno-friendly way (about
    // one segment per RTT).
    assert_eq!(cwnd_after_idle(true, 10_000), 11);
    // Counted (the RFC's curve run through the pause, as before this option): W_cubic(10.1 s)
    // = 0.4 · 10.1³ + 10 ≈ 422 segments, so every ACK grows cwnd toward its 1.5 × cap.
    assert_eq!(cwnd_after_idle(false, 10_000), 15);
    // After 2 s of idleness the counted curve is at 0.4 · 2.1³ + 10 ≈ 13.7: one more segment.
    assert_eq!(
        (cwnd_after_idle(true, 2_000), cwnd_after_idle(false, 2_000)),
        (11, 12)
    );
}
