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

/// The SCTP table of an app that runs FreeBSD's SCTP (`stack = "usrsctp"`): its built-in
/// behaviours at FreeBSD's values, and no key that FreeBSD has no counterpart for (a scenario
/// may not set those).
fn usrsctp(c: &SctpConfig) -> SctpCfg {
    let mut t = SctpCfg::from_core(&rexmit_usrsctp::config::with_freebsd_built_ins(c));
    for (key, counterpart) in rexmit_usrsctp::OPTIONS {
        if let rexmit_usrsctp::Counterpart::None(_) = counterpart {
            match *key {
                "initial_ssthresh" => t.initial_ssthresh = None,
                "thin" => t.thin = None,
                "rack" => t.rack = None,
                "ecn" => t.ecn = None,
                "cc" => t.cc = None,
                "cc_params" => t.cc_params = None,
                other => unreachable!("usrsctp refuses {other}: leave it out here"),
            }
        }
    }
    t
}

fn app(a: &AppCfg, path: &str) -> crate::error::Result<AppCfg> {
    let usrsctp_app = crate::usrsctp::is_usrsctp(a);
    let mut a = a.clone();
    match a.transport_mut() {
        crate::schema::Transport::Tcp(t) => {
            let cfg = t.clone().unwrap_or_default();
            *t = Some(tcp(cfg.profile, &cfg.to_config(&format!("{path}.tcp"))?));
        }
        crate::schema::Transport::Sctp(t) => {
            let cfg = t.clone().unwrap_or_default();
            let core = cfg.to_config(&format!("{path}.sctp"))?;
            *t = Some(if usrsctp_app {
                usrsctp(&core)
            } else {
                sctp(&core)
            });
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
