#!/usr/bin/env python3
"""The controllers of issue 37 (Vegas, Veno, Illinois, H-TCP, Hybla, YeAH, BIC, TCP-LP, LEDBAT)
against ns-3.44's TcpVegas, TcpVeno, ... with their default attributes: one bulk flow on seed
001's path (validation/src/ns3_tcp_single.cc), rexmit configured like it (compare.py's ns-3
mirror, PPP framing as in timelines.py).

    python validation/controllers.py run [CC ...] [--cases none,sameloss,...] [--seeds 10]
    python validation/controllers.py table         (docs/validation_controllers.md)
    python validation/controllers.py pair CC NS3_CC [--ns3 KEY=VALUE ...] [--param KEY=VALUE ...] [--tcp KEY=JSON ...]
        rexmit's CC (with cc_params) against one ns-3 controller or variant (with attributes), paired
        per seed over the cases: how a diagnostic alignment is measured (e.g. `pair yeah
        yeah-flightsize-delivered --ns3 ns3::TcpYeah::Phy=1 --param phy=1`,
        docs/validation_cc.md "YeAH"; `pair vegas vegas-sample --ns3 delAckCount=1
        --tcp ack_every=1`, "Vegas")

Cases: `none` (no loss: one deterministic run each, where the delay-based rules show), `sameloss`
(1%) and `sameburst` (bursts of 2-5 from 1e-3 per segment): the same first transmissions
dropped in both simulators (validation/droplists.py), paired per seed; `uniform` (1%) and
`burst` (1e-3): each simulator's own random stream. Recovery is RFC 6675 without PRR in both
(ns-3.44's PRR counts duplicate ACKs twice with SACK, docs/validation.md), so what differs is
the controller. Per run: goodput, retransmissions, timeouts and the congestion window (ns-3's
every change, rexmit's every 50 ms), reduced to its time average after 5 s and, for `none`,
its mean distance to ns-3's at the same instants. Saved: validation/results/cc_<cc>_<case>.json.
Competing flows of these controllers are multiflow.py's `ns3-*-vs-*` scenarios.
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results"
sys.path.insert(0, str(HERE))

import compare  # noqa: E402
import droplists  # noqa: E402
import timelines  # noqa: E402
from compare import ci95  # noqa: E402

CONTROLLERS = ("vegas", "veno", "illinois", "htcp", "hybla", "yeah", "bic", "lp", "ledbat")
# ns-3.44's Illinois, Hybla, BIC and YeAH grow by every acknowledged segment; rexmit does so with
# byte_counting (docs/congestion_control.md). Veno, H-TCP and TCP-LP count ACKs as ns-3's NewReno
# does; LEDBAT's rule is in bytes either way.
BYTE_COUNTING = {"illinois", "hybla", "bic", "yeah"}
# Diagnostic ns-3 variants (src/ns3_rtt_sample_variants.h), each run beside ns-3's own: ns-3.44
# hands these controllers the smoothed RTT where their papers (and rexmit) use RTT samples
# (`-sample`: ns-3's controller given the samples); Hybla recomputes rho only when that smoothed
# RTT equals the minimum (`-minrtt`: given the minimum, so rho = min RTT / RTT0;
# `-minrtt-delivered`: also growing on the ACK that ends a recovery by what it delivers only).
DIAGNOSTIC = {cc: [f"{cc}-sample"] for cc in ("vegas", "veno", "illinois", "htcp", "yeah")} | {
    "hybla": ["hybla-minrtt", "hybla-minrtt-delivered"]
}
# Aligned comparisons, each run beside the rows above: one ns-3 deviation (or a setting the
# comparison depends on) made the same on both sides, so that what remains is the rule itself
# (docs/validation_cc.md explains each). (label, ns-3 controller, ns-3 options or attributes,
# rexmit cc_params, rexmit TCP options).
ALIGNED: dict[str, list[tuple[str, str, dict[str, str], dict[str, float], dict[str, Any]]]] = {
    # ns-3's BaseRTT is a sample no later delayed ACK can repeat: an ACK for every segment; and
    # ns-3's slow start grows every round (rexmit's, as the paper's §3.3, every other round).
    "vegas": [
        (
            "aligned: vegas-sample, ACK every segment, slow start every round",
            "vegas-sample",
            {"delAckCount": "1"},
            {"slow_start_hold": 0},
            {"ack_every": 1},
        )
    ],
    # ns-3.44's 1/m_phy is integer 0: phy = 1 in both; its pipe base and exit-ACK growth aligned.
    "yeah": [
        (
            "aligned: yeah-flightsize-delivered, phy = 1",
            "yeah-flightsize-delivered",
            {"ns3::TcpYeah::Phy": "1"},
            {"phy": 1},
            {},
        )
    ],
    # ns-3.44's fast convergence sets W_max = beta·cwnd: off in both.
    "bic": [
        (
            "aligned: bic, fast convergence off",
            "bic",
            {"ns3::TcpBic::FastConvergence": "0"},
            {"fast_convergence": 0},
            {},
        )
    ],
}
CASES: dict[str, float] = {"none": 0.0, "sameloss": 0.01, "sameburst": 0.001, "uniform": 0.01, "burst": 0.001}
DURATION = 60.0
CWND_FROM = 5.0  # s: the time-averaged window leaves out slow start
SAMPLE = 0.05  # s: rexmit's window samples
NS3_SEGMENT = 1448  # ns-3's SegmentSize with timestamps
BAND = 0.05


def rexmit_tcp(
    cc: str, cc_params: dict[str, float] | None = None, tcp_options: dict[str, Any] | None = None
) -> dict[str, Any]:
    tcp = {**compare.NS3_TCP, "recovery": "sack", "prr": False, "cc": cc, **(tcp_options or {})}
    if cc_params:
        tcp["cc_params"] = cc_params
    if cc in BYTE_COUNTING:
        tcp["byte_counting"] = True
    return tcp


def ns3_options(cc: str, case: str, seed: int) -> dict[str, str]:
    opts = {"cc": cc, "sack": "1", "recovery": "classic", "seed": str(seed), "duration": f"{DURATION:g}"}
    opts["traceCwnd"] = "1"
    rate = CASES[case]
    if case == "none":
        opts["loss"] = "none"
    elif case in ("uniform", "burst"):
        opts.update(loss=case, rate=str(rate))
    else:
        opts.update(loss="segs", dropSegs=droplists.as_arg(droplists.segments(case, seed, rate)))
    return opts


def time_average(points: list[tuple[float, float]], t0: float, t1: float) -> float:
    """The time average over [t0, t1] of the step function through `points` (time, value)."""
    area, prev_t, prev_v = 0.0, t0, None
    for t, v in points:
        if t > t0 and prev_v is not None:
            area += prev_v * (min(t, t1) - prev_t)
            prev_t = min(t, t1)
        if t >= t1:
            break
        prev_v = v
        prev_t = max(prev_t, t)
    if prev_v is not None and prev_t < t1:
        area += prev_v * (t1 - prev_t)
    return area / (t1 - t0)


def value_at(points: list[tuple[float, float]], t: float) -> float:
    """The step function through `points` at `t` (the last change at or before it)."""
    v = points[0][1]
    for pt, pv in points:
        if pt > t:
            break
        v = pv
    return v


@functools.cache
def ns3_binary() -> Path:
    """The ns-3 scenario, compiled once per process (edits to its sources during a long run do
    not reach the run)."""
    import ns3_tcp

    return ns3_tcp.build()


def run_ns3(cc: str, case: str, seed: int, attributes: dict[str, str] | None = None) -> dict[str, Any]:
    """ns-3's run; `attributes` sets ns-3 attribute defaults (e.g. ns3::TcpBic::FastConvergence)."""
    opts = ns3_options(cc, case, seed) | (attributes or {})
    out = subprocess.run(
        [str(ns3_binary()), *[f"--{k}={v}" for k, v in opts.items()]], check=True, capture_output=True, text=True
    )
    res = json.loads(out.stdout.strip().splitlines()[-1])
    cwnd = [(t, b / NS3_SEGMENT) for t, b in res["cwnd"]]
    return {
        "cc": cc,
        "seed": seed,
        "goodput_bps": res["goodput_bps"],
        "retransmissions": res["retransmissions"],
        "timeouts": res["timeouts"],
        "cwnd": cwnd,
    }


