//! A message source over usrsctp (`sctp_messages`): every message reaches the receiving
//! application one path delay after the application generated it, as a hand calculation says.

mod common;
use common::*;
use rexmit_endpoints::messages::{MessageGen, MessageSource};
use rexmit_endpoints::sctp::{MessagesApp, SctpApp};
use rexmit_net::apps::dist::Dist;
use rexmit_sctp::SctpConfig;
use rexmit_time::{Duration, Rate, Time};
use rexmit_usrsctp::StackRun;

#[test]
fn thin_stream_messages_arrive_one_path_delay_later() {
    if !usrsctp_or_skip() {
        return;
    }
    let mut sim = lossy_chain(2, Rate::from_mbps(10), Duration::from_millis(50), 0.0);
    let run = StackRun::open(3).unwrap();
    let gen = MessageGen::new(
        MessageSource {
            interarrival: Dist::Fixed(200_000_000),
            size: Dist::Fixed(100),
            burst: None,
            count: Some(50),
            stop: None,
        },
        sim.net().streams().stream("app/thin/messages"),
    );
    let app = SctpApp::Messages(Box::new(MessagesApp {
        gen,
        unordered: false,
        streams: 1,
    }));
    let truth = add_association(
        &mut sim,
        &run,
        &SctpConfig::default(),
        &[],
        app,
        49152,
        "thin",
        None,
    );
    drop(run);
    run_until(&mut sim, 15);
    let m = metrics(&sim);
    assert_eq!(m["thin"]["messages_generated"], 50.0);
    assert_eq!(m["thin/sink"]["messages_delivered"], 50.0);
    assert_eq!(m["thin/sink"]["latency_rtx0_count"], 50.0);
    // One packet of 20 (IPv4) + 12 (SCTP) + 16 (DATA) + 100 bytes: 1 ms + 11.84 µs on the
    // 100 Mb/s access link, 50 ms + 118.4 µs on the 10 Mb/s bottleneck. The stack sends at
    // once (no Nagle delay) and the receiver reads on arrival.
    let expect = 0.001 + 0.000_011_84 + 0.050 + 0.000_118_4;
    for k in ["latency_mean_s", "latency_max_s"] {
        assert!(
            (m["thin/sink"][k] - expect).abs() < 1e-9,
            "{k} {}",
            m["thin/sink"][k]
        );
    }
    // Messages are generated every 200 ms from the association's COMM_UP on.
    let log = truth.borrow();
    let sent: Vec<Time> = log.log.delivered().iter().map(|d| d.sent).collect();
    assert!(sent
        .windows(2)
        .all(|w| w[1] - w[0] == Duration::from_millis(200)));
}
