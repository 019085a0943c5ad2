//! Loss-detection policies (issue 36): the two numbers that decide when the sender believes a
//! segment is lost, as a plugin a researcher can replace without forking — the duplicate-ACK
//! threshold (DupThresh: RFC 5681 §3.2, RFC 6675 §2 and §5; RFC 5827 early retransmit; the
//! thin-stream rule of seed 004) and RACK's reordering window (RFC 8985 §6.2 step 4), each a
//! function of the sender's state at the moment it is asked.
//!
//! A scenario selects one by name (`loss = "rfc"`, the built-in, and `loss_params` for its
//! declared parameters) from the registry (`POLICIES`), exactly as `cc` selects a controller.
//! The sender asks `dup_thresh` whenever it compares duplicate ACKs or SACKed segments with the
//! threshold (limited transmit, RFC 6675 IsLost, entering recovery, `tcp_info`'s reordering)
//! and `reo_wnd` before every RACK loss scan (after each ACK and when the reordering timer
//! fires). Both take `&self`: a policy that learns across calls keeps its state in cells (a
//! Python policy in its attributes). Owns: the thresholds. Does not own: counting duplicate
//! ACKs, the scoreboard or RACK's own state (`rexmit_transport::rack`), which the state
//! structs report.

use crate::named::{Declares, Kind, ParamSpec, Registry};
use rexmit_time::{Duration, Time};
use rexmit_transport::thresholds::early_retransmit_threshold;
use std::sync::Arc;

/// What the sender knows when it asks for DupThresh.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DupThreshState {
    /// The time of the sender's latest ACK or timer.
    pub now: Time,
    /// The configured threshold (`dup_thresh`, RFC 5681 §3.2: 3).
    pub dup_thresh: u32,
    /// Duplicate ACKs counted since snd_una last advanced.
    pub dupacks: u32,
    /// Segments sent and not cumulatively acknowledged (SACKed ones included).
    pub outstanding: u32,
    /// Previously unsent data could be sent now (RFC 5827 §2's condition).
    pub new_data_sendable: bool,
    /// RFC 5827 early retransmit is on (`early_retransmit`).
    pub early_retransmit: bool,
    /// The thin-stream rule applies (seed 004: `thin_dupack` on and fewer than four
    /// segments outstanding).
    pub thin: bool,
    /// A loss-recovery episode is open.
    pub in_recovery: bool,
    /// D-SACK blocks received so far on the connection (RFC 2883).
    pub dsacks: u64,
}

/// What the sender knows when it asks for RACK's reordering window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReoWndState {
    pub now: Time,
    /// RACK.reordering_seen (RFC 8985 §6.2 step 3).
    pub reordering_seen: bool,
    /// RACK.reo_wnd_mult, raised by D-SACKs (§6.2 step 4).
    pub reo_wnd_mult: u32,
    /// A loss-recovery episode is open.
    pub in_recovery: bool,
    /// Segments SACKed on the scoreboard.
    pub segs_sacked: u32,
    /// The DupThresh in force (`dup_thresh` of this policy).
    pub dup_thresh: u32,
    /// RACK.rtt: the RTT of the most recently delivered segment.
    pub rack_rtt: Duration,
    pub min_rtt: Option<Duration>,
    pub srtt: Option<Duration>,
    /// D-SACK blocks received so far on the connection.
    pub dsacks: u64,
}

/// A loss-detection policy for one connection.
pub trait LossPolicy: Send {
    /// The duplicate-ACK threshold in force (a whole number of segments, at least 1).
    fn dup_thresh(&self, s: &DupThreshState) -> u32 {
        rfc_dup_thresh(s)
    }
    /// RACK's reordering window.
    fn reo_wnd(&self, s: &ReoWndState) -> Duration {
        rfc_reo_wnd(s)
    }
    fn name(&self) -> &str;
}

/// The RFC rule for DupThresh: 1 under the thin-stream rule (seed 004 §3), RFC 5827's
/// ER_thresh = outstanding − 1 when early retransmit applies, else the configured threshold.
pub fn rfc_dup_thresh(s: &DupThreshState) -> u32 {
    if s.thin {
        return 1;
    }
    match early_retransmit_threshold(s.outstanding as u64, s.new_data_sendable, s.dup_thresh) {
        Some(er) if s.early_retransmit => er,
        _ => s.dup_thresh,
    }
}

/// RFC 8985 §6.2 step 4: zero once loss is likely (in recovery, or DupThresh segments SACKed)
/// and no reordering was seen; else reo_wnd_mult · min_RTT / 4, at most SRTT.
pub fn rfc_reo_wnd(s: &ReoWndState) -> Duration {
    rexmit_transport::rack::reo_wnd(
        s.reordering_seen,
        s.reo_wnd_mult,
        s.in_recovery || s.segs_sacked >= s.dup_thresh,
        s.min_rtt,
        s.srtt,
    )
}

