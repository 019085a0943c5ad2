//! The kinded tables of the schema (error models, on/off periods, time series; `topology` in
//! `topology.rs` uses the same machinery): each
//! is a plain struct with a `kind` and the union of its kinds' fields, so that serde never buffers
//! it and every error keeps its full key path. `resolve` checks which fields the kind requires or
//! forbids (naming the key) and gives the typed view that validation and building match on.
//! Ranges are checked in `validate.rs`, not here.

use crate::error::{Result, ScenarioError};
use crate::units::DurationStr;
use serde::{Deserialize, Serialize};

/// A `kind` enum whose variants are spelled in TOML as given, with `name()` returning that spelling.
macro_rules! kind_enum {
    ($name:ident { $($variant:ident = $text:literal),* $(,)? }) => {
        #[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
        pub enum $name {
            $(#[serde(rename = $text)] $variant,)*
        }
        impl $name {
            /// The TOML spelling.
            pub fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)*
                }
            }
        }
    };
}
pub(crate) use kind_enum;

/// Which fields a table of a given kind requires or does not use; errors name the field's path.
pub(crate) struct KindFields<'a> {
    pub path: &'a str,
    pub kind: &'static str,
}

impl KindFields<'_> {
    pub fn need<T: Clone>(&self, field: &str, v: &Option<T>) -> Result<T> {
        v.clone().ok_or_else(|| {
            ScenarioError::new(
                format!("{}.{field}", self.path),
                format!("is required for kind {:?}", self.kind),
            )
        })
    }

    pub fn unused(&self, field: &str, present: bool) -> Result<()> {
        if present {
            Err(ScenarioError::new(
                format!("{}.{field}", self.path),
                format!("is not used by kind {:?}", self.kind),
            ))
        } else {
            Ok(())
        }
    }

    /// Every present field of `fields` must be in `used`.
    pub fn only(&self, fields: &[(&str, bool)], used: &[&str]) -> Result<()> {
        fields
            .iter()
            .filter(|(f, _)| !used.contains(f))
            .try_for_each(|(f, present)| self.unused(f, *present))
    }
}

kind_enum!(ErrorModelKind { Uniform = "uniform", Burst = "burst", GilbertElliott = "gilbert_elliott", Scripted = "scripted", Spike = "spike" });

/// One entry of a link's `errors`: uniform (`rate`), burst (`rate`, `size`), gilbert_elliott
/// (`p_good_to_bad`, `p_bad_to_good`, `loss_good` = 0, `loss_bad` = 1), scripted (`app` or
/// `match`, and one of `packets`, `tcp_seqs`, `sctp_tsns`; with `delay` the chosen packets
/// arrive that much late instead of being dropped) or spike (`from`, `until`, `delay`: every
/// packet put on the wire in [from, until) arrives `delay` late); all take `direction`
/// (default both).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ErrorModelCfg {
    pub kind: ErrorModelKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<BurstSizeCfg>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p_good_to_bad: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p_bad_to_good: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss_good: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss_bad: Option<f64>,
    /// scripted: match the packets of this app's data direction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    #[serde(default, rename = "match", skip_serializing_if = "Option::is_none")]
    pub flow: Option<FlowMatchCfg>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packets: Option<Vec<u64>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp_seqs: Option<Vec<ScriptedEntry>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sctp_tsns: Option<Vec<ScriptedEntry>>,
    /// scripted, spike: the extra delay of a chosen packet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<DurationStr>,
    /// spike: the window of transmission times, from sim time zero.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<DurationStr>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<DurationStr>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<Direction>,
}

/// `ErrorModelCfg` once `resolve` has checked its kind's fields.
pub enum ErrorModelSpec {
    Uniform {
        rate: f64,
    },
    Burst {
        rate: f64,
        size: BurstSizeCfg,
    },
    GilbertElliott {
        p_good_to_bad: f64,
        p_bad_to_good: f64,
        loss_good: f64,
        loss_bad: f64,
    },
    Scripted {
        app: Option<String>,
        flow: Option<FlowMatchCfg>,
        packets: Option<Vec<u64>>,
        tcp_seqs: Option<Vec<ScriptedEntry>>,
        sctp_tsns: Option<Vec<ScriptedEntry>>,
        /// Delay the chosen packets by this much instead of dropping them.
        delay: Option<DurationStr>,
    },
    Spike {
        from: DurationStr,
        until: DurationStr,
        delay: DurationStr,
    },
}

impl ErrorModelCfg {
    pub fn direction(&self) -> Direction {
        self.direction.unwrap_or_default()
    }

