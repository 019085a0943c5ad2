//! Property tests: every valid packet survives encode → decode unchanged, and decoding any
//! byte string (random, or a valid packet with bytes flipped or cut off) never panics.

use proptest::collection::vec;
use proptest::prelude::*;
use rexmit_wire::checksum::{crc32c, internet_checksum};
use rexmit_wire::sctp::param_type;
use rexmit_wire::*;
use std::net::Ipv4Addr;

fn payload() -> impl Strategy<Value = Payload> {
    prop_oneof![
        (0u32..400).prop_map(Payload::zeros),
        vec(any::<u8>(), 0..400).prop_map(|v| Payload::from_bytes(&v)),
    ]
}

fn header() -> impl Strategy<Value = Ipv4Header> {
    (
        any::<u32>(),
        any::<u32>(),
        any::<u8>(),
        any::<u16>(),
        any::<bool>(),
        any::<u8>(),
    )
        .prop_map(
            |(src, dst, tos, identification, dont_fragment, ttl)| Ipv4Header {
                src: Ipv4Addr::from(src),
                dst: Ipv4Addr::from(dst),
                tos,
                identification,
                dont_fragment,
                ttl,
            },
        )
}

fn udp() -> impl Strategy<Value = Transport> {
    (any::<u16>(), any::<u16>(), payload()).prop_map(|(src_port, dst_port, payload)| {
        Transport::Udp(UdpDatagram {
            src_port,
            dst_port,
            payload,
        })
    })
}

fn tcp_options() -> impl Strategy<Value = TcpOptions> {
    let ts = (any::<u32>(), any::<u32>()).prop_map(|(tsval, tsecr)| Timestamps { tsval, tsecr });
    let block = (any::<u32>(), any::<u32>()).prop_map(|(left, right)| SackBlock { left, right });
    (
        proptest::option::of(any::<u16>()),
        proptest::option::of(any::<u8>()),
        any::<bool>(),
        proptest::option::of(ts),
        vec(block, 0..=4),
    )
        .prop_map(
            |(mss, window_scale, sack_permitted, timestamps, mut sack_blocks)| {
                let mut o = TcpOptions {
                    mss,
                    window_scale,
                    sack_permitted,
                    timestamps,
                    sack_blocks: Default::default(),
                };
                sack_blocks.truncate(o.max_sack_blocks());
                o.sack_blocks = sack_blocks.into_iter().collect();
                o
            },
        )
}

fn tcp() -> impl Strategy<Value = Transport> {
    (
        (any::<u16>(), any::<u16>(), any::<u32>(), any::<u32>()),
        (any::<u8>(), any::<u16>(), any::<u16>()),
        tcp_options(),
        payload(),
    )
        .prop_map(
            |((src_port, dst_port, seq, ack), (flags, window, urgent), options, payload)| {
                Transport::Tcp(TcpSegment {
                    src_port,
                    dst_port,
                    seq,
                    ack,
                    flags: TcpFlags(flags),
                    window,
                    urgent,
                    options,
                    payload,
                })
            },
        )
}

fn gaps() -> impl Strategy<Value = Vec<GapBlock>> {
    vec(
        (any::<u16>(), any::<u16>()).prop_map(|(start, end)| GapBlock { start, end }),
        0..6,
    )
}

fn bytes(max: usize) -> impl Strategy<Value = Vec<u8>> {
    vec(any::<u8>(), 0..max)
}

fn init_param() -> impl Strategy<Value = InitParam> {
    prop_oneof![
        any::<u32>().prop_map(|a| InitParam::Ipv4Address(a.into())),
        bytes(40).prop_map(InitParam::StateCookie),
        any::<u32>().prop_map(InitParam::CookiePreservative),
        vec(any::<u16>(), 0..4).prop_map(InitParam::SupportedAddressTypes),
        bytes(6).prop_map(InitParam::SupportedExtensions),
        // Types outside those the codec interprets (all known ones are below 0x8009).
        ((param_type::SUPPORTED_EXTENSIONS + 1)..=u16::MAX, bytes(12))
            .prop_map(|(param_type, value)| InitParam::Unknown { param_type, value }),
    ]
}

