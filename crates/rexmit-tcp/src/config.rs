//! Every knob of a TCP endpoint, with RFC defaults, and its validation.

use crate::cc::CcAlgorithm;
use rexmit_time::Duration;
use rexmit_transport::RtoConfig;
use std::fmt;

/// When the retransmission timer is restarted besides RFC 6298 §5.1–5.3 (started when data
/// goes out with the timer off, restarted by every ACK of new data).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RtoRearm {
    /// RFC 6298 read literally: only ACKs of new data restart a running timer (ns-3's
    /// TcpSocketBase).
    NewAck,
    /// Also restart it when loss recovery begins, as the fast retransmission goes out (ns-2's
    /// agents reset their timer in `dupack_action`). RFC 6675 §6 leaves this latitude.
    FastRetransmit,
    /// As `FastRetransmit`, and also whenever the segment at SND.UNA is retransmitted again
    /// (Linux's tcp_xmit_retransmit_queue re-arms the timer when it resends the head of its
    /// retransmission queue, in recovery and after a timeout alike), so that a head whose
    /// retransmissions RACK keeps finding lost does not also time out.
    HeadRetransmit,
    /// RFC 6675 §6's conservative variant: restart it on every retransmission sent during
    /// loss recovery.
    EveryRetransmit,
}

/// What a congestion response halves (or multiplies by β): ssthresh at a fast retransmit or a
/// timeout. PRR's RecoverFS stays FlightSize (RFC 6937 §3) either way: with a RecoverFS far
/// below the data outstanding, PRR's proportional part would send more than it delivers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecreaseBase {
    /// FlightSize = SND.NXT − SND.UNA: RFC 5681 eq. (4), RFC 6675 §5 step (4.2). SACKed data
    /// counts, so after a long recovery that kept sending new data the
    /// next response starts from a FlightSize far above cwnd.
    FlightSize,
    /// The congestion window: Linux (`ssthresh` of tcp_reno/tcp_cubic from snd_cwnd) and ns-2
    /// (`window()`).
    Cwnd,
}

/// The unit of the congestion window (`TcpConfig::window_unit`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WindowUnit {
    /// Bytes, as RFC 5681 states the rules: a decrease can leave cwnd and ssthresh at a
    /// fraction of a segment (e.g. 3.5 SMSS from 7), and CUBIC's window grows byte by byte.
    Bytes,
    /// Whole segments, as Linux counts `snd_cwnd` and `snd_ssthresh` (packets): a decrease
    /// rounds down (`tcp_reno_ssthresh`: max(cwnd >> 1, 2); `cubictcp_recalc_ssthresh`:
    /// max(cwnd·717 >> 10, 2)), CUBIC's window grows a segment at a time, and PRR's
    /// proportional part rounds up to a whole segment (`tcp_cwnd_reduction`), and go-back-N
    /// after a timeout resends at most cwnd / SMSS segments ahead of the ACKs however small
    /// they are (`tcp_cwnd_test` counts packets). BBR's window stays in bytes either way.
    Segments,
}

/// How the receiver sizes the window it advertises (`TcpConfig::receive_window`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReceiveWindow {
    /// The free receive buffer (`recv_buffer` minus unread data), offered from the start.
    Buffer,
    /// Linux's autotuning: a window that starts below 64 KiB and grows with the data received
    /// (two segments per segment, the buffer resized once per RTT up to `recv_buffer`), with
    /// an immediate ACK for every segment while it grows and for the first 16
    /// (`crate::rcv_autotune`).
    LinuxAutotune,
}

