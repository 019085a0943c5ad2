//! TCP Vegas (Brakmo & Peterson 1995), the paper's rules: the same controller as
//! examples/plugins/vegas.py, line for line, so both give the same numbers (§3.2 congestion
//! avoidance on Diff = cwnd·(RTT − BaseRTT)/RTT segments queued; §3.3 slow start doubling every
//! other round trip until Diff exceeds gamma; a loss halves the window as Reno does).

use rexmit_tcp::cc::registry::{self, CcPlugin, ParamSpec};
use rexmit_tcp::cc::{AckSample, CcParams, CongestionControl, CongestionEvent, OwnWrite};
use std::sync::Arc;

#[derive(Debug)]
pub struct Vegas {
    cwnd: u64,
    ssthresh: u64,
    smss: u64,
    alpha: f64,
    beta: f64,
    gamma: f64,
    /// ns: the smallest RTT seen (BaseRTT), and this round trip's smallest.
    base_rtt: Option<u64>,
    round_rtt: Option<u64>,
    /// The round trip ends when snd_una passes this.
    round_end: u64,
    /// Slow start doubles every other round trip.
    double: bool,
}

impl CongestionControl for Vegas {
    fn window(&self) -> u64 {
        self.cwnd
    }
    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }
    fn name(&self) -> &str {
        "vegas_rs"
    }
    fn store_cwnd(&mut self, cwnd: u64, _: OwnWrite) {
        self.cwnd = cwnd;
    }
    fn store_ssthresh(&mut self, ssthresh: u64, _: OwnWrite) {
        self.ssthresh = ssthresh;
    }

    fn on_ack(&mut self, ack: &AckSample) {
        if let Some(r) = ack.rtt.map(|r| r.as_nanos()) {
            self.base_rtt = Some(self.base_rtt.map_or(r, |b| b.min(r)));
            self.round_rtt = Some(self.round_rtt.map_or(r, |b| b.min(r)));
        }
        let Some(rtt) = self.round_rtt.filter(|_| ack.snd_una >= self.round_end) else {
            if self.cwnd < self.ssthresh && self.double {
                self.cwnd += ack.acked.min(self.smss);
            }
            return;
        };
        // A round trip ended.
        self.round_rtt = None;
        self.round_end = ack.snd_nxt;
        let base = self.base_rtt.expect("set with round_rtt");
        let diff = (self.cwnd / self.smss) as f64 * (rtt - base) as f64 / rtt as f64;
        if self.cwnd < self.ssthresh {
            if diff > self.gamma {
                self.ssthresh = (self.cwnd - self.smss).max(2 * self.smss);
            }
            self.double = !self.double;
        } else if diff < self.alpha {
            self.cwnd += self.smss;
        } else if diff > self.beta {
            self.cwnd = (self.cwnd - self.smss).max(2 * self.smss);
        }
    }

    fn on_congestion_event(&mut self, ev: &CongestionEvent) {
        self.ssthresh = (ev.base / 2).max(2 * self.smss);
        self.cwnd = self.ssthresh;
    }
}

struct Plugin {
    params: Vec<ParamSpec>,
}

impl CcPlugin for Plugin {
    fn name(&self) -> &str {
        "vegas_rs"
    }
    fn doc(&self) -> &str {
        "TCP Vegas (Brakmo & Peterson 1995), the paper's rules"
    }
    fn params(&self) -> &[ParamSpec] {
        &self.params
    }
    fn build(&self, p: &CcParams, v: &[f64]) -> Box<dyn CongestionControl> {
        Box::new(Vegas {
            cwnd: p.initial_cwnd,
            ssthresh: p.initial_ssthresh,
            smss: p.smss,
            alpha: v[0],
            beta: v[1],
            gamma: v[2],
            base_rtt: None,
            round_rtt: None,
            round_end: 0,
            double: true,
        })
    }
}

/// The one registration line a plugin needs (before scenarios that name it are read).
pub fn register() {
    let params = vec![
        ParamSpec::new(
            "alpha",
            "segments queued below which cwnd grows",
            2.0,
            0.0,
            1000.0,
        ),
        ParamSpec::new(
            "beta",
            "segments queued above which cwnd shrinks",
            4.0,
            0.0,
            1000.0,
        ),
        ParamSpec::new(
            "gamma",
            "segments queued that end slow start",
            1.0,
            0.0,
            1000.0,
        ),
    ];
    registry::register(Arc::new(Plugin { params }), false).expect("vegas_rs is free");
}
