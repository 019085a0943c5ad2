//! A preview of the seed 001 experiment on this crate's tiny test network (not the engine):
//! one 4 Mb/s, 50 ms link (no queue limit), MSS 1460, delayed ACK 2/200 ms, burst errors of
//! 2–5 data packets starting with probability `per` per packet, 60 s of bulk transfer.
//! Ignored by default; run with
//! `cargo test --release -p rexmit-tcp --test seed001_preview -- --ignored --nocapture`.

mod common;
use common::*;
use rexmit_tcp::{CcAlgorithm, RecoveryAlgorithm, TcpConfig};
use rexmit_time::{Duration, Rate, Time};
use std::cell::RefCell;
use std::rc::Rc;

#[test]
#[ignore]
fn seed001_preview_goodput_table() {
    let mut table = Vec::new();
    for per in [1e-5, 1e-4, 1e-3, 3e-3] {
        for (name, alg, cc) in [
            ("tahoe", RecoveryAlgorithm::Tahoe, CcAlgorithm::Reno),
            ("reno", RecoveryAlgorithm::Reno, CcAlgorithm::Reno),
            ("newreno", RecoveryAlgorithm::NewReno, CcAlgorithm::Reno),
            ("sack", RecoveryAlgorithm::Sack, CcAlgorithm::Reno),
            (
                "westwood",
                RecoveryAlgorithm::NewReno,
                CcAlgorithm::Westwood,
            ),
        ] {
            let c = TcpConfig {
                mss: 1460,
                recovery: alg,
                cc: cc.into(),
                sack: alg == RecoveryAlgorithm::Sack,
                ack_every: 2,
                recv_buffer: 1 << 20,
                send_buffer: 1 << 22,
                window_scaling: true,
                ..TcpConfig::default()
            };
            let mut n = Net::new(c.clone(), c);
            n.rate = Rate::from_mbps(4);
            n.delay = Duration::from_millis(50);
            let rng = Rc::new(RefCell::new(Rng(12345)));
            let burst = Rc::new(RefCell::new(0u32));
            let r = rng.clone();
            // Burst errors on data packets: with probability per (per packet), drop a burst of 2-5.
            n.drop = Box::new(move |d, s| {
                if d != Dir::AtoB || s.payload.is_empty() {
                    return false;
                }
                let mut b = burst.borrow_mut();
                if *b > 0 {
                    *b -= 1;
                    return true;
                }
                let mut r = r.borrow_mut();
                if r.unit() < per {
                    *b = 1 + (r.next() % 4) as u32;
                    return true;
                }
                false
            });
            n.a.send(Time::ZERO, 1 << 22);
            let mut t = Time::ZERO;
            let end = Time::from_secs(60);
            while t < end {
                t += Duration::from_millis(100);
                n.run_until(t);
                let free = n.a.send_buffer_free();
                n.a.send(t, free);
            }
            let st = n.a.stats();
            let goodput = n.b.stats().bytes_delivered as f64 * 8.0 / 60.0 / 1e6;
            println!(
                "{per:e} {name:9} goodput {goodput:.2} Mb/s  timeouts {} fast rtx {} rtx {}",
                st.timeouts,
                st.fast_retransmits,
                st.retransmits()
            );
            table.push((per, name, goodput));
        }
    }
    let g = |p: f64, n: &str| {
        table
            .iter()
            .find(|r| r.0 == p && r.1 == n)
            .map(|r| r.2)
            .unwrap_or(0.0)
    };
    // Near full use of the 4 Mb/s link (3.89 Mb/s of payload at most) at 1e-5.
    assert!(table.iter().filter(|r| r.0 == 1e-5).all(|r| r.2 > 3.5));
    // At 1e-3 recovery of several losses per window matters: NewReno and SACK beat Reno.
    assert!(g(1e-3, "sack") > g(1e-3, "reno") && g(1e-3, "newreno") > g(1e-3, "reno"));
}