/// Which loss-recovery algorithm the sender runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecoveryAlgorithm {
    /// Fast retransmit, then slow start from one segment (4.3BSD-Tahoe).
    Tahoe,
    /// RFC 5681 §3.2 fast retransmit / fast recovery.
    Reno,
    /// RFC 6582 NewReno: stay in fast recovery across partial ACKs.
    NewReno,
    /// RFC 6675 SACK-based conservative loss recovery (needs SACK to be negotiated; falls back
    /// to NewReno when the peer does not permit SACK).
    Sack,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TcpConfig {
    /// Our MSS, announced in the SYN (RFC 9293 §3.7.1). Payload per segment is this minus the
    /// per-segment option bytes (RFC 6691).
    pub mss: u16,
    /// Peer MSS assumed when the SYN carries none (RFC 9293 §3.7.1: 536).
    pub default_peer_mss: u16,
    /// Initial window in segments; 0 (the default) applies RFC 5681 §3.1 by SMSS: 2 above
    /// 2190 B, 3 above 1095 B, else 4. (RFC 6928 allows 10.)
    pub initial_cwnd_segments: u32,
    /// Initial ssthresh in bytes (RFC 5681 §3.1: arbitrarily high).
    pub initial_ssthresh: u64,
    pub recovery: RecoveryAlgorithm,
    pub cc: CcAlgorithm,
    /// Duplicate ACK threshold (RFC 5681 §3.2, RFC 6675 DupThresh).
    pub dup_thresh: u32,
    pub rto: RtoConfig,
    /// Extra restarts of the retransmission timer during loss recovery.
    pub rto_rearm: RtoRearm,
    /// What congestion responses decrease from (FlightSize by the RFCs; cwnd in Linux, ns-2).
    pub decrease_base: DecreaseBase,
    /// Bytes (the RFCs) or whole segments (Linux) for cwnd and ssthresh.
    pub window_unit: WindowUnit,
    /// Send buffer limit in bytes: unsent data plus the retransmission queue.
    pub send_buffer: usize,
    /// Receive buffer limit in bytes: unread in-order data plus the out-of-order queue.
    pub recv_buffer: usize,
    /// The advertised window: the free buffer, or Linux's autotuned one.
    pub receive_window: ReceiveWindow,
    pub sack: bool,
    /// RFC 2883 D-SACK generation (only when SACK is negotiated).
    pub dsack: bool,
    pub timestamps: bool,
    pub window_scaling: bool,
    /// Nagle's algorithm (RFC 9293 §3.7.4).
    pub nagle: bool,
    /// ACK once `ack_every` full-sized segments' worth of data is unacknowledged (RFC 5681
    /// §4.2: 2); 1 acknowledges every segment (no delayed ACKs).
    pub ack_every: u32,
    /// Delayed ACK timer (RFC 5681 §4.2: at most 500 ms; 200 ms is customary).
    pub delayed_ack_timeout: Duration,
    /// Immediate ACK for out-of-order segments and for segments filling a gap (RFC 5681 §4.2).
    pub immediate_ack_on_ooo: bool,
    /// RFC 8985 RACK-TLP loss detection (needs SACK and `RecoveryAlgorithm::Sack`).
    pub rack: bool,
    /// RFC 6937 proportional rate reduction during SACK recovery (`RecoveryAlgorithm::Sack`).
    pub prr: bool,
    /// Byte counting in congestion avoidance (RFC 3465 §2.1); off = RFC 5681 §3.1's per-ACK
    /// increase of SMSS·SMSS/cwnd, which ns-2 and ns-3 use.
    pub byte_counting: bool,
    /// Slow start grows cwnd by at most this many segments per ACK (RFC 3465 §2.2 L; RFC 5681
    /// §3.1: 1); 0: no limit, cwnd grows by all that is acknowledged (Linux tcp_slow_start).
    pub slow_start_limit_segments: u32,
    /// CUBIC only: HyStart slow-start exit as Linux runs it (`cc::hystart`).
    pub hystart: bool,
    /// CUBIC only: α_cubic = 1 once W_est reaches cwnd_prior (RFC 9438 §4.3; Linux: false).
    pub cubic_alpha_switch: bool,
    /// RFC 3042 limited transmit.
    pub limited_transmit: bool,
    /// RFC 5827 early retransmit (byte-based).
    pub early_retransmit: bool,
    /// Thin streams: do not back off the RTO while fewer than 4 segments are in flight.
    pub thin_linear_timeouts: bool,
    /// Thin streams: fast retransmit on the first duplicate ACK while fewer than 4 segments are
    /// in flight.
    pub thin_dupack: bool,
    /// Tahoe only: no new fast retransmit until the cumulative ACK passes `recover`, the data
    /// outstanding at the last one (RFC 6582 §3.2 step 1 and §4 applied to Tahoe). Off: Tahoe
    /// as in ns-3's TcpTahoe, which seed 001 ran: duplicate ACKs drawn by its own go-back-N
    /// resends trigger further fast retransmits, each restarting slow start.
    pub tahoe_recover_guard: bool,
    /// TIME-WAIT duration, 2·MSL (RFC 9293 §3.3.2; MSL = 2 minutes).
    pub time_wait: Duration,
    /// Consecutive retransmission timeouts (of SYN or data) after which the connection is
    /// abandoned (RFC 9293 §3.8.3 threshold R2; 15 as Linux's tcp_retries2).
    pub max_retransmissions: u32,
    /// A connection whose SYN (or SYN-ACK) is still unanswered at a retransmission timeout this
    /// long after it was first sent is abandoned (RFC 9293 §3.8.3 (2.c): R2 for a SYN is at
    /// least 3 minutes; default 180 s).
    pub syn_timeout: Duration,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            mss: 1460,
            default_peer_mss: 536,
            initial_cwnd_segments: 0,
            initial_ssthresh: u64::MAX / 2,
            recovery: RecoveryAlgorithm::Sack,
            cc: CcAlgorithm::Reno,
            dup_thresh: rexmit_transport::DUP_THRESH,
            rto: RtoConfig::tcp(),
            rto_rearm: RtoRearm::FastRetransmit,
            decrease_base: DecreaseBase::FlightSize,
            window_unit: WindowUnit::Bytes,
            send_buffer: 128 * 1024,
            recv_buffer: 128 * 1024,
            receive_window: ReceiveWindow::Buffer,
            sack: true,
            dsack: true,
            timestamps: false,
            window_scaling: true,
            nagle: false,
            ack_every: 2,
            delayed_ack_timeout: Duration::from_millis(200),
            immediate_ack_on_ooo: true,
            rack: false,
            prr: false,
            byte_counting: false,
            slow_start_limit_segments: 1,
            hystart: false,
            cubic_alpha_switch: true,
            limited_transmit: false,
            early_retransmit: false,
            thin_linear_timeouts: false,
            thin_dupack: false,
            tahoe_recover_guard: true,
            time_wait: Duration::from_secs(240),
            max_retransmissions: 15,
            syn_timeout: Duration::from_secs(180),
        }
    }
}

