//! Every knob of a TCP endpoint, declared once in `tcp_option_table` with its RFC default, the
//! Linux profile's value, unit and allowed range; the struct, its `Default`, the Linux values,
//! the range checks and the option list are derived from it (crate `rexmit-options`).

use crate::cc::CcAlgorithm;

rexmit_options::choices! {
    /// When the retransmission timer is restarted besides RFC 6298 §5.1–5.3 (started when data
    /// goes out with the timer off, restarted by every ACK of new data).
    pub enum RtoRearm {
        /// RFC 6298 read literally: only ACKs of new data restart a running timer (ns-3's
        /// TcpSocketBase).
        NewAck = "new_ack",
        /// Also restart it when loss recovery begins, as the fast retransmission goes out (ns-2's
        /// agents reset their timer in `dupack_action`). RFC 6675 §6 leaves this latitude.
        FastRetransmit = "fast_retransmit",
        /// RFC 6675 §6's conservative variant: restart it on every retransmission sent during
        /// loss recovery.
        EveryRetransmit = "every_retransmit",
        /// As `FastRetransmit`, and also whenever the segment at SND.UNA is retransmitted again
        /// (Linux's tcp_xmit_retransmit_queue re-arms the timer when it resends the head of its
        /// retransmission queue, in recovery and after a timeout alike), so that a head whose
        /// retransmissions RACK keeps finding lost does not also time out.
        HeadRetransmit = "head_retransmit",
    }
}

rexmit_options::choices! {
    /// What a congestion response halves (or multiplies by β): ssthresh at a fast retransmit or a
    /// timeout. PRR's RecoverFS stays FlightSize (RFC 6937 §3) either way: with a RecoverFS far
    /// below the data outstanding, PRR's proportional part would send more than it delivers.
    pub enum DecreaseBase {
        /// FlightSize = SND.NXT − SND.UNA: RFC 5681 eq. (4), RFC 6675 §5 step (4.2). SACKed data
        /// counts, so after a long recovery that kept sending new data the
        /// next response starts from a FlightSize far above cwnd.
        FlightSize = "flight_size",
        /// The congestion window: Linux (`ssthresh` of tcp_reno/tcp_cubic from snd_cwnd) and ns-2
        /// (`window()`).
        Cwnd = "cwnd",
    }
}

rexmit_options::choices! {
    /// The unit of the congestion window (`TcpConfig::window_unit`).
    pub enum WindowUnit {
        /// Bytes, as RFC 5681 states the rules: a decrease can leave cwnd and ssthresh at a
        /// fraction of a segment (e.g. 3.5 SMSS from 7), and CUBIC's window grows byte by byte.
        Bytes = "bytes",
        /// Whole segments, as Linux counts `snd_cwnd` and `snd_ssthresh` (packets): a decrease
        /// rounds down (`tcp_reno_ssthresh`: max(cwnd >> 1, 2); `cubictcp_recalc_ssthresh`:
        /// max(cwnd·717 >> 10, 2)), CUBIC's window grows a segment at a time, and PRR's
        /// proportional part rounds up to a whole segment (`tcp_cwnd_reduction`), and go-back-N
        /// after a timeout resends at most cwnd / SMSS segments ahead of the ACKs however small
        /// they are (`tcp_cwnd_test` counts packets). BBR's window stays in bytes either way.
        Segments = "segments",
    }
}

rexmit_options::choices! {
    /// The window after an idle period (`TcpConfig::idle_restart`).
    pub enum IdleRestartRule {
        /// cwnd is kept however long the connection was idle.
        Off = "off",
        /// RFC 5681 §4.1: cwnd = min(cwnd, RW), RW = min(IW, cwnd).
        Rfc5681 = "rfc5681",
        /// Linux tcp_cwnd_restart: ssthresh = max(ssthresh, 3/4 cwnd), then cwnd halved for
        /// every full RTO of idleness while above RW, never below RW.
        Linux = "linux",
    }
}

