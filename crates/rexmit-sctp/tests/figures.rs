//! Seed 000 (NR-SACKs for SCTP) Figures 2 and 4, packet by packet.
//!
//! Setting, from the text of §II.B and §III.B: send buffer of 8 TPDUs, cwnd C = 8 TPDUs,
//! TSNs 11-18 outstanding, TSN 11 lost in the network, every other TSN SACKed at once by the
//! receiver, unordered data (so every out-of-order TSN is delivered and non-renegable).
//!
//! Assumptions (the figures are hand-drawn timelines, these pin down what they leave open):
//! - A TPDU is one DATA chunk of 1452 bytes filling a 1500-byte packet; cwnd, flightsize and
//!   the send buffer count user-data bytes, so "n TPDUs" is exactly n·1452.
//! - The slice starts right after setup with cwnd forced to 8 TPDUs (`initial_cwnd`) and
//!   Max.Burst disabled, so that 11-18 leave together as in the figure (in the paper they were
//!   clocked out by earlier acks).
//! - The application writes whenever the buffer has room; the sender transmits after it has
//!   written (the text: "the application writes new data ... and the sender now transmits").
//! - The network is FIFO: packets sent later arrive later; each SACK reaches the sender
//!   before the next data packet reaches the receiver.
//! - NR-SACKs with the 'A' bit still list the nr-gap blocks (the figure writes N:10;2-2).

mod common;
use common::*;
use rexmit_sctp::{Association, CwndGrowth, SctpConfig, SendError, TsnState};
use rexmit_time::{Duration, Time};
use rexmit_wire::{Chunk, GapBlock, Payload};
use std::collections::VecDeque;

const TPDU: u64 = 1452;

fn config(nr_sack: bool) -> SctpConfig {
    SctpConfig {
        send_buffer: 8 * TPDU,
        initial_cwnd: Some(8 * TPDU),
        max_burst: 0,
        nr_sack,
        hb_interval: None,
        // Seed 000's FreeBSD stack grows cwnd only when the cumulative ack moves (RFC 4960).
        cwnd_growth: CwndGrowth::Rfc4960,
        ..SctpConfig::default()
    }
}

/// Write TPDU-sized unordered messages until the buffer refuses; returns how many went in.
fn app_fill(a: &mut Association, now: Time) -> usize {
    let mut n = 0;
    loop {
        match a.send(now, 0, Payload::zeros(TPDU as u32), true) {
            Ok(_) => n += 1,
            Err(SendError::BufferFull) => return n,
            Err(e) => panic!("unexpected send error {e:?}"),
        }
    }
}

/// The acknowledgement as the paper writes it: (cum, gap blocks, nr-gap blocks, A bit).
#[derive(Debug, PartialEq)]
struct Ack {
    cum: u32,
    gaps: Vec<(u16, u16)>,
    nr: Vec<(u16, u16)>,
    all: bool,
}

fn ack_of(t: &rexmit_sctp::Transmit) -> Ack {
    assert_eq!(
        t.packet.chunks.len(),
        1,
        "one acknowledgement chunk per packet: {:?}",
        t.packet.chunks
    );
    let b = |v: &Vec<GapBlock>| v.iter().map(|g| (g.start, g.end)).collect::<Vec<_>>();
    match &t.packet.chunks[0] {
        Chunk::Sack(s) => Ack {
            cum: s.cum_tsn_ack,
            gaps: b(&s.gap_blocks),
            nr: vec![],
            all: false,
        },
        Chunk::NrSack(s) => Ack {
            cum: s.cum_tsn_ack,
            gaps: b(&s.gap_blocks),
            nr: b(&s.nr_gap_blocks),
            all: s.all_non_renegable,
        },
        c => panic!("expected SACK or NR-SACK, got {c:?}"),
    }
}

/// TSNs the sender still holds in its retransmission queue (nr-acked ones are freed).
fn held(a: &Association) -> Vec<u32> {
    a.rtx_queue()
        .into_iter()
        .filter(|(_, s, _)| *s != TsnState::NrAcked)
        .map(|(t, _, _)| t)
        .collect()
}

struct Step {
    arriving: u32,
    ack: Ack,
    held_after: Vec<u32>,
    blocked_after: bool,
    sent_after: Vec<u32>,
    /// Outstanding data O and cwnd C after the ack, in TPDUs.
    o_c: (u64, u64),
    in_fast_recovery: bool,
}

