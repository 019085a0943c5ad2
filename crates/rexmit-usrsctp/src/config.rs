//! What a usrsctp association is configured with, and how rexmit's SCTP options map onto it.
//!
//! `UsrsctpConfig::from_sctp` takes the validated `SctpConfig` of an app plus the names of the
//! options the scenario set, and returns the settings of the two sockets and of the stack.
//! Every mapped option takes its value from `SctpConfig` (rexmit's defaults included, so the
//! same scenario means the same buffers, timers and MTU whichever stack runs it); an option the
//! scenario set that has no usrsctp counterpart is refused by name. `OPTIONS` lists every
//! option with its counterpart: a socket option of each endpoint, or a `net.inet.sctp` sysctl,
//! which usrsctp has once per process (all usrsctp apps of one run must then agree).

use rexmit_sctp::{
    CwndBytes, CwndGrowth, MaxBurstRule, RenegePolicy, RtxPolicy, SctpConfig, T3Rtx,
};
use rexmit_time::Duration;
use std::fmt;

/// Where a rexmit SCTP option goes in usrsctp.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counterpart {
    /// A socket option of both endpoints (set before the association starts).
    Socket(&'static str),
    /// A stack-wide sysctl (`net.inet.sctp.<name>`): one value per process.
    StackWide(&'static str),
    /// Accepted only with the value FreeBSD's SCTP has built in.
    BuiltIn(&'static str),
    /// No counterpart: refused when set.
    None(&'static str),
}

/// Every rexmit SCTP option (its key under `sctp.`) and its usrsctp counterpart.
pub const OPTIONS: &[(&str, Counterpart)] = {
    use Counterpart::*;
    &[
        ("pmtu", Socket("SCTP_PEER_ADDR_PARAMS spp_pathmtu = pmtu − 32 (PMTU discovery off): the stack adds the IPv4 and SCTP common headers back")),
        ("send_buffer", Socket("SO_SNDBUF")),
        ("recv_buffer", Socket("SO_RCVBUF (the advertised a_rwnd)")),
        ("rto.initial", Socket("SCTP_RTOINFO srto_initial (ms)")),
        ("rto.min", Socket("SCTP_RTOINFO srto_min (ms)")),
        ("rto.max", Socket("SCTP_RTOINFO srto_max (ms)")),
        ("rto.granularity", BuiltIn("1ms: FreeBSD's RTO = SRTT + 4·RTTVAR, with 1 ms only when RTTVAR is 0 (sctp_calculate_rto)")),
        ("rto.estimator", BuiltIn("freebsd: RFC 6298's estimator in whole milliseconds (sctp_calculate_rto)")),
        ("max_burst", Socket("SCTP_MAX_BURST")),
        ("max_burst_rule", StackWide("use_cwnd_based_maxburst (limit_packets 0, clamp_cwnd 1)")),
        ("initial_cwnd", StackWide("initial_cwnd, in packets: n full DATA chunks (n × (pmtu − 48) bytes) are n packets, at most max_burst (unset: 0, RFC 4960's formula)")),
        ("initial_ssthresh", None("FreeBSD starts ssthresh at the peer's a_rwnd, rexmit's default, and has no setting")),
        ("slow_start_limit_mtus", StackWide("L2_abc_variable (FreeBSD ships 2)")),
        ("handshake_rtt", BuiltIn("true: FreeBSD takes RTT samples from INIT ACK, COOKIE ACK and the State Cookie's time (sctp_calculate_rto)")),
        ("t3_rtx", BuiltIn("freebsd: a SACK without gap blocks after one without them leaves a running T3-rtx alone (sctp_express_handle_sack); on expiry only chunks outstanding longer than SRTT + 4·RTTVAR are marked (sctp_mark_all_for_resend)")),
        ("fast_rtx_again", BuiltIn("true: without CMT FreeBSD strikes a fast-retransmitted chunk again (in fast recovery on every SACK that moves the cumulative ack) and may fast-retransmit it again (sctp_strike_gap_ack_chunks); with CMT it never does (no_fr_allowed)")),
        ("fr_max_burst", BuiltIn("4: FreeBSD sends every packet led by a fast-retransmitted chunk whatever cwnd says, at most fr_max_burst (sysctl, 4 as shipped) per output call, and ends the call there (sctp_chunk_output); it calls its output routine after each input and each write (sctp_lower_sosend)")),
        ("fr_ssthresh_floor_mtus", BuiltIn("2: on a fast retransmit FreeBSD sets ssthresh = max(cwnd/2, 2·MTU) and cwnd = ssthresh, where RFC 9260 §7.2.3 has 4·MTU (sctp_cwnd_update_after_fr); its T3-rtx cut keeps 4·MTU (sctp_cwnd_update_after_timeout)")),
        ("grow_before_cut", BuiltIn("true: a SACK's cwnd update comes before its fast-retransmit cut (sctp_handle_sack: sctp_cwnd_update_after_sack, then sctp_strike_gap_ack_chunks and sctp_cwnd_update_after_fr)")),
        ("cwnd_growth", BuiltIn("rfc4960: FreeBSD grows cwnd only on a SACK that advances the cumulative TSN ack (or, with CMT, the destination's pseudo-cumulative ack), never in fast recovery (sctp_cwnd_update_after_sack)")),
        ("cwnd_bytes", BuiltIn("chunk: FreeBSD counts a DATA chunk's payload plus its 16-byte header in flightsize and in the bytes a SACK acknowledges (book_size, send_size in sctp_output.c), and steps cwnd by the path MTU with the IP header (net->mtu)")),
        ("sack_delay", Socket("SCTP_DELAYED_SACK sack_delay (ms)")),
        ("sack_freq", Socket("SCTP_DELAYED_SACK sack_freq")),
        ("immediate_sack_on_gap", BuiltIn("true: FreeBSD acknowledges out-of-order data at once (RFC 9260 §6.7)")),
        ("sack_first_data", BuiltIn("true: an association starts with send_sack set, so FreeBSD acknowledges the first packet carrying DATA at once (sctp_sack_check)")),
        ("tsn_map_window", BuiltIn("4096: the receiver's mapping array holds 4096 TSNs from its base (SCTP_MAPPING_ARRAY, 512 bytes); a DATA chunk beyond it is dropped unacknowledged (sctp_process_a_data_chunk)")),
        ("nr_sack", Socket("SCTP_NRSACK_SUPPORTED")),
        ("ecn", Socket("SCTP_ECN_SUPPORTED: ECN capability in INIT and INIT ACK, ECT(0) on packets of new DATA (not on retransmissions), CE echoed by ECNE and answered by CWR; the IPv4 ECN field crosses as the stack's TOS byte out and as usrsctp_conninput's (or IPv4 input's) ecn_bits in")),
        ("cc", None("FreeBSD's SCTP runs its own congestion-control modules (SCTP_PLUGGABLE_CC), not rexmit's registry")),
        ("cc_params", None("FreeBSD's SCTP runs its own congestion-control modules, not rexmit's registry")),
        ("renege", StackWide("do_sctp_drain (never 0: all out-of-order data is non-renegable in NR-SACKs; under_memory_pressure 1); usrsctp never drains by itself")),
        ("assoc_max_retrans", Socket("SCTP_ASSOCINFO sasoc_asocmaxrxt")),
        ("path_max_retrans", Socket("SCTP_PEER_ADDR_THLDS spt_pathmaxrxt")),
        ("hb_interval", Socket("SCTP_PEER_ADDR_PARAMS spp_hbinterval (ms), SPP_HB_DISABLE for 0s")),
        ("hb_jitter", BuiltIn("true: FreeBSD jitters each heartbeat's RTO (sctp_heartbeat_timer)")),
        ("cmt.enabled", StackWide("cmt_on_off (the sysctl also gates the socket option SCTP_CMT_ON_OFF, set on both sockets, and changes stream scheduling)")),
        ("cmt.dac", StackWide("cmt_use_dac")),
        ("cmt.sfr", BuiltIn("true: split fast retransmit is part of FreeBSD's CMT")),
        ("cmt.cuc", BuiltIn("true: cwnd update for CMT is part of FreeBSD's CMT")),
        ("cmt.cut_every_sack", BuiltIn("true: with CMT on, FreeBSD cuts a destination's cwnd on every SACK that newly marks chunks of it for fast retransmission, in fast recovery or not (sctp_cwnd_update_after_fr)")),
        ("cmt.grow_in_recovery", BuiltIn("true: with CMT on, FreeBSD updates a destination's cwnd on SACKs during fast recovery too (sctp_cwnd_update_after_sack skips it only with CMT off)")),
        ("cmt.rtx_pseudo_cumack", BuiltIn("true: FreeBSD's CUC (CUCv2) keeps separate pseudo cumulative acks per destination for first transmissions and for retransmissions (sctp_indata.c, pseudo_cumack and rtx_pseudo_cumack)")),
        ("cmt.rtx_dest_at_mark", BuiltIn("true: FreeBSD sets a chunk's retransmission destination (`whoTo`) when it marks the chunk, in sctp_strike_gap_ack_chunks and sctp_t3rxt_timer (sctp_find_alternate_net)")),
        ("cmt.no_fr_after_t3", BuiltIn("true: with CMT on, FreeBSD never fast-retransmits a chunk a T3-rtx expiry marked (sctp_mark_all_for_resend sets `no_fr_allowed`, which sctp_strike_gap_ack_chunks skips)")),
        ("cmt.rtx_policy", BuiltIn("cwnd: FreeBSD's CMT sends retransmissions to the reachable path with the largest cwnd (sctp_find_alternate_net mode 1; its comment says RTX_SSTHRESH)")),
        ("cmt.pf", Socket("SCTP_PEER_ADDR_THLDS spt_pathpfthld (off: 65535)")),
        ("cmt.pf_threshold", Socket("SCTP_PEER_ADDR_THLDS spt_pathpfthld = pf_threshold (both mark a path PF when its error count exceeds the threshold)")),
        ("thin", None("FreeBSD's SCTP has none of seed 004's thin-stream modifications")),
        ("rack", None("FreeBSD's SCTP has no RACK")),
    ]
};

/// The usrsctp counterpart of an option key (`thin.linear_timeouts` is found as `thin`).
pub fn counterpart(key: &str) -> Option<Counterpart> {
    let table = key.split('.').next().unwrap_or(key);
    OPTIONS
        .iter()
        .find(|(k, _)| *k == key)
        .or_else(|| {
            OPTIONS
                .iter()
                .find(|(k, _)| *k == table && matches!(table, "thin" | "rack"))
        })
        .map(|(_, c)| *c)
}

/// An option usrsctp cannot take.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionError {
    /// The key under `sctp.`.
    pub option: String,
    pub reason: String,
}

impl fmt::Display for OptionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sctp.{}: {}", self.option, self.reason)
    }
}
impl std::error::Error for OptionError {}

