#!/usr/bin/env python3
"""ns-2.35 peer: one TCP bulk flow on the seed 001 Table 1 path (validation/src/ns2_tcp_single.tcl).

Arguments are the Tcl script's key=value pairs (see `opt` there), plus two handled here:
  dropsegs=K1,K2,...  drop the FIRST transmission of these 0-based data segments. ns-2 can only
                      drop by packet ordinal (ErrorModel/List), so each segment is resolved to
                      the ordinal of its first transmission on the bottleneck by re-running with
                      a packet trace (one extra run per segment; ns-2 is deterministic).
  record_rtx=1        list every retransmission as [send time at S, segment] and every error
                      drop as [time it would have reached G2, segment] (on with dropsegs/pkts).
Examples:
  python validation/ns2_tcp.py agent=Sack1 sink=Sack1DelAck loss=burst rate=1e-3 seed=2
  python validation/ns2_tcp.py agent=Newreno dropsegs=30,31 duration=10
Prints one JSON object.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TCL = HERE / "src" / "ns2_tcp_single.tcl"


def parse_rate(s: str) -> float:
    m = re.fullmatch(r"([0-9.eE+-]+)\s*([kKmMgG]?)(b|bps|B)?", s)
    if not m:
        raise ValueError(f"rate {s!r}")
    mult = {"": 1, "k": 1e3, "m": 1e6, "g": 1e9}[m.group(2).lower()]
    return float(m.group(1)) * mult * (8 if m.group(3) == "B" else 1)


def parse_delay(s: str) -> float:
    m = re.fullmatch(r"([0-9.eE+-]+)\s*(s|ms|us|ns)?", s)
    if not m:
        raise ValueError(f"delay {s!r}")
    return float(m.group(1)) * {None: 1, "s": 1, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}[m.group(2)]


def run_ns(args: dict[str, str]) -> dict:
    out = subprocess.run(
        ["ns", str(TCL), *[f"{k}={v}" for k, v in args.items()]], check=True, capture_output=True, text=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def read_trace(path: Path) -> tuple[list[tuple[float, int]], list[tuple[float, int, int]], list[tuple[float, int]]]:
    """Sends at S (enqueue on S->G1) as (t, seq), bottleneck departures (G1->G2 dequeue) as
    (t, seq, size) and transmission starts at S (S->G1 dequeue) as (t, seq). Node ids: S=0,
    G1=1, G2=2, D=3."""
    sends, departures, wire = [], [], []
    with open(path) as f:
        for line in f:
            p = line.split()
            if p[4] != "tcp":
                continue
            if p[2] == "0" and p[3] == "1":
                if p[0] == "+":
                    sends.append((float(p[1]), int(p[10])))
                elif p[0] == "-":
                    wire.append((float(p[1]), int(p[10])))
            elif p[0] == "-" and p[2] == "1" and p[3] == "2":
                departures.append((float(p[1]), int(p[10]), int(p[5])))
    return sends, departures, wire


def run_traced(args: dict[str, str]) -> tuple[dict, list, list, list]:
    with tempfile.TemporaryDirectory() as d:
        tr = Path(d) / "ns2.tr"
        res = run_ns({**args, "trace": str(tr)})
        sends, deps, wire = read_trace(tr)
    return res, sends, deps, wire


def retransmissions(sends: list[tuple[float, int]]) -> list[list]:
    """[time, seg] of every send of a segment at or below the highest one sent before."""
    high = -1
    out = []
    for t, s in sends:
        if s <= high:
            out.append([round(t, 9), s])
        high = max(high, s)
    return out


def main(argv: list[str]) -> int:
    wall0 = time.perf_counter()
    args: dict[str, str] = {}
    for a in argv:
        k, sep, v = a.partition("=")
        if not sep:
            sys.exit(f"argument without '=': {a}")
        args[k.lstrip("-")] = v
    dropsegs = sorted({int(x) for x in args.pop("dropsegs", "").split(",") if x})
    record = args.pop("record_rtx", "0") not in ("0", "", "false") or bool(dropsegs) or args.get("loss") == "pkts"
    extra: dict = {}
    resolve_runs = 0
    if dropsegs:
        # Resolve in bottleneck order: each run (with the ordinals found so far dropped) fixes the
        # pending segment whose first departure from G1 comes EARLIEST. A drop never changes what
        # went before it, so that ordinal stays valid once later ones are added. (Segment order is
        # not enough: a listed segment whose first transmission the G1 queue dropped first
        # departs as a retransmission, after later listed segments.)
        ordinals: list[int] = []
        resolved: dict[int, int] = {}
        pending = list(dropsegs)
        unresolved = []
        while pending:
            run_args = (
                {**args, "loss": "pkts", "droppkts": ",".join(map(str, ordinals))}
                if ordinals
                else {**args, "loss": "none"}
            )
            _, _, deps, _ = run_traced(run_args)
            resolve_runs += 1
            first: dict[int, int] = {}
            for i, (_, s, _) in enumerate(deps):
                if s in pending and s not in first and i + 1 > (ordinals[-1] if ordinals else 0):
                    first[s] = i + 1
            if not first:
                unresolved = sorted(pending)  # never sent (or never again) within the run
                break
            seg = min(first, key=first.get)
            ordinals.append(first[seg])
            resolved[seg] = first[seg]
            pending.remove(seg)
        args = {**args, "loss": "pkts", "droppkts": ",".join(map(str, ordinals))}
        extra = {
            "drop_segs": dropsegs,
            "resolved_drop_pkts": ordinals,
            "resolved_segs": resolved,
            "unresolved_segs": unresolved,
            "resolve_runs": resolve_runs,
        }
    if record:
        res, sends, deps, wire = run_traced(args)
        rtx = retransmissions(sends)
        rtx_wire = retransmissions(wire)
        dropped = {int(x) for x in args.get("droppkts", "").split(",") if x}
        rate = parse_rate(args.get("bottleneck_rate", "4Mb"))
        delay = parse_delay(args.get("bottleneck_delay", "50ms"))
        drops = [[round(t + size * 8 / rate + delay, 9), s] for i, (t, s, size) in enumerate(deps) if i + 1 in dropped]
        res.update(
            rtx=rtx[:5000],
            drops=drops[:5000],
            rtx_wire=rtx_wire[:5000],
            first_data_s=sends[0][0] if sends else None,
            first_data_wire_s=wire[0][0] if wire else None,
        )
    else:
        res = run_ns(args)
    res.update(extra)
    res["wall_total_s"] = round(time.perf_counter() - wall0, 6)
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
