"""One metric vocabulary for TCP and SCTP (issue 17): the deprecated names and their
replacements. Every current metric, with its label and unit, is in the registry
:mod:`rexmit.metric_registry`.

Where the two protocols measure the same quantity they report it under the same name:
``retransmissions`` (TCP's ``retransmits`` before), ``rtxq_bytes`` / ``rtxq_bytes_max``
(TCP's ``rtx_queue_bytes`` / ``rtx_queue_bytes_max``), ``app_blocked_s`` and
``app_blocked_fraction`` (now reported by SCTP too). The old names are still accepted where
results are read (flow rows, time series, sweep report metrics), with a DeprecationWarning.

Names that look alike but measure different things keep their own names: TCP's
``recovery_mean_s`` is the mean duration of a loss-recovery episode (entering fast recovery or a
timeout to leaving it), SCTP's ``recovery_time_mean_s`` the mean time from a chunk's first
transmission to its first retransmission (seed 002 §IV.A); SCTP's ``send_blocked_*`` is the
time the retransmission queue alone fills the send buffer (seed 000 §II.B), not the
application's blocked time.
"""

from __future__ import annotations

import re
import warnings
from typing import Any

#: old name -> current name (the last component of a metric or series name).
DEPRECATED = {
    "retransmits": "retransmissions",
    "rtx_queue_bytes": "rtxq_bytes",
    "rtx_queue_bytes_max": "rtxq_bytes_max",
}

_LAST = re.compile(r"^(.*[.:])?([A-Za-z0-9_]+)((?:\.(?:mean|std|ci[0-9.]+))?)$")


def canonical(name: str, warn: bool = True) -> str:
    """``name`` with a deprecated last component replaced (``flow.bulk.retransmits`` ->
    ``flow.bulk.retransmissions``, ``bulk:rtx_queue_bytes`` -> ``bulk:rtxq_bytes``)."""
    m = _LAST.match(name)
    if m is None or m.group(2) not in DEPRECATED:
        return name
    new = f"{m.group(1) or ''}{DEPRECATED[m.group(2)]}{m.group(3)}"
    if warn:
        warnings.warn(
            f"metric name {name!r} is deprecated, use {new!r} (one name for TCP and SCTP)",
            DeprecationWarning,
            stacklevel=3,
        )
    return new


class Metrics(dict):  # type: ignore[type-arg]
    """A dict of metrics (or series) that also answers to the deprecated names."""

    def __missing__(self, key: Any) -> Any:
        if isinstance(key, str):
            new = canonical(key, warn=False)
            if new != key and dict.__contains__(self, new):
                canonical(key)
                return dict.__getitem__(self, new)
        raise KeyError(key)

    def __contains__(self, key: object) -> bool:
        if dict.__contains__(self, key):
            return True
        return (
            isinstance(key, str)
            and canonical(key, warn=False) != key
            and dict.__contains__(self, canonical(key, warn=False))
        )

    def get(self, key: Any, default: Any = None) -> Any:
        return self[key] if key in self else default
