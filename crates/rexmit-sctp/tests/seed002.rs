//! Seed 002's scenarios end to end on the test harness with a small link model (10 Mb/s,
//! 25 ms one way, optional drop-tail queue): RACK against the three-miss rule ("dupthresh")
//! for signalling traffic under loss (Fig. 2) and under reordering (Fig. 3), and burst
//! mitigation after a tail loss of 100 chunks (§V.A, Fig. 8–10). The full scenarios, with UDP
//! background traffic and the paper's replications, are `rexmit reproduce rack-sctp`.
//!
//! The numbers these tests print are in the closing notes; run with `--nocapture` to see them.

mod common;
use common::*;
use rexmit_sctp::{BurstMitigation, RackConfig, SctpConfig, Transmit};
use rexmit_time::{Duration, Time};
use rexmit_wire::{Chunk, Payload};
use std::collections::{HashMap, HashSet, VecDeque};

const RATE_BPS: u64 = 10_000_000;
const ONE_WAY: Duration = Duration::from_millis(25);

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

/// One direction of the bottleneck: serialization at 10 Mb/s, FIFO, optional drop-tail limit
/// on packets waiting, then the propagation delay.
struct Link {
    free_at: Time,
    departures: VecDeque<Time>,
    queue_limit: Option<usize>,
}

impl Link {
    fn new(queue_limit: Option<usize>) -> Self {
        Link {
            free_at: Time::ZERO,
            departures: VecDeque::new(),
            queue_limit,
        }
    }
    fn delay(&mut self, now: Time, t: &Transmit) -> Option<Duration> {
        while self.departures.front().is_some_and(|d| *d <= now) {
            self.departures.pop_front();
        }
        if self.queue_limit.is_some_and(|q| self.departures.len() > q) {
            return None;
        }
        let bytes = 20
            + 12
            + t.packet
                .chunks
                .iter()
                .map(|c| c.length().div_ceil(4) * 4)
                .sum::<usize>();
        let start = self.free_at.max(now);
        let done = start + Duration::from_nanos(bytes as u64 * 8 * 1_000_000_000 / RATE_BPS);
        self.free_at = done;
        self.departures.push_back(done);
        Some(done - now + ONE_WAY)
    }
}

/// What the network saw of the sender's DATA chunks.
#[derive(Default)]
struct Truth {
    first_sent: HashMap<u32, Time>,
    /// A transmission of this TSN got through.
    delivered: HashMap<u32, bool>,
    /// Lost chunks whose first retransmission was seen.
    recovered: HashSet<u32>,
    recovery: Vec<Duration>,
    retransmissions: u64,
    spurious: u64,
}

impl Truth {
    /// Record the DATA chunks of `t` sent at `now`; `fate` is whether the packet gets through.
    fn on_data(&mut self, t: &Transmit, now: Time, through: bool) {
        for c in &t.packet.chunks {
            let Chunk::Data(d) = c else { continue };
            match self.first_sent.get(&d.tsn) {
                None => {
                    self.first_sent.insert(d.tsn, now);
                }
                Some(&first) => {
                    self.retransmissions += 1;
                    if self.delivered.get(&d.tsn) == Some(&true) {
                        self.spurious += 1;
                    } else if self.recovered.insert(d.tsn) {
                        // First retransmission of a really lost chunk: its recovery time.
                        self.recovery.push(now - first);
                    }
                }
            }
            if through {
                self.delivered.insert(d.tsn, true);
            }
        }
    }
    fn mean_recovery_ms(&self) -> f64 {
        let n = self.recovery.len().max(1) as f64;
        self.recovery.iter().map(|d| d.as_secs_f64()).sum::<f64>() * 1e3 / n
    }
}

fn cfg_a(rack: Option<RackConfig>, max_burst: u32) -> SctpConfig {
    SctpConfig {
        hb_interval: None,
        max_burst,
        send_buffer: 4 << 20,
        rack: rack.unwrap_or_default(),
        ..SctpConfig::default()
    }
}

fn cfg_b() -> SctpConfig {
    SctpConfig {
        hb_interval: None,
        recv_buffer: 4 << 20,
        ..SctpConfig::default()
    }
}

/// The network: 10 Mb/s each way, `loss` (per mille) on every packet, `reorder` (per mille)
/// of packets delayed by an exponential extra delay of mean `reorder_mean`, drop-tail
/// `queue` on the forward link, and scripted first-transmission drops of TSNs in `drop_tsns`.
struct Setup {
    loss: u64,
    reorder: u64,
    reorder_mean: Duration,
    queue: Option<usize>,
    drop_tsns: std::ops::Range<u32>,
    initial_cwnd: Option<u64>,
}

