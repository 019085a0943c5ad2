#!/usr/bin/env python3
"""Which of FreeBSD's choices lifts rexmit's goodput at seed 000's heavy load (issue 39's ninth
pass): seed 000's SCTP point (Fig. 5 dumbbell, INF buffer) run by rexmit with FreeBSD's choices
less one pin at a time (``--drop``), or by rexmit's defaults plus one pin (``--add``), on the
replications of validation/usrsctp_seed000.py (same start times).

    python -P validation/usrsctp_heavy.py [--load heavy] [--ack SACK] [--seeds 1-5] [--add]

Prints, per variant, the mean goodput, T3-rtx expiries and retransmissions per run.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

import rexmit
from rexmit.recipes import seed000_setup as setup

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from usrsctp import FREEBSD_PINS  # noqa: E402

# Every choice usrsctp_seed000.sctp_settings makes for the FreeBSD columns, by name.
CHOICES: dict[str, Any] = {k: v for k, v in FREEBSD_PINS.items() if k != "rto"}
CHOICES["rto.estimator"] = FREEBSD_PINS["rto"]["estimator"]
CHOICES["hb_jitter"] = True


def build(
    load: str,
    ack: str,
    seed: int,
    choices: dict[str, Any],
    usrsctp: bool = False,
    series: tuple[str, ...] = ("rtxq_bytes",),
) -> dict[str, Any]:
    timing = setup.Timing()
    topo, cross = setup.topology1(setup.LOADS[load])
    app = json.loads(json.dumps(setup.sctp_app("1GiB", ack == "NR-SACK", False)))
    for k, v in choices.items():
        if k == "rto.estimator":
            app["sctp"]["rto"] = {**app["sctp"].get("rto", {}), "estimator": v}
        else:
            app["sctp"][k] = v
    if usrsctp:
        app["stack"] = "usrsctp"
    data = setup.scenario(f"seed 000 sctp {load} INF {ack} (variant)", topo, [app, *cross], timing, series)
    return setup.draw_starts(data, seed, timing)


def run_one(load: str, ack: str, seed: int, choices: dict[str, Any]) -> dict[str, Any]:
    r = rexmit.run(rexmit.Scenario.from_dict(build(load, ack, seed, choices)))
    f = r.flow(setup.SCTP_APP)
    return {
        "goodput_bps": f.get("goodput_bps"),
        "timeouts": f.get("timeouts"),
        "retransmissions": f.get("retransmissions"),
    }


def stalls(load: str, ack: str, seed: int, stack: str, least_s: float) -> dict[str, Any]:
    """Goodput and the measured interval's stalls: stretches of at least ``least_s`` in which the
    receiver delivered nothing (sampled every 10 ms), which at heavy load are T3-rtx backoffs."""
    data = build(load, ack, seed, CHOICES if stack != "rexmit" else {}, stack == "usrsctp", ("bytes_delivered",))
    r = rexmit.run(rexmit.Scenario.from_dict(data))
    start = int(data["apps"][0]["warmup"].removesuffix("ns"))
    t, v = r.series[f"{setup.SCTP_APP}:bytes_delivered"]
    pts = [(ti / 1e9, x) for ti, x in zip(t, v, strict=True) if ti >= start and x == x]
    gaps, last_t, last_v = [], pts[0][0], pts[0][1]
    for ti, x in pts[1:]:
        if x != last_v:
            if ti - last_t >= least_s:
                gaps.append((last_t, ti - last_t))
            last_t, last_v = ti, x
    span = pts[-1][0] - pts[0][0]
    if pts[-1][0] - last_t >= least_s:
        gaps.append((last_t, pts[-1][0] - last_t))
    first = next((x for ti, x in pts if ti >= pts[0][0] + 10.0), pts[-1][1]) - pts[0][1]
    f = r.flow(setup.SCTP_APP)
    return {
        "goodput": f.get("goodput_bps") / 1e6,
        "t3": f.get("timeouts"),
        "stall_s": sum(g for _, g in gaps),
        "stalls": len(gaps),
        "longest_s": max((g for _, g in gaps), default=0.0),
        "span_s": span,
        "first10_mbps": first * 8 / 10.0 / 1e6,
    }


def seeds(spec: str) -> list[int]:
    lo, _, hi = spec.partition("-")
    return list(range(int(lo), int(hi or lo) + 1))


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--load", default="heavy", choices=tuple(setup.LOADS))
    ap.add_argument("--ack", default="SACK", choices=("SACK", "NR-SACK"))
    ap.add_argument("--seeds", default="1-5")
    ap.add_argument("--add", action="store_true", help="rexmit's defaults plus one choice (default: all less one)")
    ap.add_argument("--only", default=None, help="comma-separated choices to vary (default: every one)")
    ap.add_argument("--stalls", type=float, default=None, help="per stack, stalls of at least this many seconds")
    a = ap.parse_args(argv)
    if a.stalls is not None:
        for stack in ("rexmit", "rexmit-freebsd", "usrsctp"):
            for s in seeds(a.seeds):
                x = stalls(a.load, a.ack, s, stack, a.stalls)
                print(
                    f"{stack:15} rep {s:2} goodput {x['goodput']:.2f} T3 {x['t3']:4.0f} stalls {x['stalls']:2}"
                    f" {x['stall_s']:5.1f} s of {x['span_s']:.0f} (longest {x['longest_s']:4.1f})"
                    f" first 10 s {x['first10_mbps']:.2f} Mb/s",
                    flush=True,
                )
        return 0
    names = a.only.split(",") if a.only else list(CHOICES)
    variants: list[tuple[str, dict[str, Any]]] = [("rexmit", {}), ("freebsd", dict(CHOICES))]
    for n in names:
        if a.add:
            variants.append((f"+{n}", {n: CHOICES[n]}))
        else:
            variants.append((f"-{n}", {k: v for k, v in CHOICES.items() if k != n}))
    ss = seeds(a.seeds)
    for label, ch in variants:
        rs = [run_one(a.load, a.ack, s, ch) for s in ss]
        gp = [r["goodput_bps"] / 1e6 for r in rs]
        print(
            f"{label:22} goodput {statistics.mean(gp):.3f} Mb/s ({' '.join(f'{g:.2f}' for g in gp)})"
            f"  T3 {statistics.mean(r['timeouts'] for r in rs):.1f}"
            f"  rtx {statistics.mean(r['retransmissions'] for r in rs):.0f}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
