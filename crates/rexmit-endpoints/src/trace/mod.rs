//! The opt-in per-flow event record (`[[metrics.trace]]`): what one flow's sender put on the
//! wire, what acknowledgements it received and how its state changed, for time-sequence graphs
//! and state plots (`rexmit plot`).
//!
//! Owns: the four tables of a traced flow and their column meanings. Does not own: protocol
//! decisions (the cores only answer read-only questions: counters, windows, a queue entry) or
//! file formats (Python writes the Parquet files). An untraced flow's adapter holds `None`
//! and pays one branch per packet.
//!
//! Sequence numbers are relative, as Wireshark shows them and as scripted drops count: TCP's
//! first data byte is 1 (the SYN is 0), SCTP's first DATA chunk is TSN 1. Ranges are half-open
//! (`start` .. `end`): a TCP segment's bytes, an SCTP chunk's one TSN, a SACK or gap block.
//!
//! Tables (every column an unsigned integer; Python adds `t_s`, `rto_s` and `srtt_s`):
//! - `trace_sent`: `t_ns`, `start`, `end`, `cause` (`Cause`: 0 new data, else why it was sent
//!   again), `path` (SCTP destination index, 0 for TCP).
//! - `trace_acks`: `t_ns`, `cum` (first unacknowledged: TCP's ACK number, SCTP's cum TSN ack
//!   + 1), `rwnd` (bytes), `path` (SCTP: the destination the SACK came from).
//! - `trace_blocks`: `t_ns`, `kind` (`BlockKind`), `start`, `end`.
//! - `trace_state`: `t_ns`, `path`, `cwnd`, `ssthresh` (saturated at 2^62 while "infinite"),
//!   `flight`, `pipe` (TCP: RFC 6675 pipe during loss recovery, where RFC 6675 §5 uses it, else
//!   FlightSize, which spares a scan of the scoreboard per packet; SCTP: the path's flight),
//!   `rtxq_bytes`, `rto_ns`,
//!   `srtt_ns` (0 before the first sample), `recovery` (1 in fast recovery: TCP's loss-recovery
//!   episode; SCTP's per destination under CMT, else the association's), `timeouts` (cumulative;
//!   SCTP: the path's T3-rtx expiries). A row is written only when one of them changed.

pub mod sctp;
pub mod tcp;

use crate::latency::{FlowTable, Tables};
use rexmit_time::Time;
use std::cell::RefCell;
use std::rc::Rc;

pub use sctp::SctpTrace;
pub use tcp::TcpTrace;

/// Why a segment or chunk was sent (`trace_sent.cause`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Cause {
    New = 0,
    FastRetransmit = 1,
    Timeout = 2,
    Rack = 3,
    /// Tail loss probe resending the last segment (RFC 8985 §7.3).
    Tlp = 4,
    /// RFC 6675 NextSeg (4) rescue retransmission.
    Rescue = 5,
    ThinFastRetransmit = 6,
    EarlyRetransmit = 7,
    EarlyFastRetransmit = 8,
    Reneged = 9,
    /// A tail loss probe that carried new data (RFC 8985 §7.3).
    TlpNewData = 10,
}

/// Kinds of acknowledged ranges (`trace_blocks.kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum BlockKind {
    Sack = 1,
    /// RFC 2883 duplicate-SACK block.
    Dsack = 2,
    /// SCTP gap ack block (RFC 9260 §3.3.4).
    Gap = 3,
    /// SCTP non-renegable gap ack block (NR-SACK).
    NrGap = 4,
}

/// At most this many rows per table and flow; past it the trace stops and says so.
pub const MAX_ROWS: usize = 20_000_000;

/// Columns of one table, filled row by row.
#[derive(Debug)]
struct Cols<const N: usize> {
    names: [&'static str; N],
    data: [Vec<u64>; N],
}

impl<const N: usize> Cols<N> {
    fn new(names: [&'static str; N]) -> Self {
        Cols {
            names,
            data: std::array::from_fn(|_| Vec::new()),
        }
    }
    fn len(&self) -> usize {
        self.data[0].len()
    }
    fn push(&mut self, row: [u64; N]) {
        for (c, v) in self.data.iter_mut().zip(row) {
            c.push(v);
        }
    }
    /// The rows as a result table, moved out (the record is read once, after the run).
    fn take(&mut self, table: &'static str) -> FlowTable {
        let data = std::mem::replace(&mut self.data, std::array::from_fn(|_| Vec::new()));
        FlowTable {
            table,
            columns: self.names.iter().copied().zip(data).collect(),
        }
    }
}

/// The state columns of `trace_state` after `t_ns` and `path`.
pub type StateRow = [u64; 9];

/// Everything recorded for one flow, within its time window.
#[derive(Debug)]
pub struct FlowTrace {
    from: Time,
    to: Option<Time>,
    sent: Cols<5>,
    acks: Cols<4>,
    blocks: Cols<4>,
    state: Cols<11>,
    /// The last state row written per path, to write changes only.
    last_state: Vec<Option<StateRow>>,
    truncated: bool,
}

/// Shared between the sending adapter (which records) and the results (which read it).
pub type TraceRef = Rc<RefCell<FlowTrace>>;

impl FlowTrace {
    /// Record events at `from` ≤ t < `to` (no end when `to` is `None`).
    pub fn new(from: Time, to: Option<Time>) -> Self {
        FlowTrace {
            from,
            to,
            sent: Cols::new(["t_ns", "start", "end", "cause", "path"]),
            acks: Cols::new(["t_ns", "cum", "rwnd", "path"]),
            blocks: Cols::new(["t_ns", "kind", "start", "end"]),
            state: Cols::new([
                "t_ns",
                "path",
                "cwnd",
                "ssthresh",
                "flight",
                "pipe",
                "rtxq_bytes",
                "rto_ns",
                "srtt_ns",
                "recovery",
                "timeouts",
            ]),
            last_state: Vec::new(),
            truncated: false,
        }
    }

