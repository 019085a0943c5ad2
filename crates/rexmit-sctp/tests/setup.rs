//! Association setup, NR-SACK negotiation, shutdown and abort, packet by packet.

mod common;
use common::*;
use rexmit_sctp::{AbortReason, Association, Event, SctpConfig};
use rexmit_time::{Duration, Time};
use rexmit_wire::{Chunk, InitParam, Payload, SctpPacket};

fn cfg(nr_sack: bool) -> SctpConfig {
    SctpConfig {
        nr_sack,
        hb_interval: None,
        ..SctpConfig::default()
    }
}

fn only_chunk(t: &rexmit_sctp::Transmit) -> &Chunk {
    assert_eq!(t.packet.chunks.len(), 1);
    &t.packet.chunks[0]
}

#[test]
fn four_way_handshake_with_tags_cookie_and_nr_sack_offer() {
    let t0 = Time::ZERO;
    let mut a = Association::connect(
        cfg(true),
        vec![A1],
        PORT_A,
        vec![B1],
        PORT_B,
        TAG_A,
        100,
        t0,
    );
    let mut b = Association::listen(cfg(true), vec![B1], PORT_B, TAG_B, 500);

    let init = drain(&mut a, t0);
    assert_eq!(init.len(), 1);
    assert_eq!(
        (init[0].src, init[0].dst, init[0].packet.verification_tag),
        (A1, B1, 0)
    );
    let Chunk::Init(i) = only_chunk(&init[0]) else {
        panic!("INIT expected")
    };
    assert_eq!((i.initiate_tag, i.initial_tsn), (TAG_A, 100));
    assert!(i.params.contains(&InitParam::SupportedExtensions(vec![16])));
    assert_eq!(
        a.poll_timeout(),
        Some(t0 + Duration::from_secs(3)),
        "T1-init at RTO.Initial"
    );

    deliver(&mut b, t0, &init[0]);
    let init_ack = drain(&mut b, t0);
    assert_eq!(init_ack[0].packet.verification_tag, TAG_A);
    let Chunk::InitAck(ia) = only_chunk(&init_ack[0]) else {
        panic!("INIT ACK expected")
    };
    assert_eq!(ia.initiate_tag, TAG_B);
    assert!(ia
        .params
        .iter()
        .any(|p| matches!(p, InitParam::StateCookie(_))));
    assert!(
        !b.is_established(),
        "the listener keeps no state before COOKIE ECHO"
    );

    let t1 = Time::from_millis(10);
    deliver(&mut a, t1, &init_ack[0]);
    let echo = drain(&mut a, t1);
    assert_eq!(echo[0].packet.verification_tag, TAG_B);
    assert!(matches!(only_chunk(&echo[0]), Chunk::CookieEcho { .. }));

    deliver(&mut b, t1, &echo[0]);
    assert_eq!(events(&mut b), vec![Event::Connected { nr_sack: true }]);
    let ack = drain(&mut b, t1);
    assert!(matches!(only_chunk(&ack[0]), Chunk::CookieAck));
    deliver(&mut a, t1, &ack[0]);
    assert_eq!(events(&mut a), vec![Event::Connected { nr_sack: true }]);
    assert_eq!(
        a.poll_timeout(),
        None,
        "no timers when idle without heartbeats"
    );
}

#[test]
fn lost_init_is_retransmitted_with_backoff_then_gives_up() {
    let c = SctpConfig {
        max_init_retransmits: 2,
        ..cfg(false)
    };
    let mut a = Association::connect(c, vec![A1], PORT_A, vec![B1], PORT_B, TAG_A, 1, Time::ZERO);
    drain(&mut a, Time::ZERO);
    let t = a.poll_timeout().unwrap();
    assert_eq!(t, Time::from_secs(3));
    a.handle_timeout(t);
    assert!(matches!(
        drain(&mut a, t)[0].packet.chunks[0],
        Chunk::Init(_)
    ));
    assert_eq!(
        a.poll_timeout(),
        Some(t + Duration::from_secs(6)),
        "RTO doubled"
    );
    let t = a.poll_timeout().unwrap();
    a.handle_timeout(t);
    drain(&mut a, t);
    let t = a.poll_timeout().unwrap();
    a.handle_timeout(t);
    assert_eq!(
        events(&mut a),
        vec![Event::Aborted {
            reason: AbortReason::InitFailed
        }]
    );
}

