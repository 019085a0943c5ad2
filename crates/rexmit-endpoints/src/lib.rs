//! Adapters between the network simulation and the sans-IO protocol cores.
//!
//! Each adapter is an `Agent` that owns one protocol endpoint (a `rexmit_tcp::Connection` or a
//! `rexmit_sctp::Association`) and the application on top of it. It feeds the core packets and
//! timer expiries with the current time, sends what the core emits, and arms the core's next
//! deadline. The cores never see the engine.
//!
//! Ground truth lives here, not in the cores: the receiving adapter sees every data segment that
//! arrives, so it knows which retransmissions were spurious (their data had already arrived),
//! and the sending adapter sees every segment or chunk its endpoint emits, so it knows how many
//! retransmissions each message needed (`latency.rs`).
//!
//! Traces (`trace`): the opt-in per-flow event record of a sender, for `rexmit plot`.
//!
//! Applications: bulk senders, message sources (`messages.rs`) over SCTP and TCP, and HTTP
//! request/response cross traffic over TCP (`http.rs`).

pub mod http;
pub mod latency;
pub mod messages;
pub mod ppid;
pub mod sctp;
pub mod tcp;
pub mod timer;
pub mod trace;
pub mod truth;

#[doc(hidden)]
#[cfg(feature = "testbeds")]
pub mod testbeds;