def run_rexmit(
    cc: str,
    case: str,
    seed: int,
    probe: tuple[int, int],
    cc_params: dict[str, float] | None = None,
    tcp_options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    import rexmit

    m = compare.Mirror(tcp=rexmit_tcp(cc, cc_params, tcp_options))
    rate = CASES[case]
    if case == "none":
        errors: list[dict[str, Any]] = []
    elif case in ("uniform", "burst"):
        errors = [compare.error_model(case, rate)]
    else:
        errors = [timelines.scripted_error(droplists.segments(case, seed, rate), *probe)]
    s = timelines.path_scenario(m, seed, DURATION, True, errors)
    s.timeseries("app", f"{SAMPLE * 1e3:g}ms", app="bulk", value="cwnd")
    res = rexmit.run(s)
    f = res.flow("bulk")
    smss = rexmit_tcp(cc)["mss"] - 12  # the timestamps option's 12 bytes come off the MSS (RFC 6691 §3)
    cwnd = [(x["t_s"], x["value"] / smss) for x in res.series_table().to_pylist() if x["series"] == "bulk:cwnd"]
    return {
        "seed": seed,
        "goodput_bps": f["goodput_bps"],
        "retransmissions": f["retransmissions"],
        "timeouts": f["timeouts"],
        "cwnd": cwnd,
    }


def mean_ci(xs: list[float]) -> dict[str, float]:
    return {"mean": statistics.fmean(xs), "ci": ci95(xs)}


def summarize(case: str, peer: list[dict[str, Any]], ours: list[dict[str, Any]]) -> dict[str, Any]:
    """Means over seeds of each side; goodput's difference paired per seed where the losses are
    the same (none, sameloss, sameburst), of the means otherwise; the time-averaged window."""
    out: dict[str, Any] = {"case": case, "seeds": len(peer), "peer_cc": peer[0]["cc"]}
    for side, runs in (("peer", peer), ("rexmit", ours)):
        out[side] = {k: mean_ci([float(r[k]) for r in runs]) for k in ("goodput_bps", "retransmissions", "timeouts")}
        out[side]["cwnd_avg"] = mean_ci([time_average(r["cwnd"], CWND_FROM, DURATION) for r in runs])
    gp, go = out["peer"]["goodput_bps"], out["rexmit"]["goodput_bps"]
    if case in ("uniform", "burst"):
        out["goodput_rel"] = go["mean"] / gp["mean"] - 1
        overlap = abs(go["mean"] - gp["mean"]) <= go["ci"] + gp["ci"]
    else:
        rel = [o["goodput_bps"] / p["goodput_bps"] - 1 for p, o in zip(peer, ours)]
        out["goodput_rel"] = statistics.fmean(rel)
        out["goodput_rel_range"] = [min(rel), max(rel)]
        overlap = False
    out["cwnd_rel"] = out["rexmit"]["cwnd_avg"]["mean"] / out["peer"]["cwnd_avg"]["mean"] - 1
    if case == "none":
        # The window's trajectory: mean |rexmit − ns-3| at rexmit's sample instants, relative to
        # ns-3's mean window.
        p, o = peer[0]["cwnd"], ours[0]["cwnd"]
        gaps = [abs(v - value_at(p, t)) for t, v in o]
        out["cwnd_distance"] = statistics.fmean(gaps) / statistics.fmean(value_at(p, t) for t, _ in o)
    if abs(out["goodput_rel"]) <= BAND:
        out["verdict"] = "agree"
    else:
        out["verdict"] = "CIs overlap" if overlap else "differs"
    return out


def stored(run: dict[str, Any]) -> dict[str, Any]:
    """What a saved run keeps: its counters, the time-averaged window and the window every 0.5 s
    (the raw traces run to megabytes)."""
    cwnd = run["cwnd"]
    return {
        **{k: v for k, v in run.items() if k != "cwnd"},
        "cwnd_avg": time_average(cwnd, CWND_FROM, DURATION),
        "cwnd_every_500ms": [round(value_at(cwnd, k / 2), 2) for k in range(int(DURATION * 2) + 1)],
    }


def saved(cc: str, case: str) -> Path:
    return RESULTS / f"cc_{cc}_{case}.json"


def run(cc: str, case: str, seeds: int) -> dict[str, Any]:
    """rexmit and ns-3 (and ns-3's `-sample` variant where there is one) over the seeds."""
    probe = timelines.probe_iss(compare.Mirror(tcp=rexmit_tcp(cc)), 1, True)
    ss = [1] if case == "none" else list(range(1, seeds + 1))
    ours = [run_rexmit(cc, case, s, probe) for s in ss]
    doc: dict[str, Any] = {"cc": cc, "rexmit": ours, "peers": {}, "summaries": {}}
    for peer_cc in [cc, *DIAGNOSTIC.get(cc, [])]:
        peer = [run_ns3(peer_cc, case, s) for s in ss]
        doc["summaries"][peer_cc] = summarize(case, peer, ours)
        doc["peers"][peer_cc] = [stored(r) for r in peer]
    for label, ns3_cc, attributes, params, tcp in ALIGNED.get(cc, []):
        peer, both = run_aligned(cc, ns3_cc, case, ss, attributes, params, tcp)
        doc["summaries"][label] = summarize(case, peer, both) | {"peer_cc": label}
        doc["peers"][label] = [stored(r) for r in peer]
        doc.setdefault("rexmit_aligned", {})[label] = [stored(r) for r in both]
    doc["rexmit"] = [stored(r) for r in ours]
    path = saved(cc, case)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc) + "\n")
    return doc


