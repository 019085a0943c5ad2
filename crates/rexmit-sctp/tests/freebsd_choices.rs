//! FreeBSD's choices as rexmit options (issue 39, docs/validation_freebsd.md "FreeBSD's SCTP"): its
//! T3-rtx rules (`t3_rtx = "freebsd"`), RTT samples from the handshake (`handshake_rtt`), fast
//! retransmission again (`fast_rtx_again`), its burst limit (`fr_max_burst`), its receiver
//! acknowledging the first DATA at once (`sack_first_data`), its receiver's mapping array
//! of 4096 TSNs (`tsn_map_window`) and its ssthresh floor of 2·MTU after a fast retransmit
//! (`fr_ssthresh_floor_mtus`). The RFC 9260
//! behaviour beside each, on the same exchange. One-way delay 10 ms both ways, B SACKs every
//! packet, nothing lost unless a test says so.

mod common;
use common::*;
use rexmit_sctp::{Association, CwndGrowth, SctpConfig, T3Rtx};
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

/// A (`a_cfg`) sends for `secs` seconds and the first transmissions of the DATA chunks `lost`
/// (counted from 0 in TSN order) are dropped (B SACKs every packet, 10 ms each way). A writes
/// whenever its send buffer has room; with a send buffer above 64 KiB it fills it once. `sent`
/// hears how often each chunk A sends has now been sent, `step` the end of every step (one
/// arriving packet or timer). Returns every chunk's transmissions and B's duplicate TSNs.
fn bulk_losing(
    a_cfg: SctpConfig,
    lost: std::ops::Range<u32>,
    secs: u64,
    sent: &mut dyn FnMut(u32),
    step: &mut dyn FnMut(),
) -> (std::collections::BTreeMap<u32, u32>, u64) {
    let refill = a_cfg.send_buffer <= 64 * 1024;
    let (a, b) = connect_pair(a_cfg, receiver(), 1, 1, false);
    let mut net = Net::new(a, b);
    let mut sends = std::collections::BTreeMap::<u32, u32>::new();
    let mut first_tsn = None;
    let mut fate = |t: &rexmit_sctp::Transmit, _: Time| {
        let mut drop = false;
        for d in data_chunks(t) {
            let first = *first_tsn.get_or_insert(d.tsn);
            let n = sends.entry(d.tsn - first).or_insert(0);
            *n += 1;
            drop |= *n == 1 && lost.contains(&(d.tsn - first));
            sent(*n);
        }
        (!drop).then_some(OWD)
    };
    let mut app = |now: Time, eps: &mut [Association; 2]| {
        if refill || now == Time::ZERO {
            while eps[0].send(now, 0, Payload::zeros(T), true).is_ok() {}
        }
    };
    let mut observe = |_: Time, _: &[Association; 2]| step();
    net.run_observed(Time::from_secs(secs), &mut fate, &mut app, &mut observe);
    (sends, net.eps[1].stats().dup_tsns_received)
}

