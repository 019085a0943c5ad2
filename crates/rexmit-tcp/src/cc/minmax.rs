//! A windowed running maximum kept in three samples (Kathleen Nichols' algorithm, as BBR's
//! bandwidth filter uses it): the best, second-best and third-best values of successive
//! sub-windows, so that when the best ages out the next is already known. Not an exact
//! windowed maximum: the same approximation as the one Linux's BBR runs.

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Sample {
    t: u64,
    v: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WindowedMax {
    s: [Sample; 3],
}

impl WindowedMax {
    pub fn reset(&mut self, t: u64, v: u64) {
        self.s = [Sample { t, v }; 3];
    }

    pub fn get(&self) -> u64 {
        self.s[0].v
    }

    /// Add measurement `v` at time `t` (any monotone unit: BBR uses round trips) and return
    /// the maximum over the last `win`.
    pub fn update(&mut self, win: u64, t: u64, v: u64) -> u64 {
        let m = Sample { t, v };
        if v >= self.s[0].v || t.saturating_sub(self.s[2].t) > win {
            // A new best, or nothing in the window: start over.
            self.reset(t, v);
            return v;
        }
        if v >= self.s[1].v {
            self.s[1] = m;
            self.s[2] = m;
        } else if v >= self.s[2].v {
            self.s[2] = m;
        }
        self.age(win, m)
    }

    /// Retire samples older than the window; promote fresh ones into emptied sub-windows.
    fn age(&mut self, win: u64, m: Sample) -> u64 {
        let dt = m.t.saturating_sub(self.s[0].t);
        if dt > win {
            // The best left the window: the second and third move up.
            self.s = [self.s[1], self.s[2], m];
            if m.t.saturating_sub(self.s[0].t) > win {
                self.s = [self.s[1], self.s[2], m];
            }
        } else if self.s[1].t == self.s[0].t && dt > win / 4 {
            // A quarter of the window passed without a second-best: take this one.
            self.s[1] = m;
            self.s[2] = m;
        } else if self.s[2].t == self.s[1].t && dt > win / 2 {
            self.s[2] = m;
        }
        self.s[0].v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_maximum_is_forgotten_after_the_window() {
        let mut f = WindowedMax::default();
        f.reset(0, 0);
        assert_eq!(f.update(10, 0, 100), 100);
        for t in 1..=10 {
            assert_eq!(f.update(10, t, 50), 100, "t = {t}");
        }
        // Round 11: the 100 of round 0 is older than 10 rounds.
        assert_eq!(f.update(10, 11, 50), 50);
    }

    #[test]
    fn a_larger_value_takes_over_at_once() {
        let mut f = WindowedMax::default();
        f.reset(0, 10);
        f.update(10, 1, 20);
        assert_eq!(f.update(10, 2, 30), 30);
        assert_eq!(f.update(10, 3, 25), 30);
    }
}