    pub fn shared(from: Time, to: Option<Time>) -> TraceRef {
        Rc::new(RefCell::new(Self::new(from, to)))
    }

    /// Inside the window and below the row limit.
    fn records(&mut self, now: Time) -> bool {
        if now < self.from || self.to.is_some_and(|t| now >= t) {
            return false;
        }
        let full = [
            self.sent.len(),
            self.acks.len(),
            self.blocks.len(),
            self.state.len(),
        ]
        .into_iter()
        .any(|n| n >= MAX_ROWS);
        self.truncated |= full;
        !full
    }

    fn sent(&mut self, now: Time, start: u64, end: u64, cause: Cause, path: usize) {
        if self.records(now) {
            self.sent
                .push([now.as_nanos(), start, end, cause as u64, path as u64]);
        }
    }

    fn ack(&mut self, now: Time, cum: u64, rwnd: u64, path: usize) {
        if self.records(now) {
            self.acks.push([now.as_nanos(), cum, rwnd, path as u64]);
        }
    }

    fn block(&mut self, now: Time, kind: BlockKind, start: u64, end: u64) {
        if self.records(now) {
            self.blocks.push([now.as_nanos(), kind as u64, start, end]);
        }
    }

    /// Write `row` for `path` if it differs from the last one written.
    fn state(&mut self, now: Time, path: usize, row: StateRow) {
        if self.last_state.len() <= path {
            self.last_state.resize(path + 1, None);
        }
        if self.last_state[path] == Some(row) || !self.records(now) {
            return;
        }
        self.last_state[path] = Some(row);
        let mut full = [0u64; 11];
        full[0] = now.as_nanos();
        full[1] = path as u64;
        full[2..].copy_from_slice(&row);
        self.state.push(full);
    }

    /// Rows recorded: (sent, acks, blocks, state).
    pub fn rows(&self) -> (usize, usize, usize, usize) {
        (
            self.sent.len(),
            self.acks.len(),
            self.blocks.len(),
            self.state.len(),
        )
    }

    /// The `cause` column of `trace_sent`, for tests.
    pub fn sent_rows(&self) -> impl Iterator<Item = (u64, u64, u64, u64)> + '_ {
        let d = &self.sent.data;
        (0..self.sent.len()).map(move |i| (d[0][i], d[1][i], d[2][i], d[3][i]))
    }
}

/// Saturate "infinite" values (an initial ssthresh of u64::MAX) so that they survive a float.
fn sat(v: u64) -> u64 {
    v.min(1 << 62)
}

impl Tables for TraceRef {
    /// Moves the rows out: a second call finds the tables empty.
    fn tables(&self) -> Vec<FlowTable> {
        let mut t = self.borrow_mut();
        vec![
            t.sent.take("trace_sent"),
            t.acks.take("trace_acks"),
            t.blocks.take("trace_blocks"),
            t.state.take("trace_state"),
        ]
    }

    fn warnings(&self) -> Vec<String> {
        if self.borrow().truncated {
            vec![format!(
                "the trace stopped after {MAX_ROWS} rows of one table: trace a shorter window (from/to)"
            )]
        } else {
            Vec::new()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rexmit_time::Duration;

    #[test]
    fn records_only_inside_the_window_and_state_only_on_change() {
        let t0 = Time::ZERO + Duration::from_millis(10);
        let mut tr = FlowTrace::new(t0, Some(t0 + Duration::from_millis(10)));
        tr.sent(Time::ZERO, 1, 11, Cause::New, 0);
        tr.sent(t0, 11, 21, Cause::Timeout, 0);
        tr.sent(t0 + Duration::from_millis(10), 21, 31, Cause::New, 0);
        assert_eq!(
            tr.sent_rows().collect::<Vec<_>>(),
            [(t0.as_nanos(), 11, 21, 2)]
        );
        let row = [1, 2, 3, 4, 5, 6, 7, 0, 0];
        tr.state(t0, 1, row);
        tr.state(t0, 1, row);
        tr.state(t0, 0, row);
        assert_eq!(tr.rows().3, 2);
    }
}
