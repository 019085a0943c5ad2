//! Message sources over SCTP and TCP on a two-node network: latency at zero loss is the
//! hand-computed one-way delay plus serialization, a message whose chunk or segment is dropped
//! is counted under the right retransmission count with one RTO (or two, backed off) of extra
//! latency, and the same seed gives the same latencies.

use rexmit_endpoints::latency::{Delivery, MessageLog, StreamTruth};
use rexmit_endpoints::messages::{MessageGen, MessageSource};
use rexmit_endpoints::sctp::{MessagesApp as SctpMessages, SctpAgent, SharedTruth};
use rexmit_endpoints::tcp::{MessagesApp as TcpMessages, TcpAgent};
use rexmit_engine::{RunLimits, StreamFactory};
use rexmit_net::apps::dist::Dist;
use rexmit_net::topology::{chain, Duplex};
use rexmit_net::*;
use rexmit_sctp::SctpConfig;
use rexmit_tcp::TcpConfig;
use rexmit_time::{Duration, Rate, Time};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

const RATE_MBPS: u64 = 10;
const DELAY: Duration = Duration::from_millis(10);
const SCTP_TSN: u32 = 1000;
const TCP_ISS: u32 = 5000;

/// A —— B, 10 Mb/s, 10 ms, with `errors` on A → B.
fn net(errors: Vec<ErrorModelConfig>, seed: u64) -> Simulation {
    let mut n = Network::new(StreamFactory::new(seed));
    let mut d = Duplex::symmetric(LinkParams::new(Rate::from_mbps(RATE_MBPS), DELAY));
    d.fwd.errors = errors;
    chain(&mut n, &["A".to_string(), "B".to_string()], &[d]).unwrap();
    Simulation::new(n)
}

/// Latency of a lone packet of `ip_bytes` over the link: serialization plus propagation.
fn one_way(ip_bytes: u64) -> Duration {
    Rate::from_mbps(RATE_MBPS).tx_time(ip_bytes) + DELAY
}

fn source(gap: Duration, size: u64, count: u64) -> MessageSource {
    MessageSource {
        interarrival: Dist::Fixed(gap.as_nanos()),
        size: Dist::Fixed(size),
        burst: None,
        count: Some(count),
        stop: None,
    }
}

fn scripted(select: ScriptSelect) -> ErrorModelConfig {
    ErrorModelConfig::Scripted {
        flow: FlowMatch::default(),
        select,
    }
}

fn drops(list: &[(u64, u32)]) -> Vec<ScriptedValue> {
    list.iter()
        .map(|&(value, times)| ScriptedValue { value, times })
        .collect()
}

/// Run an SCTP message source A → B; returns the deliveries and the receiver's metrics.
fn sctp_run(
    src: MessageSource,
    errors: Vec<ErrorModelConfig>,
    secs: u64,
    seed: u64,
) -> (Vec<Delivery>, BTreeMap<String, f64>) {
    let mut sim = net(errors, seed);
    let (a, b) = (
        sim.net().node_by_name("A").unwrap(),
        sim.net().node_by_name("B").unwrap(),
    );
    let cfg = SctpConfig {
        hb_interval: None,
        ..SctpConfig::default()
    };
    let truth = Rc::new(RefCell::new(SharedTruth::default()));
    let gen = MessageGen::new(src, sim.net().streams().stream("app/m"));
    let app = SctpMessages {
        gen,
        unordered: false,
        streams: 1,
    };
    let tx = SctpAgent::sender(
        cfg.clone(),
        9,
        sim.net().addrs(b),
        9,
        0,
        0xaaaa,
        SCTP_TSN,
        app,
        truth.clone(),
        Time::ZERO,
    );
    let rx = SctpAgent::receiver(cfg, 9, 0xbbbb, 77, truth.clone(), Time::ZERO);
    sim.add_agent("rx", b, Some((132, 9)), Time::ZERO, Box::new(rx))
        .unwrap();
    sim.add_agent("tx", a, Some((132, 9)), Time::ZERO, Box::new(tx))
        .unwrap();
    sim.run(&RunLimits::until(Time::from_secs(secs)), |_| true)
        .unwrap();
    let metrics = sim
        .agent_metrics()
        .into_iter()
        .filter(|(n, _, _)| n == "rx")
        .flat_map(|(_, _, m)| m)
        .collect();
    let d = truth.borrow().log.delivered().to_vec();
    (d, metrics)
}

