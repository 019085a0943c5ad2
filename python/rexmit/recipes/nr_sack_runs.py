"""Running the ``nr-sack`` sweeps (seed 000, SCTP on topology 1 and CMT on topology 2) and reading
their results: the scenario of each point (built with :mod:`rexmit.recipes.seed000_setup`), the
trace-window goodput and send-buffer blocking from the sampled series, means per point, the rtxq
swings of Figs. 10-12, and each sweep's report. Not here: the plan (``nr_sack_plan``), claims
(``nr_sack_claims``), figures and the index page (``nr_sack_report``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rexmit import report as report_mod
from rexmit._lazy import pq
from rexmit.recipes import seed000_setup as setup
from rexmit.recipes.common import run_recipe_sweep
from rexmit.recipes.nr_sack_plan import (
    ACKS,
    BLOCKED,
    CMT_BUFFERS,
    GOODPUT,
    PATH2_LOAD,
    SCTP_BUFFERS,
    SERIES_GOODPUT,
    SERIES_RTXQ,
    F,
    Key,
    Plan,
)
from rexmit.scenario import Scenario
from rexmit.stats import Estimate, mean_ci
from rexmit.sweep import load as load_runs
from rexmit.view_pages import FlowViews


@dataclass
class Results:
    """One sweep's runs (with the trace-window goodput and blocking added) and their means per
    point (load, buffer, ack)."""

    name: str
    dir: Path
    rows: list[dict[str, Any]]
    cells: dict[Key, dict[str, Estimate]]
    loads: list[str]
    buffers: list[str]

    def mean(self, load: str, buffer: str, ack: str, metric: str) -> float | None:
        cell = self.cells.get((load, buffer, ack))
        return None if cell is None else cell[metric].mean

    def m(self, load: str, buffer: str, ack: str, metric: str) -> float:
        v = self.mean(load, buffer, ack, metric)
        return float("nan") if v is None else v


def sctp_build(timing: setup.Timing) -> setup.Builder:
    def build(p: dict[str, Any]) -> dict[str, Any]:
        load = setup.LOADS[p["load"]]
        topo, apps = setup.topology1(load)
        sctp = setup.sctp_app(SCTP_BUFFERS[p["buffer"]], ACKS[p["ack"]], cmt=False)
        return setup.scenario(
            f"seed 000 topology 1 (Fig. 5): SCTP-{p['ack']}, {p['buffer']} send buffer, {load.name} load",
            topo,
            [sctp, *apps],
            timing,
            series=("bytes_delivered", "rtxq_bytes"),
        )

    return build


def cmt_build(timing: setup.Timing) -> setup.Builder:
    def build(p: dict[str, Any]) -> dict[str, Any]:
        load = setup.LOADS[p["load"]]
        topo, apps = setup.topology2(load, setup.LOADS[PATH2_LOAD])
        sctp = setup.sctp_app(CMT_BUFFERS[p["buffer"]], ACKS[p["ack"]], cmt=True)
        return setup.scenario(
            f"seed 000 topology 2 (Fig. 6): CMT-{p['ack']}, {p['buffer']} send buffer, path 1 {load.name} / path 2 {PATH2_LOAD} load",
            topo,
            [sctp, *apps],
            timing,
            series=("bytes_delivered", "rtxq_bytes"),
        )

    return build


def warmup_s(sweep_dir: Path, run_id: str) -> float:
    apps = Scenario.load(sweep_dir / "scenarios" / f"{run_id}.toml").data["apps"]
    app = next(a for a in apps if a["name"] == setup.SCTP_APP)
    return float(report_mod.as_number(app["warmup"])[0] or 0.0)


def run_series(sweep_dir: Path, run_id: str) -> dict[str, tuple[list[float], list[float]]]:
    """A run's time series by name: (times in s, values)."""
    table = pq.read_table(sweep_dir / "series" / f"{run_id}.parquet", columns=["series", "t_s", "value"])
    out: dict[str, tuple[list[float], list[float]]] = {}
    for name, t, v in zip(*(table.column(c).to_pylist() for c in ("series", "t_s", "value"))):
        ts, vs = out.setdefault(name, ([], []))
        ts.append(t)
        vs.append(v)
    return out