rexmit_options::choices! {
    /// How the receiver sizes the window it advertises (`TcpConfig::receive_window`).
    pub enum ReceiveWindow {
        /// The free receive buffer (`recv_buffer` minus unread data), offered from the start.
        Buffer = "buffer",
        /// Linux's autotuning: a window that starts below 64 KiB and grows with the data received
        /// (two segments per segment, the buffer resized once per RTT up to `recv_buffer`), with
        /// an immediate ACK for every segment while it grows and for the first 16
        /// (`crate::rcv_autotune`).
        LinuxAutotune = "linux",
    }
}

rexmit_options::choices! {
    /// Whether a connection uses ECN (RFC 3168 §6.1; `TcpConfig::ecn`).
    pub enum EcnMode {
        /// Not ECN-capable: never offered, and a peer's offer is declined.
        Off = "off",
        /// Offer ECN in the SYN, and accept the peer's offer (RFC 3168 §6.1.1).
        On = "on",
        /// Accept the peer's offer but never offer it: Linux's default (net.ipv4.tcp_ecn = 2).
        Accept = "accept",
    }
}

rexmit_options::choices! {
    /// Which loss-recovery algorithm the sender runs.
    pub enum RecoveryAlgorithm {
        /// Fast retransmit, then slow start from one segment (4.3BSD-Tahoe).
        Tahoe = "tahoe",
        /// RFC 5681 §3.2 fast retransmit / fast recovery.
        Reno = "reno",
        /// RFC 6582 NewReno: stay in fast recovery across partial ACKs.
        NewReno = "newreno",
        /// RFC 6675 SACK-based conservative loss recovery (needs SACK to be negotiated; falls back
        /// to NewReno when the peer does not permit SACK).
        Sack = "sack",
    }
}

