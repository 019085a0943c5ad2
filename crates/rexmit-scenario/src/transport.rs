//! TCP and SCTP settings of an application (`tcp = { ... }`, `sctp = { ... }`). Every field is
//! optional and defaults to the core's RFC default. Field names follow the cores' configuration
//! (`rto.min`, `initial_cwnd_segments`, `cmt.rtx_policy`, ...) so the cores' range checks come
//! back with the full key path.

use crate::error::{Result, ScenarioError};
use crate::units::{Bytes, DurationStr};
use rexmit_sctp::{
    BurstMitigation, CmtConfig, MaxBurstRule, RackConfig, RenegePolicy, RtxPolicy, SctpConfig,
    ThinStreamConfig,
};
use rexmit_tcp::profile::Profile;
use rexmit_tcp::{
    CcAlgorithm, DecreaseBase, ReceiveWindow, RecoveryAlgorithm, RtoRearm, TcpConfig, WindowUnit,
};
use rexmit_transport::{PersistFrom, RtoConfig, RtoEstimator};
use serde::{Deserialize, Serialize};

/// A scenario name enum (snake_case in TOML) that mirrors a core enum one to one, with the
/// conversion each way: `name_enum!(Name <=> Core { Variant = CoreVariant, ... })`.
macro_rules! name_enum {
    ($name:ident <=> $core:ident { $($variant:ident = $cv:ident),* $(,)? }) => {
        #[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
        #[serde(rename_all = "snake_case")]
        pub enum $name {
            $($variant,)*
        }
        impl From<$name> for $core {
            fn from(n: $name) -> Self {
                match n {
                    $($name::$variant => $core::$cv,)*
                }
            }
        }
        impl From<$core> for $name {
            fn from(c: $core) -> Self {
                match c {
                    $($core::$cv => $name::$variant,)*
                }
            }
        }
    };
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RtoCfg {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial: Option<DurationStr>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<DurationStr>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<DurationStr>,
    /// The clock granularity G of RFC 6298 §2: RTO = SRTT + max(G, 4·RTTVAR). Default 1 ms.
    /// Linux's TCP keeps its variance term at least RTO.min (RTO ≥ SRTT + 200 ms), which is
    /// G = RTO.min (the `linux` profile; seed 004's Linux 2.6.16 TCP).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub granularity: Option<DurationStr>,
    /// `rfc6298` (default; RFC 9260 §6.3.1 for SCTP) or `linux`: Linux's estimator, RTO = SRTT
    /// + the round trip's largest 4·mean deviation, at least RTO.min (the `linux` profile's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimator: Option<RtoEstimatorName>,
}

name_enum!(RtoEstimatorName <=> RtoEstimator { Rfc6298 = Rfc6298, Linux = Linux });

impl RtoCfg {
    fn apply(&self, rto: &mut RtoConfig) {
        set(&mut rto.initial, self.initial.map(|d| d.0));
        set(&mut rto.min, self.min.map(|d| d.0));
        set(&mut rto.max, self.max.map(|d| d.0));
        set(&mut rto.granularity, self.granularity.map(|d| d.0));
        set(&mut rto.estimator, self.estimator.map(RtoEstimator::from));
    }
}

fn set<T>(field: &mut T, v: Option<T>) {
    if let Some(v) = v {
        *field = v;
    }
}

name_enum!(RecoveryName <=> RecoveryAlgorithm { Tahoe = Tahoe, Reno = Reno, Newreno = NewReno, Sack = Sack });

name_enum!(DecreaseBaseName <=> DecreaseBase { FlightSize = FlightSize, Cwnd = Cwnd });

name_enum!(WindowUnitName <=> WindowUnit { Bytes = Bytes, Segments = Segments });

name_enum!(ReceiveWindowName <=> ReceiveWindow { Buffer = Buffer, Linux = LinuxAutotune });

name_enum!(RtoRearmName <=> RtoRearm { NewAck = NewAck, FastRetransmit = FastRetransmit, EveryRetransmit = EveryRetransmit, HeadRetransmit = HeadRetransmit });

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum CcName {
    Reno,
    /// Generalised AIMD (seed 003): give `aimd_a` and `aimd_b`.
    Aimd,
    Scalable,
    Highspeed,
    Cubic,
    Westwood,
    /// BBR v1 (as Linux's tcp_bbr).
    Bbr,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ProfileName {
    /// The RFC defaults.
    Rfc,
    /// Linux 6.x defaults as rexmit models them (rexmit_tcp::profile): IW 10, RTO min 200 ms,
    /// SACK, D-SACK, timestamps, RACK-TLP, PRR, CUBIC with HyStart.
    Linux,
}

/// `tcp = { ... }` of a TCP app.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TcpCfg {
    /// The defaults the other fields override (default "rfc").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<ProfileName>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovery: Option<RecoveryName>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cc: Option<CcName>,
    /// Additive increase in segments per RTT (cc = "aimd").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aimd_a: Option<f64>,
    /// Multiplicative decrease fraction (cc = "aimd"): cwnd ← (1 − b)·cwnd.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aimd_b: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mss: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_cwnd_segments: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_ssthresh: Option<Bytes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dup_thresh: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rto: Option<RtoCfg>,
    /// Extra restarts of the retransmission timer in loss recovery: "new_ack" (RFC 6298 only,
    /// as ns-3), "fast_retransmit" (default: as ns-2), "head_retransmit" (also at every resend of the
    /// segment at SND.UNA, as Linux; the linux profile), "every_retransmit"
    /// (RFC 6675 §6's conservative variant).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rto_rearm: Option<RtoRearmName>,
    /// What a congestion response (ssthresh at a fast retransmit or timeout) decreases from:
    /// "flight_size" (default: RFC 5681 eq. 4, RFC 6675, RFC 6937) or "cwnd" (Linux, ns-2;
    /// the linux profile).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decrease_base: Option<DecreaseBaseName>,
    /// The congestion window's unit: "bytes" (default: the RFCs) or "segments" (Linux counts
    /// snd_cwnd and ssthresh in packets: decreases round down, PRR rounds up to a segment;
    /// the linux profile).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_unit: Option<WindowUnitName>,
    /// The window the receiver advertises: "buffer" (default: the free receive buffer from
    /// the start) or "linux" (Linux's autotuning: below 64 KiB at first, growing with the data
    /// received up to recv_buffer, an ACK per segment while it grows; the linux profile).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receive_window: Option<ReceiveWindowName>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub send_buffer: Option<Bytes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recv_buffer: Option<Bytes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sack: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dsack: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamps: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window_scaling: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nagle: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ack_every: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delayed_ack_timeout: Option<DurationStr>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub immediate_ack_on_ooo: Option<bool>,
    /// Count bytes, not ACKs, in congestion avoidance (RFC 3465); default off (RFC 5681).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub byte_counting: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rack: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prr: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limited_transmit: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub early_retransmit: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thin_linear_timeouts: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thin_dupack: Option<bool>,
    /// Tahoe: guard against repeated fast retransmits (default true; false = ns-3's TcpTahoe).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tahoe_recover_guard: Option<bool>,
    /// CUBIC: HyStart slow-start exit as Linux runs it (default false; true in the linux profile).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hystart: Option<bool>,
    /// CUBIC: α_cubic = 1 once W_est reaches cwnd_prior (RFC 9438 §4.3; default true, false in
    /// the linux profile).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cubic_alpha_switch: Option<bool>,
    /// Slow start grows cwnd by at most this many segments per ACK (RFC 3465 L; default 1;
    /// 0 = no limit, as Linux).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slow_start_limit_segments: Option<u32>,
}

fn usize_of(path: &str, b: Bytes) -> Result<usize> {
    usize::try_from(b.0).map_err(|_| ScenarioError::new(path, format!("{} is too large", b.0)))
}

impl TcpCfg {
    /// The core configuration, range-checked; `path` is this table's key path (`apps[0].tcp`).
    pub fn to_config(&self, path: &str) -> Result<TcpConfig> {
        let mut c = match self.profile.unwrap_or(ProfileName::Rfc) {
            ProfileName::Rfc => Profile::Rfc.config(),
            ProfileName::Linux => Profile::Linux.config(),
        };
        set(&mut c.recovery, self.recovery.map(RecoveryAlgorithm::from));
        let aimd_given = self.aimd_a.is_some() || self.aimd_b.is_some();
        if let Some(cc) = self.cc {
            c.cc = match cc {
                CcName::Reno => CcAlgorithm::Reno,
                CcName::Aimd => {
                    let a = self.aimd_a.ok_or_else(|| {
                        ScenarioError::new(
                            format!("{path}.aimd_a"),
                            "is required when cc = \"aimd\"",
                        )
                    })?;
                    let b = self.aimd_b.ok_or_else(|| {
                        ScenarioError::new(
                            format!("{path}.aimd_b"),
                            "is required when cc = \"aimd\"",
                        )
                    })?;
                    if !(a > 0.0 && a <= rexmit_tcp::config::AIMD_A_MAX) {
                        return Err(ScenarioError::new(
                            format!("{path}.aimd_a"),
                            format!("{a} is outside (0, 1000] (segments per RTT)"),
                        ));
                    }
                    if !(b > 0.0 && b < 1.0) {
                        return Err(ScenarioError::new(
                            format!("{path}.aimd_b"),
                            format!("{b} is outside (0, 1)"),
                        ));
                    }
                    CcAlgorithm::Aimd { a, b }
                }
                CcName::Scalable => CcAlgorithm::Scalable,
                CcName::Highspeed => CcAlgorithm::HighSpeed,
                CcName::Cubic => CcAlgorithm::Cubic,
                CcName::Westwood => CcAlgorithm::Westwood,
                CcName::Bbr => CcAlgorithm::Bbr,
            };
            // A profile's HyStart belongs to its CUBIC.
            if c.cc != CcAlgorithm::Cubic {
                c.hystart = false;
            }
        }
        if aimd_given && self.cc != Some(CcName::Aimd) {
            return Err(ScenarioError::new(
                format!("{path}.aimd_a"),
                "aimd_a/aimd_b are only used with cc = \"aimd\"",
            ));
        }
        set(&mut c.mss, self.mss);
        set(&mut c.initial_cwnd_segments, self.initial_cwnd_segments);
        set(&mut c.initial_ssthresh, self.initial_ssthresh.map(|b| b.0));
        set(&mut c.dup_thresh, self.dup_thresh);
        if let Some(r) = &self.rto {
            r.apply(&mut c.rto);
        }
        set(&mut c.rto_rearm, self.rto_rearm.map(RtoRearm::from));
        set(
            &mut c.decrease_base,
            self.decrease_base.map(DecreaseBase::from),
        );
        set(&mut c.window_unit, self.window_unit.map(WindowUnit::from));
        set(
            &mut c.receive_window,
            self.receive_window.map(ReceiveWindow::from),
        );
        if let Some(b) = self.send_buffer {
            c.send_buffer = usize_of(&format!("{path}.send_buffer"), b)?;
        }
        if let Some(b) = self.recv_buffer {
            c.recv_buffer = usize_of(&format!("{path}.recv_buffer"), b)?;
        }
        set(&mut c.sack, self.sack);
        set(&mut c.dsack, self.dsack);
        set(&mut c.timestamps, self.timestamps);
        set(&mut c.window_scaling, self.window_scaling);
        set(&mut c.nagle, self.nagle);
        set(&mut c.ack_every, self.ack_every);
        set(
            &mut c.delayed_ack_timeout,
            self.delayed_ack_timeout.map(|d| d.0),
        );
        set(&mut c.immediate_ack_on_ooo, self.immediate_ack_on_ooo);
        set(&mut c.byte_counting, self.byte_counting);
        set(&mut c.rack, self.rack);
        set(&mut c.prr, self.prr);
        set(&mut c.limited_transmit, self.limited_transmit);
        set(&mut c.early_retransmit, self.early_retransmit);
        set(&mut c.thin_linear_timeouts, self.thin_linear_timeouts);
        set(&mut c.thin_dupack, self.thin_dupack);
        set(&mut c.tahoe_recover_guard, self.tahoe_recover_guard);
        set(&mut c.hystart, self.hystart);
        set(&mut c.cubic_alpha_switch, self.cubic_alpha_switch);
        set(
            &mut c.slow_start_limit_segments,
            self.slow_start_limit_segments,
        );
        c.validate().map_err(|e| {
            let origin = self.unset_origin(e.field, &c);
            ScenarioError::new(
                format!("{path}.{}", e.field),
                format!("allowed {}{origin}", e.allowed),
            )
        })?;
        Ok(c)
    }

    /// When the value the core refused was not written in this table, where it came from
    /// (the profile or the default), so that the error says which key to set.
    fn unset_origin(&self, field: &str, c: &TcpConfig) -> String {
        let profile = match self.profile {
            Some(ProfileName::Linux) => "the linux profile",
            _ => "the default",
        };
        match field {
            "rack" if self.rack.is_none() => {
                format!(" (rack = true comes from {profile}: set rack = false with this recovery)")
            }
            "prr" if self.prr.is_none() => {
                format!(" (prr = true comes from {profile}: set prr = false with this recovery)")
            }
            "recv_buffer" if self.recv_buffer.is_none() => format!(
                " (recv_buffer = {} comes from {profile}: set recv_buffer)",
                c.recv_buffer
            ),
            _ => String::new(),
        }
    }
}

name_enum!(RenegeName <=> RenegePolicy { Never = Never, UnderMemoryPressure = UnderMemoryPressure });

name_enum!(MaxBurstRuleName <=> MaxBurstRule { LimitPackets = LimitPackets, ClampCwnd = ClampCwnd });

name_enum!(RtxPolicyName <=> RtxPolicy { Same = Same, Asap = Asap, Cwnd = Cwnd, Ssthresh = Ssthresh });

#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CmtCfg {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sfr: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cuc: Option<bool>,
    /// Delayed ack for CMT (default on, as in ns-2's CMT).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dac: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtx_policy: Option<RtxPolicyName>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pf: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pf_threshold: Option<u32>,
}

