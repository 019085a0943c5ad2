//! Property test over whole scenarios: random topologies (chains and dumbbells), link rates,
//! delays, queue sizes, loss and reordering, and random TCP and SCTP flows with random protocol
//! options and buffer sizes. Every flow either delivers all its data exactly once (no more, no
//! less) or reports why it failed; no run panics or hangs (the event guard would stop it).

use proptest::prelude::*;
use rexmit_scenario::run::run;
use rexmit_scenario::Scenario;
use serde_json::{json, Value};

#[derive(Clone, Debug)]
struct LinkGen {
    mbps: u32,
    delay_ms: u32,
    queue: u32,
    loss_permille: u32,
    reorder_permille: u32,
    reorder_ms: u32,
}

fn link_gen() -> impl Strategy<Value = LinkGen> {
    (
        1u32..100,
        0u32..40,
        5u32..200,
        0u32..100,
        0u32..100,
        1u32..20,
    )
        .prop_map(
            |(mbps, delay_ms, queue, loss_permille, reorder_permille, reorder_ms)| LinkGen {
                mbps,
                delay_ms,
                queue,
                loss_permille,
                reorder_permille,
                reorder_ms,
            },
        )
}

fn link(l: &LinkGen) -> Value {
    let mut v = json!({ "rate": format!("{}Mbps", l.mbps), "delay": format!("{}ms", l.delay_ms), "queue": { "packets": l.queue } });
    if l.loss_permille > 0 {
        v["errors"] = json!([{ "kind": "uniform", "rate": l.loss_permille as f64 / 1000.0 }]);
    }
    if l.reorder_permille > 0 {
        v["reorder"] = json!({ "probability": l.reorder_permille as f64 / 1000.0, "mean_delay": format!("{}ms", l.reorder_ms) });
    }
    v
}

#[derive(Clone, Debug)]
enum FlowGen {
    Tcp {
        kb: u32,
        recovery: usize,
        cc: usize,
        rack: bool,
        prr: bool,
        buffers_kb: u32,
    },
    Sctp {
        messages: u32,
        nr_sack: bool,
        rack: bool,
        thin: bool,
        unordered: bool,
        buffer_kb: u32,
    },
    Messages {
        sctp: bool,
        count: u32,
    },
}

fn flow_gen() -> impl Strategy<Value = FlowGen> {
    prop_oneof![
        (
            5u32..80,
            0usize..4,
            0usize..4,
            any::<bool>(),
            any::<bool>(),
            8u32..256
        )
            .prop_map(|(kb, recovery, cc, rack, prr, buffers_kb)| FlowGen::Tcp {
                kb,
                recovery,
                cc,
                rack,
                prr,
                buffers_kb
            }),
        (
            5u32..80,
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
            4u32..128
        )
            .prop_map(|(messages, nr_sack, rack, thin, unordered, buffer_kb)| {
                FlowGen::Sctp {
                    messages,
                    nr_sack,
                    rack,
                    thin,
                    unordered,
                    buffer_kb,
                }
            }),
        (any::<bool>(), 5u32..50).prop_map(|(sctp, count)| FlowGen::Messages { sctp, count }),
    ]
}

fn app(i: usize, f: &FlowGen, from: &str, to: &str) -> Value {
    let name = format!("f{i}");
    match f {
        FlowGen::Tcp {
            kb,
            recovery,
            cc,
            rack,
            prr,
            buffers_kb,
        } => {
            let recovery = ["tahoe", "reno", "newreno", "sack"][*recovery];
            let cc = ["reno", "cubic", "westwood", "highspeed"][*cc];
            let sack = recovery == "sack";
            let (rack, prr) = (*rack && sack, *prr && sack);
            json!({ "name": name, "kind": "tcp_bulk", "from": from, "to": to, "bytes": format!("{kb}KiB"),
                "tcp": { "recovery": recovery, "cc": cc, "rack": rack, "tlp": rack, "prr": prr,
                          "send_buffer": format!("{buffers_kb}KiB"), "recv_buffer": format!("{buffers_kb}KiB") } })
        }
        FlowGen::Sctp {
            messages,
            nr_sack,
            rack,
            thin,
            unordered,
            buffer_kb,
        } => json!({ "name": name, "kind": "sctp_bulk", "from": from, "to": to,
            "messages": messages, "message_size": 1000, "unordered": unordered,
            "sctp": { "hb_interval": "0s", "nr_sack": nr_sack, "rack": { "enabled": rack }, "thin": { "all": thin }, "send_buffer": format!("{buffer_kb}KiB"), "recv_buffer": format!("{}KiB", (*buffer_kb).max(8)) } }),
        FlowGen::Messages { sctp, count } => {
            let kind = if *sctp {
                "sctp_messages"
            } else {
                "tcp_messages"
            };
            json!({ "name": name, "kind": kind, "from": from, "to": to,
            "messages": count, "interarrival": { "kind": "exponential", "mean": "50ms" }, "size": { "kind": "uniform", "min": 10, "max": 3000 } })
        }
    }
}

