"""Confidence intervals over replications.

Owns the Student t quantile and the mean / standard deviation / CI half-width of a sample. The
t quantile for integer degrees of freedom is exact: it inverts the closed-form CDF of
Abramowitz & Stegun 26.7.3-26.7.4 by bisection; beyond ``_SERIES_MAX_DF`` (where that series gets
long) the Cornish-Fisher expansion of A&S 26.7.5 is accurate to about 1e-10.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

_SERIES_MAX_DF = 200


def _t_two_sided_mass(t: float, df: int) -> float:
    """A(t|df) = P(-t <= T <= t) for Student's T with ``df`` degrees of freedom (A&S 26.7.3/4)."""
    theta = math.atan(t / math.sqrt(df))
    c2 = math.cos(theta) ** 2
    s = math.sin(theta)
    if df % 2 == 1:
        # odd: (2/pi)[theta + sin(theta)(cos + 2/3 cos^3 + ... + (2*4..(df-3))/(1*3..(df-2)) cos^(df-2))]
        if df == 1:
            return 2.0 * theta / math.pi
        term = math.cos(theta)
        acc = term
        for k in range(3, df - 1, 2):
            term *= c2 * (k - 1) / k
            acc += term
        return 2.0 / math.pi * (theta + s * acc)
    # even: sin(theta)[1 + 1/2 cos^2 + (1*3)/(2*4) cos^4 + ... + (1*3..(df-3))/(2*4..(df-2)) cos^(df-2)]
    term = 1.0
    acc = 1.0
    for k in range(2, df - 1, 2):
        term *= c2 * (k - 1) / k
        acc += term
    return s * acc


def _t_quantile_cornish_fisher(p: float, df: int) -> float:
    from statistics import NormalDist  # imported here: statistics is slow to import, and `rexmit run` needs none

    z = NormalDist().inv_cdf(p)
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    g4 = (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160
    return z + g1 / df + g2 / df**2 + g3 / df**3 + g4 / df**4


def t_quantile(p: float, df: int) -> float:
    """The ``p`` quantile of Student's t with ``df`` (a positive integer) degrees of freedom."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"t_quantile: p = {p} is not a probability strictly between 0 and 1")
    if df < 1 or int(df) != df:
        raise ValueError(f"t_quantile: df = {df} must be a positive integer")
    return _t_quantile(p, int(df))


@lru_cache(maxsize=256)
def _t_quantile(p: float, df: int) -> float:
    # Cached: a summary asks for the same (p, df) once per metric and point, thousands of times.
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -_t_quantile(1.0 - p, df)
    if df > _SERIES_MAX_DF:
        return _t_quantile_cornish_fisher(p, df)
    target = 2.0 * p - 1.0
    lo, hi = 0.0, 1.0
    while _t_two_sided_mass(hi, df) < target:
        lo, hi = hi, hi * 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if _t_two_sided_mass(mid, df) < target:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


@dataclass(frozen=True)
class Estimate:
    """Mean of a sample with its sample standard deviation and confidence-interval half-width
    (``half_width`` is None for fewer than two values)."""

    n: int
    mean: float | None
    std: float | None
    half_width: float | None

    @property
    def low(self) -> float | None:
        return None if self.mean is None or self.half_width is None else self.mean - self.half_width

    @property
    def high(self) -> float | None:
        return None if self.mean is None or self.half_width is None else self.mean + self.half_width


def mean_ci(values: Sequence[float | None], level: float = 0.95) -> Estimate:
    """Mean and two-sided Student-t confidence interval at ``level``; None values are skipped."""
    xs = [float(v) for v in values if v is not None and not math.isnan(float(v))]
    n = len(xs)
    if n == 0:
        return Estimate(0, None, None, None)
    mean = math.fsum(xs) / n
    if n == 1:
        return Estimate(1, mean, None, None)
    std = math.sqrt(math.fsum((x - mean) ** 2 for x in xs) / (n - 1))
    half = t_quantile(0.5 + level / 2.0, n - 1) * std / math.sqrt(n)
    return Estimate(n, mean, std, half)
