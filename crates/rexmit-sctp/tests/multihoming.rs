//! Multihoming (RFC 9260 §6.4, §8): failover when the primary path dies, path failure
//! detection, heartbeats bringing a path back; CMT spreading new data over both paths.

mod common;
use common::*;
use rexmit_sctp::{
    Association, CmtConfig, CwndGrowth, Event, PathState, SctpConfig, SendError, Transmit,
};
use rexmit_time::{Duration, Time};
use rexmit_wire::{Chunk, Payload};

fn cfg() -> SctpConfig {
    SctpConfig {
        path_max_retrans: 2,
        hb_interval: Some(Duration::from_secs(2)),
        ..SctpConfig::default()
    }
}

fn on_path0(t: &Transmit) -> bool {
    [A1, B1].contains(&t.src) || [A1, B1].contains(&t.dst)
}

/// Keep A's send buffer full with 1000-byte messages until `total` are written.
fn writer(total: u64) -> impl FnMut(Time, &mut [Association; 2]) {
    let mut written = 0;
    move |now, eps| {
        while written < total {
            match eps[0].send(now, 0, Payload::zeros(1000), false) {
                Ok(_) => written += 1,
                Err(SendError::BufferFull) => break,
                Err(e) => panic!("{e:?}"),
            }
        }
    }
}

/// A CMT association over a `d0` ms and a `d1` ms path without loss, A writing `total`
/// messages, run until `until`.
fn cmt_transfer(c: SctpConfig, d0: u64, d1: u64, until: Time, total: u64) -> Net {
    let (a, b) = connect_pair(c.clone(), c, 1, 1, true);
    let mut net = Net::new(a, b);
    let mut fate =
        |t: &Transmit, _now: Time| Some(Duration::from_millis(if on_path0(t) { d0 } else { d1 }));
    net.run(until, &mut fate, &mut writer(total));
    net
}

fn cmt(cmt: CmtConfig) -> SctpConfig {
    SctpConfig {
        cmt: CmtConfig {
            enabled: true,
            ..cmt
        },
        ..cfg()
    }
}

/// A CMT bulk transfer's pair (1 MiB send buffer, 4 MiB receive buffer, cwnd grown as RFC 4960
/// and FreeBSD grow it), connected and ready to run.
fn bulk_cmt(cmt_cfg: CmtConfig) -> Net {
    let c = SctpConfig {
        send_buffer: 1 << 20,
        recv_buffer: 1 << 22,
        cwnd_growth: CwndGrowth::Rfc4960,
        ..cmt(cmt_cfg)
    };
    let (a, b) = connect_pair(c.clone(), c, 1, 1, true);
    Net::new(a, b)
}

/// 20 ms each way; A's n-th DATA packet on path 0 (from 1) is lost when `lost(n)`.
fn path0_losing(lost: impl Fn(u32) -> bool) -> impl FnMut(&Transmit, Time) -> Option<Duration> {
    let mut sent = 0u32;
    move |t, _now| {
        let data = t.packet.chunks.iter().any(|c| matches!(c, Chunk::Data(_)));
        if data && t.src == A1 {
            sent += 1;
            if lost(sent) {
                return None;
            }
        }
        Some(Duration::from_millis(20))
    }
}

