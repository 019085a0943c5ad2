//! A seed -> a random scenario over the whole option space (`random_scenarios_wide.rs`).
//! Each option is left out half of the time, so defaults are exercised as much as settings.

use serde_json::{json, Map, Value};

/// SplitMix64: enough randomness for a generator, and the same scenario for a seed everywhere.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in lo..hi (hi exclusive).
    fn int(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo)
    }
    fn real(&mut self, lo: f64, hi: f64) -> f64 {
        let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        // Three decimals: the scenario prints as it is read.
        ((lo + u * (hi - lo)) * 1000.0).round() / 1000.0
    }
    fn coin(&mut self) -> bool {
        self.next() & 1 == 1
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.int(0, xs.len() as u64) as usize]
    }
    /// `key = value()` into `m` half of the time.
    fn maybe(
        &mut self,
        m: &mut Map<String, Value>,
        key: &str,
        value: impl FnOnce(&mut Gen) -> Value,
    ) {
        if self.coin() {
            let v = value(self);
            m.insert(key.into(), v);
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub enum FlowKind {
    Tcp = 0,
    Sctp = 1,
    TcpMessages = 2,
    SctpMessages = 3,
    Udp = 4,
    Http = 5,
}

/// What a flow must deliver: (metric, amount); None for UDP (no delivery guarantee).
pub fn expected(f: &(FlowKind, u64)) -> Option<(&'static str, f64)> {
    match f.0 {
        FlowKind::Tcp => Some(("bytes_delivered", f.1 as f64)),
        FlowKind::Sctp | FlowKind::TcpMessages | FlowKind::SctpMessages => {
            Some(("messages_delivered", f.1 as f64))
        }
        FlowKind::Udp | FlowKind::Http => None,
    }
}

fn errors(g: &mut Gen) -> Value {
    let n = g.int(0, 3);
    let list: Vec<Value> = (0..n)
        .map(|_| {
            let mut e = match g.int(0, 3) {
                0 => {
                    let most = if g.int(0, 6) == 0 { 0.3 } else { 0.08 };
                    json!({ "kind": "uniform", "rate": g.real(0.0, most) })
                }
                1 => {
                    let size = match g.int(0, 3) {
                        0 => json!(g.int(1, 6)),
                        1 => json!({ "min": 1, "max": g.int(2, 8) }),
                        _ => json!({ "mean": g.real(1.0, 4.0) }),
                    };
                    json!({ "kind": "burst", "rate": g.real(0.0, 0.03), "size": size })
                }
                // A delay spike: everything sent in the window arrives late (no loss).
                2 if g.int(0, 3) == 0 => {
                    let from = g.int(0, 2000);
                    json!({ "kind": "spike", "from": format!("{from}ms"),
                        "until": format!("{}ms", from + g.int(1, 1000)),
                        "delay": format!("{}ms", g.int(1, 500)) })
                }
                _ => json!({ "kind": "gilbert_elliott", "p_good_to_bad": g.real(0.0, 0.03),
                    "p_bad_to_good": g.real(0.1, 0.9), "loss_bad": g.real(0.2, 1.0) }),
            };
            if g.coin() {
                e["direction"] = json!(g.pick(&["forward", "reverse", "both"]));
            }
            e
        })
        .collect();
    json!(list)
}

fn link(g: &mut Gen) -> Value {
    let mut m = Map::new();
    let rate = if g.int(0, 8) == 0 {
        format!("{}kbps", g.int(64, 1000))
    } else {
        format!("{}Mbps", g.int(1, 100))
    };
    m.insert("rate".into(), json!(rate));
    m.insert("delay".into(), json!(format!("{}ms", g.int(0, 40))));
    let packets = if g.int(0, 8) == 0 {
        g.int(1, 5)
    } else {
        g.int(5, 200)
    };
    let queue = match g.int(0, 6) {
        0 => json!({ "bytes": format!("{}KiB", g.int(8, 300)) }),
        1 => {
            let min_th = g.real(1.0, packets as f64 / 2.0);
            json!({ "packets": packets, "red": { "min_th": min_th, "max_th": min_th * 2.0, "max_p": g.real(0.01, 0.3) } })
        }
        // Queues that mark ECN-capable packets: DCTCP's step marking, CoDel with ECN.
        2 if packets >= 2 => json!({ "packets": packets, "ecn_threshold": g.int(1, packets) }),
        3 => json!({ "packets": packets, "aqm": "codel", "ecn": true }),
        _ => json!({ "packets": packets }),
    };
    m.insert("queue".into(), queue);
    if g.coin() {
        m.insert("errors".into(), errors(g));
    }
    if g.int(0, 4) == 0 {
        m.insert(
            "reorder".into(),
            json!({ "probability": g.real(0.0, 0.1), "mean_delay": format!("{}ms", g.int(1, 20)) }),
        );
    }
    Value::Object(m)
}

fn named(g: &mut Gen, name: &str) -> Value {
    let mut l = link(g);
    l["name"] = json!(name);
    l
}

fn tcp_cfg(g: &mut Gen) -> Value {
    let mut m = Map::new();
    let recovery = g.pick(&["tahoe", "reno", "newreno", "sack"]);
    m.insert("recovery".into(), json!(recovery));
    if g.coin() {
        m.insert("profile".into(), json!(g.pick(&["rfc", "linux"])));
    }
    // RACK and PRR need SACK recovery (the Linux profile turns them on).
    m.insert("rack".into(), json!(false));
    m.insert("prr".into(), json!(false));
    let cc = g.pick(&[
        "reno",
        "aimd",
        "scalable",
        "highspeed",
        "cubic",
        "westwood",
        "bbr",
        "dctcp",
    ]);
    m.insert("cc".into(), json!(cc));
    // DCTCP needs ECN; the others take any mode (RFC 3168 §6.1.1 negotiation).
    if cc == "dctcp" {
        m.insert("ecn".into(), json!("on"));
    } else {
        g.maybe(&mut m, "ecn", |g| json!(g.pick(&["off", "on", "accept"])));
    }
    if cc == "aimd" {
        m.insert("aimd_a".into(), json!(g.real(0.5, 3.0)));
        m.insert("aimd_b".into(), json!(g.real(0.1, 0.9)));
    }
    let sack = recovery == "sack";
    m.insert("sack".into(), json!(sack));
    if sack {
        g.maybe(&mut m, "rack", |g| json!(g.coin()));
        g.maybe(&mut m, "prr", |g| json!(g.coin()));
        g.maybe(&mut m, "dsack", |g| json!(g.coin()));
    }
    // TLP and F-RTO need SACK recovery too; they follow RACK (no draw of its own, so that every other
    // draw of a seed stays where it was).
    m.insert("tlp".into(), m["rack"].clone());
    m.insert("frto".into(), m["rack"].clone());
    g.maybe(&mut m, "mss", |g| json!(g.int(536, 1461)));
    g.maybe(&mut m, "initial_cwnd_segments", |g| json!(g.int(1, 11)));
    g.maybe(&mut m, "dup_thresh", |g| json!(g.int(2, 5)));
    g.maybe(&mut m, "timestamps", |g| json!(g.coin()));
    // Without window scaling the receive buffer is at most 64 KiB (RFC 7323 §2).
    let scaling = g.coin();
    m.insert("window_scaling".into(), json!(scaling));
    g.maybe(&mut m, "nagle", |g| json!(g.coin()));
    g.maybe(&mut m, "ack_every", |g| json!(g.int(1, 4)));
    g.maybe(&mut m, "delayed_ack_timeout", |g| {
        json!(format!("{}ms", g.int(10, 200)))
    });
    g.maybe(&mut m, "immediate_ack_on_ooo", |g| json!(g.coin()));
    g.maybe(&mut m, "byte_counting", |g| json!(g.coin()));
    g.maybe(&mut m, "limited_transmit", |g| json!(g.coin()));
    g.maybe(&mut m, "early_retransmit", |g| json!(g.coin()));
    g.maybe(&mut m, "thin_linear_timeouts", |g| json!(g.coin()));
    g.maybe(&mut m, "thin_dupack", |g| json!(g.coin()));
    if cc == "cubic" {
        g.maybe(&mut m, "hystart", |g| json!(g.coin()));
    }
    g.maybe(&mut m, "window_unit", |g| {
        json!(g.pick(&["bytes", "segments"]))
    });
    g.maybe(&mut m, "receive_window", |g| {
        json!(g.pick(&["buffer", "linux"]))
    });
    g.maybe(&mut m, "decrease_base", |g| {
        json!(g.pick(&["flight_size", "cwnd"]))
    });
    g.maybe(&mut m, "rto_rearm", |g| {
        json!(g.pick(&[
            "new_ack",
            "fast_retransmit",
            "every_retransmit",
            "head_retransmit"
        ]))
    });
    g.maybe(&mut m, "rto", |g| {
        json!({ "min": format!("{}ms", g.int(200, 1000)), "estimator": g.pick(&["rfc6298", "linux"]) })
    });
    g.maybe(&mut m, "send_buffer", |g| {
        json!(format!("{}KiB", g.int(4, 256)))
    });
    if scaling {
        g.maybe(&mut m, "recv_buffer", |g| {
            json!(format!("{}KiB", g.int(4, 256)))
        });
    } else {
        m.insert("recv_buffer".into(), json!(format!("{}KiB", g.int(4, 64))));
    }
    Value::Object(m)
}

/// An association's settings, and the largest message that fits both its buffers.
fn sctp_cfg(g: &mut Gen, multihomed: bool) -> (Value, u64) {
    let mut m = Map::new();
    // Heartbeats would keep the run going after the transfer (the run ends when no event is
    // left); multihomed associations find their paths' RTTs from data.
    m.insert("hb_interval".into(), json!("0s"));
    g.maybe(&mut m, "nr_sack", |g| json!(g.coin()));
    let buffer = g.int(4, 256);
    m.insert("send_buffer".into(), json!(format!("{buffer}KiB")));
    let mut recv = u64::from(rexmit_sctp::SctpConfig::default().recv_buffer);
    g.maybe(&mut m, "recv_buffer", |g| {
        recv = g.int(8, 256) * 1024;
        json!(format!("{}KiB", recv / 1024))
    });
    // Jumbo paths too (no link MTU is modelled); one DATA chunk (pmtu - 48) must fit the send
    // buffer, and a bulk app's message size is always set (it fits both buffers).
    g.maybe(&mut m, "pmtu", |g| {
        let hi = if g.int(0, 4) == 0 { 9001 } else { 1501 };
        json!(g.int(576, hi).min(buffer * 1024 + 48))
    });
    g.maybe(&mut m, "max_burst", |g| json!(g.int(1, 8)));
    g.maybe(&mut m, "max_burst_rule", |g| {
        json!(g.pick(&["limit_packets", "clamp_cwnd"]))
    });
    g.maybe(&mut m, "sack_delay", |g| {
        json!(format!("{}ms", g.int(1, 200)))
    });
    g.maybe(&mut m, "sack_freq", |g| json!(g.int(1, 4)));
    g.maybe(&mut m, "immediate_sack_on_gap", |g| json!(g.coin()));
    g.maybe(&mut m, "renege", |g| {
        json!(g.pick(&["never", "under_memory_pressure"]))
    });
    g.maybe(
        &mut m,
        "rto",
        |g| json!({ "min": format!("{}ms", g.int(200, 1000)) }),
    );
    let cmt = multihomed && g.coin();
    // RACK for SCTP is specified for single-path transfer (seed 002): not with CMT.
    g.maybe(&mut m, "rack", |g| {
        let mut r = Map::new();
        r.insert("enabled".into(), json!(!cmt && g.coin()));
        g.maybe(&mut r, "tlp", |g| json!(g.coin()));
        g.maybe(&mut r, "burst_mitigation", |g| {
            json!(g.pick(&["none", "max_burst", "adaptive"]))
        });
        g.maybe(&mut r, "reo_wnd_persist", |g| {
            json!(g.pick(&["dsack", "reordering"]))
        });
        Value::Object(r)
    });
    g.maybe(&mut m, "thin", |g| {
        if g.coin() {
            return json!({ "all": g.coin() });
        }
        let mut t = Map::new();
        g.maybe(&mut t, "timer_restart_correction", |g| json!(g.coin()));
        g.maybe(&mut t, "linear_timeouts", |g| json!(g.coin()));
        g.maybe(&mut t, "fast_rtx_first_indication", |g| json!(g.coin()));
        g.maybe(&mut t, "early_fast_retransmit", |g| json!(g.coin()));
        g.maybe(&mut t, "thin_threshold_packets", |g| json!(g.int(1, 8)));
        Value::Object(t)
    });
    if cmt {
        let mut c = Map::new();
        c.insert("enabled".into(), json!(true));
        g.maybe(&mut c, "sfr", |g| json!(g.coin()));
        g.maybe(&mut c, "cuc", |g| json!(g.coin()));
        g.maybe(&mut c, "dac", |g| json!(g.coin()));
        g.maybe(&mut c, "rtx_policy", |g| {
            json!(g.pick(&["same", "asap", "cwnd", "ssthresh"]))
        });
        g.maybe(&mut c, "pf", |g| json!(g.coin()));
        m.insert("cmt".into(), Value::Object(c));
    }
    (Value::Object(m), (buffer * 1024).min(recv))
}

/// One app from `from` to `to`, and what it must deliver.
fn app(g: &mut Gen, i: usize, from: &str, to: &str, multihomed: bool) -> (Value, (FlowKind, u64)) {
    let name = format!("f{i}");
    match g.int(0, 10) {
        0..=2 => {
            let kb = if g.int(0, 5) == 0 {
                g.int(120, 2048)
            } else {
                g.int(5, 120)
            };
            (
                json!({ "name": name, "kind": "tcp_bulk", "from": from, "to": to,
                    "bytes": format!("{kb}KiB"), "tcp": tcp_cfg(g) }),
                (FlowKind::Tcp, kb * 1024),
            )
        }
        3..=5 => {
            let (n, size) = match g.int(0, 5) {
                0 => (g.int(100, 1000), g.int(1, 200)),
                1 => (g.int(2, 20), g.int(4000, 30000)),
                _ => (g.int(5, 80), g.int(100, 4000)),
            };
            // A message must fit both buffers (validation refuses a larger one).
            let (sctp, fits) = sctp_cfg(g, multihomed);
            let mut a = json!({ "name": name, "kind": "sctp_bulk", "from": from, "to": to,
                "messages": n, "message_size": size.min(fits), "sctp": sctp });
            if g.coin() {
                a["unordered"] = json!(g.coin());
            }
            if g.coin() {
                a["streams"] = json!(g.int(1, 5));
            }
            (a, (FlowKind::Sctp, n))
        }
        6 | 7 => {
            let sctp = g.coin();
            let n = g.int(5, 50);
            let mut a = json!({ "name": name, "kind": if sctp { "sctp_messages" } else { "tcp_messages" },
                "from": from, "to": to, "messages": n,
                "interarrival": { "kind": "exponential", "mean": format!("{}ms", g.int(5, 200)) },
                "size": { "kind": "uniform", "min": 10, "max": g.int(20, 3000) } });
            if sctp {
                a["sctp"] = sctp_cfg(g, multihomed).0;
            } else {
                a["tcp"] = tcp_cfg(g);
            }
            let kind = if sctp {
                FlowKind::SctpMessages
            } else {
                FlowKind::TcpMessages
            };
            (a, (kind, n))
        }
        8 => (
            json!({ "name": name, "kind": "http", "from": from, "to": to, "stop": format!("{}s", g.int(1, 10)),
                "interarrival": { "kind": "exponential", "mean": format!("{}ms", g.int(20, 500)) },
                "response_size": { "kind": "uniform", "min": 100, "max": g.int(200, 200_000) },
                "max_connections": g.int(1, 8), "tcp": tcp_cfg(g) }),
            (FlowKind::Http, 0),
        ),
        _ => (
            json!({ "name": name, "kind": "udp_cbr", "from": from, "to": to,
                "rate": format!("{}Mbps", g.int(1, 5)), "packet_size": g.int(100, 1500),
                "stop": format!("{}s", g.int(1, 5)) }),
            (FlowKind::Udp, 0),
        ),
    }
}

/// Two hosts, the ends of a flow.
type Pair = (String, String);

/// The scenario of `seed`, and each app's kind and amount (app i is named `f{i}`).
pub fn scenario(seed: u64) -> (Value, Vec<(FlowKind, u64)>) {
    let mut g = Gen(seed ^ 0x5EED_F022);
    let topo = g.int(0, 3);
    let (topology, pairs, multi): (Value, Vec<Pair>, Option<Pair>) = match topo {
        0 => {
            let n = g.int(1, 4) as usize;
            let nodes: Vec<String> = (0..=n).map(|i| format!("N{i}")).collect();
            let links: Vec<Value> = (0..n).map(|_| link(&mut g)).collect();
            let pair = (nodes[0].clone(), nodes[n].clone());
            (
                json!({ "kind": "chain", "nodes": nodes, "links": links }),
                vec![pair],
                None,
            )
        }
        1 => {
            let left: Vec<Value> = (0..2).map(|i| named(&mut g, &format!("A{i}"))).collect();
            let right: Vec<Value> = (0..2).map(|i| named(&mut g, &format!("B{i}"))).collect();
            (
                json!({ "kind": "dumbbell", "bottleneck": link(&mut g), "left": left, "right": right }),
                vec![("A0".into(), "B0".into()), ("A1".into(), "B1".into())],
                None,
            )
        }
        _ => {
            let path = |g: &mut Gen, k: usize| {
                json!({ "left_router": format!("R{}", 2 * k + 1), "right_router": format!("R{}", 2 * k + 2),
                    "bottleneck": link(g), "left": [named(g, &format!("X{k}"))], "right": [named(g, &format!("Y{k}"))] })
            };
            let paths = vec![path(&mut g, 0), path(&mut g, 1)];
            let mh = |g: &mut Gen, name: &str, side: &str| json!({ "name": name, "side": side, "links": [link(g), link(g)] });
            let multihomed = vec![mh(&mut g, "S", "left"), mh(&mut g, "R", "right")];
            (
                json!({ "kind": "dual_dumbbell", "paths": paths, "multihomed": multihomed }),
                vec![("X0".into(), "Y0".into()), ("X1".into(), "Y1".into())],
                Some(("S".into(), "R".into())),
            )
        }
    };
    let n = g.int(1, 4) as usize;
    let mut apps = Vec::new();
    let mut flows = Vec::new();
    for i in 0..n {
        let on_multi = multi.is_some() && (i == 0 || g.coin());
        let (a, b) = match (&multi, on_multi) {
            (Some(m), true) => m.clone(),
            _ => pairs[i % pairs.len()].clone(),
        };
        let (from, to) = if g.int(0, 4) == 0 { (b, a) } else { (a, b) };
        let (mut v, f) = app(&mut g, i, &from, &to, on_multi);
        if g.coin() {
            v["start"] = json!(format!("{}ms", g.int(0, 500)));
        }
        apps.push(v);
        flows.push(f);
    }
    // A stop time far beyond any transfer: the run ends when no event is left (every flow
    // finished or failed); a livelock trips the event guard instead.
    let s = json!({ "stop_time": "100000s", "seed": g.int(0, 1 << 32), "event_ties": g.pick(&["fifo", "random"]),
        "limits": { "max_events": 50_000_000u64 }, "topology": topology, "apps": apps });
    (s, flows)
}
