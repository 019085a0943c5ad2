//! The connection's hot block (issue 40 step 6): which cache lines of a `Connection` each
//! common event touches. At 10 000 flows every connection is cold when its next segment or
//! timer comes, so each distinct line is a miss; the layout (`repr(C)` order of `Connection`,
//! `Sender` and their parts) packs what these paths read and write into few lines, and this
//! test keeps a reordering from spreading them again. The field lists follow the code paths of
//! a bulk transfer with SACK and delayed ACKs (the benchmark's dumbbell): a data segment at the
//! receiver (the quiet ACK, in-order data, an ACK sent), an ACK of new data at the sender (the
//! full ACK path, new data sent), and the receiver's delayed-ACK timer.

use super::{events, Connection};
use crate::stats::TcpStats;
use std::collections::{BTreeMap, BTreeSet};
use std::mem::offset_of;

/// Every followed field's offset in a `Connection`, by path ("snd.rec.episode").
fn offsets() -> BTreeMap<String, usize> {
    let mut m = BTreeMap::new();
    let mut add = |outer: &str, at: usize, fields: Vec<(String, usize)>| {
        for (n, o) in fields {
            m.insert(format!("{outer}{n}"), at + o);
        }
    };
    let own = |v: Vec<(&'static str, usize)>| -> Vec<(String, usize)> {
        v.into_iter().map(|(n, o)| (n.to_string(), o)).collect()
    };
    add(
        "",
        0,
        own(field_offsets!(
            Connection;
            state, local_port, remote_port, snd_wscale, rcv_wscale, sack_ok, ts_ok, ecn_ok, iss,
            irs, last_ack_sent, cfg, ack_pending, rst_pending, blocked_since, echo,
        )),
    );
    add(
        "snd.",
        offset_of!(Connection, snd),
        crate::sender::field_offsets(),
    );
    add(
        "rcv.",
        offset_of!(Connection, rcv),
        own(crate::receiver::field_offsets()),
    );
    add(
        "timers.",
        offset_of!(Connection, timers),
        own(crate::timers::field_offsets()),
    );
    add(
        "events.",
        offset_of!(Connection, events),
        own(events::field_offsets()),
    );
    add(
        "stats.",
        offset_of!(Connection, stats),
        own(field_offsets!(
            TcpStats;
            cwnd, ssthresh, rtx_queue_bytes, rtx_queue_bytes_max, send_buffer_bytes,
            segments_sent, segments_received, bytes_acked, srtt, rto, data_segments_sent,
            bytes_delivered, ooo_bytes, ooo_bytes_max, bytes_accepted,
        )),
    );
    m
}

/// Every segment, timer and poll: the state and pending-segment tests, the deadlines, the
/// statistics' gauges (`refresh_send_gauges`) and the empty-poll test (`nothing_to_send`).
const EVERY_CALL: &[&str] = &[
    "blocked_since",
    "events.first",
    "state",
    "rst_pending",
    "ack_pending",
    "cfg",
    "timers.armed",
    "timers.at.retransmit",
    "timers.at.delayed_ack",
    "stats.cwnd",
    "stats.ssthresh",
    "stats.srtt",
    "stats.rto",
    "stats.rtx_queue_bytes",
    "stats.rtx_queue_bytes_max",
    "stats.send_buffer_bytes",
    "snd.cc",
    "snd.rtt.rto",
    "snd.rtt.rto_end",
    "snd.snd_una",
    "snd.snd_nxt",
    "snd.snd_max",
    "snd.buf.start",
    "snd.buf.len",
    "snd.pending_rexmit",
    "snd.tlp_pending",
    "snd.probe_now",
    "snd.pace_at",
    "snd.rec.alg",
    "snd.rec.episode",
    "snd.fin_at",
    "rcv.ack_now",
];

/// A segment sent: its ACK fields, window and options (`Connection::segment`).
const SEGMENT_SENT: &[&str] = &[
    "local_port",
    "remote_port",
    "iss",
    "irs",
    "last_ack_sent",
    "rcv_wscale",
    "sack_ok",
    "ts_ok",
    "ecn_ok",
    "echo",
    "rcv.autotune",
    "rcv.unacked_bytes",
    "rcv.readable_bytes",
    "rcv.cfg.limit",
    "rcv.rcv_adv",
    "rcv.rcv_nxt",
    "rcv.sack_recent",
    "rcv.dsack",
    "stats.segments_sent",
    "stats.data_segments_sent",
];

/// A segment received, up to and including the quiet ACK's tests and the send window.
const SEGMENT_RECEIVED: &[&str] = &[
    "stats.segments_received",
    "local_port",
    "remote_port",
    "irs",
    "iss",
    "sack_ok",
    "ts_ok",
    "snd_wscale",
    "ecn_ok",
    "blocked_since",
    "rcv.rcv_nxt",
    "rcv.rcv_adv",
    "rcv.readable_bytes",
    "rcv.autotune",
    "rcv.cfg.limit",
    "snd.now",
    "snd.snd_wl1",
    "snd.snd_wl2",
    "snd.snd_wnd",
    "snd.max_snd_wnd",
    "timers.at.persist",
    "timers.at.pacing",
    "snd.undo.marker",
    "snd.sb.high_sacked",
    "snd.rack",
    "snd.rate",
    "snd.reordering",
];

