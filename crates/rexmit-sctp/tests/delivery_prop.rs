//! Property: under random loss and reordering every message (both directions) is delivered exactly once, with
//! its bytes intact, and in order per stream where ordered; with SACK and NR-SACK, single path
//! and CMT over two paths. The network is the harness's `Net` with its own seeded RNG.

mod common;
use common::*;
use proptest::prelude::{any, proptest, ProptestConfig};
use rexmit_sctp::{
    Association, BurstMitigation, CmtConfig, Event, RackConfig, RenegePolicy, RtxPolicy,
    SctpConfig, SendError, Transmit,
};
use rexmit_time::{Duration, Time};
use rexmit_wire::Payload;
use std::collections::BTreeMap;

struct Msg {
    stream: u16,
    unordered: bool,
    bytes: Vec<u8>,
}

fn messages(seed: u64, n: usize, big: usize) -> Vec<Msg> {
    let mut r = Rng::new(seed ^ 0xabc);
    (0..n)
        .map(|i| {
            let big_len = big;
            let big = r.chance(200);
            let len = 1 + r.below(if big { big_len as u64 } else { 1400 }) as usize;
            Msg {
                stream: r.below(3) as u16,
                unordered: r.chance(300),
                bytes: (0..len).map(|k| (k * 31 + i * 7) as u8).collect(),
            }
        })
        .collect()
}

/// Buffer sizes: roomy, or tiny (576-byte PMTU, 6000-byte send buffer, 3000-byte receive
/// buffer: zero windows, reneging under memory pressure) with the given renege policy and,
/// if `slow_reader`, applications that read their delivered data only now and then.
#[derive(Clone, Copy)]
enum Buffers {
    Roomy,
    Tiny {
        renege: RenegePolicy,
        slow_reader: bool,
    },
}

fn run(seed: u64, loss_permille: u64, jitter_ms: u64, nr_sack: bool, cmt: Option<RtxPolicy>) {
    run_with(
        seed,
        loss_permille,
        jitter_ms,
        nr_sack,
        cmt,
        Buffers::Roomy,
        RackConfig::default(),
    )
}

fn run_with(
    seed: u64,
    loss_permille: u64,
    jitter_ms: u64,
    nr_sack: bool,
    cmt: Option<RtxPolicy>,
    buffers: Buffers,
    rack: RackConfig,
) {
    let (pmtu, send_buffer, recv_buffer, renege, big, slow_reader) = match buffers {
        Buffers::Roomy => (
            1500,
            32 * 1024,
            32 * 1024,
            RenegePolicy::UnderMemoryPressure,
            5000,
            false,
        ),
        Buffers::Tiny {
            renege,
            slow_reader,
        } => (576, 6000, 3000, renege, 2900, slow_reader),
    };
    let cfg = SctpConfig {
        nr_sack,
        pmtu,
        send_buffer,
        recv_buffer,
        renege,
        auto_consume: !slow_reader,
        assoc_max_retrans: 1000,
        path_max_retrans: 100,
        hb_interval: Some(Duration::from_secs(5)),
        cmt: CmtConfig {
            enabled: cmt.is_some(),
            rtx_policy: cmt.unwrap_or(RtxPolicy::Ssthresh),
            ..CmtConfig::default()
        },
        rack,
        ..SctpConfig::default()
    };
    let (a, b) = connect_pair(cfg.clone(), cfg, 7, 9, cmt.is_some());
    let mut net = Net::new(a, b);
    let mut rng = Rng::new(seed);
    let mut fate = move |t: &Transmit, _now: Time| -> Option<Duration> {
        if rng.chance(loss_permille) {
            return None;
        }
        let base = if [A2, B2].contains(&t.dst) { 25 } else { 10 };
        Some(Duration::from_micros(
            base * 1000 + rng.below(jitter_ms * 1000 + 1),
        ))
    };
    // Both directions carry messages, so SACKs also ride on DATA packets (bundling).
    let msgs = [messages(seed, 300, big), messages(seed ^ 0x5555, 150, big)];
    let mut next = [0usize; 2];
    let mut reader = Rng::new(seed ^ 0x77);
    let mut app = |now: Time, eps: &mut [Association; 2]| {
        for (i, ep) in eps.iter_mut().enumerate() {
            if slow_reader && reader.chance(100) {
                ep.consume(ep.unread_bytes());
            }
            while next[i] < msgs[i].len() {
                let m = &msgs[i][next[i]];
                match ep.send(now, m.stream, Payload::from_bytes(&m.bytes), m.unordered) {
                    Ok(id) => {
                        assert_eq!(id, next[i] as u64);
                        next[i] += 1;
                    }
                    Err(SendError::BufferFull) => break,
                    Err(e) => panic!("{e:?}"),
                }
            }
        }
    };
    net.run(Time::from_secs(3000), &mut fate, &mut app);
    let msgs = [messages(seed, 300, big), messages(seed ^ 0x5555, 150, big)];
    for (sender, receiver) in [(0, 1), (1, 0)] {
        check_delivery(
            &msgs[sender],
            &net.events[receiver],
            net.eps[sender].stats(),
        );
        assert!(net.eps[sender].is_established());
        assert_eq!(net.eps[sender].rtx_queue_bytes(), 0);
    }
}

