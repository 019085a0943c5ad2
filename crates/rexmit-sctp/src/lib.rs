//! SCTP (RFC 9260, with RFC 4960 behaviour selectable) as a sans-IO association core, with
//! NR-SACK (draft-natarajan-tsvwg-sctp-nrsack, seed 000), multihoming and CMT.
//!
//! Owns: one association endpoint as a pure state machine (`Association`): it is fed packets
//! and timeouts with the current time and hands back packets, a next timeout and application
//! events. Does not own: sockets, links, clocks, random numbers or metrics integration; the
//! simulator's adapter drives it (see `Association` for the call pattern).

mod association;
pub mod cc;
pub mod cmt;
pub mod config;
pub mod event;
pub mod fragment;
pub mod handshake;
pub mod path;
pub mod reassembly;
pub mod receiver_map;
pub mod rtx_queue;
pub mod sack_gen;
pub mod send_queue;
pub mod stats;
pub mod tsn;

pub use association::Association;
pub use config::{CmtConfig, ConfigError, RenegePolicy, RfcVariant, RtxPolicy, SctpConfig};
pub use event::{AbortReason, Event, SendError, Transmit};
pub use path::PathState;
pub use rtx_queue::TsnState;
pub use stats::{PathStats, SctpStats};