/// Drive the timeline; returns one `Step` per data packet reaching the receiver.
fn run_timeline(nr: bool, n: usize) -> (Vec<Step>, Association) {
    let (mut s, mut r) = connect_pair(
        config(nr),
        SctpConfig {
            nr_sack: nr,
            hb_interval: None,
            ..SctpConfig::default()
        },
        11,
        1000,
        false,
    );
    assert_eq!(s.nr_sack_negotiated(), nr);
    let mut now = Time::from_millis(10);
    assert_eq!(app_fill(&mut s, now), 8, "the buffer holds exactly 8 TPDUs");
    let first = drain(&mut s, now);
    assert_eq!(data_tsns(&first), (11..=18).collect::<Vec<_>>());
    assert!(
        first.iter().all(|t| data_chunks(t).len() == 1),
        "one TPDU per packet"
    );
    assert_eq!(
        held(&s),
        (11..=18).collect::<Vec<_>>(),
        "rtxq fills the whole send buffer"
    );
    let mut wire: VecDeque<_> = first.into_iter().skip(1).collect(); // TSN 11 lost
    let mut steps = Vec::new();
    while let Some(p) = wire.pop_front() {
        now += Duration::from_millis(1);
        let arriving = data_tsns(std::slice::from_ref(&p))[0];
        deliver(&mut r, now, &p);
        let acks = drain(&mut r, now);
        assert_eq!(
            acks.len(),
            1,
            "receiver acks every packet at once (gaps exist or get filled)"
        );
        let ack = ack_of(&acks[0]);
        deliver(&mut s, now, &acks[0]);
        app_fill(&mut s, now);
        let out = drain(&mut s, now);
        let sent_after = data_tsns(&out);
        let o_c = (s.flight_size() / TPDU, s.paths()[0].cc().cwnd() / TPDU);
        steps.push(Step {
            arriving,
            ack,
            held_after: held(&s),
            blocked_after: s.is_send_blocked(),
            sent_after,
            o_c,
            in_fast_recovery: s.in_fast_recovery(),
        });
        wire.extend(out);
        if steps.len() == n {
            break; // the figures end with the ack of TSN 11's retransmission
        }
    }
    (steps, s)
}

fn range(a: u32, b: u32) -> Vec<u32> {
    (a..=b).collect()
}

#[test]
fn figure_2_sack_keeps_gap_acked_copies_and_blocks_the_application() {
    let (steps, s) = run_timeline(false, 8);
    let smss = TPDU;
    // After the first SACK, O = 7 < C = 8 but nothing can be written: send-buffer blocking.
    assert_eq!(steps[0].sent_after, Vec::<u32>::new());
    assert_eq!(steps[0].o_c, (7, 8));
    assert_eq!(
        steps[2].o_c,
        (5, 4),
        "third dupack: C = 4; 11 (retransmitted) and 15-18 outstanding"
    );
    assert_eq!(steps[7].o_c, (4, 4));
    let fr: Vec<bool> = steps.iter().map(|st| st.in_fast_recovery).collect();
    assert_eq!(
        fr,
        [false, false, true, true, true, true, true, false],
        "fast recovery from the third dupack to S:18"
    );
    // (arriving TSN, SACK "S:cum;gap", TSNs sent in response)
    type Row = (u32, u32, Vec<(u16, u16)>, Vec<u32>);
    let expect: Vec<Row> = vec![
        (12, 10, vec![(2, 2)], vec![]),
        (13, 10, vec![(2, 3)], vec![]),
        // third dupack: cwnd halves to 4, TSN 11 fast retransmitted, fast recovery
        (14, 10, vec![(2, 4)], vec![11]),
        (15, 10, vec![(2, 5)], vec![]),
        (16, 10, vec![(2, 6)], vec![]),
        (17, 10, vec![(2, 7)], vec![]),
        (18, 10, vec![(2, 8)], vec![]),
        // S:18 ends fast recovery; cwnd stays 4 (not fully used); new TSNs 19-22
        (11, 18, vec![], range(19, 22)),
    ];
    assert_eq!(steps.len(), expect.len());
    for (st, (arr, cum, gaps, sent)) in steps.iter().zip(expect) {
        assert_eq!(st.arriving, arr);
        assert_eq!(
            st.ack,
            Ack {
                cum,
                gaps,
                nr: vec![],
                all: false
            },
            "SACK after TSN {arr}"
        );
        assert_eq!(st.sent_after, sent, "new TSNs after SACK for TSN {arr}");
        if arr != 11 {
            // Gap-acked copies stay: the rtxq is still 11-18 and fills the send buffer.
            assert_eq!(
                st.held_after,
                range(11, 18),
                "rtxq after SACK for TSN {arr}"
            );
            assert!(
                st.blocked_after,
                "application blocked after SACK for TSN {arr}"
            );
        }
    }
    let last = steps.last().unwrap();
    assert_eq!(last.held_after, range(19, 22));
    assert!(
        last.blocked_after,
        "after writing 19-26 the buffer is full again"
    );
    assert_eq!(
        s.paths()[0].cc().cwnd(),
        4 * smss,
        "S:18 does not grow cwnd (RFC 4960 §7.2.1)"
    );
    assert_eq!(s.stats().fast_retransmits, 1);
    assert_eq!(s.stats().timeouts, 0);
}

