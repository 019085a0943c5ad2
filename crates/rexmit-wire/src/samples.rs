//! A fixed set of packets that exercises every header, option and chunk this crate encodes:
//! a TCP connection with SACK loss recovery, a UDP datagram, and an SCTP association from INIT
//! to SHUTDOWN-COMPLETE with NR-SACKs, plus an ABORT. Shared by the `sample_pcap` example and
//! the tshark integration test; not part of the stable API.

use crate::ipv4::{IpPacket, Transport};
use crate::payload::Payload;
use crate::sctp::{
    Chunk, DataChunk, GapBlock, InitChunk, InitParam, NrSackChunk, SackChunk, SctpPacket,
};
use crate::tcp::{SackBlock, TcpFlags, TcpOptions, TcpSegment, Timestamps};
use crate::udp::UdpDatagram;
use rexmit_time::Time;
use std::net::Ipv4Addr;

const CLIENT: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 1);
const SERVER: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 2);
const TCP_CLIENT_PORT: u16 = 40000;
const TCP_SERVER_PORT: u16 = 80;
const SEGMENT: u32 = 100;
const CLIENT_ISN: u32 = 1000;
const SERVER_ISN: u32 = 5000;

/// Every sample packet with its capture time, in time order.
pub fn sample_packets() -> Vec<(Time, IpPacket)> {
    let mut out = Vec::new();
    tcp_connection(&mut out);
    let udp = UdpDatagram {
        src_port: 50000,
        dst_port: 50001,
        payload: Payload::from_bytes(b"rexmit udp sample"),
    };
    push(&mut out, CLIENT, SERVER, Transport::Udp(udp));
    sctp_association(&mut out);
    out.into_iter()
        .enumerate()
        .map(|(i, p)| (Time::from_millis(10 * i as u64), p))
        .collect()
}

fn push(out: &mut Vec<IpPacket>, src: Ipv4Addr, dst: Ipv4Addr, transport: Transport) {
    let mut p = IpPacket::new(src, dst, transport);
    p.header.identification = out.len() as u16;
    out.push(p);
}

/// Push one segment of the sample connection; `from_client` picks addresses and ports.
fn tcp(
    out: &mut Vec<IpPacket>,
    from_client: bool,
    seq: u32,
    ack: u32,
    flags: TcpFlags,
    options: TcpOptions,
    len: u32,
) {
    let (src, dst, src_port, dst_port) = if from_client {
        (CLIENT, SERVER, TCP_CLIENT_PORT, TCP_SERVER_PORT)
    } else {
        (SERVER, CLIENT, TCP_SERVER_PORT, TCP_CLIENT_PORT)
    };
    let segment = TcpSegment {
        src_port,
        dst_port,
        seq,
        ack,
        flags,
        // 512 << 7 = 64 KiB once window scaling is in effect; SYNs carry the unscaled value.
        window: if flags.contains(TcpFlags::SYN) {
            65535
        } else {
            512
        },
        urgent: 0,
        options,
        payload: Payload::zeros(len),
    };
    push(out, src, dst, Transport::Tcp(segment));
}

fn ts(tsval: u32, tsecr: u32) -> Option<Timestamps> {
    Some(Timestamps { tsval, tsecr })
}

