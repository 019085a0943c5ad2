#!/usr/bin/env python3
"""Competing flows on one bottleneck: rexmit against ns-2.35 and ns-3.44 (issue 19).

    python validation/multiflow.py list
    python validation/multiflow.py run ns2-sack-4-rtt44-82 [--seeds 20] [--side peer|rexmit|both]
    python validation/multiflow.py table            (docs/validation_multiflow.md from saved runs)

A scenario is N long-lived TCP flows S_i -> R1 -> R2 -> D_i over one bottleneck (10 Mb/s, 10 ms,
drop-tail of 30 packets or RED unless it says otherwise), flow i with two-way propagation delay
rtts[i] (sender access delay rtts[i]/2 - 10 ms - 1 ms), starts drawn uniformly in [0, 2 s) from
the seed (the same draws in every simulator), optional uniform loss on the bottleneck's data
direction, and optional short transfers (Poisson arrivals, Pareto sizes, their own host pairs).
Per seed and flow: goodput over [warmup, duration], retransmissions and timeouts over the whole
run; per scenario: Jain's fairness index, the ratio of the shortest-RTT flow's goodput to the
longest's, the bottleneck loss rate and mean queue (packets waiting, after the warm-up).

Saved runs: validation/results/multi_<scenario>_<side>.json. The peers are mirrored setting by
setting as in compare.py (ns-2: IW 2, min RTO 200 ms, no timestamps, delayed ACK 2/200 ms,
1460-byte segments; ns-3: IW 10, min RTO 1 s, timestamps, delayed ACK 2/200 ms).
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results"
sys.path.insert(0, str(HERE))

import controllers  # noqa: E402
from compare import NS2_TCP, NS3_TCP, ci95  # noqa: E402


@dataclass(frozen=True)
class Shorts:
    """Short transfers alongside the long flows: Poisson arrivals, Pareto sizes in packets."""

    mean_gap_s: float = 1.0
    pareto_shape: float = 1.2
    min_packets: int = 4
    max_packets: int = 400
    rtt_ms: float = 60.0
    variant: str = "sack"


@dataclass(frozen=True)
class MultiScenario:
    name: str
    peer: str  # "ns2" | "ns3"
    variants: tuple[str, ...]  # per long flow: tahoe | reno | newreno | sack | cubic | westwood
    rtts_ms: tuple[float, ...]
    queue: int = 30
    qdisc: str = "droptail"  # droptail | red | codel | fq_codel | pie | ared (aqm.py) | step (dctcp.py)
    ecn: bool = False  # the active queue marks ECN-capable packets (codel, fq_codel, pie, ared)
    step_k: int = 0  # qdisc "step": DCTCP's marking threshold K (packets in rexmit's queue)
    red: tuple[float, float, float, float] = (5.0, 15.0, 0.1, 0.002)  # min_th, max_th, max_p, weight
    loss: float = 0.0
    shorts: Shorts | None = None
    duration: float = 100.0
    warmup: float = 20.0
    start_window: float = 2.0
    # Each seed adds a uniform draw in [0, jitter_us) to every sender's access delay (the same
    # draws in every simulator), so that means over seeds also average over the packet phases
    # that exact, round-number delays lock in (Floyd & Jacobson 1992); 0 keeps the delays exact.
    jitter_us: float = 1200.0
    bottleneck_rate_mbps: float = 10.0
    bottleneck_delay_ms: float = 10.0
    recv_delay_ms: float = 1.0
    sack: bool = True  # ns-3 only: the SACK option (ns-2's variant names say it)
    prr: bool = True  # ns-3 only: TcpPrrRecovery (ns-3's default) or TcpClassicRecovery
    # rexmit's `framing_bytes` on every link; None: 2 against ns-3 (its point-to-point devices
    # add a 2-byte PPP header to every packet's link time, data and ACKs alike), 0 against ns-2
    framing_bytes: int | None = None
    note: str = ""

    def __post_init__(self) -> None:
        if self.framing_bytes is None:
            object.__setattr__(self, "framing_bytes", 2 if self.peer == "ns3" else 0)


def _spread(lo: float, hi: float, n: int) -> tuple[float, ...]:
    return tuple(round(lo + (hi - lo) * i / (n - 1), 3) for i in range(n)) if n > 1 else (lo,)


def _scenarios() -> dict[str, MultiScenario]:
    out: list[MultiScenario] = [
        # The case: four flows, RTTs 44..82 ms, one variant each.
        MultiScenario("ns2-sack-4-rtt44-82", "ns2", ("sack",) * 4, _spread(44, 82, 4)),
        MultiScenario("ns2-newreno-4-rtt44-82", "ns2", ("newreno",) * 4, _spread(44, 82, 4)),
        # Equal RTTs, N = 2, 4, 16.
        MultiScenario("ns2-sack-2-equal", "ns2", ("sack",) * 2, (60.0,) * 2),
        MultiScenario("ns2-sack-16-equal", "ns2", ("sack",) * 16, (60.0,) * 16, queue=100),
        # Heterogeneous RTTs 1:2 and 1:4.
        MultiScenario("ns2-sack-2-rtt1to2", "ns2", ("sack",) * 2, (40.0, 80.0)),
        MultiScenario("ns2-sack-2-rtt1to4", "ns2", ("sack",) * 2, (30.0, 120.0)),
        MultiScenario("ns2-newreno-2-rtt1to4", "ns2", ("newreno",) * 2, (30.0, 120.0)),
        # Mixed variants: Reno against SACK.
        MultiScenario("ns2-reno-vs-sack-4", "ns2", ("reno", "sack", "reno", "sack"), (60.0,) * 4),
        # RED instead of drop-tail; light random loss.
        MultiScenario("ns2-sack-4-red", "ns2", ("sack",) * 4, _spread(44, 82, 4), qdisc="red", queue=60),
        MultiScenario("ns2-sack-4-loss1e-3", "ns2", ("sack",) * 4, _spread(44, 82, 4), loss=1e-3),
        # Short HTTP-like transfers beside long flows.
        MultiScenario("ns2-sack-4-shorts", "ns2", ("sack",) * 4, _spread(44, 82, 4), shorts=Shorts()),
        # Exact, round-number delays (no jitter): packets of different flows meet at the queue at
        # the same nanosecond; how a simulator orders such ties decides who is dropped.
        MultiScenario("ns2-sack-2-rtt1to4-exact", "ns2", ("sack",) * 2, (30.0, 120.0), jitter_us=0.0),
        MultiScenario("ns2-newreno-2-rtt1to4-exact", "ns2", ("newreno",) * 2, (30.0, 120.0), jitter_us=0.0),
        MultiScenario("ns2-sack-4-rtt44-82-exact", "ns2", ("sack",) * 4, (44.0, 58.0, 70.0, 82.0), jitter_us=0.0),
        MultiScenario("ns3-newreno-2-rtt1to4-exact", "ns3", ("newreno",) * 2, (30.0, 120.0), jitter_us=0.0),
        # ns-3: the same shapes, and mixed controllers.
        MultiScenario("ns3-newreno-4-rtt44-82", "ns3", ("newreno",) * 4, _spread(44, 82, 4)),
        MultiScenario("ns3-newreno-2-rtt1to4", "ns3", ("newreno",) * 2, (30.0, 120.0)),
        MultiScenario("ns3-newreno-16-equal", "ns3", ("newreno",) * 16, (60.0,) * 16, queue=100),
        MultiScenario("ns3-newreno-vs-cubic-4", "ns3", ("newreno", "cubic", "newreno", "cubic"), (60.0,) * 4),
        MultiScenario("ns3-sack-vs-westwood-4", "ns3", ("newreno", "westwood", "newreno", "westwood"), (60.0,) * 4),
        # The same two with classic recovery in ns-3 and rexmit: ns-3.44's PRR counts duplicate
        # ACKs twice with SACK (docs/validation.md), which hurts controllers that cut by less.
        MultiScenario(
            "ns3-newreno-vs-cubic-4-classic", "ns3", ("newreno", "cubic", "newreno", "cubic"), (60.0,) * 4, prr=False
        ),
        MultiScenario(
            "ns3-sack-vs-westwood-4-classic",
            "ns3",
            ("newreno", "westwood", "newreno", "westwood"),
            (60.0,) * 4,
            prr=False,
        ),
        # ... and with ns-3's NewReno given RFC 5681's ssthresh (ns-3.44 halves the pipe).
        MultiScenario(
            "ns3-sack-vs-westwood-4-rfc",
            "ns3",
            ("newreno-rfc", "westwood", "newreno-rfc", "westwood"),
            (60.0,) * 4,
            prr=False,
        ),
        MultiScenario("ns3-newreno-4-red", "ns3", ("newreno",) * 4, _spread(44, 82, 4), qdisc="red", queue=60),
        MultiScenario("ns3-newreno-4-loss1e-3", "ns3", ("newreno",) * 4, _spread(44, 82, 4), loss=1e-3),
        # Issue 37's controllers with ns-3.44's defaults: Vegas and LEDBAT yielding to NewReno,
        # Illinois, H-TCP and BIC against CUBIC; two and four flows (half of each), classic
        # recovery in both (ns-3.44's PRR counts duplicate ACKs twice with SACK). LEDBAT's 100 ms
        # target needs a queue that can hold it (150 packets = 180 ms at 10 Mb/s).
        *[
            MultiScenario(f"ns3-{a}-vs-{b}-{n}", "ns3", (a, b) * (n // 2), (60.0,) * n, queue=q, prr=False)
            for a, b, q in [
                ("vegas", "newreno", 30),
                ("ledbat", "newreno", 150),
                ("illinois", "cubic", 30),
                ("htcp", "cubic", 30),
                ("bic", "cubic", 30),
            ]
            for n in (2, 4)
        ],
    ]
    return {s.name: s for s in out}


SCENARIOS = _scenarios()


def starts(sc: MultiScenario, seed: int) -> list[float]:
    """Start times of the long flows: the same draws for every simulator."""
    rng = random.Random(f"multiflow-starts-{seed}")
    return [round(rng.uniform(0.0, sc.start_window), 6) for _ in sc.variants]


def access_delays_ns(sc: MultiScenario, seed: int) -> list[int]:
    """Sender access delays (whole ns) of the long flows in this seed's run: what gives the
    nominal two-way delay, plus the seed's jitter."""
    rng = random.Random(f"multiflow-jitter-{seed}")
    half = sc.bottleneck_delay_ms + sc.recv_delay_ms
    return [round((r / 2 - half) * 1e6 + rng.uniform(0.0, sc.jitter_us) * 1e3) for r in sc.rtts_ms]


