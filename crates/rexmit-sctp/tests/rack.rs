//! RACK for SCTP (seed 002), packet by packet with exact times: time-based loss marking, the
//! RACK reordering timer, tail loss probes (2·SRTT + 2 ms, 2·SRTT + 200 ms with one chunk
//! out), the reordering window's growth on duplicate-TSN reports, the adaptive burst limit
//! (4, then 2, then the reductions) against Max.Burst and no mitigation, and heartbeat RTT
//! probing. The receiver SACKs every packet; the one-way delay is 10 ms (RTT 20 ms).

mod common;
use common::*;
use rexmit_sctp::{Association, BurstMitigation, RackConfig, SctpConfig, Transmit};
use rexmit_time::{Duration, Time};
use rexmit_wire::{Chunk, Payload};

/// A full-size DATA chunk: one per packet.
const T: u32 = 1452;
const OWD: Duration = Duration::from_millis(10);

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

fn cfg_a(rack: RackConfig) -> SctpConfig {
    SctpConfig {
        hb_interval: None,
        initial_cwnd: Some(40 * T as u64),
        max_burst: 0,
        send_buffer: 1 << 20,
        rack,
        ..SctpConfig::default()
    }
}

fn cfg_b() -> SctpConfig {
    SctpConfig {
        hb_interval: None,
        sack_freq: 1,
        recv_buffer: 1 << 20,
        ..SctpConfig::default()
    }
}

fn rack_only() -> RackConfig {
    RackConfig {
        tlp: false,
        ..RackConfig::seed002()
    }
}

/// Connected pair after one message with a 20 ms round trip: SRTT = min_RTT = 20 ms.
fn warm_pair(rack: RackConfig) -> (Association, Association, Time) {
    warm_with(cfg_a(rack))
}

fn warm_with(cfg: SctpConfig) -> (Association, Association, Time) {
    let (mut a, mut b) = connect_pair(cfg, cfg_b(), 1, 1, false);
    let t0 = Time::from_millis(1000);
    a.send(t0, 0, Payload::zeros(100), true).unwrap();
    let out = drain(&mut a, t0);
    deliver(&mut b, t0 + OWD, &out[0]);
    for s in drain(&mut b, t0 + OWD) {
        deliver(&mut a, t0 + OWD * 2, &s);
    }
    assert_eq!(a.paths()[0].rtt().srtt(), Some(ms(20)));
    (a, b, t0 + OWD * 2)
}

/// Queue `n` full-size messages at `now` and return the packets that leave at once.
fn send(a: &mut Association, now: Time, n: usize) -> Vec<Transmit> {
    for _ in 0..n {
        a.send(now, 0, Payload::zeros(T), true).unwrap();
    }
    drain(a, now)
}

/// Deliver `pkts` to B at `at`; return B's SACKs (sent at `at`).
fn to_b(b: &mut Association, at: Time, pkts: &[Transmit]) -> Vec<Transmit> {
    for p in pkts {
        deliver(b, at, p);
    }
    drain(b, at)
}

/// Deliver SACKs to A at `at`; return what A sends at once.
fn to_a(a: &mut Association, at: Time, sacks: &[Transmit]) -> Vec<Transmit> {
    for s in sacks {
        deliver(a, at, s);
    }
    drain(a, at)
}

fn without(pkts: &[Transmit], lost: &[u32]) -> Vec<Transmit> {
    pkts.iter()
        .filter(|p| {
            !data_tsns(std::slice::from_ref(p))
                .iter()
                .any(|t| lost.contains(t))
        })
        .cloned()
        .collect()
}

#[test]
fn rack_marks_a_chunk_lost_once_a_later_sent_chunk_is_acked_and_the_window_passed() {
    for rack in [true, false] {
        let r = if rack {
            rack_only()
        } else {
            RackConfig::default()
        };
        let (mut a, mut b, t1) = warm_pair(r);
        assert_eq!(data_tsns(&send(&mut a, t1, 1)), vec![2], "lost");
        let later = send(&mut a, t1 + ms(10), 1);
        assert_eq!(data_tsns(&later), vec![3]);
        let sacks = to_b(&mut b, t1 + ms(20), &later);
        // TSN 3 (sent 10 ms after TSN 2) is acked at t1 + 30 ms with RACK.rtt = 20 ms: TSN 2
        // is overdue since t1 + RACK.rtt + min_RTT/4 = t1 + 25 ms.
        let out = to_a(&mut a, t1 + ms(30), &sacks);
        if rack {
            assert_eq!(data_tsns(&out), vec![2], "RACK retransmits at once");
            assert_eq!(a.stats().rtx_by_cause.rack, 1);
            assert_eq!(a.stats().fast_recoveries, 1);
            // Seed 002's recovery time: first transmission (t1) to retransmission (t1 + 30).
            assert_eq!(a.stats().recovery_time_count, 1);
            assert_eq!(a.stats().recovery_time_total, ms(30));
        } else {
            assert_eq!(
                data_tsns(&out),
                Vec::<u32>::new(),
                "one miss indication is not three"
            );
        }
    }
}

