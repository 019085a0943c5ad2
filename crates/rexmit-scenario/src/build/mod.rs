//! Turning a validated scenario into a `Simulation`: topology, explicit nodes and links, apps,
//! time series and pcap taps. Name lookups and route checks happen here and name their key path.

mod apps;
mod network;

use crate::error::{Result, ScenarioError};
use crate::schema::*;
use crate::transport::{SctpCfg, TcpCfg};
use crate::units::DurationStr;
use apps::*;
use network::*;
use rexmit_endpoints::http::{HttpClient, HttpEndpoints, HttpServerSlot, HttpShared};
use rexmit_endpoints::latency::{StreamTruth, Tables};
use rexmit_endpoints::messages::MessageGen;
use rexmit_endpoints::sctp::{
    MessageApp, MessagesApp as SctpMessages, SctpAgent, SctpApp, SharedTruth, Truth,
};
use rexmit_endpoints::tcp::{BulkApp, MessagesApp as TcpMessages, TcpAgent, TcpApp};
use rexmit_endpoints::trace::TraceRef;
use rexmit_engine::{RngStream, StreamFactory};
use rexmit_net::apps::udp::{
    CbrSource, OnOffSource, PeriodDist, RandomSource, UdpEndpoints, UdpSink,
};
use rexmit_net::sim::SetupError;
use rexmit_net::topology::{
    self, AccessLink, DualDumbbellSpec, DumbbellSpec, Duplex, MultihomedHost,
};
use rexmit_net::*;
use rexmit_sctp::SctpConfig;
use rexmit_time::Time;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::Path;
use std::rc::Rc;

pub use apps::app_port;

/// A built simulation plus what is needed to report on it.
pub struct Built {
    pub sim: Simulation,
    /// For each app: (source agent, sink agent); `None` for an app between real hosts
    /// (`build_emulated`), which the emulator runs over kernel sockets.
    pub apps: Vec<Option<(AgentId, AgentId)>>,
    /// Per-flow tables (message latencies, HTTP responses) by app index, read after the run.
    pub tables: Vec<(usize, Box<dyn Tables>)>,
    pub pcap_files: Vec<String>,
    /// Deprecated names the scenario used (reported with the results).
    pub warnings: Vec<String>,
}

/// Build the simulation. `out_dir` receives pcap files (under `pcap/`), if any are requested.
pub fn build(s: &Scenario, out_dir: Option<&Path>) -> Result<Built> {
    build_with(s, out_dir.map_or(Pcaps::Refuse, Pcaps::Into), &[])
}

/// Build for emulation: the apps between the hosts of `emulation.real_hosts` get no agents
/// (their `Built::apps` entry is `None`); everything else is built as by `build`. An app with
/// one real end and one simulated end is refused, as is a real app other than `tcp_bulk` and
/// `tcp_messages` (whose message source the emulator checks).
pub fn build_emulated(s: &Scenario, out_dir: Option<&Path>) -> Result<Built> {
    let real: &[String] = s.emulation.as_ref().map_or(&[], |e| &e.real_hosts);
    for (i, a) in s.apps.iter().enumerate() {
        let (f, t) = (real.contains(&a.from), real.contains(&a.to));
        if f != t {
            let which = if f { "from" } else { "to" };
            return Err(ScenarioError::new(format!("apps[{i}].{which}"), "an app runs either between two real hosts or between two simulated ones, not across"));
        }
        if f && !matches!(
            a.traffic,
            AppTraffic::TcpBulk(_) | AppTraffic::TcpMessages(_)
        ) {
            return Err(ScenarioError::new(
                format!("apps[{i}].kind"),
                format!(
                    "{:?} between real hosts: only tcp_bulk and tcp_messages are run over kernel sockets",
                    a.kind().name()
                ),
            ));
        }
    }
    build_with(s, out_dir.map_or(Pcaps::Refuse, Pcaps::Into), real)
}

/// Everything `build` checks (names, routes, ports, pcap targets) without opening any file.
pub fn check(s: &Scenario) -> Result<()> {
    build_with(s, Pcaps::NamesOnly, &[]).map(|_| ())
}

/// What to do with requested pcap taps.
#[derive(Clone, Copy)]
enum Pcaps<'a> {
    Into(&'a Path),
    /// Resolve the link and node names only (validation).
    NamesOnly,
    /// No output directory: a requested pcap is an error.
    Refuse,
}

