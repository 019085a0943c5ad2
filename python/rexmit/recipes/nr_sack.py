"""Seed 000 (Natarajan, Ekiz, Amer, Iyengar, Stewart: Non-Renegable Selective Acknowledgments
(NR-SACKs) for SCTP): ``rexmit reproduce nr-sack``.

Unordered SCTP (topology 1, Fig. 5) and CMT with RTX-SSTHRESH (topology 2, Fig. 6) bulk
transfers with SACKs vs NR-SACKs, over HTTP / video / FTP cross traffic at four loads (§IV.A;
the setup is :mod:`rexmit.recipes.seed000_setup`), for send buffers of 32K, 64K and INF (SCTP)
and 128K, 256K and INF (CMT). INF is 1 GiB, larger than anything a 70 s run at 100 Mb/s can fill
(the report gives the largest rtxq seen). For CMT, path 1's load goes from low to heavy while
path 2 stays at low load (§IV.A). Figures: RtxQ_Util_L (Fig. 7) and RtxQ_Util (Fig. 8) of SCTP,
RtxQ_Util of CMT (Fig. 9), the rtxq evolution of CMT with 128K buffers (Figs. 10-11, heavy
path-1 load: the paper does not say which load it drew), CMT timeouts (Fig. 13), send-buffer
blocking (§V.B), goodput (Fig. 14 and SCTP's) and CMT's average rtxq (Fig. 15); the claims of
§V and §VI are checked against the numbers.

Loads (§IV.A gives loss rates and L = mean queue / queue size, not the traffic that made
them), per (left edge, right edge) pair and direction, calibrated with
``seed000_setup.calibrate`` (cross traffic alone on topology 1, 70 s, 3 runs per load; the full
recipe repeats this calibration and reports it). Measured at R1->R2 over whole runs; "with the
flow": the mean over the 30 SCTP runs of the full recipe at that load (CMT's path 1 is within
0.1 point of it):

======  ===================================  ===========  ==============  =====  ===========  =================
load    FTP flows / HTTP req/s / video       paper        loss alone      L      utilisation  loss with the flow
======  ===================================  ===========  ==============  =====  ===========  =================
low     2 / 60 / 1 Mb/s                      < 0.1%, 15%  0.013%          18%    88.5%        0.06%
mild    7 / 60 / 1 Mb/s                      1-2%, 45%    1.43%           53%    96.4%        1.50%
medium  14 / 75 / 1 Mb/s                     3-4%, 60%    3.38%           60%    97.3%        3.43%
heavy   45 / 75 / 4 Mb/s                     8-9%, 85%    7.94%           93%    99.3%        8.16%
======  ===================================  ===========  ==============  =====  ===========  =================

Of the delivered cross-traffic bytes (low / mild / medium / heavy), HTTP carries 44 / 34 / 39 /
23%, video 10 / 9 / 9 / 34% and FTP 46 / 57 / 52 / 43%: greedy FTP takes what HTTP and video
leave, so "more HTTP traffic than video or FTP traffic" (§IV.A) holds against video (except at
heavy load), not against FTP. Mean queues at mild and heavy load run above the paper's L (53% vs 45%,
93% vs 85%): with drop-tail queues the loss rate and L cannot be set apart, and the loss rate is
what the recipe matches.

Choices where the paper gives no number (also in each report): edge and host links have the
bottleneck's queue (833 packets); FTP is SACK TCP with a 20-packet receive window (ns-2's
default window_), 10% of FTP flows with MSS 536 (576 B packets), the flows of a pair being the
connections of one `http` app whose 4 GiB responses outlast the run; HTTP responses are the `http`
app's Pareto sizes (mean 9200 B); video is 1000 B CBR with ±10 ms jitter; the SCTP receive
buffer is 64 MiB (never limits); SCTP runs rexmit's RFC 9260 defaults (RTO.min 1 s, Max.Burst
4, delayed SACK every 2nd packet or 200 ms), CMT with SFR, CUC and DAC.

Measurements: RtxQ_Util, RtxQ_Util_L and the average rtxq count from the warm-up (20 s after
the association starts, which is uniform in 18-20 s) to 70 s, as in §IV.A. Goodput and
send-buffer blocking are computed here over the same window from the receiver's delivered bytes
and the sender's rtxq, sampled every 10 ms (blocked: the rtxq leaves no room for the next
message), because the flow metrics goodput_bps (bytes delivered since the association's start
over the time since the warm-up) and send_blocked_fraction count from the association's start.
Timeouts are counted from the association's start, i.e. over about 51 s, not the ~31 s window.

Full: 4 loads × 3 buffers × 2 ack schemes × 5 replications (the paper averages 30 runs with 95%
CIs; 5 keep the full recipe to about 42 min on 2 shared cores) for SCTP and for CMT, plus the
calibration (4 loads × 3 runs). Quick: low and heavy load, 64K (SCTP) and 128K (CMT) buffers,
1 replication, 25 s runs with the flow starting at 6-8 s and an 8 s warm-up.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import pyarrow.parquet as pq

from rexmit import report as report_mod
from rexmit import sweep as sweep_mod
from rexmit.recipes import seed000_setup as setup
from rexmit.labels import PALETTE
from rexmit.recipes.common import Claim
from rexmit.scenario import Scenario
from rexmit.stats import Estimate, mean_ci

INF = "1GiB"
# §V: send buffers (ns-2's K = 1024 bytes).
SCTP_BUFFERS = {"32K": "32KiB", "64K": "64KiB", "INF": INF}
CMT_BUFFERS = {"128K": "128KiB", "256K": "256KiB", "INF": INF}
ACKS = {"SACK": False, "NR-SACK": True}
# §IV.A: in CMT evaluations, path 2 stays at low load.
PATH2_LOAD = "low"
F = f"flow.{setup.SCTP_APP}."
# Derived per run from the sampled series over the trace window (see the module docstring).
GOODPUT = "goodput_trace_bps"
BLOCKED = "send_blocked_trace_fraction"
SERIES_GOODPUT = f"{setup.SCTP_APP}:bytes_delivered"
SERIES_RTXQ = f"{setup.SCTP_APP}:rtxq_bytes"
SCTP_METRICS = [F + m for m in ("rtxq_util_l", "rtxq_util", "send_blocked_fraction", "timeouts", "rtxq_bytes_mean", "fast_retransmits")]
CMT_METRICS = [F + m for m in ("rtxq_util", "timeouts", "send_blocked_fraction", "rtxq_bytes_mean", "path0_timeouts", "path1_timeouts")]


@dataclass(frozen=True)
class Plan:
    """What a version of the recipe runs."""

    loads: tuple[str, ...]
    sctp_buffers: tuple[str, ...]
    cmt_buffers: tuple[str, ...]
    replications: int
    timing: setup.Timing
    calibration_runs: int  # 0: no calibration sweep


FULL = Plan(tuple(setup.LOADS), tuple(SCTP_BUFFERS), tuple(CMT_BUFFERS), 5, setup.Timing(), 3)
QUICK = Plan(("low", "heavy"), ("64K",), ("128K",), 1, setup.Timing(stop_s=25.0, sctp_start=(6.0, 8.0), warmup_s=8.0), 0)

Key = tuple[str, str, str]  # (load, buffer, ack)


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

    def mean(self, load: str, buffer: str, ack: str, metric: str) -> Optional[float]:
        cell = self.cells.get((load, buffer, ack))
        return None if cell is None else cell[metric].mean

    def m(self, load: str, buffer: str, ack: str, metric: str) -> float:
        v = self.mean(load, buffer, ack, metric)
        return float("nan") if v is None else v


def _sctp_build(timing: setup.Timing) -> setup.Builder:
    def build(p: dict[str, Any]) -> dict[str, Any]:
        load = setup.LOADS[p["load"]]
        topo, apps = setup.topology1(load)
        sctp = setup.sctp_app(SCTP_BUFFERS[p["buffer"]], ACKS[p["ack"]], cmt=False)
        return setup.scenario(f"seed 000 topology 1 (Fig. 5): SCTP-{p['ack']}, {p['buffer']} send buffer, {load.name} load", topo, [sctp, *apps], timing, series=("bytes_delivered", "rtxq_bytes"))

    return build


def _cmt_build(timing: setup.Timing) -> setup.Builder:
    def build(p: dict[str, Any]) -> dict[str, Any]:
        load = setup.LOADS[p["load"]]
        topo, apps = setup.topology2(load, setup.LOADS[PATH2_LOAD])
        sctp = setup.sctp_app(CMT_BUFFERS[p["buffer"]], ACKS[p["ack"]], cmt=True)
        return setup.scenario(f"seed 000 topology 2 (Fig. 6): CMT-{p['ack']}, {p['buffer']} send buffer, path 1 {load.name} / path 2 {PATH2_LOAD} load", topo, [sctp, *apps], timing, series=("bytes_delivered", "rtxq_bytes"))

    return build


def _warmup_s(sweep_dir: Path, run_id: str) -> float:
    apps = Scenario.load(sweep_dir / "scenarios" / f"{run_id}.toml").data["apps"]
    app = next(a for a in apps if a["name"] == setup.SCTP_APP)
    return float(report_mod.as_number(app["warmup"])[0] or 0.0)


def _series(sweep_dir: Path, run_id: str) -> dict[str, tuple[list[float], list[float]]]:
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
    w = _warmup_s(sweep_dir, run_id)
    series = _series(sweep_dir, run_id)
    t, v = series[SERIES_GOODPUT]
    goodput = (v[-1] - _value_at(t, v, w)) * 8 / (t[-1] - w)
    t, v = series[SERIES_RTXQ]
    inside = [x for s, x in zip(t, v) if s >= w]
    return Trace(goodput, sum(x + message > send_buffer for x in inside) / len(inside))


def _results(name: str, sweep_dir: Path, metrics: list[str], buffers: dict[str, str]) -> Results:
    rows = sweep_mod.load(sweep_dir).to_pylist()
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


def _est(e: Estimate, scale: float = 1.0, digits: int = 3) -> str:
    if e.mean is None:
        return "n/a"
    ci = f" ± {e.half_width * scale:.{digits}f}" if e.half_width is not None else ""
    return f"{e.mean * scale:.{digits}f}{ci}"


def _point_table(res: Results, links: list[str]) -> list[dict[str, Any]]:
    """Per point: the trace-window goodput and the measured loss / load of the bottlenecks."""
    out = []
    for (load, buffer, ack), cell in res.cells.items():
        runs = [r for r in res.rows if (r["param.load"], r["param.buffer"], r["param.ack"]) == (load, buffer, ack)]
        row: dict[str, Any] = {"load": load, "buffer": buffer, "ack": ack, "runs": len(runs), "goodput Mb/s (trace window)": _est(cell[GOODPUT], 1e-6, 2), "blocked (trace window)": _est(cell[BLOCKED])}
        for link in links:
            stats = [setup.link_stats({k.split(".", 2)[2]: v for k, v in r.items() if k.startswith(f"link.{link}.")}) for r in runs]
            row[f"{link} loss %"] = _est(mean_ci([s["loss"] for s in stats]), 100, 3)
            row[f"{link} L %"] = _est(mean_ci([s["load"] for s in stats]), 100, 1)
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
        "Loads per (left edge, right edge) pair and direction: " + "; ".join(f"{n}: {setup.LOADS[n].describe()} (paper: {setup.LOADS[n].paper()})" for n in plan.loads) + ". "
        "Choices where the paper gives none are in the nr_sack recipe's docstring (queues of 833 packets on every link, FTP with 20-packet windows, "
        "http app responses, 1000 B CBR video, 64 MiB receive buffer, RFC 9260 defaults).",
    ]


def _run(out: Path, name: str, title: str, build: setup.Builder, buffers: tuple[str, ...], sizes: dict[str, str], metrics: list[str], links: list[str], plan: Plan, jobs: Optional[int]) -> Results:
    grid = {"load": list(plan.loads), "buffer": list(buffers), "ack": list(ACKS)}
    spec = setup.make_sweep(f"seed 000 {title}", grid, build, plan.timing, plan.replications, metrics)
    sweep_dir = out / name
    sweep_mod.run_sweep(spec, sweep_dir, jobs=jobs)
    res = _results(name, sweep_dir, metrics, sizes)
    report_mod.report(sweep_dir, notes=_notes(plan, title), tables=[("Over the trace window: goodput and send-buffer blocking; bottleneck loss and L over the whole run", _point_table(res, links))])
    return res


# --- figures for the index page -----------------------------------------------------------------
@dataclass(frozen=True)
class PaperFigure:
    """A figure drawn like the paper's: a metric against the load, one line per buffer and ack."""

    name: str
    title: str
    metric: str
    ylabel: str
    scale: float = 1.0


