//! Connection management and sender timers, segment by segment: handshake negotiation
//! (RFC 9293, RFC 7323, RFC 2018), RTO (RFC 6298) with Karn's rule and backoff, thin-stream
//! options, limited transmit (RFC 3042), early retransmit (RFC 5827), zero-window probing,
//! send-buffer blocking, FIN teardown, and robustness against arbitrary segments.

mod common;
use common::*;
use proptest::prelude::*;
use rexmit_tcp::{Connection, Event, RecoveryAlgorithm, State, TcpConfig};
use rexmit_time::{Duration, Time};
use rexmit_wire::{Payload, SackBlock, TcpFlags, TcpOptions, TcpSegment, Timestamps};

#[test]
fn connections_can_move_between_threads() {
    fn assert_send<T: Send>() {}
    assert_send::<Connection>();
}

#[test]
fn handshake_negotiates_mss_sack_timestamps_and_window_scale() {
    let c = TcpConfig {
        timestamps: true,
        recv_buffer: 1 << 20,
        ..TcpConfig::default()
    };
    let mut n = Net::new(c.clone(), c);
    n.a.send(Time::ZERO, 10_000);
    n.run_until(ms(400));
    let syn = &n.log[0].seg;
    assert_eq!(
        (syn.flags, syn.seq, syn.window),
        (TcpFlags::SYN, 1_000, 65_535)
    );
    assert_eq!(
        syn.options,
        TcpOptions {
            mss: Some(1460),
            // 2^20 >> 5 = 32768 is the first shift that fits 16 bits (RFC 7323 §2.3).
            window_scale: Some(5),
            sack_permitted: true,
            timestamps: Some(Timestamps { tsval: 0, tsecr: 0 }),
            sack_blocks: Default::default(),
        }
    );
    let synack = &n.log[1].seg;
    assert_eq!(synack.flags, TcpFlags::SYN | TcpFlags::ACK);
    assert_eq!((synack.seq, synack.ack), (5_000, 1_001));
    assert_eq!(synack.options.window_scale, Some(5));
    assert!(synack.options.sack_permitted);
    assert_eq!(
        synack.options.timestamps,
        Some(Timestamps {
            tsval: 50,
            tsecr: 0
        })
    );
    // RFC 6691: 1460 − 12 bytes of timestamps option per segment.
    assert_eq!(n.a.smss(), 1448);
    assert_eq!(
        n.b.smss(),
        1448,
        "the passive side uses the MSS of the SYN too"
    );
    let first_data = n
        .log
        .iter()
        .find(|s| !s.seg.payload.is_empty())
        .expect("data");
    assert_eq!(first_data.seg.payload.len(), 1448);
    assert_eq!(first_data.seg.window, ((1u32 << 20) >> 5) as u16);
    assert_eq!(
        first_data.seg.options.timestamps,
        Some(Timestamps {
            tsval: 100,
            tsecr: 50
        })
    );
    assert_eq!(n.a_events, vec![Event::Connected]);
}

#[test]
fn options_not_offered_by_the_peer_stay_off() {
    let a = TcpConfig {
        timestamps: true,
        ..TcpConfig::default()
    };
    let b = TcpConfig {
        sack: false,
        window_scaling: false,
        recv_buffer: 65_535,
        ..TcpConfig::default()
    };
    let mut n = Net::new(a, b);
    n.a.send(Time::ZERO, 5_000);
    n.run_until(ms(400));
    let synack = &n.log[1].seg;
    assert_eq!(synack.options.window_scale, None);
    assert!(!synack.options.sack_permitted);
    assert_eq!(synack.options.timestamps, None);
    assert_eq!(n.a.smss(), 1460);
    assert!(n
        .log
        .iter()
        .all(|s| s.seg.options.timestamps.is_none() || s.seg.flags.contains(TcpFlags::SYN)));
}

#[test]
fn lost_syn_is_retransmitted_after_initial_rto_and_iw_is_one_segment() {
    let mut n = Net::new(
        cfg(RecoveryAlgorithm::NewReno),
        cfg(RecoveryAlgorithm::NewReno),
    );
    n.drop = drop_first_syn();
    n.a.send(Time::ZERO, 5_000);
    n.run_until(ms(1_300));
    let syns: Vec<Time> = n
        .log
        .iter()
        .filter(|s| s.dir == Dir::AtoB && is_syn(&s.seg))
        .map(|s| s.t)
        .collect();
    assert_eq!(syns, vec![ms(0), ms(1_000)]);
    // RFC 5681 §3.1: after a lost SYN the initial window is one segment.
    let data: Vec<Time> = n.data_from_a().iter().map(|d| d.0).collect();
    assert_eq!(data.len(), 1 + 2, "one segment, then two after its ACK");
    assert_eq!(n.a.stats().timeouts, 1);
}

