//! Network models: nodes with one or more interfaces, point-to-point links (rate, propagation
//! delay, serialization, output queue, error and reordering models), static routing, topology
//! builders, the agent interface, UDP applications, pcap taps, and the simulation loop that ties
//! them to the engine.
//!
//! Does not own: transport protocols (sans-IO cores live in their own crates and reach the
//! network through `Agent` adapters), or scenario parsing.

pub mod agent;
pub mod apps;
pub mod channel;
pub mod error_model;
mod fast_map;
pub mod ids;
pub mod network;
pub mod packet;
mod pcap_tap;
pub mod queue;
mod routing;
mod scripted;
pub mod series;
pub mod sim;
pub mod topology;
mod way;
pub mod witness;

pub use agent::{Agent, Ctx, Metrics};
pub use channel::{ChannelStats, LinkOptions, LinkParams};
pub use error_model::{
    BurstSize, ErrorModelConfig, Fate, ReorderConfig, ScriptSelect, ScriptedValue,
};
pub use network::{AgentId, BuildError, ChannelId, IfaceId, Network, NodeId, NodeStats};
pub use packet::{DstOwner, FlowKey, FlowMatch, Packet};
pub use queue::{
    Aqm, AqmConfig, AqmKind, AredConfig, CodelConfig, FqCodelConfig, PieConfig, QueueConfig,
    QueueDiscipline, QueueLimit, QueueStats, RedParams,
};
/// The duration type of the queues' option tables (`$crate::__Duration` inside their macros).
#[doc(hidden)]
pub use rexmit_time::Duration as __Duration;
pub use series::{Series, SeriesSource};
pub use sim::{SetupError, Simulation};