SCTP_FIGURES = [
    PaperFigure("fig7_sctp_rtxq_util_l", "Fig. 7: RtxQ_Util_L in SCTP", F + "rtxq_util_l", "RtxQ_Util_L"),
    PaperFigure("fig8_sctp_rtxq_util", "Fig. 8: RtxQ_Util in SCTP", F + "rtxq_util", "RtxQ_Util"),
    PaperFigure("sctp_blocked", "Send-buffer blocking in SCTP (§V.B)", BLOCKED, "Time send-buffer blocked (fraction of the trace window)"),
    PaperFigure("sctp_goodput", "Goodput of SCTP", GOODPUT, "Goodput over the trace window (Mb/s)", 1e-6),
]
CMT_FIGURES = [
    PaperFigure("fig9_cmt_rtxq_util", "Fig. 9: RtxQ_Util in CMT", F + "rtxq_util", "RtxQ_Util"),
    PaperFigure("fig13_cmt_timeouts", "Fig. 13: timeout recoveries in CMT", F + "timeouts", "Timeouts (from the association's start)"),
    PaperFigure("cmt_blocked", "Send-buffer blocking in CMT (§V.B)", BLOCKED, "Time send-buffer blocked (fraction of the trace window)"),
    PaperFigure("fig14_cmt_goodput", "Fig. 14: goodput of CMT", GOODPUT, "Goodput over the trace window (Mb/s)", 1e-6),
    PaperFigure("fig15_cmt_rtxq_mean", "Fig. 15: average rtxq size in CMT", F + "rtxq_bytes_mean", "Average rtxq (KB)", 1e-3),
]