def short_transfers(sc: MultiScenario, seed: int) -> list[tuple[float, int]]:
    """(start s, size in packets) of the short transfers: Poisson arrivals from the end of the
    start window to 10 s before the end, Pareto sizes (shape, minimum), capped."""
    if sc.shorts is None:
        return []
    p = sc.shorts
    rng = random.Random(f"multiflow-shorts-{seed}")
    out, t = [], sc.start_window
    while True:
        t += rng.expovariate(1.0 / p.mean_gap_s)
        if t > sc.duration - 10.0:
            return out
        size = min(p.max_packets, int(p.min_packets * rng.paretovariate(p.pareto_shape)))
        out.append((round(t, 6), size))


# --- peers -------------------------------------------------------------------------------------

ACTIVE_QUEUES = ("codel", "fq_codel", "pie", "ared", "step")
# What an active queue reports besides the drop-tail metrics (links.parquet).
AQM_LINK_METRICS = ("queue_delay_mean_s", "queue_delay_p99_s", "drop_early", "drop_overflow", "ecn_marked")

NS2_AGENT = {"tahoe": "Tahoe", "reno": "Reno", "newreno": "Newreno", "sack": "Sack1"}
NS3_CC = {
    "newreno": "newreno",
    "newreno-rfc": "newreno-rfc",
    "cubic": "cubic",
    "westwood": "westwoodplus",
    "dctcp": "dctcp",
    # ns-3's CUBIC given each ACK's RTT sample (src/ns3_rtt_sample_variants.h): a diagnostic.
    "cubic-sample": "cubic-sample",
} | {c: c for c in controllers.CONTROLLERS}


