//! A bulk transfer through usrsctp over a lossy, delayed path, in virtual time.

mod common;
use common::*;
use rexmit_sctp::SctpConfig;
use rexmit_time::{Duration, Rate};
use rexmit_usrsctp::StackRun;

#[test]
fn bulk_transfer_over_lossy_path_delivers_every_byte_once() {
    if !usrsctp_or_skip() {
        return;
    }
    let mut sim = lossy_chain(1, Rate::from_mbps(10), Duration::from_millis(50), 0.01);
    let run = StackRun::open(7).unwrap();
    let cfg = SctpConfig::default();
    let size = cfg.max_data_payload();
    let n = 2000;
    let _truth = add_association(
        &mut sim,
        &run,
        &cfg,
        &[],
        bulk(size, Some(n)),
        49152,
        "bulk",
        None,
    );
    drop(run);
    run_until(&mut sim, 60);
    let m = metrics(&sim);
    eprintln!("{m:#?}");
    let rx = &m["bulk/sink"];
    assert_eq!(rx["bytes_delivered"], (n * size as u64) as f64);
    assert_eq!(rx["messages_delivered"], n as f64);
}
