"""One-command reproductions of the seed papers' experiments: ``rexmit reproduce NAME [--quick]``.

Each recipe builds the paper's scenarios as sweeps (``rexmit.sweep``), runs them, writes a
report per figure and checks the paper's qualitative claims against the results.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

from rexmit.recipes import RECIPES, Claim

__all__ = ["RECIPES", "Claim", "reproduce"]


def reproduce(name: str, out: Path, quick: bool = False, jobs: Optional[int] = None) -> list[Claim]:
    """Run recipe ``name``; writes per-figure sweep directories with reports and claims.json."""
    if name not in RECIPES:
        raise KeyError(f"no reproduction named {name!r} (available: {', '.join(sorted(RECIPES))})")
    out.mkdir(parents=True, exist_ok=True)
    claims = RECIPES[name](out, quick, jobs)
    (out / "claims.json").write_text(json.dumps([c.__dict__ for c in claims], indent=2) + "\n")
    return claims
