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
pub(super) fn add_http(
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
