//! Distributions of the quantities traffic sources draw: interarrival times (integer
//! nanoseconds) and sizes (bytes). Each draw comes from the caller's named `RngStream`.
//!
//! `mean` and `variance` are exact for the distribution as drawn (with its clamp at `max`),
//! so tests can hold sample statistics to them and scenarios can report what they configure.

use rexmit_engine::RngStream;

/// A distribution of non-negative integers (nanoseconds or bytes). Continuous draws are
/// rounded to the nearest integer.
#[derive(Clone, Debug, PartialEq)]
pub enum Dist {
    Fixed(u64),
    /// `min` plus an exponential with mean `mean − min` (so the mean is `mean`), clamped to
    /// `max` if given.
    Exponential {
        mean: f64,
        min: u64,
        max: Option<u64>,
    },
    /// Uniform integer in `min..=max`.
    Uniform {
        min: u64,
        max: u64,
    },
    /// Pareto: P(X > x) = (min/x)^shape for x ≥ min, clamped to `max` if given (seed 004
    /// footnote 4 caps HTTP responses at about 64 MB).
    Pareto {
        shape: f64,
        min: u64,
        max: Option<u64>,
    },
}

impl Dist {
    pub fn draw(&self, rng: &mut RngStream) -> u64 {
        let x = match *self {
            Dist::Fixed(v) => return v,
            Dist::Uniform { min, max } => return rng.range_u64(min, max),
            Dist::Exponential { mean, min, max } => {
                clamp(min as f64 + rng.exponential(mean - min as f64), max)
            }
            Dist::Pareto { shape, min, max } => clamp(rng.pareto(shape, min as f64), max),
        };
        // Below 2^63 after the clamp, so the conversion is exact in range.
        (x + 0.5).floor().min(i64::MAX as f64) as u64
    }

    /// The exact mean of `draw` before rounding (∞ for a Pareto with shape ≤ 1 and no cap).
    pub fn mean(&self) -> f64 {
        self.moments().0
    }

    /// The exact variance of `draw` before rounding (the discrete uniform's for `Uniform`).
    pub fn variance(&self) -> f64 {
        let (m, m2) = self.moments();
        if m2.is_infinite() {
            return f64::INFINITY;
        }
        (m2 - m * m).max(0.0)
    }

    /// First and second moments.
    fn moments(&self) -> (f64, f64) {
        match *self {
            Dist::Fixed(v) => (v as f64, (v as f64).powi(2)),
            Dist::Uniform { min, max } => {
                let (a, b) = (min as f64, max as f64);
                let n = b - a + 1.0;
                let mean = (a + b) / 2.0;
                (mean, mean * mean + (n * n - 1.0) / 12.0)
            }
            Dist::Exponential { mean, min, max } => {
                // X = min + min(E, c) with E ~ Exp(θ): E[min(E,c)] = θ(1 − e^{−c/θ}),
                // E[min(E,c)²] = 2θ²(1 − e^{−c/θ}(1 + c/θ)).
                let (a, theta) = (min as f64, mean - min as f64);
                let c = max.map_or(f64::INFINITY, |m| m as f64 - a);
                let tail = if c.is_infinite() {
                    0.0
                } else {
                    (-c / theta).exp()
                };
                let m1 = theta * (1.0 - tail);
                let m2 = 2.0
                    * theta
                    * theta
                    * (1.0 - tail * (1.0 + if c.is_infinite() { 0.0 } else { c / theta }));
                (a + m1, a * a + 2.0 * a * m1 + m2)
            }
            Dist::Pareto { shape, min, max } => {
                pareto_moments(shape, min as f64, max.map(|m| m as f64))
            }
        }
    }

