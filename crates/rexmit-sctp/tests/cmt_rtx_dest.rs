//! Where CMT retransmissions go when the destination is fixed as the chunk is marked
//! (`cmt.rtx_dest_at_mark`, FreeBSD's `whoTo`) rather than chosen as it is sent, and whether a
//! chunk a T3-rtx expiry resent may be fast retransmitted again (`cmt.no_fr_after_t3`,
//! FreeBSD's `no_fr_allowed`).

mod common;
use common::*;
use rexmit_sctp::{Association, CmtConfig, CwndGrowth, RtxPolicy, SctpConfig, T3Rtx, Transmit};
use rexmit_time::{Duration, Time};
use rexmit_wire::Payload;
use std::collections::BTreeMap;

/// FreeBSD's CMT as validation/usrsctp.py pins it, with `rtx_dest_at_mark` as given.
fn freebsd_cmt(rtx_dest_at_mark: bool) -> SctpConfig {
    SctpConfig {
        t3_rtx: T3Rtx::Freebsd,
        nr_sack: true,
        send_buffer: 1 << 20,
        recv_buffer: 1 << 22,
        initial_ssthresh: Some(16_000),
        cwnd_growth: CwndGrowth::Rfc4960,
        hb_interval: None,
        cmt: CmtConfig {
            enabled: true,
            rtx_policy: RtxPolicy::Cwnd,
            rtx_pseudo_cumack: true,
            rtx_dest_at_mark,
            ..CmtConfig::default()
        },
        ..SctpConfig::default()
    }
}

fn on_path0(t: &Transmit) -> bool {
    [A1, B1].contains(&t.src) || [A1, B1].contains(&t.dst)
}

fn unordered(now: Time, eps: &mut [Association; 2]) {
    while eps[0].send(now, 0, Payload::zeros(1000), true).is_ok() {}
}

/// One DATA packet from A: when, whether to path 1, whether it carries a chunk sent before.
#[derive(Clone, Copy, Debug)]
struct Sent {
    at: Time,
    path1: bool,
    rtx: bool,
}

/// Path 0 takes 40 ms each way, path 1 10 ms, so path 1's cwnd grows the larger (slow start
/// ends at 16 kB, then one MTU per round trip); from 1 s on A's data on path 1 is lost, while
/// path 0 stays full of new data. Returns A's DATA packets from 1 s on and path 1's first
/// T3-rtx expiry (A's per-path timeout counter).
fn after_blackout(rtx_dest_at_mark: bool) -> (Vec<Sent>, Time) {
    let c = freebsd_cmt(rtx_dest_at_mark);
    let (a, b) = connect_pair(c.clone(), c, 1, 1, true);
    let mut net = Net::new(a, b);
    let blackout = Time::from_secs(1);
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    let mut fate = |t: &Transmit, now: Time| {
        let tsns = data_tsns(std::slice::from_ref(t));
        if (t.src == A1 || t.src == A2) && !tsns.is_empty() {
            if now >= blackout {
                let rtx = tsns.iter().any(|x| seen.contains(x));
                out.push(Sent {
                    at: now,
                    path1: !on_path0(t),
                    rtx,
                });
            }
            seen.extend(tsns.iter().copied());
            if now >= blackout && !on_path0(t) {
                return None;
            }
        }
        Some(Duration::from_millis(if on_path0(t) { 40 } else { 10 }))
    };
    let mut path1_expired = None;
    let mut observe = |now: Time, eps: &[Association; 2]| {
        if path1_expired.is_none() && eps[0].stats().paths[1].timeouts > 0 {
            path1_expired = Some(now);
        }
    };
    net.run_observed(
        Time::from_millis(2_500),
        &mut fate,
        &mut unordered,
        &mut observe,
    );
    (out, path1_expired.expect("path 1's T3-rtx expired"))
}

fn first_rtx(sent: &[Sent]) -> Sent {
    *sent.iter().find(|s| s.rtx).expect("a retransmission")
}

#[test]
fn a_timed_out_chunk_goes_to_the_destination_chosen_before_the_timeouts_cut() {
    // Path 1's T3-rtx runs out one RTO (RTO.Min 1 s) after the loss began; its cwnd (84 kB)
    // is then larger than path 0's (52 kB, all in flight). FreeBSD's sctp_t3rxt_timer picks
    // the destination of the chunks it marks (sctp_find_alternate_net: the largest cwnd)
    // before sctp_backoff_on_timeout cuts path 1 to one MTU, so they stay bound to path 1 and
    // the lowest goes at once into the room the cut leaves. Chosen when sent, from the cwnds
    // then, they go to path 0, which is full: the first waits for path 0's next SACK.
    let (marked, expired) = after_blackout(true);
    let (chosen, expired_send) = after_blackout(false);
    let (at_mark, at_send) = (first_rtx(&marked), first_rtx(&chosen));
    eprintln!("first retransmission: bound at marking {at_mark:?}, chosen when sent {at_send:?}; path 1 expired {expired:?}");
    assert_eq!(expired_send, expired, "the same run up to there");
    assert_eq!(at_mark.at, expired, "bound at marking: at path 1's expiry");
    assert!(at_mark.path1, "to path 1, the larger cwnd before the cut");
    assert!(
        !at_send.path1,
        "chosen when sent: to path 0, the larger cwnd after the cut"
    );
    assert!(
        at_send.at > expired,
        "chosen when sent: once path 0 has room"
    );
}

