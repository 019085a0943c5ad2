//! Seed 000's qualitative results reproduced on the test harness's network (fixed delays,
//! seeded random loss, no queues, no cross traffic; not the paper's dumbbell, which needs the
//! engine): RtxQ_Util = 1 with NR-SACK and < 1 with SACK (§V.A), and CMT over paths with
//! asymmetric loss blocked less and faster with NR-SACK under a 128 KB send buffer (§V.B).
//!
//! RtxQ_Util (§IV.B): time average of k/r, r = rtx-queue bytes, k = its necessary bytes (in
//! flight, or received but renegable at the receiver). Periods with an empty rtx queue are left
//! out of the average (k/r is undefined there). RtxQ_Util_L averages over the loss-recovery
//! periods of the paper's naive rule, which the sender tracks (`SctpStats::in_loss_recovery`).

mod common;
use common::*;
use rexmit_sctp::{Association, CmtConfig, SctpConfig, Transmit, TsnState};
use rexmit_time::{Duration, Time};
use rexmit_wire::Payload;

const T: u32 = 1452;

#[derive(Default, Debug)]
struct Util {
    last: Option<(Time, f64, bool)>,
    weighted: f64,
    time: f64,
    weighted_l: f64,
    time_l: f64,
}

impl Util {
    fn observe(&mut self, now: Time, eps: &[Association; 2]) {
        if let Some((t, ratio, in_lr)) = self.last {
            let dt = now.saturating_since(t).as_secs_f64();
            if ratio >= 0.0 {
                self.weighted += ratio * dt;
                self.time += dt;
                if in_lr {
                    self.weighted_l += ratio * dt;
                    self.time_l += dt;
                }
            }
        }
        let (s, r) = (&eps[0], &eps[1]);
        let held: u64 = s.rtx_queue_bytes();
        let necessary: u64 = s
            .rtx_queue_iter()
            .filter(|(tsn, st, _)| match st {
                TsnState::NrAcked => false,
                TsnState::GapAcked => !r.is_tsn_non_renegable(*tsn),
                TsnState::InFlight | TsnState::MarkedForRtx => true,
            })
            .map(|(_, _, len)| len as u64)
            .sum();
        let ratio = if held == 0 {
            -1.0
        } else {
            necessary as f64 / held as f64
        };
        self.last = Some((now, ratio, s.stats().in_loss_recovery));
    }
    fn util(&self) -> f64 {
        self.weighted / self.time
    }
    fn util_l(&self) -> f64 {
        self.weighted_l / self.time_l
    }
}

struct Outcome {
    util: Util,
    delivered_bytes: u64,
    /// Seed 000 send-buffer blocking: the rtx queue fills the buffer.
    blocked: Duration,
}

fn transfer(
    nr_sack: bool,
    cmt: bool,
    send_buffer: u64,
    loss_permille: [u64; 2],
    secs: u64,
    seed: u64,
) -> Outcome {
    let cfg = SctpConfig {
        nr_sack,
        send_buffer,
        recv_buffer: 1 << 20,
        hb_interval: None,
        assoc_max_retrans: 1000,
        path_max_retrans: 1000,
        cmt: CmtConfig {
            enabled: cmt,
            ..CmtConfig::default()
        },
        ..SctpConfig::default()
    };
    let (a, b) = connect_pair(cfg.clone(), cfg, 1, 1, cmt);
    let mut net = Net::new(a, b);
    let mut rng = Rng::new(seed);
    let mut fate = move |t: &Transmit, _now: Time| -> Option<Duration> {
        let path = usize::from([A2, B2].contains(&t.dst));
        (!rng.chance(loss_permille[path])).then_some(Duration::from_millis(30))
    };
    // Greedy application writing unordered TPDUs (all out-of-order data deliverable, §IV.A).
    let mut app = |now: Time, eps: &mut [Association; 2]| {
        while eps[0].send(now, 0, Payload::zeros(T), true).is_ok() {}
    };
    let mut util = Util::default();
    let end = Time::from_secs(secs);
    net.run_observed(end, &mut fate, &mut app, &mut |now, eps| {
        util.observe(now, eps)
    });
    util.observe(end, &net.eps);
    Outcome {
        util,
        delivered_bytes: net.eps[1].stats().bytes_delivered,
        blocked: net.eps[0].stats().rtxq_blocked_time_until(end),
    }
}

