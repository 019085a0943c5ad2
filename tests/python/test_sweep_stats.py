"""Confidence intervals: the Student t quantile against published table values, the CI of a
sample against a hand calculation, and summarize() against load() recomputed by hand."""

import math

import pyarrow.parquet as pq
import pytest
from test_sweep import chain_sweep

from rexmit.stats import mean_ci, t_quantile
from rexmit.sweep import Sweep, load, run_sweep, summarize

# t_{0.975, df} from standard tables (e.g. NIST/SEMATECH e-Handbook, Table 1.4.2.7.3), more digits
# from the exact inverse CDF.
T975 = {
    1: 12.706204736,
    2: 4.302652730,
    3: 3.182446305,
    4: 2.776445105,
    5: 2.570581836,
    9: 2.262157163,
    10: 2.228138852,
    29: 2.045229642,
    30: 2.042272456,
    100: 1.983971519,
    1000: 1.962339081,
}


@pytest.mark.parametrize("df, expected", sorted(T975.items()))
def test_t_quantile_matches_the_table(df, expected):
    assert t_quantile(0.975, df) == pytest.approx(expected, abs=2e-9)


def test_t_quantile_other_levels_symmetry_and_the_normal_limit():
    assert t_quantile(0.995, 5) == pytest.approx(4.032142984, abs=1e-8)
    assert t_quantile(0.95, 7) == pytest.approx(1.894578605, abs=1e-8)
    assert t_quantile(0.025, 3) == -t_quantile(0.975, 3)
    assert t_quantile(0.5, 4) == 0.0
    # Both sides of the switch from the exact series to the Cornish-Fisher expansion agree.
    assert t_quantile(0.975, 200) > t_quantile(0.975, 201) > t_quantile(0.975, 202)
    assert t_quantile(0.975, 10**7) == pytest.approx(1.959963985, abs=1e-6)
    with pytest.raises(ValueError):
        t_quantile(1.0, 3)
    with pytest.raises(ValueError):
        t_quantile(0.9, 0)


def test_mean_ci_by_hand():
    # 1..5: mean 3, s^2 = 10/4, half-width = t_{0.975,4} * sqrt(2.5/5) = 2.776445105 * 0.707106781
    e = mean_ci([1, 2, 3, 4, 5])
    assert (e.n, e.mean) == (5, 3.0)
    assert e.std == pytest.approx(math.sqrt(2.5))
    assert e.half_width == pytest.approx(1.963243161, abs=1e-8)
    assert (e.low, e.high) == (pytest.approx(3 - 1.963243161), pytest.approx(3 + 1.963243161))
    # Two values 10 and 14: mean 12, s = 2*sqrt(2), half-width = 12.7062047 * 2 = 25.4124095
    assert mean_ci([10.0, 14.0]).half_width == pytest.approx(25.412409472, abs=1e-8)
    # None is skipped; one value has no interval; none has no mean.
    assert mean_ci([None, 7.0]) == mean_ci([7.0])
    assert mean_ci([7.0]).half_width is None and mean_ci([]).mean is None


def test_summarize_gives_mean_and_ci_per_point(tmp_path):
    link = '{ rate = "10Mbps", delay = "5ms", errors = [{ kind = "uniform", rate = 0.05 }] }'
    sweep = Sweep.from_toml(
        chain_sweep(
            4,
            3,
            link,
            "4Mbps",
            tail='[zip]\n"apps[0].rate" = ["1Mbps", "4Mbps"]\n"apps[0].packet_size" = [500, 1000]\n',
        )
    )
    run_sweep(sweep, tmp_path, jobs=1, progress=False)
    summary = summarize(tmp_path)
    assert pq.read_table(tmp_path / "summary.parquet").equals(summary)
    assert summary.num_rows == 2
    assert summary.column("runs").to_pylist() == [4, 4]
    assert summary.column("param.apps[0].packet_size").to_pylist() == [500, 1000]
    rows = load(tmp_path).to_pylist()
    for point in (0, 1):
        xs = [r["link.A->B.drop_error"] for r in rows if r["point"] == point]
        mean = sum(xs) / 4
        s = math.sqrt(sum((x - mean) ** 2 for x in xs) / 3)
        got = summary.to_pylist()[point]
        assert got["link.A->B.drop_error.mean"] == pytest.approx(mean)
        assert got["link.A->B.drop_error.std"] == pytest.approx(s)
        assert got["link.A->B.drop_error.ci95"] == pytest.approx(3.182446305 * s / 2)
        assert got["link.A->B.drop_error.ci95"] > 0
