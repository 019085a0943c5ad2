//! `[[metrics.trace]]`: which flows record their events (checked here) and the shared records
//! the build hands to their sending adapters (`rexmit_endpoints::trace`).

use crate::error::{Result, ScenarioError};
use crate::schema::{AppKind, Scenario};
use rexmit_endpoints::trace::{FlowTrace, TraceRef};
use rexmit_time::Time;

const TRACEABLE: &str = "tcp_bulk, tcp_messages, sctp_bulk or sctp_messages";

/// Every entry names a TCP or SCTP flow of the scenario once, with `from` < `to` ≤ stop_time.
pub fn validate(s: &Scenario) -> Result<()> {
    for (i, t) in s.metrics.trace.iter().enumerate() {
        let path = format!("metrics.trace[{i}]");
        let names = || {
            s.apps
                .iter()
                .map(|a| a.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let Some(app) = s.apps.iter().find(|a| a.name == t.flow) else {
            return Err(ScenarioError::new(
                format!("{path}.flow"),
                format!("no app named {:?} (apps: {})", t.flow, names()),
            ));
        };
        if !matches!(
            app.kind(),
            AppKind::TcpBulk | AppKind::TcpMessages | AppKind::SctpBulk | AppKind::SctpMessages
        ) {
            return Err(ScenarioError::new(
                format!("{path}.flow"),
                format!(
                    "app {:?} is of kind {:?}; only {TRACEABLE} flows can be traced",
                    t.flow,
                    app.kind().name()
                ),
            ));
        }
        if let Some(j) = s.metrics.trace[..i].iter().position(|o| o.flow == t.flow) {
            return Err(ScenarioError::new(
                format!("{path}.flow"),
                format!("flow {:?} is already traced by metrics.trace[{j}]", t.flow),
            ));
        }
        let stop = s.stop_time.0;
        for (field, v) in [("from", t.from), ("to", t.to)] {
            if let Some(v) = v.filter(|v| v.0 > stop) {
                return Err(ScenarioError::new(
                    format!("{path}.{field}"),
                    format!(
                        "{} is after stop_time ({stop}): allowed range is 0 to stop_time",
                        v.0
                    ),
                ));
            }
        }
        if let (Some(f), Some(to)) = (t.from, t.to) {
            if to.0 <= f.0 {
                return Err(ScenarioError::new(
                    format!("{path}.to"),
                    format!("{} must be after from ({})", to.0, f.0),
                ));
            }
        }
    }
    Ok(())
}

/// The trace record of app `name`, if `[[metrics.trace]]` asks for one.
pub fn for_app(s: &Scenario, name: &str) -> Option<TraceRef> {
    let t = s.metrics.trace.iter().find(|t| t.flow == name)?;
    Some(FlowTrace::shared(
        Time::ZERO + t.from.map_or(rexmit_time::Duration::ZERO, |d| d.0),
        t.to.map(|d| Time::ZERO + d.0),
    ))
}