    /// A Pareto with minimum `min` whose mean (after the clamp at `max`) is `mean`: seed 004
    /// §6.2 gives the HTTP response sizes as a minimum and a mean, not a shape.
    pub fn pareto_with_mean(min: u64, mean: f64, max: Option<u64>) -> Result<Dist, String> {
        let xm = min as f64;
        if min == 0 {
            return Err(format!("the minimum must be > 0, got {min}"));
        }
        if !mean.is_finite() || mean <= xm {
            return Err(format!("the mean {mean} must be above the minimum {min}"));
        }
        let Some(cap) = max else {
            // Uncapped: mean = shape·min/(shape − 1).
            return Ok(Dist::Pareto {
                shape: mean / (mean - xm),
                min,
                max: None,
            });
        };
        if cap <= min {
            return Err(format!("the maximum {cap} must be above the minimum {min}"));
        }
        // The capped mean falls from the cap towards the minimum as the shape grows.
        let shape = solve_decreasing(|shape| pareto_moments(shape, xm, Some(cap as f64)).0, mean)
            .ok_or_else(|| {
            format!("no Pareto with minimum {min} capped at {cap} has a mean as large as {mean}")
        })?;
        Ok(Dist::Pareto { shape, min, max })
    }

    /// A shifted exponential with minimum `min` whose mean after the clamp at `max` is `mean`
    /// (trace statistics such as seed 004 Table 1 give the mean of what was observed, which
    /// never exceeds the observed maximum).
    pub fn exponential_with_mean(mean: f64, min: u64, max: Option<u64>) -> Result<Dist, String> {
        if !mean.is_finite() || mean <= min as f64 {
            return Err(format!("the mean {mean} must be above the minimum {min}"));
        }
        let Some(cap) = max else {
            return Ok(Dist::Exponential {
                mean,
                min,
                max: None,
            });
        };
        if cap as f64 <= mean {
            return Err(format!("the maximum {cap} must be above the mean {mean}"));
        }
        // The clamped mean grows with the unclamped one: solve on the unclamped excess θ.
        let clamped = |theta: f64| {
            Dist::Exponential {
                mean: min as f64 + theta,
                min,
                max,
            }
            .mean()
        };
        let theta = solve_decreasing(|inv: f64| clamped(1.0 / inv), mean)
            .ok_or_else(|| format!("no exponential clamped at {cap} has mean {mean}"))?;
        Ok(Dist::Exponential {
            mean: min as f64 + 1.0 / theta,
            min,
            max,
        })
    }
}

