//! Range and consistency checks that the type system cannot express. Each failure names the
//! key path and the allowed range. Cross-references (node, link and app names, routes) are
//! checked while building, where the network exists (see `build.rs`).

use crate::error::{Result, ScenarioError};
use crate::schema::*;

fn err<T>(path: &str, msg: impl Into<String>) -> Result<T> {
    Err(ScenarioError::new(path, msg))
}

pub(crate) fn probability(path: &str, p: f64) -> Result<()> {
    if !(0.0..=1.0).contains(&p) || p.is_nan() {
        return err(
            path,
            format!("{p} is not a probability: allowed range is 0 to 1"),
        );
    }
    Ok(())
}

/// Samples all time series together may hold: 160 MB in the simulator, about 0.7 GB once
/// converted to Python lists. The samples are taken after the run's memory guard, so they are
/// bounded here, before the run.
pub const MAX_SAMPLES: u64 = 10_000_000;

pub fn validate(s: &Scenario) -> Result<()> {
    if s.stop_time.0.is_zero() {
        return err("stop_time", "must be > 0");
    }
    if s.limits.max_events == Some(0) {
        return err("limits.max_events", "must be ≥ 1");
    }
    if s.limits.max_wall_time.is_some_and(|d| d.0.is_zero()) {
        return err("limits.max_wall_time", "must be > 0");
    }
    if s.limits.max_work.is_some_and(|w| w.is_nan() || w < 1.0) {
        return err("limits.max_work", "must be ≥ 1 (packet transmissions)");
    }
    if s.limits.max_memory.is_some_and(|b| b.0 < 1 << 20) {
        return err("limits.max_memory", "must be ≥ 1MiB");
    }
    match s
        .topology
        .as_ref()
        .map(|t| t.resolve("topology"))
        .transpose()?
    {
        None => {}
        Some(TopologySpec::Chain { nodes, links }) => {
            if nodes.len() < 2 {
                return err(
                    "topology.nodes",
                    format!("a chain needs at least 2 nodes, got {}", nodes.len()),
                );
            }
            if links.len() + 1 != nodes.len() {
                return err(
                    "topology.links",
                    format!(
                        "a chain of {} nodes needs {} links, got {}",
                        nodes.len(),
                        nodes.len() - 1,
                        links.len()
                    ),
                );
            }
            for (i, l) in links.iter().enumerate() {
                link_role(&format!("topology.links[{i}]"), l, LinkRole::Plain)?;
            }
        }
        Some(TopologySpec::Dumbbell(d)) => dumbbell("topology", &d)?,
        Some(TopologySpec::DualDumbbell { paths, multihomed }) => {
            for (i, p) in paths.iter().enumerate() {
                dumbbell(&format!("topology.paths[{i}]"), p)?;
            }
            for (i, m) in multihomed.iter().enumerate() {
                for (k, l) in m.links.iter().enumerate() {
                    link_role(
                        &format!("topology.multihomed[{i}].links[{k}]"),
                        l,
                        LinkRole::Plain,
                    )?;
                }
            }
        }
    }
    for (i, l) in s.links.iter().enumerate() {
        link_role(&format!("links[{i}]"), l, LinkRole::Between)?;
        if let Some([a, b]) = &l.between {
            if a == b {
                return err(
                    &format!("links[{i}].between"),
                    format!("a link cannot join node {a:?} to itself"),
                );
            }
        }
    }
    for (i, n) in s.nodes.iter().enumerate() {
        if n.name.is_empty() {
            return err(&format!("nodes[{i}].name"), "must not be empty");
        }
    }
    let mut usrsctp_apps = Vec::new();
    for (i, a) in s.apps.iter().enumerate() {
        if let Some(c) = app(&format!("apps[{i}]"), a, s)? {
            usrsctp_apps.push((i, c));
        }
    }
    crate::usrsctp::check_together(s, &usrsctp_apps)?;
    let mut total_samples = 0u64;
    for (i, t) in s.metrics.timeseries.iter().enumerate() {
        let path = format!("metrics.timeseries[{i}]");
        t.resolve(&path)?;
        if t.interval.0.is_zero() {
            return err(
                &format!("{path}.interval"),
                "must be > 0 (a duration like \"10ms\")",
            );
        }
        // Each sample costs 16 bytes here and more in Python: refuse before allocating.
        let samples = s.stop_time.0.as_nanos() / t.interval.0.as_nanos() + 1;
        if samples > MAX_SAMPLES {
            let min_ns = s.stop_time.0.as_nanos().div_ceil(MAX_SAMPLES - 1);
            return err(
                &format!("{path}.interval"),
                format!("{} gives {samples} samples over stop_time; at most {MAX_SAMPLES} per series are allowed, so the interval must be ≥ {min_ns}ns here", t.interval.0),
            );
        }
        total_samples += samples;
        if total_samples > MAX_SAMPLES {
            return err(
                "metrics.timeseries",
                format!("the first {} time series take {total_samples} samples over stop_time; at most {MAX_SAMPLES} are allowed in all series together: use longer intervals or fewer series", i + 1),
            );
        }
    }
    crate::trace::validate(s)?;
    for (i, p) in s.metrics.pcap.iter().enumerate() {
        if p.link.is_some() == p.node.is_some() {
            return err(
                &format!("metrics.pcap[{i}]"),
                "give exactly one of `link` (\"A->B\") or `node`",
            );
        }
    }
    Ok(())
}