fn refuse(option: &str, reason: impl Into<String>) -> OptionError {
    OptionError {
        option: option.to_string(),
        reason: reason.into(),
    }
}

/// FreeBSD's send and receive buffer splitting for CMT (`net.inet.sctp.buffer_splitting`): the
/// sender limits each path to its share of the peer's window, the receiver splits its window.
/// rexmit's core has no counterpart, so no scenario option sets it yet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BufferSplitting {
    pub send: bool,
    pub recv: bool,
}

/// Settings usrsctp has once per process (sysctls); every usrsctp app of a run must agree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StackWide {
    pub cmt: bool,
    pub cmt_dac: bool,
    pub buffer_splitting: BufferSplitting,
    /// Initial cwnd in packets; 0 is RFC 4960's min(4·MTU, max(2·MTU, 4380)).
    pub initial_cwnd_packets: u32,
    pub max_burst_rule: MaxBurstRule,
    pub renege: RenegePolicy,
    /// Slow start's largest increase per SACK, in MTUs (RFC 3465's L).
    pub slow_start_limit_mtus: u32,
}

impl StackWide {
    /// (option key, sysctl, value) of each setting.
    pub fn sysctls(&self) -> [(&'static str, &'static str, u32); 7] {
        let splitting =
            self.buffer_splitting.send as u32 | (self.buffer_splitting.recv as u32) << 1;
        [
            ("cmt.enabled", "cmt_on_off", self.cmt as u32),
            ("cmt.dac", "cmt_use_dac", self.cmt_dac as u32),
            ("buffer_splitting", "buffer_splitting", splitting),
            ("initial_cwnd", "initial_cwnd", self.initial_cwnd_packets),
            (
                "max_burst_rule",
                "use_cwnd_based_maxburst",
                (self.max_burst_rule == MaxBurstRule::ClampCwnd) as u32,
            ),
            (
                "renege",
                "do_drain",
                (self.renege == RenegePolicy::UnderMemoryPressure) as u32,
            ),
            (
                "slow_start_limit_mtus",
                "L2_abc_variable",
                self.slow_start_limit_mtus,
            ),
        ]
    }
}

