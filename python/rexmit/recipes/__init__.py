"""The reproduction recipes, one per seed paper. A recipe is a function
``(out: Path, quick: bool, jobs: Optional[int]) -> list[Claim]`` registered in ``RECIPES``; its
module has the recipe's name (``rexmit.recipes.nr_sack.nr_sack``), and larger recipes keep their
plan, runs, claims and report in modules of their own (``nr_sack_plan``, ``thin_claims``, ...)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Optional

from rexmit.recipes import buffer_sizing, nr_sack, rack_sctp, tcp_sack, thin_streams
from rexmit.recipes.common import Claim

Recipe = Callable[[Path, bool, Optional[int]], list[Claim]]

RECIPES: dict[str, Recipe] = {
    "tcp-sack": tcp_sack.tcp_sack,
    "buffer-sizing": buffer_sizing.buffer_sizing,
    "nr-sack": nr_sack.nr_sack,
    "rack-sctp": rack_sctp.rack_sctp,
    "thin-streams": thin_streams.thin_streams,
}

__all__ = ["Claim", "RECIPES", "Recipe"]
