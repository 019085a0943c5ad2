//! Fall & Floyd (1996) style: 1, 2, 3 and 4 packets dropped from one window of a bulk transfer,
//! for Tahoe, Reno, NewReno and SACK. 8 Mb/s, 50 ms one-way delay, MSS 1000, initial window 8
//! in slow start, ACK every segment; packets 14..=17 are the ones dropped (first transmission
//! only). Each test states who retransmits what and when (ms, packet) and whether a timeout
//! happens; every byte must arrive in order and the connection must close.

mod common;
use common::*;
use rexmit_tcp::{RecoveryAlgorithm, TcpConfig};

struct Outcome {
    rtx: Vec<(u64, u64)>,
    timeouts: u64,
    fast_retransmits: u64,
}

fn run(alg: RecoveryAlgorithm, drops: &[u64]) -> Outcome {
    run_with(alg, false, drops)
}

fn run_with(alg: RecoveryAlgorithm, rack: bool, drops: &[u64]) -> Outcome {
    run_full(alg, rack, 1, drops)
}

fn run_full(alg: RecoveryAlgorithm, rack: bool, ack_every: u32, drops: &[u64]) -> Outcome {
    run_tweaked(alg, rack, ack_every, drops, |_| {})
}

fn run_tweaked(
    alg: RecoveryAlgorithm,
    rack: bool,
    ack_every: u32,
    drops: &[u64],
    tweak: fn(&mut TcpConfig),
) -> Outcome {
    let sack = alg == RecoveryAlgorithm::Sack;
    let mut c = TcpConfig {
        initial_cwnd_segments: 8,
        initial_ssthresh: 100 * MSS,
        sack,
        rack,
        tlp: rack,
        ack_every,
        ..cfg(alg)
    };
    tweak(&mut c);
    let mut n = Net::new(c.clone(), c);
    let data: Vec<u8> = (0..40_000u32).map(|i| (i % 251) as u8).collect();
    assert_eq!(n.a.send_bytes(rexmit_time::Time::ZERO, &data), data.len());
    n.a.close(rexmit_time::Time::ZERO);
    n.drop = drop_first(drops, n.iss_a);
    n.run_until(ms(60_000));
    assert!(
        n.received == data,
        "every byte once and in order ({} bytes)",
        n.received.len()
    );
    assert!(n.finished(), "closed: {:?} {:?}", n.a.state(), n.b.state());
    let st = n.a.stats();
    Outcome {
        rtx: n
            .retransmissions()
            .iter()
            .map(|(t, p)| (t.as_nanos() / 1_000_000, *p))
            .collect(),
        timeouts: st.timeouts,
        fast_retransmits: st.fast_retransmits,
    }
}

#[test]
fn tahoe_one_drop_fast_retransmit_then_slow_start() {
    let o = run(RecoveryAlgorithm::Tahoe, &[14]);
    assert_eq!(o.rtx, vec![(310, 14)]);
    assert_eq!((o.timeouts, o.fast_retransmits), (0, 1));
}

#[test]
fn tahoe_two_to_four_drops_go_back_n_without_timeout() {
    // After the fast retransmit cwnd is 1: each ACK of the slow start releases the next
    // packets from snd_una on, received or not (go-back-N).
    let o = run(RecoveryAlgorithm::Tahoe, &[14, 15]);
    assert_eq!(o.rtx, vec![(311, 14), (413, 15), (413, 16)]);
    assert_eq!((o.timeouts, o.fast_retransmits), (0, 1));
    let o = run(RecoveryAlgorithm::Tahoe, &[14, 15, 16]);
    assert_eq!(
        o.rtx,
        vec![(312, 14), (413, 15), (413, 16), (514, 17), (514, 18)]
    );
    assert_eq!((o.timeouts, o.fast_retransmits), (0, 1));
    // With four drops the go-back-N resends of 18..=20 reach the receiver twice and it sends
    // duplicate ACKs for them; they follow a jump of the cumulative ACK by more than 4·SMSS,
    // so the RFC 6582 §4.1 ACK heuristic keeps them from starting a spurious fast retransmit.
    let o = run(RecoveryAlgorithm::Tahoe, &[14, 15, 16, 17]);
    assert_eq!(
        o.rtx,
        vec![
            (313, 14),
            (414, 15),
            (414, 16),
            (515, 17),
            (515, 18),
            (516, 19),
            (516, 20)
        ]
    );
    assert_eq!((o.timeouts, o.fast_retransmits), (0, 1));
}

