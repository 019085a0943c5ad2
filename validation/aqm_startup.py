#!/usr/bin/env python3
"""The start-up of an active-queue scenario alone (docs/validation_queues.md, "Active queues against
ns-3.44"): validation/aqm.py's scenario cut to its first seconds, both simulators, per seed.

    python validation/aqm_startup.py ns3-codel-cubic-4 [--seconds 5] [--seeds 5]
    python validation/aqm_startup.py ns3-codel-cubic-4 --flows 1 --peer-cc cubic-sample-trace \\
        --ns3 ns3::TcpCubic::HyStartDetect=DELAY --ns3 ns3::TcpCubic::HyStartDelayMax=5ms \\
        --tcp hystart_detect=2 --tcp slow_start_limit_segments=0 --rounds

Prints, per side, each seed's queue delay (p99 and mean, ms) and early drops over the cut run.
`--flows N` keeps the scenario's first N flows; `--peer-cc` runs every ns-3 flow with another
controller or variant (ns3_multi.py's names); `--ns3 KEY=VALUE` passes an ns-3 option or
attribute; `--tcp KEY=JSON` a rexmit TCP option (over aqm.py's). `--rounds` prints, per seed and
flow, where slow start ended in each simulator (the first ssthresh: time, segments) and, with a
`-trace` ns-3 controller (src/ns3_hystart_trace.h), ns-3's HyStart rounds: start, cwnd,
ACKs, the smallest of the first 8 RTT samples, ns-3's threshold and Linux's.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import aqm  # noqa: E402
import multiflow  # noqa: E402
from controllers import _pairs  # noqa: E402

# Payload bytes per segment in both mirrors (1500 - 40 - 12 bytes of timestamps).
MSS = 1448


def run_peer(sc: multiflow.MultiScenario, seed: int, cc: str | None, ns3: dict[str, str]) -> dict[str, Any]:
    """ns-3's run with the ssthresh trace (and the HyStart trace of a -trace controller)."""
    cmd = multiflow.ns3_command(sc, seed)
    if cc:
        cmd = [f"--ccs={','.join([cc] * len(sc.variants))}" if c.startswith("--ccs=") else c for c in cmd]
    cmd += [f"--{k}={v}" for k, v in ns3.items()] + ["--traceSsthresh=1"]
    res = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1])
    # The first entry is the socket's initial ssthresh (2^32 - 1).
    set_ = [[(t, b // MSS) for t, b in f["ssthresh"] if b < 2**31] for f in res["flows"]]
    exits = [e[0] if e else None for e in set_]
    return {"aqm": res["aqm"], "exits": exits, "hystart": res.get("hystart", {})}


def run_rexmit(sc: multiflow.MultiScenario, seed: int, tcp: dict[str, Any], rounds: bool) -> dict[str, Any]:
    import rexmit
    from rexmit.plot import load_trace

    s = multiflow.rexmit_scenario(sc, seed, {**(aqm.REXMIT_TCP.get(sc.variants[0]) or {}), **tcp})
    for i in range(len(sc.variants)) if rounds else ():
        s.trace(f"f{i}")
    res = rexmit.run(s)
    link = res.link("R1->R2")
    exits = []
    for i in range(len(sc.variants)) if rounds else ():
        st = load_trace(res, f"f{i}").state
        first = [k for k, v in enumerate(st["ssthresh"]) if v < 2**40]
        exits.append((float(st["t"][first[0]]), int(st["ssthresh"][first[0]]) // MSS) if first else None)
    return {"aqm": {k: link[k] for k in multiflow.AQM_LINK_METRICS}, "exits": exits}


def ns3_threshold(cc: str, ns3: dict[str, str]) -> Any:
    """ns-3's delay threshold as a function of delay_min (ms): Linux's for the -linuxthresh
    variant, else delay_min + clamp(delay_min, 4 ms, HyStartDelayMax as set)."""
    if "linuxthresh" in cc:
        return lambda d: d + min(max(d / 8, 4.0), 16.0)
    v = ns3.get("ns3::TcpCubic::HyStartDelayMax", "1s")
    dmax = float(v[:-2]) if v.endswith("ms") else float(v.rstrip("s")) * 1e3
    return lambda d: d + min(max(d, 4.0), dmax)


def hystart_rounds(rows: list[list[Any]], threshold: Any) -> list[str]:
    """ns-3's HyStart rounds from its trace rows (src/ns3_hystart_trace.h), one line each."""
    out, cur = [], None
    for kind, _t, cwnd, _ssth, _ack, _given, sample, dmin, rstart, _end, _cnt, _curr, found in rows:
        if cur is None or rstart != cur["start"]:
            cur = {"start": rstart, "cwnd": cwnd // MSS, "samples": [], "dmin": dmin, "found": False}
            out.append(cur)
        if kind == "A":
            cur["samples"].append(sample / 1e6)
            cur["dmin"], cur["found"], cur["last"] = dmin / 1e6, bool(found), cwnd // MSS
    lines = []
    for r in out:
        if not r["samples"]:
            continue
        d = r["dmin"]
        lines.append(
            f"    round {r['start'] / 1e9:.4f} s cwnd {r['cwnd']:4d}->{r['last']:4d} acks {len(r['samples']):3d} "
            f"first-8 min {min(r['samples'][:8]):5.1f} ms, threshold ns-3 {threshold(d):5.1f} "
            f"Linux {d + min(max(d / 8, 4.0), 16.0):5.1f}{' EXIT' if r['found'] else ''}"
        )
    return lines


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="+", choices=sorted(aqm.SCENARIOS))
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--flows", type=int, default=0, help="keep the first N flows (0: all)")
    ap.add_argument("--side", choices=("peer", "rexmit", "both"), default="both")
    ap.add_argument("--peer-cc", default="", help="ns-3 controller or variant for every flow")
    ap.add_argument("--ns3", action="append", default=[], help="an ns-3 option or attribute, KEY=VALUE")
    ap.add_argument("--tcp", action="append", default=[], help="a rexmit TCP option, KEY=VALUE (a JSON value)")
    ap.add_argument("--rounds", action="store_true", help="where slow start ended; ns-3's HyStart rounds")
    ns = ap.parse_args(argv)
    ns3 = _pairs(ns.ns3)
    tcp = {k: json.loads(v) for k, v in _pairs(ns.tcp).items()}
    for name in ns.names:
        sc = dataclasses.replace(aqm.SCENARIOS[name], duration=ns.seconds, warmup=min(1.0, ns.seconds / 2))
        if ns.flows:
            sc = dataclasses.replace(sc, variants=sc.variants[: ns.flows], rtts_ms=sc.rtts_ms[: ns.flows])
        for side in ("peer", "rexmit") if ns.side == "both" else (ns.side,):
            runs = [
                run_peer(sc, s, ns.peer_cc, ns3) if side == "peer" else run_rexmit(sc, s, tcp, ns.rounds)
                for s in range(1, ns.seeds + 1)
            ]
            qs = [aqm.queue_numbers(sc, side, r) for r in runs]
            p99 = [q["queue_delay_p99_s"] * 1e3 for q in qs]
            print(
                f"{name} first {ns.seconds:g} s {side:>6}: "
                f"p99 ms {[round(x, 1) for x in p99]} (mean {sum(p99) / len(p99):.1f}) "
                f"mean ms {[round(q['queue_delay_mean_s'] * 1e3, 2) for q in qs]} "
                f"early {[int(q['drop_early']) for q in qs]}",
                flush=True,
            )
            for seed, r in enumerate(runs, 1) if ns.rounds else ():
                ends = ", ".join(f"f{i} {e[0]:.3f} s {e[1]}" if e else f"f{i} -" for i, e in enumerate(r["exits"]))
                print(f"  seed {seed} first ssthresh: {ends}")
                for flow, rows in sorted(r.get("hystart", {}).items()):
                    print(f"   ns-3 f{flow} HyStart rounds:")
                    print("\n".join(hystart_rounds(rows, ns3_threshold(ns.peer_cc, ns3))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
