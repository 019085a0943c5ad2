"""Helpers shared by the reproduction recipes."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass
class Claim:
    """One qualitative claim of a paper, whether the run reproduced it, and the numbers."""

    text: str
    holds: bool
    numbers: str


def param_key(value: Any) -> Any:
    """A parameter value as the sweep table stores it: tables and lists as sorted-key JSON."""
    return json.dumps(value, sort_keys=True) if isinstance(value, (dict, list)) else value