/// The settings of a usrsctp association (both endpoints get the same).
#[derive(Clone, Debug, PartialEq)]
pub struct UsrsctpConfig {
    /// Path MTU in bytes, IPv4 header included.
    pub pmtu: u32,
    pub send_buffer: u32,
    pub recv_buffer: u32,
    pub outbound_streams: u16,
    pub max_inbound_streams: u16,
    pub max_init_retransmits: u16,
    pub rto_initial: Duration,
    pub rto_min: Duration,
    pub rto_max: Duration,
    /// 0: no limit.
    pub max_burst: u32,
    pub sack_delay: Duration,
    pub sack_freq: u32,
    pub nr_sack: bool,
    /// ECN (RFC 9260 Appendix A, RFC 3168).
    pub ecn: bool,
    pub assoc_max_retrans: u16,
    pub path_max_retrans: u16,
    /// `None`: no heartbeats.
    pub hb_interval: Option<Duration>,
    pub valid_cookie_life: Duration,
    /// CMT-PF: a path is potentially failed once its error count exceeds this; `None`: off.
    pub pf_threshold: Option<u16>,
    pub stack: StackWide,
}

/// Whole milliseconds (usrsctp's unit for every time it takes) that fit in 32 bits.
fn millis(option: &str, d: Duration) -> Result<u32, OptionError> {
    let ns = d.as_nanos();
    if !ns.is_multiple_of(1_000_000) || ns / 1_000_000 > u32::MAX as u64 {
        return Err(refuse(
            option,
            format!(
                "{d} is not a whole number of milliseconds below 2^32 (usrsctp takes milliseconds)"
            ),
        ));
    }
    Ok((ns / 1_000_000) as u32)
}

