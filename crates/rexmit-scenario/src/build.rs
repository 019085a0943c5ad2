//! Turning a validated scenario into a `Simulation`: topology, explicit nodes and links, apps,
//! time series and pcap taps. Name lookups and route checks happen here and name their key path.

use crate::error::{Result, ScenarioError};
use crate::schema::*;
use rexmit_endpoints::http::{HttpClient, HttpEndpoints, HttpServerSlot, HttpShared};
use rexmit_endpoints::latency::{StreamTruth, Tables};
use rexmit_endpoints::messages::MessageGen;
use rexmit_endpoints::sctp::{MessageApp, MessagesApp as SctpMessages, SctpAgent, SharedTruth};
use rexmit_endpoints::tcp::{BulkApp, MessagesApp as TcpMessages, TcpAgent};
use rexmit_endpoints::trace::TraceRef;
use rexmit_engine::StreamFactory;
use rexmit_net::apps::udp::{
    CbrSource, OnOffSource, PeriodDist, RandomSource, UdpEndpoints, UdpSink,
};
use rexmit_net::sim::SetupError;
use rexmit_net::topology::{
    self, AccessLink, DualDumbbellSpec, DumbbellSpec, Duplex, MultihomedHost,
};
use rexmit_net::*;
use rexmit_time::Time;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::Path;
use std::rc::Rc;

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

/// The first server port of HTTP apps; each takes `max_connections` ports from here on.
const HTTP_FIRST_PORT: u32 = 20_000;

fn queue(q: &Option<QueueCfg>) -> QueueConfig {
    match q {
        None => QueueConfig::default(),
        Some(q) => QueueConfig {
            limit: match (q.packets, q.bytes) {
                (_, Some(b)) => QueueLimit::Bytes(b.0),
                (Some(p), None) => QueueLimit::Packets(p),
                (None, None) => QueueConfig::default().limit,
            },
            discipline: match &q.red {
                None => QueueDiscipline::DropTail,
                Some(r) => QueueDiscipline::Red(RedParams {
                    min_th: r.min_th,
                    max_th: r.max_th,
                    max_p: r.max_p,
                    weight: r.weight,
                    gentle: r.gentle,
                    mean_packet_size: r.mean_packet_size,
                }),
            },
        },
    }
}

fn scripted_values(v: &[ScriptedEntry]) -> Vec<ScriptedValue> {
    v.iter()
        .map(|e| match e {
            ScriptedEntry::Plain(v) => ScriptedValue {
                value: *v,
                times: 1,
            },
            ScriptedEntry::Times(t) => ScriptedValue {
                value: t.value,
                times: t.times,
            },
        })
        .collect()
}

/// Packets of an app's data direction, once addresses and ports are known.
#[derive(Clone)]
struct AppFlow {
    matcher: FlowMatch,
}

struct Ctx<'a> {
    apps: &'a BTreeMap<String, AppFlow>,
}

