//! `stack = "usrsctp"` on `sctp_bulk` and `sctp_messages` (issue 39): the app's association runs
//! FreeBSD's SCTP (the usrsctp library, `rexmit-usrsctp`) instead of rexmit's core.
//!
//! Owns what the scenario adds to `rexmit_usrsctp`: which `sctp` keys a table sets (the mapping
//! refuses, by key path, those FreeBSD has no counterpart for), the settings usrsctp has once
//! per process (every usrsctp app of a scenario must agree on them: checked at validation,
//! without the library), what a usrsctp flow cannot give (`[[metrics.trace]]`), and the run's
//! one stack, opened when the first usrsctp app is placed. Does not own the mapping itself
//! (`rexmit_usrsctp::config`) nor the agents.

use crate::error::{Result, ScenarioError};
use crate::schema::{AppCfg, Scenario};
use crate::transport::{SctpCfg, SctpStack};
use rexmit_sctp::SctpConfig;
use rexmit_usrsctp::{StackError, StackRun, UsrsctpConfig};
use std::rc::Rc;

/// The keys an `sctp` table sets, as `rexmit_usrsctp` names them (`rto.min`, `thin.all`).
fn set_keys(sctp: &Option<SctpCfg>) -> Vec<String> {
    let mut keys = Vec::new();
    if let Some(t) = sctp {
        t.set_keys("", &mut keys);
        if t.thin.as_ref().is_some_and(|th| th.all.is_some()) {
            keys.push("thin.all".to_string());
        }
    }
    keys
}

/// The usrsctp settings of app `path`'s validated `cfg`; a key FreeBSD's SCTP cannot take is an
/// error at its key path (`apps[0].sctp.rack.enabled`).
pub(crate) fn config(
    path: &str,
    sctp: &Option<SctpCfg>,
    cfg: &SctpConfig,
) -> Result<UsrsctpConfig> {
    UsrsctpConfig::from_sctp(cfg, set_keys(sctp))
        .map_err(|e| ScenarioError::new(format!("{path}.sctp.{}", e.option), e.reason))
}

/// Validation of the usrsctp apps taken together: their stack-wide settings agree, and no
/// trace names one of them. `configs` holds each usrsctp app's index and settings.
pub(crate) fn check_together(s: &Scenario, configs: &[(usize, UsrsctpConfig)]) -> Result<()> {
    if let Some(((first, c0), rest)) = configs.split_first() {
        for (i, c) in rest {
            for ((option, sysctl, v0), (_, _, v)) in
                c0.stack.sysctls().iter().zip(c.stack.sysctls())
            {
                if *v0 != v {
                    return Err(ScenarioError::new(
                        format!("apps[{i}].sctp.{option}"),
                        format!(
                            "usrsctp has one value per process (net.inet.sctp.{sysctl}), so every app with stack = \"usrsctp\" must use the same: {v} here, {v0} for apps[{first}] ({:?})",
                            s.apps[*first].name
                        ),
                    ));
                }
            }
        }
    }
    for (k, t) in s.metrics.trace.iter().enumerate() {
        if let Some(a) = s.apps.iter().find(|a| a.name == t.flow && is_usrsctp(a)) {
            return Err(ScenarioError::new(
                format!("metrics.trace[{k}].flow"),
                format!(
                    "flow {:?} runs FreeBSD's SCTP (stack = \"usrsctp\"): its events are not traced (the trace reads rexmit's core)",
                    a.name
                ),
            ));
        }
    }
    Ok(())
}

pub(crate) fn is_usrsctp(a: &AppCfg) -> bool {
    a.sctp_stack() == Some(SctpStack::Usrsctp)
}

/// The run's usrsctp stack, opened by the first usrsctp app placed (one per simulation; the
/// agents keep it until the simulation is dropped).
#[derive(Default)]
pub(crate) struct Stack(Option<Rc<StackRun>>);

impl Stack {
    /// The stack, opened with `seed` on first use; `path` is the app asking.
    pub(crate) fn get(&mut self, path: &str, seed: u64) -> Result<Rc<StackRun>> {
        if let Some(run) = &self.0 {
            return Ok(run.clone());
        }
        let run = StackRun::open(seed).map_err(|e| stack_error(path, e))?;
        self.0 = Some(run.clone());
        Ok(run)
    }
}

/// A stack error at the key path of the app `path` it concerns.
pub(crate) fn stack_error(path: &str, e: StackError) -> ScenarioError {
    match &e {
        StackError::Conflict { option, .. } => {
            ScenarioError::new(format!("{path}.sctp.{option}"), e.to_string())
        }
        StackError::Load(_) | StackError::Busy | StackError::Stuck => {
            ScenarioError::new(format!("{path}.stack"), e.to_string())
        }
        StackError::Call { .. } => ScenarioError::new(path, e.to_string()),
    }
}