def _paper_figure(res: Results, spec: PaperFigure, figures: Path) -> report_mod.Figure:
    fig = report_mod.new_figure()
    ax = fig.add_subplot()
    xs = list(range(len(res.loads)))
    for i, buffer in enumerate(res.buffers):
        for ack in ACKS:
            cells = [res.cells[(load, buffer, ack)][spec.metric] for load in res.loads]
            means = [e.mean * spec.scale if e.mean is not None else float("nan") for e in cells]
            errs = [(e.half_width or 0.0) * spec.scale for e in cells]
            # The paper's names: SCTP-SACK, CMT-NR-SACK, ... with the send buffer.
            label = f"{'CMT' if res.name == 'cmt' else 'SCTP'}-{ack}, {buffer}"
            ax.errorbar(xs, means, yerr=errs, color=PALETTE[i % len(PALETTE)], marker="o" if ack == "SACK" else "s", linestyle="--" if ack == "SACK" else "-", capsize=3, label=label)
    ax.set_xticks(xs, [load.capitalize() for load in res.loads])
    ax.set_xlabel("Cross-traffic load" + (" on path 1 (path 2: low)" if res.name == "cmt" else ""))
    ax.set_ylabel(spec.ylabel)
    ax.set_title(f"{spec.title}: mean and 95% CI")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small", ncol=len(res.buffers))
    return report_mod.save_figure(fig, figures, spec.name, spec.title)