/// The x in [1e-9, 1e9] where the decreasing `f` crosses `target`, by bisection on log x;
/// `None` if `f` stays below the target.
fn solve_decreasing(f: impl Fn(f64) -> f64, target: f64) -> Option<f64> {
    let (mut lo, mut hi) = (1e-9f64, 1e9f64);
    if f(lo) <= target {
        return None;
    }
    for _ in 0..200 {
        let mid = (lo * hi).sqrt();
        if f(mid) > target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some((lo * hi).sqrt())
}

fn clamp(x: f64, max: Option<u64>) -> f64 {
    max.map_or(x, |m| x.min(m as f64))
}

/// E[min(X, c)] and E[min(X, c)²] for X ~ Pareto(shape, xm), c = ∞ without a cap:
/// E[min(X,c)^k] = xm^k + ∫_xm^c k x^{k−1} (xm/x)^shape dx.
fn pareto_moments(shape: f64, xm: f64, cap: Option<f64>) -> (f64, f64) {
    let moment = |k: f64| -> f64 {
        let e = k - shape; // exponent of x in the integrand's antiderivative
        match cap {
            None if e >= 0.0 => f64::INFINITY,
            None => xm.powf(k) * shape / (shape - k),
            Some(c) if e.abs() < 1e-12 => xm.powf(k) * (1.0 + k * (c / xm).ln()),
            Some(c) => xm.powf(k) * (1.0 + k * ((c / xm).powf(e) - 1.0) / e),
        }
    };
    (moment(1.0), moment(2.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rexmit_engine::StreamFactory;

    /// Sample mean and the mean's standard error over `n` draws.
    fn sample(d: &Dist, n: u64, name: &str) -> (f64, Vec<u64>) {
        let mut rng = StreamFactory::new(7).stream(name);
        let v: Vec<u64> = (0..n).map(|_| d.draw(&mut rng)).collect();
        (v.iter().map(|&x| x as f64).sum::<f64>() / n as f64, v)
    }

    fn assert_mean_within_3_sigma(d: &Dist, n: u64) -> Vec<u64> {
        let (m, v) = sample(d, n, "dist-test");
        let se = (d.variance() / n as f64).sqrt();
        // Rounding to integers moves the mean by far less than half a unit.
        assert!(
            (m - d.mean()).abs() <= 3.0 * se + 0.5,
            "{d:?}: sample mean {m}, expected {} ± {}",
            d.mean(),
            3.0 * se
        );
        v
    }

    #[test]
    fn uniform_covers_its_range_with_the_right_mean() {
        let d = Dist::Uniform {
            min: 100,
            max: 1000,
        };
        let v = assert_mean_within_3_sigma(&d, 200_000);
        assert_eq!(*v.iter().min().unwrap(), 100);
        assert_eq!(*v.iter().max().unwrap(), 1000);
        assert_eq!(d.mean(), 550.0);
    }

    #[test]
    fn shifted_exponential_has_its_minimum_and_mean() {
        let d = Dist::Exponential {
            mean: 323e6,
            min: 1_000_000,
            max: None,
        };
        let v = assert_mean_within_3_sigma(&d, 200_000);
        assert!(v.iter().all(|&x| x >= 1_000_000));
        // Exponential: standard deviation = mean − min.
        assert!((d.variance().sqrt() - 322e6).abs() < 1.0);
    }

    #[test]
    fn clamped_exponential_mean_accounts_for_the_clamp() {
        let d = Dist::Exponential {
            mean: 100.0,
            min: 0,
            max: Some(100),
        };
        // E[min(E, 100)] with mean 100 = 100(1 − 1/e).
        assert!((d.mean() - 100.0 * (1.0 - (-1.0f64).exp())).abs() < 1e-9);
        let v = assert_mean_within_3_sigma(&d, 200_000);
        assert!(v.iter().all(|&x| x <= 100));
    }

    #[test]
    fn pareto_with_finite_variance_matches_min_and_mean() {
        let d = Dist::Pareto {
            shape: 2.5,
            min: 1000,
            max: None,
        };
        assert!((d.mean() - 1000.0 * 2.5 / 1.5).abs() < 1e-9);
        let v = assert_mean_within_3_sigma(&d, 400_000);
        assert_eq!(*v.iter().min().unwrap(), 1000);
    }

    #[test]
    fn http_response_sizes_of_seed004_have_min_1000_and_mean_9200() {
        // Seed 004 §6.2: Pareto, minimum 1000 B, mean ≈ 9200 B, capped near 64 MB (footnote 4).
        let d = Dist::pareto_with_mean(1000, 9200.0, Some(64_000_000)).unwrap();
        let Dist::Pareto { shape, .. } = d else {
            panic!("{d:?}")
        };
        assert!(shape > 1.0 && shape < 1.2, "shape {shape}");
        assert!((d.mean() - 9200.0).abs() < 1e-6, "{}", d.mean());
        let v = assert_mean_within_3_sigma(&d, 2_000_000);
        assert_eq!(*v.iter().min().unwrap(), 1000);
        assert!(*v.iter().max().unwrap() <= 64_000_000);
        // Uncapped, the same minimum and mean give shape = 9200/8200.
        let u = Dist::pareto_with_mean(1000, 9200.0, None).unwrap();
        assert_eq!(
            u,
            Dist::Pareto {
                shape: 9200.0 / 8200.0,
                min: 1000,
                max: None
            }
        );
        assert!(u.variance().is_infinite());
    }

    #[test]
    fn clamped_exponential_can_be_given_its_observed_mean() {
        // Seed 004 Table 1, Casa: mean 241 B between 93 and 572 B.
        let d = Dist::exponential_with_mean(241.0, 93, Some(572)).unwrap();
        assert!((d.mean() - 241.0).abs() < 1e-6, "{d:?}");
        let v = assert_mean_within_3_sigma(&d, 200_000);
        assert!(v.iter().all(|&x| (93..=572).contains(&x)));
        assert!(Dist::exponential_with_mean(600.0, 93, Some(572)).is_err());
        assert!(Dist::exponential_with_mean(50.0, 93, None).is_err());
    }

    #[test]
    fn impossible_pareto_means_are_errors() {
        assert!(Dist::pareto_with_mean(1000, 900.0, None).is_err());
        assert!(Dist::pareto_with_mean(0, 900.0, None).is_err());
        assert!(Dist::pareto_with_mean(1000, 5000.0, Some(2000)).is_err());
        assert!(Dist::pareto_with_mean(1000, 5000.0, Some(1000)).is_err());
    }
}
