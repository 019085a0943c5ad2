//! A scenario with every default written out (`rexmit normalize`, the `scenario.toml` of a run):
//! each TCP and SCTP app's settings as the core will run them, and the guards' defaults. Only
//! for showing: a scenario re-read from it runs the same, but its explicit values no longer
//! follow a changed `profile`, so sweeps keep varying the scenario as written.

use crate::schema::{AppCfg, Scenario};
use crate::transport::*;
use crate::units::{Bytes, DurationStr};
use rexmit_sctp::SctpConfig;
use rexmit_tcp::{CcAlgorithm, TcpConfig};
use rexmit_transport::RtoConfig;

/// TOML integers stop at 2^63 − 1: larger values mean "no limit" and are left out.
fn bytes(v: u64) -> Option<Bytes> {
    (v <= i64::MAX as u64).then_some(Bytes(v))
}

fn rto(r: &RtoConfig) -> Option<RtoCfg> {
    Some(RtoCfg {
        initial: Some(DurationStr(r.initial)),
        min: Some(DurationStr(r.min)),
        max: Some(DurationStr(r.max)),
        granularity: Some(DurationStr(r.granularity)),
        estimator: Some(r.estimator.into()),
    })
}

fn tcp(profile: Option<ProfileName>, c: &TcpConfig) -> TcpCfg {
    let (cc, aimd_a, aimd_b) = match c.cc {
        CcAlgorithm::Reno => (CcName::Reno, None, None),
        CcAlgorithm::Aimd { a, b } => (CcName::Aimd, Some(a), Some(b)),
        CcAlgorithm::Scalable => (CcName::Scalable, None, None),
        CcAlgorithm::HighSpeed => (CcName::Highspeed, None, None),
        CcAlgorithm::Cubic => (CcName::Cubic, None, None),
        CcAlgorithm::Westwood => (CcName::Westwood, None, None),
        CcAlgorithm::Bbr => (CcName::Bbr, None, None),
    };
    TcpCfg {
        profile: Some(profile.unwrap_or(ProfileName::Rfc)),
        recovery: Some(c.recovery.into()),
        cc: Some(cc),
        aimd_a,
        aimd_b,
        mss: Some(c.mss),
        initial_cwnd_segments: Some(c.initial_cwnd_segments),
        initial_ssthresh: bytes(c.initial_ssthresh),
        dup_thresh: Some(c.dup_thresh),
        rto: rto(&c.rto),
        rto_rearm: Some(c.rto_rearm.into()),
        decrease_base: Some(c.decrease_base.into()),
        window_unit: Some(c.window_unit.into()),
        receive_window: Some(c.receive_window.into()),
        send_buffer: bytes(c.send_buffer as u64),
        recv_buffer: bytes(c.recv_buffer as u64),
        sack: Some(c.sack),
        dsack: Some(c.dsack),
        timestamps: Some(c.timestamps),
        window_scaling: Some(c.window_scaling),
        nagle: Some(c.nagle),
        ack_every: Some(c.ack_every),
        delayed_ack_timeout: Some(DurationStr(c.delayed_ack_timeout)),
        immediate_ack_on_ooo: Some(c.immediate_ack_on_ooo),
        byte_counting: Some(c.byte_counting),
        rack: Some(c.rack),
        prr: Some(c.prr),
        limited_transmit: Some(c.limited_transmit),
        early_retransmit: Some(c.early_retransmit),
        thin_linear_timeouts: Some(c.thin_linear_timeouts),
        thin_dupack: Some(c.thin_dupack),
        tahoe_recover_guard: Some(c.tahoe_recover_guard),
        hystart: Some(c.hystart),
        cubic_alpha_switch: Some(c.cubic_alpha_switch),
        slow_start_limit_segments: Some(c.slow_start_limit_segments),
    }
}

fn sctp(c: &SctpConfig) -> SctpCfg {
    let t = &c.thin;
    SctpCfg {
        nr_sack: Some(c.nr_sack),
        send_buffer: bytes(c.send_buffer),
        recv_buffer: bytes(c.recv_buffer as u64),
        pmtu: Some(c.pmtu),
        rto: rto(&c.rto),
        max_burst: Some(c.max_burst),
        max_burst_rule: Some(c.max_burst_rule.into()),
        // None: the RFC 9260 §7.2.1 formula from the path MTU, and the peer's a_rwnd.
        initial_cwnd: c.initial_cwnd.and_then(bytes),
        initial_ssthresh: c.initial_ssthresh.and_then(bytes),
        sack_delay: Some(DurationStr(c.sack_delay)),
        sack_freq: Some(c.sack_freq),
        immediate_sack_on_gap: Some(c.immediate_sack_on_gap),
        renege: Some(c.renege.into()),
        assoc_max_retrans: Some(c.assoc_max_retrans),
        path_max_retrans: Some(c.path_max_retrans),
        hb_interval: Some(DurationStr(
            c.hb_interval.unwrap_or(rexmit_time::Duration::ZERO),
        )),
        cmt: Some(CmtCfg {
            enabled: Some(c.cmt.enabled),
            sfr: Some(c.cmt.sfr),
            cuc: Some(c.cmt.cuc),
            dac: Some(c.cmt.dac),
            rtx_policy: Some(c.cmt.rtx_policy.into()),
            pf: Some(c.cmt.pf),
            pf_threshold: Some(c.cmt.pf_threshold),
        }),
        thin: Some(ThinCfg {
            all: None,
            rto_min_200ms: Some(t.rto_min_200ms),
            timer_restart_correction: Some(t.timer_restart_correction),
            linear_timeouts: Some(t.linear_timeouts),
            fast_rtx_first_indication: Some(t.fast_rtx_first_indication),
            early_fast_retransmit: Some(t.early_fast_retransmit),
            efr_min: Some(DurationStr(t.efr_min)),
            early_retransmit_rfc5827: Some(t.early_retransmit_rfc5827),
            thin_threshold_packets: Some(t.thin_threshold_packets),
            thin_loss_rate_term: Some(t.thin_loss_rate_term),
            thin_rto_min: Some(DurationStr(t.thin_rto_min)),
        }),
        rack: Some(RackCfg {
            enabled: Some(c.rack.enabled),
            tlp: Some(c.rack.tlp),
            burst_mitigation: Some(c.rack.burst_mitigation.into()),
            pto_extra: Some(DurationStr(c.rack.pto_extra)),
            reo_wnd_persist: Some(c.rack.reo_wnd_persist.into()),
        }),
    }
}

fn app(a: &AppCfg, path: &str) -> crate::error::Result<AppCfg> {
    let mut a = a.clone();
    match a.transport_mut() {
        crate::schema::Transport::Tcp(t) => {
            let cfg = t.clone().unwrap_or_default();
            *t = Some(tcp(cfg.profile, &cfg.to_config(&format!("{path}.tcp"))?));
        }
        crate::schema::Transport::Sctp(t) => {
            let cfg = t.clone().unwrap_or_default();
            *t = Some(sctp(&cfg.to_config(&format!("{path}.sctp"))?));
        }
        crate::schema::Transport::Udp => {}
    }
    Ok(a)
}

impl Scenario {
    /// This scenario with every default written out (see the module docs).
    pub fn with_defaults(&self) -> crate::error::Result<Scenario> {
        let mut s = self.clone();
        s.apps = self
            .apps
            .iter()
            .enumerate()
            .map(|(i, a)| app(a, &format!("apps[{i}]")))
            .collect::<crate::error::Result<_>>()?;
        s.limits.max_work = Some(s.limits.max_work.unwrap_or(crate::build::DEFAULT_MAX_WORK));
        Ok(s)
    }
}