fn small(option: &str, v: u32) -> Result<u16, OptionError> {
    u16::try_from(v).map_err(|_| refuse(option, format!("{v} is above usrsctp's limit 65535")))
}

impl UsrsctpConfig {
    /// The usrsctp settings of `cfg`, refusing (by name) each key of `set_keys` (the options
    /// the scenario set, as keys under `sctp.`: "nr_sack", "rto.min", "cmt.dac", "thin.all")
    /// that usrsctp has no counterpart for, or whose value it cannot take.
    pub fn from_sctp<S: AsRef<str>>(
        cfg: &SctpConfig,
        set_keys: impl IntoIterator<Item = S>,
    ) -> Result<UsrsctpConfig, OptionError> {
        for key in set_keys {
            let key = key.as_ref();
            match counterpart(key) {
                Some(Counterpart::None(why)) => {
                    return Err(refuse(
                        key,
                        format!("not available with stack = \"usrsctp\" ({why})"),
                    ))
                }
                Some(Counterpart::BuiltIn(only)) => check_built_in(cfg, key, only)?,
                Some(_) => {}
                None => {
                    return Err(refuse(
                        key,
                        "not available with stack = \"usrsctp\" (no counterpart is known)",
                    ))
                }
            }
        }
        check_fixed(cfg)?;
        let mtu_packets = |c: u64| -> Result<u32, OptionError> {
            // FreeBSD's initial cwnd is a number of packets (times MTU − 12 bytes); rexmit's is
            // bytes of user data: n full DATA chunks are n packets.
            let unit = cfg.max_data_payload() as u64;
            if !c.is_multiple_of(unit)
                || c / unit > cfg.max_burst.max(1) as u64 && cfg.max_burst > 0
            {
                return Err(refuse(
                    "initial_cwnd",
                    format!(
                        "usrsctp sets the initial cwnd in whole packets: {c} is not a multiple of a \
                         full DATA chunk ({unit} bytes, pmtu − 48) of at most max_burst ({}) \
                         of them",
                        cfg.max_burst
                    ),
                ));
            }
            Ok((c / unit) as u32)
        };
        let send_buffer = i32::try_from(cfg.send_buffer).map_err(|_| {
            refuse(
                "send_buffer",
                format!(
                    "{} is above usrsctp's limit 2147483647 (SO_SNDBUF is an int)",
                    cfg.send_buffer
                ),
            )
        })?;
        let recv_buffer = i32::try_from(cfg.recv_buffer).map_err(|_| {
            refuse(
                "recv_buffer",
                format!(
                    "{} is above usrsctp's limit 2147483647 (SO_RCVBUF is an int)",
                    cfg.recv_buffer
                ),
            )
        })?;
        let c = UsrsctpConfig {
            pmtu: cfg.pmtu,
            send_buffer: send_buffer as u32,
            recv_buffer: recv_buffer as u32,
            outbound_streams: cfg.outbound_streams,
            max_inbound_streams: cfg.max_inbound_streams,
            max_init_retransmits: small("max_init_retransmits", cfg.max_init_retransmits)?,
            rto_initial: cfg.rto.initial,
            rto_min: cfg.rto.min,
            rto_max: cfg.rto.max,
            max_burst: cfg.max_burst,
            sack_delay: cfg.sack_delay,
            sack_freq: cfg.sack_freq,
            nr_sack: cfg.nr_sack,
            ecn: cfg.ecn,
            assoc_max_retrans: small("assoc_max_retrans", cfg.assoc_max_retrans)?,
            path_max_retrans: small("path_max_retrans", cfg.path_max_retrans)?,
            hb_interval: cfg.hb_interval,
            valid_cookie_life: cfg.valid_cookie_life,
            pf_threshold: if cfg.cmt.pf {
                Some(small("cmt.pf_threshold", cfg.cmt.pf_threshold)?)
            } else {
                Option::None
            },
            stack: StackWide {
                cmt: cfg.cmt.enabled,
                cmt_dac: cfg.cmt.dac,
                buffer_splitting: BufferSplitting::default(),
                initial_cwnd_packets: cfg.initial_cwnd.map(mtu_packets).transpose()?.unwrap_or(0),
                max_burst_rule: cfg.max_burst_rule,
                renege: cfg.renege,
                slow_start_limit_mtus: cfg.slow_start_limit_mtus,
            },
        };
        c.validate()?;
        Ok(c)
    }