def brief(cc: str, s: dict[str, Any]) -> str:
    p, o = s["peer"], s["rexmit"]
    dist = f" trajectory {s['cwnd_distance']:.0%}" if "cwnd_distance" in s else ""
    return (
        f"{cc:16s} {s['case']:9s} goodput {p['goodput_bps']['mean'] / 1e6:.3f} / {o['goodput_bps']['mean'] / 1e6:.3f} "
        f"({s['goodput_rel']:+.1%}) {s['verdict']}; rtx {p['retransmissions']['mean']:.1f} / "
        f"{o['retransmissions']['mean']:.1f}; RTOs {p['timeouts']['mean']:.1f} / {o['timeouts']['mean']:.1f}; "
        f"cwnd {p['cwnd_avg']['mean']:.1f} / {o['cwnd_avg']['mean']:.1f} ({s['cwnd_rel']:+.1%}){dist}"
    )


def run_aligned(
    cc: str,
    ns3_cc: str,
    case: str,
    seeds: list[int],
    attributes: dict[str, str],
    params: dict[str, float],
    tcp_options: dict[str, Any] | None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """ns-3's `ns3_cc` with `attributes` and rexmit's `cc` with `params` and `tcp_options`, over
    the seeds (an ALIGNED row, or `pair`)."""
    probe = timelines.probe_iss(compare.Mirror(tcp=rexmit_tcp(cc, params, tcp_options)), 1, True)
    peer = [run_ns3(ns3_cc, case, s, attributes) for s in seeds]
    ours = [run_rexmit(cc, case, s, probe, params or None, tcp_options) for s in seeds]
    return peer, ours


def pair(
    cc: str,
    ns3_cc: str,
    attributes: dict[str, str],
    params: dict[str, float],
    cases: list[str],
    seeds: int,
    tcp_options: dict[str, Any] | None = None,
) -> None:
    """Print rexmit's `cc` against ns-3's `ns3_cc` per case: goodput means (95% CI), the paired
    difference and its range, and retransmissions (not saved: a diagnostic)."""
    for case in cases:
        ss = list(range(1, 2 if case == "none" else seeds + 1))
        peer, ours = run_aligned(cc, ns3_cc, case, ss, attributes, params, tcp_options)
        rel = [o["goodput_bps"] / p["goodput_bps"] - 1 for p, o in zip(peer, ours)]
        cols = []
        for name, runs in ((ns3_cc, peer), (cc, ours)):
            g = [r["goodput_bps"] / 1e6 for r in runs]
            rtx = statistics.fmean(r["retransmissions"] for r in runs)
            cols.append(f"{name} {statistics.fmean(g):.3f} ± {ci95(g):.3f} Mb/s, {rtx:.1f} rtx")
        print(
            f"{case}: {cols[0]} | {cols[1]} | paired {statistics.fmean(rel):+.1%} ({min(rel):+.1%} .. {max(rel):+.1%})"
        )


def _pairs(items: list[str]) -> dict[str, str]:
    out = {}
    for it in items:
        key, sep, value = it.partition("=")
        if not sep:
            raise SystemExit(f"expected KEY=VALUE, got {it!r}")
        out[key] = value
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("ccs", nargs="*", default=list(CONTROLLERS))
    r.add_argument("--cases", default=",".join(CASES))
    r.add_argument("--seeds", type=int, default=10)
    p = sub.add_parser("pair")
    p.add_argument("cc")
    p.add_argument("ns3_cc")
    p.add_argument("--ns3", action="append", default=[], help="an ns-3 attribute, KEY=VALUE")
    p.add_argument("--param", action="append", default=[], help="a rexmit cc_params entry, KEY=VALUE")
    p.add_argument("--tcp", action="append", default=[], help="a rexmit TCP option, KEY=VALUE (a JSON value)")
    p.add_argument("--cases", default=",".join(CASES))
    p.add_argument("--seeds", type=int, default=10)
    t = sub.add_parser("table")
    t.add_argument("--out", default=str(ROOT / "docs" / "validation_controllers.md"))
    ns = ap.parse_args(argv)
    if ns.cmd == "pair":
        params = {k: float(v) for k, v in _pairs(ns.param).items()}
        tcp = {k: json.loads(v) for k, v in _pairs(ns.tcp).items()}
        pair(ns.cc, ns.ns3_cc, _pairs(ns.ns3), params, ns.cases.split(","), ns.seeds, tcp)
        return 0
    if ns.cmd == "table":
        import controllers_tables

        Path(ns.out).write_text(controllers_tables.render(CONTROLLERS, list(CASES), saved) + "\n")
        print(f"wrote {ns.out}", file=sys.stderr)
        return 0
    for cc in ns.ccs:
        for case in ns.cases.split(","):
            for peer_cc, summary in run(cc, case, ns.seeds)["summaries"].items():
                print(brief(peer_cc, summary), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
