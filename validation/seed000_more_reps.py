#!/usr/bin/env python3
"""Seed 000: more replications of one point of the nr-sack recipe than its five
(docs/reproductions_causes.md, seed 000: *RtxQ_Util_L stays ~0.5* and *Fig. 11*).

Each replication is built as the recipe builds it (its topology, cross traffic and trace
window) and draws every start time from its own seed (``seed000_setup.draw_starts``), as the
recipe's replications do; the seeds come from ``random.Random(BASE)``. For an SCTP point it
prints each run's RtxQ_Util_L; for a CMT point it runs SACK and NR-SACK with the same seed and
prints the rtxq's mean over the trace window and its share of time above half the send buffer
(what Fig. 11's claim compares). Then the means with 95% confidence half-widths. JSON lines.

    python validation/seed000_more_reps.py sctp BUFFER LOAD N [BASE]   (e.g. sctp 64K medium 25)
    python validation/seed000_more_reps.py cmt BUFFER LOAD N [BASE]    (e.g. cmt 128K heavy 25)
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

import rexmit
from rexmit import report as report_mod
from rexmit.recipes import seed000_setup as setup
from rexmit.recipes.nr_sack_plan import CMT_BUFFERS, SCTP_BUFFERS
from rexmit.recipes.nr_sack_runs import cmt_build, rtxq_swing, sctp_build
from rexmit.stats import mean_ci


def one_run(data: dict[str, Any], seed: int) -> tuple[dict[str, Any], list[float], list[float], float]:
    """The SCTP/CMT flow's row, its rtxq series (times, bytes) and the trace window's start."""
    d = setup.draw_starts(data, seed, setup.Timing())
    app = next(a for a in d["apps"] if a["name"] == setup.SCTP_APP)
    since = float(report_mod.as_number(app["warmup"])[0] or 0.0)
    with tempfile.TemporaryDirectory() as out:
        res = rexmit.run(rexmit.Scenario.from_dict(d), out_dir=Path(out))
        series = res.to_pandas("series")
    rtxq = series[series["series"] == f"{setup.SCTP_APP}:rtxq_bytes"]
    flow = next(f for f in res.flows if f["name"] == setup.SCTP_APP)
    return flow, rtxq["t_s"].tolist(), rtxq["value"].tolist(), since


def main(argv: list[str]) -> int:
    if len(argv) not in (4, 5) or argv[0] not in ("sctp", "cmt"):
        sys.exit(__doc__)
    kind, buffer, load, n = argv[0], argv[1], argv[2], int(argv[3])
    rng = random.Random(int(argv[4]) if len(argv) == 5 else 1)
    build = (sctp_build if kind == "sctp" else cmt_build)(setup.Timing())
    buffers = SCTP_BUFFERS if kind == "sctp" else CMT_BUFFERS
    if buffer not in buffers or load not in setup.LOADS:
        sys.exit(f"BUFFER one of {sorted(buffers)}, LOAD one of {sorted(setup.LOADS)}")
    acks = ("SACK",) if kind == "sctp" else ("SACK", "NR-SACK")
    data = {ack: build({"load": load, "buffer": buffer, "ack": ack}) for ack in acks}
    cols: dict[str, list[float]] = {}
    for _ in range(n):
        seed = rng.getrandbits(62)
        row: dict[str, Any] = {"seed": seed}
        for ack in acks:
            flow, t, v, since = one_run(data[ack], seed)
            if kind == "sctp":
                row[f"{ack}.rtxq_util_l"] = flow["rtxq_util_l"]
            else:
                w = rtxq_swing(t, v, since, float(report_mod.as_number(buffers[buffer])[0] or 0.0))
                row[f"{ack}.rtxq_mean_kib"] = w.mean / 1024
                row[f"{ack}.above_half"] = w.above_half
        for k, x in row.items():
            if k != "seed":
                cols.setdefault(k, []).append(float(x))
        print(json.dumps(row), flush=True)
    summary = {k: (e.mean, e.half_width) for k, e in ((k, mean_ci(v)) for k, v in cols.items())}
    print(json.dumps({"runs": n, "mean_ci95": summary}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