    /// Check ranges usrsctp imposes beyond rexmit's own validation.
    pub fn validate(&self) -> Result<(), OptionError> {
        for (k, d) in [
            ("rto.initial", self.rto_initial),
            ("rto.min", self.rto_min),
            ("rto.max", self.rto_max),
            ("sack_delay", self.sack_delay),
            ("valid_cookie_life", self.valid_cookie_life),
        ] {
            millis(k, d)?;
        }
        if let Some(h) = self.hb_interval {
            millis("hb_interval", h)?;
        }
        // FreeBSD accepts path MTUs of 512..=65536 bytes above the IP and SCTP headers.
        if !(544..=65535).contains(&self.pmtu) {
            return Err(refuse(
                "pmtu",
                format!("{} is outside usrsctp's range 544..=65535", self.pmtu),
            ));
        }
        Ok(())
    }

    /// Turn FreeBSD's CMT buffer splitting on or off (no rexmit option maps to it).
    pub fn with_buffer_splitting(mut self, b: BufferSplitting) -> Self {
        self.stack.buffer_splitting = b;
        self
    }
}

/// `cfg` with every built-in behaviour (`Counterpart::BuiltIn`) at FreeBSD's value: what a
/// usrsctp association runs, in rexmit's option names (`rexmit normalize` writes it).
pub fn with_freebsd_built_ins(cfg: &SctpConfig) -> SctpConfig {
    let mut c = cfg.clone();
    c.rto.granularity = Duration::from_millis(1);
    c.rto.estimator = rexmit_transport::RtoEstimator::Freebsd;
    c.cwnd_growth = CwndGrowth::Rfc4960;
    c.cwnd_bytes = CwndBytes::Chunk;
    c.immediate_sack_on_gap = true;
    c.sack_first_data = true;
    c.tsn_map_window = 4096;
    c.hb_jitter = true;
    c.cmt.sfr = true;
    c.cmt.cuc = true;
    c.cmt.rtx_pseudo_cumack = true;
    c.cmt.rtx_dest_at_mark = true;
    c.cmt.no_fr_after_t3 = true;
    c.cmt.cut_every_sack = true;
    c.cmt.grow_in_recovery = true;
    c.cmt.rtx_policy = RtxPolicy::Cwnd;
    c.t3_rtx = T3Rtx::Freebsd;
    c.handshake_rtt = true;
    c.fast_rtx_again = true;
    c.fr_max_burst = 4;
    c.fr_ssthresh_floor_mtus = 2;
    c.grow_before_cut = true;
    c
}