def _rtxq_runs(res: Results) -> dict[str, list[str]]:
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


def _rtxq_swing(t: list[float], v: list[float], since: float, buffer_bytes: float) -> RtxqSwing:
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


def _mean_swing(swings: list[RtxqSwing]) -> RtxqSwing:
    n = len(swings)
    return RtxqSwing(sum(x.mean for x in swings) / n, sum(x.std for x in swings) / n, sum(x.above_half for x in swings) / n, round(sum(x.swings for x in swings) / n))


def _rtxq_figure(res: Results, figures: Path) -> tuple[report_mod.Figure, dict[str, RtxqSwing]]:
    """Figs. 10-11 from replication 0; the swing statistics are means over all replications."""
    runs = _rtxq_runs(res)
    buffer = res.buffers[0]
    size = report_mod.as_number(CMT_BUFFERS[buffer])[0] or 0.0
    fig = report_mod.new_figure(6.4, 5.0)
    swings = {}
    for i, ack in enumerate(ACKS):
        per_run = []
        for run_id in runs[ack]:
            t, v = _series(res.dir, run_id)[SERIES_RTXQ]
            per_run.append(_rtxq_swing(t, v, _warmup_s(res.dir, run_id), size))
        swings[ack] = _mean_swing(per_run)
        ax = fig.add_subplot(2, 1, i + 1)
        t, v = _series(res.dir, runs[ack][0])[SERIES_RTXQ]
        w = _warmup_s(res.dir, runs[ack][0])
        ax.plot(t, [x / 1024 for x in v], linewidth=0.6, color=PALETTE[i])
        ax.axvline(w, color="grey", linestyle="--", linewidth=1, label="trace starts")
        ax.set_xlim(w - 2, t[-1])
        ax.set_ylabel("Retransmission queue (KiB)")
        ax.set_title(f"CMT-{ack}, {buffer} send buffer, {res.loads[-1]} path-1 load (Fig. {10 + i})", fontsize="small")
        ax.grid(alpha=0.3)
    ax.set_xlabel("Time (s)")
    title = "Figs. 10-11: retransmission queue evolution in CMT"
    return report_mod.save_figure(fig, figures, "fig10_11_cmt_rtxq", title), swings


