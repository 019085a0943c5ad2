//! HighSpeed TCP (RFC 3649) response law: above Low_Window the increase a(w) and decrease b(w)
//! follow the response function of §5; at or below it they are Reno's.

// RFC 3649 §5 parameters.
const LOW_WINDOW: f64 = 38.0;
const HIGH_WINDOW: f64 = 83_000.0;
const HIGH_P: f64 = 1e-7;
const HIGH_DECREASE: f64 = 0.1;

/// RFC 3649 §5: b(w) interpolates from 0.5 at Low_Window to High_Decrease at High_Window on a
/// log scale.
pub fn b_of_w(w: f64) -> f64 {
    if w <= LOW_WINDOW {
        return 0.5;
    }
    (HIGH_DECREASE - 0.5) * (w.ln() - LOW_WINDOW.ln()) / (HIGH_WINDOW.ln() - LOW_WINDOW.ln()) + 0.5
}

/// RFC 3649 §5: a(w) = w² · p(w) · 2 · b(w) / (2 − b(w)), with p(w) log-linear between Low_P
/// (RFC 3649 §5: Low_P = 0.078 / Low_Window^1.2) and High_P.
pub fn a_of_w(w: f64) -> f64 {
    if w <= LOW_WINDOW {
        return 1.0;
    }
    let low_p = 0.078 / LOW_WINDOW.powf(1.2);
    let frac = (w.ln() - LOW_WINDOW.ln()) / (HIGH_WINDOW.ln() - LOW_WINDOW.ln());
    let p = (frac * (HIGH_P.ln() - low_p.ln()) + low_p.ln()).exp();
    let b = b_of_w(w);
    (w * w * p * 2.0 * b / (2.0 - b)).max(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn response_function_matches_rfc3649_table() {
        // RFC 3649 §5 table: w = 1058 → a ≈ 8, b ≈ 0.33; w = 83000 → a ≈ 72, b = 0.1.
        assert!((a_of_w(1058.0) - 8.0).abs() < 1.0, "{}", a_of_w(1058.0));
        assert!((b_of_w(1058.0) - 0.33).abs() < 0.01);
        assert!(
            (a_of_w(83_000.0) - 72.0).abs() < 2.0,
            "{}",
            a_of_w(83_000.0)
        );
        assert!((b_of_w(83_000.0) - 0.1).abs() < 1e-9);
        assert_eq!(a_of_w(10.0), 1.0);
    }
}
