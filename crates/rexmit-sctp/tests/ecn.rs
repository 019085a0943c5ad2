//! ECN for SCTP, packet by packet (RFC 9260 Appendix A with RFC 3168 §6.1): negotiation by
//! the ECN Capable parameter, ECT(0) on new DATA only, ECNE until CWR, one reduction per
//! window.

mod common;
use common::*;
use rexmit_sctp::{Association, SctpConfig, Transmit};
use rexmit_time::Time;
use rexmit_wire::{Chunk, Ecn, InitParam, Payload};

const T: u64 = 1452;

fn cfg(ecn: bool) -> SctpConfig {
    SctpConfig {
        ecn,
        hb_interval: None,
        initial_cwnd: Some(10 * T),
        max_burst: 0,
        ..SctpConfig::default()
    }
}

fn write(a: &mut Association, now: Time, n: usize) {
    for _ in 0..n {
        a.send(now, 0, Payload::zeros(T as u32), true).unwrap();
    }
}

fn deliver_marked(to: &mut Association, now: Time, t: &Transmit, ecn: Ecn) {
    to.handle_packet_ecn(now, t.src, t.dst, &t.packet, ecn);
}

fn ecne(t: &Transmit) -> Option<u32> {
    t.packet.chunks.iter().find_map(|c| match c {
        Chunk::Ecne { lowest_tsn } => Some(*lowest_tsn),
        _ => None,
    })
}

fn cwr(t: &Transmit) -> Option<u32> {
    t.packet.chunks.iter().find_map(|c| match c {
        Chunk::Cwr { lowest_tsn } => Some(*lowest_tsn),
        _ => None,
    })
}

fn first_tsn(t: &Transmit) -> Option<u32> {
    data_chunks(t).first().map(|d| d.tsn)
}

#[test]
fn ecn_capable_is_offered_only_when_asked_and_used_only_when_both_offered() {
    let init_of = |ecn: bool| {
        let mut a = Association::connect(
            cfg(ecn),
            vec![A1],
            PORT_A,
            vec![B1],
            PORT_B,
            TAG_A,
            1,
            Time::ZERO,
        );
        let t = drain(&mut a, Time::ZERO).remove(0);
        match &t.packet.chunks[0] {
            Chunk::Init(i) => i.params.contains(&InitParam::EcnCapable),
            c => panic!("expected INIT, got {c:?}"),
        }
    };
    assert!(init_of(true));
    assert!(!init_of(false));

    for (ea, eb) in [(true, true), (true, false), (false, true)] {
        let (mut a, mut b) = connect_pair(cfg(ea), cfg(eb), 1, 1, false);
        let both = ea && eb;
        assert_eq!((a.ecn_negotiated(), b.ecn_negotiated()), (both, both));
        let now = Time::from_millis(1);
        write(&mut a, now, 4);
        let out = drain(&mut a, now);
        let want = if both { Ecn::Ect0 } else { Ecn::NotEct };
        assert!(out.iter().all(|t| t.ecn == want), "{ea} {eb}");
        // A CE mark on a flow that did not negotiate ECN is not echoed.
        for t in &out {
            deliver_marked(&mut b, now, t, Ecn::Ce);
        }
        let sacks = drain(&mut b, now);
        assert!(!sacks.is_empty());
        assert_eq!(sacks.iter().any(|s| ecne(s).is_some()), both);
        // Packets without DATA are never ECN-capable (RFC 3168 §6.1.4).
        assert!(sacks.iter().all(|s| s.ecn == Ecn::NotEct));
    }
}

