"""The reproduction recipes, one module per seed paper. A recipe is a function
``(out: Path, quick: bool, jobs: Optional[int]) -> list[Claim]`` registered in ``RECIPES``."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Optional

from rexmit.recipes.buffer_sizing import buffer_sizing
from rexmit.recipes.common import Claim
from rexmit.recipes.nr_sack import nr_sack
from rexmit.recipes.rack_sctp import rack_sctp
from rexmit.recipes.tcp_sack import tcp_sack
from rexmit.recipes.thin_streams import thin_streams

Recipe = Callable[[Path, bool, Optional[int]], list[Claim]]

RECIPES: dict[str, Recipe] = {
    "tcp-sack": tcp_sack,
    "buffer-sizing": buffer_sizing,
    "nr-sack": nr_sack,
    "rack-sctp": rack_sctp,
    "thin-streams": thin_streams,
}

__all__ = ["Claim", "RECIPES", "Recipe"]