def ns2_command(sc: MultiScenario, seed: int) -> list[str]:
    args = {
        "seed": seed,
        "duration": sc.duration,
        "warmup": sc.warmup,
        "agents": ",".join(NS2_AGENT[v] for v in sc.variants),
        "delays": ",".join(f"{d / 1e6:.6f}" for d in access_delays_ns(sc, seed)),
        "starts": ",".join(f"{s:g}" for s in starts(sc, seed)),
        "bottleneck_rate": f"{sc.bottleneck_rate_mbps:g}Mb",
        "bottleneck_delay": f"{sc.bottleneck_delay_ms:g}",
        "recv_delay": f"{sc.recv_delay_ms:g}",
        "queue": sc.queue,
        "qdisc": "RED" if sc.qdisc == "red" else "DropTail",
    }
    if sc.qdisc == "red":
        args.update(red_min=sc.red[0], red_max=sc.red[1], red_maxp=sc.red[2], red_wq=sc.red[3])
    if sc.loss:
        args.update(loss="uniform", rate=sc.loss)
    if sc.shorts is not None:
        args["short_rtt"] = f"{sc.shorts.rtt_ms:g}"
        args["shorts"] = ",".join(f"{t:g}:{n}:{NS2_AGENT[sc.shorts.variant]}" for t, n in short_transfers(sc, seed))
    return ["ns", str(HERE / "src" / "ns2_tcp_multi.tcl"), *[f"{k}={v}" for k, v in args.items()]]


