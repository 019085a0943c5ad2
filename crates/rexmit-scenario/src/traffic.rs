//! Traffic sources of a scenario: distributions (`interarrival`, `size`, `response_size`),
//! message-source presets (`source`), bursts, and the defaults of `udp_random` (seed 002 §IV)
//! and `http` (seed 004 §6.2). Each check names the key path and the allowed range; the same
//! functions serve validation (which discards the result) and building.

use crate::error::{Result, ScenarioError};
use crate::kinds::{DistCfg, DistSpec, Quantity};
use crate::schema::{
    AppCfg, AppKind, AppTraffic, BurstCfg, HttpCfg, MessageSourceCfg, UdpRandomCfg,
};
use crate::units::DurationStr;
use rexmit_endpoints::messages::{Burst, MessageSource, Preset};
use rexmit_net::apps::dist::Dist;
use rexmit_net::apps::udp::MAX_UDP_PAYLOAD;
use rexmit_time::{Duration, Time};

/// The preset named by `source` (see `rexmit_endpoints::messages::Preset` for the numbers and
/// distributions); `interarrival`, `size` and `burst` override it.
fn preset(path: &str, name: &str) -> Result<Preset> {
    Preset::ALL
        .into_iter()
        .find(|p| p.name() == name)
        .ok_or_else(|| {
            let known: Vec<&str> = Preset::ALL.iter().map(|p| p.name()).collect();
            ScenarioError::new(
                format!("{path}.source"),
                format!("unknown source {name:?} (allowed: {})", known.join(", ")),
            )
        })
}

/// What values a distribution may take where it is used.
#[derive(Clone, Copy)]
struct Rules {
    /// Smallest value allowed (and the default `min` of an exponential).
    floor: u64,
    /// Largest value allowed for any given number.
    ceiling: Option<u64>,
    /// Draws must stay within the ceiling: unbounded kinds need `max`.
    bounded: bool,
    /// Durations (shown as such) rather than bytes.
    time: bool,
    /// The mean must be > 0 (an interarrival of zero would repeat forever).
    positive: bool,
}

const INTERARRIVAL: Rules = Rules {
    floor: 0,
    ceiling: None,
    bounded: false,
    time: true,
    positive: true,
};
/// SCTP cannot send an empty message (RFC 9260 §6.1); the adapters take sizes as u32.
const MESSAGE_SIZE: Rules = Rules {
    floor: 1,
    ceiling: Some(u32::MAX as u64),
    bounded: false,
    time: false,
    positive: true,
};
const UDP_PAYLOAD: Rules = Rules {
    floor: 0,
    ceiling: Some(MAX_UDP_PAYLOAD),
    bounded: true,
    time: false,
    positive: false,
};
const RESPONSE_SIZE: Rules = Rules {
    floor: 1,
    ceiling: None,
    bounded: false,
    time: false,
    positive: true,
};

const MS: u64 = 1_000_000;

impl Rules {
    fn show(&self, v: u64) -> String {
        if self.time {
            Duration::from_nanos(v).to_string()
        } else if v == 1 {
            "1 byte".to_string()
        } else {
            format!("{v} bytes")
        }
    }

    fn at_least(&self, path: &str, v: u64) -> Result<()> {
        if v < self.floor {
            return Err(ScenarioError::new(
                path,
                format!(
                    "{} is below the smallest allowed, {}",
                    self.show(v),
                    self.show(self.floor)
                ),
            ));
        }
        if let Some(c) = self.ceiling.filter(|&c| v > c) {
            return Err(ScenarioError::new(
                path,
                format!(
                    "{} is above the largest allowed, {}",
                    self.show(v),
                    self.show(c)
                ),
            ));
        }
        Ok(())
    }
}

fn err<T>(path: String, msg: impl Into<String>) -> Result<T> {
    Err(ScenarioError::new(path, msg))
}