/// A policy scenarios can name.
pub trait LossPlugin: Send + Sync {
    /// The name scenarios use (`loss = "rfc"`).
    fn name(&self) -> &str;
    /// One line: what it is and where it is specified.
    fn doc(&self) -> &str {
        ""
    }
    /// Its parameters, in the order `build` receives their values.
    fn params(&self) -> &[ParamSpec] {
        &[]
    }
    /// A policy for one connection; `values` follow `params()` (defaults filled in).
    fn build(&self, values: &[f64]) -> Box<dyn LossPolicy>;
}

impl<'a> Declares for dyn LossPlugin + 'a {
    fn plugin_name(&self) -> &str {
        self.name()
    }
    fn plugin_doc(&self) -> &str {
        self.doc()
    }
    fn plugin_params(&self) -> &[ParamSpec] {
        self.params()
    }
}

/// The built-in policy: the RFC rules above.
#[derive(Clone, Copy, Debug, Default)]
pub struct Rfc;

impl LossPolicy for Rfc {
    fn name(&self) -> &str {
        "rfc"
    }
}

impl LossPlugin for Rfc {
    fn name(&self) -> &str {
        "rfc"
    }
    fn doc(&self) -> &str {
        "DupThresh of RFC 5681/6675 with RFC 5827 early retransmit and the thin-stream rule; \
         RACK's reo_wnd of RFC 8985 §6.2"
    }
    fn build(&self, _: &[f64]) -> Box<dyn LossPolicy> {
        Box::new(Rfc)
    }
}

fn builtins() -> Vec<Arc<dyn LossPlugin>> {
    vec![Arc::new(Rfc)]
}

/// The loss-detection policies by name.
pub static POLICIES: Registry<dyn LossPlugin> = Registry::new(
    Kind {
        key: "loss",
        params_key: "loss_params",
        noun: "loss-detection policy",
    },
    builtins,
);

#[cfg(test)]
mod tests {
    use super::*;

    fn dt() -> DupThreshState {
        DupThreshState {
            now: Time::ZERO,
            dup_thresh: 3,
            dupacks: 0,
            outstanding: 10,
            new_data_sendable: true,
            early_retransmit: true,
            thin: false,
            in_recovery: false,
            dsacks: 0,
        }
    }

    #[test]
    fn rfc_dup_thresh_follows_early_retransmit_and_the_thin_rule() {
        assert_eq!(Rfc.dup_thresh(&dt()), 3);
        // RFC 5827 §2: 3 outstanding, nothing new to send: ER_thresh = 2.
        let er = DupThreshState {
            outstanding: 3,
            new_data_sendable: false,
            ..dt()
        };
        assert_eq!(Rfc.dup_thresh(&er), 2);
        let off = DupThreshState {
            early_retransmit: false,
            ..er
        };
        assert_eq!(Rfc.dup_thresh(&off), 3);
        assert_eq!(Rfc.dup_thresh(&DupThreshState { thin: true, ..dt() }), 1);
    }

    #[test]
    fn rfc_reo_wnd_is_a_quarter_min_rtt_until_loss_is_likely() {
        let ms = Duration::from_millis;
        let s = ReoWndState {
            now: Time::ZERO,
            reordering_seen: false,
            reo_wnd_mult: 1,
            in_recovery: false,
            segs_sacked: 1,
            dup_thresh: 3,
            rack_rtt: ms(100),
            min_rtt: Some(ms(100)),
            srtt: Some(ms(120)),
            dsacks: 0,
        };
        assert_eq!(Rfc.reo_wnd(&s), ms(25));
        assert_eq!(
            Rfc.reo_wnd(&ReoWndState {
                segs_sacked: 3,
                ..s
            }),
            ms(0)
        );
        let seen = ReoWndState {
            segs_sacked: 3,
            reordering_seen: true,
            reo_wnd_mult: 2,
            ..s
        };
        assert_eq!(Rfc.reo_wnd(&seen), ms(50));
    }

    #[test]
    fn the_registry_holds_rfc_and_names_loss_params_in_errors() {
        assert_eq!(POLICIES.names(), vec!["rfc".to_string()]);
        let e = POLICIES
            .select("rfc", &crate::named::ParamMap::of(&[("k", 1.0)]))
            .err()
            .unwrap();
        assert_eq!(e.field, "loss_params.k");
        let e = POLICIES.select("nope", &Default::default()).err().unwrap();
        assert_eq!(
            (e.field.as_str(), e.allowed.as_str()),
            ("loss", "one of rfc")
        );
    }
}