def ns3_command(sc: MultiScenario, seed: int) -> list[str]:
    import ns3_multi

    args = {
        "seed": seed,
        "duration": sc.duration,
        "warmup": sc.warmup,
        "ccs": ",".join(NS3_CC[v] for v in sc.variants),
        "delaysNs": ",".join(str(d) for d in access_delays_ns(sc, seed)),
        "starts": ",".join(f"{s:g}" for s in starts(sc, seed)),
        "bottleneckRate": f"{sc.bottleneck_rate_mbps:g}Mbps",
        "bottleneckDelayMs": sc.bottleneck_delay_ms,
        "recvDelayMs": sc.recv_delay_ms,
        "queue": sc.queue,
        "qdisc": sc.qdisc,
        "sack": int(sc.sack),
        "recovery": "prr" if sc.prr else "classic",
    }
    if sc.qdisc == "red":
        args.update(redMin=sc.red[0], redMax=sc.red[1], redMaxP=sc.red[2], redWeight=sc.red[3])
    if sc.qdisc in ACTIVE_QUEUES:
        args["ecn"] = int(sc.ecn)
    if sc.qdisc == "step":
        # ns-3's queue disc holds one packet fewer than rexmit's queue while the line is busy
        # (its device queue has the next one): the same backlog is marked at K - 1 there.
        args["stepK"] = sc.step_k - 1
    if sc.loss:
        args["lossRate"] = sc.loss
    return [str(ns3_multi.build()), *[f"--{k}={v}" for k, v in args.items()]]


