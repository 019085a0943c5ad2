"""Deterministic drop lists shared by the peers and rexmit (the same-loss scenario of issue 7).

`uniform_segments(seed, rate)` draws, once and for all, which 0-based data segments lose their
first transmission: segment k is listed when the k-th draw of Python's Mersenne Twister seeded
with `seed` is below `rate` (`random.Random(seed).random()`, stable across Python versions). Each
simulator drops exactly these segments' first transmissions (ns-3: SegmentListErrorModel, ns-2:
the wrapper's `dropsegs`, rexmit: a scripted error model on TCP sequence numbers), so the loss
pattern is identical and only the algorithms differ. Retransmissions are never dropped.
"""

from __future__ import annotations

import random

# Enough segments for 60 s at 4 Mb/s (about 20 700 full segments); lists stop here.
MAX_SEGMENTS = 20_000


def uniform_segments(seed: int, rate: float, n: int = MAX_SEGMENTS) -> list[int]:
    r = random.Random(seed)
    return [k for k in range(n) if r.random() < rate]


def as_arg(segs: list[int]) -> str:
    return ",".join(map(str, segs))
