//! The discrete-event engine: simulated clock, event queues, named seeded random streams and the
//! guarded run loop.
//!
//! Owns: ordering of events (by time, ties broken by scheduling order, so runs are deterministic),
//! randomness (every draw comes from a stream named by the model that uses it), and stopping
//! (stop time, event-count, wall-time and memory guards, interruption). Does not own: what an event means.

pub mod memory;
pub mod paced;
pub mod queue;
pub mod radix;
pub mod rng;
pub mod run;

pub use paced::{Pacer, Waited};
pub use queue::{CalendarQueue, EventQueue, HeapQueue};
pub use radix::RadixQueue;
pub use rexmit_time::{Duration, Rate, Time};
pub use rng::{RngStream, StreamFactory};
pub use run::{
    poke_progress, Progress, RunError, RunLimits, RunOutcome, Scheduler, StopReason, TieOrder,
};
