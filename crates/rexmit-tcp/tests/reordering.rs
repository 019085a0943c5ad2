//! Linux's adaptive reordering degree (`adaptive_reordering`, on in the `linux` profile),
//! driven by hand-made ACKs: packets 1 and 2 are late; three SACKed packets start recovery,
//! which retransmits 1; a fourth is SACKed, then the original packet 2 — never retransmitted,
//! 4 segments below the start of the highest SACKed one: reordering of 4. A later loss needs 4
//! duplicate ACKs instead of 3 before fast retransmit.

mod common;
use common::*;
use rexmit_tcp::{RecoveryAlgorithm, TcpConfig};

fn run(adaptive: bool) -> (Injector, Vec<u64>, Vec<u64>) {
    let c = TcpConfig {
        initial_cwnd_segments: 10,
        adaptive_reordering: adaptive,
        ..cfg(RecoveryAlgorithm::Sack)
    };
    let mut s = Injector::established(c, true, (60 * MSS) as usize);
    let mut sent = s.sent();
    assert_eq!(sent, (1..=10).collect::<Vec<_>>());
    sent.extend(s.ack(200, 1, &[(3, 3)]));
    sent.extend(s.ack(201, 1, &[(3, 4)]));
    // RFC 6675 §5: the third duplicate ACK; 1 and 2 are lost (IsLost), 1 goes again.
    let entry = s.ack(202, 1, &[(3, 5)]);
    assert_eq!(entry.first(), Some(&1), "{entry:?}");
    sent.extend(entry);
    sent.extend(s.ack(203, 1, &[(3, 6)]));
    // The original packet 2 arrives, then the original 1 with everything up to 10.
    sent.extend(s.ack(204, 1, &[(2, 6)]));
    sent.extend(s.ack(205, 11, &[]));
    // The first packet after the episode is lost; the ones after it are SACKed one by one.
    let lost = 11;
    assert!((lost..=lost + 4).all(|p| sent.contains(&p)), "{sent:?}");
    let mut t = 300;
    let mut dup = |s: &mut Injector, hi: u64| {
        t += 1;
        s.ack(t, lost, &[(lost + 1, hi)])
    };
    dup(&mut s, lost + 1);
    dup(&mut s, lost + 2);
    let third = dup(&mut s, lost + 3);
    let fourth = dup(&mut s, lost + 4);
    (s, third, fourth)
}

#[test]
fn reordering_seen_raises_the_duplicate_threshold() {
    let (s, third, fourth) = run(true);
    let st = s.c.stats();
    assert_eq!((st.reordering, st.reordering_seen), (4, 1));
    assert!(
        !third.contains(&11),
        "three duplicate ACKs are not enough: {third:?}"
    );
    assert_eq!(
        fourth.first(),
        Some(&11),
        "the fourth starts recovery: {fourth:?}"
    );
}

#[test]
fn without_it_the_third_duplicate_ack_retransmits() {
    let (s, third, _) = run(false);
    assert_eq!(third.first(), Some(&11), "{third:?}");
    assert_eq!(s.c.stats().reordering_seen, 0);
}

#[test]
fn the_linux_profile_adapts_and_the_rfc_one_does_not() {
    assert!(
        rexmit_tcp::profile::Profile::Linux
            .config()
            .adaptive_reordering
    );
    assert_eq!(
        rexmit_tcp::profile::Profile::Linux.config().max_reordering,
        300
    );
    assert!(!TcpConfig::default().adaptive_reordering);
}