fn dumbbell(path: &str, d: &DumbbellCfg) -> Result<()> {
    link_role(
        &format!("{path}.bottleneck"),
        &d.bottleneck,
        LinkRole::Plain,
    )?;
    for (side, hosts) in [("left", &d.left), ("right", &d.right)] {
        for (i, h) in hosts.iter().enumerate() {
            link_role(&format!("{path}.{side}[{i}]"), h, LinkRole::Host)?;
        }
    }
    Ok(())
}

/// Check the naming field a link table takes in its place (see `LinkProps`).
pub(crate) fn link_role(path: &str, l: &LinkProps, role: LinkRole) -> Result<()> {
    let (need_between, need_name) = match role {
        LinkRole::Between => (true, false),
        LinkRole::Host => (false, true),
        LinkRole::Plain => (false, false),
    };
    let place = match role {
        LinkRole::Between => "an entry of [[links]]",
        LinkRole::Host => "a host of a dumbbell side",
        LinkRole::Plain => "a bottleneck, chain or multihomed link",
    };
    match (&l.between, need_between) {
        (None, true) => {
            return err(
                &format!("{path}.between"),
                format!("is required for {place}: the two node names"),
            )
        }
        (Some(_), false) => {
            return err(
                &format!("{path}.between"),
                format!("is not used by {place}"),
            )
        }
        _ => {}
    }
    match (&l.name, need_name) {
        (None, true) => {
            return err(
                &format!("{path}.name"),
                format!("is required for {place}: the host's name"),
            )
        }
        (Some(_), false) => return err(&format!("{path}.name"), format!("is not used by {place}")),
        (Some(n), true) if n.is_empty() => {
            return err(&format!("{path}.name"), "must not be empty")
        }
        _ => {}
    }
    link(path, l)
}

