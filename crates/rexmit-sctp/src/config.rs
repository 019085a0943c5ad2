//! Every knob of an SCTP association, with RFC 4960 / RFC 9260 defaults, and its validation.
//! Owns: parameter values and their allowed ranges. Does not own: any behaviour.

use rexmit_time::Duration;
use rexmit_transport::{PersistFrom, RtoConfig};
use std::fmt;

/// How Max.Burst limits a transmit opportunity (RFC 9260 §6.1 D).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaxBurstRule {
    /// At most Max.Burst new-data packets per destination per opportunity, cwnd untouched:
    /// RFC 9260, and what seed 000 §V.B.1 describes ("cwnd on path 2 is 127162 bytes, but the
    /// Maxburst parameter limits the sender to transmit only 4 MTU sized TPDUs").
    LimitPackets,
    /// RFC 4960 §6.1 D: lower cwnd to flightsize + Max.Burst·MTU.
    ClampCwnd,
}

/// Whether the receiver may take back (renege) SACKed out-of-order data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RenegePolicy {
    /// Out-of-order data is never dropped once acked, so all of it is non-renegable (seed 000
    /// §II.A: FreeBSD `net.inet.sctp.do_sctp_drain=0`).
    Never,
    /// Undelivered out-of-order data is renegable; it is dropped when the receive buffer is
    /// full and the chunk that would advance the cumulative TSN does not fit (RFC 9260 §6.2).
    UnderMemoryPressure,
}

/// Where CMT sends retransmissions (Iyengar et al., §4 of the CMT paper).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RtxPolicy {
    /// RTX-SAME: the destination of the original transmission.
    Same,
    /// RTX-ASAP: any destination with cwnd space now.
    Asap,
    /// RTX-CWND: the active destination with the largest cwnd.
    Cwnd,
    /// RTX-SSTHRESH: the active destination with the largest ssthresh (seed 000 §IV.A).
    Ssthresh,
}

/// Concurrent Multipath Transfer knobs.
#[derive(Clone, Debug, PartialEq)]
pub struct CmtConfig {
    /// Send new data on all active paths (off: only on the primary, plain SCTP).
    pub enabled: bool,
    /// Split Fast Retransmit: count miss indications per destination.
    pub sfr: bool,
    /// Cwnd Update for CMT: grow a destination's cwnd on its own pseudo cumulative ack.
    pub cuc: bool,
    /// Delayed Ack for CMT (DAC): the receiver keeps delaying SACKs through reordering and
    /// reports the packets each SACK covers; the sender counts that many miss indications
    /// when the SACK acknowledges data of one destination only, above the missing TSN.
    pub dac: bool,
    pub rtx_policy: RtxPolicy,
    /// Potentially-failed state: a path that timed out once gets no new data until a
    /// heartbeat confirms it (CMT-PF).
    pub pf: bool,
    /// Consecutive timeouts after which a path becomes potentially failed.
    pub pf_threshold: u32,
}

impl Default for CmtConfig {
    fn default() -> Self {
        CmtConfig {
            enabled: false,
            sfr: true,
            cuc: true,
            dac: true,
            rtx_policy: RtxPolicy::Ssthresh,
            pf: false,
            pf_threshold: 1,
        }
    }
}

