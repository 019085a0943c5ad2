"""Seed 004 (Petlund et al., "Improving SCTP retransmission delays for time-dependent thin
streams"): ``rexmit reproduce thin-streams``.

The recipe in parts: :mod:`~rexmit.recipes.thin_plan` (what runs, the choices where the paper gives
no number, and the run sizes), :mod:`~rexmit.recipes.thin_scenarios` (the scenarios),
:mod:`~rexmit.recipes.thin_runs` (the sweeps and their results), :mod:`~rexmit.recipes.thin_claims`
(the paper's claims), :mod:`~rexmit.recipes.thin_figures` and :mod:`~rexmit.recipes.thin_report`
(figures and the index page).
"""

from __future__ import annotations

from pathlib import Path

from rexmit.recipes import thin_claims, thin_report, thin_runs
from rexmit.recipes.common import Claim
from rexmit.recipes.thin_plan import FULL, QUICK


def thin_streams(out: Path, quick: bool, jobs: int | None) -> list[Claim]:
    """Seed 004 §6: see :mod:`rexmit.recipes.thin_plan` for the setups, the choices and the run sizes."""
    plan = QUICK if quick else FULL
    out.mkdir(parents=True, exist_ok=True)
    dirs = thin_runs.run_latency(out, plan, jobs)
    fair = thin_runs.run_fairness(out, plan, jobs)
    presets = thin_runs.run_presets(out, plan, jobs)
    r = thin_runs.collect(dirs, fair, presets)
    claims = thin_claims.paper_claims(r)
    thin_report.index(out, r, claims, thin_report.draw_figures(r, out / "figures"), quick)
    return claims
