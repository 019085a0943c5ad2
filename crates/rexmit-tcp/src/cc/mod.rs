//! Congestion control behind one trait (in the style of quinn-proto's `congestion::Controller`).
//!
//! Owns: cwnd and ssthresh arithmetic of each algorithm (slow start, congestion avoidance,
//! multiplicative decrease, the loss window after a timeout). Does not own: loss detection or
//! the window inflation/deflation of fast recovery — the `recovery` module sets the window
//! explicitly through `set_window` while a recovery episode lasts.

mod aimd;
mod bbr;
mod bbr_lt;
mod cubic;
pub mod highspeed;
pub mod hystart;
mod minmax;
mod reno;
pub mod scalable;
mod westwood;

pub use aimd::{Aimd, Law};
pub use bbr::{Bbr, Mode as BbrMode};
pub use cubic::Cubic;
pub use reno::reno;
pub use westwood::Westwood;

use crate::delivery_rate::RateSample;
use rexmit_time::{Duration, Time};
use rexmit_transport::window;

/// The loss-recovery state an ACK leaves the sender in (Linux's ca_state as BBR reads it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaState {
    Open,
    /// Fast recovery (duplicate ACKs, SACK or RACK).
    Recovery,
    /// Recovery after a retransmission timeout.
    Loss,
}

/// What a rate-based controller (BBR) learns from one ACK, after loss recovery handled it.
#[derive(Clone, Copy, Debug)]
pub struct RateAck {
    pub now: Time,
    pub rs: RateSample,
    /// Bytes delivered on the connection so far (C.delivered).
    pub delivered: u64,
    /// Bytes in flight after the ACK (pipe).
    pub in_flight: u64,
    /// Segments this ACK newly marked lost (Linux rs->losses).
    pub losses: u64,
    /// Segments marked lost on the connection so far, by ACKs, the RACK reordering timer and
    /// timeouts alike (Linux tp->lost).
    pub lost_total: u64,
    pub ca_state: CaState,
    pub srtt: Option<Duration>,
}

/// What an ACK tells the controller.
#[derive(Clone, Copy, Debug)]
pub struct AckSample {
    pub now: Time,
    /// Bytes newly acknowledged cumulatively by this ACK.
    pub acked: u64,
    /// Bytes this ACK reports as having left the network (cumulative + newly SACKed, or one
    /// SMSS for a duplicate ACK without SACK). Bandwidth estimators use it.
    pub delivered: u64,
    pub srtt: Option<Duration>,
    pub min_rtt: Option<Duration>,
    /// The RTT this ACK measured (timestamp echo, else its newest never-retransmitted
    /// segment), if any.
    pub rtt: Option<Duration>,
    /// snd_una after the ACK and snd_nxt (round boundaries for HyStart).
    pub snd_una: u64,
    pub snd_nxt: u64,
}

/// A congestion controller. All quantities are bytes.
pub trait CongestionControl: std::fmt::Debug + Send {
    /// New data was cumulatively acknowledged outside loss recovery: grow the window.
    fn on_ack(&mut self, ack: &AckSample);
    /// Every ACK (inside or outside recovery), for estimators such as Westwood+.
    fn on_delivery(&mut self, _ack: &AckSample) {}
    /// Loss detected by duplicate ACKs, SACK or RACK (RFC 5681 §3.2 step 2): set ssthresh and
    /// reduce cwnd to it. Fast-recovery window inflation is applied by the caller afterwards.
    fn on_congestion_event(&mut self, now: Time, flight_size: u64);
    /// Retransmission timeout: the congestion-event decrease for ssthresh, then cwnd = the loss
    /// window LW = 1 SMSS (RFC 5681 §3.1 eq. 4 and after; RFC 9438 §4.8 for CUBIC).
    fn on_timeout(&mut self, now: Time, flight_size: u64) {
        self.on_congestion_event(now, flight_size);
        let w = self.window_state_mut();
        w.cwnd = w.smss;
        w.ca_credit = 0.0;
    }
    /// The shared cwnd/ssthresh state.
    fn window_state(&self) -> &Window;
    fn window_state_mut(&mut self) -> &mut Window;
    fn window(&self) -> u64 {
        self.window_state().cwnd
    }
    fn ssthresh(&self) -> u64 {
        self.window_state().ssthresh
    }
    /// Explicit window change by loss recovery (inflation, deflation, exit).
    fn set_window(&mut self, cwnd: u64) {
        self.window_state_mut().cwnd = cwnd;
    }
    /// Whether the sender should keep delivery-rate samples and call `on_rate_ack`.
    fn wants_rate_samples(&self) -> bool {
        false
    }
    /// The handshake completed with these RTT estimates.
    fn on_connected(&mut self, _srtt: Option<Duration>, _min_rtt: Option<Duration>) {}
    /// A timeout is about to be reported (`on_timeout`): segments marked lost on the
    /// connection so far, those the timeout declares lost included (Linux tp->lost).
    fn on_lost_total(&mut self, _lost_total: u64) {}
    /// Every ACK, after loss recovery has processed it (only if `wants_rate_samples`).
    fn on_rate_ack(&mut self, _ack: &RateAck) {}
    /// Pace transmissions at this many bytes per second; `None`: send as the window allows.
    fn pacing_rate(&self) -> Option<u64> {
        None
    }
    fn name(&self) -> &'static str;
}