def run_peer(sc: MultiScenario, seed: int, extra: tuple[str, ...] = ()) -> dict[str, Any]:
    """One peer run; `extra` arguments go after the scenario's own (the last of an option wins)."""
    cmd = [*(ns2_command(sc, seed) if sc.peer == "ns2" else ns3_command(sc, seed)), *extra]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    res = json.loads(out.stdout.strip().splitlines()[-1])
    b = res["bottleneck"]
    drops = b["queue_drops"] + b.get("error_drops", 0)
    extra = {"aqm": res["aqm"]} if "aqm" in res else {}
    return {
        **extra,
        "seed": seed,
        "flows": [
            {k: f[k] for k in ("goodput_bps", "retransmissions", "timeouts", "dctcp") if k in f} for f in res["flows"]
        ],
        "shorts": [s["completion_s"] for s in res.get("shorts", [])],
        "loss_rate": drops / b["arrivals"] if b["arrivals"] else 0.0,
        "mean_queue_pkts": b["mean_queue_pkts"],
        "wall_run_s": res.get("wall_run_s"),
    }


# --- rexmit ------------------------------------------------------------------------------------


def rexmit_tcp(sc: MultiScenario, variant: str) -> dict[str, Any]:
    if sc.peer == "ns2":
        return {**NS2_TCP, "recovery": variant}
    if variant in controllers.CONTROLLERS:
        return {**controllers.rexmit_tcp(variant), "prr": sc.sack and sc.prr}
    if variant == "dctcp":
        # ns-3.44's TcpDctcp is a TcpLinuxReno: it grows by every acknowledged segment.
        return {
            **NS3_TCP,
            "recovery": "sack",
            "sack": sc.sack,
            "prr": sc.sack and sc.prr,
            "cc": "dctcp",
            "ecn": "on",
            "byte_counting": True,
        }
    cc = {"newreno": "reno", "newreno-rfc": "reno", "cubic": "cubic", "westwood": "westwood"}[variant]
    # ns-3 runs PRR by default (TcpPrrRecovery) and SACK as configured (NS3_TCP: timer
    # restarted by new ACKs only, as ns-3).
    return {
        **NS3_TCP,
        "recovery": "sack" if sc.sack else "newreno",
        "sack": sc.sack,
        "prr": sc.sack and sc.prr,
        "cc": cc,
    }


def rexmit_scenario(sc: MultiScenario, seed: int, overrides: dict[str, Any] | None = None):
    import rexmit

    s = rexmit.Scenario(stop_time=f"{sc.duration:g}s", seed=seed)
    if sc.peer == "ns3":
        s.data["event_ties"] = "fifo"  # ns-3's integer clock runs same-instant events in FIFO order
    big = {"packets": 1000}
    fr = {"framing_bytes": sc.framing_bytes} if sc.framing_bytes else {}
    half = sc.bottleneck_delay_ms + sc.recv_delay_ms
    left = [
        {"name": f"S{i}", "rate": "100Mbps", "delay": f"{d}ns", "queue": big, **fr}
        for i, d in enumerate(access_delays_ns(sc, seed))
    ]
    right = [
        {"name": f"D{i}", "rate": "100Mbps", "delay": f"{sc.recv_delay_ms:g}ms", "queue": big, **fr}
        for i in range(len(sc.rtts_ms))
    ]
    shorts = short_transfers(sc, seed)
    if shorts:
        left.append(
            {"name": "SS", "rate": "100Mbps", "delay": f"{sc.shorts.rtt_ms / 2 - half:g}ms", "queue": big, **fr}
        )
        right.append({"name": "SD", "rate": "100Mbps", "delay": f"{sc.recv_delay_ms:g}ms", "queue": big, **fr})
    queue: dict[str, Any] = {"packets": sc.queue}
    if sc.qdisc == "red":
        mn, mx, p, w = sc.red
        queue["red"] = {"min_th": mn, "max_th": mx, "max_p": p, "weight": w, "gentle": True}
    elif sc.qdisc == "step":
        queue["ecn_threshold"] = sc.step_k  # RFC 8257 §3.1
    elif sc.qdisc in ACTIVE_QUEUES:
        # Every parameter at its RFC default, as ns-3 is set in validation/src/ns3_aqm.h.
        queue.update(aqm=sc.qdisc, ecn=sc.ecn)
    bottleneck: dict[str, Any] = {
        "rate": f"{sc.bottleneck_rate_mbps:g}Mbps",
        "delay": f"{sc.bottleneck_delay_ms:g}ms",
        "queue": queue,
        **fr,
    }
    if sc.loss:
        bottleneck["errors"] = [{"kind": "uniform", "rate": sc.loss, "direction": "forward"}]
    s.dumbbell(bottleneck, left, right)
    for i, (v, st) in enumerate(zip(sc.variants, starts(sc, seed))):
        tcp = {**rexmit_tcp(sc, v), **(overrides or {})}
        s.app(f"f{i}", "tcp_bulk", f"S{i}", f"D{i}", start=f"{st}s", warmup=f"{sc.warmup:g}s", tcp=tcp)
    mss = NS2_TCP["mss"] if sc.peer == "ns2" else NS3_TCP["mss"]
    for k, (t, n) in enumerate(shorts):
        tcp = {**rexmit_tcp(sc, sc.shorts.variant), **(overrides or {})}
        s.app(f"short{k}", "tcp_bulk", "SS", "SD", start=f"{t}s", bytes=n * mss, tcp=tcp)
    return s


