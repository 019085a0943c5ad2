//! FreeBSD's SCTP stack, as the usrsctp library packages it, hosted as simulation agents in
//! virtual time (issue 39): real FreeBSD endpoints on simulated nodes, packets crossing the
//! simulated links as IPv4+SCTP bytes, beside rexmit's own SCTP core.
//!
//! Owns: loading the library at run time (`library`, so a build without it works; a run that
//! needs it says how to install it), the hand-written C declarations (`ffi`), the redirection
//! of the library's clock, random source, interface list and IPv4 output to the simulation
//! (`redirect`, `inet`), the process-wide stack taken by one run at a time (`stack`), sockets
//! (`socket`), the mapping of rexmit's SCTP options (`config`, `apply`), the wire conversion
//! (`wire`), and the agents (`agent`, `association`, `metrics`). Does not own: protocol
//! behaviour (it is FreeBSD's), scenario parsing (the scenario builder calls
//! `UsrsctpConfig::from_sctp` and `association::place`).
//!
//! Addressing inside the stack: the nodes' IPv4 addresses and the app's port, through internal
//! functions of usrsctp 0.9.5 (`inet`), so the stack computes as on an IPv4 host (its MTU
//! includes the IPv4 header) and is multihomed as FreeBSD is. usrsctp's public AF_CONN API
//! (one opaque address per path, ports of the stack's own, renamed to the app's on the wire;
//! its MTU excludes any IP header) remains for single-homed associations, chosen by
//! `AssociationSpec::addressing` or when IPv4 hosting is unavailable: AF_CONN associations
//! cannot have two paths.
//!
//! Reproducibility: the stack's timers run on simulated milliseconds, its gettimeofday reads
//! simulated time and its random source is seeded by the run; the stack is finished after each
//! run and initialised afresh, so a run repeats bit for bit, in one process or another.
//!
//! ```no_run
//! use rexmit_usrsctp::{association, StackRun, UsrsctpConfig};
//! # fn f(sim: &mut rexmit_net::Simulation, spec_paths: Vec<(std::net::Ipv4Addr, std::net::Ipv4Addr)>,
//! #      app: rexmit_endpoints::sctp::SctpApp, cfg: &rexmit_sctp::SctpConfig) -> Result<(), Box<dyn std::error::Error>> {
//! let run = StackRun::open(42)?; // one per simulation; the seed makes its randomness
//! let placed = association::place(&run, association::AssociationSpec {
//!     cfg: UsrsctpConfig::from_sctp(cfg, ["nr_sack"])?,
//!     app,
//!     port: 49152,
//!     paths: spec_paths,
//!     primary: 0,
//!     measure_from: rexmit_time::Time::ZERO,
//!     addressing: None,
//! })?;
//! # let (from, to) = (rexmit_net::NodeId(0), rexmit_net::NodeId(1));
//! sim.add_agent("rcv", to, Some((132, 49152)), rexmit_time::Time::ZERO, Box::new(placed.receiver))?;
//! sim.add_agent("snd", from, Some((132, 49152)), rexmit_time::Time::ZERO, Box::new(placed.sender))?;
//! # Ok(()) }
//! ```

pub mod agent;
mod apply;
pub mod association;
pub mod config;
pub mod error;
pub mod ffi;
mod inet;
mod lease;
pub mod library;
mod outbox;
mod redirect;
pub mod socket;
pub mod stack;
pub mod wire;

pub use agent::UsrsctpAgent;
pub use config::{BufferSplitting, Counterpart, OptionError, StackWide, UsrsctpConfig, OPTIONS};
pub use library::{available, LoadError};
pub use stack::{StackError, StackRun};
