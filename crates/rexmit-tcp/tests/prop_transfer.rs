//! Property: whatever the loss (0–30 %, both directions, SYN/FIN/ACK included) and reordering,
//! every byte arrives exactly once and in order, and the connection closes, for every recovery
//! variant and controller. The network is the tiny event loop of `common` with a seeded RNG.

mod common;
use common::*;
use proptest::prelude::*;
use rexmit_tcp::cc::registry::ParamMap;
use rexmit_tcp::{CcAlgorithm, IdleRestartRule, RecoveryAlgorithm, TcpConfig};
use rexmit_time::{Duration, Time};
use std::cell::RefCell;
use std::rc::Rc;

/// The four recovery algorithms, and SACK recovery with RACK-TLP loss detection as a fifth.
const VARIANTS: [RecoveryAlgorithm; 5] = [
    RecoveryAlgorithm::Tahoe,
    RecoveryAlgorithm::Reno,
    RecoveryAlgorithm::NewReno,
    RecoveryAlgorithm::Sack,
    RecoveryAlgorithm::Sack,
];

fn controller(i: u8) -> CcAlgorithm {
    match i % 6 {
        0 => CcAlgorithm::Reno,
        1 => CcAlgorithm::Aimd,
        2 => CcAlgorithm::Scalable,
        3 => CcAlgorithm::HighSpeed,
        4 => CcAlgorithm::Cubic,
        _ => CcAlgorithm::Westwood,
    }
}

#[allow(clippy::too_many_arguments)]
fn transfer(
    variant: usize,
    cc: u8,
    seed: u64,
    loss_pct: u64,
    reorder_pct: u64,
    len: usize,
    ack_every: u32,
    timestamps: bool,
    iss_a: u32,
) -> String {
    let c = TcpConfig {
        recovery: VARIANTS[variant],
        rack: variant == 4,
        prr: VARIANTS[variant] == RecoveryAlgorithm::Sack && seed & 4 == 0,
        cc_params: if controller(cc) == CcAlgorithm::Aimd {
            ParamMap::of(&[("a", 2.0), ("b", 0.3)])
        } else {
            ParamMap::default()
        },
        cc: controller(cc).into(),
        ack_every,
        timestamps,
        limited_transmit: seed & 1 == 0,
        early_retransmit: seed & 2 == 0,
        // Undo of spurious reductions (D-SACK, timestamps, F-RTO), restart after idle and
        // growth only while cwnd-limited: the linux profile's rules under the same property.
        dsack: seed & 8 == 0,
        undo: seed & 16 == 0,
        frto: VARIANTS[variant] == RecoveryAlgorithm::Sack && seed & 32 == 0,
        idle_restart: if seed & 64 == 0 {
            IdleRestartRule::Linux
        } else {
            IdleRestartRule::Off
        },
        cwnd_limited_growth: seed & 128 == 0,
        // The property is eventual delivery: do not abandon the connection (R2) under 30 % loss,
        // nor its handshake (eight SYNs all lost is a case proptest found).
        max_retransmissions: 100,
        syn_timeout: Duration::from_secs(100_000),
        recv_buffer: 20_000,
        send_buffer: 30_000,
        ..cfg(VARIANTS[variant])
    };
    let mut n = Net::with_iss(c.clone(), c, iss_a, iss_a.wrapping_mul(7).wrapping_add(3));
    let rng = Rc::new(RefCell::new(Rng(seed | 1)));
    let r1 = rng.clone();
    n.drop = Box::new(move |_, _| r1.borrow_mut().below(100) < loss_pct);
    let r2 = rng.clone();
    n.extra_delay = Box::new(move |_, _| {
        let mut r = r2.borrow_mut();
        if r.below(100) < reorder_pct {
            Duration::from_micros(r.below(150_000))
        } else {
            Duration::ZERO
        }
    });
    let data: Vec<u8> = (0..len).map(|i| (i.wrapping_mul(31) % 253) as u8).collect();
    // The application writes as the send buffer allows, then closes.
    let mut written = 0;
    let mut t = Time::ZERO;
    while written < data.len() && t < Time::from_secs(20_000) {
        written += n.a.send_bytes(t, &data[written..]);
        if written < data.len() {
            t += Duration::from_millis(50);
            n.run_until(t);
        }
    }
    n.a.close(t);
    n.run_until(Time::from_secs(40_000));
    assert_eq!(n.received.len(), data.len(), "bytes delivered");
    assert!(n.received == data, "every byte once and in order");
    assert!(n.finished(), "closed: {:?} {:?}", n.a.state(), n.b.state());
    let st = n.a.stats();
    assert_eq!(st.bytes_acked, data.len() as u64);
    assert_eq!(n.b.stats().bytes_delivered, data.len() as u64);
    if std::env::var_os("TCP_PROP_VERBOSE").is_some() {
        eprintln!(
            "{:?}{} loss {loss_pct}% reorder {reorder_pct}% {len} B: rtx {} timeouts {} fr {} undos {}/{}/{} end {}",
            VARIANTS[variant], if variant == 4 { "+RACK" } else { "" }, st.retransmits(), st.timeouts, st.fast_retransmits,
            st.undos_dsack, st.undos_timestamps, st.undos_frto, n.now
        );
    }
    // What the fast-path comparison below compares: both ends' statistics and the end time.
    format!("{:?}\n{:?}\n{:?}", st, n.b.stats(), n.now)
}

proptest! {
    // 200 cases by default; PROPTEST_CASES overrides for longer searches.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(200),
        ..ProptestConfig::default()
    })]
    #[test]
    fn every_byte_exactly_once_in_order_and_closed(
        variant in 0usize..5,
        cc in 0u8..6,
        seed in any::<u64>(),
        loss_pct in 0u64..=30,
        reorder_pct in 0u64..=30,
        len in 1usize..60_000,
        ack_every in 1u32..=2,
        timestamps in any::<bool>(),
        iss_a in any::<u32>(),
    ) {
        let fast = transfer(variant, cc, seed, loss_pct, reorder_pct, len, ack_every, timestamps, iss_a);
        // Issue 40 step 7: the fast paths change nothing (`rexmit_tcp::fast_path`).
        let full = rexmit_tcp::fast_path::with_full_paths(|| {
            transfer(variant, cc, seed, loss_pct, reorder_pct, len, ack_every, timestamps, iss_a)
        });
        prop_assert_eq!(fast, full);
    }
}

#[test]
fn sequence_numbers_wrap_during_transfer() {
    for v in 0..5 {
        transfer(v, 0, 99, 10, 10, 50_000, 2, true, u32::MAX - 20_000);
    }
}