def run_rexmit(sc: MultiScenario, seed: int, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    import rexmit

    res = rexmit.run(rexmit_scenario(sc, seed, overrides))
    flows = [res.flow(f"f{i}") for i in range(len(sc.variants))]
    link = res.link("R1->R2")
    drops = link["drop_overflow"] + link["drop_early"] + link["drop_error"]
    shorts = [f.get("completion_time_s") for f in res.flows if f["name"].startswith("short")]
    extra = (
        {"aqm": {**{k: link[k] for k in AQM_LINK_METRICS}, "arrivals": link["offered_packets"]}}
        if sc.qdisc in ACTIVE_QUEUES
        else {}
    )
    return {
        **extra,
        "seed": seed,
        "flows": [
            {
                "goodput_bps": f["goodput_bps"],
                "retransmissions": f["retransmissions"],
                "timeouts": f["timeouts"],
                "spurious": f["spurious_retransmits"],
                "ecn_reductions": f.get("ecn_reductions", 0),
            }
            for f in flows
        ],
        "shorts": [-1.0 if c is None or (isinstance(c, float) and math.isnan(c)) else c for c in shorts],
        "loss_rate": drops / link["offered_packets"] if link["offered_packets"] else 0.0,
        "mean_queue_pkts": link["queue_packets_mean"],
        "wall_run_s": res.summary["wall_time_s"],
    }


# --- statistics --------------------------------------------------------------------------------


def jain(xs: list[float]) -> float:
    s, q = sum(xs), sum(x * x for x in xs)
    return s * s / (len(xs) * q) if q else float("nan")


def classes(sc: MultiScenario) -> list[tuple[str, float, list[int]]]:
    """Flows that are the same by construction (variant and nominal RTT), in first-seen order:
    their goodputs are pooled, since which of two identical flows wins a run is chance."""
    out: dict[tuple[str, float], list[int]] = {}
    for i, key in enumerate(zip(sc.variants, sc.rtts_ms)):
        out.setdefault(key, []).append(i)
    return [(v, r, idx) for (v, r), idx in out.items()]


def summarize(sc: MultiScenario, runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Per class of identical flows: goodput per flow (mean and 95% CI over seeds of the class
    mean), retransmissions and timeouts per flow; per scenario: aggregate, Jain's index, the
    shortest- to longest-RTT goodput ratio, bottleneck loss rate and mean queue."""
    n = len(sc.variants)
    per_class = []
    for variant, rtt, idx in classes(sc):
        g = [statistics.fmean(r["flows"][i]["goodput_bps"] for i in idx) for r in runs]
        per_class.append(
            {
                "variant": variant,
                "rtt_ms": rtt,
                "flows": len(idx),
                "goodput_bps": statistics.fmean(g),
                "goodput_ci": ci95(g),
                "retransmissions": statistics.fmean(
                    statistics.fmean(r["flows"][i]["retransmissions"] for i in idx) for r in runs
                ),
                "timeouts": statistics.fmean(statistics.fmean(r["flows"][i]["timeouts"] for i in idx) for r in runs),
            }
        )
    agg = [sum(f["goodput_bps"] for f in r["flows"]) for r in runs]
    j = [jain([f["goodput_bps"] for f in r["flows"]]) for r in runs]
    lo, hi = min(range(n), key=lambda i: sc.rtts_ms[i]), max(range(n), key=lambda i: sc.rtts_ms[i])
    ratio = (
        [r["flows"][lo]["goodput_bps"] / r["flows"][hi]["goodput_bps"] for r in runs]
        if sc.rtts_ms[lo] != sc.rtts_ms[hi]
        else []
    )
    out = {
        "seeds": len(runs),
        "flows": per_class,
        "aggregate_bps": statistics.fmean(agg),
        "aggregate_ci": ci95(agg),
        "jain": statistics.fmean(j),
        "jain_ci": ci95(j),
        "loss_rate": statistics.fmean(r["loss_rate"] for r in runs),
        "mean_queue_pkts": statistics.fmean(r["mean_queue_pkts"] for r in runs),
        "retransmissions": statistics.fmean(sum(f["retransmissions"] for f in r["flows"]) for r in runs),
        "timeouts": statistics.fmean(sum(f["timeouts"] for f in r["flows"]) for r in runs),
    }
    if ratio:
        out["rtt_ratio"], out["rtt_ratio_ci"] = statistics.fmean(ratio), ci95(ratio)
    if all("spurious" in f for r in runs for f in r["flows"]):
        out["spurious"] = statistics.fmean(sum(f["spurious"] for f in r["flows"]) for r in runs)
    done = [c for r in runs for c in r["shorts"] if c >= 0]
    if any(r["shorts"] for r in runs):
        out["shorts"] = {
            "count": sum(len(r["shorts"]) for r in runs),
            "completed": len(done),
            "mean_completion_s": statistics.fmean(done) if done else float("nan"),
            "median_completion_s": statistics.median(done) if done else float("nan"),
        }
    return out


AGG_BAND, FLOW_BAND = 0.03, 0.10


def verdict(peer: dict[str, Any], ours: dict[str, Any]) -> dict[str, Any]:
    """Aggregate within 3%; each class's per-flow mean within 10% and the CIs overlapping."""
    agg = ours["aggregate_bps"] / peer["aggregate_bps"] - 1
    flows = []
    for p, o in zip(peer["flows"], ours["flows"]):
        rel = o["goodput_bps"] / p["goodput_bps"] - 1
        overlap = abs(o["goodput_bps"] - p["goodput_bps"]) <= o["goodput_ci"] + p["goodput_ci"]
        if len(peer["flows"]) == 1:
            # One class holding every flow: its mean is the aggregate's share, judged by the
            # aggregate's band (its CI is the aggregate's, far narrower than any one flow's).
            overlap = overlap or abs(agg) <= AGG_BAND
        flows.append({"rel": rel, "overlap": overlap, "ok": abs(rel) <= FLOW_BAND and overlap})
    ok = abs(agg) <= AGG_BAND and all(f["ok"] for f in flows)
    return {"aggregate_rel": agg, "flows": flows, "verdict": "agree" if ok else "differs"}


# --- commands ----------------------------------------------------------------------------------


def saved(name: str, side: str) -> Path:
    return RESULTS / f"multi_{name}_{side}.json"


def run_side(
    sc: MultiScenario, side: str, seeds: list[int], tag: str = "", overrides: dict[str, Any] | None = None
) -> dict[str, Any]:
    runs = []
    t0 = time.perf_counter()
    for seed in seeds:
        runs.append(run_peer(sc, seed) if side == "peer" else run_rexmit(sc, seed, overrides))
    doc = {
        "scenario": asdict(sc),
        "side": side,
        "overrides": overrides or {},
        "seeds": seeds,
        "wall_s": round(time.perf_counter() - t0, 3),
        "summary": summarize(sc, runs),
        "runs": runs,
    }
    path = saved(sc.name, side + tag)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=1) + "\n")
    return doc


