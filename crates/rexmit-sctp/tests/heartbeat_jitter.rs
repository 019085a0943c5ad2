//! RFC 9260 §8.3: an idle destination gets a HEARTBEAT "once per RTO of that destination
//! address plus the protocol parameter 'HB.interval', with jittering of +/- 50% of the RTO
//! value". The association draws the jitter from its own seeded generator
//! (`SctpConfig::random_seed`): the same seed gives the same times; `hb_jitter = false` gives
//! exactly HB.interval + RTO.

mod common;
use common::*;
use rexmit_sctp::{Association, SctpConfig};
use rexmit_time::{Duration, Time};
use rexmit_wire::Chunk;

/// The times of the first `n` heartbeats A sends on an idle association, each answered at once.
fn heartbeat_times(cfg: SctpConfig, n: usize) -> Vec<Time> {
    let b_cfg = SctpConfig {
        hb_interval: None,
        ..SctpConfig::default()
    };
    let (mut a, mut b): (Association, Association) = connect_pair(cfg, b_cfg, 1, 1, false);
    let mut times = Vec::new();
    while times.len() < n {
        let now = a.poll_timeout().expect("a heartbeat timer");
        a.handle_timeout(now);
        for t in drain(&mut a, now) {
            if matches!(t.packet.chunks[0], Chunk::Heartbeat { .. }) {
                times.push(now);
                deliver(&mut b, now, &t);
                for ack in drain(&mut b, now) {
                    deliver(&mut a, now, &ack);
                }
            }
        }
    }
    times
}

fn cfg(jitter: bool, seed: u64) -> SctpConfig {
    SctpConfig {
        hb_interval: Some(Duration::from_secs(30)),
        hb_jitter: jitter,
        random_seed: seed,
        ..SctpConfig::default()
    }
}

#[test]
fn idle_heartbeats_come_every_interval_plus_an_rto_jittered_by_half() {
    // The zero-delay links measure RTT 0: the RTO is RTO.Min, 1 s.
    let plain = heartbeat_times(cfg(false, 1), 6);
    let gaps: Vec<u64> = plain.windows(2).map(|w| (w[1] - w[0]).as_nanos()).collect();
    assert!(
        gaps.iter().all(|g| *g == 31_000_000_000),
        "30 s + RTO 1 s: {gaps:?}"
    );

    let jittered = heartbeat_times(cfg(true, 7), 12);
    let gaps: Vec<u64> = jittered
        .windows(2)
        .map(|w| (w[1] - w[0]).as_nanos())
        .collect();
    for g in &gaps {
        assert!(
            (30_500_000_000..31_500_000_000).contains(g),
            "30 s + RTO·[0.5, 1.5): {g}"
        );
    }
    assert!(gaps.windows(2).any(|w| w[0] != w[1]), "jittered: {gaps:?}");
    assert_eq!(
        jittered,
        heartbeat_times(cfg(true, 7), 12),
        "same seed, same times"
    );
    assert_ne!(
        jittered,
        heartbeat_times(cfg(true, 8), 12),
        "another seed, other times"
    );
}
