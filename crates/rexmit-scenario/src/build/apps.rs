//! Placing a scenario's apps: their agents (UDP sources and sinks, TCP and SCTP endpoints with
//! their applications, HTTP clients and servers), ports and SCTP verification tags.

use super::*;

/// The first default app port: the dynamic range (RFC 6335 §6), where Wireshark registers
/// almost no dissector, so a capture decodes as plain TCP/SCTP data (5000 was GSM A-bis RSL).
const FIRST_APP_PORT: usize = 49_152;

/// The first server port of HTTP apps; each takes `max_connections` ports from here on.
pub(super) const HTTP_FIRST_PORT: u32 = 20_000;

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

pub(super) fn period(path: &str, p: &PeriodCfg) -> Result<PeriodDist> {
    Ok(match p.resolve(path)? {
        PeriodSpec::Fixed { value } => PeriodDist::Fixed(value.0),
        PeriodSpec::Exponential { mean } => PeriodDist::Exponential { mean: mean.0 },
        PeriodSpec::Pareto { mean, shape } => PeriodDist::Pareto {
            mean: mean.0,
            alpha: shape,
        },
    })
}

/// An app's agents once placed.
pub(super) struct Placed {
    pub(super) tx: AgentId,
    pub(super) rx: AgentId,
    pub(super) tables: Option<Box<dyn Tables>>,
}

/// Verification tags (non-zero, RFC 9260 §3.3.2) and initial TSNs of an association.
pub(super) fn sctp_ids(rng: &mut rexmit_engine::RngStream) -> (u32, u32, u32, u32) {
    let (tag_s, tag_r) = (
        (rng.next_u64() as u32).max(1),
        (rng.next_u64() as u32).max(1),
    );
    (tag_s, tag_r, rng.next_u64() as u32, rng.next_u64() as u32)
}

