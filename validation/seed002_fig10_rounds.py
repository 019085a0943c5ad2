#!/usr/bin/env python3
"""Seed 002, Fig. 10: the tail loss's mean recovery time at Max.Burst 4 and 3
(docs/reproductions_causes.md, seed 002: *Fig. 10, "reducing Max.Burst from 4 to 3 more than
halves the recovery time"*).

Each run is the recipe's tail-loss scenario (``rack_sctp._tail``: 2 000 messages of 1 000 B at
one per millisecond, the last 100 dropped) with the burst limit set. For each queue capacity
and limit it prints, as JSON lines, the recovery time (min, median, max over the seeds; the
paper's measure, §IV.A), the mean number of retransmissions and the seeds that had a T3-rtx
timeout. A queue of 1 000 packets drops nothing during recovery: it gives the loss-free
recovery time of each limit, the floor the shallow queues add to.

    python validation/seed002_fig10_rounds.py [SEEDS] [QUEUE ...]   (default: 20 5 10 1000)
"""

from __future__ import annotations

import json
import statistics
import sys
from typing import Any

import rexmit
from rexmit.recipes.rack_sctp import _tail
from rexmit.recipes.rack_sctp_plan import BURST_MITIGATION_KEY, MAX_BURST_KEY


def one(queue: int, mitigation: str, max_burst: int, seed: int) -> dict[str, Any]:
    scenario = rexmit.Scenario.from_dict(_tail(queue))
    scenario.set(BURST_MITIGATION_KEY, mitigation)
    scenario.set(MAX_BURST_KEY, max_burst)
    scenario.set("seed", seed)
    return rexmit.run(scenario).flow("sctp")


def main(argv: list[str]) -> None:
    seeds = int(argv[0]) if argv else 20
    queues = [int(q) for q in argv[1:]] or [5, 10, 1000]
    for queue in queues:
        for mitigation, limit in (("max_burst", 4), ("max_burst", 3), ("none", 4)):
            rows = [(s, one(queue, mitigation, limit, s)) for s in range(1, seeds + 1)]
            times = sorted(f["recovery_time_mean_s"] * 1e3 for _, f in rows)
            print(
                json.dumps(
                    {
                        "queue": queue,
                        "mitigation": mitigation,
                        "max_burst": limit if mitigation == "max_burst" else None,
                        "recovery_ms": {
                            "min": round(times[0], 1),
                            "median": round(statistics.median(times), 1),
                            "max": round(times[-1], 1),
                        },
                        "retransmissions_mean": statistics.mean(f["retransmissions"] for _, f in rows),
                        "seeds_with_timeouts": [s for s, f in rows if (f.get("timeouts") or 0) > 0],
                    }
                ),
                flush=True,
            )


if __name__ == "__main__":
    main(sys.argv[1:])
