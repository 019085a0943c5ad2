"""Helpers shared by the reproduction recipes."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rexmit.sweep import Sweep, SweepResult


@dataclass(frozen=True)
class Claim:
    """One claim of a paper, whether the run reproduced it, and the numbers.

    ``id`` is stable (``recipe/short-name``): tests and documents find a claim by it, never by
    its text, which may be reworded. ``holds`` is None when the run was too small to decide (a
    quick run: "needs the full run"). ``paper`` is the paper's own number where it prints one
    (e.g. "81 ms"), shown beside rexmit's. A ``sanity`` claim cannot fail by construction or by
    definition (or checks the set-up, not the paper): it is reported apart and not counted in the
    score; ``why`` says why."""

    id: str
    text: str
    holds: bool | None
    numbers: str
    paper: str | None = None
    sanity: bool = False
    why: str | None = None
    #: Judged by confidence intervals that overlap ("alike", "no difference"): it gets easier
    #: to hold as the intervals widen, so a run with fewer replications than the recipe's (a
    #: `--ci-target` run) cannot decide it when it holds (issue 18).
    overlap: bool = False

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[a-z0-9-]+/[a-z0-9.-]+", self.id):
            raise ValueError(f"claim id {self.id!r}: must be recipe/name in lowercase letters, digits, '.' and '-'")
        if self.sanity and not self.why:
            raise ValueError(f"claim {self.id}: a sanity check must say why it cannot fail (why=...)")


def score(claims: Sequence[Claim]) -> dict[str, int]:
    """Counts of a run's claims: ``held`` of ``counted`` (sanity checks left out), ``undecided``
    (needs the full run) among them, and the ``sanity`` checks apart."""
    counted = [c for c in claims if not c.sanity]
    return {
        "held": sum(1 for c in counted if c.holds),
        "counted": len(counted),
        "undecided": sum(1 for c in counted if c.holds is None),
        "sanity": len(claims) - len(counted),
    }


def check_ids(claims: Sequence[Claim]) -> None:
    """Raises ValueError when two claims of a run share an id."""
    seen: set[str] = set()
    for c in claims:
        if c.id in seen:
            raise ValueError(f"claim id {c.id} appears twice")
        seen.add(c.id)


def decided(holds: bool, enough: bool) -> bool | None:
    """A claim's verdict from a run that may be too small to decide it: a claim that holds
    holds; one that does not is undecided (None) unless the run had `enough` replications."""
    return holds if holds or enough else None


def param_key(value: Any) -> Any:
    """A parameter value as the sweep table stores it: tables and lists as sorted-key JSON."""
    return json.dumps(value, sort_keys=True) if isinstance(value, (dict, list)) else value


#: The confidence-interval target of a ``rexmit reproduce --ci-target`` run (issue 18): the
#: ``[ci]`` table every recipe sweep gets, without max_replications (each sweep's own count).
_CI: dict[str, Any] | None = None


@contextmanager
def ci_target(target: str | None, min_replications: int | None = None) -> Iterator[None]:
    """Within the block, :func:`run_recipe_sweep` runs each sweep with replications chosen by
    confidence interval: ``min_replications`` (default 3) of every point first, then more,
    doubling, while a report metric's 95% CI half-width exceeds ``target`` (e.g. "5%") of its
    mean, up to the recipe's own replication count (never more runs than without the target)."""
    global _CI
    from rexmit.ci_target import DEFAULT_MIN, TWO_RUNS, CiError, parse_target, require_count

    if target is None:
        if min_replications is not None:
            raise CiError("--ci-min: needs --ci-target")
        yield
        return
    lo = require_count("--ci-min", DEFAULT_MIN if min_replications is None else min_replications, 2, TWO_RUNS)
    saved, _CI = _CI, {"target": parse_target(target, "--ci-target"), "min_replications": lo}
    try:
        yield
    finally:
        _CI = saved


#: ``rexmit reproduce --replications N`` (issue 19: the papers' own counts, e.g. 30): every
#: recipe sweep runs at least N replications per point.
_AT_LEAST: int | None = None


@contextmanager
def replications_at_least(n: int | None) -> Iterator[None]:
    """Within the block, :func:`run_recipe_sweep` runs every sweep with at least ``n``
    replications per point (a sweep with more keeps its own; its bound on runs, ``max_runs``,
    grows to fit). The added replications are the next seeds: the first ones are the plain
    run's, seed for seed. ``n`` only raises counts: fewer runs are ``ci_target``'s business."""
    global _AT_LEAST
    if n is not None:
        from rexmit.ci_target import require_count

        require_count("--replications", n, 1)
    saved, _AT_LEAST = _AT_LEAST, n
    try:
        yield
    finally:
        _AT_LEAST = saved


def run_recipe_sweep(spec: Sweep, out: Path, jobs: int | None, views: str | None = None) -> SweepResult:
    """Run a recipe's sweep: as it is, with at least :func:`replications_at_least`'s count,
    and/or under :func:`ci_target` with replications by confidence interval on the sweep's
    report metrics (a sweep of fewer replications than the minimum, a quick run's for
    instance, runs as it is). ``views``: the flow the sweep's report draws, traced in the first
    replication of every point as it runs (``run_sweep``)."""
    from rexmit.sweep import run_sweep

    if _AT_LEAST is not None and spec.ci is None and spec.replications < _AT_LEAST:
        spec.replications = _AT_LEAST
        spec.max_runs = max(spec.max_runs, spec.size())
    if _CI is not None and spec.ci is None and spec.replications > _CI["min_replications"]:
        spec.set_ci({**_CI, "max_replications": spec.replications})
    return run_sweep(spec, out, jobs=jobs, views=views)
