"""The ``nr-sack`` figures, drawn like seed 000's (Figs. 7-15), and its index page: claims,
calibration, figures and links to the sweep reports."""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rexmit import report as report_mod
from rexmit.recipes import seed000_setup as setup
from rexmit.recipes.common import CLAIM_COLUMNS, Claim, claim_rows
from rexmit.recipes.nr_sack_plan import ACKS, BLOCKED, CMT_BUFFERS, F, GOODPUT, Plan, SERIES_RTXQ
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
    PaperFigure("sctp_blocked", "Send-buffer blocking in SCTP (§V.B)", BLOCKED, "fraction of the trace window blocked"),
    PaperFigure("sctp_goodput", "Goodput of SCTP", GOODPUT, "goodput over the trace window (Mb/s)", 1e-6),
]
CMT_FIGURES = [
    PaperFigure("fig9_cmt_rtxq_util", "Fig. 9: RtxQ_Util in CMT", F + "rtxq_util", "RtxQ_Util"),
    PaperFigure("fig13_cmt_timeouts", "Fig. 13: timeout recoveries in CMT", F + "timeouts", "timeouts (from the association's start)"),
    PaperFigure("cmt_blocked", "Send-buffer blocking in CMT (§V.B)", BLOCKED, "fraction of the trace window blocked"),
    PaperFigure("fig14_cmt_goodput", "Fig. 14: goodput of CMT", GOODPUT, "goodput over the trace window (Mb/s)", 1e-6),
    PaperFigure("fig15_cmt_rtxq_mean", "Fig. 15: average rtxq size in CMT", F + "rtxq_bytes_mean", "average rtxq (KB)", 1e-3),
]


def paper_figure(res: Results, spec: PaperFigure, figures: Path) -> report_mod.Figure:
    fig = report_mod._new_figure()
    ax = fig.add_subplot()
    xs = list(range(len(res.loads)))
    for i, buffer in enumerate(res.buffers):
        for ack in ACKS:
            cells = [res.cells[(load, buffer, ack)][spec.metric] for load in res.loads]
            means = [e.mean * spec.scale if e.mean is not None else float("nan") for e in cells]
            errs = [(e.half_width or 0.0) * spec.scale for e in cells]
            ax.errorbar(xs, means, yerr=errs, color=f"C{i}", marker="o" if ack == "SACK" else "s", linestyle="--" if ack == "SACK" else "-", capsize=3, label=f"{buffer} {ack}")
    ax.set_xticks(xs, res.loads)
    ax.set_xlabel("cross-traffic load" + (" on path 1 (path 2: low)" if res.name == "cmt" else ""))
    ax.set_ylabel(spec.ylabel)
    ax.set_title(f"{spec.title}: mean and 95% CI")
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small", ncol=len(res.buffers))
    return report_mod._save(fig, figures, spec.name, spec.title)


def rtxq_figure(res: Results, figures: Path) -> tuple[report_mod.Figure, dict[str, RtxqSwing]]:
    """Figs. 10-11 from replication 0; the swing statistics are means over all replications."""
    runs = rtxq_runs(res)
    buffer = res.buffers[0]
    size = report_mod.as_number(CMT_BUFFERS[buffer])[0] or 0.0
    fig = report_mod._new_figure(6.4, 5.0)
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
        ax.plot(t, [x / 1024 for x in v], linewidth=0.6)
        ax.axvline(w, color="grey", linestyle="--", linewidth=1, label="trace starts")
        ax.set_xlim(w - 2, t[-1])
        ax.set_ylabel("rtxq (KiB)")
        ax.set_title(f"CMT-{ack}, {buffer} send buffer, {res.loads[-1]} path-1 load (Fig. {10 + i})", fontsize="small")
        ax.grid(alpha=0.3)
    ax.set_xlabel("time (s)")
    title = "Figs. 10-11: retransmission queue evolution in CMT"
    return report_mod._save(fig, figures, "fig10_11_cmt_rtxq", title), swings


def index(out: Path, plan: Plan, claims: list[Claim], calibration: list[dict[str, Any]], figures: list[report_mod.Figure], quick: bool) -> Path:
    links = "".join(f'<li><a href="{html.escape(p.parent.name)}/report.html">{html.escape(p.parent.name)}</a></li>' for p in sorted(out.glob("*/report.html")))
    intro = [
        "Seed 000: NR-SACKs vs SACKs for unordered SCTP (topology 1, Fig. 5) and CMT (topology 2, Fig. 6) over HTTP / video / FTP cross traffic. "
        + (f"{'Quick' if quick else 'Full'} version: loads {', '.join(plan.loads)}; buffers {', '.join(plan.sctp_buffers)} (SCTP) and {', '.join(plan.cmt_buffers)} (CMT); "
        f"{plan.replications} run(s) of {plan.timing.stop_s:g} s per point."),
        plan.timing.describe() + ". Loads: " + "; ".join(f"{n}: {setup.LOADS[n].describe()} per pair and direction" for n in plan.loads) + ".",
        "The choices where the paper gives no number, and the calibration of the loads, are in the recipe's docstring (rexmit/recipes/nr_sack.py) and in each report.",
    ]
    sections = [
        ("Overview", "".join(f"<p>{html.escape(p)}</p>" for p in intro)),
        ("Claims", report_mod._html_table(claim_rows(claims, quick), CLAIM_COLUMNS)),
        ("Figures (mean and 95% CI over the replications)", report_mod._embed(figures)),
        ("Reports (one sweep per topology: Figs. 7-9, 13, 15, blocking, timeouts)", f"<ul>{links}</ul>"),
    ]
    if calibration:
        sections.insert(2, ("Calibration: cross traffic alone on topology 1 (§IV.A loads)", report_mod._html_table(calibration)))
    page = out / "index.html"
    page.write_text(report_mod._page("rexmit reproduce nr-sack (seed 000)", sections), encoding="utf-8")
    return page