def _value_at(t: list[float], v: list[float], at: float) -> float:
    """Linear interpolation of a sampled counter."""
    for i in range(1, len(t)):
        if t[i] >= at:
            return v[i - 1] + (v[i] - v[i - 1]) * (at - t[i - 1]) / (t[i] - t[i - 1])
    return v[-1]


@dataclass(frozen=True)
class Trace:
    """What the sampled series say about one run over the trace window (warm-up to the end)."""

    goodput_bps: float
    blocked_fraction: float


def trace_metrics(sweep_dir: Path, run_id: str, send_buffer: float, message: int = setup.MESSAGE_SIZE) -> Trace:
    """Goodput: bytes delivered to R's application from the warm-up to the end, in bit/s.
    Send-buffer blocking (§II.B): the share of 10 ms samples at which the rtxq leaves no room
    for the next message (the greedy application is refused and nothing is unsent)."""
    w = warmup_s(sweep_dir, run_id)
    series = run_series(sweep_dir, run_id)
    t, v = series[SERIES_GOODPUT]
    goodput = (v[-1] - _value_at(t, v, w)) * 8 / (t[-1] - w)
    t, v = series[SERIES_RTXQ]
    inside = [x for s, x in zip(t, v) if s >= w]
    return Trace(goodput, sum(x + message > send_buffer for x in inside) / len(inside))