# --- claims -------------------------------------------------------------------------------------
def _fmt(res: Results, buffer: str, ack: str, metric: str, scale: float = 1.0, digits: int = 3) -> str:
    return " ".join(f"{load} {res.m(load, buffer, ack, metric) * scale:.{digits}f}" for load in res.loads)


def _not_worse(a: Estimate, b: Estimate, rel: float) -> bool:
    """``a`` is not below ``b`` by more than their 95% CIs together, or ``rel`` of ``b``."""
    if a.mean is None or b.mean is None:
        return False
    return a.mean >= b.mean - max((a.half_width or 0.0) + (b.half_width or 0.0), rel * abs(b.mean))


def _alike(a: Estimate, b: Estimate, rel: float) -> bool:
    return _not_worse(a, b, rel) and _not_worse(b, a, rel)


def _falls(values: list[float], slack: float) -> bool:
    """Lower at the last point than at the first, and never up by more than ``slack``."""
    return values[-1] < values[0] and all(b <= a + slack for a, b in zip(values, values[1:]))


def _claims(s: Results, c: Results, swings: dict[str, RtxqSwing]) -> list[Claim]:
    claims = []
    u, ul, blk, to, gp, rq = F + "rtxq_util", F + "rtxq_util_l", BLOCKED, F + "timeouts", GOODPUT, F + "rtxq_bytes_mean"
    hi = s.loads[-1]

    nr = [(res.name, load, b, res.m(load, b, "NR-SACK", u)) for res in (s, c) for load in res.loads for b in res.buffers]
    worst = min(nr, key=lambda x: x[3])
    claims.append(Claim("NR-SACK: RtxQ_Util = 1 at every load and send buffer, for SCTP and CMT (§V.A, Figs. 8-9)", all(x[3] >= 0.999 for x in nr), f"lowest: {worst[0]} {worst[1]} {worst[2]} {worst[3]:.4f} over {len(nr)} points"))

    ok = all(s.m(hi, b, "SACK", u) < 0.99 and _falls([s.m(load, b, "SACK", u) for load in s.loads], 0.02) for b in s.buffers)
    claims.append(Claim("SCTP-SACK: RtxQ_Util < 1 and falling as the load grows (§V.A, Fig. 8)", ok, "; ".join(f"{b}: {_fmt(s, b, 'SACK', u)}" for b in s.buffers)))

    if {"medium", "heavy"} <= set(s.loads):
        waste = {load: 1 - sum(s.m(load, b, "SACK", u) for b in s.buffers) / len(s.buffers) for load in ("medium", "heavy")}
        claims.append(Claim("SCTP-SACK wastes ~20% of the rtxq at medium and ~30% at heavy load (§V.A; checked as 10-30% and 20-40%, mean over buffers)", 0.1 <= waste["medium"] <= 0.3 and 0.2 <= waste["heavy"] <= 0.4, f"wasted: medium {waste['medium']:.3f}, heavy {waste['heavy']:.3f}"))

    vals = [s.mean(load, b, "SACK", ul) for load in s.loads for b in s.buffers]
    seen = [v for v in vals if v is not None]
    claims.append(Claim("SCTP-SACK: RtxQ_Util_L stays ~0.5 at every load (§V.A, Fig. 7; checked as 0.35-0.65 wherever there were recoveries)", bool(seen) and all(0.35 <= v <= 0.65 for v in seen), "; ".join(f"{b}: {_fmt(s, b, 'SACK', ul)}" for b in s.buffers)))

    ok = all(c.m(c.loads[-1], b, "SACK", u) < 0.99 and _falls([c.m(load, b, "SACK", u) for load in c.loads], 0.02) for b in c.buffers)
    claims.append(Claim("CMT-SACK: RtxQ_Util < 1 and falling as path 1's load grows (§V.A, Fig. 9)", ok, "; ".join(f"{b}: {_fmt(c, b, 'SACK', u)}" for b in c.buffers)))

    if "INF" in s.buffers and "INF" in c.buffers and len(c.buffers) > 1:
        gap_c = c.m(c.loads[-1], "INF", "SACK", u) - c.m(c.loads[-1], c.buffers[0], "SACK", u)
        gap_s = s.m(hi, "INF", "SACK", u) - s.m(hi, s.buffers[0], "SACK", u)
        claims.append(Claim(f"smaller send buffers lower SACK's RtxQ_Util, more in CMT than in SCTP (§V.A, Figs. 8-9; INF minus smallest buffer at {hi} load)", gap_c > 0 and gap_c > gap_s, f"CMT {c.buffers[0]}: {gap_c:+.3f}, SCTP {s.buffers[0]}: {gap_s:+.3f}"))

    limited = [b for b in c.buffers if b != "INF"]
    pts = [(load, b, ack, c.m(load, b, ack, blk)) for load in c.loads for b in limited for ack in ACKS]
    claims.append(Claim("CMT suffers send-buffer blocking at 128K and 256K with either ack scheme (§V.B; blocked > 1% of the trace window at every load)", all(x[3] > 0.01 for x in pts), "; ".join(f"{b} {ack}: {_fmt(c, b, ack, blk)}" for b in limited for ack in ACKS)))
    claims.append(Claim("CMT-SACK's send-buffer blocking grows with path 1's load (§V.B)", all(c.m(c.loads[-1], b, "SACK", blk) > c.m(c.loads[0], b, "SACK", blk) for b in limited), "; ".join(f"{b}: {_fmt(c, b, 'SACK', blk)}" for b in limited)))
    claims.append(Claim("NR-SACK reduces CMT's send-buffer blocking (lower blocked fraction than SACK at every load, 128K and 256K; §V.B)", all(c.m(load, b, "NR-SACK", blk) < c.m(load, b, "SACK", blk) for load in c.loads for b in limited), "; ".join(f"{b} NR-SACK: {_fmt(c, b, 'NR-SACK', blk)}" for b in limited)))
    spread = {(b, ack): max(c.m(load, b, ack, blk) for load in c.loads) - min(c.m(load, b, ack, blk) for load in c.loads) for b in limited for ack in ACKS}
    claims.append(Claim("CMT-NR-SACK's blocking is unaffected by path 1's load (§V.B; its spread over loads is under half of SACK's)", all(spread[(b, "NR-SACK")] < 0.5 * spread[(b, "SACK")] for b in limited), "; ".join(f"{b}: spread NR-SACK {spread[(b, 'NR-SACK')]:.3f} vs SACK {spread[(b, 'SACK')]:.3f}" for b in limited)))

    if "INF" in c.buffers and limited:
        h = c.loads[-1]
        t = {(b, ack): c.cells[(h, b, ack)][to] for b in c.buffers for ack in ACKS}
        nums = ", ".join(f"{b} {ack} {_est(t[(b, ack)], 1, 1)}" for b in c.buffers for ack in ACKS)
        claims.append(Claim(f"under {h} path-1 load, blocked CMT-SACK (128K, 256K) has more timeouts than non-blocked (INF) CMT-SACK (§V.B.2, Fig. 13)", all((t[(b, "SACK")].mean or 0) > (t[("INF", "SACK")].mean or 0) for b in limited), nums))
        claims.append(Claim(f"under {h} path-1 load, CMT-NR-SACK's timeouts with 128K and 256K are similar to INF's (§V.B.2, Fig. 13; difference within the 95% CIs or 25%)", all(_alike(t[(b, "NR-SACK")], t[("INF", "NR-SACK")], 0.25) for b in limited), nums))

    for res, label in ((s, "SCTP"), (c, "CMT")):
        if "INF" in res.buffers:
            ok = all(_alike(res.cells[(load, "INF", "NR-SACK")][gp], res.cells[(load, "INF", "SACK")][gp], 0.05) for load in res.loads)
            nums = "; ".join(f"{load}: SACK {_est(res.cells[(load, 'INF', 'SACK')][gp], 1e-6, 2)}, NR-SACK {_est(res.cells[(load, 'INF', 'NR-SACK')][gp], 1e-6, 2)} Mb/s" for load in res.loads)
            claims.append(Claim(f"{label} with INF buffers: SACK and NR-SACK goodput are alike at every load (§V.B.3, Fig. 14; difference within the 95% CIs or 5%)", ok, nums))

    gain = {(load, b): c.m(load, b, "NR-SACK", gp) / c.m(load, b, "SACK", gp) - 1 for load in c.loads for b in c.buffers}
    claims.append(Claim("CMT with 128K/256K buffers: NR-SACK's goodput beats SACK's at every load (§V.B.3, Fig. 14)", all(gain[(load, b)] > 0 for load in c.loads for b in limited), "; ".join(f"{b}: " + " ".join(f"{load} {gain[(load, b)] * 100:+.1f}%" for load in c.loads) for b in limited)))
    first = limited[0] if limited else c.buffers[0]
    ok = gain[(c.loads[-1], first)] > gain[(c.loads[0], first)] and all(gain[(c.loads[-1], first)] > gain[(c.loads[-1], b)] for b in limited[1:])
    claims.append(Claim("NR-SACK's CMT goodput gain grows as the buffer shrinks and the paths grow asymmetric (§V.B.3)", ok, "; ".join(f"{b}: {c.loads[0]} {gain[(c.loads[0], b)] * 100:+.1f}%, {c.loads[-1]} {gain[(c.loads[-1], b)] * 100:+.1f}%" for b in c.buffers)))
    if {"128K", "256K", "INF"} <= set(c.buffers):
        busy = [load for load in c.loads if load != "low"]
        g = lambda load, b, ack: c.cells[(load, b, ack)][gp]
        claims.append(Claim("CMT-NR-SACK with 128K performs similar to or better than CMT-SACK with 256K at mild, medium and heavy path-1 load (§V.B.3; not lower beyond the 95% CIs or 5%)", all(_not_worse(g(load, "128K", "NR-SACK"), g(load, "256K", "SACK"), 0.05) for load in busy), "; ".join(f"{load}: NR-SACK 128K {_est(g(load, '128K', 'NR-SACK'), 1e-6, 2)} vs SACK 256K {_est(g(load, '256K', 'SACK'), 1e-6, 2)} Mb/s" for load in busy)))
        claims.append(Claim("CMT-NR-SACK with 256K performs similar to CMT-SACK with INF at mild, medium and heavy path-1 load (§V.B.3; not lower beyond the 95% CIs or 5%)", all(_not_worse(g(load, "256K", "NR-SACK"), g(load, "INF", "SACK"), 0.05) for load in busy), "; ".join(f"{load}: NR-SACK 256K {_est(g(load, '256K', 'NR-SACK'), 1e-6, 2)} vs SACK INF {_est(g(load, 'INF', 'SACK'), 1e-6, 2)} Mb/s" for load in busy)))
    if "INF" in c.buffers:
        sk, n = [c.m(load, "INF", "SACK", rq) for load in c.loads], [c.m(load, "INF", "NR-SACK", rq) for load in c.loads]
        claims.append(Claim("CMT with INF buffers: SACK keeps a larger average rtxq than NR-SACK at every load (§V.B.3, Fig. 15)", all(a > b for a, b in zip(sk, n)), f"SACK {_fmt(c, 'INF', 'SACK', rq, 1e-3, 0)}; NR-SACK {_fmt(c, 'INF', 'NR-SACK', rq, 1e-3, 0)} KB"))
        claims.append(Claim("CMT-NR-SACK's average rtxq (INF) falls as path 1's load grows (Fig. 15)", _falls(n, 0.05 * max(n)), f"{_fmt(c, 'INF', 'NR-SACK', rq, 1e-3, 0)} KB"))
        if "mild" in c.loads:
            claims.append(Claim("CMT-SACK's average rtxq (INF) grows from mild to heavy load (Fig. 15)", sk[-1] > sk[c.loads.index("mild")], f"{_fmt(c, 'INF', 'SACK', rq, 1e-3, 0)} KB"))

    sw, nw = swings["SACK"], swings["NR-SACK"]
    runs = len({r["replication"] for r in c.rows})
    where = f"CMT, {c.buffers[0]}, {c.loads[-1]} path-1 load, " + (f"mean over {runs} runs" if runs > 1 else "one run")
    nums = f"times the rtxq filled the buffer and then fell below 10% of it: SACK {sw.swings}, NR-SACK {nw.swings}; std SACK {sw.std / 1024:.1f} KiB, NR-SACK {nw.std / 1024:.1f} KiB; mean SACK {sw.mean / 1024:.1f} KiB, NR-SACK {nw.mean / 1024:.1f} KiB; time above half the buffer SACK {sw.above_half:.2f}, NR-SACK {nw.above_half:.2f}"
    claims.append(Claim(f"{where}: CMT-SACK's rtxq varies more, reaching the buffer size and dropping to ~0 repeatedly, more than CMT-NR-SACK's (§V.B.1, Figs. 10-12)", sw.swings > nw.swings and sw.std > nw.std, nums))
    claims.append(Claim(f"{where}: CMT-NR-SACK's rtxq is closer to the buffer size most of the time (§V.B.1, Fig. 11; larger mean and more time above half the buffer than SACK's)", nw.mean > sw.mean and nw.above_half > sw.above_half, nums))

    worse = [
        f"{res.name} {load} {b}: {_est(res.cells[(load, b, 'NR-SACK')][gp], 1e-6, 2)} vs {_est(res.cells[(load, b, 'SACK')][gp], 1e-6, 2)} Mb/s"
        for res in (s, c)
        for load in res.loads
        for b in res.buffers
        if not _not_worse(res.cells[(load, b, "NR-SACK")][gp], res.cells[(load, b, "SACK")][gp], 0.02)
    ]
    claims.append(Claim("NR-SACK never performs worse than SACK: goodput at every point, SCTP and CMT (§VI; not lower beyond the 95% CIs or 2%)", not worse, "; ".join(worse) or "no point worse"))

    out_of_range = []
    for res, link in ((s, "R1->R2"), (c, "R1->R2")):
        for load in res.loads:
            loss = mean_ci([setup.link_stats({k.split(".", 2)[2]: v for k, v in r.items() if k.startswith(f"link.{link}.")})["loss"] for r in res.rows if r["param.load"] == load]).mean or 0.0
            lo_p, hi_p = setup.LOADS[load].paper_loss
            out_of_range.append((res.name, load, loss, lo_p <= loss <= hi_p))
    claims.append(Claim("(setup check, not a paper claim) the bottleneck loss rate of each load is in the paper's range (§IV.A: < 0.1%, 1-2%, 3-4%, 8-9%)", all(x[3] for x in out_of_range), ", ".join(f"{n} {load} {loss * 100:.2f}%" for n, load, loss, _ in out_of_range)))
    return claims