/// A built-in behaviour: the option may be set only to the value FreeBSD has.
fn check_built_in(cfg: &SctpConfig, key: &str, only: &str) -> Result<(), OptionError> {
    let ok = match key {
        "rto.granularity" => cfg.rto.granularity == Duration::from_millis(1),
        "rto.estimator" => cfg.rto.estimator == rexmit_transport::RtoEstimator::Freebsd,
        "immediate_sack_on_gap" => cfg.immediate_sack_on_gap,
        "sack_first_data" => cfg.sack_first_data,
        "tsn_map_window" => cfg.tsn_map_window == 4096,
        "cmt.sfr" => cfg.cmt.sfr,
        "cmt.cuc" => cfg.cmt.cuc,
        "cmt.rtx_pseudo_cumack" => cfg.cmt.rtx_pseudo_cumack,
        "cmt.rtx_dest_at_mark" => cfg.cmt.rtx_dest_at_mark,
        "cmt.no_fr_after_t3" => cfg.cmt.no_fr_after_t3,
        "cmt.cut_every_sack" => cfg.cmt.cut_every_sack,
        "cmt.grow_in_recovery" => cfg.cmt.grow_in_recovery,
        "cmt.rtx_policy" => cfg.cmt.rtx_policy == RtxPolicy::Cwnd,
        "cwnd_growth" => cfg.cwnd_growth == CwndGrowth::Rfc4960,
        "cwnd_bytes" => cfg.cwnd_bytes == CwndBytes::Chunk,
        "hb_jitter" => cfg.hb_jitter,
        "t3_rtx" => cfg.t3_rtx == T3Rtx::Freebsd,
        "handshake_rtt" => cfg.handshake_rtt,
        "fast_rtx_again" => cfg.fast_rtx_again,
        "fr_max_burst" => cfg.fr_max_burst == 4,
        "fr_ssthresh_floor_mtus" => cfg.fr_ssthresh_floor_mtus == 2,
        "grow_before_cut" => cfg.grow_before_cut,
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(refuse(key, format!("usrsctp has only {only}")))
    }
}

