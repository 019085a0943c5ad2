//! The queue of a link direction (`queue = { ... }` in a link table): its limit, and either
//! the tables every scenario has written (`red = { ... }`) or an active queue with ECN:
//!
//! ```toml
//! queue = { packets = 1000, aqm = "codel" }                                  # RFC 8289 defaults
//! queue = { packets = 1000, aqm = "codel", ecn = true, codel = { target = "5ms" } }
//! queue = { packets = 10240, aqm = "fq_codel", fq_codel = { quantum = 1514 } } # marks by default
//! queue = { packets = 1000, aqm = "pie", pie = { target = "15ms" } }
//! queue = { packets = 1000, aqm = "ared" }         # thresholds and weight from the link rate
//! queue = { packets = 1000, aqm = "red", ecn = true, red = { min_th = 5, max_th = 15 } }
//! queue = { packets = 1000, ecn_threshold = 20 }   # DCTCP step marking (RFC 8257 §3.1)
//! ```
//!
//! A table with any of `aqm`, `ecn`, `ecn_threshold`, `ecn_threshold_bytes` builds an active
//! queue (`rexmit_net::QueueDiscipline::Aqm`, which also reports marks and the sojourn p99);
//! one with only `packets`, `bytes` and `red` builds the queue it always built. The AQM tables
//! (`ared`, `codel`, `fq_codel`, `pie`) mirror the option tables of `rexmit-net`
//! (`crate::mirror`): keys, defaults, ranges and their error texts are declared there.

use crate::error::{Result, ScenarioError};
use crate::mirror::{MirrorOf, Named};
use crate::units::Bytes;
use rexmit_net::{
    Aqm, AqmConfig, AqmKind, AredConfig, CodelConfig, FqCodelConfig, PieConfig, QueueConfig,
    QueueDiscipline, QueueLimit, RedParams,
};
use rexmit_options::{Relations, Table};
use serde::{Deserialize, Serialize};

rexmit_net::codel_option_table!(crate::mirror_table {
    /// `codel = { ... }` of a CoDel queue, and of each flow queue of FQ-CoDel.
    pub struct CodelCfg for CodelConfig {}
});

rexmit_net::fq_codel_option_table!(crate::mirror_table {
    /// `fq_codel = { ... }`.
    pub struct FqCodelCfg for FqCodelConfig {}
});

rexmit_net::pie_option_table!(crate::mirror_table {
    /// `pie = { ... }`.
    pub struct PieCfg for PieConfig {}
});

rexmit_net::ared_option_table!(crate::mirror_table {
    /// `ared = { ... }` (Adaptive RED).
    pub struct AredCfg for AredConfig {}
});

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct QueueCfg {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packets: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<Bytes>,
    /// The discipline: "drop_tail", "red", "ared", "codel", "fq_codel" or "pie" (unset:
    /// "red" with a `red` table, else "drop_tail").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aqm: Option<Named<AqmKind>>,
    /// Mark ECN-capable packets CE instead of dropping them where the AQM allows (RFC 3168).
    /// Default: on for FQ-CoDel (RFC 8290 §5.2.6), off for the others.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn: Option<bool>,
    /// DCTCP's step marking on a drop-tail queue (RFC 8257 §3.1): mark an ECN-capable packet
    /// when the queue, with it, holds more than this many packets.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn_threshold: Option<u32>,
    /// The same threshold in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn_threshold_bytes: Option<Bytes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub red: Option<RedCfg>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ared: Option<AredCfg>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub codel: Option<CodelCfg>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fq_codel: Option<FqCodelCfg>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pie: Option<PieCfg>,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RedCfg {
    pub min_th: f64,
    pub max_th: f64,
    #[serde(default = "default_max_p")]
    pub max_p: f64,
    #[serde(default = "default_weight")]
    pub weight: f64,
    #[serde(default = "default_true")]
    pub gentle: bool,
    /// Packet size (bytes) for the idle-time decay of the average (ns-2/ns-3 default: 500).
    #[serde(default = "default_mean_packet_size")]
    pub mean_packet_size: u32,
}

fn default_mean_packet_size() -> u32 {
    500
}

fn default_max_p() -> f64 {
    0.1
}
fn default_weight() -> f64 {
    0.002
}
fn default_true() -> bool {
    true
}

fn err<T>(path: String, msg: impl Into<String>) -> Result<T> {
    Err(ScenarioError::new(path, msg))
}

