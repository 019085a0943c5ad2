//! Quantities with units in scenario files: durations ("25ms"), rates ("10Mbps") and byte sizes
//! ("64KB"). Decimal numbers are parsed exactly (no floating point), so "1.2ms" is 1 200 000 ns.

use rexmit_time::{Duration, Rate};
use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// Parse "12.5" into (1250, 100): an exact rational with a power-of-ten denominator.
fn parse_decimal(s: &str) -> Option<(u128, u128)> {
    let (int, frac) = match s.split_once('.') {
        Some((i, f)) => (i, f),
        None => (s, ""),
    };
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    if !int.chars().all(|c| c.is_ascii_digit())
        || !frac.chars().all(|c| c.is_ascii_digit())
        || frac.len() > 18
    {
        return None;
    }
    let den = 10u128.pow(frac.len() as u32);
    let i: u128 = if int.is_empty() { 0 } else { int.parse().ok()? };
    let f: u128 = if frac.is_empty() {
        0
    } else {
        frac.parse().ok()?
    };
    Some((i.checked_mul(den)?.checked_add(f)?, den))
}

/// Split "10Mbps" into ("10", "Mbps"); a leading minus sign is an error naming the `what`.
fn split_unit<'a>(s: &'a str, what: &str) -> Result<(&'a str, &'a str), String> {
    let t = s.trim();
    if t.starts_with('-') {
        return Err(format!(
            "{s:?}: negative {what} not allowed (allowed range: ≥ 0)"
        ));
    }
    let idx = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    Ok((t[..idx].trim(), t[idx..].trim()))
}

/// The largest value of each quantity (a u64 of its smallest unit), for error messages.
fn largest(what: &str) -> &'static str {
    match what {
        "duration" => "18446744073s (about 584 years)",
        "rate" => "18446744073709551615bps (about 18 Ebps)",
        _ => "18446744073709551615 bytes (16 EiB)",
    }
}

fn scaled(num: &str, mult: u128, what: &str, original: &str) -> Result<u64, String> {
    let too_large = || {
        format!(
            "{original:?} is too large: the largest {what} is {}",
            largest(what)
        )
    };
    let (n, d) = parse_decimal(num).ok_or_else(|| if num.len() > 30 && num.chars().all(|c| c.is_ascii_digit() || c == '.') { too_large() } else { format!("{original:?} is not a {what}: the number part {num:?} is not a non-negative decimal") })?;
    let v = n.checked_mul(mult).ok_or_else(too_large)?;
    if v % d != 0 {
        return Err(format!(
            "{original:?} is not a whole number of the smallest unit (1 ns, 1 bit/s or 1 byte)"
        ));
    }
    u64::try_from(v / d).map_err(|_| too_large())
}

pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let (num, unit) = split_unit(s, "duration")?;
    let mult: u128 = match unit {
        "ns" => 1,
        "us" | "µs" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        "min" => 60_000_000_000,
        "h" => 3_600_000_000_000,
        "" => {
            return Err(format!(
                "{s:?} has no unit: write e.g. \"25ms\" (units: ns, us, ms, s, min, h)"
            ))
        }
        u => {
            return Err(format!(
                "{s:?}: unknown time unit {u:?} (units: ns, us, ms, s, min, h)"
            ))
        }
    };
    scaled(num, mult, "duration", s).map(Duration::from_nanos)
}

pub fn parse_rate(s: &str) -> Result<Rate, String> {
    let (num, unit) = split_unit(s, "rate")?;
    let mult: u128 = match unit {
        "bps" | "b/s" => 1,
        "kbps" | "Kbps" | "kb/s" => 1_000,
        "Mbps" | "Mb/s" => 1_000_000,
        "Gbps" | "Gb/s" => 1_000_000_000,
        "" => {
            return Err(format!(
                "{s:?} has no unit: write e.g. \"10Mbps\" (units: bps, kbps, Mbps, Gbps)"
            ))
        }
        u => {
            return Err(format!(
                "{s:?}: unknown rate unit {u:?} (units: bps, kbps, Mbps, Gbps)"
            ))
        }
    };
    scaled(num, mult, "rate", s).map(Rate::from_bps)
}

pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let (num, unit) = split_unit(s, "size")?;
    let mult: u128 = match unit {
        "" | "B" => 1,
        "KB" | "kB" => 1_000,
        "MB" => 1_000_000,
        "GB" => 1_000_000_000,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "GiB" => 1 << 30,
        u => {
            return Err(format!(
                "{s:?}: unknown size unit {u:?} (units: B, KB, MB, GB, KiB, MiB, GiB)"
            ))
        }
    };
    scaled(num, mult, "size", s)
}

macro_rules! unit_type {
    ($name:ident, $inner:ty, $parse:ident, $expect:literal, $display:expr) => {
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
        pub struct $name(pub $inner);

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl de::Visitor<'_> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str($expect)
                    }
                    fn visit_str<E: de::Error>(self, s: &str) -> Result<$name, E> {
                        $parse(s).map($name).map_err(E::custom)
                    }
                }
                d.deserialize_str(V)
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let f: fn(&$inner) -> String = $display;
                s.serialize_str(&f(&self.0))
            }
        }
    };
}

unit_type!(
    DurationStr,
    Duration,
    parse_duration,
    "a duration string like \"25ms\" (units: ns, us, ms, s, min, h)",
    |d| d.to_string()
);
unit_type!(
    RateStr,
    Rate,
    parse_rate,
    "a rate string like \"10Mbps\" (units: bps, kbps, Mbps, Gbps)",
    |r| r.to_string()
);

/// A byte count: an integer, or a string with a unit ("64KB", "1MiB").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bytes(pub u64);

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl de::Visitor<'_> for V {
            type Value = Bytes;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a byte count: an integer or a string like \"64KB\"")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Bytes, E> {
                Ok(Bytes(v))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Bytes, E> {
                u64::try_from(v)
                    .map(Bytes)
                    .map_err(|_| E::custom(format!("{v} is negative: a byte count must be ≥ 0")))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Bytes, E> {
                parse_bytes(s).map(Bytes).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

impl Serialize for Bytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_exactly() {
        assert_eq!(
            parse_duration("1.2ms").unwrap(),
            Duration::from_micros(1200)
        );
        assert_eq!(
            parse_duration("0.1 ms").unwrap(),
            Duration::from_micros(100)
        );
        assert_eq!(parse_duration("600s").unwrap(), Duration::from_secs(600));
        assert_eq!(parse_duration("2min").unwrap(), Duration::from_secs(120));
        assert!(parse_duration("10").unwrap_err().contains("no unit"));
        assert!(parse_duration("10 parsecs")
            .unwrap_err()
            .contains("unknown time unit"));
        assert!(parse_duration("-5ms")
            .unwrap_err()
            .contains("negative duration not allowed"));
        assert!(parse_duration("0.5ns")
            .unwrap_err()
            .contains("whole number"));
    }

    #[test]
    fn rates_and_sizes_parse_exactly() {
        assert_eq!(parse_rate("10Mbps").unwrap(), Rate::from_mbps(10));
        assert_eq!(
            parse_rate("1.5Gbps").unwrap(),
            Rate::from_bps(1_500_000_000)
        );
        assert_eq!(parse_rate("64kbps").unwrap(), Rate::from_kbps(64));
        assert!(parse_rate("10MBps").is_err());
        assert!(parse_rate("-1Mbps")
            .unwrap_err()
            .contains("negative rate not allowed"));
        assert!(parse_bytes("-64KB")
            .unwrap_err()
            .contains("negative size not allowed"));
        assert_eq!(parse_bytes("64KB").unwrap(), 64_000);
        assert_eq!(parse_bytes("1MiB").unwrap(), 1 << 20);
    }
}
