//! Tests of the SCTP codec: a byte-by-byte NR-SACK, round trips of every chunk type, and
//! rejection of bad lengths and checksums.

use super::*;
use std::net::Ipv4Addr;

fn packet(chunks: Vec<Chunk>) -> SctpPacket {
    SctpPacket {
        src_port: 5000,
        dst_port: 5001,
        verification_tag: 0xabcd_ef01,
        chunks,
    }
}

fn round_trip(p: &SctpPacket) -> Vec<u8> {
    let mut b = Vec::new();
    p.encode(&mut b).unwrap();
    assert_eq!(b.len(), p.wire_len());
    assert_eq!(b.len() % 4, 0);
    assert_eq!(&SctpPacket::decode(&b).unwrap(), p);
    b
}

fn nr_sack() -> NrSackChunk {
    NrSackChunk {
        dac_packets: 0,
        all_non_renegable: true,
        cum_tsn_ack: 100,
        a_rwnd: 65536,
        gap_blocks: vec![GapBlock { start: 2, end: 3 }],
        nr_gap_blocks: vec![
            GapBlock { start: 5, end: 8 },
            GapBlock { start: 10, end: 10 },
        ],
        dup_tsns: vec![99],
    }
}

// Layout of draft-natarajan-tsvwg-sctp-nrsack §4.1: type 16, flags (A = 0x04, seed 000 §III.A), length, cum TSN
// ack, a_rwnd, N | M, X | reserved, N gap blocks, M NR gap blocks, X duplicate TSNs.
#[test]
fn nr_sack_chunk_byte_by_byte() {
    let mut b = Vec::new();
    Chunk::NrSack(nr_sack()).encode(&mut b).unwrap();
    #[rustfmt::skip]
    let expected = [
        16, 0x04, 0, 36,        // type, A flag, length 20 + 4 * (1 + 2 + 1)
        0, 0, 0, 100,           // cumulative TSN ack
        0, 1, 0, 0,             // a_rwnd
        0, 1, 0, 2,             // 1 gap block, 2 NR gap blocks
        0, 1, 0, 0,             // 1 duplicate TSN, reserved
        0, 2, 0, 3,             // gap block 2..3
        0, 5, 0, 8,             // NR gap block 5..8
        0, 10, 0, 10,           // NR gap block 10..10
        0, 0, 0, 99,            // duplicate TSN
    ];
    assert_eq!(b, expected);
}

#[test]
fn dac_packet_count_rides_in_the_high_flag_bits_as_freebsd_writes_it() {
    let mut s = nr_sack();
    s.dac_packets = 2;
    let b = round_trip(&packet(vec![Chunk::NrSack(s)]));
    // FreeBSD: cmt_dac_pkts_rcvd << 6, two packets = SCTP_SACK_CMT_DAC (0x80).
    assert_eq!(b[12 + 1], 0x04 | 0x80, "A bit and DAC count");
    let b = round_trip(&packet(vec![Chunk::Sack(SackChunk {
        cum_tsn_ack: 1,
        a_rwnd: 1,
        gap_blocks: vec![],
        dup_tsns: vec![],
        dac_packets: 1,
    })]));
    assert_eq!(
        b[12 + 1],
        0x40,
        "one packet; bit 0 stays RFC 3540's nonce sum"
    );
}

#[test]
fn every_chunk_type_round_trips() {
    let init = InitChunk {
        initiate_tag: 0x1234_5678,
        a_rwnd: 131072,
        outbound_streams: 10,
        inbound_streams: 65535,
        initial_tsn: 1,
        params: vec![
            InitParam::Ipv4Address(Ipv4Addr::new(10, 0, 0, 1)),
            InitParam::CookiePreservative(5000),
            InitParam::SupportedAddressTypes(vec![5]),
            InitParam::SupportedExtensions(vec![ct::NR_SACK, 0xc0, 0x82]),
            InitParam::EcnCapable,
            InitParam::Unknown {
                param_type: 0xc000,
                value: vec![],
            },
        ],
    };
    let init_ack = InitChunk {
        params: vec![InitParam::StateCookie(vec![7; 33])],
        ..init.clone()
    };
    let data = |tsn, unordered, beginning, ending, len| {
        Chunk::Data(DataChunk {
            immediate: tsn == 3,
            unordered,
            beginning,
            ending,
            tsn,
            stream_id: 1,
            ssn: 2,
            ppid: 51,
            payload: Payload::from_bytes(&vec![0xa5; len]),
        })
    };
    let chunks = vec![
        data(1, false, true, true, 0),
        data(2, true, true, false, 3),
        data(3, false, false, true, 1200),
        Chunk::Init(init),
        Chunk::InitAck(init_ack),
        Chunk::Sack(SackChunk {
            dac_packets: 2,
            cum_tsn_ack: 7,
            a_rwnd: 1000,
            gap_blocks: vec![GapBlock { start: 2, end: 4 }],
            dup_tsns: vec![5, 6],
        }),
        Chunk::Sack(SackChunk {
            dac_packets: 0,
            cum_tsn_ack: 0,
            a_rwnd: 0,
            gap_blocks: vec![],
            dup_tsns: vec![],
        }),
        Chunk::NrSack(nr_sack()),
        Chunk::NrSack(NrSackChunk {
            dac_packets: 0,
            all_non_renegable: false,
            ..nr_sack()
        }),
        Chunk::Heartbeat {
            info: vec![1, 2, 3, 4, 5],
        },
        Chunk::HeartbeatAck { info: vec![] },
        Chunk::Abort {
            t_bit: true,
            causes: vec![0, 12, 0, 4],
        },
        Chunk::Abort {
            t_bit: false,
            causes: vec![],
        },
        Chunk::Shutdown { cum_tsn_ack: 77 },
        Chunk::ShutdownAck,
        Chunk::ShutdownComplete { t_bit: true },
        Chunk::CookieEcho {
            cookie: vec![9; 13],
        },
        Chunk::CookieAck,
        Chunk::Ecne { lowest_tsn: 42 },
        Chunk::Cwr {
            lowest_tsn: 0xffff_fff0,
        },
        Chunk::Unknown {
            chunk_type: 0xc1,
            flags: 0x5a,
            value: vec![1, 2, 3],
        },
    ];
    for c in &chunks {
        round_trip(&packet(vec![c.clone()]));
    }
    round_trip(&packet(chunks));
    round_trip(&packet(vec![]));
}

