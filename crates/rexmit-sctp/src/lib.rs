//! SCTP (RFC 9260; RFC 4960's Max.Burst rule selectable) as a sans-IO association core, with
//! NR-SACK (draft-natarajan-tsvwg-sctp-nrsack, seed 000), multihoming and CMT (SFR, CUC,
//! RTX-SAME/ASAP/CWND/SSTHRESH, CMT-PF), and seed 004's thin-stream retransmission
//! modifications with FreeBSD EFR and RFC 5827 early retransmit for comparison (`thin`,
//! `ThinStreamConfig`, all off by default). Each destination's congestion control is RFC 9260
//! §7.2's (`cc`) or a controller of the registry TCP uses, named by `SctpConfig::cc`
//! (`controller`; docs/congestion_control.md, "SCTP").
//!
//! Owns: one association endpoint as a pure state machine (`Association`): it is fed packets
//! and timeouts with the current time and hands back packets, a next timeout and application
//! events. Does not own: sockets, links, clocks, random numbers or metrics integration; the
//! simulator's adapter drives it (see `Association` for the call pattern).
//!
//! CMT's delayed ack (DAC, Iyengar et al. §4.3; `CmtConfig::dac`) is implemented: the receiver
//! keeps delaying through cross-path reordering and reports the packets a SACK covers, the
//! sender counts that many miss indications (tests/cmt_dac.rs).
//!
//! Not implemented: INIT collisions and association restart, ERROR chunks (invalid stream, stale cookie:
//! the offending data is dropped silently), T5 shutdown guard, PR-SCTP, I-DATA, ADD-IP,
//! per-path MTUs, a partial delivery API (messages larger than the peer's receive buffer are
//! refused).
//!
//! ```
//! use rexmit_sctp::{Association, Event, SctpConfig};
//! use rexmit_time::{Duration, Time};
//! use rexmit_wire::Payload;
//! use std::net::Ipv4Addr;
//!
//! let (a_ip, b_ip) = (Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 0, 2));
//! let cfg = SctpConfig { nr_sack: true, ..SctpConfig::default() };
//! cfg.validate().unwrap();
//! let mut a = Association::connect(cfg.clone(), vec![a_ip], 5000, vec![b_ip], 6000, 0x1111, 1, Time::ZERO);
//! let mut b = Association::listen(cfg, vec![b_ip], 6000, 0x2222, 1);
//! a.send(Time::ZERO, 0, Payload::zeros(3000), false).unwrap(); // queued until established
//! // A loss-free, zero-delay network, time advancing 100 ms per round (the delayed SACK
//! // timer needs 200 ms). `handle_timeout` is harmless when nothing is due.
//! let mut now = Time::ZERO;
//! for _ in 0..5 {
//!     a.handle_timeout(now);
//!     b.handle_timeout(now);
//!     while let Some(t) = a.poll_transmit(now) { b.handle_packet(now, t.src, t.dst, &t.packet); }
//!     while let Some(t) = b.poll_transmit(now) { a.handle_packet(now, t.src, t.dst, &t.packet); }
//!     now += Duration::from_millis(100);
//! }
//! assert_eq!(a.poll_event(), Some(Event::Connected { nr_sack: true }));
//! let got: Vec<Event> = std::iter::from_fn(|| b.poll_event()).collect();
//! assert!(matches!(got[1], Event::MessageDelivered { msg: 0, .. }));
//! assert_eq!(a.rtx_queue_bytes(), 0);
//! ```

mod association;
pub mod burst;
pub mod cc;
pub mod cmt;
pub mod config;
pub mod controller;
pub mod event;
pub mod fragment;
#[doc(hidden)]
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
pub mod handshake;
pub mod path;
pub mod reassembly;
pub mod receiver_map;
pub mod rtx_queue;
pub mod sack_gen;
pub mod send_queue;
pub mod stats;
pub mod thin;
pub mod tsn;

pub use association::{Association, State as AssociationState};
pub use config::{
    BurstMitigation, CmtConfig, ConfigError, CwndBytes, CwndGrowth, MaxBurstRule, RackConfig,
    RenegePolicy, RtxPolicy, SctpConfig, T3Rtx, ThinStreamConfig,
};
pub use rexmit_transport::PersistFrom;

pub use event::{AbortReason, Event, SendError, Transmit};
pub use path::PathState;
#[doc(hidden)]
pub use rexmit_tcp::cc::registry::{CcName as __CcName, ParamMap as __ParamMap};
/// What the option tables' macros name through `$crate` (`config::sctp_option_table`).
#[doc(hidden)]
pub use rexmit_transport::{__Duration, RtoConfig as __RtoConfig};
pub use rtx_queue::TsnState;
pub use stats::{PathStats, RtxByCause, RtxCause, SctpStats};
