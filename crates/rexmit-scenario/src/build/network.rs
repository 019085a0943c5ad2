//! The network of a scenario: nodes, links with their queues and error models (scripted drops
//! matched to apps), topologies, and the work estimate that refuses runs too long to finish.

use super::*;

/// The queue of a link table (`path`: the link's key path); validation checked it already.
pub(super) fn queue(path: &str, q: &Option<QueueCfg>) -> Result<QueueConfig> {
    match q {
        None => Ok(QueueConfig::default()),
        Some(q) => q.to_config(&format!("{path}.queue")),
    }
}

pub(super) fn scripted_values(v: &[ScriptedEntry]) -> Vec<ScriptedValue> {
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
pub(super) struct AppFlow {
    pub(super) matcher: FlowMatch,
}

pub(super) struct Ctx<'a> {
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
                delay,
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
                match delay {
                    Some(d) => ErrorModelConfig::ScriptedDelay {
                        flow: matcher,
                        select,
                        extra: d.0,
                    },
                    None => ErrorModelConfig::Scripted {
                        flow: matcher,
                        select,
                    },
                }
            }
            ErrorModelSpec::Spike { from, until, delay } => ErrorModelConfig::Spike {
                from: Time::ZERO + from.0,
                until: Time::ZERO + until.0,
                extra: delay.0,
            },
        })
    }

    /// Parameters of the forward and reverse directions of a link.
    fn link_params(&self, path: &str, l: &LinkProps) -> Result<Duplex> {
        let mut fwd = LinkParams::new(l.rate.0, l.delay.0);
        fwd.queue = queue(path, &l.queue)?;
        fwd.options = l.options(path)?;
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

pub(super) fn net_err(path: &str, e: BuildError) -> ScenarioError {
    ScenarioError::new(path, e.to_string())
}

pub(super) fn node_id(net: &Network, path: &str, name: &str) -> Result<NodeId> {
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

pub(super) fn channel_id(net: &Network, path: &str, name: &str) -> Result<ChannelId> {
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

pub(super) fn build_network(s: &Scenario, apps: &BTreeMap<String, AppFlow>) -> Result<Network> {
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

/// Every link table of the scenario, wherever it appears.
pub(super) fn link_tables(s: &Scenario) -> Vec<&LinkProps> {
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

pub(super) fn build_network_unresolved(s: &Scenario) -> Result<Network> {
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

pub(super) fn work_of(s: &Scenario, net: &Network) -> f64 {
    let secs = s.stop_time.0.as_secs_f64();
    net.channels
        .iter()
        .map(|c| c.params().rate.bps() as f64 / (8.0 * 1500.0) * secs)
        .sum()
}

/// Refuse a run that could take hours to days before it starts (issue 17): the links' capacity
/// in 1500-byte packets over `stop_time` is an estimate of the packet transmissions a busy run
/// makes (smaller packets make more, idle links fewer).
pub(super) fn check_work(s: &Scenario, net: &Network) -> Result<()> {
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
