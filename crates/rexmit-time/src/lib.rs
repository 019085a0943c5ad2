//! Simulated time and the few unit-carrying quantities derived from it.
//!
//! Time is an integer count of nanoseconds (never a float) so that runs are exactly reproducible.
//! `Time` is an instant since the start of the simulation; `Duration` is a span. `Rate` is a
//! bit rate, used to compute serialization times exactly in integer arithmetic.
//!
//! This crate owns no clock: protocol cores receive `now` from whoever drives them.

use std::fmt;
use std::ops::{Add, AddAssign, Div, Mul, Sub, SubAssign};

/// A span of simulated time in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Duration(u64);

/// An instant of simulated time: nanoseconds since the simulation started.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(u64);

/// A bit rate in bits per second.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate(u64);

const NANOS_PER_SEC: u64 = 1_000_000_000;

impl Duration {
    pub const ZERO: Duration = Duration(0);
    pub const MAX: Duration = Duration(u64::MAX);

    pub const fn from_nanos(ns: u64) -> Self {
        Duration(ns)
    }
    pub const fn from_micros(us: u64) -> Self {
        Duration(us * 1_000)
    }
    pub const fn from_millis(ms: u64) -> Self {
        Duration(ms * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> Self {
        Duration(s * NANOS_PER_SEC)
    }
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    /// For reporting only; never feed the result back into the simulation.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NANOS_PER_SEC as f64
    }
    /// For reporting only.
    pub fn as_millis_f64(self) -> f64 {
        self.0 as f64 / 1e6
    }
    pub fn saturating_sub(self, other: Duration) -> Duration {
        Duration(self.0.saturating_sub(other.0))
    }
    pub fn saturating_add(self, other: Duration) -> Duration {
        Duration(self.0.saturating_add(other.0))
    }
    pub fn checked_add(self, other: Duration) -> Option<Duration> {
        self.0.checked_add(other.0).map(Duration)
    }
    pub fn checked_mul(self, k: u64) -> Option<Duration> {
        self.0.checked_mul(k).map(Duration)
    }
    /// Multiply by `num/den` with integer rounding toward zero (e.g. RTT/4, 7/8 SRTT).
    pub fn mul_div(self, num: u64, den: u64) -> Duration {
        assert!(den != 0, "Duration::mul_div by zero");
        Duration(((self.0 as u128 * num as u128) / den as u128).min(u64::MAX as u128) as u64)
    }
    pub fn is_zero(self) -> bool {
        self.0 == 0
    }
}

impl Time {
    pub const ZERO: Time = Time(0);
    pub const MAX: Time = Time(u64::MAX);

    /// The earlier of two optional deadlines (`None` = no deadline). Written as plain branches:
    /// the `[..].into_iter().flatten().min()` idiom compiled to ~1500 instructions on hot paths.
    #[inline]
    pub fn earliest(a: Option<Time>, b: Option<Time>) -> Option<Time> {
        match (a, b) {
            (Some(x), Some(y)) => Some(if y < x { y } else { x }),
            (Some(x), None) => Some(x),
            (None, y) => y,
        }
    }