/// The TCP option table: every knob of a TCP endpoint, declared once (crate `rexmit-options`):
/// its type, RFC default, the Linux profile's value where it differs (Linux 6.x as far as rexmit
/// models it; what the kernel does that rexmit does not is in docs/validation_linux.md), unit and
/// allowed range. `public` options are set by scenarios (`tcp = { ... }`, same names, same
/// order); `internal` ones only by code. Checks relating two options: `Relations for TcpConfig`.
#[macro_export]
macro_rules! tcp_option_table {
    ($generator:path { $($head:tt)* }) => { $generator! { $($head)* ;
    public {
        /// The loss-recovery algorithm.
        opt recovery: $crate::RecoveryAlgorithm = $crate::RecoveryAlgorithm::Sack, unit = choice;
        /// The congestion controller: a built-in or a registered plugin, by name
        /// (docs/congestion_control.md; Linux: net.ipv4.tcp_congestion_control = cubic).
        opt cc: $crate::cc::registry::CcName = $crate::cc::registry::CcName::new("reno"),
            linux = $crate::cc::registry::CcName::new("cubic"), unit = controller,
            relation = "a registered controller";
        /// The controller's parameters, e.g. { a = 2, b = 0.125 } for "aimd"; each controller
        /// declares its own with their defaults and ranges (docs/congestion_control.md).
        opt cc_params: $crate::cc::registry::ParamMap = $crate::cc::registry::ParamMap::default(),
            unit = params, relation = "the parameters cc declares, each in its range";
        /// The loss-detection policy: DupThresh and RACK's reordering window as functions of
        /// the sender's state (`loss::LossPolicy`; "rfc": RFC 5681/6675/5827 and RFC 8985
        /// §6.2), a built-in or a registered plugin, by name (docs/plugins.md).
        opt loss: $crate::named::PluginName = $crate::named::PluginName::new("rfc"),
            unit = policy, relation = "a registered loss-detection policy";
        /// The loss-detection policy's parameters; each policy declares its own.
        opt loss_params: $crate::named::ParamMap = $crate::named::ParamMap::default(),
            unit = params, relation = "the parameters loss declares, each in its range";
        /// Our MSS, announced in the SYN (RFC 9293 §3.7.1). Payload per segment is this minus the
        /// per-segment option bytes (RFC 6691). 88 = 20 B of header room for 40 B options plus
        /// at least 48 B of data.
        opt mss: u16 = 1460, unit = size, check = *mss >= 88 => "88..=65535";
        /// Initial window in segments; 0 applies RFC 5681 §3.1 by SMSS: 2 above 2190 B, 3 above
        /// 1095 B, else 4. (RFC 6928 allows 10: Linux's TCP_INIT_CWND.)
        opt initial_cwnd_segments: u32 = 0, linux = 10, unit = segments,
            check = *initial_cwnd_segments <= 1000 => "0..=1000 (0: RFC 5681 rule)";
        /// Initial ssthresh (RFC 5681 §3.1: arbitrarily high).
        opt initial_ssthresh: u64 = u64::MAX / 2, unit = bytes, relation = ">= 2 * mss";
        /// Duplicate ACK threshold (RFC 5681 §3.2, RFC 6675 DupThresh).
        opt dup_thresh: u32 = $crate::__DUP_THRESH, unit = segments,
            check = (1..=1000).contains(dup_thresh) => "1..=1000";
        /// Linux's adaptive reordering degree (tp->reordering): the duplicate threshold rises
        /// to the largest reordering seen, in segments (data never retransmitted first
        /// acknowledged below the highest SACKed segment), up to `max_reordering`; a timeout
        /// before recovery with dup_thresh segments SACKed brings it back (sender/reordering.rs).
        opt adaptive_reordering: bool = false, linux = true, unit = flag;
        /// Ceiling of the adaptive degree (Linux net.ipv4.tcp_max_reordering).
        opt max_reordering: u32 = 300, unit = segments,
            check = (1..=100_000).contains(max_reordering) => "1..=100000";
        /// RTO bounds and estimator (RFC 6298). Linux: TCP_RTO_MIN 200 ms, TCP_TIMEOUT_INIT 1 s,
        /// TCP_RTO_MAX 120 s and its estimator (tcp_rtt_estimator: RTO = srtt + the round's
        /// largest 4·mdev, at least rto_min); G as rto_min gives the RFC estimator the same floor.
        table rto: $crate::__RtoConfig = $crate::__RtoConfig::tcp(),
            linux = $crate::__RtoConfig {
                initial: $crate::__Duration::from_secs(1),
                min: $crate::__Duration::from_millis(200),
                max: $crate::__Duration::from_secs(120),
                granularity: $crate::__Duration::from_millis(200),
                estimator: $crate::__RtoEstimator::Linux,
            }, unit = table;
        /// Extra restarts of the retransmission timer in loss recovery: "new_ack" (RFC 6298 only,
        /// as ns-3), "fast_retransmit" (as ns-2), "head_retransmit" (also at every resend of the
        /// segment at SND.UNA, as Linux's tcp_xmit_retransmit_queue), "every_retransmit"
        /// (RFC 6675 §6's conservative variant).
        opt rto_rearm: $crate::RtoRearm = $crate::RtoRearm::FastRetransmit,
            linux = $crate::RtoRearm::HeadRetransmit, unit = choice;
        /// What a congestion response decreases from: FlightSize (RFC 5681 eq. 4, RFC 6675,
        /// RFC 6937) or cwnd (Linux's tcp_reno_ssthresh and cubictcp_recalc_ssthresh, ns-2;
        /// docs/validation_linux.md).
        opt decrease_base: $crate::DecreaseBase = $crate::DecreaseBase::FlightSize,
            linux = $crate::DecreaseBase::Cwnd, unit = choice;
        /// Bytes (the RFCs) or whole segments (Linux counts snd_cwnd and snd_ssthresh in
        /// packets: decreases round down, PRR rounds up to a segment) for cwnd and ssthresh.
        opt window_unit: $crate::WindowUnit = $crate::WindowUnit::Bytes,
            linux = $crate::WindowUnit::Segments, unit = choice;
        /// The advertised window: the free buffer from the start, or Linux's autotuned one
        /// (below 64 KiB at first, growing with the data received up to recv_buffer, an ACK per
        /// segment while it grows; docs/validation_linux.md).
        opt receive_window: $crate::ReceiveWindow = $crate::ReceiveWindow::Buffer,
            linux = $crate::ReceiveWindow::LinuxAutotune, unit = choice;
        /// Send buffer limit: unsent data plus the retransmission queue. (Linux autotunes it up
        /// to tcp_wmem[2] = 4 MiB, Debian's default; rexmit offers it from the start.)
        opt send_buffer: usize = 128 * 1024, linux = 4 << 20, unit = bytes,
            relation = ">= mss";
        /// Receive buffer limit: unread in-order data plus the out-of-order queue (Linux: up to
        /// tcp_rmem[2] = 6 MiB).
        opt recv_buffer: usize = 128 * 1024, linux = 6 << 20, unit = bytes,
            relation = "mss..=2^30; <= 65535 without window_scaling";
        /// RFC 2018 selective acknowledgements, offered in the SYN.
        opt sack: bool = true, unit = flag;
        /// RFC 2883 D-SACK generation (only when SACK is negotiated).
        opt dsack: bool = true, unit = flag;
        /// RFC 7323 timestamps.
        opt timestamps: bool = false, linux = true, unit = flag;
        /// RFC 7323 window scaling.
        opt window_scaling: bool = true, unit = flag;
        /// Nagle's algorithm (RFC 9293 §3.7.4).
        opt nagle: bool = false, linux = true, unit = flag;
        /// ACK once this many full-sized segments' worth of data is unacknowledged (RFC 5681
        /// §4.2: 2); 1 acknowledges every segment (no delayed ACKs).
        opt ack_every: u32 = 2, unit = segments, check = (1..=64).contains(ack_every) => "1..=64";
        /// Delayed ACK timer (RFC 5681 §4.2: at most 500 ms; 200 ms is customary; Linux:
        /// TCP_DELACK_MIN 40 ms).
        opt delayed_ack_timeout: $crate::__Duration = $crate::__Duration::from_millis(200),
            linux = $crate::__Duration::from_millis(40), unit = time,
            check = *delayed_ack_timeout <= $crate::__Duration::from_millis(500)
                => "0..=500 ms (RFC 5681 §4.2)";
        /// Immediate ACK for out-of-order segments and for segments filling a gap (RFC 5681 §4.2).
        opt immediate_ack_on_ooo: bool = true, unit = flag;
        /// Byte counting in congestion avoidance (RFC 3465 §2.1); off = RFC 5681 §3.1's per-ACK
        /// increase of SMSS·SMSS/cwnd, which ns-2 and ns-3 use (Linux's tcp_cong_avoid_ai counts
        /// acknowledged packets).
        opt byte_counting: bool = false, linux = true, unit = flag;
        /// RFC 8985 §6 RACK loss detection (needs SACK and recovery = "sack"; Linux:
        /// tcp_recovery = 1, since 6.17 its only loss detection). Without it RFC 6675 marks
        /// losses (IsLost) and counts pipe.
        opt rack: bool = false, linux = true, unit = flag,
            relation = "false unless sack = true and recovery = \"sack\"";
        /// Retransmission marks per segment (Linux's TCPCB_SACKED_RETRANS, ns-3.44's m_retrans):
        /// RFC 6675's NextSeg passes over a segment retransmitted since the last timeout and
        /// SetPipe counts it twice, where RFC 6675 compares with HighRxt, which restarts at
        /// HighACK with each recovery; so a segment retransmitted in one episode and still in
        /// flight when the next begins is not resent. A timeout, or RACK finding the
        /// retransmission lost, clears the mark.
        opt rtx_marks: bool = false, unit = flag;
        /// RFC 8985 §7 tail loss probe, with or without RACK (needs SACK and recovery = "sack";
        /// Linux: tcp_early_retrans = 3). Without RACK the probe's ACK is read by RFC 6675.
        opt tlp: bool = false, linux = true, unit = flag,
            relation = "false unless sack = true and recovery = \"sack\"";
        /// Undo a window reduction found spurious: every retransmission since it reported
        /// duplicate by D-SACK (RFC 3708 detection), or with timestamps an ACK echoing one older
        /// than the first retransmission (RFC 3522 Eifel detection); cwnd and ssthresh return
        /// to their values before it (the controller's on_undo; RFC 4015's response). Linux
        /// always undoes (tcp_try_undo_recovery, _dsack, _loss).
        opt undo: bool = false, linux = true, unit = flag;
        /// RFC 5682 F-RTO after a retransmission timeout, SACK-enhanced (§3; Linux tcp_frto =
        /// 2): on the ACK that advances SND.UNA new data goes instead of retransmissions, and an
        /// ACK for data sent before the timeout and never retransmitted undoes it.
        opt frto: bool = false, linux = true, unit = flag,
            relation = "false unless sack = true and recovery = \"sack\"";
        /// With undo or F-RTO: the ssthresh an undo restores is at least 3/4 of the cwnd before
        /// the reduction (Linux records prior_ssthresh = tcp_current_ssthresh, max(ssthresh,
        /// cwnd/2 + cwnd/4) in packets, and tcp_undo_cwnd_reduction raises ssthresh to it).

        opt undo_ssthresh_floor: bool = false, linux = true, unit = flag;
        /// Restart after idle: before sending after no data was sent for more than an RTO
        /// with nothing outstanding, cwnd comes down (RFC 5681 §4.1: to RW = min(IW, cwnd);
        /// Linux tcp_slow_start_after_idle = 1, tcp_cwnd_restart: halved once per RTO of
        /// idleness, not below RW, with ssthresh raised to 3/4 of the old cwnd), through the
        /// controller's on_idle_restart.
        opt idle_restart: $crate::IdleRestartRule = $crate::IdleRestartRule::Off,
            linux = $crate::IdleRestartRule::Linux, unit = choice;
        /// The window grows only while the flow is cwnd-limited (RFC 7661 §4.3's rule that an
        /// unused window is not validated; Linux tcp_is_cwnd_limited): cwnd was full in the
        /// current window of data, or, in slow start, cwnd < 2 × the most data outstanding in
        /// it. Off: every ACK of new data may grow cwnd (RFC 5681).
        opt cwnd_limited_growth: bool = false, linux = true, unit = flag;
        /// RFC 6937 proportional rate reduction during SACK recovery (recovery = "sack").
        opt prr: bool = false, linux = true, unit = flag,
            relation = "false unless recovery = \"sack\"";
        /// RFC 3042 limited transmit. Linux counts SACKed segments out of flight, so every
        /// duplicate ACK with a new SACK block lets a new segment go before recovery starts:
        /// limited transmit does that for the first two (docs/validation_linux.md).
        opt limited_transmit: bool = false, linux = true, unit = flag;
        /// RFC 5827 early retransmit (byte-based).
        opt early_retransmit: bool = false, unit = flag;
        /// Thin streams: do not back off the RTO while fewer than 4 segments are in flight.
        opt thin_linear_timeouts: bool = false, unit = flag;
        /// Thin streams: fast retransmit on the first duplicate ACK while fewer than 4 segments
        /// are in flight.
        opt thin_dupack: bool = false, unit = flag;
        /// ECN (RFC 3168 §6.1): "on" offers it in the SYN (ECE and CWR) and accepts it in a
        /// SYN-ACK (ECE); "accept" only accepts a peer's offer (Linux's default, tcp_ecn = 2);
        /// once negotiated, new data goes out ECT(0), the receiver echoes CE marks with ECE and
        /// the sender halves its window at most once per window of data. cc = "dctcp" needs
        /// "on" (RFC 8257 §3) and echoes every mark (§3.2).
        opt ecn: $crate::EcnMode = $crate::EcnMode::Off, linux = $crate::EcnMode::Accept,
            unit = choice, relation = "\"on\" with a controller that needs ECN (cc = \"dctcp\")";
        /// Tahoe only: no new fast retransmit until the cumulative ACK passes `recover`, the data
        /// outstanding at the last one (RFC 6582 §3.2 step 1 and §4 applied to Tahoe). Off: Tahoe
        /// as in ns-3's TcpTahoe, which seed 001 ran: duplicate ACKs drawn by its own go-back-N
        /// resends trigger further fast retransmits, each restarting slow start.
        opt tahoe_recover_guard: bool = true, unit = flag;
        /// CUBIC (and plugins that follow it): HyStart slow-start exit as Linux runs it
        /// (`cc::hystart`; tcp_cubic.c hystart=1).
        opt hystart: bool = false, linux = true, unit = flag,
            relation = "false unless cc = \"cubic\" or a plugin controller";
        /// Which of HyStart's two detectors end slow start (Linux's tcp_cubic module parameter
        /// hystart_detect): 1 the ACK train, 2 the delay increase, 3 both (Linux's default).
        opt hystart_detect: u8 = 3, unit = count,
            check = (1..=3).contains(hystart_detect) => "1..=3 (1 ACK train, 2 delay increase, 3 both)";
        /// CUBIC only: α_cubic = 1 once W_est reaches cwnd_prior (RFC 9438 §4.3). Linux's
        /// Reno-friendly estimate grows by 3(1 − β)/(1 + β) per RTT throughout.
        opt cubic_alpha_switch: bool = true, linux = false, unit = flag;
        /// CUBIC only: the time t of W_cubic(t) leaves out idle periods: when data goes out
        /// with nothing outstanding, the epoch's start moves forward by the time since the last
        /// data segment (RFC 9438 §5.8: t must not include periods in which cwnd was not
        /// updated for application-limited behaviour, such as idle periods; Linux's
        /// CA_EVENT_TX_START in tcp_cubic). Off: the curve runs on through idleness, so cwnd
        /// jumps along it when sending resumes.
        opt cubic_idle_epoch: bool = false, linux = true, unit = flag;
        /// Slow start grows cwnd by at most this many segments per ACK (RFC 3465 §2.2 L; RFC 5681
        /// §3.1: 1); 0: no limit, cwnd grows by all that is acknowledged (Linux tcp_slow_start).
        opt slow_start_limit_segments: u32 = 1, linux = 0, unit = segments;
        /// Pace every controller that sets no pacing rate of its own (BBR does) at Linux's
        /// sk_pacing_rate: 2·cwnd/SRTT while cwnd < ssthresh/2, 1.2·cwnd/SRTT after
        /// (tcp_update_pacing_rate; `cc::Paced`). Linux paces so under the fq qdisc.
        opt pacing: bool = false, unit = flag;
    }
    internal {
        /// Peer MSS assumed when the SYN carries none (RFC 9293 §3.7.1: 536).
        opt default_peer_mss: u16 = 536, unit = size,
            check = *default_peer_mss >= 88 => "88..=65535";
        /// TIME-WAIT duration, 2·MSL (RFC 9293 §3.3.2; MSL = 2 minutes).
        opt time_wait: $crate::__Duration = $crate::__Duration::from_secs(240), unit = time;
        /// Consecutive retransmission timeouts (of SYN or data) after which the connection is
        /// abandoned (RFC 9293 §3.8.3 threshold R2; 15 as Linux's tcp_retries2).
        opt max_retransmissions: u32 = 15, unit = count,
            check = *max_retransmissions >= 3 => ">= 3 (RFC 9293 §3.8.3 R1)";
        /// A connection whose SYN (or SYN-ACK) is still unanswered at a retransmission timeout
        /// this long after it was first sent is abandoned (RFC 9293 §3.8.3 (2.c): R2 for a SYN is
        /// at least 3 minutes; Linux: tcp_syn_retries = 6, the 7th SYN timeout 1 + 2 + ... + 64 s
        /// after the SYN).
        opt syn_timeout: $crate::__Duration = $crate::__Duration::from_secs(180),
            linux = $crate::__Duration::from_secs(127), unit = time;
    }
    } };
}