#[test]
fn rto_retransmits_earliest_segment_with_exponential_backoff() {
    let mut s = Injector::established(cfg(RecoveryAlgorithm::NewReno), false, 2 * MSS as usize);
    assert_eq!(s.sent(), vec![1, 2]);
    // SYN RTT 100 ms → RTO = max(1 s, 100 + 4·50 ms) = 1 s (RFC 6298 §2.4 minimum).
    assert_eq!(s.c.poll_timeout(), Some(ms(1_100)));
    assert_eq!(s.timeout(1_099), vec![]);
    assert_eq!(s.timeout(1_100), vec![1]);
    // RFC 5681 §3.1: ssthresh = max(FlightSize/2, 2 SMSS), cwnd = 1 SMSS.
    assert_eq!((s.c.cwnd(), s.c.ssthresh()), (MSS, 2 * MSS));
    assert_eq!(s.c.poll_timeout(), Some(ms(3_100)));
    assert_eq!(s.timeout(3_100), vec![1]);
    assert_eq!(s.c.poll_timeout(), Some(ms(7_100)));
    // ACK of the retransmission: Karn's rule — no RTT sample, the backed-off RTO (4 s) stays.
    assert_eq!(s.ack(7_150, 2, &[]), vec![2]);
    assert_eq!(s.c.stats().srtt, Some(Duration::from_millis(100)));
    assert_eq!(s.c.poll_timeout(), Some(ms(11_150)));
    // A fresh sample from the go-back-N resend of 2 (sent once since the timeout) collapses it.
    assert_eq!(s.ack(7_250, 3, &[]), vec![]);
    assert_eq!(s.c.poll_timeout(), None);
    let st = s.c.stats();
    assert_eq!((st.timeouts, st.retransmits_timeout), (2, 3));
}

#[test]
fn connection_gives_up_after_max_retransmissions() {
    let c = TcpConfig {
        max_retransmissions: 3,
        ..cfg(RecoveryAlgorithm::NewReno)
    };
    let mut s = Injector::established(c, false, MSS as usize);
    assert_eq!(s.sent(), vec![1]);
    // RTOs at 1.1, 3.1, 7.1 s; the fourth (15.1 s) exceeds R2 = 3.
    for t in [1_100, 3_100, 7_100] {
        assert_eq!(s.timeout(t), vec![1]);
    }
    assert_eq!(s.timeout(15_100), vec![]);
    assert_eq!(s.c.state(), State::Closed);
    assert_eq!(s.c.poll_event(), Some(Event::TimedOut));
}

#[test]
fn rto_is_three_seconds_after_a_lost_syn_until_measured() {
    // RFC 6298 §5.7, with a 200 ms minimum RTO configured.
    let rto = rexmit_transport::RtoConfig {
        min: Duration::from_millis(200),
        ..rexmit_transport::RtoConfig::tcp()
    };
    let c = TcpConfig {
        rto,
        ..cfg(RecoveryAlgorithm::NewReno)
    };
    let mut n = Net::new(c.clone(), c);
    n.drop = drop_first_syn();
    n.a.send(Time::ZERO, 1_000);
    // SYN at 0, again at 1 s; established at ~1.1 s, data sent then with RTO 3 s.
    n.run_until(ms(1_120));
    let sent_at = n.data_from_a()[0].0;
    assert_eq!(n.a.poll_timeout(), Some(sent_at + Duration::from_secs(3)));
}

#[test]
fn timestamps_give_rtt_samples_for_retransmitted_data() {
    // RFC 7323 §4: the echoed TSval times the retransmission, where Karn's rule would not.
    let c = TcpConfig {
        timestamps: true,
        ..cfg(RecoveryAlgorithm::NewReno)
    };
    let mut n = Net::new(c.clone(), c);
    n.drop = drop_first(&[1], n.iss_a);
    n.a.send(Time::ZERO, 500);
    n.run_until(ms(2_000));
    // SYN sample 100 ms; the retransmission at 1.1 s is acknowledged 100 ms later and sampled.
    assert_eq!(n.a.stats().retransmits_timeout, 1);
    let srtt = n.a.stats().srtt.expect("srtt");
    assert!(
        srtt >= Duration::from_millis(100) && srtt < Duration::from_millis(101),
        "{srtt}"
    );
    // Karn's rule alone would keep the backed-off RTO (2 s) until a fresh segment is timed.
    assert_eq!(
        n.a.stats().rto,
        Duration::from_secs(1),
        "backoff collapsed by the new sample"
    );
}