    pub fn resolve(&self, path: &str) -> Result<ErrorModelSpec> {
        let k = KindFields {
            path,
            kind: self.kind.name(),
        };
        let fields = [
            ("rate", self.rate.is_some()),
            ("size", self.size.is_some()),
            ("p_good_to_bad", self.p_good_to_bad.is_some()),
            ("p_bad_to_good", self.p_bad_to_good.is_some()),
            ("loss_good", self.loss_good.is_some()),
            ("loss_bad", self.loss_bad.is_some()),
            ("app", self.app.is_some()),
            ("match", self.flow.is_some()),
            ("packets", self.packets.is_some()),
            ("tcp_seqs", self.tcp_seqs.is_some()),
            ("sctp_tsns", self.sctp_tsns.is_some()),
            ("delay", self.delay.is_some()),
            ("from", self.from.is_some()),
            ("until", self.until.is_some()),
        ];
        Ok(match self.kind {
            ErrorModelKind::Uniform => {
                k.only(&fields, &["rate"])?;
                ErrorModelSpec::Uniform {
                    rate: k.need("rate", &self.rate)?,
                }
            }
            ErrorModelKind::Burst => {
                k.only(&fields, &["rate", "size"])?;
                ErrorModelSpec::Burst {
                    rate: k.need("rate", &self.rate)?,
                    size: k.need("size", &self.size)?,
                }
            }
            ErrorModelKind::GilbertElliott => {
                k.only(
                    &fields,
                    &["p_good_to_bad", "p_bad_to_good", "loss_good", "loss_bad"],
                )?;
                ErrorModelSpec::GilbertElliott {
                    p_good_to_bad: k.need("p_good_to_bad", &self.p_good_to_bad)?,
                    p_bad_to_good: k.need("p_bad_to_good", &self.p_bad_to_good)?,
                    loss_good: self.loss_good.unwrap_or(0.0),
                    loss_bad: self.loss_bad.unwrap_or(1.0),
                }
            }
            ErrorModelKind::Scripted => {
                k.only(
                    &fields,
                    &["app", "match", "packets", "tcp_seqs", "sctp_tsns", "delay"],
                )?;
                ErrorModelSpec::Scripted {
                    app: self.app.clone(),
                    flow: self.flow.clone(),
                    packets: self.packets.clone(),
                    tcp_seqs: self.tcp_seqs.clone(),
                    sctp_tsns: self.sctp_tsns.clone(),
                    delay: self.delay,
                }
            }
            ErrorModelKind::Spike => {
                k.only(&fields, &["from", "until", "delay"])?;
                ErrorModelSpec::Spike {
                    from: k.need("from", &self.from)?,
                    until: k.need("until", &self.until)?,
                    delay: k.need("delay", &self.delay)?,
                }
            }
        })
    }
}

kind_enum!(PeriodKind { Fixed = "fixed", Exponential = "exponential", Pareto = "pareto" });

/// An on/off period length: fixed (`value`), exponential (`mean`) or pareto (`mean`, `shape`).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PeriodCfg {
    pub kind: PeriodKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<DurationStr>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean: Option<DurationStr>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<f64>,
}

/// `PeriodCfg` once `resolve` has checked its kind's fields.
pub enum PeriodSpec {
    Fixed { value: DurationStr },
    Exponential { mean: DurationStr },
    Pareto { mean: DurationStr, shape: f64 },
}

impl PeriodCfg {
    pub fn resolve(&self, path: &str) -> Result<PeriodSpec> {
        let k = KindFields {
            path,
            kind: self.kind.name(),
        };
        let fields = [
            ("value", self.value.is_some()),
            ("mean", self.mean.is_some()),
            ("shape", self.shape.is_some()),
        ];
        Ok(match self.kind {
            PeriodKind::Fixed => {
                k.only(&fields, &["value"])?;
                PeriodSpec::Fixed {
                    value: k.need("value", &self.value)?,
                }
            }
            PeriodKind::Exponential => {
                k.only(&fields, &["mean"])?;
                PeriodSpec::Exponential {
                    mean: k.need("mean", &self.mean)?,
                }
            }
            PeriodKind::Pareto => {
                k.only(&fields, &["mean", "shape"])?;
                PeriodSpec::Pareto {
                    mean: k.need("mean", &self.mean)?,
                    shape: k.need("shape", &self.shape)?,
                }
            }
        })
    }
}

kind_enum!(SeriesKind { QueuePackets = "queue_packets", QueueBytes = "queue_bytes", Drops = "drops", App = "app" });

/// A time series sampled every `interval`: queue_packets, queue_bytes, drops (of `link`, "A->B")
/// or app (a `value` the app exposes, e.g. "rx_bytes" at its sink, "tx_bytes" at its source).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SeriesCfg {
    pub kind: SeriesKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    pub interval: DurationStr,
}

/// `SeriesCfg` once `resolve` has checked its kind's fields.
pub enum SeriesSpec {
    QueuePackets { link: String },
    QueueBytes { link: String },
    Drops { link: String },
    App { app: String, value: String },
}