#[test]
fn rtxq_util_is_one_with_nr_sacks_and_below_one_with_sacks() {
    let sack = transfer(false, false, 64 * 1024, [20, 20], 60, 1);
    let nr = transfer(true, false, 64 * 1024, [20, 20], 60, 1);
    eprintln!(
        "SCTP 2% loss 64K: SACK RtxQ_Util {:.3} RtxQ_Util_L {:.3}; NR-SACK RtxQ_Util {:.3} RtxQ_Util_L {:.3}",
        sack.util.util(),
        sack.util.util_l(),
        nr.util.util(),
        nr.util.util_l()
    );
    assert!((nr.util.util() - 1.0).abs() < 1e-9 && (nr.util.util_l() - 1.0).abs() < 1e-9);
    assert!(
        sack.util.util() < 0.95,
        "SACK wastes rtx-queue space: {}",
        sack.util.util()
    );
    assert!(
        sack.util.util_l() < sack.util.util(),
        "the waste concentrates in loss recovery"
    );
}

#[test]
fn cmt_with_asymmetric_loss_blocks_less_and_delivers_more_with_nr_sacks() {
    let secs = 60;
    let sack = transfer(false, true, 128 * 1024, [30, 2], secs, 2);
    let nr = transfer(true, true, 128 * 1024, [30, 2], secs, 2);
    let mbps = |o: &Outcome| o.delivered_bytes as f64 * 8.0 / secs as f64 / 1e6;
    let frac = |o: &Outcome| o.blocked.as_secs_f64() / secs as f64;
    eprintln!(
        "CMT 128K, loss 3%/0.2%: SACK goodput {:.2} Mb/s blocked {:.1}% RtxQ_Util {:.3}; NR-SACK goodput {:.2} Mb/s blocked {:.1}% RtxQ_Util {:.3}",
        mbps(&sack),
        100.0 * frac(&sack),
        sack.util.util(),
        mbps(&nr),
        100.0 * frac(&nr),
        nr.util.util()
    );
    assert!((nr.util.util() - 1.0).abs() < 1e-9);
    assert!(frac(&nr) < frac(&sack));
    assert!(nr.delivered_bytes > sack.delivered_bytes);
}

/// Simulation speed of the core plus this test's toy network (not part of the suite):
/// `cargo test -p rexmit-sctp --test seed000_shapes -- --ignored --nocapture` (optimised).
#[test]
#[ignore = "timing report, run on demand"]
fn packets_per_second_of_wall_time() {
    let cfg = SctpConfig {
        nr_sack: true,
        send_buffer: 1 << 20,
        recv_buffer: 1 << 22,
        hb_interval: None,
        cmt: CmtConfig {
            enabled: true,
            ..CmtConfig::default()
        },
        ..SctpConfig::default()
    };
    let (a, b) = connect_pair(cfg.clone(), cfg, 1, 1, true);
    let mut net = Net::new(a, b);
    let mut rng = Rng::new(5);
    let mut fate =
        move |_: &Transmit, _now: Time| (!rng.chance(2)).then_some(Duration::from_millis(30));
    let mut app = |now: Time, eps: &mut [Association; 2]| {
        while eps[0].send(now, 0, Payload::zeros(T), true).is_ok() {}
    };
    let start = std::time::Instant::now();
    net.run(Time::from_secs(60), &mut fate, &mut app);
    let wall = start.elapsed().as_secs_f64();
    let packets = net.eps[0].stats().packets_sent + net.eps[1].stats().packets_sent;
    eprintln!(
        "{packets} packets in {wall:.2} s of wall time: {:.0} packets/s",
        packets as f64 / wall
    );
}
