#!/usr/bin/env python3
"""Loss recovery and the window between losses at seed 000's heavy load, in both FreeBSD stacks
(issue 39's tenth pass, docs/validation_freebsd_seed000.md: heavy load).

Runs usrsctp_seed000.py's SCTP point (Fig. 5's dumbbell, INF buffer) for each replication
given with rexmit (FreeBSD's choices, ``--set`` overriding any) and with usrsctp, pcaps at S
and R and the primary path's cwnd sampled every millisecond, and prints per stack over the
measured interval (from the warm-up's end):

- the time-weighted mean cwnd in MTUs (1 500 bytes) and the share of time at one MTU, below
  four MTUs (not one), 4-6, 6-8 and 8 or more;
- the cuts other than to one MTU (fast recovery): how many, cwnd after them, and the ratio;
- how the lost retransmissions were recovered: every TSN whose first retransmission was lost
  again (R's pcap: a later copy is the first to arrive), by what sent the copy that arrived.
  ``sack`` when the copy left S within 1.5 ms of a SACK's arrival and no timer-driven
  retransmission happened between the previous copy and this one (FreeBSD's re-fast-
  retransmission, ``fast_rtx_again``), ``t3`` otherwise (sent by a T3-rtx expiry or marked by
  one); T3 instants are the retransmissions that left S with no SACK arrival in the 1.5 ms
  before (both stacks tick their timers on simulated instants of their own, never at a SACK);
- the T3 instants themselves, and the time with the cwnd at one MTU in stretches of 100 ms or
  more (waiting for a backed-off T3-rtx).

    python validation/usrsctp_recovery.py 2 5 8
    python validation/usrsctp_recovery.py 2 5 8 --set fr_ssthresh_floor_mtus=4   # rexmit without it
    python validation/usrsctp_recovery.py 1 2 3 --ack NR-SACK --cmt 256K   # CMT: path 1's cwnd only
    python validation/usrsctp_recovery.py 1 --ack NR-SACK --cmt 256K --decreases   # rexmit's trace
"""

from __future__ import annotations

import argparse
import bisect
import collections
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import rexmit

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import usrsctp_seed000  # noqa: E402
from usrsctp_dups import transfer_view  # noqa: E402

MTU = 1500
NEAR_NS = 1_500_000  # a transmission within this of a SACK's arrival was sent for that SACK


def cwnd_view(pts: list[tuple[float, float]]) -> dict[str, Any]:
    share: collections.Counter[str] = collections.Counter()
    for _, x in pts:
        m = x / MTU
        share["1" if m <= 1.01 else "<4" if m < 3.99 else "4-6" if m < 6 else "6-8" if m < 8 else ">=8"] += 1
    cuts = [(a, b) for (_, a), (_, b) in zip(pts, pts[1:], strict=False) if b < a and b > 1.01 * MTU]
    ones, since = [], None
    for t, x in pts:
        if x <= 1.01 * MTU:
            since = t if since is None else since
        else:
            if since is not None and t - since >= 0.1:
                ones.append((round(since, 2), round(t - since, 2)))
            since = None
    return {
        "mean": statistics.mean(x for _, x in pts) / MTU,
        "share": {k: round(v / len(pts), 3) for k, v in sorted(share.items())},
        "fr_cuts": len(cuts),
        "after": statistics.mean(b for _, b in cuts) / MTU if cuts else 0.0,
        "ratio": statistics.mean(b / a for a, b in cuts) if cuts else 0.0,
        "ones": ones,
    }


def recovery_view(out: Path, start_ns: int) -> dict[str, Any]:
    sent, arrivals, sack_chunks = transfer_view(out)
    arrived = {tsn: v[0] for tsn, v in arrivals.items()}
    sacks = [t for t, _ in sack_chunks]

    def near_sack(t: int) -> bool:
        i = bisect.bisect_right(sacks, t) - 1
        return i >= 0 and t - sacks[i] <= NEAR_NS

    t3 = sorted({t for v in sent.values() for t in v[1:] if t >= start_ns and not near_sack(t)})
    # One expiry sends a packet or a few within a millisecond: count instants 10 ms apart.
    expiries = [t for i, t in enumerate(t3) if i == 0 or t - t3[i - 1] > 10_000_000]
    how: collections.Counter[str] = collections.Counter()
    first_rtx: collections.Counter[str] = collections.Counter()
    by_t3: list[str] = []
    base = min(sent) - 1
    for tsn, v in sent.items():
        if len(v) < 2 or v[0] < start_ns or tsn not in arrived:
            continue
        first_rtx["sack" if near_sack(v[1]) else "t3"] += 1
        # Which copy arrived first: the last one sent before its arrival.
        k = bisect.bisect_right(v, arrived[tsn]) - 1
        if k < 2:
            continue
        prev, this = v[k - 1], v[k]
        timer_between = any(prev < e <= this for e in expiries)
        kind = "sack" if near_sack(this) and not timer_between else "t3"
        how[kind] += 1
        if kind == "t3":
            by_t3.append(f"TSN {tsn - base} sent at " + ", ".join(f"{x / 1e9:.3f}" for x in v))
    return {
        "expiries": len(expiries),
        "first_rtx": dict(first_rtx),
        "lost_rtx_recovered_by": dict(how),
        "by_t3": by_t3,
    }