#[test]
fn figure_4_nr_sack_frees_buffer_and_keeps_data_flowing() {
    let (steps, s) = run_timeline(true, 10);
    // (arriving TSN, "N:cum;nr-gap", rtxq held after, TSNs sent in response)
    type Row = (u32, u32, Vec<(u16, u16)>, Vec<u32>, Vec<u32>);
    let expect: Vec<Row> = vec![
        (
            12,
            10,
            vec![(2, 2)],
            [vec![11], range(13, 19)].concat(),
            vec![19],
        ),
        (
            13,
            10,
            vec![(2, 3)],
            [vec![11], range(14, 20)].concat(),
            vec![20],
        ),
        // third dupack: cwnd 4, fast retransmit 11; 7 outstanding > 4, nothing new
        (
            14,
            10,
            vec![(2, 4)],
            [vec![11], range(15, 20)].concat(),
            vec![11],
        ),
        (
            15,
            10,
            vec![(2, 5)],
            [vec![11], range(16, 20)].concat(),
            vec![],
        ),
        (
            16,
            10,
            vec![(2, 6)],
            [vec![11], range(17, 20)].concat(),
            vec![],
        ),
        (
            17,
            10,
            vec![(2, 7)],
            [vec![11], range(18, 20)].concat(),
            vec![],
        ),
        (18, 10, vec![(2, 8)], vec![11, 19, 20, 21], vec![21]),
        (19, 10, vec![(2, 9)], vec![11, 20, 21, 22], vec![22]),
        (20, 10, vec![(2, 10)], vec![11, 21, 22, 23], vec![23]),
        // N:20 ends fast recovery, C = 5, O = 3: TSNs 24 and 25
        (11, 20, vec![], range(21, 25), vec![24, 25]),
    ];
    assert_eq!(steps.len(), expect.len());
    assert_eq!(
        steps[0].o_c,
        (8, 8),
        "O drops to 7, TSN 19 brings it back to 8"
    );
    assert_eq!(
        steps[2].o_c,
        (7, 4),
        "11 (retransmitted) and 15-20 outstanding, C = 4"
    );
    assert_eq!(steps[6].o_c, (4, 4));
    let fr: Vec<bool> = steps.iter().map(|st| st.in_fast_recovery).collect();
    assert_eq!(
        fr,
        [false, false, true, true, true, true, true, true, true, false],
        "until N:20"
    );
    assert_eq!(
        steps[9].o_c,
        (5, 5),
        "N:20: C = 5, O = 3, then 24 and 25 go out"
    );
    for (st, (arr, cum, nr, held_after, sent)) in steps.iter().zip(expect) {
        assert_eq!(st.arriving, arr);
        let gaps = nr.clone();
        assert_eq!(
            st.ack,
            Ack {
                cum,
                gaps,
                nr: nr.clone(),
                all: !nr.is_empty()
            },
            "NR-SACK after TSN {arr}"
        );
        assert_eq!(
            st.held_after, held_after,
            "rtxq after NR-SACK for TSN {arr}"
        );
        assert_eq!(st.sent_after, sent, "new TSNs after NR-SACK for TSN {arr}");
        // The application fills every freed slot at once, so it is blocked again each time.
        assert!(st.blocked_after);
    }
    assert_eq!(
        s.paths()[0].cc().cwnd(),
        5 * TPDU,
        "N:20 grows cwnd to 5 (cwnd was fully used)"
    );
    assert_eq!(s.paths()[0].cc().ssthresh(), 4 * TPDU);
    assert!(!s.in_fast_recovery());
    assert_eq!(s.stats().fast_retransmits, 1);
}
