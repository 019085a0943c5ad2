//! CMT's delayed ack (DAC, Iyengar et al. §4.3), packet by packet: the receiver keeps
//! delaying SACKs through cross-path reordering and reports the packets each SACK covers; the
//! sender counts that many miss indications when the SACK newly acknowledges one destination's
//! data only, above the missing TSN.

mod common;
use common::*;
use rexmit_sctp::{Association, CmtConfig, SctpConfig};
use rexmit_time::Time;
use rexmit_wire::{Chunk, GapBlock, Payload, SackChunk, SctpPacket};

fn cfg(dac: bool) -> SctpConfig {
    SctpConfig {
        hb_interval: None,
        initial_cwnd: Some(8 * 1452),
        max_burst: 0,
        cmt: CmtConfig {
            enabled: true,
            dac,
            ..CmtConfig::default()
        },
        ..SctpConfig::default()
    }
}

fn sack(cum_tsn_ack: u32, gaps: &[(u16, u16)], dac_packets: u8) -> SctpPacket {
    SctpPacket {
        src_port: PORT_B,
        dst_port: PORT_A,
        verification_tag: TAG_A,
        chunks: vec![Chunk::Sack(SackChunk {
            cum_tsn_ack,
            a_rwnd: 1 << 20,
            gap_blocks: gaps
                .iter()
                .map(|&(start, end)| GapBlock { start, end })
                .collect(),
            dup_tsns: vec![],
            dac_packets,
        })],
    }
}

/// A sends TSNs 1–6, one full chunk per packet, alternating paths: 1, 3, 5 to B1 and 2, 4, 6
/// to B2. TSN 1 is lost; B's SACKs report TSN 3 (a packet count of 2) and then TSN 5 (1).
/// Returns what A retransmits after each.
fn run(dac: bool) -> (Association, Vec<Vec<u32>>) {
    let (mut a, _b) = connect_pair(cfg(dac), cfg(dac), 1, 1, true);
    let t = Time::from_millis(100);
    for _ in 0..6 {
        a.send(t, 0, Payload::zeros(1452), true).unwrap();
    }
    let out = drain(&mut a, t);
    let dsts: Vec<bool> = out.iter().map(|p| p.dst == B1).collect();
    assert_eq!(data_tsns(&out), vec![1, 2, 3, 4, 5, 6]);
    assert_eq!(
        dsts,
        vec![true, false, true, false, true, false],
        "round robin over paths"
    );
    let mut rtx = Vec::new();
    for (gaps, n) in [(&[(3u16, 3u16)][..], 2u8), (&[(3, 3), (5, 5)][..], 1)] {
        a.handle_packet(Time::from_millis(150), B1, A1, &sack(0, gaps, n));
        rtx.push(data_tsns(&drain(&mut a, Time::from_millis(150))));
    }
    (a, rtx)
}

#[test]
fn a_two_packet_sack_counts_two_miss_indications_for_tsns_below_its_new_acks() {
    let (a, rtx) = run(true);
    assert_eq!(
        rtx,
        vec![vec![], vec![1]],
        "2 + 1 miss indications: fast retransmit"
    );
    assert_eq!(a.stats().fast_retransmits, 1);
    let (_, rtx) = run(false);
    assert_eq!(
        rtx,
        vec![Vec::<u32>::new(), vec![]],
        "without DAC: 1 + 1, not yet three"
    );
}

#[test]
fn the_receiver_delays_sacks_through_reordering_and_reports_the_count() {
    let (mut a, mut b) = connect_pair(cfg(true), cfg(true), 1, 1, true);
    let t = Time::from_millis(100);
    for _ in 0..4 {
        a.send(t, 0, Payload::zeros(1452), true).unwrap();
    }
    let out = drain(&mut a, t);
    // TSN 1 is late (the slower path); TSNs 2 and 3 arrive first, out of order.
    deliver(&mut b, t, &out[1]);
    assert!(
        drain(&mut b, t).is_empty(),
        "a gap does not force a SACK under DAC"
    );
    deliver(&mut b, t, &out[2]);
    let sacks = drain(&mut b, t);
    assert_eq!(sacks.len(), 1);
    match &sacks[0].packet.chunks[0] {
        Chunk::Sack(s) => {
            assert_eq!(s.dac_packets, 2);
            assert_eq!(s.cum_tsn_ack, 0);
            assert_eq!(s.gap_blocks, vec![GapBlock { start: 2, end: 3 }]);
        }
        c => panic!("{c:?}"),
    }
}