impl CmtCfg {
    fn apply(&self, c: &mut CmtConfig) {
        set(&mut c.enabled, self.enabled);
        set(&mut c.sfr, self.sfr);
        set(&mut c.cuc, self.cuc);
        set(&mut c.dac, self.dac);
        set(&mut c.rtx_policy, self.rtx_policy.map(RtxPolicy::from));
        set(&mut c.pf, self.pf);
        set(&mut c.pf_threshold, self.pf_threshold);
    }
}

/// Seed 004's thin-stream modifications (`sctp.thin = { ... }`), each applied only while the
/// association is thin.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ThinCfg {
    /// Turn on the paper's four modifications together (RTO.min, restart correction, linear
    /// timeouts, fast retransmit on the first indication); single switches below override.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub all: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rto_min_200ms: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timer_restart_correction: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub linear_timeouts: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fast_rtx_first_indication: Option<bool>,
    /// FreeBSD-style early fast retransmit (comparison option).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub early_fast_retransmit: Option<bool>,
    /// The shortest EFR wait (default 250 ms, FreeBSD's early_fast_retran_msec; "0s" for
    /// SRTT + RTTVAR alone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub efr_min: Option<DurationStr>,
    /// RFC 5827 early retransmit (comparison option).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub early_retransmit_rfc5827: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thin_threshold_packets: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thin_loss_rate_term: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thin_rto_min: Option<DurationStr>,
}

