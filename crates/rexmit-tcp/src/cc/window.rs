//! The cwnd/ssthresh arithmetic the built-in controllers share: slow start, congestion
//! avoidance, the multiplicative decrease, the loss window after a timeout. A controller
//! written elsewhere (a plugin) keeps its window however it likes and need not use this.

use super::{CcParams, Timeout};
use rexmit_transport::window;

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

    /// The window a controller starts with: the initial cwnd and ssthresh, SMSS and the
    /// options of the arithmetic (byte counting, whole segments, slow-start limit).
    pub fn from_params(p: &CcParams) -> Self {
        let mut w = Window::new(p.initial_cwnd, p.initial_ssthresh, p.smss);
        w.byte_counting = p.byte_counting;
        w.whole_segments = p.whole_segments;
        w.slow_start_limit = p.slow_start_limit;
        w
    }

    /// cwnd in segments (fractional).
    pub fn segments(&self) -> f64 {
        self.cwnd as f64 / self.smss as f64
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

    /// RFC 5681 §3.1 growth: slow start, then what slow start left of `acked` in congestion
    /// avoidance at `segments_per_rtt` segments per RTT (1: Reno).
    pub fn grow(&mut self, acked: u64, segments_per_rtt: f64) {
        let rest = self.slow_start(acked);
        self.avoid(rest, segments_per_rtt);
    }

    /// ssthresh = max(factor · FlightSize, 2·SMSS) and cwnd = ssthresh (RFC 5681 §3.1 eq. 4
    /// with factor 1/2; seed 003 uses factor 1 − b). In whole segments (Linux) the product
    /// of the whole segments in `flight_size` and `factor` is rounded down.
    pub fn decrease(&mut self, flight_size: u64, factor: f64) {
        self.decrease_to(flight_size, factor, 2);
    }

    /// `decrease` with a floor of `min_segments` SMSS instead of 2 (LEDBAT's MIN_CWND).
    pub fn decrease_to(&mut self, flight_size: u64, factor: f64, min_segments: u64) {
        self.ssthresh = if self.whole_segments {
            window::decrease_segments(flight_size, factor, self.smss, min_segments)
        } else {
            window::decrease(flight_size, factor, min_segments * self.smss)
        };
        self.cwnd = self.ssthresh;
        self.ca_credit = 0.0;
    }

    /// After a timeout's decrease: cwnd = the loss window LW = 1 SMSS (RFC 5681 §3.1), and
    /// ssthresh as RFC 5681 §3.1 lets it stand (`Timeout::ssthresh_to_keep`).
    pub fn loss_window(&mut self, ev: &Timeout) {
        self.cwnd = self.smss;
        self.ca_credit = 0.0;
        self.ssthresh = ev.ssthresh_to_keep(self.ssthresh);
    }
}

/// The window accessors of a built-in controller whose `Window` is its field `w`.
macro_rules! window_in_field_w {
    () => {
        fn window(&self) -> u64 {
            self.w.cwnd
        }
        fn ssthresh(&self) -> u64 {
            self.w.ssthresh
        }
        fn store_cwnd(&mut self, cwnd: u64, _: $crate::cc::OwnWrite) {
            self.w.cwnd = cwnd;
        }
        fn store_ssthresh(&mut self, ssthresh: u64, _: $crate::cc::OwnWrite) {
            self.w.ssthresh = ssthresh;
        }
    };
}
pub(super) use window_in_field_w;

/// `on_recovery_start` / `on_recovery_end` of a controller that only needs to know whether a
/// loss-recovery episode is open (its field `in_recovery`).
macro_rules! recovery_flag_in_field {
    () => {
        fn on_recovery_start(&mut self, _ev: &$crate::cc::RecoveryStart) {
            self.in_recovery = true;
        }
        fn on_recovery_end(&mut self, _ev: &$crate::cc::RecoveryEnd) {
            self.in_recovery = false;
        }
    };
}
pub(super) use recovery_flag_in_field;
