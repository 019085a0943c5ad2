#!/usr/bin/env python3
"""Per flow, the cycles between its CoDel drops, in both simulators (docs/validation_queues.md,
"Active queues against ns-3.44", FQ-CoDel with 2 flows after the start-up): for each drop from START
on, when it came, the ssthresh the sender set after it, and over the packets the flow put in the
queue since its previous drop, their mean, p99 and largest delay and the share above CoDel's TARGET.

    python validation/aqm_cycles.py ns3-fq_codel-newreno-2 --seed 1 --from 20 --peer-side peer-prr-rfc \\
        --ns3 ccs=newreno-rfc-exact,newreno-rfc-exact [--fq codel='{"newton_inv_sqrt": true}'] [--series 0.02]

Delays are enqueue to the start of transmission in both (ns-3: its `--delayLog`, queue disc
plus device; rexmit: R1's capture, validation/aqm_flows.py `rexmit_waits`); drop times as
aqm_flows.py `--from` gives them; ssthresh: ns-3's `--traceSsthresh`, rexmit's state trace.
`--series DT`: also each flow's mean delay per DT-second bin over the 1 s before each drop.
`--seeds N`: instead, per side and flow, the means over seeds 1..N of the drops from START (and
of those within 200 ms of the flow's previous drop), the time between them, the ssthresh after
them, how soon after a first drop a packet of the flow left below TARGET, and the delay.
"""

from __future__ import annotations

import argparse
import bisect
import csv
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import aqm  # noqa: E402
import aqm_flows  # noqa: E402
import multiflow  # noqa: E402
from compare import ci95  # noqa: E402

MSS = 1448  # both mirrors' segment size with timestamps
TARGET_S = 0.005
#: A drop within this of the flow's previous one is a "second drop": the same CoDel dropping
#: state lasted until its control law's next drop (INTERVAL after the first).
SECOND_WITHIN_S = 0.2


def peer_flows(sc: multiflow.MultiScenario, seed: int, start: float, extra: tuple[str, ...]) -> list[dict[str, Any]]:
    """ns-3 from `start` on, per flow: (enqueue s, delay s) of each packet, drop times, and
    (time, ssthresh segments) of each ssthresh change."""
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "delays.csv"
        cmd = [
            *multiflow.ns3_command(sc, seed),
            *extra,
            f"--delayFrom={start:g}",
            f"--delayLog={log}",
            "--traceSsthresh=1",
        ]
        res = json.loads(
            subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1]
        )
        rows = list(csv.reader(log.open()))
    by_src = res["aqm"]["queue_delay_after"]["by_source"]
    addrs = sorted((a for a in by_src if a.startswith("10.1.")), key=aqm_flows._addr_key)
    out = []
    for a, f in zip(addrs, res["flows"]):
        out.append(
            {
                "packets": sorted((float(t), float(d)) for s, t, d in rows if s == a),
                "drops": by_src[a]["drop_times_s"],
                # The first entry is the socket's initial ssthresh (2^32 - 1).
                "ssthresh": [(t, b / MSS) for t, b in f["ssthresh"] if b < 2**31 and t >= start],
                "goodput_bps": f["goodput_bps"],
            }
        )
    return out


def rexmit_flows(
    sc: multiflow.MultiScenario, seed: int, start: float, tcp: dict[str, Any], fq: dict[str, Any]
) -> list[dict[str, Any]]:
    """rexmit, as `peer_flows`."""
    from rexmit.plot import load_trace

    res, waits, drops = aqm_flows.rexmit_waits(sc, seed, tcp, fq, traced=True)
    out = []
    for i, a in enumerate(sorted(drops)):
        st = load_trace(res, f"f{i}").state
        changes = []
        last = None
        for t, b in zip(st["t"], st["ssthresh"]):
            if b != last and b < 2**40 and t >= start:
                changes.append((float(t), b / MSS))
            last = b
        out.append(
            {
                "packets": sorted((t * 1e-9, w * 1e-9) for s, t, w in waits if s == a and t >= start * 1e9),
                "drops": [t * 1e-9 for t in drops[a] if t is not None and t >= start * 1e9],
                "ssthresh": changes,
                "goodput_bps": res.flow(f"f{i}")["goodput_bps"],
            }
        )
    return out


def cycles(flow: dict[str, Any], start: float, series: float | None) -> list[str]:
    pk = flow["packets"]
    times = [t for t, _ in pk]
    lines = []
    prev = start
    for d in flow["drops"]:
        lo, hi = bisect.bisect_left(times, prev), bisect.bisect_left(times, d)
        ds = sorted(x for _, x in pk[lo:hi])
        after = [s for t, s in flow["ssthresh"] if d <= t <= d + 0.5]
        if ds:
            lines.append(
                f"    drop {d:8.3f} s  cycle {d - prev:6.3f} s  ssthresh {after[0] if after else float('nan'):6.1f}"
                f"  delay mean {statistics.fmean(ds) * 1e3:5.2f} p99 {aqm_flows.p99(ds) * 1e3:5.2f}"
                f" max {ds[-1] * 1e3:5.2f} ms  >TARGET {sum(x > TARGET_S for x in ds) / len(ds):5.1%}"
            )
        if series:
            bins = []
            t0 = d - 1.0
            while t0 < d - 1e-9:
                lo2, hi2 = bisect.bisect_left(times, t0), bisect.bisect_left(times, t0 + series)
                xs = [x for _, x in pk[lo2:hi2]]
                bins.append(f"{statistics.fmean(xs) * 1e3:4.1f}" if xs else "  - ")
                t0 += series
            lines.append("      " + " ".join(bins))
        prev = d
    ds = [x for _, x in pk]
    lines.append(
        f"    all from {start:g} s: {len(ds)} packets, mean {statistics.fmean(ds) * 1e3:.3f} ms,"
        f" p99 {aqm_flows.p99(ds) * 1e3:.2f} ms, {len(flow['drops'])} drops, ssthresh changes "
        + " ".join(f"{t:.3f}:{s:.1f}" for t, s in flow["ssthresh"])
    )
    return lines