#[test]
fn tahoe_without_the_recover_guard_fast_retransmits_again_on_its_own_resends() {
    // ns-3's TcpTahoe (seed 001): the duplicate ACKs for go-back-N resends of 18..=20 start a
    // second fast retransmit at 620 ms, of packet 35, which was in flight, not lost: slow
    // start from one segment again, resending 36..=40 from snd_una; its resends draw a third.
    let o = run_tweaked(RecoveryAlgorithm::Tahoe, false, 1, &[14, 15, 16, 17], |c| {
        c.tahoe_recover_guard = false
    });
    assert_eq!((o.timeouts, o.fast_retransmits), (0, 3));
    assert_eq!(
        &o.rtx[..7],
        &[
            (313, 14),
            (414, 15),
            (414, 16),
            (515, 17),
            (515, 18),
            (516, 19),
            (516, 20)
        ]
    );
    assert_eq!(
        &o.rtx[7..],
        &[
            (620, 35),
            (718, 36),
            (718, 37),
            (719, 38),
            (719, 39),
            (820, 40)
        ]
    );
}

#[test]
fn reno_one_drop_fast_recovery() {
    let o = run(RecoveryAlgorithm::Reno, &[14]);
    assert_eq!(o.rtx, vec![(310, 14)]);
    assert_eq!((o.timeouts, o.fast_retransmits), (0, 1));
}

#[test]
fn reno_two_drops_two_fast_retransmits() {
    // The partial ACK ends Reno's fast recovery; three more duplicate ACKs start a second one
    // (cwnd halved twice).
    let o = run(RecoveryAlgorithm::Reno, &[14, 15]);
    assert_eq!(o.rtx, vec![(311, 14), (508, 15)]);
    assert_eq!((o.timeouts, o.fast_retransmits), (0, 2));
}

#[test]
fn reno_three_and_four_drops_need_a_timeout() {
    let o = run(RecoveryAlgorithm::Reno, &[14, 15, 16]);
    assert_eq!(o.rtx, vec![(312, 14), (509, 15), (1610, 16)]);
    assert_eq!((o.timeouts, o.fast_retransmits), (1, 2));
    let o = run(RecoveryAlgorithm::Reno, &[14, 15, 16, 17]);
    assert_eq!(
        o.rtx,
        vec![(313, 14), (510, 15), (1611, 16), (1712, 17), (1712, 18)]
    );
    assert_eq!((o.timeouts, o.fast_retransmits), (1, 2));
}

#[test]
fn newreno_retransmits_one_hole_per_rtt_without_timeout() {
    let o = run(RecoveryAlgorithm::NewReno, &[14]);
    assert_eq!(o.rtx, vec![(310, 14)]);
    let o = run(RecoveryAlgorithm::NewReno, &[14, 15]);
    assert_eq!(o.rtx, vec![(311, 14), (413, 15)]);
    let o = run(RecoveryAlgorithm::NewReno, &[14, 15, 16]);
    assert_eq!(o.rtx, vec![(312, 14), (413, 15), (514, 16)]);
    let o = run(RecoveryAlgorithm::NewReno, &[14, 15, 16, 17]);
    assert_eq!(o.rtx, vec![(313, 14), (414, 15), (515, 16), (616, 17)]);
    assert_eq!((o.timeouts, o.fast_retransmits), (0, 1));
}