/// A configuration value outside its allowed range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    pub field: &'static str,
    pub allowed: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "tcp config field `{}` out of range: allowed {}",
            self.field, self.allowed
        )
    }
}

impl std::error::Error for ConfigError {}

fn check(ok: bool, field: &'static str, allowed: &str) -> Result<(), ConfigError> {
    if ok {
        Ok(())
    } else {
        Err(ConfigError {
            field,
            allowed: allowed.to_string(),
        })
    }
}

/// The largest additive increase of generalised AIMD (segments per RTT; seed 003's a).
pub const AIMD_A_MAX: f64 = 1000.0;

impl TcpConfig {
    /// Initial window in bytes for segment size `smss` (RFC 5681 §3.1 eq. 1 unless set).
    pub fn initial_window(&self, smss: u64) -> u64 {
        let segments = match self.initial_cwnd_segments {
            0 if smss > 2190 => 2,
            0 if smss > 1095 => 3,
            0 => 4,
            n => n as u64,
        };
        segments * smss
    }

    /// RFC 3465 L in bytes for segment size `smss` (u64::MAX: no limit).
    pub fn slow_start_limit(&self, smss: u64) -> u64 {
        match self.slow_start_limit_segments {
            0 => u64::MAX,
            n => n as u64 * smss,
        }
    }

    /// The window's unit in bytes for segment size `smss`: 1 or `smss` (`WindowUnit`).
    pub fn window_unit_bytes(&self, smss: u64) -> u64 {
        match self.window_unit {
            WindowUnit::Bytes => 1,
            WindowUnit::Segments => smss,
        }
    }

    /// The congestion controller for segment size `smss`.
    pub fn build_cc(&self, smss: u64) -> Box<dyn crate::cc::CongestionControl> {
        self.cc.build(&self.cc_params(smss))
    }