#[test]
fn closed_endpoint_answers_a_late_fin_with_reset() {
    let c = TcpConfig {
        time_wait: Duration::from_secs(1),
        ..cfg(RecoveryAlgorithm::Sack)
    };
    let mut n = Net::new(c.clone(), c);
    n.b_closes = false;
    n.a.send_bytes(Time::ZERO, b"x");
    n.a.close(Time::ZERO);
    n.run_until(ms(500));
    n.b.close(n.now);
    // A's ACKs of B's FIN are lost; each FIN retransmission restarts A's TIME-WAIT (RFC 9293
    // §3.10.7.4), until B's backed-off retransmission comes after it ended.
    n.drop = Box::new(|d, s| d == Dir::AtoB && s.flags == TcpFlags::ACK && s.payload.is_empty());
    n.run_until(ms(3_000));
    assert_eq!(n.a.state(), State::Closed);
    n.drop = Box::new(|_, _| false);
    n.run_until(ms(10_000));
    assert_eq!(n.b.state(), State::Closed);
    assert!(n.b_events.contains(&Event::Reset));
}

#[test]
fn dsack_is_recognised_against_the_cumulative_ack_of_the_same_segment() {
    // RFC 3708 §2: a first SACK block below the ACK field reports a duplicate.
    let mut s = Injector::established(cfg(RecoveryAlgorithm::Sack), true, 4 * MSS as usize);
    s.sent();
    s.ack(200, 3, &[(1, 1)]);
    assert_eq!(s.c.stats().dsacks_received, 1);
    assert_eq!(s.c.stats().bytes_acked, 2 * MSS);
}

#[test]
fn thin_stream_linear_timeouts_do_not_back_off() {
    let c = TcpConfig {
        thin_linear_timeouts: true,
        ..cfg(RecoveryAlgorithm::Sack)
    };
    let mut s = Injector::established(c, true, MSS as usize);
    assert_eq!(s.sent(), vec![1]);
    assert_eq!(s.timeout(1_100), vec![1]);
    assert_eq!(s.c.poll_timeout(), Some(ms(2_100)));
    assert_eq!(s.timeout(2_100), vec![1]);
    assert_eq!(s.c.poll_timeout(), Some(ms(3_100)));
}

#[test]
fn thin_stream_fast_retransmit_on_first_duplicate_ack() {
    let c = TcpConfig {
        thin_dupack: true,
        ..cfg(RecoveryAlgorithm::NewReno)
    };
    let mut s = Injector::established(c, false, 3 * MSS as usize);
    assert_eq!(s.sent(), vec![1, 2, 3]);
    assert_eq!(s.ack(200, 1, &[]), vec![1]);
    assert_eq!(s.c.stats().fast_retransmits, 1);
}

#[test]
fn early_retransmit_with_two_segments_outstanding() {
    // RFC 5827 §3.1: oseg = 2, no new data → ER_thresh = 1.
    let c = TcpConfig {
        early_retransmit: true,
        ..cfg(RecoveryAlgorithm::Sack)
    };
    let mut s = Injector::established(c, true, 2 * MSS as usize);
    assert_eq!(s.sent(), vec![1, 2]);
    assert_eq!(s.ack(200, 1, &[(2, 2)]), vec![1]);
    // Without the option nothing happens.
    let mut s = Injector::established(cfg(RecoveryAlgorithm::Sack), true, 2 * MSS as usize);
    s.sent();
    assert_eq!(s.ack(200, 1, &[(2, 2)]), vec![]);
}

#[test]
fn limited_transmit_sends_one_new_segment_per_first_two_dupacks() {
    let c = TcpConfig {
        limited_transmit: true,
        ..cfg(RecoveryAlgorithm::NewReno)
    };
    let mut s = Injector::established(c, false, 20 * MSS as usize);
    assert_eq!(s.sent(), vec![1, 2, 3, 4]);
    assert_eq!(s.ack(200, 1, &[]), vec![5]);
    assert_eq!(s.ack(201, 1, &[]), vec![6]);
    // Third: fast retransmit (cwnd 2 + 3 = 5 with 6 in flight: no new data).
    assert_eq!(s.ack(202, 1, &[]), vec![1]);
}