def _results(name: str, sweep_dir: Path, metrics: list[str], buffers: dict[str, str]) -> Results:
    rows = load_runs(sweep_dir).to_pylist()
    for r in rows:
        trace = trace_metrics(sweep_dir, r["run_id"], report_mod.as_number(buffers[r["param.buffer"]])[0] or 0.0)
        r[GOODPUT], r[BLOCKED] = trace.goodput_bps, trace.blocked_fraction
    groups: dict[Key, list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault((r["param.load"], r["param.buffer"], r["param.ack"]), []).append(r)
    cells = {k: {m: mean_ci([r.get(m) for r in g]) for m in [*metrics, GOODPUT, BLOCKED]} for k, g in groups.items()}
    loads = list(dict.fromkeys(r["param.load"] for r in rows))
    buffers_seen = list(dict.fromkeys(r["param.buffer"] for r in rows))
    return Results(name, sweep_dir, rows, cells, loads, buffers_seen)


def est(e: Estimate, scale: float = 1.0, digits: int = 3) -> str:
    if e.mean is None:
        return "n/a"
    ci = f" ± {e.half_width * scale:.{digits}f}" if e.half_width is not None else ""
    return f"{e.mean * scale:.{digits}f}{ci}"


def _point_table(res: Results, links: list[str]) -> list[dict[str, Any]]:
    """Per point: the trace-window goodput and the measured loss / load of the bottlenecks."""
    out = []
    for (load, buffer, ack), cell in res.cells.items():
        runs = [r for r in res.rows if (r["param.load"], r["param.buffer"], r["param.ack"]) == (load, buffer, ack)]
        row: dict[str, Any] = {
            "load": load,
            "buffer": buffer,
            "ack": ack,
            "runs": len(runs),
            "goodput Mb/s (trace window)": est(cell[GOODPUT], 1e-6, 2),
            "blocked (trace window)": est(cell[BLOCKED]),
        }
        for link in links:
            stats = [
                setup.link_stats({k.split(".", 2)[2]: v for k, v in r.items() if k.startswith(f"link.{link}.")})
                for r in runs
            ]
            row[f"{link} loss %"] = est(mean_ci([s["loss"] for s in stats]), 100, 3)
            row[f"{link} L %"] = est(mean_ci([s["load"] for s in stats]), 100, 1)
        row["max rtxq bytes"] = max(r.get(F + "rtxq_bytes_max") or 0 for r in runs)
        out.append(row)
    return out


def _notes(plan: Plan, kind: str) -> list[str]:
    t = plan.timing
    return [
        f"Seed 000 {kind}. Parameters: load (of the cross traffic{' on path 1; path 2 stays at low load' if kind.startswith('CMT') else ''}), "
        "buffer (the SCTP send buffer; INF = 1 GiB, never filled: see the largest rtxq below) and ack (SACK or NR-SACK). They are not "
        "scenario keys: the recipe builds each point's scenario, and each run draws its start times from its seed (common to all points "
        "of a replication); scenarios/<run_id>.toml holds each run exactly.",
        f"{t.describe()}. RtxQ_Util, RtxQ_Util_L and the mean rtxq count over that window. Goodput and send-buffer blocking "
        "(table below) are computed over the same window from R's delivered bytes and from the rtxq, sampled every 10 ms: the flow "
        "metric goodput_bps divides the bytes delivered since the association's start by the time since the warm-up, and "
        "send_blocked_fraction and timeouts count from the association's start.",
        "Loads per (left edge, right edge) pair and direction: "
        + "; ".join(f"{n}: {setup.LOADS[n].describe()} (paper: {setup.LOADS[n].paper()})" for n in plan.loads)
        + ". "
        "Choices where the paper gives none are in the nr_sack recipe's docstring (queues of 833 packets on every link, FTP with 20-packet windows, "
        "http app responses, 1000 B CBR video, 64 MiB receive buffer, RFC 9260 defaults).",
    ]


def run(
    out: Path,
    name: str,
    title: str,
    build: setup.Builder,
    buffers: tuple[str, ...],
    sizes: dict[str, str],
    metrics: list[str],
    links: list[str],
    plan: Plan,
    jobs: int | None,
) -> Results:
    grid = {"load": list(plan.loads), "buffer": list(buffers), "ack": list(ACKS)}
    spec = setup.make_sweep(f"seed 000 {title}", grid, build, plan.timing, plan.replications, metrics)
    sweep_dir = out / name
    run_recipe_sweep(spec, sweep_dir, jobs=jobs, views=setup.SCTP_APP)
    res = _results(name, sweep_dir, metrics, sizes)
    report_mod.report(
        sweep_dir,
        notes=_notes(plan, title),
        tables=[
            (
                "Over the trace window: goodput and send-buffer blocking; bottleneck loss and L over the whole run",
                _point_table(res, links),
            )
        ],
        views=FlowViews(setup.SCTP_APP),
    )
    return res


def rtxq_runs(res: Results) -> dict[str, list[str]]:
    """Figs. 10-11: the runs of CMT at the heaviest path-1 load with the smallest buffer, per ack
    scheme, replication 0 first (the one drawn)."""
    load, buffer = res.loads[-1], res.buffers[0]
    runs: dict[str, list[str]] = {ack: [] for ack in ACKS}
    for r in sorted(res.rows, key=lambda r: r["replication"]):
        if r["param.load"] == load and r["param.buffer"] == buffer:
            runs[r["param.ack"]].append(r["run_id"])
    return runs


@dataclass
class RtxqSwing:
    """What Figs. 10-12 show of one run's rtxq over the trace window: mean and standard deviation,
    the share of time above half the send buffer, and how often it fell from within 10% of the
    buffer to below 10% of it (the "reaches the maximum and drops to 0" of §V.B.1)."""

    mean: float
    std: float
    above_half: float
    swings: int


def rtxq_swing(t: list[float], v: list[float], since: float, buffer_bytes: float) -> RtxqSwing:
    vals = [x for s, x in zip(t, v) if s >= since]
    mean = sum(vals) / len(vals)
    std = (sum((x - mean) ** 2 for x in vals) / len(vals)) ** 0.5
    swings, high = 0, False
    for x in vals:
        if x >= 0.9 * buffer_bytes:
            high = True
        elif x < 0.1 * buffer_bytes and high:
            swings, high = swings + 1, False
    return RtxqSwing(mean, std, sum(x >= 0.5 * buffer_bytes for x in vals) / len(vals), swings)


def mean_swing(swings: list[RtxqSwing]) -> RtxqSwing:
    n = len(swings)
    return RtxqSwing(
        sum(x.mean for x in swings) / n,
        sum(x.std for x in swings) / n,
        sum(x.above_half for x in swings) / n,
        round(sum(x.swings for x in swings) / n),
    )