impl ThinCfg {
    fn apply(&self, t: &mut ThinStreamConfig) {
        if self.all == Some(true) {
            *t = ThinStreamConfig {
                thin_threshold_packets: t.thin_threshold_packets,
                thin_loss_rate_term: t.thin_loss_rate_term,
                thin_rto_min: t.thin_rto_min,
                efr_min: t.efr_min,
                ..ThinStreamConfig::all_seed004()
            };
        }
        set(&mut t.rto_min_200ms, self.rto_min_200ms);
        set(
            &mut t.timer_restart_correction,
            self.timer_restart_correction,
        );
        set(&mut t.linear_timeouts, self.linear_timeouts);
        set(
            &mut t.fast_rtx_first_indication,
            self.fast_rtx_first_indication,
        );
        set(&mut t.early_fast_retransmit, self.early_fast_retransmit);
        set(&mut t.efr_min, self.efr_min.map(|d| d.0));
        set(
            &mut t.early_retransmit_rfc5827,
            self.early_retransmit_rfc5827,
        );
        set(&mut t.thin_threshold_packets, self.thin_threshold_packets);
        set(&mut t.thin_loss_rate_term, self.thin_loss_rate_term);
        set(&mut t.thin_rto_min, self.thin_rto_min.map(|d| d.0));
    }
}