#[test]
fn connect_without_remote_addresses_fails_at_once() {
    let mut a = Association::connect(
        cfg(false),
        vec![A1],
        PORT_A,
        vec![],
        PORT_B,
        TAG_A,
        1,
        Time::ZERO,
    );
    assert_eq!(
        events(&mut a),
        vec![Event::Aborted {
            reason: AbortReason::InitFailed
        }]
    );
    assert!(drain(&mut a, Time::ZERO).is_empty());
    assert_eq!(a.poll_timeout(), None);
    a.handle_timeout(Time::from_secs(100));
}

/// Which acknowledgement chunk B sends for A's data.
fn ack_kind(nr_a: bool, nr_b: bool) -> (bool, u8) {
    let (mut a, mut b) = connect_pair(cfg(nr_a), cfg(nr_b), 1, 1, false);
    assert_eq!(a.nr_sack_negotiated(), b.nr_sack_negotiated());
    let now = Time::from_millis(1);
    a.send(now, 0, Payload::zeros(100), false).unwrap();
    a.send(now, 0, Payload::zeros(100), false).unwrap();
    let out = drain(&mut a, now);
    for t in &out {
        deliver(&mut b, now, t);
    }
    assert!(
        drain(&mut b, now).is_empty(),
        "one packet: the SACK is delayed"
    );
    let later = now + Duration::from_millis(200);
    assert_eq!(b.poll_timeout(), Some(later));
    b.handle_timeout(later);
    let acks = drain(&mut b, later);
    (
        a.nr_sack_negotiated(),
        acks[0].packet.chunks[0].chunk_type(),
    )
}

#[test]
fn nr_sack_is_used_only_when_both_ends_offer_it() {
    assert_eq!(ack_kind(true, true), (true, 16));
    assert_eq!(ack_kind(true, false), (false, 3));
    assert_eq!(ack_kind(false, true), (false, 3));
    assert_eq!(ack_kind(false, false), (false, 3));
}

#[test]
fn graceful_shutdown_after_data_is_acked() {
    let (mut a, mut b) = connect_pair(cfg(false), cfg(false), 1, 1, false);
    let mut now = Time::from_millis(1);
    a.send(now, 0, Payload::zeros(500), false).unwrap();
    a.shutdown(now);
    let mut closed = (false, false);
    for _ in 0..10 {
        now += Duration::from_millis(250);
        a.handle_timeout(now);
        b.handle_timeout(now);
        for t in drain(&mut a, now) {
            deliver(&mut b, now, &t);
        }
        for t in drain(&mut b, now) {
            deliver(&mut a, now, &t);
        }
        closed.0 |= events(&mut a).contains(&Event::Closed);
        closed.1 |= events(&mut b).contains(&Event::Closed);
    }
    assert_eq!(b.stats().messages_delivered, 1);
    assert_eq!(closed, (true, true));
    assert_eq!(a.poll_timeout(), None);
}

#[test]
fn lost_shutdown_complete_is_answered_after_close() {
    let (mut a, mut b) = connect_pair(cfg(false), cfg(false), 1, 1, false);
    let now = Time::from_millis(1);
    a.shutdown(now);
    let shutdown = drain(&mut a, now);
    assert!(matches!(
        shutdown[0].packet.chunks[0],
        Chunk::Shutdown { .. }
    ));
    deliver(&mut b, now, &shutdown[0]);
    let shutdown_ack = drain(&mut b, now);
    assert!(matches!(
        shutdown_ack[0].packet.chunks[0],
        Chunk::ShutdownAck
    ));
    deliver(&mut a, now, &shutdown_ack[0]);
    assert!(events(&mut a).contains(&Event::Closed));
    drain(&mut a, now); // SHUTDOWN COMPLETE lost
    let t2 = b.poll_timeout().unwrap();
    b.handle_timeout(t2);
    let again = drain(&mut b, t2);
    deliver(&mut a, t2, &again[0]);
    let complete = drain(&mut a, t2);
    assert_eq!(
        complete[0].packet.chunks,
        vec![Chunk::ShutdownComplete { t_bit: true }]
    );
    deliver(&mut b, t2, &complete[0]);
    assert_eq!(events(&mut b), vec![Event::Closed]);
}