fn link(path: &str, l: &LinkProps) -> Result<()> {
    if l.rate.0.bps() == 0 {
        return err(&format!("{path}.rate"), "must be > 0 bps");
    }
    l.options(path)?;
    if let Some(q) = &l.queue {
        q.to_config(&format!("{path}.queue"))?;
    }
    for (i, e) in l.errors.iter().enumerate() {
        let p = format!("{path}.errors[{i}]");
        match e.resolve(&p)? {
            ErrorModelSpec::Uniform { rate } => probability(&format!("{p}.rate"), rate)?,
            ErrorModelSpec::Burst { rate, size } => {
                probability(&format!("{p}.rate"), rate)?;
                match size {
                    BurstSizeCfg::Fixed(0) => return err(&format!("{p}.size"), "must be ≥ 1"),
                    BurstSizeCfg::Uniform { min, max } if min == 0 || min > max => {
                        return err(
                            &format!("{p}.size"),
                            format!("need 1 ≤ min ≤ max, got min={min} max={max}"),
                        )
                    }
                    BurstSizeCfg::Geometric { mean } if mean.is_nan() || mean < 1.0 => {
                        return err(
                            &format!("{p}.size.mean"),
                            format!("{mean} is below 1: a burst has at least one packet"),
                        )
                    }
                    _ => {}
                }
            }
            ErrorModelSpec::GilbertElliott {
                p_good_to_bad,
                p_bad_to_good,
                loss_good,
                loss_bad,
            } => {
                probability(&format!("{p}.p_good_to_bad"), p_good_to_bad)?;
                probability(&format!("{p}.p_bad_to_good"), p_bad_to_good)?;
                probability(&format!("{p}.loss_good"), loss_good)?;
                probability(&format!("{p}.loss_bad"), loss_bad)?;
            }
            ErrorModelSpec::Spike { from, until, delay } => {
                if until.0 <= from.0 {
                    return err(
                        &format!("{p}.until"),
                        format!("must be after from ({}), got {}", from.0, until.0),
                    );
                }
                if delay.0.is_zero() {
                    return err(&format!("{p}.delay"), "must be > 0");
                }
            }
            ErrorModelSpec::Scripted {
                app,
                flow,
                packets,
                tcp_seqs,
                sctp_tsns,
                delay,
            } => {
                if delay.is_some_and(|d| d.0.is_zero()) {
                    return err(
                        &format!("{p}.delay"),
                        "must be > 0 (leave it out to drop the chosen packets)",
                    );
                }
                let n =
                    packets.is_some() as u8 + tcp_seqs.is_some() as u8 + sctp_tsns.is_some() as u8;
                if n != 1 {
                    return err(
                        &p,
                        "give exactly one of `packets`, `tcp_seqs` or `sctp_tsns`",
                    );
                }
                if app.is_some() && flow.is_some() {
                    return err(&p, "give `app` or `match`, not both");
                }
                if packets.as_ref().is_some_and(|v| v.contains(&0)) {
                    return err(&format!("{p}.packets"), "packet numbers start at 1");
                }
                for (name, list) in [("tcp_seqs", &tcp_seqs), ("sctp_tsns", &sctp_tsns)] {
                    for (k, e) in list.iter().flatten().enumerate() {
                        let v = match e {
                            ScriptedEntry::Plain(v) => *v,
                            ScriptedEntry::Times(t) => {
                                if t.times == 0 {
                                    return err(&format!("{p}.{name}[{k}].times"), "must be ≥ 1");
                                }
                                t.value
                            }
                        };
                        if v > u32::MAX as u64 {
                            return err(
                                &format!("{p}.{name}[{k}]"),
                                format!("{v} does not fit a 32-bit sequence number"),
                            );
                        }
                    }
                }
            }
        }
    }
    if let Some(r) = &l.reorder {
        probability(&format!("{path}.reorder.probability"), r.probability)?;
        if r.probability > 0.0 && r.mean_delay.0.is_zero() {
            return err(
                &format!("{path}.reorder.mean_delay"),
                "must be > 0 when probability > 0",
            );
        }
    }
    Ok(())
}

fn period(path: &str, p: &PeriodCfg) -> Result<()> {
    match p.resolve(path)? {
        PeriodSpec::Fixed { .. } => Ok(()),
        PeriodSpec::Exponential { mean } if mean.0.is_zero() => {
            err(&format!("{path}.mean"), "must be > 0")
        }
        PeriodSpec::Pareto { shape, .. } if shape.is_nan() || shape <= 1.0 => err(
            &format!("{path}.shape"),
            format!("{shape} must be > 1 (a Pareto with shape ≤ 1 has no mean)"),
        ),
        PeriodSpec::Pareto { mean, .. } if mean.0.is_zero() => {
            err(&format!("{path}.mean"), "must be > 0")
        }
        _ => Ok(()),
    }
}

