//! Where CMT retransmissions go when the destination is fixed as the chunk is marked
//! (`cmt.rtx_dest_at_mark`, FreeBSD's `whoTo`) rather than chosen as it is sent.

mod common;
use common::*;
use rexmit_sctp::{Association, CmtConfig, CwndGrowth, RtxPolicy, SctpConfig, T3Rtx, Transmit};
use rexmit_time::{Duration, Time};
use rexmit_wire::Payload;

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