#[test]
fn sack_repairs_all_holes_in_one_rtt_without_timeout() {
    // Once DupThresh segments are SACKed above a hole it is lost (RFC 6675 IsLost) and
    // retransmitted as pipe allows, all within the first recovery RTT. With no new data left,
    // NextSeg rule (4) may rescue the highest unSACKed segment (packet 40, the last, in
    // flight) once HighACK has passed the first retransmission (RescueRxt, §5 (4.3)): with one
    // or two holes the ACK that passes it ends the recovery, with three or four the next
    // hole's ACK opens the window for the rescue.
    let o = run(RecoveryAlgorithm::Sack, &[14]);
    assert_eq!(o.rtx, vec![(310, 14)]);
    let o = run(RecoveryAlgorithm::Sack, &[14, 15]);
    assert_eq!(o.rtx, vec![(311, 14), (404, 15)]);
    let o = run(RecoveryAlgorithm::Sack, &[14, 15, 16]);
    assert_eq!(o.rtx, vec![(312, 14), (404, 15), (405, 16), (505, 40)]);
    let o = run(RecoveryAlgorithm::Sack, &[14, 15, 16, 17]);
    assert_eq!(
        o.rtx,
        vec![(313, 14), (404, 15), (405, 16), (406, 17), (505, 40)]
    );
    assert_eq!((o.timeouts, o.fast_retransmits), (0, 1));
}

#[test]
fn sack_with_rack_repairs_all_holes_in_one_rtt_and_needs_no_rescue() {
    // RACK (RFC 8985) marks the same holes lost at the same moments here (reo_wnd is 0 once
    // DupThresh segments are SACKed without reordering seen); the tail needs no rescue
    // retransmission because TLP, not NextSeg rule (4), covers tails.
    let o = run_with(RecoveryAlgorithm::Sack, true, &[14]);
    assert_eq!(o.rtx, vec![(310, 14)]);
    let o = run_with(RecoveryAlgorithm::Sack, true, &[14, 15]);
    assert_eq!(o.rtx, vec![(311, 14), (404, 15)]);
    let o = run_with(RecoveryAlgorithm::Sack, true, &[14, 15, 16]);
    assert_eq!(o.rtx, vec![(312, 14), (404, 15), (405, 16)]);
    let o = run_with(RecoveryAlgorithm::Sack, true, &[14, 15, 16, 17]);
    assert_eq!(o.rtx, vec![(313, 14), (404, 15), (405, 16), (406, 17)]);
    assert_eq!((o.timeouts, o.fast_retransmits), (0, 1));
}

/// Variant, dropped packets, expected (ms, packet) retransmissions, expected timeouts.
type Case = (RecoveryAlgorithm, &'static [u64], Vec<(u64, u64)>, u64);

#[test]
fn with_delayed_acks_the_same_story_one_ack_clock_slower() {
    // ACK every second segment (RFC 5681 §4.2), immediate ACKs for out-of-order data: slow
    // start is slower, so with four drops too few segments follow the holes in the first
    // window and the fast retransmit waits one more round trip.
    let expect: [Case; 8] = [
        (RecoveryAlgorithm::Tahoe, &[14], vec![(312, 14)], 0),
        (
            RecoveryAlgorithm::Tahoe,
            &[14, 15, 16, 17],
            vec![
                (405, 14),
                (506, 15),
                (506, 16),
                (607, 17),
                (607, 18),
                (608, 19),
                (608, 20),
            ],
            0,
        ),
        (
            RecoveryAlgorithm::Reno,
            &[14, 15],
            vec![(313, 14), (512, 15)],
            0,
        ),
        (
            RecoveryAlgorithm::Reno,
            &[14, 15, 16],
            vec![(314, 14), (514, 15), (1615, 16)],
            1,
        ),
        (
            RecoveryAlgorithm::NewReno,
            &[14, 15, 16],
            vec![(314, 14), (415, 15), (516, 16)],
            0,
        ),
        (
            RecoveryAlgorithm::NewReno,
            &[14, 15, 16, 17],
            vec![(405, 14), (506, 15), (607, 16), (708, 17)],
            0,
        ),
        (RecoveryAlgorithm::Sack, &[14], vec![(311, 14)], 0),
        (
            RecoveryAlgorithm::Sack,
            &[14, 15, 16, 17],
            vec![(314, 14), (407, 15), (408, 16), (409, 17)],
            0,
        ),
    ];
    for (alg, drops, rtx, timeouts) in expect {
        let o = run_full(alg, false, 2, drops);
        assert_eq!((o.rtx, o.timeouts), (rtx, timeouts), "{alg:?} {drops:?}");
    }
}
