//! Data transfer: fragmentation and reassembly, ordered vs unordered delivery, reneging, T3-rtx,
//! send-buffer limits.

mod common;
use common::*;
use rexmit_sctp::{Association, Event, RenegePolicy, SctpConfig, SendError, TsnState};
use rexmit_time::{Duration, Time};
use rexmit_wire::{Chunk, DataChunk, GapBlock, Payload, SackChunk, SctpPacket};

fn cfg() -> SctpConfig {
    SctpConfig {
        hb_interval: None,
        ..SctpConfig::default()
    }
}

fn delivered(evs: &[Event]) -> Vec<(u16, u16, bool, Payload)> {
    evs.iter()
        .filter_map(|e| match e {
            Event::MessageDelivered {
                stream,
                ssn,
                unordered,
                payload,
                ..
            } => Some((*stream, *ssn, *unordered, payload.clone())),
            _ => None,
        })
        .collect()
}

/// Move every packet both ways until quiet, advancing time by `step` per round.
fn pump(
    a: &mut Association,
    b: &mut Association,
    mut now: Time,
    rounds: usize,
    step: Duration,
) -> Time {
    for _ in 0..rounds {
        for t in drain(a, now) {
            deliver(b, now, &t);
        }
        for t in drain(b, now) {
            deliver(a, now, &t);
        }
        now += step;
        a.handle_timeout(now);
        b.handle_timeout(now);
    }
    now
}

#[test]
fn large_message_is_fragmented_to_the_mtu_and_reassembled() {
    let (mut a, mut b) = connect_pair(cfg(), cfg(), 1, 1, false);
    let now = Time::from_millis(1);
    let msg: Vec<u8> = (0..5000u32).map(|i| (i * 7) as u8).collect();
    a.send(now, 3, Payload::from_bytes(&msg), false).unwrap();
    let out = drain(&mut a, now);
    let frags: Vec<&DataChunk> = out.iter().flat_map(data_chunks).collect();
    assert_eq!(
        frags.iter().map(|d| d.payload.len()).collect::<Vec<_>>(),
        vec![1452, 1452, 1452, 644]
    );
    assert_eq!(
        frags
            .iter()
            .map(|d| (d.beginning, d.ending))
            .collect::<Vec<_>>(),
        vec![(true, false), (false, false), (false, false), (false, true)]
    );
    assert!(out.iter().all(|t| t.packet.wire_len() + 20 <= 1500));
    assert!(frags.iter().all(|d| d.ssn == 0 && d.stream_id == 3));
    // Deliver in reverse order: reassembly waits for the first fragment.
    for t in out.iter().rev() {
        deliver(&mut b, now, t);
    }
    assert_eq!(
        delivered(&events(&mut b)),
        vec![(3, 0, false, Payload::from_bytes(&msg))]
    );
}

