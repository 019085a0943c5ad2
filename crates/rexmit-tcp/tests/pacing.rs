//! `pacing = true` (issue 37 item 5): any controller is paced at Linux's sk_pacing_rate
//! (tcp_update_pacing_rate): 2·cwnd/SRTT in slow start. The initial window of 20 segments goes
//! out at once unpaced; paced, the sender's pacing clock (Linux tcp_update_skb_after_send:
//! the first segments unpaced) spaces the rest by one segment's time at that rate.

mod common;
use common::*;
use rexmit_tcp::{RecoveryAlgorithm, TcpConfig};
use rexmit_time::Time;

/// Send times (ms after the first) of A's first 20 data segments.
fn first_window(cc: &str, pacing: bool) -> Vec<f64> {
    let c = TcpConfig {
        cc: cc.into(),
        pacing,
        initial_cwnd_segments: 20,
        ..cfg(RecoveryAlgorithm::Sack)
    };
    let mut n = Net::new(c.clone(), c);
    n.a.send(Time::ZERO, 40 * MSS as usize);
    n.a.close(Time::ZERO);
    n.run_until(ms(5_000));
    assert!(n.finished());
    let d = n.data_from_a();
    d[..20]
        .iter()
        .map(|(t, _, _)| t.saturating_since(d[0].0).as_secs_f64() * 1e3)
        .collect()
}

#[test]
fn paced_controllers_space_the_initial_window_at_twice_cwnd_per_srtt() {
    for cc in ["reno", "cubic", "vegas", "ledbat"] {
        let unpaced = first_window(cc, false);
        assert!(unpaced.iter().all(|&t| t == 0.0), "{cc}: {unpaced:?}");
        let paced = first_window(cc, true);
        // SRTT ≈ 100 ms (2 × 50 ms and the SYN's serialisation): 2 · 20 kB / 0.1 s = 400 kB/s,
        // one 1000-byte segment every ≈ 2.5 ms once the pacing clock runs (from the 11th).
        assert!(paced[..10].iter().all(|&t| t == 0.0), "{cc}: {paced:?}");
        let gaps: Vec<f64> = paced[10..].windows(2).map(|p| p[1] - p[0]).collect();
        assert!(
            gaps.iter().all(|g| (2.2..2.8).contains(g)),
            "{cc}: gaps {gaps:?}"
        );
    }
}