/// One CE mark: every SACK echoes it until the CWR arrives; the sender reduces cwnd once, to
/// max(cwnd/2, 4·MTU) as for a fast retransmit (RFC 9260 §7.2.3), answers each echo with a
/// CWR in its next packet, and a mark on data sent after that reduction reduces again.
#[test]
fn one_mark_one_reduction_echo_until_cwr_then_a_new_window() {
    let (mut a, mut b) = connect_pair(cfg(true), cfg(true), 1, 1, false);
    let mut now = Time::from_millis(1);
    write(&mut a, now, 40);
    let out = drain(&mut a, now);
    assert_eq!(data_tsns(&out), (1..=10).collect::<Vec<_>>());
    assert!(out.iter().all(|t| t.ecn == Ecn::Ect0));

    // B receives 1..=10, TSN 3's packet marked CE.
    let mut sacks = Vec::new();
    for t in &out {
        let mark = if first_tsn(t) == Some(3) {
            Ecn::Ce
        } else {
            Ecn::Ect0
        };
        deliver_marked(&mut b, now, t, mark);
        sacks.extend(drain(&mut b, now));
    }
    assert_eq!(b.stats().ecn_ce_received, 1);
    assert!(sacks.len() >= 4, "{} SACKs", sacks.len());
    assert_eq!(
        ecne(&sacks[0]),
        None,
        "the SACK of 1-2 comes before the mark"
    );
    for s in &sacks[1..] {
        assert_eq!(
            ecne(s),
            Some(3),
            "every later SACK echoes TSN 3 until a CWR"
        );
        let pos = |f: fn(&Chunk) -> bool| s.packet.chunks.iter().position(f).unwrap();
        assert!(pos(|c| matches!(c, Chunk::Ecne { .. })) < pos(|c| matches!(c, Chunk::Sack(_))));
    }

    // A hears them: one reduction, a CWR in front of the next packet after each echo.
    let mut sent = Vec::new();
    let mut reduced_to = None;
    for s in &sacks {
        let before = a.paths()[0].cc().cwnd();
        deliver(&mut a, now, s);
        if ecne(s).is_some() && reduced_to.is_none() {
            let want = (before / 2).max(4 * T);
            assert_eq!(a.paths()[0].cc().ssthresh(), want);
            assert_eq!(a.paths()[0].cc().cwnd(), want);
            reduced_to = Some(want);
        }
        let burst = drain(&mut a, now);
        if ecne(s).is_some() && !burst.is_empty() {
            // One CWR answers the echo: in front of the first packet when it fits, else (a
            // full DATA chunk fills the MTU) in a packet of its own right after it.
            let with: Vec<&Transmit> = burst.iter().filter(|t| cwr(t).is_some()).collect();
            assert_eq!(with.len(), 1, "one CWR per echo");
            assert_eq!(cwr(with[0]), Some(3));
            assert!(matches!(with[0].packet.chunks[0], Chunk::Cwr { .. }));
            assert!(burst.iter().all(|t| t.packet.wire_len() + 20 <= 1500));
        }
        sent.extend(burst);
    }
    let echoes = sacks.iter().filter(|s| ecne(s).is_some()).count() as u64;
    assert_eq!(a.stats().ecn_ece_received, echoes);
    let cwrs = sent.iter().filter(|t| cwr(t).is_some()).count() as u64;
    assert_eq!(a.stats().ecn_cwr_sent, cwrs);
    assert!(
        (1..=echoes).contains(&cwrs),
        "{cwrs} CWRs for {echoes} echoes"
    );
    assert_eq!(a.stats().ecn_reductions, 1, "one reduction per window");
    assert_eq!(a.stats().fast_retransmits, 0, "an echo retransmits nothing");
    assert!(reduced_to.is_some());

    // The CWR reaches B: its SACKs stop echoing. The last DATA packet, sent after the
    // reduction, arrives marked CE: a new window's congestion.
    now = Time::from_millis(2);
    let last_i = sent.iter().rposition(|t| first_tsn(t).is_some()).unwrap();
    let last = &sent[last_i];
    assert!(first_tsn(last).unwrap() > 13, "sent after the reduction");
    let mut later = Vec::new();
    let mut cwr_arrived = false;
    for (i, t) in sent.iter().enumerate().filter(|(i, _)| *i != last_i) {
        deliver_marked(&mut b, now, t, Ecn::Ect0);
        cwr_arrived |= cwr(t).is_some();
        for s in drain(&mut b, now) {
            assert!(
                !cwr_arrived || ecne(&s).is_none(),
                "no echo after CWR ({i})"
            );
            later.push(s);
        }
    }
    assert!(cwr_arrived);
    deliver_marked(&mut b, now, last, Ecn::Ce);
    now = Time::from_millis(300); // the delayed SACK
    b.handle_timeout(now);
    let echo: Vec<Transmit> = drain(&mut b, now);
    let last_tsn = data_chunks(last)[0].tsn;
    assert_eq!(echo.iter().find_map(ecne), Some(last_tsn));
    for t in later.iter().chain(&echo) {
        deliver(&mut a, now, t);
    }
    assert_eq!(
        a.stats().ecn_reductions,
        2,
        "a mark on later data reduces again"
    );
}

/// Retransmissions are Not-ECT (RFC 3168 §6.1.5); new data in the same burst is ECT(0).
#[test]
fn a_fast_retransmission_is_not_ect() {
    let (mut a, mut b) = connect_pair(cfg(true), cfg(true), 1, 1, false);
    let now = Time::from_millis(1);
    write(&mut a, now, 20);
    let out = drain(&mut a, now);
    let mut resent = Vec::new();
    for t in out.iter().filter(|t| first_tsn(t) != Some(1)) {
        deliver(&mut b, now, t);
        for s in drain(&mut b, now) {
            deliver(&mut a, now, &s);
        }
        resent.extend(drain(&mut a, now));
    }
    let rtx: Vec<&Transmit> = resent.iter().filter(|t| first_tsn(t) == Some(1)).collect();
    assert_eq!(rtx.len(), 1, "TSN 1 fast retransmitted once");
    assert_eq!(rtx[0].ecn, Ecn::NotEct);
    assert!(resent
        .iter()
        .filter(|t| first_tsn(t).is_some_and(|n| n > 10))
        .all(|t| t.ecn == Ecn::Ect0));
}