fn check_delivery(msgs: &[Msg], events: &[(Time, Event)], sender_stats: &rexmit_sctp::SctpStats) {
    let mut seen: BTreeMap<u32, usize> = BTreeMap::new();
    let mut last_ordered: BTreeMap<u16, u32> = BTreeMap::new();
    for (_, e) in events {
        if let Event::MessageDelivered {
            stream,
            unordered,
            msg,
            payload,
            ..
        } = e
        {
            let m = &msgs[*msg as usize];
            *seen.entry(*msg).or_default() += 1;
            assert_eq!((*stream, *unordered), (m.stream, m.unordered));
            assert_eq!(payload.to_vec(), m.bytes, "message {msg} bytes");
            if !unordered {
                if let Some(prev) = last_ordered.insert(*stream, *msg) {
                    assert!(prev < *msg, "stream {stream}: {msg} after {prev}");
                }
            }
        }
    }
    assert_eq!(
        seen.len(),
        msgs.len(),
        "all messages delivered (sender stats {sender_stats:?})"
    );
    assert!(seen.values().all(|&c| c == 1), "each exactly once");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    #[test]
    fn single_path_sack(seed in any::<u64>(), loss in 0u64..200, jitter in 0u64..20) {
        run(seed, loss, jitter, false, None);
    }

    #[test]
    fn single_path_nr_sack(seed in any::<u64>(), loss in 0u64..200, jitter in 0u64..20) {
        run(seed, loss, jitter, true, None);
    }

    #[test]
    fn cmt_sack_and_nr_sack(seed in any::<u64>(), loss in 0u64..200, jitter in 0u64..20, nr in any::<bool>(), pol in 0usize..4) {
        let policy = [RtxPolicy::Same, RtxPolicy::Asap, RtxPolicy::Cwnd, RtxPolicy::Ssthresh][pol];
        run(seed, loss, jitter, nr, Some(policy));
    }

    #[test]
    fn tiny_buffers_zero_windows_reneging_and_slow_readers(seed in any::<u64>(), loss in 0u64..100, jitter in 0u64..20, nr in any::<bool>(), never in any::<bool>(), cmt in any::<bool>(), slow_reader in any::<bool>()) {
        let renege = if never { RenegePolicy::Never } else { RenegePolicy::UnderMemoryPressure };
        let buffers = Buffers::Tiny { renege, slow_reader };
        run_with(seed, loss, jitter, nr, cmt.then_some(RtxPolicy::Ssthresh), buffers, RackConfig::default());
    }

    /// RACK-TLP with each burst mitigation (seed 002), under loss and jitter that reorders.
    #[test]
    fn single_path_rack(seed in any::<u64>(), loss in 0u64..200, jitter in 0u64..40, nr in any::<bool>(), tlp in any::<bool>(), mit in 0usize..3, tiny in any::<bool>()) {
        let burst_mitigation = [BurstMitigation::None, BurstMitigation::MaxBurst, BurstMitigation::Adaptive][mit];
        let rack = RackConfig { enabled: true, tlp, burst_mitigation, ..RackConfig::default() };
        let buffers = if tiny { Buffers::Tiny { renege: RenegePolicy::UnderMemoryPressure, slow_reader: false } } else { Buffers::Roomy };
        run_with(seed, loss, jitter, nr, None, buffers, rack);
    }
}