impl RedCfg {
    /// RED's parameters, range-checked; `p` is the table's key path.
    fn params(&self, p: &str) -> Result<RedParams> {
        if !(self.min_th >= 0.0 && self.min_th < self.max_th) {
            return err(
                p.to_string(),
                format!(
                    "need 0 ≤ min_th < max_th, got min_th={} max_th={}",
                    self.min_th, self.max_th
                ),
            );
        }
        if !(self.max_p > 0.0 && self.max_p <= 1.0) {
            return err(
                format!("{p}.max_p"),
                format!("{} is outside (0, 1]", self.max_p),
            );
        }
        if !(self.weight > 0.0 && self.weight <= 1.0) {
            return err(
                format!("{p}.weight"),
                format!("{} is outside (0, 1]", self.weight),
            );
        }
        if !(20..=65_535).contains(&self.mean_packet_size) {
            return err(
                format!("{p}.mean_packet_size"),
                format!("{} is outside 20..=65535 bytes", self.mean_packet_size),
            );
        }
        Ok(RedParams {
            min_th: self.min_th,
            max_th: self.max_th,
            max_p: self.max_p,
            weight: self.weight,
            gentle: self.gentle,
            mean_packet_size: self.mean_packet_size,
        })
    }
}

/// The core table a mirror sets, range-checked by the core's option table; `path` is the
/// mirror's key path.
fn core_of<C, M>(m: Option<&M>, path: &str) -> Result<C>
where
    C: Default + Table + Relations,
    M: MirrorOf<C>,
{
    let mut c = C::default();
    if let Some(m) = m {
        m.merge(&mut c, path)?;
    }
    rexmit_options::validate(&c).map_err(|e| {
        ScenarioError::new(
            format!("{path}.{}", e.field),
            format!("{} is out of range: allowed {}", e.got, e.allowed),
        )
    })?;
    Ok(c)
}

const MARKING: &str = "aqm = \"codel\", \"fq_codel\", \"pie\", \"red\" or \"ared\"";

impl QueueCfg {
    /// Whether this table asks for an active queue (module docs).
    pub fn is_aqm(&self) -> bool {
        self.aqm.is_some()
            || self.ecn.is_some()
            || self.ecn_threshold.is_some()
            || self.ecn_threshold_bytes.is_some()
    }

    fn kind(&self) -> AqmKind {
        match (self.aqm, &self.red) {
            (Some(Named(k)), _) => k,
            (None, Some(_)) => AqmKind::Red,
            (None, None) => AqmKind::DropTail,
        }
    }

    fn limit(&self, path: &str) -> Result<QueueLimit> {
        match (self.packets, self.bytes) {
            (Some(0), _) => err(format!("{path}.packets"), "must be ≥ 1"),
            (_, Some(b)) if b.0 == 0 => err(format!("{path}.bytes"), "must be ≥ 1"),
            (Some(_), Some(_)) => err(path.to_string(), "give `packets` or `bytes`, not both"),
            (None, None) => err(path.to_string(), "give a limit: `packets` or `bytes`"),
            (Some(p), None) => Ok(QueueLimit::Packets(p)),
            (None, Some(b)) => Ok(QueueLimit::Bytes(b.0)),
        }
    }

    /// Each AQM's table only with that AQM.
    fn check_tables(&self, kind: AqmKind, path: &str) -> Result<()> {
        let tables = [
            ("red", self.red.is_some(), AqmKind::Red),
            ("ared", self.ared.is_some(), AqmKind::Ared),
            ("codel", self.codel.is_some(), AqmKind::Codel),
            ("fq_codel", self.fq_codel.is_some(), AqmKind::FqCodel),
            ("pie", self.pie.is_some(), AqmKind::Pie),
        ];
        for (key, given, owner) in tables {
            if given && kind != owner {
                let name = rexmit_options::Choice::name(owner);
                return err(
                    format!("{path}.{key}"),
                    format!(
                        "is only used with aqm = \"{name}\" (this queue is \"{}\")",
                        rexmit_options::Choice::name(kind)
                    ),
                );
            }
        }
        if kind == AqmKind::Red && self.red.is_none() {
            return err(
                format!("{path}.red"),
                "is required with aqm = \"red\": red = { min_th = 5, max_th = 15 } (or aqm = \"ared\", whose thresholds follow the link rate)",
            );
        }
        Ok(())
    }