#[test]
fn rack_timer_fires_a_quarter_rtt_after_the_ack_for_a_single_gap() {
    let (mut a, mut b, t1) = warm_pair(rack_only());
    let out = send(&mut a, t1, 2);
    assert_eq!(data_tsns(&out), vec![2, 3]);
    let sacks = to_b(&mut b, t1 + OWD, &without(&out, &[2]));
    assert!(
        to_a(&mut a, t1 + ms(20), &sacks).is_empty(),
        "inside the reordering window"
    );
    // Both sent at t1; TSN 3 acked with RACK.rtt = 20 ms: TSN 2 is lost at t1 + 20 + 5 ms.
    assert_eq!(a.poll_timeout(), Some(t1 + ms(25)));
    a.handle_timeout(t1 + ms(25));
    assert_eq!(data_tsns(&drain(&mut a, t1 + ms(25))), vec![2]);
    assert_eq!(a.stats().rack_timer_expiries, 1);
    assert_eq!(a.stats().recovery_time_max, ms(25));
}

#[test]
fn tlp_fires_at_two_srtt_plus_2ms_and_retransmits_the_most_recent_chunk() {
    let (mut a, _b, t1) = warm_pair(RackConfig::seed002());
    assert_eq!(data_tsns(&send(&mut a, t1, 2)), vec![2, 3]);
    assert_eq!(a.poll_timeout(), Some(t1 + ms(42)), "2·SRTT + 2 ms");
    a.handle_timeout(t1 + ms(42));
    assert_eq!(data_tsns(&drain(&mut a, t1 + ms(42))), vec![3], "the probe");
    assert_eq!(a.stats().tlp_probes, 1);
    assert_eq!(a.stats().rtx_by_cause.tlp, 1);
    // After the probe only T3-rtx runs, restarted at the probe (RTO 1 s = RTO.Min).
    assert_eq!(a.poll_timeout(), Some(t1 + ms(42) + Duration::from_secs(1)));
}

#[test]
fn tlp_waits_for_a_delayed_sack_with_one_chunk_out() {
    let (mut a, _b, t1) = warm_pair(RackConfig::seed002());
    assert_eq!(data_tsns(&send(&mut a, t1, 1)), vec![2]);
    assert_eq!(
        a.poll_timeout(),
        Some(t1 + ms(240)),
        "2·SRTT + WCDelAckT (200 ms)"
    );
}

#[test]
fn tlp_sends_new_data_when_the_window_allows() {
    let cfg = SctpConfig {
        initial_cwnd: Some(2 * T as u64),
        ..cfg_a(RackConfig::seed002())
    };
    let (mut a, _b, t1) = warm_with(cfg);
    // cwnd 2 chunks: the third message waits.
    assert_eq!(data_tsns(&send(&mut a, t1, 3)), vec![2, 3]);
    a.handle_timeout(t1 + ms(42));
    assert_eq!(
        data_tsns(&drain(&mut a, t1 + ms(42))),
        vec![4],
        "new data, cwnd ignored"
    );
    assert_eq!(a.stats().retransmissions, 0);
}

/// Seed 002 §V.A's tail loss: 20 chunks sent at once, all lost; the probe (TSN 21 again) gets
/// through, its SACK makes RACK mark TSNs 2–20 lost. Returns A, B, the time that SACK arrives,
/// and the packets A sends then.
fn tail_loss(mitigation: BurstMitigation) -> (Association, Association, Time, Vec<Transmit>) {
    let rack = RackConfig {
        burst_mitigation: mitigation,
        ..RackConfig::seed002()
    };
    let cfg = SctpConfig {
        max_burst: 4,
        ..cfg_a(rack)
    };
    let (mut a, mut b, t1) = warm_with(cfg);
    // One chunk per millisecond (seed 002 §V.A), each write its own transmit opportunity.
    for i in 0..20 {
        assert_eq!(send(&mut a, t1 + ms(i), 1).len(), 1);
    }
    let pto = t1 + ms(19 + 42);
    assert_eq!(a.poll_timeout(), Some(pto));
    a.handle_timeout(pto);
    let probe = drain(&mut a, pto);
    assert_eq!(data_tsns(&probe), vec![21]);
    let sacks = to_b(&mut b, pto + OWD, &probe);
    let at = pto + ms(20);
    let burst = to_a(&mut a, at, &sacks);
    assert_eq!(a.stats().tail_recoveries, 1);
    (a, b, at, burst)
}

