//! rexmit's SCTP options reach the usrsctp stack: each test sets one and finds its effect on
//! the wire.

mod common;
use common::*;
use rexmit_net::{ErrorModelConfig, FlowMatch, ScriptSelect};
use rexmit_sctp::SctpConfig;
use rexmit_time::{Duration, Rate};
use rexmit_usrsctp::StackRun;
use rexmit_wire::{Chunk, SctpPacket};

/// Run one association of `app` with `cfg` for `secs` simulated seconds over `sim`; returns what
/// node S sent (and received) and the metrics.
fn capture(
    mut sim: rexmit_net::Simulation,
    cfg: &SctpConfig,
    keys: &[&str],
    app: rexmit_endpoints::sctp::SctpApp,
    secs: u64,
    name: &str,
) -> (Vec<Captured>, Metrics) {
    let run = StackRun::open(1).unwrap();
    add_association(&mut sim, &run, cfg, keys, app, 49152, "app", None);
    drop(run);
    let dir = scratch_dir(name);
    let s = sim.net().node_by_name("S").unwrap();
    let pcap = dir.join("s.pcap");
    sim.pcap_node(s, &pcap).unwrap();
    run_until(&mut sim, secs);
    let m = metrics(&sim);
    drop(sim);
    let p = sctp_packets(&pcap);
    std::fs::remove_dir_all(&dir).ok();
    (p, m)
}

type Metrics = std::collections::BTreeMap<String, std::collections::BTreeMap<String, f64>>;

fn has(p: &SctpPacket, f: impl Fn(&Chunk) -> bool) -> bool {
    p.chunks.iter().any(f)
}

#[test]
fn pmtu_bounds_packets_and_full_data_packets_fill_it() {
    if !usrsctp_or_skip() {
        return;
    }
    let cfg = SctpConfig {
        pmtu: 1000,
        ..SctpConfig::default()
    };
    let sim = lossy_chain(1, Rate::from_mbps(10), Duration::from_millis(10), 0.0);
    let (p, _) = capture(
        sim,
        &cfg,
        &["pmtu"],
        bulk(cfg.max_data_payload(), Some(50)),
        5,
        "pmtu",
    );
    let data: Vec<usize> = p
        .iter()
        .filter(|c| has(&c.sctp, |c| matches!(c, Chunk::Data(_))))
        .map(|c| c.len)
        .collect();
    assert_eq!(data.len(), 50);
    // pmtu − 48 = 952 bytes of user data per DATA chunk, one chunk per packet: exactly pmtu.
    assert!(data.iter().all(|&l| l == 1000), "{data:?}");
}

#[test]
fn recv_buffer_is_the_advertised_window_of_both_ends() {
    if !usrsctp_or_skip() {
        return;
    }
    let cfg = SctpConfig {
        recv_buffer: 100_000,
        ..SctpConfig::default()
    };
    let sim = lossy_chain(1, Rate::from_mbps(10), Duration::from_millis(10), 0.0);
    let (p, _) = capture(sim, &cfg, &["recv_buffer"], bulk(1000, Some(1)), 2, "rwnd");
    let rwnd: Vec<u32> = p
        .iter()
        .flat_map(|c| c.sctp.chunks.iter())
        .filter_map(|c| match c {
            Chunk::Init(i) | Chunk::InitAck(i) => Some(i.a_rwnd),
            _ => None,
        })
        .collect();
    assert_eq!(rwnd, vec![100_000, 100_000], "INIT and INIT-ACK");
}

#[test]
fn rto_initial_times_the_init_retransmission() {
    if !usrsctp_or_skip() {
        return;
    }
    let mut cfg = SctpConfig::default();
    cfg.rto.initial = Duration::from_millis(2500);
    // The first packet on the bottleneck (the INIT) is lost.
    let drop_init = ErrorModelConfig::Scripted {
        flow: FlowMatch::default(),
        select: ScriptSelect::PacketNumbers(vec![1]),
    };
    let sim = chain_with_errors(
        1,
        Rate::from_mbps(10),
        Duration::from_millis(10),
        vec![drop_init],
    );
    let (p, m) = capture(sim, &cfg, &["rto.initial"], bulk(1000, Some(1)), 4, "rto");
    let inits: Vec<u64> = p
        .iter()
        .filter(|c| has(&c.sctp, |c| matches!(c, Chunk::Init(_))))
        .map(|c| c.t_ns)
        .collect();
    // RFC 9260 §5.1: T1-init starts at RTO.Initial; the stack's timers fire on the simulated
    // millisecond.
    assert_eq!(inits, vec![0, 2_500_000_000]);
    assert_eq!(m["app/sink"]["messages_delivered"], 1.0);
}

#[test]
fn heartbeat_interval_and_heartbeats_off() {
    if !usrsctp_or_skip() {
        return;
    }
    let beats = |hb: Option<Duration>| {
        let cfg = SctpConfig {
            hb_interval: hb,
            ..SctpConfig::default()
        };
        let sim = lossy_chain(1, Rate::from_mbps(10), Duration::from_millis(10), 0.0);
        let s_addr = sim.net().addrs(sim.net().node_by_name("S").unwrap())[0];
        let (p, _) = capture(sim, &cfg, &["hb_interval"], bulk(1000, Some(1)), 60, "hb");
        p.iter()
            .filter(|c| c.src == s_addr && has(&c.sctp, |c| matches!(c, Chunk::Heartbeat { .. })))
            .count()
    };
    // RFC 9260 §8.3: one heartbeat per idle path every RTO + HB.interval (with FreeBSD's
    // jitter of ±50% of the RTO): with RTO 1 s, 60 s hold 60 / (5 ± 0.5 + 1) of them, ~10.
    let five = beats(Some(Duration::from_secs(5)));
    assert!((8..=12).contains(&five), "{five} heartbeats");
    assert_eq!(beats(None), 0);
}

#[test]
fn sack_freq_one_acknowledges_every_data_packet() {
    if !usrsctp_or_skip() {
        return;
    }
    let count = |freq: u32| {
        let cfg = SctpConfig {
            sack_freq: freq,
            ..SctpConfig::default()
        };
        let sim = lossy_chain(1, Rate::from_mbps(10), Duration::from_millis(10), 0.0);
        let (p, _) = capture(
            sim,
            &cfg,
            &["sack_freq"],
            bulk(1000, Some(200)),
            10,
            "sackf",
        );
        p.iter()
            .filter(|c| has(&c.sctp, |c| matches!(c, Chunk::Sack(_))))
            .count()
    };
    assert_eq!(count(1), 200, "one SACK per DATA packet");
    let two = count(2);
    assert!(
        (100..=110).contains(&two),
        "{two} SACKs for 200 DATA packets"
    );
}