#[test]
fn primary_failure_fails_over_to_the_alternate_and_heartbeats_restore_it() {
    let (a, b) = connect_pair(cfg(), cfg(), 1, 1, true);
    assert_eq!(
        a.paths()
            .iter()
            .map(|p| (p.local(), p.remote()))
            .collect::<Vec<_>>(),
        vec![(A1, B1), (A2, B2)]
    );
    assert_eq!(
        b.paths()
            .iter()
            .map(|p| (p.local(), p.remote()))
            .collect::<Vec<_>>(),
        vec![(B1, A1), (B2, A2)]
    );
    let mut net = Net::new(a, b);
    let down_from = Time::from_millis(200);
    let up_again = Time::from_secs(40);
    let mut fate = |t: &Transmit, now: Time| -> Option<Duration> {
        if on_path0(t) && now >= down_from && now < up_again {
            None
        } else {
            Some(Duration::from_millis(10))
        }
    };
    let mut app = writer(2000);
    net.run(Time::from_secs(39), &mut fate, &mut app);
    let a = &net.eps[0];
    assert!(
        net.events[0]
            .iter()
            .any(|(_, e)| *e == Event::PathDown { addr: B1 }),
        "{:?}",
        net.events[0]
    );
    assert_eq!(a.paths()[0].state(), PathState::Inactive);
    assert!(
        a.stats().paths[0].timeouts >= 3,
        "Path.Max.Retrans = 2: the third timeout fails the path"
    );
    assert!(
        a.is_established(),
        "the association survives on the alternate path"
    );
    assert_eq!(
        net.eps[1].stats().messages_delivered,
        2000,
        "every message arrives via path 2"
    );
    assert!(a.stats().paths[1].data_chunks_sent > 1000);
    net.run(Time::from_secs(80), &mut fate, &mut app);
    assert!(net.events[0]
        .iter()
        .any(|(_, e)| *e == Event::PathUp { addr: B1 }));
    assert_eq!(net.eps[0].paths()[0].state(), PathState::Active);
}

#[test]
fn cmt_sends_new_data_on_both_paths() {
    let net = cmt_transfer(cmt(CmtConfig::default()), 10, 30, Time::from_secs(20), 3000);
    let s = net.eps[0].stats();
    assert_eq!(net.eps[1].stats().messages_delivered, 3000);
    // The 3x shorter path carries more; both carry a real share.
    assert!(
        s.paths[0].data_chunks_sent > s.paths[1].data_chunks_sent
            && s.paths[1].data_chunks_sent > 200,
        "{:?}",
        s.paths
    );
    assert_eq!(
        s.retransmissions, 0,
        "reordering between paths is not mistaken for loss (SFR): {s:?}"
    );
}

#[test]
fn without_split_fast_retransmit_path_reordering_causes_spurious_retransmissions() {
    let c = cmt(CmtConfig {
        sfr: false,
        ..CmtConfig::default()
    });
    let net = cmt_transfer(c, 10, 30, Time::from_secs(20), 3000);
    assert_eq!(net.eps[1].stats().messages_delivered, 3000);
    assert!(
        net.eps[0].stats().fast_retransmits > 0,
        "the contrast case for SFR: {:?}",
        net.eps[0].stats()
    );
    assert!(
        net.eps[1].stats().dup_tsns_received > 0,
        "those retransmissions were spurious"
    );
}

#[test]
fn cuc_lets_cwnd_grow_while_the_other_path_holds_back_the_cumulative_ack() {
    // CUC matters under RFC 4960's rule that only a moving cumulative ack grows cwnd; RFC
    // 9260 lets any newly acked data of a full window grow it, with or without CUC.
    let run = |cuc: bool, growth: CwndGrowth| {
        let c = SctpConfig {
            send_buffer: 1 << 20,
            recv_buffer: 1 << 22,
            cwnd_growth: growth,
            ..cmt(CmtConfig {
                cuc,
                ..CmtConfig::default()
            })
        };
        let net = cmt_transfer(c, 5, 50, Time::from_millis(600), 1_000_000);
        net.eps[0].paths()[0].cc().cwnd()
    };
    // The 5 ms path's chunks are gap-acked while the 50 ms path holds back the cumulative
    // ack: only CUC lets those acks grow the fast path's cwnd.
    let (with, without) = (
        run(true, CwndGrowth::Rfc4960),
        run(false, CwndGrowth::Rfc4960),
    );
    eprintln!("CMT 5 ms / 50 ms paths, 0.6 s: fast-path cwnd {with} with CUC, {without} without");
    assert!(with > 2 * without);
    let rfc9260 = run(false, CwndGrowth::Rfc9260);
    assert!(rfc9260 > 2 * without, "RFC 9260 without CUC: {rfc9260}");
}