#[test]
fn init_length_excludes_the_last_parameter_padding() {
    let c = Chunk::Init(InitChunk {
        initiate_tag: 1,
        a_rwnd: 2,
        outbound_streams: 3,
        inbound_streams: 4,
        initial_tsn: 5,
        params: vec![
            InitParam::SupportedExtensions(vec![16]),
            InitParam::SupportedExtensions(vec![16]),
        ],
    });
    assert_eq!(c.length(), 20 + 8 + 5);
    let mut b = Vec::new();
    c.encode(&mut b).unwrap();
    assert_eq!(b.len(), 36);
    assert_eq!(&b[2..4], &[0, 33]);
}

/// The CRC32c is stored low byte first: check against a value computed independently.
#[test]
fn checksum_is_stored_little_endian() {
    let p = packet(vec![Chunk::CookieAck]);
    let mut b = Vec::new();
    p.encode(&mut b).unwrap();
    let mut z = b.clone();
    z[8..12].fill(0);
    assert_eq!(&b[8..12], &crc32c(&z).to_le_bytes());
}

#[test]
fn bad_checksum_is_rejected() {
    let mut b = round_trip(&packet(vec![Chunk::CookieAck]));
    b[13] ^= 1;
    let e = SctpPacket::decode(&b).unwrap_err();
    assert!(
        e.to_string().starts_with("SCTP: CRC32c checksum mismatch"),
        "{e}"
    );
}

/// Re-seal a packet after tampering so the CRC32c is not what rejects it.
fn reseal(b: &mut [u8]) {
    b[8..12].fill(0);
    let crc = crc32c(b);
    b[8..12].copy_from_slice(&crc.to_le_bytes());
}

#[test]
fn inconsistent_nr_sack_length_is_rejected() {
    let mut b = round_trip(&packet(vec![Chunk::NrSack(nr_sack())]));
    b[12 + 15] = 3; // three NR gap blocks claimed, two present
    reseal(&mut b);
    let e = SctpPacket::decode(&b).unwrap_err();
    assert_eq!(
        e.to_string(),
        "SCTP chunk NR-SACK: length 36 but 1 gap blocks, 3 NR gap blocks and 1 duplicate TSNs need 40"
    );
}

#[test]
fn chunk_longer_than_packet_is_rejected() {
    let mut b = round_trip(&packet(vec![Chunk::Shutdown { cum_tsn_ack: 1 }]));
    b[15] = 12;
    reseal(&mut b);
    let e = SctpPacket::decode(&b).unwrap_err();
    assert_eq!(
        e.to_string(),
        "SCTP chunk SHUTDOWN: length 12 but 8 bytes remain in the packet"
    );
    b[15] = 2;
    reseal(&mut b);
    assert!(SctpPacket::decode(&b).is_err());
}

#[test]
fn missing_padding_on_last_chunk_is_tolerated() {
    let p = packet(vec![Chunk::CookieEcho {
        cookie: vec![1, 2, 3],
    }]);
    let mut b = round_trip(&p);
    b.pop();
    reseal(&mut b);
    assert_eq!(SctpPacket::decode(&b).unwrap(), p);
}

#[test]
fn bad_parameter_length_is_rejected() {
    let init = InitChunk {
        initiate_tag: 1,
        a_rwnd: 2,
        outbound_streams: 3,
        inbound_streams: 4,
        initial_tsn: 5,
        params: vec![InitParam::Ipv4Address(Ipv4Addr::LOCALHOST)],
    };
    let mut b = round_trip(&packet(vec![Chunk::Init(init)]));
    // Parameter length 8 → 6: still inside the chunk, but wrong for an IPv4 address.
    b[12 + 20 + 3] = 6;
    reseal(&mut b);
    let e = SctpPacket::decode(&b).unwrap_err();
    assert_eq!(
        e.to_string(),
        "SCTP INIT parameter 0x0005: length 6, expected 8"
    );
}

// FreeBSD's ECNE (usrsctp 0.9.5, sctp_header.h `struct sctp_ecne_chunk`) carries the lowest
// TSN and a count of packets since the last CWR: 12 bytes, where RFC 9260 Appendix A has 8.
#[test]
fn freebsd_ecne_with_a_packet_count_reads_as_the_echo() {
    let mut b = round_trip(&packet(vec![Chunk::Ecne { lowest_tsn: 7 }]));
    b[15] = 12; // chunk length 8 → 12, then the count (3 packets)
    b.extend_from_slice(&[0, 0, 0, 3]);
    reseal(&mut b);
    assert_eq!(
        SctpPacket::decode(&b).unwrap(),
        packet(vec![Chunk::Ecne { lowest_tsn: 7 }])
    );
    b[15] = 10; // neither RFC 9260's length nor FreeBSD's
    reseal(&mut b);
    let e = SctpPacket::decode(&b).unwrap_err();
    assert_eq!(e.to_string(), "SCTP chunk ECNE: length 10, expected 8");
}