#[test]
fn abort_reaches_the_peer() {
    let (mut a, mut b) = connect_pair(cfg(false), cfg(false), 1, 1, false);
    let now = Time::from_millis(1);
    a.abort(now);
    let out = drain(&mut a, now);
    assert!(matches!(out[0].packet.chunks[0], Chunk::Abort { .. }));
    deliver(&mut b, now, &out[0]);
    assert_eq!(
        events(&mut b),
        vec![Event::Aborted {
            reason: AbortReason::ByPeer
        }]
    );
    assert_eq!(
        events(&mut a),
        vec![Event::Aborted {
            reason: AbortReason::Local
        }]
    );
}

#[test]
fn wrong_verification_tag_is_ignored() {
    let (mut a, _b) = connect_pair(cfg(false), cfg(false), 1, 1, false);
    let bogus = SctpPacket {
        src_port: PORT_B,
        dst_port: PORT_A,
        verification_tag: 12345,
        chunks: vec![Chunk::Abort {
            t_bit: false,
            causes: vec![],
        }],
    };
    a.handle_packet(Time::from_millis(1), B1, A1, &bogus);
    assert!(a.is_established());
}

#[test]
fn unknown_chunk_types_follow_their_high_bits() {
    let (_a, mut b) = connect_pair(cfg(false), cfg(false), 1, 1, false);
    let now = Time::from_millis(1);
    let data = |tsn| {
        Chunk::Data(rexmit_wire::DataChunk {
            immediate: true,
            unordered: true,
            beginning: true,
            ending: true,
            tsn,
            stream_id: 0,
            ssn: 0,
            ppid: 0,
            payload: Payload::zeros(10),
        })
    };
    let unknown = |t| Chunk::Unknown {
        chunk_type: t,
        flags: 0,
        value: vec![],
    };
    let pkt = |chunks| SctpPacket {
        src_port: PORT_A,
        dst_port: PORT_B,
        verification_tag: TAG_B,
        chunks,
    };
    b.handle_packet(now, A1, B1, &pkt(vec![unknown(0x3f), data(1)]));
    assert_eq!(
        b.stats().messages_delivered,
        0,
        "type 00xxxxxx: discard the packet"
    );
    b.handle_packet(now, A1, B1, &pkt(vec![unknown(0xbf), data(1)]));
    assert_eq!(
        b.stats().messages_delivered,
        1,
        "type 10xxxxxx: skip the chunk"
    );
    assert_eq!(drain(&mut b, now).len(), 1, "I bit: SACK at once");
}

#[test]
fn garbage_chunks_never_panic() {
    let (mut a, mut b) = connect_pair(cfg(true), cfg(true), 1, 1, false);
    let mut rng = Rng::new(7);
    let now = Time::from_millis(1);
    a.send(now, 0, Payload::zeros(3000), false).unwrap();
    drain(&mut a, now);
    for k in 0..2000u32 {
        let v = rng.next();
        let gap = |x: u64| rexmit_wire::GapBlock {
            start: x as u16,
            end: (x >> 16) as u16,
        };
        let chunk = match k % 7 {
            0 => Chunk::Sack(rexmit_wire::SackChunk {
                dac_packets: 0,
                cum_tsn_ack: v as u32,
                a_rwnd: (v >> 32) as u32,
                gap_blocks: vec![gap(v), gap(v >> 7)],
                dup_tsns: vec![v as u32],
            }),
            1 => Chunk::NrSack(rexmit_wire::NrSackChunk {
                dac_packets: 0,
                all_non_renegable: v & 1 == 1,
                cum_tsn_ack: (v % 5) as u32,
                a_rwnd: 0,
                gap_blocks: vec![gap(v % 9)],
                nr_gap_blocks: vec![gap(v >> 3)],
                dup_tsns: vec![],
            }),
            2 => Chunk::Data(rexmit_wire::DataChunk {
                immediate: false,
                unordered: v & 2 == 0,
                beginning: v & 4 == 0,
                ending: v & 8 == 0,
                tsn: (v >> 8) as u32 % 50,
                stream_id: (v >> 40) as u16 % 20,
                ssn: (v >> 20) as u16 % 4,
                ppid: 0,
                payload: Payload::zeros((v % 700) as u32),
            }),
            3 => Chunk::HeartbeatAck {
                info: (0..(v % 12)).map(|i| i as u8).collect(),
            },
            4 => Chunk::CookieEcho {
                cookie: (0..(v % 60)).map(|i| (i ^ v) as u8).collect(),
            },
            5 => Chunk::Shutdown {
                cum_tsn_ack: v as u32,
            },
            _ => Chunk::Unknown {
                chunk_type: 200,
                flags: 0,
                value: vec![1, 2, 3],
            },
        };
        let pkt = SctpPacket {
            src_port: PORT_A,
            dst_port: PORT_B,
            verification_tag: TAG_B,
            chunks: vec![chunk.clone()],
        };
        b.handle_packet(now, A1, B1, &pkt);
        drain(&mut b, now);
        events(&mut b);
        let pkt = SctpPacket {
            src_port: PORT_B,
            dst_port: PORT_A,
            verification_tag: TAG_A,
            chunks: vec![chunk],
        };
        a.handle_packet(now, B1, A1, &pkt);
        drain(&mut a, now);
        events(&mut a);
    }
}

