//! What the runner needs from a protocol core under test (`Proto`), implemented by
//! `tcp_host::TcpHost` over a `rexmit_tcp::Connection` and `sctp_host::SctpHost` over a
//! `rexmit_sctp::Association`: time, packets in and out with the script's relative numbering,
//! the socket operations, and the state variables assertions read.

use crate::ast::EventKind;
use crate::settings::{SetResult, Settings, SockVal};
use rexmit_time::Time;

/// A packet the core sent.
#[derive(Clone, Debug)]
pub enum Wire {
    /// A segment and the ECN field of its IP header.
    Tcp(rexmit_wire::TcpSegment, rexmit_wire::Ecn),
    Sctp(rexmit_sctp::Transmit),
}

/// What a socket operation found the connection in, for errno results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConnError {
    /// The peer reset (TCP RST, SCTP ABORT): ECONNRESET (ECONNREFUSED while connecting).
    Reset,
    /// Retransmissions gave up: ETIMEDOUT.
    TimedOut,
}

/// A protocol core driven by a script.
pub trait Proto {
    /// The core exists (after `listen` or `connect`).
    fn exists(&self) -> bool;
    /// Create a passive (listening) or active (connecting) core from `settings`.
    fn listen(&mut self, settings: &Settings) -> SetResult<()>;
    fn connect(&mut self, settings: &Settings, now: Time) -> SetResult<()>;
    /// The handshake completed (a listener has a connection to accept; a connect completed).
    fn established(&self) -> bool;
    fn error(&self) -> Option<ConnError>;
    /// Application writes `n` bytes (one message for SCTP); how many were taken, or an errno.
    fn write(&mut self, now: Time, n: usize) -> Result<usize, &'static str>;
    /// Up to `n` readable bytes; `None` when nothing is readable yet.
    fn read(&mut self, n: usize) -> Option<usize>;
    /// The peer finished sending (a read returns 0 once the data is read).
    fn peer_closed(&self) -> bool;
    fn close(&mut self, now: Time);
    /// A socket option's value now (`getsockopt`); `None` if unknown.
    fn sockopt(&self, name: &str) -> Option<SockVal>;

    fn poll_timeout(&self) -> Option<Time>;
    fn handle_timeout(&mut self, now: Time);
    /// Everything the core sends now, and the application events it raised.
    fn drain(&mut self, now: Time, out: &mut Vec<Wire>);
    /// Inject a `<` packet line. Errors are malformed scripts (a field that cannot be built).
    fn inject(&mut self, now: Time, pkt: &EventKind) -> Result<(), String>;

    /// Compare a `>` line with the packets matched to it so far (several for one multi-segment
    /// TCP line): `Err` says which field differs. Records the mappings later lines need
    /// (timestamps, SCTP tags, TSNs, cookies).
    fn check(&mut self, expected: &EventKind, got: &[Wire]) -> Result<(), String>;
    /// The line covers more than `got`: the next same-burst segment belongs to it (TSO).
    fn wants_more(&self, expected: &EventKind, got: &[Wire]) -> bool;
    /// A packet as a script line would write it, in the script's numbering.
    fn format(&self, w: &Wire) -> String;

    /// A state variable for assertions (`tcpi_snd_cwnd`, `sctpi_cwnd`, ...).
    fn var(&self, name: &str) -> Option<f64>;
}