#[test]
fn a_freebsd_timeout_sends_one_packet_of_retransmissions_and_no_new_data() {
    // sctp_chunk_output called from a T3-rtx expiry (SCTP_OUTPUT_FROM_T3) returns after one
    // packet of retransmissions, or after none when no marked chunk's destination has room,
    // before it would send new data ("Only one transmission allowed out of a timeout"). Chosen
    // when sent, path 1's marked chunks wait for path 0: at the expiry nothing goes out, not
    // even new data into the MTU the cut leaves on path 1 (before this rule: two new chunks).
    // Bound at marking, the one packet is the lowest chunk's, on path 1 (cwnd one MTU).
    let (chosen, expired) = after_blackout(false);
    let at_expiry = |v: &[Sent]| v.iter().filter(|s| s.at == expired).count();
    assert_eq!(
        at_expiry(&chosen),
        0,
        "{:?}",
        &chosen[..chosen.len().min(4)]
    );
    let (marked, _) = after_blackout(true);
    assert_eq!(at_expiry(&marked), 1);
}

/// What A sent of each TSN from the blackout on (time, path 0?), and path 0's cwnd decreases.
struct Run {
    sends: BTreeMap<u32, Vec<(Time, bool)>>,
    path0_cuts: usize,
    path1_expired: Time,
}

/// Path 0 takes 20 ms each way and path 1 40 ms, so path 0's cwnd grows the larger; from 0.5 s
/// on A's DATA on path 1 is lost (a blackout) while path 0 loses nothing. Path 1's T3-rtx
/// expiry marks its chunks and binds them to path 0 (the largest cwnd, `rtx_dest_at_mark`),
/// where they go out behind the new data already in flight there: the SACKs for that data
/// newly acknowledge TSNs above them on their new destination (SFR's test, with DAC's extra
/// indications), before the retransmissions themselves could be acknowledged.
fn blackout(no_fr_after_t3: bool) -> Run {
    let base = freebsd_cmt(true);
    let c = SctpConfig {
        // Room for both windows; a larger queue only slows the test down.
        send_buffer: 192 * 1024,
        fast_rtx_again: true,
        cmt: CmtConfig {
            cut_every_sack: true,
            grow_in_recovery: true,
            no_fr_after_t3,
            ..base.cmt.clone()
        },
        ..base
    };
    let (a, b) = connect_pair(c.clone(), c, 1, 1, true);
    let mut net = Net::new(a, b);
    let from = Time::from_millis(500);
    let mut sends: BTreeMap<u32, Vec<(Time, bool)>> = BTreeMap::new();
    let mut fate = |t: &Transmit, now: Time| {
        let from_a = t.src == A1 || t.src == A2;
        if from_a && now >= from {
            for x in data_tsns(std::slice::from_ref(t)) {
                sends.entry(x).or_default().push((now, on_path0(t)));
            }
            if !on_path0(t) && !data_tsns(std::slice::from_ref(t)).is_empty() {
                return None;
            }
        }
        Some(Duration::from_millis(if on_path0(t) { 20 } else { 40 }))
    };
    let (mut last_cwnd, mut path0_cuts, mut path1_expired) = (0, 0, None);
    let mut observe = |now: Time, eps: &[Association; 2]| {
        let cwnd = eps[0].paths()[0].cc().cwnd();
        if now >= from && cwnd < last_cwnd {
            path0_cuts += 1;
        }
        last_cwnd = cwnd;
        if path1_expired.is_none() && eps[0].stats().paths[1].timeouts > 0 {
            path1_expired = Some(now);
        }
    };
    net.run_observed(
        Time::from_millis(1_700),
        &mut fate,
        &mut unordered,
        &mut observe,
    );
    Run {
        sends,
        path0_cuts,
        path1_expired: path1_expired.expect("path 1's T3-rtx expired"),
    }
}

/// The TSNs first sent on path 1 during the blackout and resent by its first expiry, with the
/// copies A sent of each.
fn timed_out(r: &Run) -> Vec<(u32, Vec<(Time, bool)>)> {
    r.sends
        .iter()
        .filter(|(_, v)| !v[0].1 && v.iter().any(|&(t, p0)| p0 && t >= r.path1_expired))
        .map(|(&x, v)| (x, v.clone()))
        .collect()
}

#[test]
fn a_chunk_a_cmt_timeout_resent_is_never_fast_retransmitted_with_freebsds_no_fr_allowed() {
    // FreeBSD: sctp_mark_all_for_resend sets `no_fr_allowed` on every chunk it marks when CMT
    // is on, and sctp_strike_gap_ack_chunks skips such a chunk, so each chunk lost in the
    // blackout goes out twice (its first copy on path 1, the expiry's on path 0) and path 0,
    // which loses nothing, is never cut.
    let with = blackout(true);
    let resent = timed_out(&with);
    assert!(
        !resent.is_empty(),
        "path 1's expiry resent chunks on path 0"
    );
    for (tsn, copies) in &resent {
        assert_eq!(copies.len(), 2, "TSN {tsn}: {copies:?}");
    }
    assert_eq!(with.path0_cuts, 0, "path 0 lost nothing");
    // RFC 9260 §7.2.4 (option off): SACKs for path 0's earlier new data count miss
    // indications against the resent chunks, which are fast retransmitted again on path 0
    // within 20 ms of it (half its round trip) although the expiry's copies arrive, and path
    // 0's cwnd is cut for losses it did not have.
    let without = blackout(false);
    let again: Vec<_> = timed_out(&without)
        .into_iter()
        .filter(|(_, c)| c.len() > 2 && c[2].0 - c[1].0 < Duration::from_millis(20))
        .collect();
    assert!(!again.is_empty(), "{:?}", timed_out(&without));
    assert!(without.path0_cuts > 0);
}