def brief(doc: dict[str, Any]) -> str:
    s = doc["summary"]
    flows = " ".join(f"{f['goodput_bps'] / 1e6:.3f}±{f['goodput_ci'] / 1e6:.3f}" for f in s["flows"])
    extra = f" ratio {s['rtt_ratio']:.2f}" if "rtt_ratio" in s else ""
    return (
        f"{doc['side']:>7}: agg {s['aggregate_bps'] / 1e6:.3f} jain {s['jain']:.3f}{extra} loss {s['loss_rate']:.4f} "
        f"q {s['mean_queue_pkts']:.1f} rtx {s['retransmissions']:.0f} rto {s['timeouts']:.1f} | {flows}"
    )


def command_line(
    doc: str, names: str, seeds: int, table: str, more_sides: tuple[str, ...] = ()
) -> tuple[argparse.ArgumentParser, Any]:
    """The `list`, `run NAMES [--seeds] [--side]` and `table [--out]` commands of a validation
    script (`more_sides`: further peer sides it runs); returns the parser and the `run`
    subparser (for more options)."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list")
    r = sub.add_parser("run")
    r.add_argument("names", nargs="+", help=f"scenario names, or {names}")
    r.add_argument("--seeds", type=int, default=seeds)
    r.add_argument("--side", choices=["peer", "rexmit", "both", *more_sides], default="both")
    r.add_argument("--tag", default="", help="suffix of the saved runs' file names (runs kept beside the table's)")
    sub.add_parser("table").add_argument("--out", default=str(ROOT / "docs" / table))
    return ap, r


def main(argv: list[str]) -> int:
    ap, r = command_line(__doc__ or "", "'all', 'ns2', 'ns3'", 20, "validation_multiflow.md")
    r.add_argument("--set", action="append", default=[], metavar="K=JSON", help="rexmit tcp override (diagnostics)")
    ns = ap.parse_args(argv)
    if ns.cmd == "list":
        for sc in SCENARIOS.values():
            print(
                f"{sc.name:28s} {sc.peer} {','.join(sc.variants)} rtts {sc.rtts_ms} q {sc.queue} {sc.qdisc} loss {sc.loss}"
            )
        return 0
    if ns.cmd == "table":
        import multiflow_tables

        Path(ns.out).write_text(multiflow_tables.render(SCENARIOS, saved, verdict) + "\n")
        print(f"wrote {ns.out}", file=sys.stderr)
        return 0
    names = [n for n in SCENARIOS if ns.names in (["all"], [SCENARIOS[n].peer])] or ns.names
    overrides = {k: json.loads(v) for k, _, v in (kv.partition("=") for kv in ns.set)}
    seeds = list(range(1, ns.seeds + 1))
    for name in names:
        sc = SCENARIOS[name]
        print(name, file=sys.stderr)
        docs = {}
        for side in ["peer", "rexmit"] if ns.side == "both" else [ns.side]:
            tag = ns.tag if side == "rexmit" else ""
            docs[side] = run_side(sc, side, seeds, tag, overrides if side == "rexmit" else None)
            print("  " + brief(docs[side]), file=sys.stderr)
        if len(docs) == 1 and ns.side == "rexmit" and saved(name, "peer").exists():
            docs["peer"] = json.loads(saved(name, "peer").read_text())
        if "peer" in docs and "rexmit" in docs:
            v = verdict(docs["peer"]["summary"], docs["rexmit"]["summary"])
            print(
                f"  {v['verdict']}: aggregate {v['aggregate_rel']:+.1%}, flows "
                + " ".join(f"{f['rel']:+.1%}{'' if f['overlap'] else '!'}" for f in v["flows"]),
                file=sys.stderr,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