/// The cwnd/ssthresh pair and the slow-start rule all controllers share.
#[derive(Clone, Debug)]
pub struct Window {
    pub cwnd: u64,
    pub ssthresh: u64,
    pub smss: u64,
    /// Fractional congestion-avoidance increase carried between ACKs, in bytes.
    pub ca_credit: f64,
    /// Count acknowledged bytes in congestion avoidance (RFC 3465 §2.1) instead of ACKs
    /// (RFC 5681 §3.1 eq. 3: cwnd += SMSS·SMSS/cwnd per ACK). With delayed ACKs, ACK counting
    /// grows cwnd by half a segment per RTT; ns-2 and ns-3 count ACKs.
    pub byte_counting: bool,
    /// cwnd and ssthresh in whole segments (`WindowUnit::Segments`, Linux): a decrease rounds
    /// down to a whole SMSS.
    pub whole_segments: bool,
    /// Slow start grows cwnd by at most this many bytes per ACK (RFC 3465 §2.2 L; RFC 5681
    /// §3.1: one SMSS). Linux's tcp_slow_start has no limit (u64::MAX).
    pub slow_start_limit: u64,
}

impl Window {
    pub fn new(initial_cwnd: u64, initial_ssthresh: u64, smss: u64) -> Self {
        Window {
            cwnd: initial_cwnd,
            ssthresh: initial_ssthresh,
            smss,
            ca_credit: 0.0,
            byte_counting: false,
            whole_segments: false,
            slow_start_limit: smss,
        }
    }

    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// RFC 5681 §3.1 slow start with appropriate byte counting limited to L (RFC 3465 §2.2;
    /// 1 SMSS unless `slow_start_limit` says otherwise). Returns the part of `acked` not used
    /// by slow start: none with the RFC's L; with no limit (Linux) what goes past ssthresh.
    pub fn slow_start(&mut self, acked: u64) -> u64 {
        if !self.in_slow_start() {
            return acked;
        }
        if self.slow_start_limit == self.smss {
            self.cwnd += window::slow_start_increase(acked, self.smss);
            return 0;
        }
        // Linux tcp_slow_start: cwnd = min(cwnd + acked, ssthresh), the rest to avoidance.
        let inc = acked.min(self.slow_start_limit);
        let new = (self.cwnd + inc).min(self.ssthresh.max(self.cwnd));
        let used = new - self.cwnd;
        self.cwnd = new;
        acked - used
    }

    /// Congestion avoidance: `segments_per_rtt` SMSS per cwnd of acknowledged data (seed 003
    /// a(cwnd)). Without byte counting an ACK counts as at most one SMSS (RFC 5681 §3.1 eq. 3);
    /// with it, every acknowledged byte counts (RFC 3465 §2.1, allowed by RFC 5681 §3.1).
    pub fn avoid(&mut self, acked: u64, segments_per_rtt: f64) {
        if acked == 0 {
            return;
        }
        let acked = if self.byte_counting {
            acked
        } else {
            acked.min(self.smss)
        };
        self.ca_credit += segments_per_rtt * acked as f64;
        let cwnd = self.cwnd.max(1) as f64;
        if self.ca_credit >= cwnd {
            let inc = (self.ca_credit / cwnd).floor();
            self.cwnd += inc as u64 * self.smss;
            self.ca_credit -= inc * cwnd;
        }
    }