name_enum!(BurstMitigationName <=> BurstMitigation { None = None, MaxBurst = MaxBurst, Adaptive = Adaptive });

/// RACK for SCTP (`sctp.rack = { ... }`, seed 002).
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RackCfg {
    /// RACK loss detection in place of three miss indications (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// Tail loss probes (default true when RACK is on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tlp: Option<bool>,
    /// "none", "max_burst" or "adaptive" (default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst_mitigation: Option<BurstMitigationName>,
    /// PTO addition with several chunks out (default 2ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pto_extra: Option<DurationStr>,
    /// What keeps a widened reordering window for 16 more recoveries: "dsack" (RFC 8985,
    /// default) or "reordering" (also every reordering detected, seed 002 §II.B).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reo_wnd_persist: Option<PersistFromName>,
}

name_enum!(PersistFromName <=> PersistFrom { Dsack = Dsack, Reordering = Reordering });

impl RackCfg {
    fn apply(&self, r: &mut RackConfig) {
        set(&mut r.enabled, self.enabled);
        set(&mut r.tlp, self.tlp);
        set(
            &mut r.burst_mitigation,
            self.burst_mitigation.map(BurstMitigation::from),
        );
        set(&mut r.pto_extra, self.pto_extra.map(|d| d.0));
        set(
            &mut r.reo_wnd_persist,
            self.reo_wnd_persist.map(PersistFrom::from),
        );
    }
}