/// RFC 5681 §3.2 step 2: "When [RFC3042] is in use, additional data sent in limited transmit
/// MUST NOT be included in this calculation" (of ssthresh from FlightSize).
fn ssthresh_with_limited_transmit(alg: RecoveryAlgorithm, sack: bool) -> u64 {
    let c = TcpConfig {
        limited_transmit: true,
        initial_cwnd_segments: 10,
        ..cfg(alg)
    };
    let mut s = Injector::established(c, sack, 30 * MSS as usize);
    assert_eq!(s.sent(), (1..=10).collect::<Vec<_>>());
    // Packet 1 lost; the first two duplicate ACKs each release one new segment (RFC 3042 §2).
    let blocks = |last| if sack { vec![(2, last)] } else { vec![] };
    assert_eq!(s.ack(200, 1, &blocks(2)), vec![11]);
    assert_eq!(s.ack(201, 1, &blocks(3)), vec![12]);
    // Third: fast retransmit; FlightSize without the two limited-transmit segments is 10.
    assert_eq!(s.ack(202, 1, &blocks(4))[0], 1);
    assert_eq!(s.c.stats().fast_retransmits, 1);
    s.c.ssthresh()
}

#[test]
fn limited_transmit_data_is_left_out_of_ssthresh() {
    for (alg, sack) in [
        (RecoveryAlgorithm::Reno, false),
        (RecoveryAlgorithm::NewReno, false),
        (RecoveryAlgorithm::Sack, true),
        (RecoveryAlgorithm::Tahoe, false),
    ] {
        assert_eq!(
            ssthresh_with_limited_transmit(alg, sack),
            5 * MSS,
            "{alg:?}"
        );
    }
}

#[test]
fn zero_window_is_probed_with_one_byte_after_rto() {
    let mut s = Injector::established(cfg(RecoveryAlgorithm::NewReno), false, 10 * MSS as usize);
    assert_eq!(s.sent(), vec![1, 2, 3, 4]);
    s.peer_window = 0;
    assert_eq!(s.ack(200, 5, &[]), vec![]);
    assert_eq!(s.c.poll_timeout(), Some(ms(1_200)));
    s.now = ms(1_200);
    s.c.handle_timeout(s.now);
    let probe = s.c.poll_transmit(s.now).expect("window probe");
    assert_eq!(probe.payload.len(), 1);
    assert_eq!(s.pkt_of(&probe), 5);
    // The window opens: transmission resumes after the probe byte.
    s.peer_window = 65_535;
    let after = s.ack(1_300, 5, &[]);
    assert!(!after.is_empty());
}

#[test]
fn full_send_buffer_blocks_the_application_and_records_the_time() {
    let c = TcpConfig {
        send_buffer: 3_000,
        ..cfg(RecoveryAlgorithm::NewReno)
    };
    let mut s = Injector::established(c, false, 0);
    assert_eq!(s.c.send(ms(100), 5_000), 3_000);
    assert_eq!(s.sent(), vec![1, 2, 3]);
    assert_eq!(s.c.app_blocked(ms(200)), Duration::from_millis(100));
    assert_eq!(s.ack(250, 3, &[]), vec![]);
    assert_eq!(s.c.poll_event(), Some(Event::SendBufferSpace));
    assert_eq!(s.c.stats().app_blocked, Duration::from_millis(150));
    assert_eq!(s.c.send_buffer_free(), 2_000);
}

#[test]
fn nagle_holds_a_small_segment_while_data_is_unacknowledged() {
    let c = TcpConfig {
        nagle: true,
        ..cfg(RecoveryAlgorithm::NewReno)
    };
    let mut s = Injector::established(c, false, 1_500);
    let segs: Vec<usize> = std::iter::from_fn(|| s.c.poll_transmit(s.now))
        .map(|x| x.payload.len())
        .collect();
    assert_eq!(segs, vec![1000]);
    s.now = ms(200);
    let seg = TcpSegment {
        src_port: PEER_PORT,
        dst_port: 10,
        seq: s.irs.wrapping_add(1),
        ack: s.iss.wrapping_add(1001),
        flags: TcpFlags::ACK,
        window: 65_535,
        urgent: 0,
        options: TcpOptions::default(),
        payload: Payload::empty(),
    };
    s.c.handle_segment(s.now, &seg);
    assert_eq!(s.c.poll_transmit(s.now).map(|x| x.payload.len()), Some(500));
}

