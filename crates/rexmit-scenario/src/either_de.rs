//! Hand-written deserializers of the schema's either-or fields (a number or a table). A derived
//! `#[serde(untagged)]` enum answers a mistake with "data did not match any variant of untagged
//! enum …", which names neither the forms allowed nor the value given; these name both.

use crate::kinds::{BurstSizeCfg, ScriptedEntry, ScriptedValueCfg};
use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};
use std::fmt;

/// An integer where only non-negative ones are allowed: a negative one names itself and the
/// forms allowed.
fn non_negative<E: de::Error>(v: i64, forms: &str) -> Result<u64, E> {
    u64::try_from(v).map_err(|_| E::custom(format!("{v} is negative; expected {forms}")))
}

const BURST_FORMS: &str =
    "a burst size: a packet count (integer 1..=4294967295), { min = N, max = M } (uniform) or { mean = X } (geometric, X ≥ 1)";

impl<'de> Deserialize<'de> for BurstSizeCfg {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = BurstSizeCfg;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(BURST_FORMS)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<BurstSizeCfg, E> {
                u32::try_from(v).map(BurstSizeCfg::Fixed).map_err(|_| {
                    E::custom(format!(
                        "{v} packets is above 4294967295; expected {BURST_FORMS}"
                    ))
                })
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<BurstSizeCfg, E> {
                self.visit_u64(non_negative(v, BURST_FORMS)?)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<BurstSizeCfg, A::Error> {
                let (mut min, mut max, mut mean) = (None::<u32>, None::<u32>, None::<f64>);
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "min" => min = Some(map.next_value()?),
                        "max" => max = Some(map.next_value()?),
                        "mean" => mean = Some(map.next_value()?),
                        other => {
                            return Err(de::Error::custom(format!(
                                "unknown key `{other}`; expected {BURST_FORMS}"
                            )))
                        }
                    }
                }
                match (min, max, mean) {
                    (Some(min), Some(max), None) => Ok(BurstSizeCfg::Uniform { min, max }),
                    (None, None, Some(mean)) => Ok(BurstSizeCfg::Geometric { mean }),
                    _ => Err(de::Error::custom(format!(
                        "give `min` and `max` together, or `mean` alone; expected {BURST_FORMS}"
                    ))),
                }
            }
        }
        d.deserialize_any(V)
    }
}

const SCRIPTED_FORMS: &str =
    "a sequence number (integer 0..=18446744073709551615) or { value = N, times = K }";

impl<'de> Deserialize<'de> for ScriptedEntry {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ScriptedEntry;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(SCRIPTED_FORMS)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<ScriptedEntry, E> {
                Ok(ScriptedEntry::Plain(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<ScriptedEntry, E> {
                non_negative(v, SCRIPTED_FORMS).map(ScriptedEntry::Plain)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<ScriptedEntry, A::Error> {
                ScriptedValueCfg::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(ScriptedEntry::Times)
            }
        }
        d.deserialize_any(V)
    }
}