/// Place an app's sending and receiving agents.
pub(super) fn add_app(
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
    let measure_from = Time::ZERO + a.warmup().map_or(a.start.0, |w| w.0);
    let proto = a.kind().protocol();
    let port_err = |e: SetupError| ScenarioError::new(format!("{path}.port"), e.to_string());
    let udp = UdpEndpoints {
        src_port: port,
        dst,
        dst_port: port,
    };
    let at = |stop: Option<DurationStr>| stop.map(|d| Time::ZERO + d.0);
    let messages = |sim: &Simulation, m: &MessageSourceCfg| -> Result<MessageGen> {
        let src = crate::traffic::message_source(path, a.kind(), m)?;
        Ok(MessageGen::new(
            src,
            sim.net()
                .streams()
                .stream(&format!("app/{}/messages", a.name)),
        ))
    };
    // A TCP sender running `app` and its receiver; initial sequence numbers from the app's stream.
    let tcp = |rng: &mut RngStream, tcp: &Option<TcpCfg>, app: TcpApp| -> Result<_> {
        let cfg = tcp
            .clone()
            .unwrap_or_default()
            .to_config(&format!("{path}.tcp"))?;
        let (iss_s, iss_r) = (rng.next_u64() as u32, rng.next_u64() as u32);
        let rcv = TcpAgent::receiver(cfg.clone(), port, iss_r, measure_from);
        let snd = TcpAgent::sender(cfg, port, dst, port, iss_s, app);
        let snd = match trace.clone() {
            Some(t) => snd.with_trace(t),
            None => snd,
        };
        Ok((snd, rcv))
    };
    let sctp_cfg = |sctp: &Option<SctpCfg>| {
        sctp.clone()
            .unwrap_or_default()
            .to_config(&format!("{path}.sctp"))
    };
    // An SCTP sender running `app` and its receiver; tags and TSNs from the app's stream.
    // The associations' own draws (heartbeat jitter) come from a stream of their own, so that
    // they move no other draw of the app.
    let mut sctp_seeds = sim.net().streams().stream(&format!("app/{}/sctp", a.name));
    let mut sctp = |rng: &mut RngStream, cfg: SctpConfig, app: SctpApp, truth: Truth| {
        let (tag_s, tag_r, tsn_s, tsn_r) = sctp_ids(rng);
        let (seed_s, seed_r) = (sctp_seeds.next_u64(), sctp_seeds.next_u64());
        let rcv_cfg = SctpConfig {
            random_seed: seed_r,
            ..cfg.clone()
        };
        let cfg = SctpConfig {
            random_seed: seed_s,
            ..cfg
        };
        let snd = SctpAgent::sender(
            cfg.clone(),
            port,
            to_addrs.clone(),
            port,
            a.to_addr,
            tag_s,
            tsn_s,
            app,
            truth.clone(),
            measure_from,
        );
        let rcv = SctpAgent::receiver(rcv_cfg, port, tag_r, tsn_r, truth, measure_from);
        let snd = match trace.clone() {
            Some(t) => snd.with_trace(t),
            None => snd,
        };
        (snd, rcv)
    };
    let mut tables: Option<Box<dyn Tables>> = None;
    let (sender, receiver, sender_binds): (Box<dyn Agent>, Box<dyn Agent>, bool) = match &a.traffic
    {
        AppTraffic::UdpCbr(c) => {
            let jitter = c.jitter.map(|j| j.0).unwrap_or_default();
            let src = CbrSource::new(udp, c.packet_size, c.rate.0, at(c.stop), jitter, rng);
            (Box::new(src), Box::new(UdpSink::new()), false)
        }
        AppTraffic::UdpOnoff(c) => {
            let (on, off) = (
                period(&format!("{path}.on"), &c.on)?,
                period(&format!("{path}.off"), &c.off)?,
            );
            let (size, rate) = (c.packet_size, c.rate.0);
            let src = OnOffSource::new(udp, size, rate, on, off, at(c.stop), rng);
            (Box::new(src), Box::new(UdpSink::new()), false)
        }
        AppTraffic::UdpRandom(c) => {
            let (size, gap) = crate::traffic::udp_random(path, c)?;
            let src = RandomSource::new(udp, size, gap, at(c.stop), rng);
            (Box::new(src), Box::new(UdpSink::new()), false)
        }
        AppTraffic::TcpBulk(c) => {
            let app = BulkApp {
                bytes: c.bytes.map(|b| b.0),
                close_when_done: c.bytes.is_some(),
            };
            let (snd, rcv) = tcp(&mut rng, &c.tcp, app.into())?;
            (Box::new(snd), Box::new(rcv), true)
        }
        AppTraffic::TcpMessages(c) => {
            let truth = Rc::new(RefCell::new(StreamTruth::new(measure_from)));
            tables = Some(Box::new(truth.clone()));
            let app = TcpMessages {
                gen: messages(sim, &c.traffic)?,
                truth: truth.clone(),
                pending: 0,
            };
            let (snd, rcv) = tcp(&mut rng, &c.tcp, app.into())?;
            (Box::new(snd), Box::new(rcv.with_messages(truth)), true)
        }
        AppTraffic::SctpBulk(c) => {
            let cfg = sctp_cfg(&c.sctp)?;
            let app = MessageApp {
                message_size: c.message_size.unwrap_or(cfg.max_data_payload()),
                messages: c.messages,
                unordered: c.unordered.unwrap_or(true),
                streams: c.streams.unwrap_or(1),
            };
            let truth = Rc::new(RefCell::new(SharedTruth::default()));
            let (snd, rcv) = sctp(&mut rng, cfg, app.into(), truth);
            (Box::new(snd), Box::new(rcv), true)
        }
        AppTraffic::SctpMessages(c) => {
            let cfg = sctp_cfg(&c.sctp)?;
            let truth = Rc::new(RefCell::new(SharedTruth::default()));
            tables = Some(Box::new(truth.clone()));
            // Seed 004's thin streams and seed 002's signalling are ordered.
            let app = SctpMessages {
                gen: messages(sim, &c.traffic)?,
                unordered: c.unordered.unwrap_or(false),
                streams: c.streams.unwrap_or(1),
            };
            let (snd, rcv) = sctp(&mut rng, cfg, app.into(), truth);
            (Box::new(snd), Box::new(rcv), true)
        }
        AppTraffic::Http(_) => {
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

/// A run warning for a TCP app whose controller reacts only to ECN marks (DCTCP) when no queue
/// on its data path (`from` to `dst`) marks: it would see only losses and run as Reno. A
/// warning, not an error: a user may compare DCTCP with and without marking on purpose.
pub(super) fn dctcp_without_marking(
    net: &rexmit_net::Network,
    path: &str,
    a: &AppCfg,
    from: NodeId,
    dst: std::net::Ipv4Addr,
) -> Option<String> {
    let crate::apps::Transport::Tcp(tcp) = a.transport() else {
        return None;
    };
    let cfg = tcp.clone().unwrap_or_default().to_config(path).ok()?;
    if !cfg.controller_needs_ecn() {
        return None;
    }
    let hops = net.path(from, dst)?;
    if hops.iter().any(|c| net.channels[c.0 as usize].marks_ecn()) {
        return None;
    }
    Some(format!(
        "{path}: cc = \"{}\" reacts to ECN marks, but no queue from {:?} to {:?} marks: it sees only \
         losses and runs as Reno; give the bottleneck's queue ecn_threshold = K (DCTCP's step \
         marking, RFC 8257 §3.1) or an AQM with ecn = true",
        cfg.cc, a.from, a.to
    ))
}

/// Place an HTTP app: server slots on `from` (ports `first..first+slots`), listening from time
/// zero, and the client on `to` (port `port`), starting at the app's start.
#[allow(clippy::too_many_arguments)]
pub(super) fn add_http(
    sim: &mut Simulation,
    path: &str,
    a: &AppCfg,
    http: &HttpCfg,
    from: NodeId,
    to: NodeId,
    port: u16,
    first: u16,
    slots: u16,
) -> Result<Placed> {
    let cfg = http
        .tcp
        .clone()
        .unwrap_or_default()
        .to_config(&format!("{path}.tcp"))?;
    let requests = crate::traffic::http_requests(path, http)?;
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
    let measure_from = Time::ZERO + http.warmup.map_or(a.start.0, |w| w.0);
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