/// Check a distribution table against `rules` and build it.
fn dist<T: Quantity>(path: &str, cfg: &DistCfg<T>, rules: Rules) -> Result<Dist> {
    let p = |f: &str| format!("{path}.{f}");
    let unbounded = |max: Option<u64>| -> Result<()> {
        match (rules.ceiling, max) {
            (Some(c), None) if rules.bounded => err(
                p("max"),
                format!("is required here: values are at most {}", rules.show(c)),
            ),
            _ => Ok(()),
        }
    };
    Ok(match cfg.resolve(path)? {
        DistSpec::Fixed { value } => {
            rules.at_least(&p("value"), value)?;
            if rules.positive && value == 0 {
                return err(p("value"), "must be > 0");
            }
            Dist::Fixed(value)
        }
        DistSpec::Uniform { min, max } => {
            rules.at_least(&p("min"), min)?;
            rules.at_least(&p("max"), max)?;
            if max < min {
                return err(
                    p("max"),
                    format!("{} is below min {}", rules.show(max), rules.show(min)),
                );
            }
            if rules.positive && max == 0 {
                return err(p("max"), "must be > 0");
            }
            Dist::Uniform { min, max }
        }
        DistSpec::Exponential { mean, min, max } => {
            let min = min.unwrap_or(rules.floor);
            rules.at_least(&p("min"), min)?;
            rules.at_least(&p("mean"), mean)?;
            if mean <= min {
                return err(
                    p("mean"),
                    format!(
                        "{} must be above min ({})",
                        rules.show(mean),
                        rules.show(min)
                    ),
                );
            }
            unbounded(max)?;
            if let Some(m) = max {
                rules.at_least(&p("max"), m)?;
                if m <= mean {
                    return err(
                        p("max"),
                        format!(
                            "{} must be above the mean {}",
                            rules.show(m),
                            rules.show(mean)
                        ),
                    );
                }
            }
            Dist::exponential_with_mean(mean as f64, min, max)
                .map_err(|e| ScenarioError::new(p("mean"), e))?
        }
        DistSpec::Pareto {
            min,
            shape,
            mean,
            max,
        } => {
            rules.at_least(&p("min"), min)?;
            if min == 0 {
                return err(p("min"), "must be > 0 (the Pareto scale)");
            }
            unbounded(max)?;
            if let Some(m) = max {
                rules.at_least(&p("max"), m)?;
                if m <= min {
                    return err(
                        p("max"),
                        format!("{} must be above min {}", rules.show(m), rules.show(min)),
                    );
                }
            }
            match (shape, mean) {
                (Some(s), _) => {
                    if !(s > 0.0 && s.is_finite()) || (max.is_none() && s <= 1.0) {
                        return err(p("shape"), format!("{s} is out of range: must be > 1 (> 0 with `max`; a Pareto with shape ≤ 1 has no mean)"));
                    }
                    Dist::Pareto { shape: s, min, max }
                }
                (None, Some(m)) => Dist::pareto_with_mean(min, m as f64, max)
                    .map_err(|e| ScenarioError::new(p("mean"), e))?,
                (None, None) => {
                    return err(
                        path.to_string(),
                        "give exactly one of `shape` or `mean` for kind \"pareto\"",
                    )
                }
            }
        }
    })
}

fn burst(path: &str, b: &BurstCfg) -> Result<Burst> {
    if b.messages == 0 {
        return err(format!("{path}.burst.messages"), "must be ≥ 1");
    }
    if b.messages > 1 && b.interval.0.is_zero() {
        return err(
            format!("{path}.burst.interval"),
            "must be > 0 when a burst has more than one message",
        );
    }
    Ok(Burst {
        messages: b.messages,
        interval: b.interval.0,
    })
}

fn stop(stop: Option<DurationStr>) -> Option<Time> {
    stop.map(|d| Time::ZERO + d.0)
}