/// Handshake, nine data segments of which the receiver misses four, ACKs with three SACK blocks
/// plus timestamps and with four SACK blocks without timestamps, retransmissions, final ACK.
fn tcp_connection(out: &mut Vec<IpPacket>) {
    let syn_opts = |tsval, tsecr| TcpOptions {
        mss: Some(1460),
        window_scale: Some(7),
        sack_permitted: true,
        timestamps: ts(tsval, tsecr),
        sack_blocks: Default::default(),
    };
    let plain = |tsval, tsecr| TcpOptions {
        timestamps: ts(tsval, tsecr),
        ..Default::default()
    };
    let (syn, ack, data) = (TcpFlags::SYN, TcpFlags::ACK, TcpFlags::ACK | TcpFlags::PSH);
    let (c_isn, s_isn) = (CLIENT_ISN, SERVER_ISN);
    tcp(out, true, c_isn, 0, syn, syn_opts(100, 0), 0);
    tcp(
        out,
        false,
        s_isn,
        c_isn + 1,
        syn | ack,
        syn_opts(200, 100),
        0,
    );
    let (c_seq, s_seq) = (c_isn + 1, s_isn + 1);
    tcp(out, true, c_seq, s_seq, ack, plain(110, 200), 0);
    let at = |i: u32| c_seq + i * SEGMENT;
    for i in 0..9 {
        tcp(out, true, at(i), s_seq, data, plain(120 + i, 200), SEGMENT);
    }
    // Segments 1, 3, 5 and 7 were lost; the receiver holds 0, 2, 4, 6 and 8.
    let block = |i: u32| SackBlock {
        left: at(i),
        right: at(i + 1),
    };
    tcp(out, false, s_seq, at(1), ack, plain(210, 120), 0);
    let three = TcpOptions {
        timestamps: ts(211, 126),
        sack_blocks: [block(6), block(4), block(2)].into_iter().collect(),
        ..Default::default()
    };
    tcp(out, false, s_seq, at(1), ack, three, 0);
    let four = TcpOptions {
        sack_blocks: [block(8), block(6), block(4), block(2)].into(),
        ..Default::default()
    };
    tcp(out, false, s_seq, at(1), ack, four, 0);
    for (tsval, i) in (130..).zip([1, 3, 5, 7]) {
        tcp(out, true, at(i), s_seq, data, plain(tsval, 211), SEGMENT);
    }
    tcp(out, false, s_seq, at(9), ack, plain(220, 133), 0);
}

const SCTP_CLIENT_PORT: u16 = 45000;
const SCTP_SERVER_PORT: u16 = 45001;
const CLIENT_TAG: u32 = 0x1111_1111;
const SERVER_TAG: u32 = 0x2222_2222;
const CLIENT_TSN: u32 = 1000;

fn sctp(out: &mut Vec<IpPacket>, from_client: bool, verification_tag: u32, chunks: Vec<Chunk>) {
    let (src, dst, src_port, dst_port) = if from_client {
        (CLIENT, SERVER, SCTP_CLIENT_PORT, SCTP_SERVER_PORT)
    } else {
        (SERVER, CLIENT, SCTP_SERVER_PORT, SCTP_CLIENT_PORT)
    };
    push(
        out,
        src,
        dst,
        Transport::Sctp(SctpPacket {
            src_port,
            dst_port,
            verification_tag,
            chunks,
        }),
    );
}

/// Client to server, inside the established association.
fn to_server(out: &mut Vec<IpPacket>, chunks: Vec<Chunk>) {
    sctp(out, true, SERVER_TAG, chunks);
}

/// Server to client, inside the established association.
fn to_client(out: &mut Vec<IpPacket>, chunks: Vec<Chunk>) {
    sctp(out, false, CLIENT_TAG, chunks);
}

fn data(
    tsn: u32,
    stream_id: u16,
    ssn: u16,
    unordered: bool,
    beginning: bool,
    ending: bool,
) -> Chunk {
    Chunk::Data(DataChunk {
        immediate: false,
        unordered,
        beginning,
        ending,
        tsn,
        stream_id,
        ssn,
        ppid: 0,
        payload: Payload::from_bytes(format!("message tsn {tsn}").as_bytes()),
    })
}