tcp_option_table!(rexmit_options::config_table {
    #[derive(Clone, Debug, PartialEq)]
    pub struct TcpConfig
});

/// A configuration value outside its allowed range (key, allowed range, value).
pub use rexmit_options::ConfigError;

/// The largest additive increase of generalised AIMD (segments per RTT; seed 003's a).
pub use crate::cc::AIMD_A_MAX;

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

    /// The congestion controller for segment size `smss`: `cc` from the registry, with
    /// `cc_params` (the configuration must have passed `validate`). A connection built from a
    /// `SharedConfig` skips the lookup (`SharedConfig::build_cc`).
    pub fn build_cc(&self, smss: u64) -> Box<dyn crate::cc::CongestionControl> {
        let (plugin, values) = self.resolve_cc();
        self.build_cc_with(plugin.as_ref(), &values, smss)
    }

    /// `cc` looked up and `cc_params` resolved (the configuration must have passed `validate`).
    pub(crate) fn resolve_cc(
        &self,
    ) -> (std::sync::Arc<dyn crate::cc::registry::CcPlugin>, Vec<f64>) {
        use crate::cc::registry;
        let plugin = registry::lookup(self.cc.as_str())
            .unwrap_or_else(|| panic!("cc {:?} is not registered (validate first)", self.cc));
        let values = registry::resolve(plugin.as_ref(), &self.cc_params)
            .unwrap_or_else(|e| panic!("cc_params refused (validate first): {e}"));
        (plugin, values)
    }

    /// A controller from `plugin` with its resolved `values`, paced if `pacing`.
    pub(crate) fn build_cc_with(
        &self,
        plugin: &dyn crate::cc::registry::CcPlugin,
        values: &[f64],
        smss: u64,
    ) -> Box<dyn crate::cc::CongestionControl> {
        let cc = plugin.build(&self.controller_params(smss), values);
        if self.pacing {
            Box::new(crate::cc::Paced::new(cc))
        } else {
            cc
        }
    }

    /// The loss-detection policy `loss` with `loss_params` (the configuration must have
    /// passed `validate`).
    pub fn build_loss(&self) -> Box<dyn crate::loss::LossPolicy> {
        let (plugin, values) = self.resolve_loss();
        plugin.build(&values)
    }

    /// `loss` looked up and `loss_params` resolved (the configuration must have passed
    /// `validate`).
    pub(crate) fn resolve_loss(&self) -> (std::sync::Arc<dyn crate::loss::LossPlugin>, Vec<f64>) {
        crate::loss::POLICIES
            .select(self.loss.as_str(), &self.loss_params)
            .unwrap_or_else(|e| panic!("loss refused (validate first): {e}"))
    }

    /// What a congestion controller for segment size `smss` is built with besides its own
    /// parameters.
    pub fn controller_params(&self, smss: u64) -> crate::cc::CcParams {
        crate::cc::CcParams {
            initial_cwnd: self.initial_window(smss),
            initial_ssthresh: self.initial_ssthresh,
            smss,
            byte_counting: self.byte_counting,
            whole_segments: self.window_unit == WindowUnit::Segments,
            slow_start_limit: self.slow_start_limit(smss),
            hystart: self.hystart,
            hystart_detect: self.hystart_detect,
            cubic_alpha_switch: self.cubic_alpha_switch,
            cubic_idle_epoch: self.cubic_idle_epoch,
        }
    }

    /// Whether `cc` reacts to ECN marks only (DCTCP: `CcPlugin::ecn_feedback`).
    pub fn controller_needs_ecn(&self) -> bool {
        crate::cc::registry::lookup(self.cc.as_str()).is_some_and(|p| p.ecn_feedback().is_some())
    }

    /// How this connection's receiver echoes CE marks once ECN is negotiated: the controller's
    /// own feedback (DCTCP, RFC 8257 §3.2), else RFC 3168 §6.1.3's.
    pub fn ecn_feedback(&self) -> crate::ecn::Feedback {
        crate::cc::registry::lookup(self.cc.as_str())
            .and_then(|p| p.ecn_feedback())
            .unwrap_or(crate::ecn::Feedback::Rfc3168)
    }

    /// Every option's range (`tcp_option_table`), then the relations between options.
    pub fn validate(&self) -> Result<(), ConfigError> {
        rexmit_options::validate(self)
    }
}

