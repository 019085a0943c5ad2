//! A scenario with every default written out (`rexmit normalize`, the `scenario.toml` of a run):
//! each TCP and SCTP app's settings as the core will run them, the guards' defaults, and the
//! parameters of each active queue (`QueueCfg::with_defaults`). Only
//! for showing: a scenario re-read from it runs the same, but its explicit values no longer
//! follow a changed `profile`, so sweeps keep varying the scenario as written.

use crate::mirror::Named;
use crate::schema::{AppCfg, Scenario};
use crate::transport::{SctpCfg, TcpCfg};
use rexmit_sctp::SctpConfig;
use rexmit_tcp::profile::Profile;
use rexmit_tcp::TcpConfig;

/// The TCP table as the core runs it, under the profile it was written for.
fn tcp(profile: Option<Named<Profile>>, c: &TcpConfig) -> TcpCfg {
    TcpCfg {
        profile: Some(profile.unwrap_or(Named(Profile::Rfc))),
        ..TcpCfg::from_core(c)
    }
}

fn sctp(c: &SctpConfig) -> SctpCfg {
    SctpCfg::from_core(c)
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
        let mut links: Vec<&mut crate::schema::LinkProps> = s.links.iter_mut().collect();
        if let Some(t) = &mut s.topology {
            links.extend(t.link_tables_mut());
        }
        for l in links {
            if let Some(q) = &l.queue {
                l.queue = Some(q.with_defaults("queue")?);
            }
        }
        Ok(s)
    }
}