#[test]
fn rtx_pseudo_cumack_lets_a_retransmission_path_grow_while_its_retransmission_is_outstanding() {
    // FreeBSD's CUCv2 (sctp_indata.c "Separate pseudo_cumack trackers for first transmissions
    // and retransmissions"): path 0 loses every 40th DATA packet; its losses are retransmitted
    // on path 1 (the larger cwnd, `rtx_policy = "cwnd"`), where each retransmission is the
    // lowest TSN outstanding until it is acked. With one pseudo cumulative ack per destination
    // (the CMT paper's CUC) path 1 cannot grow during that round trip, since the cumulative ack
    // waits for the same retransmission; with a second one for retransmissions it can.
    let run = |rtx_pseudo_cumack: bool| {
        let mut net = bulk_cmt(CmtConfig {
            rtx_policy: rexmit_sctp::RtxPolicy::Cwnd,
            rtx_pseudo_cumack,
            ..CmtConfig::default()
        });
        // DATA packets from A on each path; path 0 loses every 20th, path 1 every 300th.
        let mut sent = [0u32; 2];
        let mut fate = |t: &Transmit, _now: Time| {
            let data = t.packet.chunks.iter().any(|c| matches!(c, Chunk::Data(_)));
            if data && [A1, A2].contains(&t.src) {
                let p = usize::from(!on_path0(t));
                sent[p] += 1;
                if sent[p] % [20, 300][p] == 0 {
                    return None;
                }
            }
            Some(Duration::from_millis(20))
        };
        net.run(Time::from_secs(2), &mut fate, &mut writer(1_000_000));
        let a = &net.eps[0];
        (a.paths()[1].cc().cwnd(), net.eps[1].stats().bytes_delivered)
    };
    let (with, without) = (run(true), run(false));
    eprintln!(
        "path 1 cwnd, bytes delivered: rtx pseudo-cumack {with:?}, one pseudo-cumack {without:?}"
    );
    assert!(with.0 > without.0);
    assert!(with.1 > without.1);
}

#[test]
fn cut_every_sack_cuts_a_destinations_cwnd_on_each_sack_that_marks_its_chunks() {
    // FreeBSD's CMT (sctp_cwnd_update_after_fr) skips the recovery-window test: every SACK
    // that newly marks chunks of a destination for fast retransmission halves its cwnd again.
    // Path 0 loses every third of its DATA packets 150-180 (eleven chunks, marked over several
    // SACKs as the packets after each one are acknowledged); the CMT paper's rule (RFC 9260
    // §7.2.4 step 2 per destination) cuts path 0 once for the episode.
    let run = |cut_every_sack: bool| {
        let mut net = bulk_cmt(CmtConfig {
            cut_every_sack,
            ..CmtConfig::default()
        });
        let mut fate = path0_losing(|n| (150..=180).contains(&n) && n % 3 == 0);
        net.run(Time::from_secs(2), &mut fate, &mut writer(1_000_000));
        let a = &net.eps[0];
        (a.stats().fast_recoveries, a.paths()[0].cc().ssthresh())
    };
    let (with, without) = (run(true), run(false));
    eprintln!("fast recoveries, path 0 ssthresh: every SACK {with:?}, once {without:?}");
    assert_eq!(without.0, 1, "one cut for the episode");
    assert!(with.0 >= 3, "a cut per marking SACK: {with:?}");
    assert!(with.1 * 4 <= without.1, "{with:?} {without:?}");
}