/// Data each flow must deliver: (metric, amount).
fn expected(f: &FlowGen) -> (&'static str, f64) {
    match f {
        FlowGen::Tcp { kb, .. } => ("bytes_delivered", (*kb as f64) * 1024.0),
        FlowGen::Sctp { messages, .. } => ("messages_delivered", *messages as f64),
        FlowGen::Messages { count, .. } => ("messages_delivered", *count as f64),
    }
}

fn scenario(
    dumbbell: bool,
    links: &[LinkGen],
    flows: &[(FlowGen, bool)],
    seed: u64,
) -> (Value, Vec<(String, String)>) {
    let (topology, left, right): (Value, Vec<String>, Vec<String>) = if dumbbell {
        let hosts = |side: &str| (0..2).map(|i| format!("{side}{i}")).collect::<Vec<_>>();
        let (l, r) = (hosts("A"), hosts("B"));
        let edge = |names: &[String], k: usize| {
            names
                .iter()
                .enumerate()
                .map(|(i, n)| {
                    let mut v = link(&links[(k + i) % links.len()]);
                    v["name"] = json!(n);
                    v
                })
                .collect::<Vec<_>>()
        };
        (
            json!({ "kind": "dumbbell", "bottleneck": link(&links[0]), "left": edge(&l, 1), "right": edge(&r, 3) }),
            l,
            r,
        )
    } else {
        let n = links.len() + 1;
        let nodes: Vec<String> = (0..n).map(|i| format!("N{i}")).collect();
        (
            json!({ "kind": "chain", "nodes": nodes, "links": links.iter().map(link).collect::<Vec<_>>() }),
            vec![nodes[0].clone()],
            vec![nodes[n - 1].clone()],
        )
    };
    let mut apps = Vec::new();
    let mut ends = Vec::new();
    for (i, (f, reverse)) in flows.iter().enumerate() {
        let (a, b) = (left[i % left.len()].clone(), right[i % right.len()].clone());
        let (from, to) = if *reverse { (b, a) } else { (a, b) };
        apps.push(app(i, f, &from, &to));
        ends.push((from, to));
    }
    // A stop time far beyond any transfer: the run ends when the event queue empties (every
    // flow finished or failed); a livelock would trip the event guard instead.
    (
        json!({ "stop_time": "100000s", "seed": seed, "limits": { "max_events": 50_000_000u64 }, "topology": topology, "apps": apps }),
        ends,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    #[test]
    fn every_flow_delivers_everything_once_or_reports_why_not(
        dumbbell in any::<bool>(),
        links in prop::collection::vec(link_gen(), 1..4),
        flows in prop::collection::vec((flow_gen(), any::<bool>()), 1..4),
        seed in any::<u64>(),
    ) {
        let (v, _) = scenario(dumbbell, &links, &flows, seed);
        let s = Scenario::from_json(&v.to_string()).unwrap_or_else(|e| panic!("generated scenario is invalid: {e}\n{v}"));
        let r = run(&s, None, |_| true).unwrap_or_else(|e| panic!("run failed: {e}\n{v}"));
        prop_assert!(r.summary.partial.is_none(), "guard stopped the run: {:?}", r.summary.partial);
        for (i, f) in flows.iter().enumerate() {
            let row = r.flows.iter().find(|x| x.name == format!("f{i}")).expect("every app has a row");
            let get = |k: &str| row.metrics.iter().find(|(m, _)| m == k).map(|m| m.1);
            let (metric, want) = expected(&f.0);
            let got = get(metric).unwrap_or(0.0);
            let failure = get("failure").unwrap_or(0.0);
            prop_assert!(got <= want, "f{i} delivered more than it sent: {got} > {want}\n{v}");
            prop_assert!(got == want || failure > 0.0, "f{i} delivered {got} of {want} and reports no failure\n{v}");
        }
    }
}
