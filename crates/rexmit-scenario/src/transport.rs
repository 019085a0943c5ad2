//! TCP and SCTP settings of an application (`tcp = { ... }`, `sctp = { ... }`). Every key is
//! optional and defaults to the core's. The tables are the cores' option tables mirrored
//! (`mirror.rs`): keys, order, docs, units and ranges are declared once in the cores
//! (`rexmit_tcp::tcp_option_table`, `rexmit_sctp::sctp_option_table` and the nested tables);
//! what is written here is only what a scenario adds: `profile`, `thin.all`, and the rules about
//! keys written together (`aimd_a`/`aimd_b` with `cc = "aimd"`).

use crate::error::{Result, ScenarioError};
use crate::mirror::{Extras, Named};
use rexmit_sctp::{CmtConfig, RackConfig, SctpConfig, ThinStreamConfig};
use rexmit_tcp::cc::registry;
use rexmit_tcp::profile::Profile;
use rexmit_tcp::TcpConfig;
use rexmit_transport::RtoConfig;

rexmit_transport::rto_option_table!(crate::mirror_table {
    /// `rto = { ... }` of TCP and SCTP.
    pub struct RtoCfg for RtoConfig {}
});

rexmit_tcp::tcp_option_table!(crate::mirror_table {
    /// `tcp = { ... }` of a TCP app.
    pub struct TcpCfg for TcpConfig {
        /// The defaults the other keys override: "rfc" (default) or "linux" (Linux 6.x as
        /// rexmit models it: the option table's Linux column).
        profile: Named<Profile>,
        /// The old name of `cc_params.a` of cc = "aimd" (seed 003), still accepted.
        aimd_a: f64,
        /// The old name of `cc_params.b` of cc = "aimd".
        aimd_b: f64,
    }
});

rexmit_sctp::cmt_option_table!(crate::mirror_table {
    /// `sctp.cmt = { ... }`.
    pub struct CmtCfg for CmtConfig {}
});

rexmit_sctp::thin_option_table!(crate::mirror_table {
    /// Seed 004's thin-stream modifications (`sctp.thin = { ... }`), each applied only while the
    /// association is thin.
    pub struct ThinCfg for ThinStreamConfig {
        /// Turn on the paper's four modifications together (RTO.min, restart correction, linear
        /// timeouts, fast retransmit on the first indication); single switches override.
        all: bool,
    }
});

rexmit_sctp::rack_option_table!(crate::mirror_table {
    /// RACK for SCTP (`sctp.rack = { ... }`, seed 002).
    pub struct RackCfg for RackConfig {}
});

rexmit_sctp::sctp_option_table!(crate::mirror_table {
    /// `sctp = { ... }` of an SCTP app.
    pub struct SctpCfg for SctpConfig {}
});

/// Which SCTP runs an `sctp_bulk` or `sctp_messages` association (`stack = "..."`).
#[derive(Clone, Copy, Debug, Default, serde::Deserialize, serde::Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SctpStack {
    /// rexmit's own SCTP core (`rexmit-sctp`).
    #[default]
    Rexmit,
    /// FreeBSD's SCTP stack as the usrsctp library packages it, loaded at run time and hosted
    /// in virtual time (`rexmit-usrsctp`); the `sctp` options map onto its socket options and
    /// sysctls, and one without a counterpart is refused by name (`crate::usrsctp`).
    Usrsctp,
}

/// `profile` chooses the configuration the other keys are written onto.
impl Extras<TcpConfig> for TcpCfg {
    fn apply_extras(&self, c: &mut TcpConfig, _path: &str) -> Result<()> {
        if let Some(Named(p)) = self.profile {
            *c = p.config();
        }
        Ok(())
    }
}

/// `all = true`: seed 004's four modifications, before the single switches.
impl Extras<ThinStreamConfig> for ThinCfg {
    fn apply_extras(&self, t: &mut ThinStreamConfig, _path: &str) -> Result<()> {
        if self.all == Some(true) {
            let all = ThinStreamConfig::all_seed004();
            t.rto_min_200ms = all.rto_min_200ms;
            t.timer_restart_correction = all.timer_restart_correction;
            t.linear_timeouts = all.linear_timeouts;
            t.fast_rtx_first_indication = all.fast_rtx_first_indication;
        }
        Ok(())
    }
}