fn build_with(s: &Scenario, pcaps: Pcaps<'_>, real_hosts: &[String]) -> Result<Built> {
    crate::validate::validate(s)?;
    if s.apps.len() > 60_000 {
        return Err(ScenarioError::new(
            "apps",
            format!(
                "{} apps: at most 60000 are supported (one port each)",
                s.apps.len()
            ),
        ));
    }
    // Pass 1 learns the addresses that scripted error models of apps refer to.
    let probe = build_network_unresolved(s)?;
    let mut flows = BTreeMap::new();
    let mut seen = BTreeMap::new();
    for (i, a) in s.apps.iter().enumerate() {
        let path = format!("apps[{i}]");
        if seen.insert(a.name.clone(), i).is_some() {
            return Err(ScenarioError::new(
                format!("{path}.name"),
                format!("app name {:?} is used twice", a.name),
            ));
        }
        let from = node_id(&probe, &format!("{path}.from"), &a.from)?;
        let to = node_id(&probe, &format!("{path}.to"), &a.to)?;
        let to_addrs = probe.addrs(to);
        for (end, node, id) in [("to", &a.to, to), ("from", &a.from, from)] {
            if probe.addrs(id).is_empty() {
                return Err(ScenarioError::new(
                    format!("{path}.{end}"),
                    format!("node {node} has no link, so flows cannot reach it"),
                ));
            }
        }
        let dst = *to_addrs.get(a.to_addr).ok_or_else(|| {
            ScenarioError::new(
                format!("{path}.to_addr"),
                format!(
                    "{} is out of range: node {:?} has {} address(es), allowed 0..={}",
                    a.to_addr,
                    a.to,
                    to_addrs.len(),
                    to_addrs.len().saturating_sub(1)
                ),
            )
        })?;
        let src = *probe.addrs(from).first().ok_or_else(|| {
            ScenarioError::new(
                format!("{path}.from"),
                format!("node {:?} has no links", a.from),
            )
        })?;
        let port = app_port(i, a);
        // A multihomed SCTP sender may use any of its addresses as source: match on the rest.
        let src = match a.traffic {
            AppTraffic::SctpBulk(_) | AppTraffic::SctpMessages(_) => None,
            _ => Some(src),
        };
        // HTTP responses come from one of several server ports.
        let src_port = match a.traffic {
            AppTraffic::Http(_) => None,
            _ => Some(port),
        };
        let matcher = FlowMatch {
            src,
            dst: Some(dst),
            protocol: Some(a.kind().protocol()),
            src_port,
            dst_port: Some(port),
        };
        flows.insert(a.name.clone(), AppFlow { matcher });
    }
    // The first pass already built the final network unless a scripted model names an app
    // (its matcher needs the addresses learned above).
    let names_an_app = link_tables(s)
        .iter()
        .any(|l| l.errors.iter().any(|e| e.app.is_some()));
    let net = if names_an_app {
        build_network(s, &flows)?
    } else {
        probe
    };
    let mut sim = Simulation::new(net);
    sim.set_tie_order(match s.event_ties {
        crate::schema::EventTies::Fifo => rexmit_engine::TieOrder::Fifo,
        crate::schema::EventTies::Random => rexmit_engine::TieOrder::Random(
            StreamFactory::new(s.seed).stream("engine/ties").next_u64(),
        ),
    });
    let mut apps = Vec::new();
    let mut tables: Vec<(usize, Box<dyn Tables>)> = Vec::new();
    let mut http_port = HTTP_FIRST_PORT;
    let mut warnings = Vec::new();
    let mut usrsctp = crate::usrsctp::Stack::default();
    for (i, a) in s.apps.iter().enumerate() {
        let path = format!("apps[{i}]");
        let from = node_id(sim.net(), &format!("{path}.from"), &a.from)?;
        let to = node_id(sim.net(), &format!("{path}.to"), &a.to)?;
        let dst = sim.net().addrs(to)[a.to_addr];
        if !sim.net().reachable(from, dst) {
            return Err(ScenarioError::new(
                &path,
                format!("no route from {:?} to {:?} ({dst})", a.from, a.to),
            ));
        }
        let port = app_port(i, a);
        let trace = crate::trace::for_app(s, &a.name);
        if real_hosts.contains(&a.from) {
            if trace.is_some() {
                return Err(ScenarioError::new(
                    "metrics.trace",
                    format!(
                        "flow {:?} runs between real hosts: only simulated flows can be traced",
                        a.name
                    ),
                ));
            }
            apps.push(None);
            continue;
        }
        let placed = if let AppTraffic::Http(http) = &a.traffic {
            let slots = http
                .max_connections
                .unwrap_or(crate::traffic::HTTP_DEFAULT_CONNECTIONS);
            let first = u16::try_from(http_port).ok().filter(|&p| p as u32 + slots as u32 - 1 <= u16::MAX as u32).ok_or_else(|| {
                ScenarioError::new(format!("{path}.max_connections"), format!("HTTP server ports run out: this app would need ports {http_port}..{} (at most 65535)", http_port + slots as u32 - 1))
            })?;
            http_port += slots as u32;
            add_http(&mut sim, &path, a, http, from, to, port, first, slots)?
        } else {
            add_app(
                &mut sim,
                &path,
                a,
                from,
                to,
                port,
                trace.clone(),
                &mut usrsctp,
            )?
        };
        apps.push(Some((placed.tx, placed.rx)));
        warnings.extend(apps::dctcp_without_marking(sim.net(), &path, a, from, dst));
        if let Some(t) = placed.tables {
            tables.push((i, t));
        }
        if let Some(t) = trace {
            tables.push((i, Box::new(t)));
        }
    }
    for (i, t) in s.metrics.timeseries.iter().enumerate() {
        let path = format!("metrics.timeseries[{i}]");
        let interval = t.interval;
        let link_id = |link: &str| channel_id(sim.net(), &format!("{path}.link"), link);
        let (name, source) = match t.resolve(&path)? {
            SeriesSpec::QueuePackets { link } => (
                format!("queue_packets:{link}"),
                SeriesSource::QueuePackets(link_id(&link)?),
            ),
            SeriesSpec::QueueBytes { link } => (
                format!("queue_bytes:{link}"),
                SeriesSource::QueueBytes(link_id(&link)?),
            ),
            SeriesSpec::Drops { link } => (
                format!("drops:{link}"),
                SeriesSource::Drops(link_id(&link)?),
            ),
            SeriesSpec::App { app, value } => {
                let (value, deprecated) = crate::names::canonical_probe(&path, &value);
                warnings.extend(deprecated);
                let k = seen.get(&app).copied().ok_or_else(|| {
                    ScenarioError::new(format!("{path}.app"), format!("no app named {app:?}"))
                })?;
                let (src, sink) = apps[k].ok_or_else(|| {
                    ScenarioError::new(
                        format!("{path}.app"),
                        format!("app {app:?} runs between real hosts: its values are not sampled"),
                    )
                })?;
                // A value is looked up at the source first, then at the sink.
                let agent = if sim.agent(src).probe_names().contains(&value.as_str()) {
                    src
                } else {
                    sink
                };
                if !sim.agent(agent).probe_names().contains(&value.as_str()) {
                    let mut allowed: Vec<&str> = sim.agent(src).probe_names().to_vec();
                    allowed.extend(sim.agent(sink).probe_names());
                    return Err(ScenarioError::new(
                        format!("{path}.value"),
                        format!(
                            "{value:?} is not a value of app {app:?} (allowed: {})",
                            allowed.join(", ")
                        ),
                    ));
                }
                (
                    format!("{app}:{value}"),
                    SeriesSource::AgentProbe(agent, value.clone()),
                )
            }
        };
        sim.add_series(&name, source, interval.0, Time::ZERO)
            .map_err(|e| ScenarioError::new(&path, e.to_string()))?;
    }
    check_work(s, sim.net())?;
    let mut pcap_files = Vec::new();
    for (i, p) in s.metrics.pcap.iter().enumerate() {
        let path = format!("metrics.pcap[{i}]");
        let target = match (&p.link, &p.node) {
            (Some(l), _) => Ok((
                channel_id(sim.net(), &format!("{path}.link"), l)?,
                format!("link_{}.pcap", sanitize(l)),
            )),
            (None, Some(n)) => Err((
                node_id(sim.net(), &format!("{path}.node"), n)?,
                format!("node_{}.pcap", sanitize(n)),
            )),
            (None, None) => {
                return Err(ScenarioError::new(
                    &path,
                    "give exactly one of `link` (\"A->B\") or `node`",
                ))
            }
        };
        let name = match &target {
            Ok((_, n)) | Err((_, n)) => n,
        };
        // NAME_MAX on Linux and macOS: a longer name fails only when the file is created.
        if name.len() > 255 {
            return Err(ScenarioError::new(&path, format!("the pcap file name would be {} bytes long, at most 255 are allowed: use shorter node names", name.len())));
        }
        let dir = match pcaps {
            Pcaps::NamesOnly => continue,
            Pcaps::Refuse => {
                return Err(ScenarioError::new(
                    &path,
                    "pcap output needs an output directory (rexmit run --out DIR)",
                ))
            }
            Pcaps::Into(d) => d.join("pcap"),
        };
        let file = match target {
            Ok((ch, name)) => {
                let f = dir.join(name);
                sim.pcap_channel(ch, &f).map(|_| f)
            }
            Err((node, name)) => {
                let f = dir.join(name);
                sim.pcap_node(node, &f).map(|_| f)
            }
        }
        .map_err(|e| ScenarioError::new(&path, e.to_string()))?;
        pcap_files.push(file.display().to_string());
    }
    Ok(Built {
        sim,
        apps,
        tables,
        pcap_files,
        warnings,
    })
}

fn sanitize(name: &str) -> String {
    name.replace("->", "-")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '#' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Packet transmissions the links could carry over `stop_time` at full rate with 1500-byte
/// packets: an estimate of a busy run's work, shown before long runs and bounded by
/// `limits.max_work`.
pub fn work_estimate(s: &Scenario) -> Result<f64> {
    crate::validate::validate(s)?;
    Ok(work_of(s, &build_network_unresolved(s)?))
}

/// The default of `limits.max_work`.
pub const DEFAULT_MAX_WORK: f64 = 1e11;