impl SeriesCfg {
    pub fn resolve(&self, path: &str) -> Result<SeriesSpec> {
        let k = KindFields {
            path,
            kind: self.kind.name(),
        };
        let fields = [
            ("link", self.link.is_some()),
            ("app", self.app.is_some()),
            ("value", self.value.is_some()),
        ];
        if self.kind == SeriesKind::App {
            k.only(&fields, &["app", "value"])?;
            return Ok(SeriesSpec::App {
                app: k.need("app", &self.app)?,
                value: k.need("value", &self.value)?,
            });
        }
        k.only(&fields, &["link"])?;
        let link = k.need("link", &self.link)?;
        Ok(match self.kind {
            SeriesKind::QueuePackets => SeriesSpec::QueuePackets { link },
            SeriesKind::QueueBytes => SeriesSpec::QueueBytes { link },
            _ => SeriesSpec::Drops { link },
        })
    }
}

kind_enum!(DistKind { Fixed = "fixed", Exponential = "exponential", Uniform = "uniform", Pareto = "pareto" });

/// A distribution of durations (`interarrival`, e.g. `"25ms"`) or sizes (`size`,
/// `response_size`, bytes): fixed (`value`), exponential (`mean`; optional `min` shift and
/// `max` clamp), uniform (`min`, `max`) or pareto (`min` and `shape` or `mean`; optional `max`
/// clamp). A `mean` is the mean of what is drawn, clamp included.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(
    deny_unknown_fields,
    bound(deserialize = "T: Deserialize<'de>", serialize = "T: Serialize")
)]
pub struct DistCfg<T> {
    pub kind: DistKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<T>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mean: Option<T>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min: Option<T>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<T>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<f64>,
}

/// `DistCfg` once `resolve` has checked its kind's fields (values in ns or bytes).
pub enum DistSpec {
    Fixed {
        value: u64,
    },
    Exponential {
        mean: u64,
        min: Option<u64>,
        max: Option<u64>,
    },
    Uniform {
        min: u64,
        max: u64,
    },
    Pareto {
        min: u64,
        shape: Option<f64>,
        mean: Option<u64>,
        max: Option<u64>,
    },
}

/// A quantity a distribution is over, as an integer (nanoseconds or bytes).
pub trait Quantity {
    fn units(&self) -> u64;
}

impl Quantity for crate::units::DurationStr {
    fn units(&self) -> u64 {
        self.0.as_nanos()
    }
}

impl Quantity for crate::units::Bytes {
    fn units(&self) -> u64 {
        self.0
    }
}

impl<T: Quantity> DistCfg<T> {
    pub fn resolve(&self, path: &str) -> Result<DistSpec> {
        let k = KindFields {
            path,
            kind: self.kind.name(),
        };
        let fields = [
            ("value", self.value.is_some()),
            ("mean", self.mean.is_some()),
            ("min", self.min.is_some()),
            ("max", self.max.is_some()),
            ("shape", self.shape.is_some()),
        ];
        let u = |v: &Option<T>| v.as_ref().map(Quantity::units);
        Ok(match self.kind {
            DistKind::Fixed => {
                k.only(&fields, &["value"])?;
                DistSpec::Fixed {
                    value: k.need("value", &u(&self.value))?,
                }
            }
            DistKind::Exponential => {
                k.only(&fields, &["mean", "min", "max"])?;
                DistSpec::Exponential {
                    mean: k.need("mean", &u(&self.mean))?,
                    min: u(&self.min),
                    max: u(&self.max),
                }
            }
            DistKind::Uniform => {
                k.only(&fields, &["min", "max"])?;
                DistSpec::Uniform {
                    min: k.need("min", &u(&self.min))?,
                    max: k.need("max", &u(&self.max))?,
                }
            }
            DistKind::Pareto => {
                k.only(&fields, &["min", "shape", "mean", "max"])?;
                if self.shape.is_some() == self.mean.is_some() {
                    return Err(ScenarioError::new(
                        path,
                        "give exactly one of `shape` or `mean` for kind \"pareto\"",
                    ));
                }
                DistSpec::Pareto {
                    min: k.need("min", &u(&self.min))?,
                    shape: self.shape,
                    mean: u(&self.mean),
                    max: u(&self.max),
                }
            }
        })
    }
}

#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    #[default]
    Both,
    /// From the link's first node to its second.
    Forward,
    Reverse,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ScriptedValueCfg {
    pub value: u64,
    #[serde(default = "one")]
    pub times: u32,
}
fn one() -> u32 {
    1
}

/// A scripted drop: a number, or a number and how many times (`either_de.rs` reads it).
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(untagged)]
pub enum ScriptedEntry {
    Plain(u64),
    Times(ScriptedValueCfg),
}

#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FlowMatchCfg {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub src: Option<std::net::Ipv4Addr>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dst: Option<std::net::Ipv4Addr>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub src_port: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dst_port: Option<u16>,
}

/// A burst error model's burst size (`either_de.rs` reads it).
#[derive(Clone, Debug, Serialize, PartialEq)]
#[serde(untagged)]
pub enum BurstSizeCfg {
    Fixed(u32),
    Uniform { min: u32, max: u32 },
    Geometric { mean: f64 },
}