/// The source of a `sctp_messages` or `tcp_messages` app (`kind`): its `source` preset,
/// overridden by `interarrival`, `size` and `burst`; `messages` in all until `stop`.
pub fn message_source(path: &str, kind: AppKind, m: &MessageSourceCfg) -> Result<MessageSource> {
    let preset = m
        .source
        .as_deref()
        .map(|s| preset(path, s))
        .transpose()?
        .map(Preset::source);
    let need = |field: &str| {
        err(
            format!("{path}.{field}"),
            format!(
                "is required for kind {:?} (or give a `source`)",
                kind.name()
            ),
        )
    };
    let interarrival = match (&m.interarrival, &preset) {
        (Some(d), _) => dist(&format!("{path}.interarrival"), d, INTERARRIVAL)?,
        (None, Some(p)) => p.0.clone(),
        (None, None) => return need("interarrival"),
    };
    let size = match (&m.size, &preset) {
        (Some(d), _) => dist(&format!("{path}.size"), d, MESSAGE_SIZE)?,
        (None, Some(p)) => p.1.clone(),
        (None, None) => return need("size"),
    };
    let burst = match &m.burst {
        Some(b) => Some(burst(path, b)?),
        None => preset.and_then(|p| p.2),
    };
    Ok(MessageSource {
        interarrival,
        size,
        burst,
        count: m.messages,
        stop: stop(m.stop),
    })
}

/// `udp_random` (seed 002 §IV): UDP payloads uniform in 100–1000 bytes every uniform 25–100 ms
/// unless `size` and `interarrival` say otherwise. Returns (payload size, interarrival).
pub fn udp_random(path: &str, a: &UdpRandomCfg) -> Result<(Dist, Dist)> {
    let size = match &a.size {
        Some(d) => dist(&format!("{path}.size"), d, UDP_PAYLOAD)?,
        None => Dist::Uniform {
            min: 100,
            max: 1000,
        },
    };
    let gap = match &a.interarrival {
        Some(d) => dist(&format!("{path}.interarrival"), d, INTERARRIVAL)?,
        None => Dist::Uniform {
            min: 25 * MS,
            max: 100 * MS,
        },
    };
    Ok((size, gap))
}

/// Seed 004 footnote 4: responses were limited to about 64 MB.
pub const HTTP_MAX_RESPONSE: u64 = 64 << 20;
/// Server ports per HTTP app unless `max_connections` says otherwise.
pub const HTTP_DEFAULT_CONNECTIONS: u16 = 32;

/// The requests of an `http` app (seed 004 §6.2): exponential interarrivals with mean 655 ms,
/// Pareto response sizes with minimum 1000 bytes and mean 9200 bytes (capped at 64 MiB),
/// unless `interarrival` and `response_size` say otherwise; no request from `stop` on.
pub fn http_requests(path: &str, a: &HttpCfg) -> Result<MessageSource> {
    let gap = match &a.interarrival {
        Some(d) => dist(&format!("{path}.interarrival"), d, INTERARRIVAL)?,
        None => Dist::Exponential {
            mean: 655.0 * MS as f64,
            min: 0,
            max: None,
        },
    };
    let size = match &a.response_size {
        Some(d) => dist(&format!("{path}.response_size"), d, RESPONSE_SIZE)?,
        None => Dist::pareto_with_mean(1000, 9200.0, Some(HTTP_MAX_RESPONSE))
            .expect("seed 004's numbers are consistent"),
    };
    if a.max_connections == Some(0) {
        return err(format!("{path}.max_connections"), "must be ≥ 1");
    }
    Ok(MessageSource {
        interarrival: gap,
        size,
        burst: None,
        count: None,
        stop: stop(a.stop),
    })
}

/// Check the traffic fields of an app of a traffic kind (validation).
pub fn check(path: &str, a: &AppCfg) -> Result<()> {
    match &a.traffic {
        AppTraffic::SctpMessages(c) => messages(path, AppKind::SctpMessages, &c.traffic),
        AppTraffic::TcpMessages(c) => messages(path, AppKind::TcpMessages, &c.traffic),
        AppTraffic::UdpRandom(c) => udp_random(path, c).map(|_| ()),
        AppTraffic::Http(c) => http_requests(path, c).map(|_| ()),
        AppTraffic::UdpCbr(_)
        | AppTraffic::UdpOnoff(_)
        | AppTraffic::TcpBulk(_)
        | AppTraffic::SctpBulk(_) => Ok(()),
    }
}

fn messages(path: &str, kind: AppKind, m: &MessageSourceCfg) -> Result<()> {
    if m.messages == Some(0) {
        return err(
            format!("{path}.messages"),
            "must be ≥ 1 (omit it for no limit)",
        );
    }
    message_source(path, kind, m).map(|_| ())
}