/// Run a TCP message source A → B.
fn tcp_run(
    src: MessageSource,
    errors: Vec<ErrorModelConfig>,
    secs: u64,
    seed: u64,
) -> (Vec<Delivery>, BTreeMap<String, f64>) {
    let mut sim = net(errors, seed);
    let (a, b) = (
        sim.net().node_by_name("A").unwrap(),
        sim.net().node_by_name("B").unwrap(),
    );
    let cfg = TcpConfig::default();
    assert!(
        !cfg.timestamps && !cfg.nagle,
        "the hand calculation assumes bare 40-byte headers and no Nagle delay"
    );
    let truth = Rc::new(RefCell::new(StreamTruth::new(Time::ZERO)));
    let gen = MessageGen::new(src, sim.net().streams().stream("app/m"));
    let app = TcpMessages {
        gen,
        truth: truth.clone(),
        pending: 0,
    };
    let tx = TcpAgent::sender(cfg.clone(), 4000, sim.net().addrs(b)[0], 80, TCP_ISS, app);
    let rx = TcpAgent::receiver(cfg, 80, 9, Time::ZERO).with_messages(truth.clone());
    sim.add_agent("rx", b, Some((6, 80)), Time::ZERO, Box::new(rx))
        .unwrap();
    sim.add_agent("tx", a, Some((6, 4000)), Time::ZERO, Box::new(tx))
        .unwrap();
    sim.run(&RunLimits::until(Time::from_secs(secs)), |_| true)
        .unwrap();
    let metrics = sim
        .agent_metrics()
        .into_iter()
        .filter(|(n, _, _)| n == "rx")
        .flat_map(|(_, _, m)| m)
        .collect();
    let d = truth.borrow().log.delivered().to_vec();
    (d, metrics)
}

/// IP packet of one SCTP DATA chunk: IPv4 20 + common header 12 + DATA header 16 + payload
/// padded to 4 (RFC 9260 §3.2, §3.3.1).
fn sctp_packet(size: u64) -> u64 {
    20 + 12 + 16 + size.div_ceil(4) * 4
}

#[test]
fn sctp_message_latency_at_zero_loss_is_one_way_delay_plus_serialization() {
    // Seed 004 §6.1: 4 messages of 100 bytes per second.
    let (d, m) = sctp_run(source(Duration::from_millis(250), 100, 20), vec![], 10, 1);
    assert_eq!(d.len(), 20);
    let l0 = one_way(sctp_packet(100)); // 148 B at 10 Mb/s = 118.4 µs, + 10 ms
    assert_eq!(l0, Duration::from_nanos(10_118_400));
    for x in &d {
        assert_eq!((x.latency, x.rtx), (l0, 0), "message {}", x.msg);
    }
    // The application sends once the association is up: after the four-way handshake, two
    // round trips of 2·10 ms plus the serialization of INIT … COOKIE ACK (≈ 0.23 ms).
    let setup = d[0].sent - Time::from_millis(250);
    assert!(
        setup > Duration::from_millis(40) && setup < Duration::from_millis(41),
        "first message one interarrival after setup ({setup:?})"
    );
    assert!(d
        .windows(2)
        .all(|w| w[1].sent - w[0].sent == Duration::from_millis(250)));
    assert_eq!(m["latency_rtx0_count"], 20.0);
    assert_eq!(m["latency_rtx1_count"], 0.0);
    assert!((m["latency_rtx0_max_s"] - l0.as_secs_f64()).abs() < 1e-12);
}

#[test]
fn sctp_dropped_chunk_counts_as_retransmitted_with_rto_extra_latency() {
    // Messages every 2 s: no later chunk can trigger a fast retransmit before T3-rtx expires,
    // so each drop costs one RTO (RTO.Min = 1 s: the RTT is far below it), and a chunk dropped
    // twice costs 1 s + 2 s (RFC 9260 §6.3.3 E2: the RTO doubles).
    // TSNs are relative to the initial TSN: the first DATA chunk (message 0) is 1.
    let sel = ScriptSelect::SctpTsns(drops(&[(4, 1), (7, 2)]));
    let (d, m) = sctp_run(
        source(Duration::from_secs(2), 100, 10),
        vec![scripted(sel)],
        30,
        1,
    );
    let l0 = one_way(sctp_packet(100));
    let by_msg: BTreeMap<u64, (Duration, u32)> =
        d.iter().map(|x| (x.msg, (x.latency, x.rtx))).collect();
    assert_eq!(by_msg.len(), 10);
    assert_eq!(by_msg[&3], (l0 + Duration::from_secs(1), 1));
    assert_eq!(by_msg[&6], (l0 + Duration::from_secs(3), 2));
    // Ordered delivery: message 7 (sent 2 s after 6) waits for 6's second retransmission.
    assert_eq!(by_msg[&7], (l0 + Duration::from_secs(1), 0));
    for k in [0, 1, 2, 4, 5, 8, 9] {
        assert_eq!(by_msg[&k], (l0, 0), "message {k}");
    }
    assert_eq!(
        (
            m["latency_rtx0_count"],
            m["latency_rtx1_count"],
            m["latency_rtx2_count"]
        ),
        (8.0, 1.0, 1.0)
    );
    assert!((m["latency_rtx1_mean_s"] - (l0 + Duration::from_secs(1)).as_secs_f64()).abs() < 1e-12);
}