/// Seed 004's thin-stream modifications (§5) and two comparison mechanisms, each switchable on
/// its own; all off by default (plain RFC 9260 behaviour). The four seed-004 modifications act
/// only while the association is thin (see `crate::thin`); EFR and RFC 5827 early retransmit
/// have their own activation rules.
#[derive(Clone, Debug, PartialEq)]
pub struct ThinStreamConfig {
    /// Seed 004 §5.2: RTO.Min of `thin_rto_min` (200 ms) instead of RTO.Min while thin.
    pub rto_min_200ms: bool,
    /// Seed 004 §5.2: a SACK that restarts T3-rtx (RFC 9260 §6.3.2 R3) restarts it so that it
    /// expires one RTO after the earliest outstanding chunk was sent, not one RTO after the SACK.
    pub timer_restart_correction: bool,
    /// Seed 004 §5.3: no exponential backoff of the RTO on T3-rtx expiry while thin.
    pub linear_timeouts: bool,
    /// Seed 004 §5.4: fast retransmit on the first miss indication while thin (instead of 3).
    pub fast_rtx_first_indication: bool,
    /// FreeBSD's early fast retransmit (seed 004 §2, §7.5): while flightsize < cwnd, chunks
    /// outstanding longer than SRTT + RTTVAR (at least `efr_min`) are retransmitted and cwnd
    /// shrinks by one MTU.
    pub early_fast_retransmit: bool,
    /// The shortest EFR wait: FreeBSD's `net.inet.sctp.early_fast_retran_msec`, whose default
    /// is 250 ms (the FreeBSD 6.2 of seed 004 §6.4 ran with it). Zero gives seed 004 §2's
    /// description read literally (SRTT + RTTVAR alone).
    pub efr_min: Duration,
    /// RFC 5827 early retransmit (packet-based, §3.2): with fewer than 4 packets outstanding
    /// and no new data sendable, the fast-retransmit threshold drops to outstanding − 1.
    pub early_retransmit_rfc5827: bool,
    /// Seed 004 Fig. 3: `pttfr + 1`, the packets needed to trigger a fast retransmission plus
    /// the lost one (pttfr = 3). Thin while in_flight <= this / (1 − lossrate).
    pub thin_threshold_packets: u32,
    /// Use the loss-rate term of seed 004 Fig. 3 (off: thin while in_flight <= threshold).
    pub thin_loss_rate_term: bool,
    /// The lowered RTO.Min of `rto_min_200ms` (seed 004 §5.2: 200 ms).
    pub thin_rto_min: Duration,
}

impl Default for ThinStreamConfig {
    fn default() -> Self {
        ThinStreamConfig {
            rto_min_200ms: false,
            timer_restart_correction: false,
            linear_timeouts: false,
            fast_rtx_first_indication: false,
            early_fast_retransmit: false,
            early_retransmit_rfc5827: false,
            efr_min: Duration::from_millis(250),
            thin_threshold_packets: 4,
            thin_loss_rate_term: true,
            thin_rto_min: Duration::from_millis(200),
        }
    }
}

impl ThinStreamConfig {
    /// The four modifications of seed 004 §5 together ("All mods" of Fig. 8).
    pub fn all_seed004() -> Self {
        ThinStreamConfig {
            rto_min_200ms: true,
            timer_restart_correction: true,
            linear_timeouts: true,
            fast_rtx_first_indication: true,
            ..ThinStreamConfig::default()
        }
    }
    /// Some seed-004 modification needs the thin-stream test.
    pub fn needs_thin_test(&self) -> bool {
        self.rto_min_200ms
            || self.timer_restart_correction
            || self.linear_timeouts
            || self.fast_rtx_first_indication
    }
    /// Packets in flight must be tracked (thin test or RFC 5827's outstanding packets).
    pub fn tracks_packets(&self) -> bool {
        self.needs_thin_test() || self.early_retransmit_rfc5827
    }
}

/// How bursts are limited while recovering from a tail loss found by a tail loss probe
/// (seed 002 §V.A).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BurstMitigation {
    /// Only cwnd limits the retransmissions (seed 002 Fig. 8).
    None,
    /// SCTP's Max.Burst (`max_burst` packets per transmit opportunity, Fig. 9).
    MaxBurst,
    /// Seed 002's adaptive limit: 4 MTU per opportunity in the first recovery round trip, 2
    /// MTU after; lowered when retransmissions are lost, reset after 16 clean recoveries.
    Adaptive,
}