#[test]
fn lost_init_ack_and_lost_cookie_ack_are_recovered_by_t1() {
    let t0 = Time::ZERO;
    let mut a = Association::connect(cfg(false), vec![A1], PORT_A, vec![B1], PORT_B, TAG_A, 1, t0);
    let mut b = Association::listen(cfg(false), vec![B1], PORT_B, TAG_B, 1);
    let init = drain(&mut a, t0);
    deliver(&mut b, t0, &init[0]);
    drain(&mut b, t0); // INIT ACK lost
    let t1 = a.poll_timeout().unwrap();
    a.handle_timeout(t1);
    let init = drain(&mut a, t1);
    assert!(matches!(init[0].packet.chunks[0], Chunk::Init(_)));
    deliver(&mut b, t1, &init[0]);
    deliver(&mut a, t1, &drain(&mut b, t1)[0]);
    let echo = drain(&mut a, t1);
    deliver(&mut b, t1, &echo[0]);
    assert!(b.is_established());
    drain(&mut b, t1); // COOKIE ACK lost
    let t2 = a.poll_timeout().unwrap();
    a.handle_timeout(t2);
    let echo = drain(&mut a, t2);
    assert!(
        matches!(echo[0].packet.chunks[0], Chunk::CookieEcho { .. }),
        "T1-cookie resends COOKIE ECHO"
    );
    deliver(&mut b, t2, &echo[0]);
    let ack = drain(&mut b, t2);
    assert!(
        matches!(only_chunk(&ack[0]), Chunk::CookieAck),
        "the established listener answers the repeat"
    );
    deliver(&mut a, t2, &ack[0]);
    assert!(a.is_established());
    assert_eq!(
        events(&mut b),
        vec![Event::Connected { nr_sack: false }],
        "connected once"
    );
}

#[test]
fn forged_or_stale_cookie_is_rejected() {
    let t0 = Time::ZERO;
    let mut a = Association::connect(cfg(false), vec![A1], PORT_A, vec![B1], PORT_B, TAG_A, 1, t0);
    let mut b = Association::listen(cfg(false), vec![B1], PORT_B, TAG_B, 1);
    deliver(&mut b, t0, &drain(&mut a, t0)[0]);
    deliver(&mut a, t0, &drain(&mut b, t0)[0]);
    let mut echo = drain(&mut a, t0).remove(0);
    let good = echo.clone();
    if let Chunk::CookieEcho { cookie } = &mut echo.packet.chunks[0] {
        cookie[0] ^= 0xff;
    }
    deliver(&mut b, t0, &echo);
    assert!(!b.is_established(), "tampered cookie");
    deliver(&mut b, t0 + Duration::from_secs(61), &good);
    assert!(!b.is_established(), "older than Valid.Cookie.Life");
    deliver(&mut b, t0 + Duration::from_secs(1), &good);
    assert!(b.is_established());
}
