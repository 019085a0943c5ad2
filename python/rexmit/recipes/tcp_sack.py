"""Seed 001 (Nguyen & Sterbenz): ``rexmit reproduce tcp-sack``. The sweeps of Figs. 9–12, their
means and confidence intervals, and the index page; the plan (Table 1's network, variants, points,
the choices where the paper gives no number) is in ``tcp_sack_plan``, the claims in
``tcp_sack_claims``."""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

from rexmit import report as report_mod
from rexmit.recipes.common import Claim, run_recipe_sweep
from rexmit.recipes.tcp_sack_claims import claims as _tcp_sack_claims
from rexmit.recipes.tcp_sack_plan import (
    AXES,
    TCP_VARIANTS,
    TITLES,
)
from rexmit.recipes.tcp_sack_plan import (
    figures as _figures,
)
from rexmit.recipes.tcp_sack_plan import (
    runs as _runs,
)
from rexmit.recipes.tcp_sack_plan import (
    seed001_base as _seed001_base,
)
from rexmit.recipes.tcp_sack_plan import (
    variant_zip as _variant_zip,
)
from rexmit.sweep import Sweep
from rexmit.sweep import load as load_runs
from rexmit.view_pages import FlowViews


def _labels(name: str, key: str) -> dict[str, Any]:
    return {
        key: AXES[name],
        "flow.bulk.goodput_bps": {"name": "Goodput", "unit": "Mb/s"},
        "zip": [v[0] for v in TCP_VARIANTS],
    }


def _index(
    out: Path, quick: bool, stop: str, reps: int, claims: list[Claim], figures: dict[str, tuple[str, list[Any]]]
) -> Path:
    drawn = [
        report_mod.sweep_figure(out / name, "flow.bulk.goodput_bps", key, out / "figures", name, TITLES[name])
        for name, (key, _) in figures.items()
    ]
    intro = [
        "Seed 001 (Nguyen & Sterbenz): goodput of one TCP flow with Tahoe, Reno, NewReno, SACK and Westwood+ over Table 1's path "
        "(10 Mb/s access links, a 4 Mb/s bottleneck of 50 ms one way with an error model, 1500 B packets), as in Figs. 9-12. "
        f"{'Quick' if quick else 'Full'} version: {reps} runs of {stop} per point.",
        "Choices where the paper gives no number (ns-3 defaults of the time) are in the recipe's docstring (rexmit/recipes/tcp_sack_plan.py).",
    ]
    return report_mod.reproduction_index(out, "rexmit reproduce tcp-sack (seed 001)", intro, claims, drawn)


def _uniform(rate: float) -> list[dict[str, Any]]:
    return [{"kind": "uniform", "rate": rate, "direction": "forward"}]


def _means(out: Path, x_key: str) -> dict[tuple[str, Any], tuple[float, float]]:
    """Mean goodput and its 95% confidence half-width (Student t) per (variant, x) of a
    finished sweep."""
    rows = load_runs(out).to_pylist()
    acc: dict[tuple[str, Any], list[float]] = {}
    names = {(v[1], v[2]): v[0] for v in TCP_VARIANTS}
    for r in rows:
        variant = names[(r["param.apps[0].tcp.recovery"], r["param.apps[0].tcp.cc"])]
        acc.setdefault((variant, r[f"param.{x_key}"]), []).append(r["flow.bulk.goodput_bps"])
    return {k: (statistics.mean(v), _ci95(v)) for k, v in acc.items()}


def _ci95(xs: list[float]) -> float:
    """95% confidence half-width of the mean (Student t; 0 for a single run)."""
    if len(xs) < 2:
        return 0.0
    t = {2: 12.71, 3: 4.30, 4: 3.18, 5: 2.78, 6: 2.57, 7: 2.45, 8: 2.36, 9: 2.31, 10: 2.26}.get(len(xs), 2.0)
    return t * statistics.stdev(xs) / len(xs) ** 0.5


def tcp_sack(out: Path, quick: bool, jobs: int | None) -> list[Claim]:
    """Seed 001 (Nguyen & Sterbenz), Figures 9–12: average throughput of Tahoe, Reno, NewReno,
    SACK and Westwood+ vs burst error rate, packet error rate, bottleneck speed and delay (points
    and run lengths: `tcp_sack_plan.figures`, `tcp_sack_plan.runs`)."""
    stop, reps = _runs(quick)
    figures = _figures(quick)
    means: dict[str, dict[tuple[str, Any], tuple[float, float]]] = {}
    for name, (key, values) in figures.items():
        base = _seed001_base(stop)
        if name == "fig10_per":  # uncorrelated losses: ns-3's RateErrorModel in packet mode
            base["topology"]["links"][1]["errors"] = _uniform(1e-4)
        spec = {
            "name": f"seed 001 {name}",
            "replications": reps,
            "seed": 1,
            "base": base,
            "grid": {key: values},
            "zip": _variant_zip(),
            "report": {"x": key, "metrics": ["flow.bulk.goodput_bps"]},
            "labels": _labels(name, key),
        }
        sweep = Sweep.from_dict(spec)
        fig_dir = out / name
        run_recipe_sweep(sweep, fig_dir, jobs=jobs, views="bulk")
        report_mod.report(fig_dir, views=FlowViews("bulk"))  # one traced run per point, linked
        means[name] = _means(fig_dir, key)
    claims = _tcp_sack_claims(means, figures, enough=reps >= 5)
    _index(out, quick, stop, reps, claims, figures)
    return claims


__all__ = ["tcp_sack", "TCP_VARIANTS", "TITLES", "AXES"]
