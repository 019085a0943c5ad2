//! Per-link-direction packet error models. Each decides, packet by packet, whether the packet is
//! corrupted on the link (it still occupies the link, but never arrives) or, for the two delay
//! models, arrives late (so that later packets overtake it). Decisions are taken in
//! transmission order, so "the n-th packet" means the n-th one put on the wire.

use crate::packet::{FlowMatch, Packet};
use crate::scripted::Scripted;
pub use crate::scripted::{ScriptSelect, ScriptedValue};
use rexmit_engine::RngStream;
use rexmit_time::{Duration, Time};

/// Distribution of the number of consecutive packets lost in one burst.
#[derive(Clone, Debug, PartialEq)]
pub enum BurstSize {
    Fixed(u32),
    /// Uniform integer in min..=max (seed 001: 2 to 5).
    Uniform {
        min: u32,
        max: u32,
    },
    /// Geometric with the given mean (≥ 1).
    Geometric {
        mean: f64,
    },
}

impl BurstSize {
    fn draw(&self, rng: &mut RngStream) -> u32 {
        match *self {
            BurstSize::Fixed(n) => n,
            BurstSize::Uniform { min, max } => rng.range_u64(min as u64, max as u64) as u32,
            // Number of trials to first success with p = 1/mean, so the mean is `mean`.
            BurstSize::Geometric { mean } => 1 + rng.geometric(1.0 / mean) as u32,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum ErrorModelConfig {
    /// Independent loss with probability `rate` per packet.
    Uniform { rate: f64 },
    /// A burst starts at a packet with probability `rate`; the burst drops that packet and the
    /// following ones up to its size (ns-3's burst error model as used by seed 001 Table 1).
    Burst { rate: f64, size: BurstSize },
    /// Two-state Markov channel evaluated per packet: in the good state packets are lost with
    /// `loss_good`, in the bad state with `loss_bad`; after each packet the state moves
    /// good→bad with `p_good_to_bad` and bad→good with `p_bad_to_good`.
    GilbertElliott {
        p_good_to_bad: f64,
        p_bad_to_good: f64,
        loss_good: f64,
        loss_bad: f64,
    },
    /// Exact drops for timeline tests.
    Scripted {
        flow: FlowMatch,
        select: ScriptSelect,
    },
    /// The packets `Scripted` would drop arrive `extra` late instead: a scripted reordering
    /// (one segment overtaken by the ones behind it) for timeline tests.
    ScriptedDelay {
        flow: FlowMatch,
        select: ScriptSelect,
        extra: Duration,
    },
    /// Every packet put on the wire in [`from`, `until`) arrives `extra` late: a delay spike
    /// (a route change, a link-layer stall) that can fool a retransmission timer.
    Spike {
        from: Time,
        until: Time,
        extra: Duration,
    },
}

impl ErrorModelConfig {
    /// Whether the model delays packets (so arrivals are no longer in transmission order).
    pub fn delays(&self) -> bool {
        matches!(
            self,
            ErrorModelConfig::ScriptedDelay { .. } | ErrorModelConfig::Spike { .. }
        )
    }
}

/// What an error model does with one packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    Pass,
    Drop,
    /// Arrives this much later than the link alone would deliver it.
    Delay(Duration),
}

pub struct ErrorModel {
    kind: State,
}

enum State {
    Uniform {
        rate: f64,
    },
    Burst {
        rate: f64,
        size: BurstSize,
        remaining: u32,
    },
    Ge {
        cfg: (f64, f64, f64, f64),
        bad: bool,
    },
    Scripted(Scripted),
    ScriptedDelay(Scripted, Duration),
    Spike {
        from: Time,
        until: Time,
        extra: Duration,
    },
}

impl ErrorModel {
    pub fn new(cfg: ErrorModelConfig) -> Self {
        let kind = match cfg {
            ErrorModelConfig::Uniform { rate } => State::Uniform { rate },
            ErrorModelConfig::Burst { rate, size } => State::Burst {
                rate,
                size,
                remaining: 0,
            },
            ErrorModelConfig::GilbertElliott {
                p_good_to_bad,
                p_bad_to_good,
                loss_good,
                loss_bad,
            } => State::Ge {
                cfg: (p_good_to_bad, p_bad_to_good, loss_good, loss_bad),
                bad: false,
            },
            ErrorModelConfig::Scripted { flow, select } => {
                State::Scripted(Scripted::new(flow, select))
            }
            ErrorModelConfig::ScriptedDelay {
                flow,
                select,
                extra,
            } => State::ScriptedDelay(Scripted::new(flow, select), extra),
            ErrorModelConfig::Spike { from, until, extra } => State::Spike { from, until, extra },
        };
        ErrorModel { kind }
    }

    /// What happens to `pkt`, put on the wire at `now`. Draws from `rng` only for the random
    /// models.
    pub fn fate(&mut self, now: Time, pkt: &Packet, rng: &mut RngStream) -> Fate {
        match &mut self.kind {
            State::ScriptedDelay(m, extra) => {
                if m.drops(pkt) {
                    Fate::Delay(*extra)
                } else {
                    Fate::Pass
                }
            }
            State::Spike { from, until, extra } => {
                if *from <= now && now < *until {
                    Fate::Delay(*extra)
                } else {
                    Fate::Pass
                }
            }
            _ => {
                if self.drops(pkt, rng) {
                    Fate::Drop
                } else {
                    Fate::Pass
                }
            }
        }
    }

    /// Whether `pkt` is lost. Draws from `rng` only for the random models; the delay models
    /// never drop.
    pub fn drops(&mut self, pkt: &Packet, rng: &mut RngStream) -> bool {
        match &mut self.kind {
            State::ScriptedDelay(..) | State::Spike { .. } => false,
            State::Uniform { rate } => rng.bernoulli(*rate),
            State::Burst {
                rate,
                size,
                remaining,
            } => {
                if *remaining > 0 {
                    *remaining -= 1;
                    return true;
                }
                if rng.bernoulli(*rate) {
                    *remaining = size.draw(rng).saturating_sub(1);
                    return true;
                }
                false
            }
            State::Ge {
                cfg: (p_gb, p_bg, l_g, l_b),
                bad,
            } => {
                let lost = rng.bernoulli(if *bad { *l_b } else { *l_g });
                let flip = rng.bernoulli(if *bad { *p_bg } else { *p_gb });
                if flip {
                    *bad = !*bad;
                }
                lost
            }
            State::Scripted(m) => m.drops(pkt),
        }
    }

    /// Scripted drops that never fired, one line each (empty for the random models).
    pub fn unfired(&self) -> Vec<String> {
        match &self.kind {
            State::Scripted(m) => m.unfired(),
            State::ScriptedDelay(m, _) => m
                .unfired()
                .into_iter()
                .map(|l| l.replace("drop(s)", "delay(s)"))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Number of scripted drops that never fired (None for the random models).
    pub fn unfired_count(&self) -> Option<u64> {
        match &self.kind {
            State::Scripted(m) | State::ScriptedDelay(m, _) => Some(m.unfired_count()),
            _ => None,
        }
    }
}

/// Reordering (seed 002 §IV): with probability `probability` a packet gets an extra delay drawn
/// from an exponential distribution with mean `mean_delay`, so later packets can overtake it.
#[derive(Clone, Debug, PartialEq)]
pub struct ReorderConfig {
    pub probability: f64,
    pub mean_delay: rexmit_time::Duration,
}

impl ReorderConfig {
    pub fn extra_delay(&self, rng: &mut RngStream) -> rexmit_time::Duration {
        if self.probability > 0.0 && rng.bernoulli(self.probability) {
            let ns = rng.exponential(self.mean_delay.as_nanos() as f64);
            rexmit_time::Duration::from_nanos(ns.round() as u64)
        } else {
            rexmit_time::Duration::ZERO
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rexmit_engine::StreamFactory;
    use rexmit_time::Time;
    use rexmit_wire::{IpPacket, Payload, Transport, UdpDatagram};

    fn udp(port: u16) -> Packet {
        let ip = IpPacket::new(
            [10, 0, 0, 1].into(),
            [10, 0, 0, 2].into(),
            Transport::Udp(UdpDatagram {
                src_port: port,
                dst_port: 9,
                payload: Payload::zeros(100),
            }),
        );
        Packet {
            uid: 0,
            created: Time::ZERO,
            size: ip.wire_len() as u32,
            enqueued: Time::ZERO,
            dst_owner: None,
            dst_agent: None,
            ip,
        }
    }

    #[test]
    fn uniform_loss_rate_within_three_sigma_over_a_million_packets() {
        let p = 1e-2;
        let n = 1_000_000u64;
        let mut m = ErrorModel::new(ErrorModelConfig::Uniform { rate: p });
        let mut rng = StreamFactory::new(11).stream("err");
        let pkt = udp(1);
        let lost = (0..n).filter(|_| m.drops(&pkt, &mut rng)).count() as f64;
        let sigma = (n as f64 * p * (1.0 - p)).sqrt();
        assert!(
            (lost - n as f64 * p).abs() < 3.0 * sigma,
            "lost {lost}, expected {} ± {}",
            n as f64 * p,
            3.0 * sigma
        );
    }

    /// Burst lengths (runs of consecutive losses) follow Uniform{2..5} when bursts are rare
    /// enough not to touch each other; the burst start rate matches too.
    #[test]
    fn burst_sizes_follow_the_configured_distribution() {
        let rate = 1e-3;
        let n = 2_000_000u64;
        let mut m = ErrorModel::new(ErrorModelConfig::Burst {
            rate,
            size: BurstSize::Uniform { min: 2, max: 5 },
        });
        let mut rng = StreamFactory::new(5).stream("burst");
        let pkt = udp(1);
        let mut runs = Vec::new();
        let mut run = 0u32;
        for _ in 0..n {
            if m.drops(&pkt, &mut rng) {
                run += 1;
            } else if run > 0 {
                runs.push(run);
                run = 0;
            }
        }
        let bursts = runs.len() as f64;
        // Expected bursts ≈ n·rate (minus the packets inside bursts, a 0.35% correction).
        let expect = n as f64 * (1.0 - 3.5 * rate) * rate;
        assert!(
            (bursts - expect).abs() < 3.0 * expect.sqrt() + 10.0,
            "bursts {bursts} vs {expect}"
        );
        let mut hist = [0u32; 8];
        for r in &runs {
            hist[(*r as usize).min(7)] += 1;
        }
        assert_eq!(hist[0] + hist[1], 0, "no burst shorter than 2: {hist:?}");
        // Adjacent bursts merge with probability ≈ rate·5 per burst: allow a handful above 5.
        assert!(hist[6] + hist[7] <= (bursts * 0.02) as u32, "{hist:?}");
        for size in 2..=5 {
            let frac = hist[size] as f64 / bursts;
            assert!(
                (frac - 0.25).abs() < 3.0 * (0.25f64 * 0.75 / bursts).sqrt() + 0.01,
                "size {size}: {frac} {hist:?}"
            );
        }
    }

    #[test]
    fn gilbert_elliott_long_run_loss_matches_stationary_distribution() {
        let (p_gb, p_bg, l_g, l_b) = (0.01, 0.2, 0.001, 0.5);
        let mut m = ErrorModel::new(ErrorModelConfig::GilbertElliott {
            p_good_to_bad: p_gb,
            p_bad_to_good: p_bg,
            loss_good: l_g,
            loss_bad: l_b,
        });
        let mut rng = StreamFactory::new(2).stream("ge");
        let n = 2_000_000;
        let pkt = udp(1);
        let lost = (0..n).filter(|_| m.drops(&pkt, &mut rng)).count() as f64 / n as f64;
        let pi_bad = p_gb / (p_gb + p_bg);
        let expect = pi_bad * l_b + (1.0 - pi_bad) * l_g;
        assert!((lost - expect).abs() / expect < 0.05, "{lost} vs {expect}");
    }

    #[test]
    fn scripted_model_drops_exactly_the_listed_packets_of_its_flow() {
        let flow = FlowMatch {
            src_port: Some(7),
            ..Default::default()
        };
        let mut m = ErrorModel::new(ErrorModelConfig::Scripted {
            flow,
            select: ScriptSelect::PacketNumbers(vec![5, 2]),
        });
        let mut rng = StreamFactory::new(1).stream("s");
        let mut dropped = Vec::new();
        let mut k = 0;
        for i in 0..20 {
            // Interleave another flow: it must neither be dropped nor counted.
            let other = udp(8);
            assert!(!m.drops(&other, &mut rng));
            let p = udp(7);
            k += 1;
            if m.drops(&p, &mut rng) {
                dropped.push((i, k));
            }
        }
        assert_eq!(dropped, vec![(1, 2), (4, 5)]);
    }

    #[test]
    fn a_scripted_delay_holds_back_exactly_the_chosen_packets_of_its_flow() {
        let mut m = ErrorModel::new(ErrorModelConfig::ScriptedDelay {
            flow: FlowMatch {
                src_port: Some(7),
                ..Default::default()
            },
            select: ScriptSelect::PacketNumbers(vec![3]),
            extra: Duration::from_millis(15),
        });
        let mut rng = StreamFactory::new(1).stream("s");
        let t = Time::ZERO;
        let fates: Vec<Fate> = (0..5).map(|_| m.fate(t, &udp(7), &mut rng)).collect();
        let late = Fate::Delay(Duration::from_millis(15));
        assert_eq!(
            fates,
            [Fate::Pass, Fate::Pass, late, Fate::Pass, Fate::Pass]
        );
        assert_eq!(m.fate(t, &udp(8), &mut rng), Fate::Pass, "another flow");
        assert!(!m.drops(&udp(7), &mut rng), "a delay model never drops");
        assert_eq!(m.unfired_count(), Some(0));
    }

    #[test]
    fn an_unmatched_scripted_delay_is_reported_as_a_delay() {
        let m = ErrorModel::new(ErrorModelConfig::ScriptedDelay {
            flow: FlowMatch::default(),
            select: ScriptSelect::TcpSeqs(vec![ScriptedValue { value: 1, times: 1 }]),
            extra: Duration::from_millis(1),
        });
        assert_eq!(m.unfired(), ["tcp_seqs 1: 1 delay(s) never matched"]);
    }

    /// The spike's window is half-open and counts from the start of transmission.
    #[test]
    fn a_spike_delays_every_packet_put_on_the_wire_within_its_window() {
        let cfg = ErrorModelConfig::Spike {
            from: Time::from_millis(100),
            until: Time::from_millis(200),
            extra: Duration::from_secs(1),
        };
        assert!(cfg.delays());
        let mut m = ErrorModel::new(cfg);
        let mut rng = StreamFactory::new(1).stream("s");
        let at = |m: &mut ErrorModel, rng: &mut RngStream, ms: u64| {
            m.fate(Time::from_millis(ms), &udp(1), rng)
        };
        let late = Fate::Delay(Duration::from_secs(1));
        assert_eq!(at(&mut m, &mut rng, 99), Fate::Pass);
        assert_eq!(at(&mut m, &mut rng, 100), late);
        assert_eq!(at(&mut m, &mut rng, 199), late);
        assert_eq!(at(&mut m, &mut rng, 200), Fate::Pass);
        assert!(!ErrorModelConfig::Uniform { rate: 0.1 }.delays());
    }

    #[test]
    fn reordering_delays_the_configured_fraction_with_the_configured_mean() {
        let cfg = ReorderConfig {
            probability: 0.05,
            mean_delay: rexmit_time::Duration::from_millis(10),
        };
        let mut rng = StreamFactory::new(3).stream("reo");
        let n = 400_000;
        let d: Vec<u64> = (0..n)
            .map(|_| cfg.extra_delay(&mut rng).as_nanos())
            .collect();
        let delayed: Vec<u64> = d.iter().copied().filter(|&x| x > 0).collect();
        let frac = delayed.len() as f64 / n as f64;
        assert!((frac - 0.05).abs() < 3.0 * (0.05f64 * 0.95 / n as f64).sqrt());
        let mean = delayed.iter().sum::<u64>() as f64 / delayed.len() as f64;
        assert!((mean - 1e7).abs() / 1e7 < 0.03, "mean {mean}");
    }
}
