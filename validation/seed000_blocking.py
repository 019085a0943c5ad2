#!/usr/bin/env python3
"""Seed 000 §V.B: what the send-buffer blocking of one CMT run consists of
(docs/reproductions_causes.md, "§V.B, send-buffer blocking").

One run of the nr-sack recipe's topology-2 scenario (its cross traffic, start times and warm-up),
sampled every 10 ms; over the trace window it prints the fraction of samples at which
- ``full``: the rtxq leaves no room for the next message (the recipe's measure), and
- ``full_and_room``: that, while the windows leave room (§II.B's "O < C": Σ over paths of
  cwnd − flight > 0; ``..._mtu``: ≥ one message),
with the mean window room and flight, and the run's timeouts. One JSON line.

    python validation/seed000_blocking.py BUFFER LOAD ACK SEED     (e.g. 128K low SACK 1)
"""

from __future__ import annotations

import json
import sys

import rexmit
from rexmit import report as report_mod
from rexmit.recipes import seed000_setup as setup
from rexmit.recipes.nr_sack_plan import ACKS, CMT_BUFFERS, PATH2_LOAD

SERIES = ("rtxq_bytes", "flight_size", "cwnd_room_bytes")


def main(argv: list[str]) -> int:
    if len(argv) != 4:
        sys.exit(__doc__)
    buf, load, ack, seed = argv[0], argv[1], argv[2], int(argv[3])
    timing = setup.Timing()
    topo, apps = setup.topology2(setup.LOADS[load], setup.LOADS[PATH2_LOAD])
    sctp = setup.sctp_app(CMT_BUFFERS[buf], ACKS[ack], cmt=True)
    scn = setup.draw_starts(
        setup.scenario("seed 000 §V.B blocking probe", topo, [sctp, *apps], timing, series=SERIES), seed, timing
    )
    res = rexmit.run(scn)
    app = next(a for a in scn["apps"] if a["name"] == setup.SCTP_APP)
    warmup = float(report_mod.as_number(app["warmup"])[0] or 0.0)
    series: dict[str, dict[float, float]] = {}
    for row in res.series_table().to_pylist():
        name = next(s for s in SERIES if row["series"].endswith(s))
        series.setdefault(name, {})[row["t_s"]] = row["value"]
    rtxq, flight, room = (series[s] for s in SERIES)
    buffer = report_mod.as_number(CMT_BUFFERS[buf])[0] or 0.0
    times = [t for t in sorted(rtxq) if t >= warmup]
    full = [t for t in times if rtxq[t] + setup.MESSAGE_SIZE > buffer]
    n = len(times)
    print(
        json.dumps(
            {
                "buffer": buf,
                "load": load,
                "ack": ack,
                "seed": seed,
                "full": round(len(full) / n, 3),
                "full_and_room": round(sum(room[t] > 0 for t in full) / n, 3),
                "full_and_room_mtu": round(sum(room[t] >= setup.MESSAGE_SIZE for t in full) / n, 3),
                "mean_room_bytes": round(sum(room[t] for t in times) / n),
                "mean_flight_bytes": round(sum(flight[t] for t in times) / n),
                "timeouts": res.flow(setup.SCTP_APP).get("timeouts"),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
