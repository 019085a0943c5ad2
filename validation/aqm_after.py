#!/usr/bin/env python3
"""Queue delay after the start-up (docs/validation_queues.md, "Active queues against ns-3.44"): an
aqm.py scenario's mean and 99th-percentile queueing delay over the packets that entered the
bottleneck queue from FROM seconds on, beside the whole run's, in both simulators, per seed.

    python validation/aqm_after.py ns3-fq_codel-newreno-8 [--from 5] [--seeds 5] [--peer-side peer-prr-rfc]
        [--ns3 ccs=newreno-rfc-exact,newreno-rfc-exact] [--ns3 fqQuantum=1500 --fq quantum=1500]

ns-3: its recorder's `--delayFrom` (validation/src/ns3_aqm.h: queue disc plus device, enqueue to
the start of transmission). rexmit: a capture of R1 (validation/aqm_flows.py `rexmit_waits`:
each data packet's arrival at R1 to its start on R1->R2). The whole-run columns are each
simulator's own metric, for comparison with validation_aqm.md.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import aqm  # noqa: E402
import aqm_flows  # noqa: E402
import multiflow  # noqa: E402


def peer(
    sc: multiflow.MultiScenario, seed: int, start: float, side: str, extra: tuple[str, ...] = ()
) -> dict[str, float]:
    args = aqm.ALIGNED_PEERS[side][0] if side in aqm.ALIGNED_PEERS else ()
    a = multiflow.run_peer(sc, seed, (*args, *extra, f"--delayFrom={start:g}"))["aqm"]
    return {
        "mean": a["queue_delay_mean_s"],
        "p99": a["queue_delay_p99_s"],
        "mean_after": a["queue_delay_after"]["mean_s"],
        "p99_after": a["queue_delay_after"]["p99_s"],
    }


def ours(
    sc: multiflow.MultiScenario, seed: int, start: float, fq_codel: dict[str, Any] | None = None
) -> dict[str, float]:
    res, waits, _ = aqm_flows.rexmit_waits(sc, seed, fq_codel=fq_codel)
    link = res.link("R1->R2")
    after = [w * 1e-9 for _, t, w in waits if t >= start * 1e9]
    return {
        "mean": link["queue_delay_mean_s"],
        "p99": link["queue_delay_p99_s"],
        "mean_after": statistics.fmean(after),
        "p99_after": aqm_flows.p99(after),
    }


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="+", choices=sorted(aqm.SCENARIOS))
    ap.add_argument("--from", dest="start", type=float, default=5.0)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--peer-side", default="peer", choices=["peer", *aqm.ALIGNED_PEERS])
    ap.add_argument("--ns3", action="append", default=[], help="an ns-3 option, KEY=VALUE (after the side's)")
    ap.add_argument("--fq", action="append", default=[], help="a rexmit fq_codel option, KEY=JSON")
    ns = ap.parse_args(argv)
    extra = tuple(f"--{kv}" for kv in ns.ns3)
    fq = {k: json.loads(v) for k, v in (kv.split("=", 1) for kv in ns.fq)}
    for name in ns.names:
        sc = aqm.SCENARIOS[name]
        rows = {"ns-3": [], "rexmit": []}
        for seed in range(1, ns.seeds + 1):
            rows["ns-3"].append(peer(sc, seed, ns.start, ns.peer_side, extra))
            rows["rexmit"].append(ours(sc, seed, ns.start, fq))
        side = " ".join((ns.peer_side, *extra))
        print(f"{name} (ns-3 side: {side}; after {ns.start:g} s), ms per seed and mean:")
        for side, rs in rows.items():
            for k in ("mean", "p99", "mean_after", "p99_after"):
                vals = [r[k] * 1e3 for r in rs]
                print(
                    f"  {side:>6} {k:>10}: "
                    + " ".join(f"{v:6.2f}" for v in vals)
                    + f"  | {statistics.fmean(vals):6.2f}"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
