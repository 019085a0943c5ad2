"""Helpers shared by the reproduction recipes."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Optional


@dataclass
class Claim:
    """One qualitative claim of a paper, whether the run reproduced it, and the numbers.
    `holds` is None when the run was too small to decide (a quick run: "needs the full run")."""

    text: str
    holds: Optional[bool]
    numbers: str


def decided(holds: bool, enough: bool) -> Optional[bool]:
    """A claim's verdict from a run that may be too small to decide it: a claim that holds
    holds; one that does not is undecided (None) unless the run had `enough` replications."""
    return holds if holds or enough else None


def param_key(value: Any) -> Any:
    """A parameter value as the sweep table stores it: tables and lists as sorted-key JSON."""
    return json.dumps(value, sort_keys=True) if isinstance(value, (dict, list)) else value