/// The checks that relate options to each other.
impl rexmit_options::Relations for TcpConfig {
    fn check_relations(&self) -> Result<(), ConfigError> {
        use rexmit_options::require;
        let mss = self.mss as usize;
        let Some(plugin) = crate::cc::registry::lookup(self.cc.as_str()) else {
            let names = crate::cc::registry::names().join(", ");
            return Err(ConfigError::new("cc", format!("one of {names}"), &self.cc));
        };
        crate::cc::registry::resolve(plugin.as_ref(), &self.cc_params)?;
        crate::loss::POLICIES.select(self.loss.as_str(), &self.loss_params)?;
        require(
            self.initial_ssthresh >= 2 * self.mss as u64,
            "initial_ssthresh",
            ">= 2 * mss",
            &self.initial_ssthresh,
        )?;
        require(
            self.send_buffer >= mss,
            "send_buffer",
            ">= mss",
            &self.send_buffer,
        )?;
        require(
            self.recv_buffer >= mss && self.recv_buffer <= (1 << 30),
            "recv_buffer",
            "mss..=2^30",
            &self.recv_buffer,
        )?;
        require(
            self.window_scaling || self.recv_buffer <= 65_535,
            "recv_buffer",
            "<= 65535 without window_scaling",
            &self.recv_buffer,
        )?;
        require(
            !self.rack || (self.sack && self.recovery == RecoveryAlgorithm::Sack),
            "rack",
            "false unless sack = true and recovery = \"sack\"",
            &self.rack,
        )?;
        require(
            !self.tlp || (self.sack && self.recovery == RecoveryAlgorithm::Sack),
            "tlp",
            "false unless sack = true and recovery = \"sack\"",
            &self.tlp,
        )?;
        require(
            !self.frto || (self.sack && self.recovery == RecoveryAlgorithm::Sack),
            "frto",
            "false unless sack = true and recovery = \"sack\"",
            &self.frto,
        )?;
        require(
            !self.prr || self.recovery == RecoveryAlgorithm::Sack,
            "prr",
            "false unless recovery = \"sack\"",
            &self.prr,
        )?;
        if plugin.ecn_feedback().is_some() {
            // RFC 8257 §3: DCTCP reacts to marks only; without ECN it would run as Reno.
            require(
                self.ecn == EcnMode::On,
                "ecn",
                format!(
                    "\"on\" with cc = \"{}\", which reacts to ECN marks",
                    self.cc
                ),
                &self.ecn,
            )?;
        }
        require(
            // HyStart is CUBIC's (Linux's tcp_cubic); a plugin controller is told the option
            // and may follow it (examples/plugins/cubic.py does).
            !self.hystart
                || self.cc == CcAlgorithm::Cubic
                || !crate::cc::registry::is_builtin(self.cc.as_str()),
            "hystart",
            "false unless cc = \"cubic\" or a plugin controller",
            &self.hystart,
        )
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
            cc: CcAlgorithm::Aimd.into(),
            cc_params: crate::cc::registry::ParamMap::of(&[("b", 1.5)]),
            ..TcpConfig::default()
        };
        assert_eq!(bad.validate().unwrap_err().field, "cc_params.b");
        let bad = TcpConfig {
            cc: "nope".into(),
            ..TcpConfig::default()
        };
        assert_eq!(bad.validate().unwrap_err().field, "cc");
        let bad = TcpConfig {
            recv_buffer: 1 << 20,
            window_scaling: false,
            ..TcpConfig::default()
        };
        assert_eq!(bad.validate().unwrap_err().field, "recv_buffer");
    }
}
