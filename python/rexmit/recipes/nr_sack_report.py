"""The ``nr-sack`` figures, drawn like seed 000's (Figs. 7-15), and its index page: claims,
calibration, figures and links to the sweep reports."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rexmit import report as report_mod
from rexmit.labels import PALETTE
from rexmit.recipes import seed000_setup as setup
from rexmit.recipes.common import Claim
from rexmit.recipes.nr_sack_plan import ACKS, BLOCKED, CMT_BUFFERS, GOODPUT, SERIES_RTXQ, F, Plan
from rexmit.recipes.nr_sack_runs import Results, RtxqSwing, mean_swing, rtxq_runs, rtxq_swing, run_series, warmup_s


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
    PaperFigure(
        "sctp_blocked",
        "Send-buffer blocking in SCTP (§V.B)",
        BLOCKED,
        "Time send-buffer blocked (fraction of the trace window)",
    ),
    PaperFigure("sctp_goodput", "Goodput of SCTP", GOODPUT, "Goodput over the trace window (Mb/s)", 1e-6),
]
CMT_FIGURES = [
    PaperFigure("fig9_cmt_rtxq_util", "Fig. 9: RtxQ_Util in CMT", F + "rtxq_util", "RtxQ_Util"),
    PaperFigure(
        "fig13_cmt_timeouts",
        "Fig. 13: timeout recoveries in CMT",
        F + "timeouts",
        "Timeouts (from the association's start)",
    ),
    PaperFigure(
        "cmt_blocked",
        "Send-buffer blocking in CMT (§V.B)",
        BLOCKED,
        "Time send-buffer blocked (fraction of the trace window)",
    ),
    PaperFigure("fig14_cmt_goodput", "Fig. 14: goodput of CMT", GOODPUT, "Goodput over the trace window (Mb/s)", 1e-6),
    PaperFigure(
        "fig15_cmt_rtxq_mean", "Fig. 15: average rtxq size in CMT", F + "rtxq_bytes_mean", "Average rtxq (KB)", 1e-3
    ),
]


def paper_figure(res: Results, spec: PaperFigure, figures: Path) -> report_mod.Figure:
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
            ax.errorbar(
                xs,
                means,
                yerr=errs,
                color=PALETTE[i % len(PALETTE)],
                marker="o" if ack == "SACK" else "s",
                linestyle="--" if ack == "SACK" else "-",
                capsize=3,
                label=label,
            )
    ax.set_xticks(xs, [load.capitalize() for load in res.loads])
    ax.set_xlabel("Cross-traffic load" + (" on path 1 (path 2: low)" if res.name == "cmt" else ""))
    ax.set_ylabel(spec.ylabel)
    ax.set_title(f"{spec.title}: mean and 95% CI")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small", ncol=len(res.buffers))
    return report_mod.save_figure(fig, figures, spec.name, spec.title)


def rtxq_figure(res: Results, figures: Path) -> tuple[report_mod.Figure, dict[str, RtxqSwing]]:
    """Figs. 10-11 from replication 0; the swing statistics are means over all replications."""
    runs = rtxq_runs(res)
    buffer = res.buffers[0]
    size = report_mod.as_number(CMT_BUFFERS[buffer])[0] or 0.0
    fig = report_mod.new_figure(6.4, 5.0)
    swings = {}
    for i, ack in enumerate(ACKS):
        per_run = []
        for run_id in runs[ack]:
            t, v = run_series(res.dir, run_id)[SERIES_RTXQ]
            per_run.append(rtxq_swing(t, v, warmup_s(res.dir, run_id), size))
        swings[ack] = mean_swing(per_run)
        ax = fig.add_subplot(2, 1, i + 1)
        t, v = run_series(res.dir, runs[ack][0])[SERIES_RTXQ]
        w = warmup_s(res.dir, runs[ack][0])
        ax.plot(t, [x / 1024 for x in v], linewidth=0.6, color=PALETTE[i])
        ax.axvline(w, color="grey", linestyle="--", linewidth=1, label="trace starts")
        ax.set_xlim(w - 2, t[-1])
        ax.set_ylabel("Retransmission queue (KiB)")
        ax.set_title(f"CMT-{ack}, {buffer} send buffer, {res.loads[-1]} path-1 load (Fig. {10 + i})", fontsize="small")
        ax.grid(alpha=0.3)
    ax.set_xlabel("Time (s)")
    title = "Figs. 10-11: retransmission queue evolution in CMT"
    return report_mod.save_figure(fig, figures, "fig10_11_cmt_rtxq", title), swings


def index(
    out: Path,
    plan: Plan,
    claims: list[Claim],
    calibration: list[dict[str, Any]],
    figures: list[report_mod.Figure],
    quick: bool,
) -> Path:
    intro = [
        "Seed 000: NR-SACKs vs SACKs for unordered SCTP (topology 1, Fig. 5) and CMT (topology 2, Fig. 6) over HTTP / video / FTP cross traffic. "
        + (
            f"{'Quick' if quick else 'Full'} version: loads {', '.join(plan.loads)}; buffers {', '.join(plan.sctp_buffers)} (SCTP) and {', '.join(plan.cmt_buffers)} (CMT); "
            f"{plan.replications} run(s) of {plan.timing.stop_s:g} s per point."
        ),
        plan.timing.describe()
        + ". Loads: "
        + "; ".join(f"{n}: {setup.LOADS[n].describe()} per pair and direction" for n in plan.loads)
        + ".",
        "The choices where the paper gives no number, and the calibration of the loads, are in the recipe's docstring (rexmit/recipes/nr_sack.py) and in each report.",
    ]
    sections = (
        [("Calibration: cross traffic alone on topology 1 (§IV.A loads)", report_mod.html_table(calibration))]
        if calibration
        else []
    )
    return report_mod.reproduction_index(out, "rexmit reproduce nr-sack (seed 000)", intro, claims, figures, sections)
