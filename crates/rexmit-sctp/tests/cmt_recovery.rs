//! CMT fast recovery per destination (Iyengar et al., the CMT that ran seed 000's ns-2
//! experiments, where each destination has its own recovery point): a destination leaves fast
//! recovery once everything it carried up to the highest TSN outstanding on it at the fast
//! retransmit is acknowledged, without waiting for the association's cumulative ack to pass the
//! data of the other, slower, path.

mod common;
use common::*;
use rexmit_sctp::{CmtConfig, RtxPolicy, SctpConfig};
use rexmit_time::Time;
use rexmit_wire::{Chunk, GapBlock, Payload, SackChunk, SctpPacket};

fn cfg() -> SctpConfig {
    SctpConfig {
        hb_interval: None,
        initial_cwnd: Some(8 * 1452),
        max_burst: 0,
        cmt: CmtConfig {
            enabled: true,
            dac: false,
            rtx_policy: RtxPolicy::Same,
            ..CmtConfig::default()
        },
        ..SctpConfig::default()
    }
}

fn sack(cum_tsn_ack: u32, acked: &[u32]) -> SctpPacket {
    // One gap block per listed TSN (all isolated here), offsets from the cumulative ack.
    let gap_blocks = acked
        .iter()
        .map(|&t| {
            let off = (t - cum_tsn_ack) as u16;
            GapBlock {
                start: off,
                end: off,
            }
        })
        .collect();
    SctpPacket {
        src_port: PORT_B,
        dst_port: PORT_A,
        verification_tag: TAG_A,
        chunks: vec![Chunk::Sack(SackChunk {
            cum_tsn_ack,
            a_rwnd: 1 << 20,
            gap_blocks,
            dup_tsns: vec![],
            dac_packets: 0,
        })],
    }
}

#[test]
fn a_path_leaves_fast_recovery_when_its_own_data_is_acknowledged() {
    let (mut a, _b) = connect_pair(cfg(), cfg(), 1, 1, true);
    let t = Time::from_millis(100);
    for _ in 0..8 {
        a.send(t, 0, Payload::zeros(1452), true).unwrap();
    }
    let out = drain(&mut a, t);
    assert_eq!(data_tsns(&out), (1..=8).collect::<Vec<_>>());
    assert!(
        out.iter().step_by(2).all(|p| p.dst == B1),
        "odd TSNs on path 0 (B1), even on path 1 (B2)"
    );
    // TSN 1 is lost on path 0; path 0's later TSNs arrive (path 1's are still on their way):
    // with split fast retransmit each counts one miss indication for TSN 1.
    let now = Time::from_millis(130);
    for acked in [&[3][..], &[3, 5], &[3, 5, 7]] {
        a.handle_packet(now, B1, A1, &sack(0, acked));
    }
    let rtx = drain(&mut a, now);
    assert_eq!(data_tsns(&rtx), vec![1]);
    assert_eq!(rtx[0].dst, B1, "RTX-SAME");
    // Path 0's recovery point is the highest TSN outstanding on path 0 (TSN 1 itself: 3, 5
    // and 7 are acked), not the association's highest outstanding TSN (8, on path 1).
    assert_eq!(a.paths()[0].fr_exit(), Some(1));
    assert_eq!(a.paths()[1].fr_exit(), None);
    // The retransmission arrives: the cumulative ack moves to 1 only (TSN 2 is still in
    // flight on the slow path), yet nothing path 0 carried up to its point is missing now.
    let later = Time::from_millis(160);
    a.handle_packet(later, B1, A1, &sack(1, &[3, 5, 7]));
    assert_eq!(a.paths()[0].fr_exit(), None, "path 0 left fast recovery");
    assert!(
        !a.in_fast_recovery(),
        "so its cwnd may grow again (RFC 9260 §7.2.1)"
    );
}