fn init() -> impl Strategy<Value = InitChunk> {
    (
        any::<u32>(),
        any::<u32>(),
        any::<u16>(),
        any::<u16>(),
        any::<u32>(),
        vec(init_param(), 0..5),
    )
        .prop_map(
            |(initiate_tag, a_rwnd, outbound_streams, inbound_streams, initial_tsn, params)| {
                InitChunk {
                    initiate_tag,
                    a_rwnd,
                    outbound_streams,
                    inbound_streams,
                    initial_tsn,
                    params,
                }
            },
        )
}

fn chunk() -> impl Strategy<Value = Chunk> {
    let data = (
        any::<[bool; 4]>(),
        any::<u32>(),
        any::<u16>(),
        any::<u16>(),
        any::<u32>(),
        payload(),
    )
        .prop_map(
            |([immediate, unordered, beginning, ending], tsn, stream_id, ssn, ppid, payload)| {
                Chunk::Data(DataChunk {
                    immediate,
                    unordered,
                    beginning,
                    ending,
                    tsn,
                    stream_id,
                    ssn,
                    ppid,
                    payload,
                })
            },
        );
    let sack = (any::<u32>(), any::<u32>(), gaps(), vec(any::<u32>(), 0..5)).prop_map(
        |(cum_tsn_ack, a_rwnd, gap_blocks, dup_tsns)| {
            Chunk::Sack(SackChunk {
                dac_packets: 0,
                cum_tsn_ack,
                a_rwnd,
                gap_blocks,
                dup_tsns,
            })
        },
    );
    let nr_sack = (
        any::<bool>(),
        any::<u32>(),
        any::<u32>(),
        gaps(),
        gaps(),
        vec(any::<u32>(), 0..5),
    )
        .prop_map(
            |(all_non_renegable, cum_tsn_ack, a_rwnd, gap_blocks, nr_gap_blocks, dup_tsns)| {
                Chunk::NrSack(NrSackChunk {
                    dac_packets: 0,
                    all_non_renegable,
                    cum_tsn_ack,
                    a_rwnd,
                    gap_blocks,
                    nr_gap_blocks,
                    dup_tsns,
                })
            },
        );
    prop_oneof![
        data,
        init().prop_map(Chunk::Init),
        init().prop_map(Chunk::InitAck),
        sack,
        nr_sack,
        bytes(30).prop_map(|info| Chunk::Heartbeat { info }),
        bytes(30).prop_map(|info| Chunk::HeartbeatAck { info }),
        (any::<bool>(), bytes(20)).prop_map(|(t_bit, causes)| Chunk::Abort { t_bit, causes }),
        any::<u32>().prop_map(|cum_tsn_ack| Chunk::Shutdown { cum_tsn_ack }),
        Just(Chunk::ShutdownAck),
        any::<bool>().prop_map(|t_bit| Chunk::ShutdownComplete { t_bit }),
        bytes(40).prop_map(|cookie| Chunk::CookieEcho { cookie }),
        Just(Chunk::CookieAck),
        // Chunk types the codec does not interpret (17 and up are all unknown to it).
        (17u8..=255, any::<u8>(), bytes(20)).prop_map(|(chunk_type, flags, value)| {
            Chunk::Unknown {
                chunk_type,
                flags,
                value,
            }
        }),
    ]
}

fn sctp() -> impl Strategy<Value = Transport> {
    (any::<u16>(), any::<u16>(), any::<u32>(), vec(chunk(), 0..6)).prop_map(
        |(src_port, dst_port, verification_tag, chunks)| {
            Transport::Sctp(SctpPacket {
                src_port,
                dst_port,
                verification_tag,
                chunks,
            })
        },
    )
}

fn packet(transport: impl Strategy<Value = Transport>) -> impl Strategy<Value = IpPacket> {
    (header(), transport).prop_map(|(header, transport)| IpPacket { header, transport })
}

