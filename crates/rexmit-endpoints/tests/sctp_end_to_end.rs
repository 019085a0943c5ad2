//! SCTP and CMT over the seed 000 topologies with lossy bottlenecks: NR-SACK keeps the
//! retransmission queue free of unnecessary data (RtxQ_Util = 1) and reduces send-buffer
//! blocking (seed 000 §V).

use rexmit_endpoints::sctp::{MessageApp, SctpAgent, SharedTruth};
use rexmit_engine::{RunLimits, StreamFactory};
use rexmit_net::topology::{
    dual_dumbbell, dumbbell, AccessLink, DualDumbbellSpec, DumbbellSpec, Duplex, MultihomedHost,
};
use rexmit_net::*;
use rexmit_sctp::{CmtConfig, SctpConfig};
use rexmit_time::{Duration, Rate, Time};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

fn link(mbps: u64, delay_ms: u64, queue: u32, loss: f64) -> Duplex {
    let mut p = LinkParams::new(Rate::from_mbps(mbps), Duration::from_millis(delay_ms));
    p.queue = QueueConfig {
        limit: QueueLimit::Packets(queue),
        discipline: QueueDiscipline::DropTail,
    };
    let mut d = Duplex::symmetric(p);
    if loss > 0.0 {
        d.fwd.errors.push(ErrorModelConfig::Uniform { rate: loss });
    }
    d
}

fn app() -> MessageApp {
    MessageApp {
        message_size: 1452,
        messages: None,
        unordered: true,
        streams: 1,
    }
}

fn run(mut sim: Simulation, cfg: SctpConfig, secs: u64) -> BTreeMap<String, f64> {
    let s = sim.net().node_by_name("S").unwrap();
    let r = sim.net().node_by_name("R").unwrap();
    let raddrs = sim.net().addrs(r);
    let truth = Rc::new(RefCell::new(SharedTruth::default()));
    let warmup = Time::from_secs(2);
    let rx = SctpAgent::receiver(cfg.clone(), 9, 0xbbbb, 5000, truth.clone(), warmup);
    let tx = SctpAgent::sender(cfg, 9, raddrs, 9, 0, 0xaaaa, 1000, app(), truth, warmup);
    sim.add_agent("rx", r, Some((132, 9)), Time::ZERO, Box::new(rx))
        .unwrap();
    sim.add_agent("tx", s, Some((132, 9)), Time::ZERO, Box::new(tx))
        .unwrap();
    sim.run(&RunLimits::until(Time::from_secs(secs)), |_| true)
        .unwrap();
    sim.agent_metrics()
        .into_iter()
        .flat_map(|(_, _, m)| m)
        .collect()
}

/// Seed 000 Figure 5 topology with 1% loss on the bottleneck instead of cross traffic.
fn single_path(seed: u64) -> Simulation {
    let mut net = Network::new(StreamFactory::new(seed));
    let spec = DumbbellSpec {
        left_router: "R1".into(),
        right_router: "R2".into(),
        bottleneck: link(100, 2, 1000, 0.01),
        left: vec![AccessLink {
            host: "S".into(),
            link: link(100, 14, 1000, 0.0),
        }],
        right: vec![AccessLink {
            host: "R".into(),
            link: link(100, 14, 1000, 0.0),
        }],
    };
    dumbbell(&mut net, &spec).unwrap();
    Simulation::new(net)
}

#[test]
fn nr_sack_keeps_rtxq_util_at_one_and_sack_does_not() {
    let base = SctpConfig {
        send_buffer: 64 * 1024,
        recv_buffer: 1 << 20,
        ..SctpConfig::default()
    };
    let sack = run(
        single_path(1),
        SctpConfig {
            nr_sack: false,
            ..base.clone()
        },
        30,
    );
    let nr = run(
        single_path(1),
        SctpConfig {
            nr_sack: true,
            ..base
        },
        30,
    );
    eprintln!("SACK: {sack:?}\nNR-SACK: {nr:?}");
    assert_eq!(nr["nr_sack"], 1.0);
    assert_eq!(sack["nr_sack"], 0.0);
    assert!(nr["retransmissions"] > 0.0 && sack["retransmissions"] > 0.0);
    assert!(
        (nr["rtxq_util"] - 1.0).abs() < 1e-9,
        "NR-SACK RtxQ_Util {}",
        nr["rtxq_util"]
    );
    assert!(
        sack["rtxq_util"] < 0.99,
        "SACK RtxQ_Util {}",
        sack["rtxq_util"]
    );
    assert!(
        sack["rtxq_util_l"] < sack["rtxq_util"],
        "loss recovery is where SACK wastes the rtxq"
    );
    assert!(nr["goodput_bps"] >= sack["goodput_bps"] * 0.98);
}

/// Seed 000 Figure 6 topology, asymmetric loss (path 1 lossier), 128 KB send buffer: with
/// NR-SACKs the CMT sender is blocked less and delivers more.
fn two_paths(seed: u64) -> Simulation {
    let mut net = Network::new(StreamFactory::new(seed));
    let mk = |l: &str, r: &str, loss: f64| DumbbellSpec {
        left_router: l.into(),
        right_router: r.into(),
        bottleneck: link(100, 2, 1000, loss),
        left: vec![],
        right: vec![],
    };
    let spec = DualDumbbellSpec {
        paths: [mk("R1", "R2", 0.03), mk("R3", "R4", 0.005)],
        multihomed: vec![
            MultihomedHost {
                name: "S".into(),
                left: true,
                links: [link(100, 14, 1000, 0.0), link(100, 14, 1000, 0.0)],
            },
            MultihomedHost {
                name: "R".into(),
                left: false,
                links: [link(100, 14, 1000, 0.0), link(100, 14, 1000, 0.0)],
            },
        ],
    };
    dual_dumbbell(&mut net, &spec).unwrap();
    Simulation::new(net)
}

#[test]
fn cmt_with_nr_sack_blocks_less_and_delivers_more() {
    let cmt = CmtConfig {
        enabled: true,
        ..CmtConfig::default()
    };
    let base = SctpConfig {
        send_buffer: 128 * 1024,
        recv_buffer: 1 << 20,
        cmt,
        ..SctpConfig::default()
    };
    let sack = run(
        two_paths(3),
        SctpConfig {
            nr_sack: false,
            ..base.clone()
        },
        30,
    );
    let nr = run(
        two_paths(3),
        SctpConfig {
            nr_sack: true,
            ..base
        },
        30,
    );
    eprintln!("CMT SACK: {sack:?}\nCMT NR-SACK: {nr:?}");
    assert!(sack["send_blocked_fraction"] > 0.0);
    assert!(
        nr["send_blocked_fraction"] < sack["send_blocked_fraction"],
        "blocking: NR {} vs SACK {}",
        nr["send_blocked_fraction"],
        sack["send_blocked_fraction"]
    );
    assert!(
        nr["goodput_bps"] > sack["goodput_bps"],
        "goodput: NR {} vs SACK {}",
        nr["goodput_bps"],
        sack["goodput_bps"]
    );
    assert!((nr["rtxq_util"] - 1.0).abs() < 1e-9);
    assert!(sack["rtxq_util"] < nr["rtxq_util"]);
}
