"""Deterministic drop lists shared by the peers and rexmit (the same-loss scenario of issue 7).

`uniform_segments(seed, rate)` draws, once and for all, which 0-based data segments lose their
first transmission: segment k is listed when the k-th draw of Python's Mersenne Twister seeded
with `seed` is below `rate` (`random.Random(seed).random()`, stable across Python versions). Each
simulator drops exactly these segments' first transmissions (ns-3: SegmentListErrorModel, ns-2:
the wrapper's `dropsegs`, rexmit: a scripted error model on TCP sequence numbers), so the loss
pattern is identical and only the algorithms differ. Retransmissions are never dropped.

`burst_segments(seed, rate)` is the same idea for burst loss (the `sameburst` scenario): walking
the segments in order with `random.Random(seed)`, a segment outside a burst starts one when its
draw is below `rate`; the burst's size is then drawn uniformly from `bmin..bmax` (2..5,
`randint`) and that segment and the next size - 1 are listed. No draw is made inside a burst
(rexmit's `burst` error model rule; the peers' random burst model may restart a burst, which at
rate 1e-3 changes well under 1% of the losses). Again first transmissions only.
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


def burst_segments(seed: int, rate: float, bmin: int = 2, bmax: int = 5, n: int = MAX_SEGMENTS) -> list[int]:
    r = random.Random(seed)
    out: list[int] = []
    k = 0
    while k < n:
        if r.random() < rate:
            size = r.randint(bmin, bmax)
            out.extend(range(k, min(k + size, n)))
            k += size
        else:
            k += 1
    return out


def bursts(segs: list[int]) -> list[list[int]]:
    """Runs of consecutive segment numbers in a drop list."""
    runs: list[list[int]] = []
    for s in segs:
        if runs and s == runs[-1][-1] + 1:
            runs[-1].append(s)
        else:
            runs.append([s])
    return runs


def segments(kind: str, seed: int, rate: float) -> list[int]:
    """The drop list of a same-loss kind: `sameloss` (uniform) or `sameburst`."""
    if kind == "sameloss":
        return uniform_segments(seed, rate)
    if kind == "sameburst":
        return burst_segments(seed, rate)
    raise ValueError(f"no drop list for loss kind {kind!r}")