/// RACK for SCTP (seed 002 §III): per-chunk RACK-TLP loss detection in place of the
/// three-miss-indication rule. All off by default (plain RFC 9260).
#[derive(Clone, Debug, PartialEq)]
pub struct RackConfig {
    /// Time-based loss detection (RFC 8985 §6 per DATA chunk); replaces fast retransmit on
    /// three miss indications.
    pub enabled: bool,
    /// Tail loss probes (seed 002 §II.C): PTO = 2·SRTT + 2 ms, or + 200 ms with one chunk out.
    pub tlp: bool,
    /// Burst limit in TLP-triggered recovery (seed 002 §V.A).
    pub burst_mitigation: BurstMitigation,
    /// PTO's addition when more than one chunk is outstanding (seed 002 §II.C: 2 ms).
    pub pto_extra: Duration,
    /// What restarts the 16-recovery persistence of a widened reordering window: the last
    /// D-SACK (RFC 8985 §6.2, the default) or also each reordering detected (seed 002 §II.B).
    pub reo_wnd_persist: PersistFrom,
}

impl Default for RackConfig {
    fn default() -> Self {
        RackConfig {
            enabled: false,
            tlp: true,
            burst_mitigation: BurstMitigation::Adaptive,
            pto_extra: Duration::from_millis(2),
            reo_wnd_persist: PersistFrom::Dsack,
        }
    }
}

impl RackConfig {
    /// RACK with TLP and the adaptive burst limit: seed 002's full proposal.
    pub fn seed002() -> Self {
        RackConfig {
            enabled: true,
            ..RackConfig::default()
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct SctpConfig {
    /// Path MTU in bytes (IP header included), the same for every path.
    pub pmtu: u32,
    /// Send buffer limit in bytes of user data (unsent data plus retransmission queue).
    pub send_buffer: u64,
    /// Receive buffer in bytes of user data; advertised as the initial a_rwnd.
    pub recv_buffer: u32,
    /// Delivered messages leave the receive buffer at once (an application that always
    /// reads). Off: they stay until `Association::consume` (a slow reader).
    pub auto_consume: bool,
    pub outbound_streams: u16,
    pub max_inbound_streams: u16,
    /// RTO.Initial / RTO.Min / RTO.Max (RFC 4960 §15: 3 s, 1 s, 60 s).
    pub rto: RtoConfig,
    /// Max.Burst (RFC 9260 §16: 4); 0 disables the limit.
    pub max_burst: u32,
    /// Initial cwnd in bytes; `None` = RFC 9260 §7.2.1 min(4·MTU, max(2·MTU, 4380)).
    pub initial_cwnd: Option<u64>,
    /// Initial ssthresh in bytes; `None` = the peer's a_rwnd (RFC 9260 §7.2.1).
    pub initial_ssthresh: Option<u64>,
    pub max_burst_rule: MaxBurstRule,
    /// Delayed SACK timer (RFC 9260 §6.2: 200 ms, at most 500 ms).
    pub sack_delay: Duration,
    /// SACK every `sack_freq`-th packet carrying DATA (RFC 9260 §6.2: 2).
    pub sack_freq: u32,
    /// SACK at once while gaps exist or when a gap is filled (RFC 9260 §6.7).
    pub immediate_sack_on_gap: bool,
    /// Offer the NR-SACK extension (chunk type 16) in INIT / INIT-ACK.
    pub nr_sack: bool,
    pub renege: RenegePolicy,
    /// Association.Max.Retrans (10).
    pub assoc_max_retrans: u32,
    /// Path.Max.Retrans (5).
    pub path_max_retrans: u32,
    /// Max.Init.Retransmits (8).
    pub max_init_retransmits: u32,
    /// HB.interval (30 s); `None` disables heartbeats.
    pub hb_interval: Option<Duration>,
    /// Valid.Cookie.Life (60 s).
    pub valid_cookie_life: Duration,
    /// Key for the state cookie's integrity check (deterministic, no RNG).
    pub cookie_secret: u64,
    pub cmt: CmtConfig,
    /// Thin-stream modifications (seed 004), all off by default.
    pub thin: ThinStreamConfig,
    /// RACK-TLP loss detection (seed 002), off by default.
    pub rack: RackConfig,
}

impl Default for SctpConfig {
    fn default() -> Self {
        SctpConfig {
            pmtu: 1500,
            send_buffer: 64 * 1024,
            recv_buffer: 64 * 1024,
            auto_consume: true,
            outbound_streams: 10,
            max_inbound_streams: 2048,
            rto: RtoConfig::sctp(),
            max_burst: 4,
            initial_cwnd: None,
            initial_ssthresh: None,
            max_burst_rule: MaxBurstRule::LimitPackets,
            sack_delay: Duration::from_millis(200),
            sack_freq: 2,
            immediate_sack_on_gap: true,
            nr_sack: false,
            renege: RenegePolicy::UnderMemoryPressure,
            assoc_max_retrans: 10,
            path_max_retrans: 5,
            max_init_retransmits: 8,
            hb_interval: Some(Duration::from_secs(30)),
            valid_cookie_life: Duration::from_secs(60),
            cookie_secret: 0x7265_786d_6974_5343,
            cmt: CmtConfig::default(),
            thin: ThinStreamConfig::default(),
            rack: RackConfig::default(),
        }
    }
}

/// A parameter outside its allowed range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    pub field: &'static str,
    pub allowed: String,
    pub got: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "sctp.{}: {} is outside the allowed range {}",
            self.field, self.got, self.allowed
        )
    }
}
impl std::error::Error for ConfigError {}