/// One round trip of the recovery: every packet in `pkts` reaches B (minus `lost` TSNs), each
/// SACK reaches A 20 ms after `at`; returns how many packets A sent per SACK.
fn round(
    a: &mut Association,
    b: &mut Association,
    at: Time,
    pkts: &[Transmit],
    lost: &[u32],
) -> (Vec<usize>, Vec<Transmit>) {
    let mut sacks = Vec::new();
    for p in without(pkts, lost) {
        sacks.extend(to_b(b, at + OWD, &[p]));
    }
    let mut per_sack = Vec::new();
    let mut sent = Vec::new();
    for s in sacks {
        let out: Vec<Transmit> = to_a(a, at + ms(20), &[s])
            .into_iter()
            .filter(|t| t.packet.chunks.iter().any(|c| matches!(c, Chunk::Data(_))))
            .collect();
        per_sack.push(out.len());
        sent.extend(out);
    }
    (per_sack, sent)
}

#[test]
fn adaptive_burst_sends_4_then_2_per_sack_and_max_burst_4_per_sack() {
    let (mut a, mut b, at, burst) = tail_loss(BurstMitigation::Adaptive);
    assert_eq!(
        data_tsns(&burst),
        vec![2, 3, 4, 5],
        "4 MTU in the first round trip"
    );
    let (per_sack, sent) = round(&mut a, &mut b, at, &burst, &[]);
    assert_eq!(per_sack, vec![2, 2, 2, 2], "then 2 MTU per opportunity");
    assert_eq!(data_tsns(&sent), (6..=13).collect::<Vec<_>>());

    let (mut a, mut b, at, burst) = tail_loss(BurstMitigation::MaxBurst);
    assert_eq!(data_tsns(&burst), vec![2, 3, 4, 5]);
    let (per_sack, _) = round(&mut a, &mut b, at, &burst, &[]);
    // Max.Burst 4 on every SACK (seed 002 Fig. 9) until the 19 lost chunks are all resent.
    assert_eq!(per_sack, vec![4, 4, 4, 3]);

    let (_, _, _, burst) = tail_loss(BurstMitigation::None);
    assert_eq!(
        data_tsns(&burst),
        (2..=20).collect::<Vec<_>>(),
        "no mitigation: everything cwnd allows at once (Fig. 8)"
    );
}

#[test]
fn lost_retransmissions_lower_the_initial_limit_then_the_increase() {
    let (mut a, mut b, at, burst) = tail_loss(BurstMitigation::Adaptive);
    assert_eq!(a.rack_burst_limits(), Some((4.0, 2.0)));
    // TSN 2's first-round retransmission is lost: the initial burst was too large.
    let (_, second) = round(&mut a, &mut b, at, &burst, &[2]);
    assert!(
        data_tsns(&second).contains(&2),
        "RACK finds the lost retransmission"
    );
    assert_eq!(a.rack_burst_limits(), Some((3.0, 2.0)));
    // A second-round retransmission lost: the increase drops by a quarter MTU.
    let lost: Vec<u32> = data_tsns(&second)
        .into_iter()
        .filter(|t| *t != 2)
        .take(1)
        .collect();
    round(&mut a, &mut b, at + ms(20), &second, &lost);
    assert_eq!(a.rack_burst_limits(), Some((3.0, 1.75)));
}

#[test]
fn sixteen_clean_tail_recoveries_restore_4_and_2() {
    // The limiter's own arithmetic is covered in `burst`; here, one clean recovery end to end
    // leaves the limits where they were and counts as one.
    let (mut a, mut b, at, burst) = tail_loss(BurstMitigation::Adaptive);
    let (mut t, mut pkts) = (at, burst);
    for _ in 0..8 {
        if pkts.is_empty() {
            break;
        }
        let (_, next) = round(&mut a, &mut b, t, &pkts, &[]);
        t += ms(20);
        pkts = next;
    }
    assert!(!a.in_fast_recovery(), "recovery over");
    assert_eq!(a.rack_burst_limits(), Some((4.0, 2.0)));
}