#[test]
fn ordered_data_waits_for_a_loss_unordered_data_does_not() {
    let c = SctpConfig {
        initial_cwnd: Some(3 * 1452),
        ..cfg()
    };
    let (mut a, mut b) = connect_pair(c, cfg(), 1, 1, false);
    let now = Time::from_millis(1);
    a.send(now, 0, Payload::zeros(1452), false).unwrap(); // TSN 1, ssn 0 (lost)
    a.send(now, 0, Payload::zeros(1452), false).unwrap(); // TSN 2, ssn 1
    a.send(now, 1, Payload::zeros(1452), false).unwrap(); // TSN 3, other stream
    a.send(now, 0, Payload::zeros(1452), true).unwrap(); // TSN 4, unordered
    let out = drain(&mut a, now);
    assert_eq!(data_tsns(&out), vec![1, 2, 3]);
    for t in &out[1..] {
        deliver(&mut b, now, t);
    }
    let d = delivered(&events(&mut b));
    assert_eq!(
        d.iter().map(|m| (m.0, m.1)).collect::<Vec<_>>(),
        vec![(1, 0)],
        "other stream is not blocked"
    );
    for t in drain(&mut b, now) {
        deliver(&mut a, now, &t);
    }
    let out = drain(&mut a, now);
    assert_eq!(data_tsns(&out), vec![4]);
    deliver(&mut b, now, &out[0]);
    let d = delivered(&events(&mut b));
    assert_eq!(
        d.iter().map(|m| (m.0, m.2)).collect::<Vec<_>>(),
        vec![(0, true)],
        "unordered delivered at once"
    );
    // T3 brings TSN 1; stream 0 then delivers ssn 0 and 1 in order.
    let t3 = a.poll_timeout().unwrap();
    // T3 was armed with RTO.Initial when TSN 1 left and is not restarted by gap acks (§6.3.2 R3).
    assert_eq!(t3, now + Duration::from_secs(3));
    a.handle_timeout(t3);
    let rtx = drain(&mut a, t3);
    assert_eq!(data_tsns(&rtx), vec![1]);
    assert_eq!(a.stats().timeouts, 1);
    assert_eq!(a.paths()[0].cc().cwnd(), 1452, "T3 sets cwnd to one MTU");
    deliver(&mut b, t3, &rtx[0]);
    let d = delivered(&events(&mut b));
    assert_eq!(
        d.iter().map(|m| (m.0, m.1)).collect::<Vec<_>>(),
        vec![(0, 0), (0, 1)]
    );
}

#[test]
fn send_buffer_refuses_when_full_and_reports_space() {
    let c = SctpConfig {
        send_buffer: 3000,
        ..cfg()
    };
    let (mut a, mut b) = connect_pair(c, cfg(), 1, 1, false);
    let now = Time::from_millis(1);
    a.send(now, 0, Payload::zeros(1500), false).unwrap();
    a.send(now, 0, Payload::zeros(1500), false).unwrap();
    assert_eq!(
        a.send(now, 0, Payload::zeros(1), false),
        Err(SendError::BufferFull)
    );
    assert_eq!(
        a.send(now, 0, Payload::zeros(4000), false),
        Err(SendError::MessageTooLarge)
    );
    let (mut small_peer, _) = connect_pair(
        cfg(),
        SctpConfig {
            recv_buffer: 2000,
            ..cfg()
        },
        1,
        1,
        false,
    );
    assert_eq!(
        small_peer.send(now, 0, Payload::zeros(2001), false),
        Err(SendError::MessageTooLarge),
        "cannot be reassembled at the peer"
    );
    assert!(a.is_send_blocked());
    // The acks come back 10 ms later: that is how long the application was blocked.
    pump(
        &mut a,
        &mut b,
        now + Duration::from_millis(10),
        3,
        Duration::from_millis(100),
    );
    assert!(events(&mut a).contains(&Event::SendBufferSpace));
    assert!(!a.is_send_blocked());
    assert_eq!(a.stats().send_blocked_time, Duration::from_millis(10));
    assert_eq!(a.stats().send_blocked_events, 1);
}

fn data_pkt(tsn: u32, ssn: u16, len: u32) -> SctpPacket {
    SctpPacket {
        src_port: PORT_A,
        dst_port: PORT_B,
        verification_tag: TAG_B,
        chunks: vec![Chunk::Data(DataChunk {
            immediate: false,
            unordered: false,
            beginning: true,
            ending: true,
            tsn,
            stream_id: 0,
            ssn,
            ppid: 0,
            payload: Payload::zeros(len),
        })],
    }
}

fn last_sack(b: &mut Association, now: Time) -> (u32, Vec<(u16, u16)>, u32) {
    let out = drain(b, now);
    match &out.last().expect("an acknowledgement").packet.chunks[0] {
        Chunk::Sack(s) => (
            s.cum_tsn_ack,
            s.gap_blocks.iter().map(|g| (g.start, g.end)).collect(),
            s.a_rwnd,
        ),
        c => panic!("SACK expected, got {c:?}"),
    }
}