/// In-order data at the receiver, delivered and read by the application.
const DATA_AT_RECEIVER: &[&str] = &[
    "rcv.fin_at",
    "rcv.ooo",
    "rcv.ooo.end",
    "rcv.readable",
    "rcv.rcv_mss",
    "rcv.cfg.ack_every",
    "rcv.cfg.delayed_ack_timeout",
    "rcv.ooo_max",
    "stats.bytes_delivered",
    "stats.ooo_bytes",
    "stats.ooo_bytes_max",
    "events.rest",
    "snd.smss",
];

/// An ACK of new data at the sender: the full ACK path, then new data written and sent.
const NEW_ACK_AT_SENDER: &[&str] = &[
    "snd.sb.segs",
    "snd.sb.runs",
    "snd.sb.sums",
    "snd.sb.lost_frontier",
    "snd.sb.sacked_count",
    "snd.rack_detection",
    "snd.rtt.sample",
    "snd.rtt.sample_end",
    "snd.buf.bytes",
    "snd.buf.limit",
    "snd.last_ack_advance",
    "snd.consecutive_timeouts",
    "snd.dupacks",
    "snd.lt_bytes",
    "snd.lost_total",
    "snd.smss",
    "snd.loss",
    "snd.dup_thresh",
    "snd.early_retransmit",
    "snd.thin_dupack",
    "snd.dsacks",
    "snd.decrease_base",
    "snd.cwnd_use",
    "snd.rec.recover",
    "snd.rec.high_rxt",
    "snd.rec.prr",
    "snd.rec.rescue_rxt",
    "snd.undo.undo",
    "snd.undo.frto",
    "snd.undo.retrans",
    "snd.tlp",
    "snd.nagle",
    "snd.limited_transmit",
    "snd.idle_restart",
    "snd.last_data_sent",
    "snd.paced_sent",
    "snd.go_back_in_packets",
    "stats.bytes_acked",
    "stats.bytes_accepted",
    "timers.at.tlp",
];

/// The delayed-ACK timer at the receiver (`handle_timeout`: the receiver's and the sender's
/// timers are looked at, and the sender's timeout count against the limit).
const DELAYED_ACK_TIMER: &[&str] = &[
    "snd.now",
    "snd.consecutive_timeouts",
    "rcv.ack_now",
    "timers.at.delayed_ack",
    "timers.at.tlp",
    "timers.at.persist",
    "timers.at.pacing",
    "timers.at.rack",
];

fn lines(offsets: &BTreeMap<String, usize>, lists: &[&[&str]]) -> BTreeSet<usize> {
    lists
        .iter()
        .flat_map(|l| l.iter())
        .map(|f| {
            offsets
                .get(*f)
                .unwrap_or_else(|| panic!("no offset for {f}"))
                / 64
        })
        .collect()
}

/// The bounds are the counts when the hot block was made (issue 40, eleventh session;
/// docs/validation_speed_issue40_sessions9to11.md); the layout before it touched 24, 25 and 18
/// lines of the connection for these three events.
#[test]
fn each_common_event_touches_few_lines_of_its_connection() {
    assert_eq!(
        std::mem::align_of::<Connection>(),
        64,
        "lines are counted from a line start"
    );
    // A driver's `Option<Connection>` keeps its `None` in the first field with the largest
    // niche, which is this `Option`'s widened tag: first, on the event queue's line, which
    // every call touches (a field before it with as large a niche would move the test to its
    // line).
    assert_eq!(offset_of!(Connection, blocked_since), 0);
    let o = offsets();
    let data = lines(
        &o,
        &[EVERY_CALL, SEGMENT_SENT, SEGMENT_RECEIVED, DATA_AT_RECEIVER],
    );
    let ack = lines(
        &o,
        &[
            EVERY_CALL,
            SEGMENT_SENT,
            SEGMENT_RECEIVED,
            NEW_ACK_AT_SENDER,
        ],
    );
    let timer = lines(&o, &[EVERY_CALL, SEGMENT_SENT, DELAYED_ACK_TIMER]);
    println!(
        "data segment at the receiver: {} lines {data:?}",
        data.len()
    );
    println!("ACK of new data at the sender: {} lines {ack:?}", ack.len());
    println!("delayed-ACK timer: {} lines {timer:?}", timer.len());
    assert!(data.len() <= 16, "a data segment touches lines {data:?}");
    assert!(ack.len() <= 23, "an ACK touches lines {ack:?}");
    assert!(
        timer.len() <= 15,
        "a delayed-ACK timer touches lines {timer:?}"
    );
}
