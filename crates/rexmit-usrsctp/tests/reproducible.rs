//! A usrsctp run repeats bit for bit: the stack is finished after each run and initialised
//! afresh, its clock is the simulated one and its random source is seeded by the run, so the
//! same scenario and seed give the same packets (byte for byte) and the same metrics, in the
//! same process, one run after another. Another seed gives other verification tags.

mod common;
use common::*;
use rexmit_sctp::SctpConfig;
use rexmit_time::{Duration, Rate};
use rexmit_usrsctp::wire::Addressing;
use rexmit_usrsctp::{StackError, StackRun};
use rexmit_wire::{Chunk, IpPacket, Transport};
use std::collections::BTreeMap;

type Metrics = BTreeMap<String, BTreeMap<String, f64>>;

fn run_once(
    usrsctp_seed: u64,
    addressing: Addressing,
    dir: &std::path::Path,
    tag: &str,
) -> (Vec<Vec<u8>>, Metrics) {
    let mut sim = lossy_chain(5, Rate::from_mbps(10), Duration::from_millis(30), 0.02);
    let run = StackRun::open(usrsctp_seed).unwrap();
    let cfg = SctpConfig::default();
    add_association(
        &mut sim,
        &run,
        &cfg,
        &[],
        bulk(cfg.max_data_payload(), None),
        49152,
        "bulk",
        Some(addressing),
    );
    drop(run);
    let s = sim.net().node_by_name("S").unwrap();
    let pcap = dir.join(format!("{tag}.pcap"));
    sim.pcap_node(s, &pcap).unwrap();
    run_until(&mut sim, 30);
    let m = metrics(&sim);
    drop(sim);
    (pcap_records(&pcap), m)
}

fn init_tag(packets: &[Vec<u8>]) -> u32 {
    packets
        .iter()
        .find_map(|b| match IpPacket::decode(b).ok()?.transport {
            Transport::Sctp(p) => p.chunks.iter().find_map(|c| match c {
                Chunk::Init(i) => Some(i.initiate_tag),
                _ => None,
            }),
            _ => None,
        })
        .expect("an INIT")
}

#[test]
fn same_seed_same_packets_and_metrics_in_one_process() {
    repeats(Addressing::Ip, "repro-ip");
}

#[test]
fn same_seed_same_packets_and_metrics_in_one_process_af_conn() {
    repeats(Addressing::Conn, "repro-conn");
}

fn repeats(addressing: Addressing, name: &str) {
    if !usrsctp_or_skip() {
        return;
    }
    let dir = scratch_dir(name);
    let (a, ma) = run_once(21, addressing, &dir, "a");
    let (b, mb) = run_once(21, addressing, &dir, "b");
    assert!(a.len() > 1000, "{} packets", a.len());
    assert_eq!(a.len(), b.len());
    let first_diff = a.iter().zip(&b).position(|(x, y)| x != y);
    assert_eq!(
        first_diff, None,
        "packets differ from packet {first_diff:?} on"
    );
    // NaN (no message in a latency bucket) is equal to itself here.
    assert_eq!(format!("{ma:?}"), format!("{mb:?}"));
    let (c, _) = run_once(22, addressing, &dir, "c");
    assert_ne!(
        init_tag(&a),
        init_tag(&c),
        "the seed draws the verification tag"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_thread_holds_one_run_at_a_time() {
    if !usrsctp_or_skip() {
        return;
    }
    let run = StackRun::open(1).unwrap();
    assert!(matches!(StackRun::open(2), Err(StackError::Busy)));
    drop(run);
    let again = StackRun::open(3);
    assert!(again.is_ok(), "released with the first run");
}
