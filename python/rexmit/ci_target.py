"""Sweeps that stop when the answer is known (issue 18): a sweep with a ``[ci]`` table (or
``rexmit sweep --ci-target 2%``) runs ``min_replications`` of every point, then keeps doubling
the replications of each point whose 95% confidence interval of any chosen metric is still wider
than ``target`` (its half-width relative to the mean), up to ``max_replications``.

Deterministic: replication r of a point always has seed ``derive_seed(base, r)`` and the
decision to add replications depends only on results, so a rerun (or a resumed sweep) takes the
same steps and gives the same results. ``ci.json`` in the sweep directory records what every
point needed."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rexmit.stats import mean_ci

DEFAULT_MIN = 3
DEFAULT_MAX = 64


class CiError(ValueError):
    pass


#: Why a replication count has a floor of 2, said in the error.
TWO_RUNS = " (a confidence interval needs two runs)"


def require_count(where: str, value: Any, least: int, why: str = "") -> int:
    """``value`` if it is an integer (not a bool) of at least ``least``; else a CiError naming
    ``where`` (a file key or a command-line option) and the bound."""
    if not isinstance(value, int) or isinstance(value, bool) or value < least:
        raise CiError(f"{where}: {value!r} must be an integer >= {least}{why}")
    return value


def parse_target(value: Any, where: str = "ci.target") -> float:
    """``"2%"`` or ``0.02`` -> 0.02; a relative half-width in (0, 1)."""
    try:
        if isinstance(value, str):
            text = value.strip()
            x = float(text[:-1]) / 100 if text.endswith("%") else float(text)
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            x = float(value)
        else:
            raise ValueError
    except ValueError:
        raise CiError(f'{where}: {value!r} is not a relative half-width (e.g. "2%" or 0.02)') from None
    if not 0 < x < 1:
        raise CiError(f"{where}: {value!r} is out of range: allowed above 0% and below 100%")
    return x


@dataclass(frozen=True)
class CiTarget:
    target: float
    metrics: tuple[str, ...]
    min_replications: int = DEFAULT_MIN
    max_replications: int = DEFAULT_MAX

    @classmethod
    def from_dict(cls, d: dict[str, Any], default_metrics: Sequence[str] = ()) -> CiTarget:
        unknown = sorted(set(d) - {"target", "metrics", "min_replications", "max_replications"})
        if unknown:
            raise CiError(
                f"ci.{unknown[0]}: unknown key (allowed: max_replications, metrics, min_replications, target)"
            )
        if "target" not in d:
            raise CiError('ci.target: missing (the largest 95% CI half-width, relative to the mean, e.g. "2%")')
        target = parse_target(d["target"])
        metrics = d.get("metrics", list(default_metrics))
        if (
            isinstance(metrics, str)
            or not isinstance(metrics, list)
            or not metrics
            or not all(isinstance(m, str) for m in metrics)
        ):
            raise CiError(
                f'ci.metrics: {metrics!r} must be a non-empty list of result columns (e.g. ["flow.bulk.goodput_bps"]); default: report.metrics'
            )
        lo, hi = d.get("min_replications", DEFAULT_MIN), d.get("max_replications", DEFAULT_MAX)
        for key, v in (("min_replications", lo), ("max_replications", hi)):
            require_count(f"ci.{key}", v, 2, TWO_RUNS)
        if hi < lo:
            raise CiError(f"ci.max_replications: {hi} is below min_replications = {lo}")
        return cls(target, tuple(metrics), lo, hi)

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "metrics": list(self.metrics),
            "min_replications": self.min_replications,
            "max_replications": self.max_replications,
        }


@dataclass(frozen=True)
class PointCi:
    point: int
    replications: int
    #: metric -> 95% CI half-width relative to |mean| (None: fewer than 2 values, or mean 0 with spread)
    relative: dict[str, float | None]

    def met(self, target: float) -> bool:
        return all(r is not None and r <= target for r in self.relative.values())


def _relative(values: Sequence[Any]) -> float | None:
    e = mean_ci(values)
    if e.mean is None or e.half_width is None:
        return None
    if e.mean == 0:
        return 0.0 if e.half_width == 0 else None
    return e.half_width / abs(e.mean)


def status(rows: Sequence[dict[str, Any]], counts: dict[int, int], ci: CiTarget) -> list[PointCi]:
    """Each point's CI over its first ``counts[point]`` replications (finished runs beyond them,
    from an earlier longer sweep, are left out so that a resumed sweep decides as the first)."""
    by_point: dict[int, list[dict[str, Any]]] = {p: [] for p in counts}
    for r in rows:
        if r["point"] in counts and r["replication"] < counts[r["point"]]:
            by_point[r["point"]].append(r)
    missing = [m for m in ci.metrics if rows and m not in rows[0]]
    if missing:
        numeric = [
            k for k, v in rows[0].items() if isinstance(v, (int, float)) and not isinstance(v, bool) and "." in k
        ]
        raise CiError(f"ci.metrics: {missing[0]!r} is not a result column (for example: {', '.join(numeric[:6])})")
    return [
        PointCi(p, len(rs), {m: _relative([r.get(m) for r in rs]) for m in ci.metrics})
        for p, rs in sorted(by_point.items())
    ]


def next_counts(points: Sequence[PointCi], counts: dict[int, int], ci: CiTarget) -> dict[int, int]:
    """Double the replications of every point that misses the target and may grow."""
    grown = {}
    for p in points:
        n = counts[p.point]
        if not p.met(ci.target) and n < ci.max_replications:
            grown[p.point] = min(ci.max_replications, 2 * n)
    return grown


def write_record(out: Path, ci: CiTarget, points: Sequence[PointCi]) -> dict[str, Any]:
    record = {
        **ci.to_dict(),
        "points": [
            {
                "point": p.point,
                "replications": p.replications,
                "met": p.met(ci.target),
                "relative_half_width": p.relative,
            }
            for p in points
        ],
    }
    (out / "ci.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    return record


def describe(record: dict[str, Any]) -> str:
    pts = record["points"]
    met = sum(p["met"] for p in pts)
    reps = [p["replications"] for p in pts]
    line = f"ci target {record['target']:.2%} on {', '.join(record['metrics'])}: {met}/{len(pts)} points met it; replications per point {min(reps)}-{max(reps)} (total {sum(reps)})"
    missed = [p["point"] for p in pts if not p["met"]]
    if missed:
        line += f"; not met at max_replications = {record['max_replications']}: points {', '.join(map(str, missed))}"
    return line