#[test]
fn tcp_message_latency_at_zero_loss_is_one_way_delay_plus_serialization() {
    let (d, m) = tcp_run(source(Duration::from_millis(250), 100, 20), vec![], 10, 1);
    assert_eq!(d.len(), 20);
    let l0 = one_way(20 + 20 + 100);
    for x in &d {
        assert_eq!((x.latency, x.rtx), (l0, 0), "message {}", x.msg);
    }
    assert_eq!(m["messages_delivered"], 20.0);
}

#[test]
fn tcp_dropped_segment_counts_as_retransmitted_with_rto_extra_latency() {
    // Message k occupies bytes 100k..100k+100, relative sequence number 1 + 100k (the SYN is
    // 0). Dropped once with messages 2 s apart, it is recovered by the RTO (RTO.min = 1 s,
    // RFC 6298 §2.4).
    let sel = ScriptSelect::TcpSeqs(drops(&[(1 + 300, 1)]));
    let (d, m) = tcp_run(
        source(Duration::from_secs(2), 100, 6),
        vec![scripted(sel)],
        20,
        1,
    );
    let l0 = one_way(140);
    let by_msg: BTreeMap<u64, (Duration, u32)> =
        d.iter().map(|x| (x.msg, (x.latency, x.rtx))).collect();
    assert_eq!(by_msg.len(), 6);
    assert_eq!(by_msg[&3], (l0 + Duration::from_secs(1), 1));
    for k in [0, 1, 2, 4, 5] {
        assert_eq!(by_msg[&k], (l0, 0), "message {k}");
    }
    assert_eq!(m["latency_rtx1_count"], 1.0);
}

#[test]
fn same_seed_gives_identical_latencies_and_another_seed_does_not() {
    // Random gaps and sizes, 5 % random loss: everything random comes from named streams.
    let src = MessageSource {
        interarrival: Dist::Exponential {
            mean: 100e6,
            min: 0,
            max: None,
        },
        size: Dist::Uniform { min: 20, max: 400 },
        burst: None,
        count: None,
        stop: None,
    };
    let loss = || vec![ErrorModelConfig::Uniform { rate: 0.05 }];
    let key = |d: &[Delivery]| {
        d.iter()
            .map(|x| (x.msg, x.sent, x.latency, x.rtx, x.size))
            .collect::<Vec<_>>()
    };
    let (a, _) = sctp_run(src.clone(), loss(), 20, 4);
    let (b, _) = sctp_run(src.clone(), loss(), 20, 4);
    let (c, _) = sctp_run(src.clone(), loss(), 20, 5);
    assert!(
        a.len() > 100 && a.iter().any(|x| x.rtx > 0),
        "{} messages",
        a.len()
    );
    assert_eq!(key(&a), key(&b));
    assert_ne!(key(&a), key(&c));
    let (a, _) = tcp_run(src.clone(), loss(), 20, 4);
    let (b, _) = tcp_run(src, loss(), 20, 4);
    assert!(a.iter().any(|x| x.rtx > 0));
    assert_eq!(key(&a), key(&b));
}

#[test]
fn message_log_statistics_use_only_messages_after_warmup() {
    // The receiver reports what MessageLog computes: checked here on a hand-made log.
    let mut log = MessageLog::new(Time::from_secs(1));
    log.on_send(0, Time::from_millis(500), 10);
    log.on_send(1, Time::from_millis(1500), 10);
    log.on_delivery(0, Time::from_millis(600));
    log.on_delivery(1, Time::from_millis(1520));
    let m: BTreeMap<String, f64> = log.metrics().into_iter().collect();
    assert_eq!(m["latency_rtx0_count"], 1.0);
    assert!((m["latency_mean_s"] - 0.020).abs() < 1e-12);
    assert_eq!(
        log.table().columns[0].1,
        vec![0, 1],
        "the table keeps every message"
    );
}