/// Settings of `SctpConfig` that no scenario option sets but that usrsctp cannot follow.
fn check_fixed(cfg: &SctpConfig) -> Result<(), OptionError> {
    if !cfg.auto_consume {
        return Err(refuse(
            "auto_consume",
            "the usrsctp receiver always reads at once",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_map_and_keep_rexmit_values() {
        let c = UsrsctpConfig::from_sctp(&SctpConfig::default(), [] as [&str; 0]).unwrap();
        assert_eq!((c.pmtu, c.send_buffer, c.recv_buffer), (1500, 65536, 65536));
        assert_eq!(c.rto_initial, Duration::from_secs(3));
        assert_eq!(
            c.stack.initial_cwnd_packets, 0,
            "RFC 4960 formula, as rexmit's default"
        );
        assert_eq!(c.stack.max_burst_rule, MaxBurstRule::LimitPackets);
        assert_eq!(c.pf_threshold, None);
    }

    #[test]
    fn options_without_counterpart_are_refused_by_name() {
        let cfg = SctpConfig::default();
        for key in [
            "thin.linear_timeouts",
            "rack.enabled",
            "initial_ssthresh",
            "cmt.rtx_policy",
            "no_such_option",
        ] {
            let e = UsrsctpConfig::from_sctp(&cfg, [key]).unwrap_err();
            assert_eq!(e.option, key);
            assert!(e.to_string().starts_with(&format!("sctp.{key}: ")), "{e}");
            if key != "cmt.rtx_policy" {
                assert!(
                    e.reason
                        .starts_with("not available with stack = \"usrsctp\" ("),
                    "{e}"
                );
            }
        }
        let mut cwnd = SctpConfig::default();
        cwnd.cmt.rtx_policy = RtxPolicy::Cwnd;
        assert!(
            UsrsctpConfig::from_sctp(&cwnd, ["cmt.rtx_policy"]).is_ok(),
            "FreeBSD's own policy"
        );
        assert!(UsrsctpConfig::from_sctp(
            &cfg,
            ["nr_sack", "rto.min", "cmt.dac", "rto.granularity"]
        )
        .is_ok());
    }

    #[test]
    fn initial_cwnd_must_be_whole_packets_within_max_burst() {
        let mut cfg = SctpConfig {
            initial_cwnd: Some(3 * 1452),
            ..SctpConfig::default()
        };
        let c = UsrsctpConfig::from_sctp(&cfg, ["initial_cwnd"]).unwrap();
        assert_eq!(c.stack.initial_cwnd_packets, 3);
        cfg.initial_cwnd = Some(4000);
        let e = UsrsctpConfig::from_sctp(&cfg, ["initial_cwnd"]).unwrap_err();
        assert_eq!(e.option, "initial_cwnd");
        cfg.initial_cwnd = Some(5 * 1452);
        assert!(
            UsrsctpConfig::from_sctp(&cfg, ["initial_cwnd"]).is_err(),
            "FreeBSD caps at max_burst (4)"
        );
    }

    #[test]
    fn times_must_be_whole_milliseconds() {
        let cfg = SctpConfig {
            sack_delay: Duration::from_micros(1500),
            ..SctpConfig::default()
        };
        let e = UsrsctpConfig::from_sctp(&cfg, ["sack_delay"]).unwrap_err();
        assert_eq!(e.option, "sack_delay");
    }

    #[test]
    fn every_stack_wide_option_names_its_sysctl() {
        let c = UsrsctpConfig::from_sctp(&SctpConfig::default(), [] as [&str; 0]).unwrap();
        for (key, sysctl, _) in c.stack.sysctls() {
            assert!(
                crate::library::SYSCTLS.iter().any(|(n, _, _)| *n == sysctl),
                "{sysctl} is loaded"
            );
            if key != "buffer_splitting" {
                assert!(
                    matches!(counterpart(key), Some(Counterpart::StackWide(_))),
                    "{key}"
                );
            }
        }
    }

    #[test]
    fn every_scenario_option_has_a_counterpart() {
        use rexmit_options::Table;
        let mut keys = Vec::new();
        SctpConfig::default().visit("", &mut |row| {
            if row.public {
                keys.push(row.key)
            }
        });
        assert!(keys.len() > 30, "{keys:?}");
        for k in keys {
            assert!(counterpart(&k).is_some(), "{k} has no entry in OPTIONS");
        }
    }

    #[test]
    fn built_in_behaviours_accept_only_freebsds_value() {
        let mut cfg = SctpConfig {
            cwnd_growth: CwndGrowth::Rfc4960,
            ..SctpConfig::default()
        };
        assert!(UsrsctpConfig::from_sctp(&cfg, ["cwnd_growth", "hb_jitter"]).is_ok());
        cfg.cwnd_growth = CwndGrowth::Rfc9260;
        let e = UsrsctpConfig::from_sctp(&cfg, ["cwnd_growth"]).unwrap_err();
        assert!(e.reason.starts_with("usrsctp has only rfc4960"), "{e}");
        cfg.hb_jitter = false;
        let e = UsrsctpConfig::from_sctp(&cfg, ["hb_jitter"]).unwrap_err();
        assert_eq!(e.option, "hb_jitter");
    }

    #[test]
    fn freebsd_built_ins_pass_their_own_check() {
        let mut cfg = SctpConfig::default();
        cfg.cmt.sfr = false;
        cfg.hb_jitter = false;
        let c = with_freebsd_built_ins(&cfg);
        let built_in: Vec<&str> = OPTIONS
            .iter()
            .filter(|(_, c)| matches!(c, Counterpart::BuiltIn(_)))
            .map(|(k, _)| *k)
            .collect();
        assert_eq!(built_in.len(), 22, "{built_in:?}");
        assert!(UsrsctpConfig::from_sctp(&c, &built_in).is_ok());
        assert!(UsrsctpConfig::from_sctp(&cfg, ["cmt.sfr"]).is_err());
        assert!(UsrsctpConfig::from_sctp(&cfg, ["cmt.rtx_pseudo_cumack"]).is_err());
        assert!(UsrsctpConfig::from_sctp(&cfg, ["fr_max_burst"]).is_err());
        assert!(UsrsctpConfig::from_sctp(&cfg, ["fr_ssthresh_floor_mtus"]).is_err());
        assert!(UsrsctpConfig::from_sctp(&cfg, ["grow_before_cut"]).is_err());
        assert!(UsrsctpConfig::from_sctp(&cfg, ["sack_first_data"]).is_err());
        assert!(UsrsctpConfig::from_sctp(&cfg, ["tsn_map_window"]).is_err());
        assert!(UsrsctpConfig::from_sctp(&cfg, ["cmt.cut_every_sack"]).is_err());
        assert!(UsrsctpConfig::from_sctp(&cfg, ["cmt.grow_in_recovery"]).is_err());
        assert!(UsrsctpConfig::from_sctp(&cfg, ["cmt.rtx_dest_at_mark"]).is_err());
        assert!(UsrsctpConfig::from_sctp(&cfg, ["cmt.no_fr_after_t3"]).is_err());
    }
}
