//! The same bulk SCTP transfer run by usrsctp or by rexmit's own SCTP core, for timing the two
//! from outside (issue 39: `farm-bench --vs 'target/release/examples/speed native 200' --
//! target/release/examples/speed usrsctp 200`; `usrsctp-conn` for AF_CONN addressing).
//!
//! Path: 100 Mb/s 1 ms access link, 10 Mb/s 50 ms bottleneck with 1% independent loss in the
//! data direction; one association with rexmit's default SCTP settings keeping its send buffer
//! full for the given simulated seconds. Prints the bytes delivered and the events processed.

use rexmit_endpoints::sctp::{MessageApp, SctpAgent, SctpApp, SharedTruth};
use rexmit_engine::{RunLimits, StreamFactory};
use rexmit_net::topology::{chain, Duplex};
use rexmit_net::*;
use rexmit_sctp::SctpConfig;
use rexmit_time::{Duration, Rate, Time};
use rexmit_usrsctp::association::{place, AssociationSpec};
use rexmit_usrsctp::wire::Addressing;
use rexmit_usrsctp::{StackRun, UsrsctpConfig};
use std::cell::RefCell;
use std::rc::Rc;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (stack, secs) = match args.as_slice() {
        [_, stack, secs] => (stack.as_str(), secs.parse::<u64>()?),
        _ => return Err("usage: speed usrsctp|usrsctp-conn|native SECONDS".into()),
    };
    // usrsctp-conn: the stack's AF_CONN addressing instead of IPv4 hosting.
    let addressing = (stack == "usrsctp-conn").then_some(Addressing::Conn);
    let mut net = Network::new(StreamFactory::new(1));
    let names: Vec<String> = ["S", "R", "D"].iter().map(|s| s.to_string()).collect();
    let access = Duplex::symmetric(LinkParams::new(
        Rate::from_mbps(100),
        Duration::from_millis(1),
    ));
    let mut bottleneck = Duplex::symmetric(LinkParams::new(
        Rate::from_mbps(10),
        Duration::from_millis(50),
    ));
    bottleneck
        .fwd
        .errors
        .push(ErrorModelConfig::Uniform { rate: 0.01 });
    chain(&mut net, &names, &[access, bottleneck])?;
    let mut sim = Simulation::new(net);
    let (s, d) = (
        sim.net().node_by_name("S").unwrap(),
        sim.net().node_by_name("D").unwrap(),
    );
    let (saddr, daddr) = (sim.net().addrs(s), sim.net().addrs(d));
    let cfg = SctpConfig::default();
    let app = MessageApp {
        message_size: cfg.max_data_payload(),
        messages: None,
        unordered: true,
        streams: 1,
    };
    let port = 49152;
    let sctp = Some((132, port));
    match stack {
        "usrsctp" | "usrsctp-conn" => {
            let run = StackRun::open(1)?;
            let placed = place(
                &run,
                AssociationSpec {
                    cfg: UsrsctpConfig::from_sctp(&cfg, [] as [&str; 0])?,
                    app: SctpApp::Bulk(app),
                    port,
                    paths: vec![(saddr[0], daddr[0])],
                    primary: 0,
                    measure_from: Time::ZERO,
                    addressing,
                },
            )?;
            sim.add_agent("rcv", d, sctp, Time::ZERO, Box::new(placed.receiver))?;
            sim.add_agent("snd", s, sctp, Time::ZERO, Box::new(placed.sender))?;
        }
        "native" => {
            let truth = Rc::new(RefCell::new(SharedTruth::default()));
            let snd = SctpAgent::sender(
                cfg.clone(),
                port,
                daddr,
                port,
                0,
                1,
                1,
                app,
                truth.clone(),
                Time::ZERO,
            );
            let rcv = SctpAgent::receiver(cfg, port, 2, 2, truth, Time::ZERO);
            sim.add_agent("rcv", d, sctp, Time::ZERO, Box::new(rcv))?;
            sim.add_agent("snd", s, sctp, Time::ZERO, Box::new(snd))?;
        }
        other => return Err(format!("unknown stack {other:?}: usrsctp or native").into()),
    }
    sim.run(&RunLimits::until(Time::from_secs(secs)), |_| true)?;
    let delivered = sim
        .agent_metrics()
        .into_iter()
        .find(|(a, _, _)| a == "rcv")
        .and_then(|(_, _, m)| m.into_iter().find(|(k, _)| k == "bytes_delivered"))
        .map_or(0.0, |(_, v)| v);
    println!(
        "{stack}: {secs} s simulated, {delivered} bytes delivered, {} events",
        sim.events_processed()
    );
    Ok(())
}
