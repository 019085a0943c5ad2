#!/usr/bin/env python3
"""The start-up of an active-queue scenario alone (docs/validation.md, "Active queues against
ns-3.44"): validation/aqm.py's scenario cut to its first seconds, both simulators, per seed.

    python validation/aqm_startup.py ns3-codel-cubic-4 [--seconds 5] [--seeds 5]

Prints, per side, each seed's queue delay (p99 and mean, ms) and early drops over the cut run.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import aqm  # noqa: E402


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="+", choices=sorted(aqm.SCENARIOS))
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--seeds", type=int, default=5)
    ns = ap.parse_args(argv)
    for name in ns.names:
        sc = dataclasses.replace(aqm.SCENARIOS[name], duration=ns.seconds, warmup=min(1.0, ns.seconds / 2))
        for side in ("peer", "rexmit"):
            qs = [aqm.queue_numbers(sc, side, aqm.run_one(sc, side, s)) for s in range(1, ns.seeds + 1)]
            print(
                f"{name} first {ns.seconds:g} s {side:>6}: "
                f"p99 ms {[round(q['queue_delay_p99_s'] * 1e3, 1) for q in qs]} "
                f"mean ms {[round(q['queue_delay_mean_s'] * 1e3, 2) for q in qs]} "
                f"early {[int(q['drop_early']) for q in qs]}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