#[test]
fn receiver_reneges_renegable_data_when_the_next_in_order_chunk_does_not_fit() {
    let rc = SctpConfig {
        recv_buffer: 4000,
        renege: RenegePolicy::UnderMemoryPressure,
        ..cfg()
    };
    let (_a, mut b) = connect_pair(cfg(), rc, 1, 1, false);
    let now = Time::from_millis(1);
    // TSN 1 is missing; 2..4 are ordered and undeliverable, so renegable.
    for tsn in 2..=4 {
        b.handle_packet(now, A1, B1, &data_pkt(tsn, tsn as u16 - 1, 1000));
    }
    assert_eq!(last_sack(&mut b, now), (0, vec![(2, 4)], 1000));
    // TSN 1 (1500 bytes) does not fit: the highest renegable TSN 4 is dropped for it.
    b.handle_packet(now, A1, B1, &data_pkt(1, 0, 1500));
    assert_eq!(b.stats().reneged_chunks, 1);
    assert_eq!(
        last_sack(&mut b, now).0,
        3,
        "cum ack 3; TSN 4 no longer reported"
    );
    assert_eq!(delivered(&events(&mut b)).len(), 3);
    b.handle_packet(now, A1, B1, &data_pkt(4, 3, 1000));
    assert_eq!(
        delivered(&events(&mut b)).len(),
        1,
        "the retransmitted TSN 4 is delivered once"
    );
}

#[test]
fn memory_pressure_reneges_on_request_and_the_sack_stops_reporting_it() {
    let (_a, mut b) = connect_pair(cfg(), cfg(), 1, 1, false);
    let now = Time::from_millis(1);
    for tsn in 2..=4 {
        b.handle_packet(now, A1, B1, &data_pkt(tsn, tsn as u16 - 1, 1000));
    }
    drain(&mut b, now);
    assert!(b.has_received_tsn(4));
    assert_eq!(b.renege(1500), 2000, "whole chunks, highest first");
    assert!(!b.has_received_tsn(4) && !b.has_received_tsn(3) && b.has_received_tsn(2));
    b.handle_packet(now, A1, B1, &data_pkt(2, 1, 1000)); // duplicate: SACK at once
    assert_eq!(last_sack(&mut b, now).1, vec![(2, 2)]);
}

#[test]
fn never_renege_receiver_keeps_room_for_the_missing_tsn() {
    let rc = SctpConfig {
        recv_buffer: 4000,
        renege: RenegePolicy::Never,
        ..cfg()
    };
    let (_a, mut b) = connect_pair(cfg(), rc, 1, 1, false);
    let now = Time::from_millis(1);
    for tsn in 2..=4 {
        b.handle_packet(now, A1, B1, &data_pkt(tsn, tsn as u16 - 1, 1000));
    }
    // TSN 4 would leave less than one full chunk (1452) for the missing TSN 1: refused.
    assert_eq!(last_sack(&mut b, now), (0, vec![(2, 3)], 2000));
    assert!(
        b.is_tsn_non_renegable(3),
        "never-renege makes out-of-order data non-renegable"
    );
    b.handle_packet(now, A1, B1, &data_pkt(1, 0, 1452));
    assert_eq!(b.stats().reneged_chunks, 0);
    assert_eq!(last_sack(&mut b, now).0, 3);
    assert_eq!(delivered(&events(&mut b)).len(), 3);
}

fn sack(cum_tsn_ack: u32, gaps: &[(u16, u16)]) -> SctpPacket {
    SctpPacket {
        src_port: PORT_B,
        dst_port: PORT_A,
        verification_tag: TAG_A,
        chunks: vec![Chunk::Sack(SackChunk {
            dac_packets: 0,
            cum_tsn_ack,
            a_rwnd: 65536,
            gap_blocks: gaps
                .iter()
                .map(|&(start, end)| GapBlock { start, end })
                .collect(),
            dup_tsns: vec![],
        })],
    }
}

