//! Time series sampled at a fixed interval.

use crate::ids::{AgentId, ChannelId};
use rexmit_time::{Duration, Time};

#[derive(Clone, Debug, PartialEq)]
pub enum SeriesSource {
    QueuePackets(ChannelId),
    QueueBytes(ChannelId),
    /// Cumulative drops (queue overflow, early and error) of a channel.
    Drops(ChannelId),
    /// A value an agent exposes through `Agent::probe`.
    AgentProbe(AgentId, String),
}

#[derive(Clone, Debug)]
pub struct Series {
    pub name: String,
    pub source: SeriesSource,
    pub interval: Duration,
    pub t_ns: Vec<u64>,
    pub values: Vec<f64>,
}

impl Series {
    pub(crate) fn new(name: &str, source: SeriesSource, interval: Duration) -> Self {
        Series {
            name: name.to_string(),
            source,
            interval,
            t_ns: Vec::new(),
            values: Vec::new(),
        }
    }
    pub(crate) fn push(&mut self, t: Time, v: f64) {
        self.t_ns.push(t.as_nanos());
        self.values.push(v);
    }
}