/// Check one app; returns its usrsctp settings when it runs FreeBSD's SCTP.
fn app(path: &str, a: &AppCfg, s: &Scenario) -> Result<Option<rexmit_usrsctp::UsrsctpConfig>> {
    if a.name.is_empty() {
        return err(&format!("{path}.name"), "must not be empty");
    }
    if a.from == a.to {
        return err(
            &format!("{path}.to"),
            format!("sender and receiver are the same node {:?}", a.from),
        );
    }
    if a.start.0 >= s.stop_time.0 {
        return err(
            &format!("{path}.start"),
            format!("{} is not before stop_time {}", a.start.0, s.stop_time.0),
        );
    }
    // The latest the app may start: `start`, or `start + start_jitter` (resolved per run).
    let latest = a.start.0 + a.start_jitter.map_or(rexmit_time::Duration::ZERO, |j| j.0);
    if let Some(j) = a.start_jitter.filter(|_| latest >= s.stop_time.0) {
        return err(
            &format!("{path}.start_jitter"),
            format!(
                "start {} + start_jitter {} is not before stop_time {}",
                a.start.0, j.0, s.stop_time.0
            ),
        );
    }
    if let Some(stop) = a.stop().filter(|stop| stop.0 <= latest) {
        let after = match a.start_jitter {
            Some(_) => format!("start + start_jitter {latest}"),
            None => format!("start {}", a.start.0),
        };
        return err(
            &format!("{path}.stop"),
            format!("{} is not after {after}", stop.0),
        );
    }
    if let Transport::Tcp(t) = a.transport() {
        t.clone()
            .unwrap_or_default()
            .to_config(&format!("{path}.tcp"))?;
    }
    let mut usrsctp = None;
    crate::traffic::check(path, a)?;
    match &a.traffic {
        AppTraffic::UdpCbr(c) => udp_rate_and_size(path, c.rate, c.packet_size)?,
        AppTraffic::UdpOnoff(c) => {
            udp_rate_and_size(path, c.rate, c.packet_size)?;
            period(&format!("{path}.on"), &c.on)?;
            period(&format!("{path}.off"), &c.off)?;
        }
        AppTraffic::TcpBulk(c) => {
            if c.bytes.is_some_and(|b| b.0 == 0) {
                return err(
                    &format!("{path}.bytes"),
                    "must be ≥ 1 (omit it to send until the run ends)",
                );
            }
        }
        AppTraffic::SctpBulk(c) => {
            if c.message_size == Some(0) {
                return err(&format!("{path}.message_size"), "must be ≥ 1 byte");
            }
            if c.messages == Some(0) {
                return err(
                    &format!("{path}.messages"),
                    "must be ≥ 1 (omit it to send until the run ends)",
                );
            }
            let cfg = sctp_association(path, &c.sctp, c.streams)?;
            // The core refuses a message larger than either end's buffer for good
            // (`SendError::MessageTooLarge`: no partial delivery), so a bulk source of such
            // messages would never send; unset, its message is one full DATA chunk
            // (`build/apps.rs`), which a large pmtu can make larger than a small receive
            // buffer. (A message source's refusals are counted instead: `messages_refused`.)
            let fits = cfg.send_buffer.min(u64::from(cfg.recv_buffer));
            let size = c.message_size.unwrap_or(cfg.max_data_payload());
            if u64::from(size) > fits {
                let origin = if c.message_size.is_none() {
                    format!(" (unset: one DATA chunk of sctp.pmtu {})", cfg.pmtu)
                } else {
                    String::new()
                };
                return err(
                    &format!("{path}.message_size"),
                    format!(
                        "{size}{origin} does not fit the association's buffers: allowed 1..={fits} (sctp.send_buffer {}, sctp.recv_buffer {})",
                        cfg.send_buffer,
                        cfg.recv_buffer
                    ),
                );
            }
            streams_fit(path, c.streams, &cfg)?;
            if crate::usrsctp::is_usrsctp(a) {
                usrsctp = Some(crate::usrsctp::config(path, &c.sctp, &cfg)?);
            }
        }
        AppTraffic::SctpMessages(c) => {
            let cfg = sctp_association(path, &c.sctp, c.streams)?;
            streams_fit(path, c.streams, &cfg)?;
            if crate::usrsctp::is_usrsctp(a) {
                usrsctp = Some(crate::usrsctp::config(path, &c.sctp, &cfg)?);
            }
        }
        AppTraffic::TcpMessages(_) | AppTraffic::UdpRandom(_) | AppTraffic::Http(_) => {}
    }
    if let Some(w) = a.warmup() {
        if w.0 >= s.stop_time.0 {
            return err(
                &format!("{path}.warmup"),
                format!("{} is not before stop_time {}", w.0, s.stop_time.0),
            );
        }
    }
    Ok(usrsctp)
}

fn udp_rate_and_size(path: &str, rate: crate::units::RateStr, size: u32) -> Result<()> {
    if rate.0.bps() == 0 {
        return err(&format!("{path}.rate"), "must be > 0 bps");
    }
    let min = rexmit_net::apps::udp::MIN_UDP_PACKET;
    if !(min..=65535).contains(&size) {
        return err(
            &format!("{path}.packet_size"),
            format!("{size} is outside {min}..=65535 (IP packet bytes, headers included)"),
        );
    }
    Ok(())
}

/// The settings of an SCTP app's association (`sctp`) and its number of `streams` (≥ 1).
fn sctp_association(
    path: &str,
    sctp: &Option<crate::transport::SctpCfg>,
    streams: Option<u16>,
) -> Result<rexmit_sctp::SctpConfig> {
    if streams == Some(0) {
        return err(&format!("{path}.streams"), "must be ≥ 1");
    }
    sctp.clone()
        .unwrap_or_default()
        .to_config(&format!("{path}.sctp"))
}

fn streams_fit(path: &str, streams: Option<u16>, cfg: &rexmit_sctp::SctpConfig) -> Result<()> {
    let streams = streams.unwrap_or(1);
    if streams > cfg.outbound_streams {
        return err(
            &format!("{path}.streams"),
            format!(
                "{streams} exceeds the association's {} outbound streams",
                cfg.outbound_streams
            ),
        );
    }
    Ok(())
}