    /// ssthresh = max(factor · FlightSize, 2·SMSS) and cwnd = ssthresh (RFC 5681 §3.1 eq. 4
    /// with factor 1/2; seed 003 uses factor 1 − b). In whole segments (Linux) the product
    /// of the whole segments in `flight_size` and `factor` is rounded down.
    pub fn decrease(&mut self, flight_size: u64, factor: f64) {
        self.ssthresh = if self.whole_segments {
            window::decrease_segments(flight_size, factor, self.smss, 2)
        } else {
            window::decrease(flight_size, factor, 2 * self.smss)
        };
        self.cwnd = self.ssthresh;
        self.ca_credit = 0.0;
    }
}

rexmit_options::choices! {
    /// The controllers `TcpConfig` can select.
    pub enum CcAlgorithm {
        /// RFC 5681 AIMD: a = 1 segment per RTT, b = 1/2.
        Reno = "reno",
        /// Generalised AIMD of seed 003: increase `aimd_a` segments per RTT, decrease by
        /// fraction `aimd_b` (`TcpConfig`).
        Aimd = "aimd",
        /// Scalable TCP (Kelly 2003): a = 0.01 per ACK, b = 0.125.
        Scalable = "scalable",
        /// HighSpeed TCP, RFC 3649.
        HighSpeed = "highspeed",
        /// CUBIC, RFC 9438.
        Cubic = "cubic",
        /// Westwood+ (seed 001): ssthresh from the bandwidth estimate after a loss.
        Westwood = "westwood",
        /// BBR v1 as Linux's tcp_bbr (paces its transmissions).
        Bbr = "bbr",
    }
}

/// What a controller is built with besides its algorithm (from `TcpConfig`).
#[derive(Clone, Copy, Debug)]
pub struct CcParams {
    pub initial_cwnd: u64,
    pub initial_ssthresh: u64,
    pub smss: u64,
    pub byte_counting: bool,
    /// `WindowUnit::Segments`: decreases round down to whole segments.
    pub whole_segments: bool,
    pub slow_start_limit: u64,
    /// CUBIC: HyStart (`hystart.rs`).
    pub hystart: bool,
    /// CUBIC: α_cubic = 1 once W_est reaches cwnd_prior (RFC 9438 §4.3).
    pub cubic_alpha_switch: bool,
    /// AIMD: increase a segments per RTT, decrease by fraction b (seed 003).
    pub aimd_a: f64,
    pub aimd_b: f64,
}

impl CcAlgorithm {
    pub fn build(&self, p: &CcParams) -> Box<dyn CongestionControl> {
        let mut w = Window::new(p.initial_cwnd, p.initial_ssthresh, p.smss);
        w.byte_counting = p.byte_counting;
        w.whole_segments = p.whole_segments;
        w.slow_start_limit = p.slow_start_limit;
        match *self {
            CcAlgorithm::Reno => Box::new(reno(w)),
            CcAlgorithm::Aimd => Box::new(Aimd::new(
                w,
                Law::Constant {
                    a: p.aimd_a,
                    b: p.aimd_b,
                },
            )),
            CcAlgorithm::Scalable => Box::new(Aimd::new(w, Law::Scalable)),
            CcAlgorithm::HighSpeed => Box::new(Aimd::new(w, Law::HighSpeed)),
            CcAlgorithm::Cubic => Box::new(Cubic::with_options(w, p.hystart, p.cubic_alpha_switch)),
            CcAlgorithm::Westwood => Box::new(Westwood::new(w)),
            CcAlgorithm::Bbr => Box::new(Bbr::new(w)),
        }
    }
}

#[cfg(test)]
pub(crate) fn sample(now_ms: u64, acked: u64) -> AckSample {
    AckSample {
        now: Time::from_millis(now_ms),
        acked,
        delivered: acked,
        srtt: Some(Duration::from_millis(100)),
        min_rtt: Some(Duration::from_millis(100)),
        rtt: Some(Duration::from_millis(100)),
        snd_una: 0,
        snd_nxt: 0,
    }
}