#[test]
fn fin_teardown_walks_both_sides_through_rfc9293_states() {
    let mut n = Net::new(cfg(RecoveryAlgorithm::Sack), cfg(RecoveryAlgorithm::Sack));
    n.b_closes = false;
    n.a.send_bytes(Time::ZERO, b"hello");
    n.run_until(ms(300));
    n.a.close(n.now);
    assert_eq!(n.a.state(), State::FinWait1);
    n.run_until(ms(500));
    assert_eq!(
        (n.a.state(), n.b.state()),
        (State::FinWait2, State::CloseWait)
    );
    n.b.close(n.now);
    assert_eq!(n.b.state(), State::LastAck);
    n.run_until(ms(700));
    assert_eq!((n.a.state(), n.b.state()), (State::TimeWait, State::Closed));
    assert_eq!(n.received, b"hello");
    assert!(n.b_events.contains(&Event::PeerClosed));
    // TIME-WAIT lasts 2·MSL = 240 s from B's FIN (RFC 9293 §3.3.2).
    let tw = n.a.poll_timeout().expect("TIME-WAIT timer");
    assert!(
        tw > Time::from_secs(240) && tw < ms(700) + Duration::from_secs(240),
        "{tw}"
    );
    n.run_until(Time::from_secs(1_000));
    assert_eq!(n.a.state(), State::Closed);
}

#[test]
fn slow_reader_closes_the_window_and_the_transfer_resumes_when_it_reads() {
    let b = TcpConfig {
        recv_buffer: 2_500,
        ..cfg(RecoveryAlgorithm::Sack)
    };
    let mut n = Net::new(cfg(RecoveryAlgorithm::Sack), b);
    n.b_reads = false;
    let data: Vec<u8> = (0..20_000u32).map(|i| (i * 7 % 256) as u8).collect();
    n.a.send_bytes(Time::ZERO, &data);
    n.a.close(Time::ZERO);
    n.run_until(ms(3_000));
    // The window (2500 B) filled: 1000 + 1000 + a 500-byte segment (half the largest window,
    // RFC 9293 §3.8.6.2.1), then zero-window probes of one byte are refused.
    assert_eq!(n.b.readable(), 2_500);
    let lens: Vec<usize> = n
        .log
        .iter()
        .filter(|s| s.dir == Dir::AtoB)
        .map(|s| s.seg.payload.len())
        .filter(|&l| l > 0)
        .collect();
    assert_eq!(&lens[..3], &[1000, 1000, 500]);
    assert!(lens[3..].iter().all(|&l| l == 1), "{lens:?}");
    n.b_reads = true;
    n.run_until(Time::from_secs(600));
    assert!(n.received == data);
    assert!(n.finished());
}

#[test]
fn both_directions_carry_data_at_once_under_loss() {
    let mut n = Net::new(
        cfg(RecoveryAlgorithm::Sack),
        cfg(RecoveryAlgorithm::NewReno),
    );
    let up: Vec<u8> = (0..30_000u32).map(|i| (i % 241) as u8).collect();
    let down: Vec<u8> = (0..20_000u32).map(|i| (i % 239) as u8).collect();
    // Every 13th segment overall, if it carries data.
    let mut k = 0u32;
    n.drop = Box::new(move |_, s| {
        k = if k == 12 { 0 } else { k + 1 };
        !s.payload.is_empty() && k == 0
    });
    n.a.send_bytes(Time::ZERO, &up);
    n.a.close(Time::ZERO);
    n.run_until(ms(150));
    assert_eq!(n.b.send_bytes(n.now, &down), down.len());
    n.run_until(Time::from_secs(600));
    assert!(n.received == up && n.a_received == down);
    assert!(n.finished());
    assert!(n.a.stats().retransmits() > 0 && n.b.stats().retransmits() > 0);
}

