//! FreeBSD's choices as rexmit options (issue 39, docs/validation.md "FreeBSD's SCTP"): its
//! T3-rtx rules (`t3_rtx = "freebsd"`), RTT samples from the handshake (`handshake_rtt`). The
//! RFC 9260 behaviour beside each, on the same exchange. One-way delay 10 ms both ways, B
//! SACKs every packet, nothing lost.

mod common;
use common::*;
use rexmit_sctp::{Association, SctpConfig, T3Rtx};
use rexmit_time::{Duration, Time};
use rexmit_wire::Payload;

const T: u32 = 1452;
const OWD: Duration = Duration::from_millis(10);

fn config(t3: T3Rtx) -> SctpConfig {
    SctpConfig {
        hb_interval: None,
        initial_cwnd: Some(4 * T as u64),
        send_buffer: 64 * 1024,
        t3_rtx: t3,
        ..SctpConfig::default()
    }
}

fn receiver() -> SctpConfig {
    SctpConfig {
        hb_interval: None,
        sack_freq: 1,
        recv_buffer: 1 << 20,
        ..SctpConfig::default()
    }
}

/// A keeps its 64 KiB send buffer full for `secs` seconds over a loss-free 20 ms round trip; every
/// packet crosses in OWD and is SACKed at once. Returns A.
fn bulk(t3: T3Rtx, secs: u64) -> Association {
    let (a, b) = connect_pair(config(t3), receiver(), 1, 1, false);
    let mut net = Net::new(a, b);
    let mut fate = |_: &rexmit_sctp::Transmit, _: Time| Some(OWD);
    let mut app = |now: Time, eps: &mut [Association; 2]| {
        while eps[0].send(now, 0, Payload::zeros(T), true).is_ok() {}
    };
    net.run(Time::from_secs(secs), &mut fate, &mut app);
    let [a, _] = net.eps;
    a
}

/// RFC 9260 §6.3.2 R3: every SACK acknowledging the earliest outstanding TSN restarts the
/// timer, so a transfer without loss never sees it expire.
#[test]
fn rfc9260_t3_rtx_never_expires_in_a_transfer_without_loss() {
    let a = bulk(T3Rtx::Rfc9260, 3);
    assert_eq!(a.stats().timeouts, 0);
    assert_eq!(a.stats().retransmissions, 0);
}

/// FreeBSD: SACKs without gap blocks (its express path) leave a running T3-rtx alone, so the
/// timer started by the first DATA chunk (RTO.Initial, 3 s) expires although every chunk is
/// acknowledged within the round trip; no chunk is older than SRTT + 4·RTTVAR, none is
/// marked, and cwnd is kept (sctp_t3rxt_timer, sctp_mark_all_for_resend). The expiry
/// doubles the RTO (1 s, RTO.Min, by then) and the timeout handler restarts the timer at once
/// with it (its safeguard for data outstanding without a timer); SACKs of data sent once
/// restore the RTO but leave the running timer alone, so the next expiry is 2 s later, and
/// so on: at 3, 5 and 7 s of an 8 s transfer.
#[test]
fn freebsd_t3_rtx_expires_without_loss_every_two_rtos_and_marks_nothing_fresh() {
    let (a, b) = connect_pair(config(T3Rtx::Freebsd), receiver(), 1, 1, false);
    let mut net = Net::new(a, b);
    let mut fate = |_: &rexmit_sctp::Transmit, _: Time| Some(OWD);
    let mut app = |now: Time, eps: &mut [Association; 2]| {
        while eps[0].send(now, 0, Payload::zeros(T), true).is_ok() {}
    };
    let mut expiries = Vec::new();
    let mut seen = 0;
    let mut observe = |now: Time, eps: &[Association; 2]| {
        if eps[0].stats().timeouts > seen {
            seen = eps[0].stats().timeouts;
            expiries.push(now.as_nanos() / 1_000_000);
        }
    };
    net.run_observed(Time::from_secs(8), &mut fate, &mut app, &mut observe);
    assert_eq!(expiries, vec![3000, 5000, 7000]);
    let a = &net.eps[0];
    assert_eq!(a.stats().retransmissions, 0, "nothing old enough to mark");
    let cwnd = a.paths()[0].cc().cwnd();
    assert!(cwnd > 64 * 1024, "never cut: {cwnd}");
}