fn check(
    ok: bool,
    field: &'static str,
    allowed: &str,
    got: impl fmt::Display,
) -> Result<(), ConfigError> {
    if ok {
        Ok(())
    } else {
        Err(ConfigError {
            field,
            allowed: allowed.to_string(),
            got: got.to_string(),
        })
    }
}

/// The largest send buffer (4 GiB).
pub const SEND_BUFFER_MAX: u64 = 1 << 32;

impl SctpConfig {
    /// Largest user-data payload of one DATA chunk alone in a packet: PMTU minus the IPv4
    /// header (20), the SCTP common header (12) and the DATA chunk header (16). Congestion
    /// control uses it wherever the RFC says "MTU", like TCP's SMSS, so that "n TPDUs" in
    /// seed 000's figures are exactly n of these.
    pub fn max_data_payload(&self) -> u32 {
        (self.pmtu - 20 - 12 - 16) & !3
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        check(
            (576..=65535).contains(&self.pmtu),
            "pmtu",
            "576..=65535",
            self.pmtu,
        )?;
        // The upper bound is the receive buffer's (a_rwnd is 32 bits, RFC 9260 §3.3.2): a bulk
        // source fills its send buffer with messages at once, so a bound-less buffer would
        // never stop filling.
        check(
            (self.max_data_payload() as u64..=SEND_BUFFER_MAX).contains(&self.send_buffer),
            "send_buffer",
            "one full DATA chunk (pmtu - 48) ..= 4294967296 (4 GiB)",
            self.send_buffer,
        )?;
        check(
            self.recv_buffer >= 1500,
            "recv_buffer",
            ">= 1500 (RFC 9260 §3.3.2)",
            self.recv_buffer,
        )?;
        check(
            self.outbound_streams >= 1,
            "outbound_streams",
            "1..=65535",
            self.outbound_streams,
        )?;
        check(
            self.max_inbound_streams >= 1,
            "max_inbound_streams",
            "1..=65535",
            self.max_inbound_streams,
        )?;
        if let Some((field, allowed, got)) = self.rto.invalid() {
            check(false, field, allowed, got)?;
        }
        // Linux's estimator counts round trips in TCP sequence numbers (RFC 9260 §6.3.1 only).
        check(
            self.rto.estimator == rexmit_transport::RtoEstimator::Rfc6298,
            "rto.estimator",
            "rfc6298",
            format!("{:?}", self.rto.estimator).to_lowercase(),
        )?;
        if let Some(c) = self.initial_cwnd {
            check(
                c >= self.max_data_payload() as u64,
                "initial_cwnd",
                ">= one full DATA chunk (pmtu - 48)",
                c,
            )?;
        }
        if let Some(s) = self.initial_ssthresh {
            check(
                s >= self.max_data_payload() as u64,
                "initial_ssthresh",
                ">= one full DATA chunk (pmtu - 48)",
                s,
            )?;
        }
        check(
            !self.sack_delay.is_zero() && self.sack_delay <= Duration::from_millis(500),
            "sack_delay",
            "(0, 500ms] (RFC 9260 §6.2)",
            self.sack_delay,
        )?;
        check(self.sack_freq >= 1, "sack_freq", ">= 1", self.sack_freq)?;
        check(
            !self.thin.thin_rto_min.is_zero() && self.thin.thin_rto_min <= self.rto.max,
            "thin.thin_rto_min",
            "(0, rto.max]",
            self.thin.thin_rto_min,
        )?;
        check(
            self.thin.efr_min <= Duration::from_secs(60),
            "thin.efr_min",
            "0..=60s",
            self.thin.efr_min,
        )?;
        check(
            self.assoc_max_retrans >= 1,
            "assoc_max_retrans",
            ">= 1",
            self.assoc_max_retrans,
        )?;
        check(
            self.path_max_retrans >= 1,
            "path_max_retrans",
            ">= 1",
            self.path_max_retrans,
        )?;
        check(
            self.max_init_retransmits >= 1,
            "max_init_retransmits",
            ">= 1",
            self.max_init_retransmits,
        )?;
        if let Some(h) = self.hb_interval {
            check(!h.is_zero(), "hb_interval", "> 0 (or None to disable)", h)?;
        }
        check(
            !self.valid_cookie_life.is_zero(),
            "valid_cookie_life",
            "> 0",
            self.valid_cookie_life,
        )?;
        check(
            self.cmt.pf_threshold < self.path_max_retrans,
            "cmt.pf_threshold",
            "< path_max_retrans",
            self.cmt.pf_threshold,
        )?;
        check(
            self.thin.thin_threshold_packets >= 1,
            "thin.thin_threshold_packets",
            ">= 1",
            self.thin.thin_threshold_packets,
        )?;
        check(
            !self.thin.thin_rto_min.is_zero(),
            "thin.thin_rto_min",
            "> 0",
            self.thin.thin_rto_min,
        )?;
        // Seed 002 adapts RACK to one path; with CMT its time order across paths of different
        // delay would read path skew as loss.
        check(
            !(self.rack.enabled && self.cmt.enabled),
            "rack.enabled",
            "false when cmt.enabled (seed 002 specifies RACK for single-path transfer)",
            self.rack.enabled,
        )?;
        check(
            self.rack.pto_extra <= Duration::from_millis(200),
            "rack.pto_extra",
            "0..=200ms",
            self.rack.pto_extra,
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_follow_rfc() {
        let c = SctpConfig::default();
        c.validate().unwrap();
        assert_eq!(c.rto.initial, Duration::from_secs(3));
        assert_eq!(c.max_data_payload(), 1452);
    }

    #[test]
    fn bad_values_name_their_field() {
        let c = SctpConfig {
            sack_delay: Duration::from_secs(1),
            ..SctpConfig::default()
        };
        assert_eq!(c.validate().unwrap_err().field, "sack_delay");
        let c = SctpConfig {
            pmtu: 100,
            ..SctpConfig::default()
        };
        assert_eq!(c.validate().unwrap_err().field, "pmtu");
    }
}