fn sctp_association(out: &mut Vec<IpPacket>) {
    let cookie: Vec<u8> = (0u8..32).collect();
    let init = InitChunk {
        initiate_tag: CLIENT_TAG,
        a_rwnd: 131_072,
        outbound_streams: 10,
        inbound_streams: 10,
        initial_tsn: CLIENT_TSN,
        params: vec![
            InitParam::Ipv4Address(CLIENT),
            InitParam::SupportedAddressTypes(vec![5]),
            InitParam::SupportedExtensions(vec![crate::sctp::chunk_type::NR_SACK]),
        ],
    };
    sctp(out, true, 0, vec![Chunk::Init(init)]);
    let init_ack = InitChunk {
        initiate_tag: SERVER_TAG,
        a_rwnd: 131_072,
        outbound_streams: 10,
        inbound_streams: 10,
        initial_tsn: 5000,
        params: vec![
            InitParam::StateCookie(cookie.clone()),
            InitParam::Ipv4Address(SERVER),
            InitParam::SupportedExtensions(vec![crate::sctp::chunk_type::NR_SACK]),
        ],
    };
    to_client(out, vec![Chunk::InitAck(init_ack)]);
    to_server(out, vec![Chunk::CookieEcho { cookie }]);
    to_client(out, vec![Chunk::CookieAck]);
    let t = CLIENT_TSN;
    // Bundled: an ordered message, an unordered message, the first fragment of a third.
    to_server(
        out,
        vec![
            data(t, 0, 0, false, true, true),
            data(t + 1, 1, 0, true, true, true),
            data(t + 2, 2, 0, false, true, false),
        ],
    );
    to_server(
        out,
        vec![
            data(t + 3, 2, 0, false, false, false),
            data(t + 4, 2, 0, false, false, true),
        ],
    );
    // TSN t+2 was lost; t was received twice.
    let gap = |s, e| GapBlock { start: s, end: e };
    to_client(
        out,
        vec![Chunk::Sack(SackChunk {
            dac_packets: 0,
            cum_tsn_ack: t + 1,
            a_rwnd: 130_000,
            gap_blocks: vec![gap(2, 3)],
            dup_tsns: vec![t],
        })],
    );
    to_server(
        out,
        vec![
            data(t + 5, 0, 1, false, true, true),
            data(t + 6, 1, 0, true, true, true),
        ],
    );
    // NR-SACK: t+3..t+4 renegable, t+5..t+6 delivered (unordered/ordered) and non-renegable.
    to_client(
        out,
        vec![Chunk::NrSack(NrSackChunk {
            dac_packets: 0,
            all_non_renegable: false,
            cum_tsn_ack: t + 1,
            a_rwnd: 129_000,
            gap_blocks: vec![gap(2, 3)],
            nr_gap_blocks: vec![gap(4, 5)],
            dup_tsns: vec![],
        })],
    );
    to_server(out, vec![data(t + 2, 2, 0, false, true, false)]);
    to_client(
        out,
        vec![Chunk::NrSack(NrSackChunk {
            dac_packets: 0,
            all_non_renegable: true,
            cum_tsn_ack: t + 4,
            a_rwnd: 131_072,
            gap_blocks: vec![gap(1, 2)],
            nr_gap_blocks: vec![gap(1, 2)],
            dup_tsns: vec![t + 2],
        })],
    );
    let info = b"heartbeat info 1".to_vec();
    to_server(out, vec![Chunk::Heartbeat { info: info.clone() }]);
    to_client(out, vec![Chunk::HeartbeatAck { info }]);
    to_server(out, vec![Chunk::Shutdown { cum_tsn_ack: 4999 }]);
    to_client(out, vec![Chunk::ShutdownAck]);
    to_server(out, vec![Chunk::ShutdownComplete { t_bit: false }]);
    // A second association attempt, refused with an ABORT carrying the INIT's initiate tag and
    // the T bit clear (RFC 9260 §8.4 (3)).
    sctp(
        out,
        true,
        0,
        vec![Chunk::Init(InitChunk {
            initiate_tag: 0x3333_3333,
            a_rwnd: 65_536,
            outbound_streams: 1,
            inbound_streams: 1,
            initial_tsn: 1,
            params: vec![],
        })],
    );
    // Error cause 12, User-Initiated Abort with an empty reason (RFC 9260 §3.3.10.12).
    sctp(
        out,
        false,
        0x3333_3333,
        vec![Chunk::Abort {
            t_bit: false,
            causes: vec![0, 12, 0, 4],
        }],
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_sample_round_trips() {
        let samples = sample_packets();
        assert!(samples.len() > 30);
        for (t, p) in &samples {
            let b = p
                .to_bytes()
                .unwrap_or_else(|e| panic!("packet at {t:?}: {e}"));
            assert_eq!(b.len(), p.wire_len());
            assert_eq!(&IpPacket::decode(&b).unwrap(), p);
        }
    }
}