impl Ctx<'_> {
    fn error_model(&self, path: &str, e: &ErrorModelCfg) -> Result<ErrorModelConfig> {
        Ok(match e.resolve(path)? {
            ErrorModelSpec::Uniform { rate } => ErrorModelConfig::Uniform { rate },
            ErrorModelSpec::Burst { rate, size } => ErrorModelConfig::Burst {
                rate,
                size: match size {
                    BurstSizeCfg::Fixed(n) => BurstSize::Fixed(n),
                    BurstSizeCfg::Uniform { min, max } => BurstSize::Uniform { min, max },
                    BurstSizeCfg::Geometric { mean } => BurstSize::Geometric { mean },
                },
            },
            ErrorModelSpec::GilbertElliott {
                p_good_to_bad,
                p_bad_to_good,
                loss_good,
                loss_bad,
            } => ErrorModelConfig::GilbertElliott {
                p_good_to_bad,
                p_bad_to_good,
                loss_good,
                loss_bad,
            },
            ErrorModelSpec::Scripted {
                app,
                flow,
                packets,
                tcp_seqs,
                sctp_tsns,
            } => {
                let matcher = match (app, flow) {
                    (Some(a), _) => self
                        .apps
                        .get(&a)
                        .ok_or_else(|| {
                            ScenarioError::new(format!("{path}.app"), format!("no app named {a:?}"))
                        })?
                        .matcher
                        .clone(),
                    (None, Some(f)) => FlowMatch {
                        src: f.src,
                        dst: f.dst,
                        protocol: f.protocol,
                        src_port: f.src_port,
                        dst_port: f.dst_port,
                    },
                    (None, None) => FlowMatch::default(),
                };
                let select = match (packets, tcp_seqs, sctp_tsns) {
                    (Some(p), _, _) => ScriptSelect::PacketNumbers(p),
                    (_, Some(t), _) => ScriptSelect::TcpSeqs(scripted_values(&t)),
                    (_, _, Some(t)) => ScriptSelect::SctpTsns(scripted_values(&t)),
                    _ => {
                        return Err(ScenarioError::new(
                            path,
                            "give exactly one of `packets`, `tcp_seqs` or `sctp_tsns`",
                        ))
                    }
                };
                ErrorModelConfig::Scripted {
                    flow: matcher,
                    select,
                }
            }
        })
    }

    /// Parameters of the forward and reverse directions of a link.
    fn link_params(&self, path: &str, l: &LinkProps) -> Result<Duplex> {
        let mut fwd = LinkParams::new(l.rate.0, l.delay.0);
        fwd.queue = queue(&l.queue);
        let mut rev = fwd.clone();
        for (i, e) in l.errors.iter().enumerate() {
            let m = self.error_model(&format!("{path}.errors[{i}]"), e)?;
            match e.direction() {
                Direction::Both => {
                    fwd.errors.push(m.clone());
                    rev.errors.push(m);
                }
                Direction::Forward => fwd.errors.push(m),
                Direction::Reverse => rev.errors.push(m),
            }
        }
        if let Some(r) = &l.reorder {
            let cfg = ReorderConfig {
                probability: r.probability,
                mean_delay: r.mean_delay.0,
            };
            match r.direction {
                Direction::Both => {
                    fwd.reorder = Some(cfg.clone());
                    rev.reorder = Some(cfg);
                }
                Direction::Forward => fwd.reorder = Some(cfg),
                Direction::Reverse => rev.reorder = Some(cfg),
            }
        }
        Ok(Duplex { fwd, rev })
    }

    fn dumbbell(&self, path: &str, d: &DumbbellCfg) -> Result<DumbbellSpec> {
        let side = |name: &str, list: &[HostLinkCfg]| -> Result<Vec<AccessLink>> {
            list.iter()
                .enumerate()
                .map(|(i, h)| {
                    Ok(AccessLink {
                        host: h.name.clone().unwrap_or_default(),
                        link: self.link_params(&format!("{path}.{name}[{i}]"), h)?,
                    })
                })
                .collect()
        };
        Ok(DumbbellSpec {
            left_router: d.left_router.clone(),
            right_router: d.right_router.clone(),
            bottleneck: self.link_params(&format!("{path}.bottleneck"), &d.bottleneck)?,
            left: side("left", &d.left)?,
            right: side("right", &d.right)?,
        })
    }
}

fn net_err(path: &str, e: BuildError) -> ScenarioError {
    ScenarioError::new(path, e.to_string())
}

fn node_id(net: &Network, path: &str, name: &str) -> Result<NodeId> {
    net.node_by_name(name).ok_or_else(|| {
        let mut known: Vec<&str> = net.nodes.iter().map(|n| n.name.as_str()).collect();
        known.truncate(12);
        ScenarioError::new(
            path,
            format!(
                "no node named {name:?} (nodes: {}{})",
                known.join(", "),
                if net.nodes.len() > 12 { ", ..." } else { "" }
            ),
        )
    })
}

