//! Mechanisms that TCP and SCTP share exactly. Owns: RTT estimation and the retransmission
//! timeout value (`rtt`), RACK-TLP loss detection and its probe-timer policy (`rack`), the
//! loss-detection thresholds (`thresholds`: DupThresh, RFC 5827's ER_thresh) and the window
//! arithmetic both use (`window`). Does not own: what each protocol counts or sends, or its
//! timers (each protocol core decides those).

pub mod rack;
pub mod rtt;
pub mod thresholds;
pub mod window;

pub use rack::{PersistFrom, Rack};
pub use rtt::{RtoConfig, RtoEstimator, RttEstimator};

/// The duration type of the option tables (`$crate::__Duration` inside their macros).
#[doc(hidden)]
pub use rexmit_time::Duration as __Duration;
pub use thresholds::{early_retransmit_threshold, DUP_THRESH};