# --- the index page -----------------------------------------------------------------------------
def _index(out: Path, plan: Plan, claims: list[Claim], calibration: list[dict[str, Any]], figures: list[report_mod.Figure], quick: bool) -> Path:
    intro = [
        "Seed 000: NR-SACKs vs SACKs for unordered SCTP (topology 1, Fig. 5) and CMT (topology 2, Fig. 6) over HTTP / video / FTP cross traffic. "
        + (f"{'Quick' if quick else 'Full'} version: loads {', '.join(plan.loads)}; buffers {', '.join(plan.sctp_buffers)} (SCTP) and {', '.join(plan.cmt_buffers)} (CMT); "
        f"{plan.replications} run(s) of {plan.timing.stop_s:g} s per point."),
        plan.timing.describe() + ". Loads: " + "; ".join(f"{n}: {setup.LOADS[n].describe()} per pair and direction" for n in plan.loads) + ".",
        "The choices where the paper gives no number, and the calibration of the loads, are in the recipe's docstring (rexmit/recipes/nr_sack.py) and in each report.",
    ]
    sections = [("Calibration: cross traffic alone on topology 1 (§IV.A loads)", report_mod.html_table(calibration))] if calibration else []
    return report_mod.reproduction_index(out, "rexmit reproduce nr-sack (seed 000)", intro, claims, figures, sections)


