"""One-command reproductions of the seed papers' experiments: ``rexmit reproduce NAME [--quick]``.

Each recipe builds the paper's scenarios as sweeps (``rexmit.sweep``), runs them, writes a
report per figure and checks the paper's qualitative claims against the results.
``claims.json`` records the claims with the run: quick or full, the replications of each
sweep, the rexmit version and the git revision it was built from (issue 19 §4), and the score:
claims held of those counted, sanity checks apart. Each claim has a stable ``id``, the paper's
number where it prints one (``paper``) and whether it is a sanity check (``sanity``, ``why``).
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
from pathlib import Path
from typing import Any

from rexmit.recipes import RECIPES, Claim
from rexmit.recipes.common import check_ids, decided, replications_at_least, score
from rexmit.recipes.common import ci_target as recipe_ci_target
from rexmit.report import refresh_index_claims

__all__ = ["RECIPES", "Claim", "reproduce", "load_claims", "claim_by_id", "score"]


def reproduce(
    name: str,
    out: Path,
    quick: bool = False,
    jobs: int | None = None,
    ci_target: str | None = None,
    ci_min: int | None = None,
    replications: int | None = None,
) -> list[Claim]:
    """Run recipe ``name``; writes per-figure sweep directories with reports and claims.json.
    A quick run decides no claim that fails: it says "needs the full run" (``holds`` None).
    ``ci_target`` (e.g. "5%"): each sweep's replications by confidence interval on its report
    metrics, from ``ci_min`` (default 3) up to the recipe's own count (issue 18;
    :func:`rexmit.recipes.common.ci_target`); claims.json records what each sweep needed.
    ``replications``: every sweep runs at least that many per point, the paper's count for
    instance (:func:`rexmit.recipes.common.replications_at_least`; not with ``quick``)."""
    if name not in RECIPES:
        raise KeyError(f"no reproduction named {name!r} (available: {', '.join(sorted(RECIPES))})")
    if replications is not None and quick:
        from rexmit.ci_target import CiError

        raise CiError("--replications: not with --quick (a quick run is sized to finish in about a minute)")
    out.mkdir(parents=True, exist_ok=True)
    with recipe_ci_target(ci_target, ci_min), replications_at_least(replications):
        claims = RECIPES[name](out, quick, jobs)
    check_ids(claims)
    stray = [c.id for c in claims if not c.id.startswith(f"{name}/")]
    if stray:
        raise ValueError(f"recipe {name}: claim ids must start with {name}/: {', '.join(stray)}")
    if quick:
        claims = [
            dataclasses.replace(c, holds=decided(bool(c.holds), False) if c.holds is not None else None) for c in claims
        ]
    elif ci_target is not None:
        # Fewer replications widen the intervals: an "alike" verdict needs the full run.
        claims = [dataclasses.replace(c, holds=None) if c.overlap and c.holds else c for c in claims]
    doc = {
        "recipe": name,
        "quick": quick,
        "replications": _replications(out),
        "replications_at_least": replications,
        "ci": _ci_records(out) if ci_target is not None else None,
        **_version(),
        "score": score(claims),
        "claims": [dataclasses.asdict(c) for c in claims],
    }
    (out / "claims.json").write_text(json.dumps(doc, indent=2) + "\n")
    refresh_index_claims(out)  # index.html's claims table as claims.json records them
    return claims


def load_claims(path: Path) -> list[dict[str, Any]]:
    """The claims of a claims.json (also the plain list written before it recorded the run)."""
    doc = json.loads(Path(path).read_text())
    return doc["claims"] if isinstance(doc, dict) else doc


def claim_by_id(claims: list[dict[str, Any]], claim_id: str) -> dict[str, Any]:
    """The claim with ``claim_id`` among a claims.json's claims (KeyError naming the ids there)."""
    for c in claims:
        if c.get("id") == claim_id:
            return c
    raise KeyError(f"no claim {claim_id!r} (claims: {', '.join(str(c.get('id')) for c in claims)})")


def _replications(out: Path) -> dict[str, Any]:
    """Per sweep, its replications (with a CI target: the most a point may run)."""
    reps = {}
    for spec in sorted(out.glob("*/sweep.json")):
        d = json.loads(spec.read_text())
        reps[spec.parent.name] = d["ci"]["max_replications"] if d.get("ci") else d.get("replications")
    return reps


def _ci_records(out: Path) -> dict[str, Any]:
    """Per sweep run with a CI target: the target and the runs it needed (``ci.json``)."""
    records = {}
    for path in sorted(out.glob("*/ci.json")):
        r = json.loads(path.read_text())
        reps = [p["replications"] for p in r["points"]]
        records[path.parent.name] = {
            "target": r["target"],
            "metrics": r["metrics"],
            "runs": sum(reps),
            "max_runs": r["max_replications"] * len(reps),
            "points_met": sum(p["met"] for p in r["points"]),
            "points": len(reps),
        }
    return records


def _git(here: Path, *args: str) -> str | None:
    try:
        return subprocess.run(["git", *args], cwd=here, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def _version() -> dict[str, str]:
    """The rexmit version and the git revision the results come from: the extension's build
    revision (else the checkout's HEAD), marked "+dirty" when the checkout the package runs
    from has uncommitted changes or another HEAD than the extension was built at."""
    import rexmit

    here = Path(__file__).resolve().parent
    head = _git(here, "rev-parse", "--short", "HEAD")
    rev = getattr(getattr(rexmit, "_core", None), "__git_revision__", None) or head or "unknown"
    changed = _git(here, "status", "--porcelain", "--untracked-files=no")
    if head is not None and (changed or not head.startswith(rev[:7])):
        rev += "+dirty"
    return {"rexmit_version": rexmit.__version__, "git_revision": rev}
