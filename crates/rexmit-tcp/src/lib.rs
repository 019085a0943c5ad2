//! TCP as a sans-IO protocol core: a `Connection` takes segments and timer expiries in and
//! gives segments, timer deadlines and application events out. It never sees the engine, the
//! links or any random stream, so every behaviour is testable packet by packet.
//!
//! Modules, one concept each: `seq` (wrap-around), `send_buffer`, `sender`, `receiver`,
//! `reassembly`, `sack_scoreboard` (RFC 6675), `recovery` (Tahoe, Reno, NewReno, SACK),
//! `cc` (congestion controllers behind one trait), `connection` (RFC 9293 state machine).
//! RTT estimation is `rexmit_transport::RttEstimator`, shared with SCTP.

pub mod cc;
pub mod config;
pub mod connection;
mod payload_util;
pub mod rack;
pub mod reassembly;
pub mod receiver;
pub mod recovery;
pub mod sack_scoreboard;
pub mod send_buffer;
pub mod sender;
pub mod seq;
pub mod stats;

pub use cc::{CcAlgorithm, CongestionControl};
pub use config::{ConfigError, RecoveryAlgorithm, TcpConfig};
pub use connection::{Connection, Event, State};
pub use stats::{RecoveryEpisode, RetransmitCause, TcpStats};
