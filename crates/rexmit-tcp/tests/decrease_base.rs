//! What a congestion response decreases from (`TcpConfig::decrease_base`): FlightSize by RFC
//! 5681 eq. (4) and RFC 6675 §5 (4.2), cwnd in Linux (tcp_reno_ssthresh) and ns-2. A transfer
//! of 8 segments under an initial window of 10 keeps FlightSize (8) below cwnd (10).

mod common;
use common::*;
use rexmit_tcp::{DecreaseBase, RecoveryAlgorithm, TcpConfig};

fn eight_sent(base: DecreaseBase) -> Injector {
    let c = TcpConfig {
        initial_cwnd_segments: 10,
        decrease_base: base,
        ..cfg(RecoveryAlgorithm::Sack)
    };
    let mut s = Injector::established(c, true, (8 * MSS) as usize);
    assert_eq!(s.sent(), (1..=8).collect::<Vec<_>>());
    s
}

fn eight_segments(base: DecreaseBase) -> Injector {
    let mut s = eight_sent(base);
    s.lose_first_of_flight();
    s
}

#[test]
fn flight_size_is_the_rfc_default() {
    assert_eq!(TcpConfig::default().decrease_base, DecreaseBase::FlightSize);
    // FlightSize 8 segments → ssthresh 4.
    assert_eq!(
        eight_segments(DecreaseBase::FlightSize).c.ssthresh() / MSS,
        4
    );
}

#[test]
fn cwnd_base_halves_the_window() {
    // cwnd 10 segments → ssthresh 5, whatever is outstanding.
    assert_eq!(eight_segments(DecreaseBase::Cwnd).c.ssthresh() / MSS, 5);
}

#[test]
fn timeout_decreases_from_the_same_base() {
    for (base, want) in [(DecreaseBase::FlightSize, 4), (DecreaseBase::Cwnd, 5)] {
        let mut s = eight_sent(base);
        let at = s.c.poll_timeout().expect("retransmission timer armed");
        assert_eq!(s.timeout(at.as_nanos() / 1_000_000), vec![1], "{base:?}");
        assert_eq!(s.c.ssthresh() / MSS, want, "{base:?}");
    }
}