/// Send `n` messages of `size` bytes every `interval` from A to B; returns the truth.
fn run(
    rack: Option<RackConfig>,
    max_burst: u32,
    setup: &Setup,
    n: u32,
    size: u32,
    interval: Duration,
    seed: u64,
) -> Truth {
    let cfg = SctpConfig {
        initial_cwnd: setup.initial_cwnd,
        ..cfg_a(rack, max_burst)
    };
    let (a, b) = connect_pair(cfg, cfg_b(), 1, 1, false);
    let mut net = Net::new(a, b);
    let mut rng = Rng::new(seed);
    let mut fwd = Link::new(setup.queue);
    let mut rev = Link::new(None);
    let mut truth = Truth::default();
    let mut fate = |t: &Transmit, now: Time| -> Option<Duration> {
        let forward = t.dst == B1;
        let link = if forward { &mut fwd } else { &mut rev };
        let mut d = link.delay(now, t);
        if rng.chance(setup.loss) {
            d = None;
        }
        let scripted = t
            .packet
            .chunks
            .iter()
            .any(|c| matches!(c, Chunk::Data(x) if setup.drop_tsns.contains(&x.tsn)));
        if forward {
            let first = t
                .packet
                .chunks
                .iter()
                .any(|c| matches!(c, Chunk::Data(x) if !truth.first_sent.contains_key(&x.tsn)));
            if scripted && first {
                d = None;
            }
            if d.is_some() && rng.chance(setup.reorder) {
                let u = (rng.next() >> 11) as f64 / (1u64 << 53) as f64;
                let extra = -(1.0 - u).ln() * setup.reorder_mean.as_secs_f64();
                d = d.map(|d| d + Duration::from_nanos((extra * 1e9) as u64));
            }
            truth.on_data(t, now, d.is_some());
        }
        d
    };
    let start = Time::from_millis(100);
    for i in 0..n {
        let at = start + interval * i as u64;
        net.run(at, &mut fate, &mut |_, _| {});
        net.eps[0]
            .send(at, 0, Payload::zeros(size), false)
            .expect("buffer is large");
    }
    net.run(
        start + interval * n as u64 + Duration::from_secs(60),
        &mut fate,
        &mut |_, _| {},
    );
    assert_eq!(
        net.eps[1].stats().messages_delivered,
        n as u64,
        "every message arrives: rcv {} rtxq {:?} now {:?} next {:?}",
        net.eps[1].stats().messages_delivered,
        net.eps[0].rtx_queue(),
        net.now,
        net.eps[0].poll_timeout()
    );
    truth
}

fn signalling(loss: u64, reorder: u64) -> Setup {
    Setup {
        loss,
        reorder,
        reorder_mean: ms(10),
        queue: None,
        drop_tsns: 0..0,
        initial_cwnd: None,
    }
}

#[test]
fn signalling_under_loss_rack_recovers_in_about_an_rtt_and_dupthresh_takes_twice_as_long() {
    let setup = signalling(10, 0);
    let mut at_50 = (0.0, 0.0);
    for interval in [10, 50, 100] {
        let r = run(
            Some(RackConfig::seed002()),
            4,
            &setup,
            4000,
            50,
            ms(interval),
            1,
        );
        let d = run(None, 4, &setup, 4000, 50, ms(interval), 1);
        let (rm, dm) = (r.mean_recovery_ms(), d.mean_recovery_ms());
        println!("interval {interval} ms: recovery RACK {rm:.1} ms ({} losses), dupthresh {dm:.1} ms ({} losses)", r.recovery.len(), d.recovery.len());
        assert!(r.recovery.len() > 20 && d.recovery.len() > 20);
        if interval == 10 {
            assert!(rm < 1.5 * 50.0, "RACK near one RTT at 10 ms: {rm}");
        }
        if interval == 50 {
            at_50 = (rm, dm);
        }
        assert!(rm < dm, "RACK faster at {interval} ms");
    }
    assert!(
        at_50.1 > 2.0 * at_50.0,
        "dupthresh more than twice RACK at 50 ms: {at_50:?}"
    );
}

#[test]
fn signalling_under_reordering_rack_retransmits_far_less_spuriously() {
    let setup = signalling(0, 50);
    for interval in [1, 2, 5, 10] {
        let r = run(
            Some(RackConfig::seed002()),
            4,
            &setup,
            10000,
            50,
            ms(interval),
            2,
        );
        let d = run(None, 4, &setup, 10000, 50, ms(interval), 2);
        println!(
            "interval {interval} ms, 5% reordering: spurious RACK {}, dupthresh {}",
            r.spurious, d.spurious
        );
        assert!(
            d.spurious > 0,
            "reordering fools dupthresh at {interval} ms"
        );
        // At 10 ms a delayed message is rarely overtaken by three others: both are rare there
        // (the paper: 40 vs 236 of 100 000); where the rate is higher RACK stays far below.
        if interval < 10 {
            assert!(
                r.spurious * 4 < d.spurious,
                "RACK far below dupthresh at {interval} ms"
            );
        } else {
            assert!(
                r.spurious <= d.spurious,
                "RACK not above dupthresh at {interval} ms"
            );
        }
    }
}

#[test]
fn tail_loss_of_100_chunks_needs_fewer_retransmissions_with_the_adaptive_limit() {
    // 2000 × 1000 B at one per ms, TSNs 1901–2000 lost, 10-packet queue (seed 002 §V.A).
    let setup = Setup {
        loss: 0,
        reorder: 0,
        reorder_mean: ms(0),
        queue: Some(10),
        drop_tsns: 1901..2001,
        // The paper's sender is application-limited when the tail is lost (cwnd above 70
        // packets, Fig. 8); starting there spares this test the slow-start overshoot into the
        // 10-packet queue that would leave the sender behind its application.
        initial_cwnd: Some(100 * 1452),
    };
    let mut rtx = Vec::new();
    for mitigation in [
        BurstMitigation::None,
        BurstMitigation::MaxBurst,
        BurstMitigation::Adaptive,
    ] {
        let rack = RackConfig {
            burst_mitigation: mitigation,
            ..RackConfig::seed002()
        };
        let t = run(Some(rack), 4, &setup, 2000, 1000, ms(1), 3);
        println!(
            "tail loss, {mitigation:?}: {} retransmissions",
            t.retransmissions
        );
        rtx.push(t.retransmissions);
    }
    assert!(rtx[0] > rtx[1], "Max.Burst 4 beats no mitigation: {rtx:?}");
    assert!(
        rtx[1] > rtx[2],
        "the adaptive limit beats Max.Burst 4: {rtx:?}"
    );
}