fn channel_id(net: &Network, path: &str, name: &str) -> Result<ChannelId> {
    net.channel_by_name(name).ok_or_else(|| {
        let mut known: Vec<&str> = net.channels.iter().map(|c| c.name.as_str()).collect();
        known.truncate(12);
        ScenarioError::new(
            path,
            format!(
                "no link direction named {name:?} (write \"A->B\"; links: {}{})",
                known.join(", "),
                if net.channels.len() > 12 { ", ..." } else { "" }
            ),
        )
    })
}

fn build_network(s: &Scenario, apps: &BTreeMap<String, AppFlow>) -> Result<Network> {
    let ctx = Ctx { apps };
    let mut net = Network::new(StreamFactory::new(s.seed));
    match s
        .topology
        .as_ref()
        .map(|t| t.resolve("topology"))
        .transpose()?
    {
        None => {}
        Some(TopologySpec::Chain { nodes, links }) => {
            let links = links
                .iter()
                .enumerate()
                .map(|(i, l)| ctx.link_params(&format!("topology.links[{i}]"), l))
                .collect::<Result<Vec<_>>>()?;
            topology::chain(&mut net, &nodes, &links).map_err(|e| net_err("topology", e))?;
        }
        Some(TopologySpec::Dumbbell(d)) => {
            let spec = ctx.dumbbell("topology", &d)?;
            topology::dumbbell(&mut net, &spec).map_err(|e| net_err("topology", e))?;
        }
        Some(TopologySpec::DualDumbbell { paths, multihomed }) => {
            let spec = DualDumbbellSpec {
                paths: [
                    ctx.dumbbell("topology.paths[0]", &paths[0])?,
                    ctx.dumbbell("topology.paths[1]", &paths[1])?,
                ],
                multihomed: multihomed
                    .iter()
                    .enumerate()
                    .map(|(i, m)| {
                        let l0 = ctx.link_params(
                            &format!("topology.multihomed[{i}].links[0]"),
                            &m.links[0],
                        )?;
                        let l1 = ctx.link_params(
                            &format!("topology.multihomed[{i}].links[1]"),
                            &m.links[1],
                        )?;
                        Ok(MultihomedHost {
                            name: m.name.clone(),
                            left: m.side == Side::Left,
                            links: [l0, l1],
                        })
                    })
                    .collect::<Result<Vec<_>>>()?,
            };
            topology::dual_dumbbell(&mut net, &spec).map_err(|e| match e {
                BuildError::DuplicateNode(n) => ScenarioError::new(
                    "topology.paths",
                    format!("node name {n:?} is used twice: each path is its own dumbbell, so give each its own routers, e.g. left_router = \"R3\", right_router = \"R4\" in paths[1] (examples/sctp_cmt_dual_dumbbell.toml)"),
                ),
                e => net_err("topology", e),
            })?;
        }
    }
    // Explicit nodes: routers by default when they have more than one link.
    let degree = |name: &str| {
        s.links
            .iter()
            .filter(|l| l.between.iter().flatten().any(|b| b == name))
            .count()
    };
    for (i, n) in s.nodes.iter().enumerate() {
        let fwd = n.forward.unwrap_or(degree(&n.name) > 1);
        net.add_node(&n.name, fwd)
            .map_err(|e| net_err(&format!("nodes[{i}].name"), e))?;
    }
    for (i, l) in s.links.iter().enumerate() {
        let path = format!("links[{i}]");
        // Validation made sure every [[links]] entry has `between`.
        let [a, b] = l
            .between
            .as_ref()
            .ok_or_else(|| ScenarioError::new(format!("{path}.between"), "is required"))?;
        let a = node_id(&net, &format!("{path}.between[0]"), a)?;
        let b = node_id(&net, &format!("{path}.between[1]"), b)?;
        let d = ctx.link_params(&path, l)?;
        net.add_link(a, b, d.fwd, d.rev, None)
            .map_err(|e| net_err(&path, e))?;
    }
    Ok(net)
}