#[test]
fn out_of_window_segment_is_answered_with_an_ack_and_ignored() {
    let mut r = RxInjector::new(cfg(RecoveryAlgorithm::Sack), true, false);
    r.data(200, 1);
    r.acks();
    // Far beyond the window (64 kB): RFC 9293 §3.10.7.4 — send ACK, drop.
    assert_eq!(r.data(201, 500), vec![ackv(2, &[])]);
    assert_eq!(r.c.stats().ooo_bytes, 0);
}

#[test]
fn listener_answers_a_stray_ack_with_reset() {
    let mut l = Connection::listen(cfg(RecoveryAlgorithm::Sack), 80, 9);
    let ack = TcpSegment {
        src_port: 5555,
        dst_port: 80,
        seq: 100,
        ack: 4242,
        flags: TcpFlags::ACK,
        window: 1000,
        urgent: 0,
        options: TcpOptions::default(),
        payload: Payload::empty(),
    };
    l.handle_segment(ms(1), &ack);
    let rst = l.poll_transmit(ms(1)).expect("RST");
    // RFC 9293 §3.10.7.2: <SEQ=SEG.ACK><CTL=RST>.
    assert_eq!(
        (rst.flags, rst.seq, rst.dst_port),
        (TcpFlags::RST, 4242, 5555)
    );
    assert_eq!(l.state(), State::Listen);
    assert!(l.poll_transmit(ms(1)).is_none());
}

#[test]
fn rst_in_window_resets_the_connection() {
    let mut r = RxInjector::new(cfg(RecoveryAlgorithm::Sack), true, false);
    let rst = TcpSegment {
        src_port: 10,
        dst_port: 80,
        seq: r.peer_iss.wrapping_add(1),
        ack: 0,
        flags: TcpFlags::RST,
        window: 0,
        urgent: 0,
        options: TcpOptions::default(),
        payload: Payload::empty(),
    };
    r.c.handle_segment(ms(300), &rst);
    assert_eq!(r.c.state(), State::Closed);
    assert_eq!(r.c.poll_event(), Some(Event::Reset));
}

fn arb_segment() -> impl Strategy<Value = TcpSegment> {
    (
        any::<u32>(),
        any::<u32>(),
        any::<u8>(),
        any::<u16>(),
        proptest::collection::vec((any::<u32>(), any::<u32>()), 0..5),
        0usize..3000,
        prop::option::of(any::<u8>()),
        any::<bool>(),
    )
        .prop_map(
            |(seq, ack, flags, window, sacks, len, ws, ports_ok)| TcpSegment {
                src_port: if ports_ok { 10 } else { 11 },
                dst_port: 80,
                seq,
                ack,
                flags: TcpFlags(flags),
                window,
                urgent: 0,
                options: TcpOptions {
                    mss: Some(window | 1),
                    window_scale: ws,
                    sack_permitted: flags & 1 == 0,
                    timestamps: Some(Timestamps {
                        tsval: seq,
                        tsecr: ack,
                    }),
                    sack_blocks: sacks
                        .into_iter()
                        .map(|(left, right)| SackBlock { left, right })
                        .collect(),
                },
                payload: Payload::zeros(len as u32),
            },
        )
}

proptest! {
    /// No segment, however malformed or out of window, makes the core panic, in any state.
    #[test]
    fn arbitrary_segments_never_panic(segs in proptest::collection::vec(arb_segment(), 1..40), near in any::<bool>()) {
        let mut r = RxInjector::new(TcpConfig { timestamps: true, ..cfg(RecoveryAlgorithm::Sack) }, true, true);
        r.c.send(ms(100), 50_000);
        let mut a = Connection::connect(cfg(RecoveryAlgorithm::Reno), 10, 80, 5, Time::ZERO);
        let mut l = Connection::listen(cfg(RecoveryAlgorithm::Tahoe), 80, 9);
        let mut t = ms(100);
        for mut s in segs {
            if near {
                // Keep sequence numbers close to the live ones so that they hit the windows.
                s.seq = r.peer_iss.wrapping_add(s.seq % 100_000);
                s.ack = r.iss.wrapping_add(s.ack % 100_000);
            }
            t += Duration::from_millis(7);
            for c in [&mut r.c, &mut a, &mut l] {
                c.handle_segment(t, &s);
                while c.poll_transmit(t).is_some() {}
                if let Some(d) = c.poll_timeout() {
                    if d <= t + Duration::from_secs(1) {
                        c.handle_timeout(d.max(t));
                    }
                }
                while c.poll_event().is_some() {}
                let _ = c.recv(usize::MAX);
            }
        }
    }
}