    pub const fn from_nanos(ns: u64) -> Self {
        Time(ns)
    }
    pub const fn from_micros(us: u64) -> Self {
        Time(us * 1_000)
    }
    pub const fn from_millis(ms: u64) -> Self {
        Time(ms * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> Self {
        Time(s * NANOS_PER_SEC)
    }
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    /// For reporting only.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NANOS_PER_SEC as f64
    }
    /// Time elapsed since `earlier`, or zero if `earlier` is in the future.
    pub fn saturating_since(self, earlier: Time) -> Duration {
        Duration(self.0.saturating_sub(earlier.0))
    }
    pub fn checked_add(self, d: Duration) -> Option<Time> {
        self.0.checked_add(d.0).map(Time)
    }
    pub fn saturating_add(self, d: Duration) -> Time {
        Time(self.0.saturating_add(d.0))
    }
}

impl Rate {
    pub const fn from_bps(bps: u64) -> Self {
        Rate(bps)
    }
    pub const fn from_kbps(k: u64) -> Self {
        Rate(k * 1_000)
    }
    pub const fn from_mbps(m: u64) -> Self {
        Rate(m * 1_000_000)
    }
    pub const fn from_gbps(g: u64) -> Self {
        Rate(g * 1_000_000_000)
    }
    pub const fn bps(self) -> u64 {
        self.0
    }
    /// Time to serialize `bytes` at this rate, rounded up to the next nanosecond.
    /// A zero rate is rejected when scenarios are validated, so it is a logic error here.
    pub fn tx_time(self, bytes: u64) -> Duration {
        assert!(self.0 > 0, "Rate::tx_time on a zero rate");
        // Packet-sized inputs fit 64-bit arithmetic (same result, no 128-bit division).
        if let Some(bits) = bytes.checked_mul(8 * NANOS_PER_SEC) {
            return Duration(bits.div_ceil(self.0));
        }
        let bits = bytes as u128 * 8 * NANOS_PER_SEC as u128;
        let ns = bits.div_ceil(self.0 as u128);
        Duration(ns.min(u64::MAX as u128) as u64)
    }
    /// Bytes that this rate carries in `d`, rounded down.
    pub fn bytes_in(self, d: Duration) -> u64 {
        ((self.0 as u128 * d.0 as u128) / (8 * NANOS_PER_SEC as u128)) as u64
    }
}

impl Add<Duration> for Time {
    type Output = Time;
    fn add(self, d: Duration) -> Time {
        Time(self.0.checked_add(d.0).expect("simulated time overflow"))
    }
}
impl AddAssign<Duration> for Time {
    fn add_assign(&mut self, d: Duration) {
        *self = *self + d;
    }
}
impl Sub<Duration> for Time {
    type Output = Time;
    fn sub(self, d: Duration) -> Time {
        Time(self.0.checked_sub(d.0).expect("simulated time before zero"))
    }
}
impl Sub<Time> for Time {
    type Output = Duration;
    /// Panics if `other` is later than `self`; use `saturating_since` when that can happen.
    fn sub(self, other: Time) -> Duration {
        Duration(
            self.0
                .checked_sub(other.0)
                .expect("negative duration between instants"),
        )
    }
}
impl Add for Duration {
    type Output = Duration;
    fn add(self, o: Duration) -> Duration {
        Duration(self.0.checked_add(o.0).expect("duration overflow"))
    }
}
impl AddAssign for Duration {
    fn add_assign(&mut self, o: Duration) {
        *self = *self + o;
    }
}
impl Sub for Duration {
    type Output = Duration;
    fn sub(self, o: Duration) -> Duration {
        Duration(self.0.checked_sub(o.0).expect("negative duration"))
    }
}
impl SubAssign for Duration {
    fn sub_assign(&mut self, o: Duration) {
        *self = *self - o;
    }
}
impl Mul<u64> for Duration {
    type Output = Duration;
    fn mul(self, k: u64) -> Duration {
        Duration(self.0.checked_mul(k).expect("duration overflow"))
    }
}
impl Div<u64> for Duration {
    type Output = Duration;
    fn div(self, k: u64) -> Duration {
        Duration(self.0 / k)
    }
}

fn fmt_ns(ns: u64, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    if ns.is_multiple_of(NANOS_PER_SEC) {
        write!(f, "{}s", ns / NANOS_PER_SEC)
    } else if ns.is_multiple_of(1_000_000) {
        write!(f, "{}ms", ns / 1_000_000)
    } else if ns.is_multiple_of(1_000) {
        write!(f, "{}us", ns / 1_000)
    } else {
        write!(f, "{}ns", ns)
    }
}

impl fmt::Display for Duration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_ns(self.0, f)
    }
}
impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("t=")?;
        fmt_ns(self.0, f)
    }
}
impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        if b.is_multiple_of(1_000_000_000) && b > 0 {
            write!(f, "{}Gbps", b / 1_000_000_000)
        } else if b.is_multiple_of(1_000_000) && b > 0 {
            write!(f, "{}Mbps", b / 1_000_000)
        } else if b.is_multiple_of(1_000) && b > 0 {
            write!(f, "{}kbps", b / 1_000)
        } else {
            write!(f, "{}bps", b)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialization_time_is_exact_for_common_rates() {
        // 1500 B at 10 Mb/s = 12000 bits / 1e7 = 1.2 ms.
        assert_eq!(
            Rate::from_mbps(10).tx_time(1500),
            Duration::from_micros(1200)
        );
        // 1500 B at 4 Mb/s = 3 ms (seed 001 bottleneck).
        assert_eq!(Rate::from_mbps(4).tx_time(1500), Duration::from_millis(3));
        // 1 byte at 3 b/s = 8/3 s, rounded up to the next ns.
        assert_eq!(Rate::from_bps(3).tx_time(1).as_nanos(), 2_666_666_667);
        // Sizes past the 64-bit fast path (bytes · 8e9 ≥ 2^64) take the 128-bit one.
        let big = u64::MAX / 8_000_000_000 + 1;
        assert_eq!(
            Rate::from_bps(7).tx_time(big).as_nanos(),
            (big as u128 * 8_000_000_000).div_ceil(7) as u64
        );
        assert_eq!(
            Rate::from_bps(7).tx_time(big - 1).as_nanos(),
            ((big - 1) as u128 * 8_000_000_000).div_ceil(7) as u64
        );
    }

    #[test]
    fn bytes_in_inverts_tx_time() {
        let r = Rate::from_mbps(100);
        assert_eq!(r.bytes_in(Duration::from_secs(1)), 12_500_000);
        assert_eq!(r.bytes_in(r.tx_time(1500)), 1500);
    }

    #[test]
    fn arithmetic_and_display() {
        let t = Time::from_millis(5) + Duration::from_micros(250);
        assert_eq!(t.as_nanos(), 5_250_000);
        assert_eq!(t - Time::from_millis(5), Duration::from_micros(250));
        assert_eq!(
            Time::from_millis(1).saturating_since(Time::from_millis(2)),
            Duration::ZERO
        );
        assert_eq!(format!("{}", Duration::from_millis(200)), "200ms");
        assert_eq!(format!("{}", Rate::from_mbps(10)), "10Mbps");
        assert_eq!(
            Duration::from_millis(100).mul_div(1, 4),
            Duration::from_millis(25)
        );
    }

    #[test]
    #[should_panic(expected = "negative duration")]
    fn instant_subtraction_never_goes_negative_silently() {
        let _ = Time::from_millis(1) - Time::from_millis(2);
    }
}