/// `sctp = { ... }` of an SCTP app.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SctpCfg {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nr_sack: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub send_buffer: Option<Bytes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recv_buffer: Option<Bytes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pmtu: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rto: Option<RtoCfg>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_burst: Option<u32>,
    /// How Max.Burst applies (RFC 9260 §6.1 D): "limit_packets" (default: at most Max.Burst
    /// new-data packets per destination per transmit opportunity) or "clamp_cwnd" (RFC 4960's
    /// first form: cwnd = min(cwnd, flightsize + Max.Burst·MTU) before new data goes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_burst_rule: Option<MaxBurstRuleName>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_cwnd: Option<Bytes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_ssthresh: Option<Bytes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sack_delay: Option<DurationStr>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sack_freq: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub immediate_sack_on_gap: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub renege: Option<RenegeName>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assoc_max_retrans: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path_max_retrans: Option<u32>,
    /// Heartbeat interval; "0s" turns heartbeats off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hb_interval: Option<DurationStr>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cmt: Option<CmtCfg>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thin: Option<ThinCfg>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rack: Option<RackCfg>,
}

impl SctpCfg {
    pub fn to_config(&self, path: &str) -> Result<SctpConfig> {
        let mut c = SctpConfig::default();
        set(&mut c.nr_sack, self.nr_sack);
        set(&mut c.send_buffer, self.send_buffer.map(|b| b.0));
        if let Some(b) = self.recv_buffer {
            c.recv_buffer = u32::try_from(b.0).map_err(|_| {
                ScenarioError::new(
                    format!("{path}.recv_buffer"),
                    format!("{} is above 4 GiB", b.0),
                )
            })?;
        }
        set(&mut c.pmtu, self.pmtu);
        if let Some(r) = &self.rto {
            r.apply(&mut c.rto);
        }
        set(&mut c.max_burst, self.max_burst);
        set(
            &mut c.max_burst_rule,
            self.max_burst_rule.map(MaxBurstRule::from),
        );
        if self.initial_cwnd.is_some() {
            c.initial_cwnd = self.initial_cwnd.map(|b| b.0);
        }
        if self.initial_ssthresh.is_some() {
            c.initial_ssthresh = self.initial_ssthresh.map(|b| b.0);
        }
        set(&mut c.sack_delay, self.sack_delay.map(|d| d.0));
        set(&mut c.sack_freq, self.sack_freq);
        set(&mut c.immediate_sack_on_gap, self.immediate_sack_on_gap);
        set(&mut c.renege, self.renege.map(RenegePolicy::from));
        set(&mut c.assoc_max_retrans, self.assoc_max_retrans);
        set(&mut c.path_max_retrans, self.path_max_retrans);
        if let Some(h) = self.hb_interval {
            c.hb_interval = if h.0.is_zero() { None } else { Some(h.0) };
        }
        if let Some(cmt) = &self.cmt {
            cmt.apply(&mut c.cmt);
        }
        if let Some(thin) = &self.thin {
            thin.apply(&mut c.thin);
        }
        if let Some(rack) = &self.rack {
            rack.apply(&mut c.rack);
        }
        c.validate().map_err(|e| {
            ScenarioError::new(
                format!("{path}.{}", e.field),
                format!("{} is out of range: allowed {}", e.got, e.allowed),
            )
        })?;
        Ok(c)
    }
}