    /// DCTCP's step-marking threshold, if one is given (drop-tail only).
    fn step_threshold(&self, kind: AqmKind, path: &str) -> Result<Option<QueueLimit>> {
        let k = match (self.ecn_threshold, self.ecn_threshold_bytes) {
            (Some(_), Some(_)) => {
                return err(
                    format!("{path}.ecn_threshold"),
                    "give `ecn_threshold` (packets) or `ecn_threshold_bytes`, not both",
                )
            }
            (Some(0), _) => return err(format!("{path}.ecn_threshold"), "must be ≥ 1"),
            (_, Some(b)) if b.0 == 0 => {
                return err(format!("{path}.ecn_threshold_bytes"), "must be ≥ 1")
            }
            (Some(k), None) => QueueLimit::Packets(k),
            (None, Some(b)) => QueueLimit::Bytes(b.0),
            (None, None) => return Ok(None),
        };
        let key = match k {
            QueueLimit::Packets(_) => "ecn_threshold",
            QueueLimit::Bytes(_) => "ecn_threshold_bytes",
        };
        if kind != AqmKind::DropTail {
            return err(
                format!("{path}.{key}"),
                format!(
                    "is DCTCP's step marking on a drop-tail queue (RFC 8257 §3.1); aqm = \"{}\" marks with ecn = true",
                    rexmit_options::Choice::name(kind)
                ),
            );
        }
        let never = match (&k, self.limit(path)?) {
            (QueueLimit::Packets(k), QueueLimit::Packets(n)) => *k >= n,
            (QueueLimit::Bytes(k), QueueLimit::Bytes(n)) => *k >= n,
            _ => false,
        };
        if never {
            return err(
                format!("{path}.{key}"),
                "is not below the queue's limit: no packet would ever be marked",
            );
        }
        if self.ecn == Some(false) {
            return err(
                format!("{path}.ecn"),
                format!("is false, but `{key}` marks packets: remove one of them"),
            );
        }
        Ok(Some(k))
    }

    /// The queue this table describes; `path` is its key path (`links[0].queue`).
    pub fn to_config(&self, path: &str) -> Result<QueueConfig> {
        let limit = self.limit(path)?;
        let kind = self.kind();
        self.check_tables(kind, path)?;
        let red = match &self.red {
            Some(r) => Some(r.params(&format!("{path}.red"))?),
            None => None,
        };
        if !self.is_aqm() {
            let discipline = match red {
                Some(p) => QueueDiscipline::Red(p),
                None => QueueDiscipline::DropTail,
            };
            return Ok(QueueConfig { limit, discipline });
        }
        let step = self.step_threshold(kind, path)?;
        if kind == AqmKind::DropTail && step.is_none() && self.ecn == Some(true) {
            return err(
                format!("{path}.ecn"),
                format!("a drop-tail queue cannot mark: add ecn_threshold = K (packets; or ecn_threshold_bytes) for DCTCP's step marking (RFC 8257 §3.1), or choose an AQM that marks: {MARKING}"),
            );
        }
        let ecn = step.is_some() || self.ecn.unwrap_or(kind.ecn_by_default());
        let sub = |key: &str| format!("{path}.{key}");
        let aqm = match kind {
            AqmKind::DropTail => match step {
                Some(k) => Aqm::StepMark(k),
                None => Aqm::DropTail,
            },
            AqmKind::Red => Aqm::Red(red.expect("check_tables requires it")),
            AqmKind::Ared => Aqm::Ared(core_of(self.ared.as_ref(), &sub("ared"))?),
            AqmKind::Codel => Aqm::Codel(core_of(self.codel.as_ref(), &sub("codel"))?),
            AqmKind::FqCodel => Aqm::FqCodel(core_of(self.fq_codel.as_ref(), &sub("fq_codel"))?),
            AqmKind::Pie => Aqm::Pie(core_of(self.pie.as_ref(), &sub("pie"))?),
        };
        Ok(QueueConfig {
            limit,
            discipline: QueueDiscipline::Aqm(AqmConfig { aqm, ecn }),
        })
    }

    /// This table with every default of an active queue written out (`rexmit normalize`): the
    /// discipline, `ecn`, and its AQM's table. A table without the AQM keys is left as written.
    pub fn with_defaults(&self, path: &str) -> Result<QueueCfg> {
        let QueueDiscipline::Aqm(a) = self.to_config(path)?.discipline else {
            return Ok(self.clone());
        };
        let mut q = self.clone();
        q.aqm = Some(Named(a.aqm.kind()));
        q.ecn = Some(a.ecn);
        match &a.aqm {
            Aqm::Ared(c) => q.ared = Some(AredCfg::from_core(c)),
            Aqm::Codel(c) => q.codel = Some(CodelCfg::from_core(c)),
            Aqm::FqCodel(c) => q.fq_codel = Some(FqCodelCfg::from_core(c)),
            Aqm::Pie(c) => q.pie = Some(PieCfg::from_core(c)),
            Aqm::DropTail | Aqm::StepMark(_) | Aqm::Red(_) => {}
        }
        Ok(q)
    }
}
