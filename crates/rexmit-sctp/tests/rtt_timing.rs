//! RFC 9260 §6.3.1 C4: "new RTT measurements SHOULD be made no more than once per round trip
//! for a given destination transport address", and C5 (Karn): a retransmitted chunk is not
//! timed. One chunk per round trip is timed; a SACK per packet gives one sample per RTT, not
//! one per SACK. One-way delay 10 ms.

mod common;
use common::*;
use rexmit_sctp::{Association, SctpConfig, Transmit};
use rexmit_time::{Duration, Time};
use rexmit_wire::Payload;

const T: u32 = 1452;
const OWD: Duration = Duration::from_millis(10);

fn pair() -> (Association, Association) {
    let a = SctpConfig {
        hb_interval: None,
        initial_cwnd: Some(8 * T as u64),
        max_burst: 0,
        send_buffer: 1 << 20,
        ..SctpConfig::default()
    };
    let b = SctpConfig {
        hb_interval: None,
        sack_freq: 1,
        recv_buffer: 1 << 20,
        ..SctpConfig::default()
    };
    connect_pair(a, b, 1, 1, false)
}

/// Send `pkts` to B at `at`, each SACK back to A one OWD later; returns what A sends then.
fn round(a: &mut Association, b: &mut Association, at: Time, pkts: &[Transmit]) -> Vec<Transmit> {
    let mut out = Vec::new();
    for p in pkts {
        deliver(b, at, p);
        for s in drain(b, at) {
            deliver(a, at + OWD, &s);
            out.extend(drain(a, at + OWD));
        }
    }
    out
}

#[test]
fn one_rtt_sample_per_round_trip_not_one_per_sack() {
    let (mut a, mut b) = pair();
    let mut now = Time::from_millis(1);
    for _ in 0..64 {
        a.send(now, 0, Payload::zeros(T), true).unwrap();
    }
    let mut pkts = drain(&mut a, now);
    assert_eq!(pkts.len(), 8);
    for rounds in 1..=4u64 {
        pkts = round(&mut a, &mut b, now + OWD, &pkts);
        now += OWD * 2;
        // Eight and more SACKs per round, one measurement each round.
        assert_eq!(a.stats().paths[0].rtt_samples, rounds, "round {rounds}");
    }
    assert_eq!(a.paths()[0].rtt().srtt(), Some(OWD * 2));
}