impl TcpCfg {
    /// The core configuration, range-checked; `path` is this table's key path (`apps[0].tcp`).
    pub fn to_config(&self, path: &str) -> Result<TcpConfig> {
        let mut c = TcpConfig::default();
        self.apply(&mut c, path)?;
        self.legacy_aimd_keys(&mut c, path)?;
        // A profile's HyStart belongs to its CUBIC (and is told to plugin controllers, which
        // may follow it).
        if self
            .cc
            .as_ref()
            .is_some_and(|cc| cc != "cubic" && registry::is_builtin(cc))
            && self.hystart.is_none()
        {
            c.hystart = false;
        }
        c.validate().map_err(|e| {
            let origin = self.unset_origin(&e.field, &c);
            let message = if e.field == "cc" {
                format!(
                    "{:?} is not a registered congestion controller: {}",
                    e.got, e.allowed
                )
            } else if e.field == "loss" {
                format!(
                    "{:?} is not a registered loss-detection policy: {}",
                    e.got, e.allowed
                )
            } else {
                format!("{} is out of range: allowed {}{origin}", e.got, e.allowed)
            };
            ScenarioError::new(format!("{path}.{}", e.field), message)
        })?;
        // Every parameter of the controller written out (what normalize shows and runs use).
        let plugin = registry::lookup(c.cc.as_str()).expect("validated");
        c.cc_params = registry::complete(plugin.as_ref(), &c.cc_params).expect("validated");
        let policies = &rexmit_tcp::loss::POLICIES;
        let policy = policies.lookup(c.loss.as_str()).expect("validated");
        c.loss_params = policies
            .complete(policy.as_ref(), &c.loss_params)
            .expect("validated");
        Ok(c)
    }

    /// `aimd_a`/`aimd_b`, the old names of generalised AIMD's `cc_params` a and b: only with
    /// cc = "aimd" written here, and not together with the new names.
    fn legacy_aimd_keys(&self, c: &mut TcpConfig, path: &str) -> Result<()> {
        if self.aimd_a.is_none() && self.aimd_b.is_none() {
            return Ok(());
        }
        if self.cc.as_deref() != Some("aimd") {
            return Err(ScenarioError::new(
                format!("{path}.aimd_a"),
                "aimd_a/aimd_b are only used with cc = \"aimd\"",
            ));
        }
        for (old, new, v) in [("aimd_a", "a", self.aimd_a), ("aimd_b", "b", self.aimd_b)] {
            let Some(v) = v else { continue };
            if c.cc_params.get(new).is_some() {
                return Err(ScenarioError::new(
                    format!("{path}.{old}"),
                    format!("is cc_params.{new} under its old name: write it once"),
                ));
            }
            c.cc_params.set(new, v);
        }
        Ok(())
    }

    /// When the value the core refused was not written in this table, where it came from
    /// (the profile or the default), so that the error says which key to set.
    fn unset_origin(&self, field: &str, c: &TcpConfig) -> String {
        let profile = match self.profile {
            Some(Named(Profile::Linux)) => "the linux profile",
            _ => "the default",
        };
        match field {
            "rack" if self.rack.is_none() => {
                format!(" (rack = true comes from {profile}: set rack = false with this recovery)")
            }
            "frto" if self.frto.is_none() => {
                format!(" (frto = true comes from {profile}: set frto = false with this recovery)")
            }
            "tlp" if self.tlp.is_none() => {
                format!(" (tlp = true comes from {profile}: set tlp = false with this recovery)")
            }
            "prr" if self.prr.is_none() => {
                format!(" (prr = true comes from {profile}: set prr = false with this recovery)")
            }
            "ecn" if self.ecn.is_none() => format!(
                " (ecn = \"{}\" comes from {profile}: set ecn = \"on\")",
                rexmit_options::Choice::name(c.ecn)
            ),
            "recv_buffer" if self.recv_buffer.is_none() => format!(
                " (recv_buffer = {} comes from {profile}: set recv_buffer)",
                c.recv_buffer
            ),
            _ => String::new(),
        }
    }
}

impl SctpCfg {
    pub fn to_config(&self, path: &str) -> Result<SctpConfig> {
        let mut c = SctpConfig::default();
        self.apply(&mut c, path)?;
        c.validate().map_err(|e| {
            let registered =
                c.cc.as_ref()
                    .map(|n| registry::lookup(n.as_str()).is_some());
            let why = rexmit_sctp::config::refused_with_cc(&e.field, &e.allowed);
            let message = match (registered, why) {
                (Some(false), _) if e.field == "cc" => format!(
                    "{:?} is not a registered congestion controller: {}",
                    e.got, e.allowed
                ),
                // A value a plugged controller cannot run with: say what it would do.
                (Some(true), Some(why)) => {
                    let got = if matches!(e.got.as_str(), "true" | "false") {
                        e.got.clone()
                    } else {
                        format!("{:?}", e.got)
                    };
                    format!("{got} {why}: allowed {}", e.allowed)
                }
                _ => format!("{} is out of range: allowed {}", e.got, e.allowed),
            };
            ScenarioError::new(format!("{path}.{}", e.field), message)
        })?;
        // Every parameter of the controller written out (what normalize shows and runs use).
        if let Some(cc) = &c.cc {
            let plugin = registry::lookup(cc.as_str()).expect("validated");
            c.cc_params = registry::complete(plugin.as_ref(), &c.cc_params).expect("validated");
        }
        Ok(c)
    }
}