#[test]
fn duplicate_tsn_reports_widen_the_reordering_window() {
    let (mut a, mut b, t1) = warm_pair(rack_only());
    assert_eq!(a.rack_reo_wnd_mult(), Some(1));
    let first = send(&mut a, t1, 1); // TSN 2, reordered: arrives 25 ms late
    let later = send(&mut a, t1 + ms(10), 1); // TSN 3
    let sacks = to_b(&mut b, t1 + ms(20), &later);
    let rtx = to_a(&mut a, t1 + ms(30), &sacks);
    assert_eq!(data_tsns(&rtx), vec![2], "spurious RACK retransmission");
    let sacks = to_b(&mut b, t1 + ms(35), &first);
    to_a(&mut a, t1 + ms(45), &sacks);
    // The retransmission arrives as a duplicate; B reports it at once (RFC 9260 §6.7).
    let dup_sacks = to_b(&mut b, t1 + ms(40), &rtx);
    assert_eq!(dup_sacks.len(), 1);
    to_a(&mut a, t1 + ms(50), &dup_sacks);
    assert_eq!(a.stats().dup_tsns_reported, 1);
    assert_eq!(a.rack_reo_wnd_mult(), Some(2), "window grows by min_RTT/4");
}

#[test]
fn heartbeat_probe_refreshes_the_rtt_that_sets_the_pto() {
    let (mut a, mut b, t1) = warm_pair(RackConfig::seed002());
    assert!(a.probe_rtt(t1, 0));
    assert!(!a.probe_rtt(t1, 0), "one probe outstanding at a time");
    let hb = drain(&mut a, t1);
    assert!(matches!(hb[0].packet.chunks[0], Chunk::Heartbeat { .. }));
    // The path's delay grew: the heartbeat takes 50 ms each way.
    let ack = to_b(&mut b, t1 + ms(50), &hb);
    to_a(&mut a, t1 + ms(100), &ack);
    assert_eq!(
        a.paths()[0].rtt().srtt(),
        Some(ms(30)),
        "7/8·20 + 1/8·100 ms"
    );
    let t2 = t1 + ms(200);
    send(&mut a, t2, 2);
    assert_eq!(a.poll_timeout(), Some(t2 + ms(62)), "2·30 + 2 ms");
}

/// The first HEARTBEAT A sends on its own before `until`, with the time it left.
fn first_heartbeat(a: &mut Association, from: Time, until: Time) -> Option<(Time, Vec<Transmit>)> {
    let mut now = from;
    while let Some(t) = a.poll_timeout().filter(|t| *t <= until) {
        now = now.max(t);
        a.handle_timeout(now);
        let out = drain(a, now);
        if out
            .iter()
            .any(|p| matches!(p.packet.chunks[0], Chunk::Heartbeat { .. }))
        {
            return Some((now, out));
        }
    }
    None
}

/// Seed 002 §V.B: a signalling association idle between requests keeps its RTT fresh with
/// heartbeats when `rack.rtt_probe` is set, so the probe timeout of the next request follows
/// the path's delay as it is now; without it (and with HB.interval off) the RTT stays as the
/// last request left it.
#[test]
fn rtt_probe_heartbeats_an_idle_path_so_the_next_request_uses_its_current_rtt() {
    let probing = RackConfig {
        rtt_probe: Some(Duration::from_secs(1)),
        ..RackConfig::seed002()
    };
    let (mut a, mut b, t1) = warm_pair(probing);
    // Idle since the request went at 1000 ms: probed once idle 1 s plus one RTO (RFC 9260 §8.3
    // adds the RTO to the interval), the RTO being RTO.Initial's 3 s as the timer was armed at
    // establishment; the path's delay has grown to 50 ms each way meanwhile.
    let (at, hb) = first_heartbeat(&mut a, t1, t1 + Duration::from_secs(30)).expect("a probe");
    assert!(at <= Time::from_millis(5_000), "probed at {at:?}");
    let ack = to_b(&mut b, at + ms(50), &hb);
    to_a(&mut a, at + ms(100), &ack);
    assert_eq!(
        a.paths()[0].rtt().srtt(),
        Some(ms(30)),
        "7/8·20 + 1/8·100 ms"
    );
    let t2 = at + Duration::from_secs(2) / 10;
    send(&mut a, t2, 2);
    assert_eq!(a.poll_timeout(), Some(t2 + ms(62)), "PTO 2·30 + 2 ms");

    let (mut a, _b, t1) = warm_pair(RackConfig::seed002());
    assert!(first_heartbeat(&mut a, t1, t1 + Duration::from_secs(30)).is_none());
    send(&mut a, t1 + Duration::from_secs(5), 2);
    assert_eq!(
        a.poll_timeout(),
        Some(t1 + Duration::from_secs(5) + ms(42)),
        "PTO 2·20 + 2 ms: the RTT of 5 s ago"
    );
}