def nr_sack(out: Path, quick: bool, jobs: Optional[int]) -> list[Claim]:
    """Seed 000 §V: SCTP (Figs. 7-8) and CMT (Figs. 9-15) with SACKs vs NR-SACKs; see the module
    docstring for the setup, the calibrated loads and the choices."""
    plan = QUICK if quick else FULL
    out.mkdir(parents=True, exist_ok=True)
    calibration = setup.calibrate(out / "calibration", {n: setup.LOADS[n] for n in plan.loads}, plan.calibration_runs, setup.Timing(), jobs) if plan.calibration_runs else []
    s = _run(out, "sctp", "SCTP, topology 1 (Figs. 7-8)", _sctp_build(plan.timing), plan.sctp_buffers, SCTP_BUFFERS, SCTP_METRICS, ["R1->R2"], plan, jobs)
    c = _run(out, "cmt", "CMT, topology 2 (Figs. 9-15)", _cmt_build(plan.timing), plan.cmt_buffers, CMT_BUFFERS, CMT_METRICS, ["R1->R2", "R3->R4"], plan, jobs)
    figures_dir = out / "figures"
    figures = [_paper_figure(s, f, figures_dir) for f in SCTP_FIGURES] + [_paper_figure(c, f, figures_dir) for f in CMT_FIGURES]
    rtxq_fig, swings = _rtxq_figure(c, figures_dir)
    figures.append(rtxq_fig)
    claims = _claims(s, c, swings)
    _index(out, plan, claims, calibration, figures, quick)
    return claims