/// A sender with TSNs 1..=n outstanding (cwnd 4 full chunks), its peer silent.
fn sender_with_outstanding(n: usize) -> Association {
    let c = SctpConfig {
        initial_cwnd: Some(4 * 1452),
        ..cfg()
    };
    let (mut a, _b) = connect_pair(c, cfg(), 1, 1, false);
    let now = Time::from_millis(1);
    for _ in 0..n {
        a.send(now, 0, Payload::zeros(1452), false).unwrap();
    }
    assert_eq!(
        data_tsns(&drain(&mut a, now)),
        (1..=n as u32).collect::<Vec<_>>()
    );
    a
}

#[test]
fn sender_retransmits_data_the_receiver_reneged_on_but_not_for_a_stale_sack() {
    let mut a = sender_with_outstanding(4);
    let now = Time::from_millis(1);
    a.handle_packet(now, B1, A1, &sack(0, &[(2, 3)]));
    let states = |a: &Association| a.rtx_queue().iter().map(|e| e.1).collect::<Vec<_>>();
    use TsnState::*;
    assert_eq!(states(&a), vec![InFlight, GapAcked, GapAcked, InFlight]);
    // An older SACK overtaken by the newer one (fewer TSNs reported): not reneging.
    a.handle_packet(now, B1, A1, &sack(0, &[(2, 2)]));
    assert_eq!(states(&a), vec![InFlight, GapAcked, GapAcked, InFlight]);
    assert!(drain(&mut a, now).is_empty());
    // A current SACK (as many TSNs, TSN 4 new) without TSN 3: reneged, sent again.
    a.handle_packet(now, B1, A1, &sack(0, &[(2, 2), (4, 4)]));
    assert_eq!(a.stats().reneged_seen, 1);
    assert_eq!(data_tsns(&drain(&mut a, now)), vec![3]);
}

#[test]
fn hidden_reneging_is_recovered_by_the_t3_guard() {
    let mut a = sender_with_outstanding(3);
    let now = Time::from_millis(1);
    a.handle_packet(now, B1, A1, &sack(0, &[(2, 3)]));
    // TSN 1 times out and is resent; 2 and 3 stay gap-acked (a normal T3, no presumption).
    let t3 = a.poll_timeout().unwrap();
    a.handle_timeout(t3);
    assert_eq!(data_tsns(&drain(&mut a, t3)), vec![1]);
    assert_eq!(a.stats().reneged_seen, 0);
    // The receiver reneged on 2-3 and its SACK for TSN 1 looks stale (fewer TSNs): the cum
    // ack stops at 1 with nothing in flight, so the guard timer resends 2 and 3.
    let t = t3 + Duration::from_millis(10);
    a.handle_packet(t, B1, A1, &sack(1, &[]));
    assert_eq!(a.flight_size(), 0);
    let guard = a.poll_timeout().expect("guard armed");
    a.handle_timeout(guard);
    assert_eq!(a.stats().reneged_seen, 2);
    let mut resent = data_tsns(&drain(&mut a, guard));
    resent.sort();
    assert_eq!(
        resent,
        vec![2],
        "cwnd is one MTU after the timeout: TSN 2 first"
    );
}