/// `handshake_rtt`: the initiator times INIT -> INIT ACK and COOKIE ECHO -> COOKIE ACK, so the
/// RTO follows the path before any DATA chunk (FreeBSD's sctp_calculate_rto on INIT ACK and
/// COOKIE ACK); off, SRTT waits for the first SACK (RFC 9260 §6.3.1 C1).
#[test]
fn handshake_round_trips_are_rtt_samples_only_with_handshake_rtt() {
    for on in [false, true] {
        let cfg = SctpConfig {
            handshake_rtt: on,
            hb_interval: None,
            ..SctpConfig::default()
        };
        let a = Association::connect(
            cfg,
            vec![A1],
            PORT_A,
            vec![B1],
            PORT_B,
            TAG_A,
            1,
            Time::ZERO,
        );
        let b = Association::listen(
            SctpConfig {
                handshake_rtt: on,
                hb_interval: None,
                ..SctpConfig::default()
            },
            vec![B1],
            PORT_B,
            TAG_B,
            1,
        );
        let mut net = Net::new(a, b);
        let mut fate = |_: &rexmit_sctp::Transmit, _: Time| Some(OWD);
        net.run(Time::from_millis(100), &mut fate, &mut |_, _| {});
        let [a, b] = &net.eps;
        assert!(a.is_established() && b.is_established());
        let (srtt_a, srtt_b) = (a.paths()[0].rtt().srtt(), b.paths()[0].rtt().srtt());
        if on {
            // Two samples of 20 ms at A; B times its INIT ACK to the COOKIE ECHO.
            assert_eq!((srtt_a, srtt_b), (Some(OWD * 2), Some(OWD * 2)));
            assert_eq!(a.stats().paths[0].rtt_samples, 0, "not DATA samples");
        } else {
            assert_eq!((srtt_a, srtt_b), (None, None));
        }
    }
}

/// Every transmission of each TSN when A sends for 2 s and the first transmissions of the 41st
/// to 44th DATA chunks are lost in one burst (B SACKs every packet, 10 ms each way).
fn burst_of_four(fast_rtx_again: bool) -> (std::collections::BTreeMap<u32, u32>, u64) {
    let a_cfg = SctpConfig {
        fast_rtx_again,
        ..config(T3Rtx::Freebsd)
    };
    let (a, b) = connect_pair(a_cfg, receiver(), 1, 1, false);
    let mut net = Net::new(a, b);
    let mut sends = std::collections::BTreeMap::<u32, u32>::new();
    let mut first_tsn = None;
    let mut fate = |t: &rexmit_sctp::Transmit, _: Time| {
        let mut lost = false;
        for d in data_chunks(t) {
            let first = *first_tsn.get_or_insert(d.tsn);
            let n = sends.entry(d.tsn - first).or_insert(0);
            *n += 1;
            lost |= *n == 1 && (40..44).contains(&(d.tsn - first));
        }
        (!lost).then_some(OWD)
    };
    let mut app = |now: Time, eps: &mut [Association; 2]| {
        while eps[0].send(now, 0, Payload::zeros(T), true).is_ok() {}
    };
    net.run(Time::from_secs(2), &mut fate, &mut app);
    (sends, net.eps[1].stats().dup_tsns_received)
}

/// FreeBSD without CMT (sctp_strike_gap_ack_chunks): in fast recovery every SACK that moves the
/// cumulative ack strikes each chunk still missing below the SACK's highest TSN, and a
/// fast-retransmitted chunk's count starts again at its retransmission. The four
/// retransmissions arrive in order and each moves the cumulative ack, so the last of the four
/// has three new strikes when the SACK for the third arrives, and goes a third time — though
/// its retransmission is about to arrive: the receiver gets it twice. RFC 9260 §7.2.4 fast
/// retransmits a TSN once.
#[test]
fn fast_rtx_again_resends_the_last_of_a_burst_of_four_before_its_retransmission_is_acked() {
    let (sends, dups) = burst_of_four(true);
    let lost: Vec<u32> = (40..44).map(|k| sends[&k]).collect();
    assert_eq!(lost, vec![2, 2, 2, 3], "the 44th chunk goes three times");
    assert_eq!(dups, 1, "and arrives twice");
    assert!(sends.iter().all(|(k, n)| (40..44).contains(k) || *n == 1));

    let (sends, dups) = burst_of_four(false);
    let lost: Vec<u32> = (40..44).map(|k| sends[&k]).collect();
    assert_eq!(lost, vec![2, 2, 2, 2], "once each (RFC 9260 §7.2.4)");
    assert_eq!(dups, 0);
}
