//! Mechanisms that TCP and SCTP share exactly. Owns: RTT estimation and the retransmission
//! timeout value. Does not own: when the timer is armed (each protocol core decides that).

pub mod rtt;

pub use rtt::{RtoConfig, RttEstimator};