#[test]
fn nr_gap_acked_data_is_freed_and_never_retransmitted() {
    let c = SctpConfig {
        nr_sack: true,
        initial_cwnd: Some(4 * 1452),
        ..cfg()
    };
    let (mut a, _b) = connect_pair(c.clone(), c, 1, 1, false);
    let now = Time::from_millis(1);
    for _ in 0..3 {
        a.send(now, 0, Payload::zeros(1452), true).unwrap();
    }
    drain(&mut a, now);
    let nr = |gaps: Vec<GapBlock>, nr: Vec<GapBlock>| SctpPacket {
        src_port: PORT_B,
        dst_port: PORT_A,
        verification_tag: TAG_A,
        chunks: vec![Chunk::NrSack(rexmit_wire::NrSackChunk {
            dac_packets: 0,
            all_non_renegable: false,
            cum_tsn_ack: 0,
            a_rwnd: 65536,
            gap_blocks: gaps,
            nr_gap_blocks: nr,
            dup_tsns: vec![],
        })],
    };
    // TSN 2 gap-acked and renegable, TSN 3 non-renegable.
    a.handle_packet(
        now,
        B1,
        A1,
        &nr(
            vec![GapBlock { start: 2, end: 3 }],
            vec![GapBlock { start: 3, end: 3 }],
        ),
    );
    assert_eq!(
        a.rtx_queue().iter().map(|e| e.1).collect::<Vec<_>>(),
        vec![TsnState::InFlight, TsnState::GapAcked, TsnState::NrAcked]
    );
    assert_eq!(a.rtx_queue_bytes(), 2 * 1452);
    // T3: only TSN 1 goes again; a later NR-SACK without TSN 3 cannot revoke it.
    let t3 = a.poll_timeout().unwrap();
    a.handle_timeout(t3);
    assert_eq!(data_tsns(&drain(&mut a, t3)), vec![1]);
    a.handle_packet(t3, B1, A1, &nr(vec![GapBlock { start: 2, end: 2 }], vec![]));
    assert_eq!(
        a.rtx_queue().iter().map(|e| (e.0, e.1)).collect::<Vec<_>>(),
        vec![
            (1, TsnState::InFlight),
            (2, TsnState::GapAcked),
            (3, TsnState::NrAcked)
        ]
    );
}

#[test]
fn pending_sack_rides_on_reverse_data() {
    let (mut a, mut b) = connect_pair(cfg(), cfg(), 1, 1, false);
    let now = Time::from_millis(1);
    a.send(now, 0, Payload::zeros(100), false).unwrap();
    deliver(&mut b, now, &drain(&mut a, now)[0]);
    assert!(drain(&mut b, now).is_empty(), "first packet: SACK delayed");
    let later = now + Duration::from_millis(50);
    b.send(later, 0, Payload::zeros(200), false).unwrap();
    let out = drain(&mut b, later);
    assert_eq!(out.len(), 1);
    let kinds: Vec<u8> = out[0]
        .packet
        .chunks
        .iter()
        .map(|c| c.chunk_type())
        .collect();
    assert_eq!(
        kinds,
        vec![3, 0],
        "SACK first, then DATA (RFC 9260 §6.5 bundling)"
    );
    assert_eq!(
        b.poll_timeout()
            .map(|t| t > later + Duration::from_millis(150)),
        Some(true),
        "delayed-SACK timer cancelled"
    );
}

#[test]
fn slow_reader_closes_the_window_and_consuming_reopens_it() {
    let rc = SctpConfig {
        recv_buffer: 4000,
        auto_consume: false,
        ..cfg()
    };
    let (mut a, mut b) = connect_pair(cfg(), rc, 1, 1, false);
    let mut now = Time::from_millis(1);
    for _ in 0..10 {
        a.send(now, 0, Payload::zeros(1000), true).unwrap();
    }
    let mut delivered_total = 0;
    let mut zero_window_seen = false;
    for _ in 0..40 {
        for t in drain(&mut a, now) {
            deliver(&mut b, now, &t);
        }
        for t in drain(&mut b, now) {
            if let Some(Chunk::Sack(s)) = t.packet.chunks.first() {
                zero_window_seen |= s.a_rwnd == 0;
            }
            deliver(&mut a, now, &t);
        }
        delivered_total += delivered(&events(&mut b)).len();
        if b.unread_bytes() == 4000 {
            // The application finally reads everything: a window update goes out at once.
            b.consume(4000);
            let update = drain(&mut b, now);
            assert!(
                matches!(
                    update[0].packet.chunks[0],
                    Chunk::Sack(SackChunk { a_rwnd: 4000, .. })
                ),
                "{update:?}"
            );
            deliver(&mut a, now, &update[0]);
        }
        now += Duration::from_millis(100);
        a.handle_timeout(now);
        b.handle_timeout(now);
    }
    assert!(zero_window_seen, "the unread data closed the window");
    assert_eq!(delivered_total, 10);
    assert_eq!(a.rtx_queue_bytes(), 0);
}