/// The first default app port: the dynamic range (RFC 6335 §6), where Wireshark registers
/// almost no dissector, so a capture decodes as plain TCP/SCTP data (5000 was GSM A-bis RSL).
const FIRST_APP_PORT: usize = 49_152;

/// An app's port (both ends): `port`, or one of the dynamic range by its index; past 16384 apps
/// the numbering continues from 5000.
pub fn app_port(i: usize, a: &AppCfg) -> u16 {
    a.port
        .unwrap_or(if FIRST_APP_PORT + i <= u16::MAX as usize {
            (FIRST_APP_PORT + i) as u16
        } else {
            (5000 + i - (u16::MAX as usize + 1 - FIRST_APP_PORT)) as u16
        })
}

fn period(path: &str, p: &PeriodCfg) -> Result<PeriodDist> {
    Ok(match p.resolve(path)? {
        PeriodSpec::Fixed { value } => PeriodDist::Fixed(value.0),
        PeriodSpec::Exponential { mean } => PeriodDist::Exponential { mean: mean.0 },
        PeriodSpec::Pareto { mean, shape } => PeriodDist::Pareto {
            mean: mean.0,
            alpha: shape,
        },
    })
}

/// Build the simulation. `out_dir` receives pcap files (under `pcap/`), if any are requested.
pub fn build(s: &Scenario, out_dir: Option<&Path>) -> Result<Built> {
    build_with(s, out_dir.map_or(Pcaps::Refuse, Pcaps::Into), &[])
}

