//! TCP as a sans-IO protocol core: a `Connection` takes segments and timer expiries in and
//! gives segments, timer deadlines and application events out. It never sees the engine, the
//! links or any random stream, so every behaviour is testable packet by packet.
//!
//! Modules, one concept each: `seq` (wrap-around), `send_buffer`, `sender`, `receiver`,
//! `reassembly`, `sack_scoreboard` (RFC 6675), `recovery` (Tahoe, Reno, NewReno, SACK, PRR),
//! `rack` (RFC 8985 RACK-TLP), `cc` (congestion controllers behind one trait; each owns its
//! window, the sender tells it events: docs/congestion_control.md), `connection` (RFC 9293
//! state machine). RTT estimation is `rexmit_transport::RttEstimator`, shared with
//! SCTP.
//!
//! ECN (RFC 3168 §6.1, DCTCP's echo of RFC 8257 §3.2) is `ecn`: the IP codepoint goes in
//! through `Connection::handle_segment_ecn` and out through `Connection::poll_transmit_ecn`.
//!
//! Not modelled: PAWS (RFC 7323 §5), urgent data, RACK-TLP and PRR with the non-SACK
//! variants (both need SACK here), SACK reneging by receivers (ours never renege), receiver
//! silly-window avoidance beyond announcing a reopened window.
//!
//! Driving two endpoints by hand (an adapter does the same with the engine's links and timers):
//!
//! ```
//! use rexmit_tcp::{Connection, Event, State, TcpConfig};
//! use rexmit_time::Time;
//!
//! let cfg = TcpConfig::default();
//! cfg.validate().unwrap();
//! let mut client = Connection::connect(cfg.clone(), 40_000, 80, 1, Time::ZERO);
//! let mut server = Connection::listen(cfg, 80, 7);
//! client.send(Time::ZERO, 10_000);
//! client.close(Time::ZERO);
//! let mut now = Time::ZERO;
//! let mut got = 0;
//! while server.state() != State::Closed {
//!     // A zero-delay, lossless "network": exchange segments until both sides are quiet.
//!     let mut busy = true;
//!     while busy {
//!         busy = false;
//!         while let Some(seg) = client.poll_transmit(now) {
//!             server.handle_segment(now, &seg);
//!             busy = true;
//!         }
//!         while let Some(seg) = server.poll_transmit(now) {
//!             client.handle_segment(now, &seg);
//!             busy = true;
//!         }
//!         while let Some(ev) = server.poll_event() {
//!             if ev == Event::PeerClosed {
//!                 server.close(now);
//!             }
//!         }
//!         got += server.recv(usize::MAX).len();
//!     }
//!     // Then advance to the earliest timer (delayed ACK, RTO, ...).
//!     let Some(t) = [client.poll_timeout(), server.poll_timeout()].into_iter().flatten().min() else { break };
//!     now = now.max(t);
//!     client.handle_timeout(now);
//!     server.handle_timeout(now);
//! }
//! assert_eq!(got, 10_000);
//! assert_eq!(client.state(), State::Closed); // its TIME-WAIT ran out as the last timer
//! assert_eq!(client.stats().bytes_acked, 10_000);
//! assert_eq!(client.stats().retransmits(), 0);
//! ```

/// `(name, offset)` of each named field of a struct, for the connection's layout test
/// (`connection::hot_block`); in each struct's own module, where its private fields are seen.
#[cfg(test)]
macro_rules! field_offsets {
    ($t:ty; $($f:ident),+ $(,)?) => {
        vec![$((stringify!($f), std::mem::offset_of!($t, $f))),+]
    };
}

pub mod cc;
pub mod config;
pub mod connection;
pub mod delivery_rate;
pub mod ecn;
pub mod fast_path;
#[doc(hidden)]
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
pub mod loss;
pub mod named;
mod payload_util;
pub mod profile;
/// RFC 8985 RACK-TLP, shared with SCTP (lives in `rexmit-transport`).
pub use rexmit_transport::rack;
pub mod rcv_autotune;
pub mod reassembly;
pub mod receiver;
pub mod recovery;
pub mod sack_scoreboard;
mod sacked_runs;
pub mod send_buffer;
pub mod sender;
pub mod seq;
pub mod shared_config;
pub mod stats;
pub mod timers;

pub use cc::{CcAlgorithm, CongestionControl, ControllerFactory};
pub use config::{
    ConfigError, DecreaseBase, EcnMode, IdleRestartRule, ReceiveWindow, RecoveryAlgorithm,
    RtoRearm, TcpConfig, WindowUnit,
};
pub use connection::{Connection, Event, State, TcpInfo};
pub use shared_config::SharedConfig;

/// What the option table's macro names through `$crate` (`config::tcp_option_table`).
#[doc(hidden)]
pub use rexmit_transport::{
    __Duration, RtoConfig as __RtoConfig, RtoEstimator as __RtoEstimator,
    DUP_THRESH as __DUP_THRESH,
};
pub use stats::{RecoveryEpisode, RetransmitCause, TcpStats};