fn any_packet() -> impl Strategy<Value = IpPacket> {
    prop_oneof![packet(udp()), packet(tcp()), packet(sctp())]
}

fn assert_round_trip(p: &IpPacket) -> Result<(), TestCaseError> {
    let b = p
        .to_bytes()
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(b.len(), p.wire_len());
    let back = IpPacket::decode(&b).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(&back, p);
    Ok(())
}

/// Recompute every checksum of a (possibly damaged) packet where the header still says where
/// they are, so that mutations reach the parsers behind the checksum checks.
fn reseal(b: &mut [u8]) {
    let ihl = usize::from(b.first().map_or(0, |v| v & 0x0f)) * 4;
    if ihl < 20 || b.len() < ihl {
        return;
    }
    b[10..12].fill(0);
    let ck = internet_checksum(&b[..ihl]);
    b[10..12].copy_from_slice(&ck.to_be_bytes());
    let (ip, body) = b.split_at_mut(ihl);
    match ip[9] {
        6 | 17 => {
            let at = if ip[9] == 6 { 16 } else { 6 };
            if body.len() < at + 2 || body.len() > 0xffff {
                return;
            }
            body[at..at + 2].fill(0);
            let mut pseudo = Vec::from(&ip[12..20]);
            pseudo.extend_from_slice(&[0, ip[9]]);
            pseudo.extend_from_slice(&(body.len() as u16).to_be_bytes());
            pseudo.extend_from_slice(body);
            let ck = internet_checksum(&pseudo);
            body[at..at + 2].copy_from_slice(&ck.to_be_bytes());
        }
        132 if body.len() >= 12 => {
            body[8..12].fill(0);
            let crc = crc32c(body);
            body[8..12].copy_from_slice(&crc.to_le_bytes());
        }
        _ => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn udp_packets_round_trip(p in packet(udp())) {
        assert_round_trip(&p)?;
    }

    #[test]
    fn tcp_packets_round_trip(p in packet(tcp())) {
        assert_round_trip(&p)?;
    }

    #[test]
    fn sctp_packets_round_trip(p in packet(sctp())) {
        assert_round_trip(&p)?;
    }

    #[test]
    fn tcp_options_fill_exactly_wire_len(o in tcp_options()) {
        let mut b = Vec::new();
        o.encode(&mut b).unwrap();
        prop_assert_eq!(b.len(), o.wire_len());
        prop_assert!(b.len() <= 40 && b.len() % 4 == 0);
        prop_assert_eq!(TcpOptions::decode(&b).unwrap(), o);
    }

    #[test]
    fn decoding_random_bytes_never_panics(b in vec(any::<u8>(), 0..200)) {
        let _ = IpPacket::decode(&b);
    }

    #[test]
    fn decoding_random_bytes_behind_a_valid_ip_header_never_panics(
        proto in prop_oneof![Just(6u8), Just(17u8), Just(132u8)],
        body in vec(any::<u8>(), 0..200),
    ) {
        let mut b = vec![0x45, 0, 0, 0, 0, 0, 0x40, 0, 64, proto, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2];
        b.extend_from_slice(&body);
        let total = b.len() as u16;
        b[2..4].copy_from_slice(&total.to_be_bytes());
        reseal(&mut b);
        let _ = IpPacket::decode(&b);
    }

    #[test]
    fn damaged_packets_never_panic(
        p in any_packet(),
        flips in vec((any::<prop::sample::Index>(), 1u8..=255), 0..6),
        cut in any::<prop::sample::Index>(),
        truncate in any::<bool>(),
        fix_checksums in any::<bool>(),
    ) {
        let mut b = p.to_bytes().unwrap();
        for (i, x) in flips {
            let i = i.index(b.len());
            b[i] ^= x;
        }
        if truncate {
            b.truncate(cut.index(b.len() + 1));
        }
        if fix_checksums {
            reseal(&mut b);
        }
        let _ = IpPacket::decode(&b);
    }
}
