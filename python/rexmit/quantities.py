"""Scenario quantities as numbers: ``"4Mbps"`` -> ``(4e6, "bit/s")``, ``"25ms"`` -> ``(0.025, "s")``.

Owns the quantity suffixes a scenario value may carry (those of
crates/rexmit-scenario/src/units.rs) and their SI units, so that a report can place ``"4Mbps"``
on a numeric axis and the views can find a flow's traced window. Not here: display units and
names (:mod:`rexmit.labels`).
"""

from __future__ import annotations

import re
from typing import Any

# Quantity suffixes of scenario values -> (factor, SI unit).
_UNITS: dict[str, tuple[float, str]] = {
    **{u: (1.0, "bit/s") for u in ("bps", "b/s")},
    **{u: (1e3, "bit/s") for u in ("kbps", "Kbps", "kb/s")},
    **{u: (1e6, "bit/s") for u in ("Mbps", "Mb/s")},
    **{u: (1e9, "bit/s") for u in ("Gbps", "Gb/s")},
    "ns": (1e-9, "s"),
    "us": (1e-6, "s"),
    "µs": (1e-6, "s"),
    "ms": (1e-3, "s"),
    "s": (1.0, "s"),
    "min": (60.0, "s"),
    "h": (3600.0, "s"),
    "B": (1.0, "B"),
    "KB": (1e3, "B"),
    "kB": (1e3, "B"),
    "MB": (1e6, "B"),
    "GB": (1e9, "B"),
    "KiB": (1024.0, "B"),
    "MiB": (1024.0**2, "B"),
    "GiB": (1024.0**3, "B"),
}
_QUANTITY = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([A-Za-zµ/]+)\s*$")


def as_number(value: Any) -> tuple[float | None, str]:
    """A parameter value as a number and its SI unit: ``"4Mbps"`` -> ``(4e6, "bit/s")``,
    ``0.01`` -> ``(0.01, "")``; ``(None, "")`` when it is not a quantity."""
    if isinstance(value, bool):
        return None, ""
    if isinstance(value, (int, float)):
        return float(value), ""
    if isinstance(value, str):
        m = _QUANTITY.match(value)
        if m and m.group(2) in _UNITS:
            factor, unit = _UNITS[m.group(2)]
            return float(m.group(1)) * factor, unit
    return None, ""