/// Every transmission of each TSN when A sends for 2 s and the first transmissions of the 41st
/// to 44th DATA chunks are lost in one burst.
fn burst_of_four(fast_rtx_again: bool) -> (std::collections::BTreeMap<u32, u32>, u64) {
    let a_cfg = SctpConfig {
        fast_rtx_again,
        ..config(T3Rtx::Freebsd)
    };
    bulk_losing(a_cfg, 40..44, 2, &mut |_| {}, &mut || {})
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

/// A sends for 1 s and the first transmissions of the 101st to 112th DATA chunks are lost in
/// one burst; `refill`: A's 64 KiB send buffer is refilled whenever it has room (else A writes
/// 4 MiB at the start). Returns (retransmitted chunks, new chunks) of each step at which A sent DATA,
/// from the first retransmission on.
fn burst_of_twelve(fr_max_burst: u32, refill: bool) -> Vec<(u32, u32)> {
    use std::cell::RefCell;
    let a_cfg = SctpConfig {
        fast_rtx_again: true,
        fr_max_burst,
        send_buffer: if refill { 64 * 1024 } else { 4 << 20 },
        ..config(T3Rtx::Freebsd)
    };
    let steps = RefCell::new(vec![(0u32, 0u32)]);
    let mut sent = |n: u32| {
        let mut steps = steps.borrow_mut();
        let step = steps.last_mut().expect("one open step");
        if n > 1 {
            step.0 += 1;
        } else {
            step.1 += 1;
        }
    };
    let mut step = || {
        let mut steps = steps.borrow_mut();
        if *steps.last().expect("one open step") != (0, 0) {
            steps.push((0, 0));
        }
    };
    bulk_losing(a_cfg, 100..112, 1, &mut sent, &mut step);
    let steps = steps.into_inner();
    let first_rtx = steps
        .iter()
        .position(|s| s.0 > 0)
        .expect("a retransmission");
    steps[first_rtx..].to_vec()
}

/// FreeBSD sends a packet led by a fast-retransmitted chunk whatever cwnd says, at most
/// `fr_max_burst` (4) of them per output call, and the call ends there — no new data after the
/// fourth (sctp_chunk_output, sctp_chunk_retransmission). The SACK that finds the twelve lost
/// (their third miss indication) lets four go, and each of the next two SACKs four more; when
/// the in-recovery strikes of `fast_rtx_again` mark nine of them again, they too leave four
/// per SACK (A wrote all its data at the start). RFC 9260 §7.2.4 step 3 sends one packet
/// whatever cwnd says and the rest within cwnd: after the cut the twelve leave one per SACK, and
/// the nine marked again, out of the flight at once, leave together.
#[test]
fn fr_max_burst_sends_at_most_four_fast_retransmissions_per_sack() {
    let steps = burst_of_twelve(4, false);
    assert_eq!(&steps[..3], &[(4, 0), (4, 0), (4, 0)]);
    assert!(steps.iter().all(|s| s.0 <= 4), "{steps:?}");
    assert!(
        steps.iter().all(|s| s.0 < 4 || s.1 == 0),
        "no new data after the fourth"
    );

    let steps = burst_of_twelve(0, false);
    assert_eq!(&steps[..12], &[(1, 0); 12], "one per SACK");
    assert_eq!(steps.iter().map(|s| s.0).max(), Some(9), "{steps:?}");

    // A refills its send buffer on each SACK that frees room: each write is an output call of
    // its own with four more (sctp_lower_sosend), so the nine go on one SACK and one write.
    let steps = burst_of_twelve(4, true);
    assert_eq!(&steps[..3], &[(4, 0), (4, 0), (4, 0)], "{steps:?}");
    assert_eq!(steps.iter().map(|s| s.0).max(), Some(8), "{steps:?}");
}

/// A sender whose first window is `n` full chunks, sent at once (no Max.Burst).
fn window_of(n: u64) -> SctpConfig {
    SctpConfig {
        initial_cwnd: Some(n * T as u64),
        max_burst: 0,
        ..config(T3Rtx::Rfc9260)
    }
}

/// The cumulative TSN acks of the SACKs among `ts`.
fn sack_cums(ts: &[rexmit_sctp::Transmit]) -> Vec<u32> {
    ts.iter()
        .flat_map(|t| &t.packet.chunks)
        .filter_map(|c| match c {
            rexmit_wire::Chunk::Sack(s) => Some(s.cum_tsn_ack),
            _ => None,
        })
        .collect()
}

/// A sends five packets of one chunk each (TSNs 1-5, no Max.Burst) into B, which SACKs every second packet
/// (RFC 9260 §6.2, `sack_freq = 2`, 200 ms delay); the SACKs B sends after each arrival. FreeBSD
/// starts an association with `send_sack` set, so its receiver acknowledges the first packet
/// carrying DATA at once and counts every second from there (sctp_sack_check): SACKs after
/// packets 1, 3 and 5, nothing pending. RFC 9260's rule counts from the first: SACKs after
/// packets 2 and 4, and packet 5 waits for the delayed-SACK timer. In slow start the first
/// rule lets a window of three chunks be acknowledged within its round trip, the second
/// holds the third's SACK until the next round's first packet arrives.
#[test]
fn sack_first_data_acknowledges_the_first_data_packet_at_once() {
    for on in [true, false] {
        let a_cfg = window_of(5);
        let b_cfg = SctpConfig {
            hb_interval: None,
            sack_first_data: on,
            ..SctpConfig::default()
        };
        let (mut a, mut b) = connect_pair(a_cfg, b_cfg, 1, 1, false);
        for _ in 0..5 {
            a.send(Time::ZERO, 0, Payload::zeros(T), true).unwrap();
        }
        let out = drain(&mut a, Time::ZERO);
        assert_eq!(data_tsns(&out), vec![1, 2, 3, 4, 5]);
        let at = Time::ZERO + OWD;
        let sacks: Vec<Vec<u32>> = out
            .iter()
            .map(|t| {
                deliver(&mut b, at, t);
                sack_cums(&drain(&mut b, at))
            })
            .collect();
        if on {
            assert_eq!(sacks, vec![vec![1], vec![], vec![3], vec![], vec![5]]);
            assert_eq!(b.poll_timeout(), None, "nothing left to acknowledge");
        } else {
            assert_eq!(sacks, vec![vec![], vec![2], vec![], vec![4], vec![]]);
            let delayed = at + Duration::from_millis(200);
            assert_eq!(b.poll_timeout(), Some(delayed), "TSN 5 waits");
        }
    }
}

/// The (cumulative TSN ack, gap blocks) of the last SACK among `ts`.
fn last_sack(ts: &[rexmit_sctp::Transmit]) -> Option<(u32, Vec<(u16, u16)>)> {
    ts.iter()
        .flat_map(|t| &t.packet.chunks)
        .filter_map(|c| match c {
            rexmit_wire::Chunk::Sack(s) => Some((
                s.cum_tsn_ack,
                s.gap_blocks.iter().map(|g| (g.start, g.end)).collect(),
            )),
            _ => None,
        })
        .next_back()
}

/// A sends TSNs 1-24 in one packet each; TSN 1 is lost and B SACKs every packet. FreeBSD's
/// receiver keeps out-of-order TSNs in a mapping array of 4096 TSNs from its base, the
/// cumulative ack plus one (rounded down to bytes of 8 TSNs while a TSN is missing), and
/// drops a DATA chunk beyond it unacknowledged (sctp_process_a_data_chunk); here the window is
/// 16 TSNs, so TSNs 2-16 are held and 17-24 dropped: B's SACK reports 2-16 only, and when TSN 1
/// arrives the cumulative ack stops at 16. Sent again, 17-24 fit the array, which has slid to
/// 17. Without the limit (RFC 9260 §3.3.4: a 16-bit gap offset) B holds 2-24.
#[test]
fn tsn_map_window_drops_data_beyond_the_receivers_mapping_array() {
    for window in [16, 0] {
        let b_cfg = SctpConfig {
            tsn_map_window: window,
            ..receiver()
        };
        let (mut a, mut b) = connect_pair(window_of(24), b_cfg, 1, 1, false);
        for _ in 0..24 {
            a.send(Time::ZERO, 0, Payload::zeros(T), true).unwrap();
        }
        let out = drain(&mut a, Time::ZERO);
        assert_eq!(data_tsns(&out), (1..=24).collect::<Vec<u32>>());
        let at = Time::ZERO + OWD;
        let mut sacks = Vec::new();
        for t in &out[1..] {
            deliver(&mut b, at, t);
            sacks.extend(drain(&mut b, at));
        }
        let top = if window > 0 { 16 } else { 24 };
        assert_eq!(
            last_sack(&sacks),
            Some((0, vec![(2, top)])),
            "window {window}"
        );
        let later = at + Duration::from_millis(30);
        deliver(&mut b, later, &out[0]);
        let (cum, blocks) = last_sack(&drain(&mut b, later)).unwrap();
        assert_eq!((cum, blocks), (top as u32, vec![]), "window {window}");
        assert_eq!(b.stats().messages_delivered, top as u64);
        for t in &out[16..] {
            deliver(&mut b, later, t);
        }
        let (cum, _) = last_sack(&drain(&mut b, later)).unwrap();
        assert_eq!(cum, 24, "window {window}");
        let dups = if window > 0 { 0 } else { 8 };
        assert_eq!(b.stats().dup_tsns_received, dups, "window {window}");
    }
}

/// A sends TSNs 1-6 with cwnd 6·MTU; TSN 1 is lost, B SACKs 2, 3 and 4 at once with a gap, and
/// the third miss indication fast-retransmits TSN 1 (RFC 9260 §7.2.4). The cut is ssthresh =
/// max(cwnd/2, floor): RFC 9260 §7.2.3's floor of 4·MTU keeps cwnd at 4·MTU, FreeBSD's 2·MTU
/// (sctp_cwnd_update_after_fr) lets it fall to half, 3·MTU. A T3-rtx expiry keeps 4·MTU in both
/// (sctp_cwnd_update_after_timeout).
#[test]
fn fast_retransmit_halves_cwnd_below_four_mtus_only_with_freebsds_floor() {
    for (floor, cut) in [(4, 4 * T as u64), (2, 3 * T as u64)] {
        let cfg = SctpConfig {
            fr_ssthresh_floor_mtus: floor,
            initial_cwnd: Some(6 * T as u64),
            max_burst: 0,
            // No growth on the gap reports before the cut (FreeBSD's rule too).
            cwnd_growth: CwndGrowth::Rfc4960,
            ..config(T3Rtx::Rfc9260)
        };
        let (mut a, mut b) = connect_pair(cfg, receiver(), 1, 1, false);
        let now = Time::from_millis(1);
        for _ in 0..6 {
            a.send(now, 0, Payload::zeros(T), true).unwrap();
        }
        let out = drain(&mut a, now);
        assert_eq!(data_tsns(&out), (1..=6).collect::<Vec<_>>());
        assert_eq!(a.paths()[0].cc().cwnd(), 6 * T as u64);
        let mut rtx = Vec::new();
        // At 11 ms TSNs 2, 3, 4 arrive (TSN 1 was lost); each SACK reports the gap.
        let at = now + OWD;
        for t in &out[1..4] {
            deliver(&mut b, at, t);
            for s in drain(&mut b, at) {
                deliver(&mut a, at + OWD, &s);
            }
            rtx.extend(data_tsns(&drain(&mut a, at + OWD)));
        }
        assert_eq!(
            rtx,
            vec![1],
            "floor {floor}: the third miss indication fast-retransmits TSN 1"
        );
        let cc = a.paths()[0].cc();
        assert_eq!((cc.cwnd(), cc.ssthresh()), (cut, cut), "floor {floor}");
    }
}

/// FreeBSD's floor applies to the fast-retransmit cut only: a T3-rtx expiry still sets ssthresh
/// = max(cwnd/2, 4·MTU) and cwnd = 1·MTU (RFC 9260 §7.2.3, sctp_cwnd_update_after_timeout).
#[test]
fn t3_rtx_expiry_keeps_the_four_mtu_floor_with_freebsds_fast_retransmit_floor() {
    let cfg = SctpConfig {
        fr_ssthresh_floor_mtus: 2,
        initial_cwnd: Some(6 * T as u64),
        max_burst: 0,
        ..config(T3Rtx::Rfc9260)
    };
    let (mut a, _b) = connect_pair(cfg, receiver(), 1, 1, false);
    let now = Time::from_millis(1);
    for _ in 0..6 {
        a.send(now, 0, Payload::zeros(T), true).unwrap();
    }
    assert_eq!(data_tsns(&drain(&mut a, now)).len(), 6);
    // Nothing comes back: T3-rtx expires at RTO.Initial (3 s) and resends TSN 1.
    let expiry = a.poll_timeout().expect("T3-rtx running");
    a.handle_timeout(expiry);
    assert_eq!(data_tsns(&drain(&mut a, expiry)), vec![1]);
    let cc = a.paths()[0].cc();
    assert_eq!((cc.cwnd(), cc.ssthresh()), (T as u64, 4 * T as u64));
}

/// A sends TSNs 1-10 with cwnd 10·MTU in slow start and refills cwnd on every SACK. TSN 3 is
/// lost, TSNs 1 and 2 are late: TSNs 4 and 5 arrive first (two miss indications for 1, 2, 3),
/// then TSNs 1 and 6 together, whose one SACK advances the cumulative ack and, newly acking
/// TSN 6, gives TSNs 2 and 3 their third miss indication. FreeBSD grows cwnd for that SACK
/// first and then cuts (sctp_handle_sack: sctp_cwnd_update_after_sack, then
/// sctp_cwnd_update_after_fr): 10 → 11 → 5.5 MTU. rexmit's default order cuts first, and the
/// fast recovery it entered stops the growth (RFC 9260 §7.2.1): 10 → 5 MTU.
#[test]
fn grow_before_cut_halves_the_window_the_same_sack_grew() {
    for (on, cut) in [(false, 5 * T as u64), (true, 11 * T as u64 / 2)] {
        let cfg = SctpConfig {
            grow_before_cut: on,
            initial_cwnd: Some(10 * T as u64),
            max_burst: 0,
            cwnd_growth: CwndGrowth::Rfc4960,
            ..config(T3Rtx::Rfc9260)
        };
        let (mut a, mut b) = connect_pair(cfg, receiver(), 1, 1, false);
        let now = Time::from_millis(1);
        for _ in 0..30 {
            a.send(now, 0, Payload::zeros(T), true).unwrap();
        }
        let out = drain(&mut a, now);
        assert_eq!(data_tsns(&out), (1..=10).collect::<Vec<_>>());
        let at = now + OWD;
        let mut sent = Vec::new();
        // At 11 ms TSN 4, then TSN 5, then TSNs 1 and 6 before B answers; TSN 3 is lost.
        for ts in [
            &out[3..4],
            &out[4..5],
            &[out[0].clone(), out[5].clone()][..],
        ] {
            for t in ts {
                deliver(&mut b, at, t);
            }
            for s in drain(&mut b, at) {
                deliver(&mut a, at + OWD, &s);
            }
            sent.push(data_tsns(&drain(&mut a, at + OWD)));
        }
        assert_eq!(sent[0], vec![11], "a gap ack frees room for one new chunk");
        assert_eq!(sent[1], vec![12]);
        // RFC 9260 §7.2.4 step 3: one packet whatever cwnd says (TSN 3 waits for room).
        assert_eq!(sent[2], vec![2], "on: {on}: the third miss indications");
        assert_eq!(a.stats().fast_recoveries, 1);
        let cc = a.paths()[0].cc();
        assert_eq!((cc.cwnd(), cc.ssthresh()), (cut, cut), "on: {on}");
    }
}