def traced_decreases(load_ack_buffer: tuple[str, str, str], seed: int) -> str:
    """rexmit with FreeBSD's choices, CMT: every cwnd decrease of each path in the measured
    interval from the run's trace (``trace_state``), sorted into T3-rtx cuts (to one MTU), cuts
    that leave cwnd = ssthresh, and decreases that leave cwnd above the new ssthresh (the same
    SACK grew cwnd after cutting it)."""
    import pyarrow.parquet as pq

    load, ack, buffer = load_ack_buffer
    data = usrsctp_seed000.build("cmt", load, buffer, ack, "rexmit-freebsd", seed)
    data.setdefault("metrics", {})["trace"] = [{"flow": usrsctp_seed000.setup.SCTP_APP}]
    start = int(data["apps"][0]["warmup"].removesuffix("ns"))
    with tempfile.TemporaryDirectory() as tmp:
        rexmit.run(rexmit.Scenario.from_dict(data), out_dir=tmp)
        rows = pq.read_table(Path(tmp) / "trace_state.parquet").to_pylist()
    kinds: collections.Counter[tuple[int, str]] = collections.Counter()
    above: dict[int, list[float]] = collections.defaultdict(list)
    last: dict[int, dict[str, Any]] = {}
    for row in rows:
        p, prev = row["path"], last.get(row["path"])
        last[p] = row
        if prev is None or row["t_ns"] < start or row["cwnd"] >= prev["cwnd"]:
            continue
        if row["cwnd"] <= MTU:
            kinds[(p, "to one MTU")] += 1
        elif row["cwnd"] == row["ssthresh"]:
            kinds[(p, "cwnd = ssthresh")] += 1
        else:
            kinds[(p, "cwnd above ssthresh")] += 1
            above[p].append((row["cwnd"] - row["ssthresh"]) / MTU)
    return f"rexmit-freebsd rep {seed:2}: decreases {dict(sorted(kinds.items()))}; cwnd above ssthresh by " + ", ".join(
        f"path {p} {statistics.mean(v):.2f} MTU" for p, v in sorted(above.items())
    )


def run(
    stack: str, seed: int, ack: str, overrides: dict[str, Any], detail: bool = False, cmt_buffer: str | None = None
) -> str:
    kind, buffer = ("cmt", cmt_buffer) if cmt_buffer else ("sctp", "INF")
    data = usrsctp_seed000.build(kind, "heavy", buffer, ack, stack, seed)
    if stack != "usrsctp":
        data["apps"][0]["sctp"].update(overrides)
    app = usrsctp_seed000.setup.SCTP_APP
    data["metrics"] = {"timeseries": [{"kind": "app", "app": app, "value": "cwnd_primary", "interval": "1ms"}]}
    s = rexmit.Scenario.from_dict(data)
    if not cmt_buffer:
        for node in ("S", "R"):
            s.pcap(node=node)
    start = int(data["apps"][0]["warmup"].removesuffix("ns"))
    with tempfile.TemporaryDirectory() as tmp:
        r = rexmit.run(s, out_dir=tmp)
        rec = recovery_view(Path(tmp), start) if not cmt_buffer else None
    f = r.flow(app)
    t, v = r.series[f"{app}:cwnd_primary"]
    cw = cwnd_view([(ti / 1e9, x) for ti, x in zip(t, v, strict=True) if ti >= start and x == x])
    if rec is None:
        return (
            f"{stack:14} rep {seed:2}: {f['goodput_bps'] / 1e6:.2f} Mb/s, T3-rtx {f['timeouts']:.0f}, path 1's mean cwnd"
            f" {cw['mean']:.2f} MTU, time at {cw['share']}; cuts not to one MTU {cw['fr_cuts']}"
            f" (cwnd after {cw['after']:.2f} MTU, ratio {cw['ratio']:.2f})"
        )
    return (
        f"{stack:14} rep {seed:2}: {f['goodput_bps'] / 1e6:.2f} Mb/s, mean cwnd {cw['mean']:.2f} MTU, time at"
        f" {cw['share']}\n"
        f"    fast-recovery cuts {cw['fr_cuts']} (cwnd after {cw['after']:.2f} MTU, ratio {cw['ratio']:.2f});"
        f" T3 instants {rec['expiries']}; one MTU for 0.1 s or more {cw['ones']}\n"
        f"    first retransmissions {rec['first_rtx']}; lost retransmissions recovered by"
        f" {rec['lost_rtx_recovered_by']}" + "".join(f"\n      by T3: {x}" for x in rec["by_t3"] if detail)
    )


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("seeds", type=int, nargs="+", help="replications")
    ap.add_argument("--ack", default="SACK", choices=("SACK", "NR-SACK"))
    ap.add_argument("--set", action="append", default=[], help="key=JSON value for rexmit's sctp table")
    ap.add_argument("--stacks", default="rexmit-freebsd,usrsctp")
    ap.add_argument("--detail", action="store_true", help="list the lost retransmissions a T3-rtx recovered")
    ap.add_argument("--cmt", default=None, metavar="BUFFER", help="CMT at this buffer (128K, 256K, INF): cwnd only")
    ap.add_argument("--decreases", action="store_true", help="with --cmt: rexmit's cwnd decreases from its trace")
    ns = ap.parse_args(argv)
    overrides = {k: json.loads(v) for k, _, v in (x.partition("=") for x in ns.set)}
    for seed in ns.seeds:
        if ns.decreases and ns.cmt:
            print(traced_decreases(("heavy", ns.ack, ns.cmt), seed), flush=True)
            continue
        for stack in ns.stacks.split(","):
            print(run(stack, seed, ns.ack, overrides, ns.detail, ns.cmt), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