#[test]
fn grow_in_recovery_lets_a_destinations_cwnd_grow_during_its_fast_recovery() {
    // FreeBSD's CMT (sctp_cwnd_update_after_sack) skips the cwnd update in fast recovery only
    // with CMT off. One path-0 loss starts a recovery on path 0 that lasts until the
    // retransmission is acknowledged; the SACKs of path 0's new data meanwhile grow its cwnd
    // with the option and leave it at ssthresh without (RFC 4960 §7.2.4 read per destination).
    let run = |grow_in_recovery: bool| {
        let mut net = bulk_cmt(CmtConfig {
            grow_in_recovery,
            ..CmtConfig::default()
        });
        let mut fate = path0_losing(|n| n == 150);
        let mut during = None;
        let mut observe = |_now: Time, eps: &[Association; 2]| {
            let a = &eps[0];
            if a.stats().fast_recoveries == 1 && a.in_fast_recovery() {
                let cc = a.paths()[0].cc();
                during = Some((cc.ssthresh(), cc.cwnd()));
            }
        };
        net.run_observed(
            Time::from_secs(1),
            &mut fate,
            &mut writer(1_000_000),
            &mut observe,
        );
        (
            net.eps[0].stats().fast_recoveries,
            during.expect("a recovery"),
        )
    };
    let (with, without) = (run(true), run(false));
    eprintln!(
        "recoveries, (ssthresh, cwnd) at the recovery's end: grow {with:?}, hold {without:?}"
    );
    assert_eq!((with.0, without.0), (1, 1));
    assert_eq!(without.1 .1, without.1 .0, "held at ssthresh");
    assert!(with.1 .1 > with.1 .0, "grew in recovery: {with:?}");
}

#[test]
fn rtx_pseudo_cumack_lets_first_transmissions_restart_freebsds_t3_over_a_lost_retransmission() {
    // FreeBSD with CMT stops and restarts a destination's T3-rtx on every SACK that moves one of
    // its CUCv2 pseudo cumulative acks (sctp_handle_sack, `new_pseudo_cumack`). Path 0 loses its
    // 50th DATA packet and that chunk's fast retransmission (RTX-SAME keeps it on path 0); NR-SACK
    // and unordered data keep the send buffer from stopping new data behind the hole. With a
    // tracker for first transmissions that moves on every SACK, path 0's timer does not run out
    // while its new data is acknowledged; with one pseudo cumulative ack the lost retransmission
    // is the lowest chunk on path 0, no SACK moves it, and T3-rtx resends it one RTO later.
    let third_copy = |rtx_pseudo_cumack: bool| {
        let c = SctpConfig {
            t3_rtx: rexmit_sctp::T3Rtx::Freebsd,
            nr_sack: true,
            send_buffer: 1 << 18,
            recv_buffer: 1 << 21,
            cwnd_growth: CwndGrowth::Rfc4960,
            ..cmt(CmtConfig {
                rtx_policy: rexmit_sctp::RtxPolicy::Same,
                rtx_pseudo_cumack,
                ..CmtConfig::default()
            })
        };
        let (a, b) = connect_pair(c.clone(), c, 1, 1, true);
        let mut net = Net::new(a, b);
        let (mut sent, mut hole, mut copies) = (0u32, None, Vec::new());
        let mut fate = |t: &Transmit, now: Time| {
            let tsns: Vec<u32> = t
                .packet
                .chunks
                .iter()
                .filter_map(|c| match c {
                    Chunk::Data(d) => Some(d.tsn),
                    _ => None,
                })
                .collect();
            if !tsns.is_empty() && t.src == A1 {
                sent += 1;
                if sent == 50 {
                    hole = tsns.first().copied();
                }
            }
            if hole.is_some_and(|h| tsns.contains(&h)) {
                copies.push(now);
                if copies.len() <= 2 {
                    return None;
                }
            }
            Some(Duration::from_millis(20))
        };
        let mut unordered = |now: Time, eps: &mut [Association; 2]| {
            while eps[0].send(now, 0, Payload::zeros(1000), true).is_ok() {}
        };
        net.run(Time::from_millis(2_500), &mut fate, &mut unordered);
        assert!(
            copies.len() >= 2,
            "the chunk and its fast retransmission: {copies:?}"
        );
        copies.get(2).map(|t| t.saturating_since(copies[1]))
    };
    let (with, without) = (third_copy(true), third_copy(false));
    eprintln!("third copy after the fast retransmission: two trackers {with:?}, one {without:?}");
    let without = without.expect("one tracker: T3-rtx resends it");
    assert!(
        without <= Duration::from_millis(1_500),
        "one RTO (RTO.Min 1 s): {without:?}"
    );
    assert!(
        with.is_none_or(|w| w >= without + Duration::from_secs(1)),
        "{with:?}"
    );
}