def first_drops(d: list[float]) -> list[tuple[float, bool]]:
    """The drops of `d` (seconds, in order) with none in the `SECOND_WITHIN_S` before them, each
    with whether a second drop follows it."""
    return [
        (x, k + 1 < len(d) and d[k + 1] - x < SECOND_WITHIN_S)
        for k, x in enumerate(d)
        if not (k and x - d[k - 1] < SECOND_WITHIN_S)
    ]


def drain_ms(flow: dict[str, Any]) -> float:
    leaves = sorted((t + x, x) for t, x in flow["packets"])
    times = [t for t, _ in leaves]
    out = []
    for t0, _ in first_drops(flow["drops"]):
        i = bisect.bisect_right(times, t0)
        below = next((t for t, x in leaves[i:] if x < TARGET_S), None)
        if below is not None:
            out.append((below - t0) * 1e3)
    return statistics.fmean(out) if out else float("nan")


def summary(flow: dict[str, Any], start: float) -> dict[str, float]:
    d = flow["drops"]
    ss = [s for t, s in flow["ssthresh"]]
    ds = [x for _, x in flow["packets"]]
    return {
        "drops": len(d),
        # Drops that came within 200 ms of the flow's previous one: a CoDel dropping state
        # that lasted until its control law's next drop (INTERVAL after the first).
        "second_drops": sum(b - a < SECOND_WITHIN_S for a, b in zip(d, d[1:])),
        # After each first drop (none in the 200 ms before it), the time until a packet of the
        # flow leaves with a delay below TARGET: how soon the queue drained after the drop.
        "drain_ms": drain_ms(flow),
        "cycle_s": statistics.fmean(b - a for a, b in zip(d, d[1:])) if len(d) > 1 else float("nan"),
        "ssthresh": statistics.fmean(ss) if ss else float("nan"),
        "mean_ms": statistics.fmean(ds) * 1e3,
        "p99_ms": aqm_flows.p99(ds) * 1e3,
        "goodput_mbps": flow["goodput_bps"] / 1e6,
    }


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scenario", choices=sorted(aqm.SCENARIOS))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--from", dest="start", type=float, default=20.0)
    ap.add_argument("--side", choices=("both", "peer", "rexmit"), default="both")
    ap.add_argument("--peer-side", default="peer", choices=["peer", *aqm.ALIGNED_PEERS])
    ap.add_argument("--ns3", action="append", default=[], help="an ns-3 option, KEY=VALUE")
    ap.add_argument("--tcp", action="append", default=[], help="a rexmit TCP option, KEY=JSON")
    ap.add_argument("--fq", action="append", default=[], help="a rexmit fq_codel option, KEY=JSON")
    ap.add_argument("--series", type=float, help="bin width (s) of the delay series before each drop")
    ap.add_argument("--seeds", type=int, help="means over seeds 1..SEEDS instead of one seed's cycles")
    ns = ap.parse_args(argv)
    sc = aqm.SCENARIOS[ns.scenario]
    extra = (*(aqm.ALIGNED_PEERS[ns.peer_side][0] if ns.peer_side in aqm.ALIGNED_PEERS else ()),)
    extra += tuple(f"--{kv}" for kv in ns.ns3)
    tcp = {
        **aqm.REXMIT_TCP.get(sc.variants[0], {}),
        **{k: json.loads(v) for k, v in (kv.split("=", 1) for kv in ns.tcp)},
    }
    fq = {k: json.loads(v) for k, v in (kv.split("=", 1) for kv in ns.fq)}
    sides = {
        "ns-3": lambda seed: peer_flows(sc, seed, ns.start, extra),
        "rexmit": lambda seed: rexmit_flows(sc, seed, ns.start, tcp, fq),
    }
    for side, fn in sides.items():
        if ns.side not in ("both", "peer" if side == "ns-3" else "rexmit"):
            continue
        if ns.seeds:
            per, pooled = [], []
            for seed in range(1, ns.seeds + 1):
                flows = fn(seed)
                per.append([summary(f, ns.start) for f in flows])
                pooled.append([x for f in flows for _, x in f["packets"]])
            means = [statistics.fmean(p) * 1e3 for p in pooled]
            p99s = [aqm_flows.p99(p) * 1e3 for p in pooled]
            print(
                f"{side} all flows from {ns.start:g} s, seeds 1-{ns.seeds}: mean {statistics.fmean(means):.3f}"
                f" ± {ci95(means):.3f} ms, p99 {statistics.fmean(p99s):.2f} ± {ci95(p99s):.2f} ms"
                f" [{' '.join(f'{m:.2f}' for m in means)}]"
            )
            for i in range(len(sc.variants)):
                rows = [p[i] for p in per]
                print(
                    f"{side} flow {i} ({sc.rtts_ms[i]:g} ms), seeds 1-{ns.seeds}: "
                    + ", ".join(
                        f"{k} {statistics.fmean(r[k] for r in rows if r[k] == r[k]):.3f}"
                        f" [{' '.join(f'{r[k]:.2f}' for r in rows)}]"
                        for k in rows[0]
                    )
                )
            continue
        for i, f in enumerate(fn(ns.seed)):
            print(f"{side} flow {i} ({sc.rtts_ms[i]:g} ms), seed {ns.seed}:")
            print("\n".join(cycles(f, ns.start, ns.series)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
