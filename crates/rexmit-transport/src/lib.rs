//! Mechanisms that TCP and SCTP share exactly. Owns: RTT estimation, the retransmission
//! timeout value and RACK-TLP loss detection (`rack`).
//! Does not own: when timers are armed or what is sent (each protocol core decides that).

pub mod rack;
pub mod rtt;

pub use rack::Rack;
pub use rtt::{RtoConfig, RttEstimator};