/// Build for emulation: the apps between the hosts of `emulation.real_hosts` get no agents
/// (their `Built::apps` entry is `None`); everything else is built as by `build`. An app with
/// one real end and one simulated end is refused, as is a real app other than `tcp_bulk`.
pub fn build_emulated(s: &Scenario, out_dir: Option<&Path>) -> Result<Built> {
    let real: &[String] = s.emulation.as_ref().map_or(&[], |e| &e.real_hosts);
    for (i, a) in s.apps.iter().enumerate() {
        let (f, t) = (real.contains(&a.from), real.contains(&a.to));
        if f != t {
            let which = if f { "from" } else { "to" };
            return Err(ScenarioError::new(format!("apps[{i}].{which}"), "an app runs either between two real hosts or between two simulated ones, not across"));
        }
        if f && a.kind != AppKind::TcpBulk {
            return Err(ScenarioError::new(
                format!("apps[{i}].kind"),
                format!(
                    "{:?} between real hosts: only tcp_bulk is run over kernel sockets",
                    a.kind.name()
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
        let src = if matches!(a.kind, AppKind::SctpBulk | AppKind::SctpMessages) {
            None
        } else {
            Some(src)
        };
        // HTTP responses come from one of several server ports.
        let src_port = if a.kind == AppKind::Http {
            None
        } else {
            Some(port)
        };
        let matcher = FlowMatch {
            src,
            dst: Some(dst),
            protocol: Some(a.kind.protocol()),
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
        let placed = if a.kind == AppKind::Http {
            let slots = a
                .max_connections
                .unwrap_or(crate::traffic::HTTP_DEFAULT_CONNECTIONS);
            let first = u16::try_from(http_port).ok().filter(|&p| p as u32 + slots as u32 - 1 <= u16::MAX as u32).ok_or_else(|| {
                ScenarioError::new(format!("{path}.max_connections"), format!("HTTP server ports run out: this app would need ports {http_port}..{} (at most 65535)", http_port + slots as u32 - 1))
            })?;
            http_port += slots as u32;
            add_http(&mut sim, &path, a, from, to, port, first, slots)?
        } else {
            add_app(&mut sim, &path, a, from, to, port, trace.clone())?
        };
        apps.push(Some((placed.tx, placed.rx)));
        if let Some(t) = placed.tables {
            tables.push((i, t));
        }
        if let Some(t) = trace {
            tables.push((i, Box::new(t)));
        }
    }
    let mut warnings = Vec::new();
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

/// An app's agents once placed.
struct Placed {
    tx: AgentId,
    rx: AgentId,
    tables: Option<Box<dyn Tables>>,
}

/// Verification tags (non-zero, RFC 9260 §3.3.2) and initial TSNs of an association.
fn sctp_ids(rng: &mut rexmit_engine::RngStream) -> (u32, u32, u32, u32) {
    let (tag_s, tag_r) = (
        (rng.next_u64() as u32).max(1),
        (rng.next_u64() as u32).max(1),
    );
    (tag_s, tag_r, rng.next_u64() as u32, rng.next_u64() as u32)
}

/// Place an app's sending and receiving agents.
fn add_app(
    sim: &mut Simulation,
    path: &str,
    a: &AppCfg,
    from: NodeId,
    to: NodeId,
    port: u16,
    trace: Option<TraceRef>,
) -> Result<Placed> {
    let to_addrs = sim.net().addrs(to);
    let dst = to_addrs[a.to_addr];
    let mut rng = sim.net().streams().stream(&format!("app/{}", a.name));
    let start = Time::ZERO + a.start.0;
    let measure_from = Time::ZERO + a.warmup.map_or(a.start.0, |w| w.0);
    let proto = a.kind.protocol();
    let port_err = |e: SetupError| ScenarioError::new(format!("{path}.port"), e.to_string());
    let tcp_cfg = || {
        a.tcp
            .clone()
            .unwrap_or_default()
            .to_config(&format!("{path}.tcp"))
    };
    let sctp_cfg = || {
        a.sctp
            .clone()
            .unwrap_or_default()
            .to_config(&format!("{path}.sctp"))
    };
    let messages = |sim: &Simulation| -> Result<MessageGen> {
        let src = crate::traffic::message_source(path, a)?;
        Ok(MessageGen::new(
            src,
            sim.net()
                .streams()
                .stream(&format!("app/{}/messages", a.name)),
        ))
    };
    let mut tables: Option<Box<dyn Tables>> = None;
    let (sender, receiver, sender_binds): (Box<dyn Agent>, Box<dyn Agent>, bool) = match a.kind {
        AppKind::UdpCbr | AppKind::UdpOnoff | AppKind::UdpRandom => {
            let ep = UdpEndpoints {
                src_port: port,
                dst,
                dst_port: port,
            };
            let stop = a.stop.map(|d| Time::ZERO + d.0);
            let source: Box<dyn Agent> = match a.kind {
                AppKind::UdpCbr => {
                    let (rate, size) = (
                        a.rate.expect("validated").0,
                        a.packet_size.expect("validated"),
                    );
                    Box::new(CbrSource::new(
                        ep,
                        size,
                        rate,
                        stop,
                        a.jitter.map(|j| j.0).unwrap_or_default(),
                        rng,
                    ))
                }
                AppKind::UdpOnoff => {
                    let (rate, size) = (
                        a.rate.expect("validated").0,
                        a.packet_size.expect("validated"),
                    );
                    let (on, off) = (
                        period(&format!("{path}.on"), a.on.as_ref().expect("validated"))?,
                        period(&format!("{path}.off"), a.off.as_ref().expect("validated"))?,
                    );
                    Box::new(OnOffSource::new(ep, size, rate, on, off, stop, rng))
                }
                _ => {
                    let (size, gap) = crate::traffic::udp_random(path, a)?;
                    Box::new(RandomSource::new(ep, size, gap, stop, rng))
                }
            };
            (source, Box::new(UdpSink::new()), false)
        }
        AppKind::TcpBulk | AppKind::TcpMessages => {
            let cfg = tcp_cfg()?;
            let (iss_s, iss_r) = (rng.next_u64() as u32, rng.next_u64() as u32);
            let rcv = TcpAgent::receiver(cfg.clone(), port, iss_r, measure_from);
            let traced = |agent: TcpAgent| match trace {
                Some(t) => agent.with_trace(t),
                None => agent,
            };
            if a.kind == AppKind::TcpBulk {
                let app = BulkApp {
                    bytes: a.bytes.map(|b| b.0),
                    close_when_done: a.bytes.is_some(),
                };
                (
                    Box::new(traced(TcpAgent::sender(cfg, port, dst, port, iss_s, app))),
                    Box::new(rcv),
                    true,
                )
            } else {
                let truth = Rc::new(RefCell::new(StreamTruth::new(measure_from)));
                tables = Some(Box::new(truth.clone()));
                let app = TcpMessages {
                    gen: messages(sim)?,
                    truth: truth.clone(),
                    pending: 0,
                };
                (
                    Box::new(traced(TcpAgent::sender(cfg, port, dst, port, iss_s, app))),
                    Box::new(rcv.with_messages(truth)),
                    true,
                )
            }
        }
        AppKind::SctpBulk | AppKind::SctpMessages => {
            let cfg = sctp_cfg()?;
            let truth = Rc::new(RefCell::new(SharedTruth::default()));
            let (tag_s, tag_r, tsn_s, tsn_r) = sctp_ids(&mut rng);
            let streams = a.streams.unwrap_or(1);
            let snd = if a.kind == AppKind::SctpBulk {
                let app = MessageApp {
                    message_size: a.message_size.unwrap_or(cfg.max_data_payload()),
                    messages: a.messages,
                    unordered: a.unordered.unwrap_or(true),
                    streams,
                };
                SctpAgent::sender(
                    cfg.clone(),
                    port,
                    to_addrs,
                    port,
                    a.to_addr,
                    tag_s,
                    tsn_s,
                    app,
                    truth.clone(),
                    measure_from,
                )
            } else {
                tables = Some(Box::new(truth.clone()));
                // Seed 004's thin streams and seed 002's signalling are ordered.
                let app = SctpMessages {
                    gen: messages(sim)?,
                    unordered: a.unordered.unwrap_or(false),
                    streams,
                };
                SctpAgent::sender(
                    cfg.clone(),
                    port,
                    to_addrs,
                    port,
                    a.to_addr,
                    tag_s,
                    tsn_s,
                    app,
                    truth.clone(),
                    measure_from,
                )
            };
            let rcv = SctpAgent::receiver(cfg, port, tag_r, tsn_r, truth, measure_from);
            let snd = match trace {
                Some(t) => snd.with_trace(t),
                None => snd,
            };
            (Box::new(snd), Box::new(rcv), true)
        }
        AppKind::Http => {
            return Err(ScenarioError::new(
                path,
                "internal: http apps are placed by add_http",
            ))
        }
    };
    let rx = sim
        .add_agent(
            &format!("{}/sink", a.name),
            to,
            Some((proto, port)),
            Time::ZERO,
            receiver,
        )
        .map_err(port_err)?;
    let tx = sim
        .add_agent(
            &a.name,
            from,
            sender_binds.then_some((proto, port)),
            start,
            sender,
        )
        .map_err(port_err)?;
    Ok(Placed { tx, rx, tables })
}

/// Place an HTTP app: server slots on `from` (ports `first..first+slots`), listening from time
/// zero, and the client on `to` (port `port`), starting at the app's start.
#[allow(clippy::too_many_arguments)]
fn add_http(
    sim: &mut Simulation,
    path: &str,
    a: &AppCfg,
    from: NodeId,
    to: NodeId,
    port: u16,
    first: u16,
    slots: u16,
) -> Result<Placed> {
    let cfg = a
        .tcp
        .clone()
        .unwrap_or_default()
        .to_config(&format!("{path}.tcp"))?;
    let requests = crate::traffic::http_requests(path, a)?;
    let streams = *sim.net().streams();
    let shared = HttpShared::new(slots, streams.stream(&format!("app/{}/server_iss", a.name)));
    let server = sim.net().addrs(from)[0];
    let port_err = |e: SetupError| ScenarioError::new(format!("{path}.port"), e.to_string());
    let mut slot0 = None;
    for k in 0..slots {
        let agent = HttpServerSlot::new(cfg.clone(), k as usize, first + k, shared.clone());
        let id = sim
            .add_agent(
                &format!("{}/server{k}", a.name),
                from,
                Some((6, first + k)),
                Time::ZERO,
                Box::new(agent),
            )
            .map_err(port_err)?;
        slot0.get_or_insert(id);
    }
    let measure_from = Time::ZERO + a.warmup.map_or(a.start.0, |w| w.0);
    let gen = MessageGen::new(requests, streams.stream(&format!("app/{}", a.name)));
    let ep = HttpEndpoints {
        client_port: port,
        server,
        server_port: first,
    };
    let client = HttpClient::new(
        cfg,
        ep,
        gen,
        streams.stream(&format!("app/{}/client_iss", a.name)),
        shared.clone(),
        measure_from,
    );
    let rx = sim
        .add_agent(
            &a.name,
            to,
            Some((6, port)),
            Time::ZERO + a.start.0,
            Box::new(client),
        )
        .map_err(port_err)?;
    Ok(Placed {
        tx: slot0.expect("validation makes max_connections ≥ 1"),
        rx,
        tables: Some(Box::new(shared)),
    })
}

/// Every link table of the scenario, wherever it appears.
fn link_tables(s: &Scenario) -> Vec<&LinkProps> {
    let mut v: Vec<&LinkProps> = s.links.iter().collect();
    if let Some(t) = &s.topology {
        v.extend(t.links.iter().flatten());
        v.extend(t.bottleneck.iter());
        v.extend(t.left.iter().flatten());
        v.extend(t.right.iter().flatten());
        for d in t.paths.iter().flatten() {
            v.push(&d.bottleneck);
            v.extend(&d.left);
            v.extend(&d.right);
        }
        for m in t.multihomed.iter().flatten() {
            v.extend(m.links.iter());
        }
    }
    v
}

fn build_network_unresolved(s: &Scenario) -> Result<Network> {
    // Scripted models that name an app match nothing in this pass; only addresses matter here.
    let mut placeholder = BTreeMap::new();
    for a in &s.apps {
        placeholder.insert(
            a.name.clone(),
            AppFlow {
                matcher: FlowMatch::default(),
            },
        );
    }
    build_network(s, &placeholder)
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

fn work_of(s: &Scenario, net: &Network) -> f64 {
    let secs = s.stop_time.0.as_secs_f64();
    net.channels
        .iter()
        .map(|c| c.params.rate.bps() as f64 / (8.0 * 1500.0) * secs)
        .sum()
}

/// The default of `limits.max_work`.
pub const DEFAULT_MAX_WORK: f64 = 1e11;

/// Refuse a run that could take hours to days before it starts (issue 17): the links' capacity
/// in 1500-byte packets over `stop_time` is an estimate of the packet transmissions a busy run
/// makes (smaller packets make more, idle links fewer).
fn check_work(s: &Scenario, net: &Network) -> Result<()> {
    if s.limits.max_wall_time.is_some() || s.limits.max_events.is_some() {
        // The user bounded the run already.
        return Ok(());
    }
    let secs = s.stop_time.0.as_secs_f64();
    let work = work_of(s, net);
    let max = s.limits.max_work.unwrap_or(DEFAULT_MAX_WORK);
    if work > max {
        let hours = work / 1e7 / 3600.0;
        return Err(ScenarioError::new(
            "stop_time",
            format!(
                "{secs} s: the links could carry up to {work:.2e} packet transmissions in that time (full rate, 1500-byte packets; about {hours:.1} hours at 10 M packets/s), more than limits.max_work = {max:.0e}: shorten stop_time, or raise limits.max_work to run it anyway"
            ),
        ));
    }
    Ok(())
}
