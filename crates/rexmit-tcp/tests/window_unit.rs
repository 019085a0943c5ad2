//! The window's unit (`TcpConfig::window_unit`): bytes as RFC 5681 states its rules, or whole
//! segments as Linux counts `snd_cwnd`, `snd_ssthresh` and PRR (docs/validation_linux.md).

mod common;
use common::*;
use rexmit_tcp::{CcAlgorithm, DecreaseBase, RecoveryAlgorithm, TcpConfig, WindowUnit};

fn config(unit: WindowUnit, cc: CcAlgorithm, iw: u32) -> TcpConfig {
    TcpConfig {
        initial_cwnd_segments: iw,
        decrease_base: DecreaseBase::Cwnd,
        cc: cc.into(),
        prr: true,
        window_unit: unit,
        ..cfg(RecoveryAlgorithm::Sack)
    }
}

/// `iw` segments sent; packet 1 lost; 2, 3, 4 SACKed: the third duplicate ACK starts
/// recovery and resends 1.
fn in_recovery(unit: WindowUnit, cc: CcAlgorithm, iw: u32) -> Injector {
    let mut s = Injector::established(config(unit, cc, iw), true, (30 * MSS) as usize);
    assert_eq!(s.sent(), (1..=iw as u64).collect::<Vec<_>>());
    s.lose_first_of_flight();
    s
}

#[test]
fn bytes_is_the_default() {
    assert_eq!(TcpConfig::default().window_unit, WindowUnit::Bytes);
    assert_eq!(
        rexmit_tcp::profile::Profile::Linux.config().window_unit,
        WindowUnit::Segments
    );
}

#[test]
fn a_decrease_rounds_down_to_whole_segments() {
    // cwnd 7: Reno halves to 3.5 segments in bytes, 3 in segments (tcp_reno_ssthresh:
    // cwnd >> 1); CUBIC's β = 0.7 gives 4.9 and 4 (cwnd·717 >> 10).
    for (cc, bytes, segments) in [
        (CcAlgorithm::Reno, 3_500, 3_000),
        (CcAlgorithm::Cubic, 4_900, 4_000),
    ] {
        let b = in_recovery(WindowUnit::Bytes, cc, 7);
        let s = in_recovery(WindowUnit::Segments, cc, 7);
        assert_eq!(b.c.ssthresh(), bytes, "{cc:?}");
        assert_eq!(s.c.ssthresh(), segments, "{cc:?}");
    }
}

#[test]
fn a_timeout_decreases_to_whole_segments_too() {
    let mut s = Injector::established(
        config(WindowUnit::Segments, CcAlgorithm::Cubic, 7),
        true,
        (30 * MSS) as usize,
    );
    assert_eq!(s.sent().len(), 7);
    let at = s.c.poll_timeout().expect("retransmission timer armed");
    assert_eq!(s.timeout(at.as_nanos() / 1_000_000), vec![1]);
    assert_eq!(s.c.ssthresh(), 4_000);
    assert_eq!(s.c.cwnd(), MSS);
}

#[test]
fn prr_in_segments_sends_one_ack_earlier() {
    // cwnd 20 → ssthresh 10 (Reno), RecoverFS 20 segments, the fast retransmission counted in
    // prr_out; pipe stays above ssthresh, so PRR's proportional part rules. prr_delivered
    // counts the segment SACKed by the ACK that started recovery (4), and each further
    // duplicate ACK delivers one more (5, 6, 7, ... SACKed): after the k-th, k + 1 segments.
    // In segments that releases ⌈(k + 1)/2⌉ segments in all (Linux's tcp_cwnd_reduction):
    // new data on the 2nd, 4th and 6th; in bytes (k + 1) · 500 B, a whole segment more only
    // on the 3rd and 5th.
    let run = |unit| {
        let mut s = in_recovery(unit, CcAlgorithm::Reno, 20);
        (5..=10)
            .map(|last| s.ack(198 + last, 1, &[(2, last)]))
            .collect::<Vec<_>>()
    };
    let none = Vec::<u64>::new;
    assert_eq!(
        run(WindowUnit::Segments),
        vec![none(), vec![21], none(), vec![22], none(), vec![23]]
    );
    assert_eq!(
        run(WindowUnit::Bytes),
        vec![none(), none(), vec![21], none(), vec![22], none()]
    );
}

#[test]
fn cubic_grows_a_whole_segment_at_a_time() {
    // After the decrease to 7 segments (cwnd 10), cwnd stays a whole number of segments
    // through congestion avoidance in segments; in bytes W_est's fractions show.
    let run = |unit| {
        let mut s = Injector::established(
            config(unit, CcAlgorithm::Cubic, 10),
            true,
            (400 * MSS) as usize,
        );
        assert_eq!(s.sent().len(), 10);
        s.lose_first_of_flight();
        let (mut max_sent, mut next, mut t, mut fractional, mut grew) = (10, 11, 300, 0, 0);
        let mut last = s.c.cwnd();
        for seg in s.ack(t, next, &[]) {
            max_sent = max_sent.max(seg);
        }
        // One ACK per segment, 2 ms apart, for every segment sent.
        while next <= max_sent && next < 390 {
            t += 2;
            next += 1;
            for seg in s.ack(t, next, &[]) {
                max_sent = max_sent.max(seg);
            }
            fractional += u32::from(!s.c.cwnd().is_multiple_of(MSS));
            grew += u32::from(s.c.cwnd() > last);
            last = s.c.cwnd();
        }
        assert!(next >= 390, "the transfer stalled at {next}");
        assert!(grew > 5, "cwnd grew {grew} times");
        fractional
    };
    assert_eq!(run(WindowUnit::Segments), 0);
    assert!(run(WindowUnit::Bytes) > 0);
}

/// Two 100-byte messages outstanding when the RTO fires (a thin stream: the second was written
/// after the first was lost). Counted in bytes, one segment's window holds both, so go-back-N
/// resends both; Linux counts cwnd in packets and resends only the head (seed 004's TCP New
/// Reno, docs/reproductions_causes.md).
#[test]
fn after_a_timeout_segments_resend_only_the_head_however_small() {
    for (unit, want) in [(WindowUnit::Bytes, 2), (WindowUnit::Segments, 1)] {
        let cfg = TcpConfig {
            window_unit: unit,
            nagle: false,
            ..cfg(RecoveryAlgorithm::NewReno)
        };
        let mut s = Injector::established(cfg, false, 100);
        assert_eq!(s.sent().len(), 1);
        s.now = ms(350);
        s.c.send(s.now, 100);
        assert_eq!(s.sent().len(), 1, "the second message goes at once");
        let at = s.c.poll_timeout().expect("RTO armed");
        s.now = at;
        s.c.handle_timeout(at);
        let mut resent = Vec::new();
        while let Some(seg) = s.c.poll_transmit(at) {
            if !seg.payload.is_empty() {
                resent.push(seg.seq.wrapping_sub(s.iss).wrapping_sub(1));
            }
        }
        assert_eq!(resent.len(), want, "{unit:?}: {resent:?}");
        assert_eq!(resent[0], 0, "the head first");
    }
}