    /// What a congestion controller for segment size `smss` is built with.
    pub fn cc_params(&self, smss: u64) -> crate::cc::CcParams {
        crate::cc::CcParams {
            initial_cwnd: self.initial_window(smss),
            initial_ssthresh: self.initial_ssthresh,
            smss,
            byte_counting: self.byte_counting,
            whole_segments: self.window_unit == WindowUnit::Segments,
            slow_start_limit: self.slow_start_limit(smss),
            hystart: self.hystart,
            cubic_alpha_switch: self.cubic_alpha_switch,
        }
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        // 88 = 20 B of header room for 40 B options plus at least 48 B of data.
        check(self.mss >= 88, "mss", "88..=65535")?;
        check(
            self.default_peer_mss >= 88,
            "default_peer_mss",
            "88..=65535",
        )?;
        check(
            self.initial_cwnd_segments <= 1000,
            "initial_cwnd_segments",
            "0..=1000 (0: RFC 5681 rule)",
        )?;
        check(
            self.initial_ssthresh >= 2 * self.mss as u64,
            "initial_ssthresh",
            ">= 2 * mss",
        )?;
        check(
            (1..=1000).contains(&self.dup_thresh),
            "dup_thresh",
            "1..=1000",
        )?;
        if let Some((field, allowed, _)) = self.rto.invalid() {
            check(false, field, allowed)?;
        }
        check(
            self.send_buffer >= self.mss as usize,
            "send_buffer",
            ">= mss",
        )?;
        check(
            self.recv_buffer >= self.mss as usize && self.recv_buffer <= (1 << 30),
            "recv_buffer",
            "mss..=2^30",
        )?;
        check(
            self.window_scaling || self.recv_buffer <= 65_535,
            "recv_buffer",
            "<= 65535 without window_scaling",
        )?;
        check((1..=64).contains(&self.ack_every), "ack_every", "1..=64")?;
        check(
            self.max_retransmissions >= 3,
            "max_retransmissions",
            ">= 3 (RFC 9293 §3.8.3 R1)",
        )?;
        check(
            self.delayed_ack_timeout <= Duration::from_millis(500),
            "delayed_ack_timeout",
            "0..=500 ms (RFC 5681 §4.2)",
        )?;
        check(
            !self.rack || (self.sack && self.recovery == RecoveryAlgorithm::Sack),
            "rack",
            "false unless sack = true and recovery = \"sack\"",
        )?;
        check(
            !self.prr || self.recovery == RecoveryAlgorithm::Sack,
            "prr",
            "false unless recovery = \"sack\"",
        )?;
        check(
            !self.hystart || self.cc == CcAlgorithm::Cubic,
            "hystart",
            "false unless cc = Cubic",
        )?;
        if let crate::cc::CcAlgorithm::Aimd { a, b } = self.cc {
            check(
                a.is_finite() && a > 0.0 && a <= AIMD_A_MAX,
                "cc.a",
                "(0, 1000]",
            )?;
            check(b.is_finite() && b > 0.0 && b < 1.0, "cc.b", "(0, 1)")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc5681_initial_window_by_segment_size() {
        let c = TcpConfig::default();
        assert_eq!(c.initial_window(1460), 3 * 1460);
        assert_eq!(c.initial_window(1000), 4 * 1000);
        assert_eq!(c.initial_window(4000), 2 * 4000);
        let c = TcpConfig {
            initial_cwnd_segments: 10,
            ..c
        };
        assert_eq!(c.initial_window(1460), 14_600);
    }

    #[test]
    fn default_is_valid_and_errors_name_the_field() {
        assert_eq!(TcpConfig::default().validate(), Ok(()));
        let bad = TcpConfig {
            ack_every: 0,
            ..TcpConfig::default()
        };
        assert_eq!(bad.validate().unwrap_err().field, "ack_every");
        let bad = TcpConfig {
            cc: CcAlgorithm::Aimd { a: 1.0, b: 1.5 },
            ..TcpConfig::default()
        };
        assert_eq!(bad.validate().unwrap_err().field, "cc.b");
        let bad = TcpConfig {
            recv_buffer: 1 << 20,
            window_scaling: false,
            ..TcpConfig::default()
        };
        assert_eq!(bad.validate().unwrap_err().field, "recv_buffer");
    }
}
