"""Latency per retransmission for the ``thin-streams`` recipe: statistics pooled over a sweep's
replications, figures in the style of seed 004's Figs. 8, 10 and 11, and tables.

Owns reading the per-flow latency metrics (``latency_rtx{1,2,3}_{count,mean_s,p99_s,max_s}``)
of a finished sweep and combining them over replications: the mean weighted by message count
and the largest maximum are exact; the 99th percentile is the mean of each run's 99th
percentile (runs without such a message left out), as the sweep keeps no per-message table.
Not here: scenarios (``thin_scenarios``), claims (``thin_claims``) and the index page (``thin_report``).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rexmit import report as report_mod
from rexmit.labels import PALETTE
from rexmit.recipes.thin_scenarios import LABELS, VARIANT_NAMES
from rexmit.sweep import load as load_runs

BUCKETS = ["rtx1", "rtx2", "rtx3"]
ORDINAL = {"rtx1": "1st", "rtx2": "2nd", "rtx3": "3rd", "rtx4plus": "4th+", "any": "any"}
# Variants drawn on the line figures (Fig. 10 shows lksctp, mod min rto and All mods; the others
# make the figure unreadable and are in the tables).
LINE_VARIANTS = ["lksctp", "mod_min_rto", "mod_fr", "all_mods", "tcp_newreno"]


@dataclass(frozen=True)
class Latency:
    """Latency of the messages that needed a given number of retransmissions, pooled over runs
    (seconds; NaN without messages)."""

    n: int
    mean: float
    p99: float
    max: float

    def ms(self, stat: str) -> str:
        value = getattr(self, stat)
        return "–" if math.isnan(value) else f"{value * 1e3:.0f}"


def _num(value: Any) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else float(value)


def pooled(rows: Sequence[dict[str, Any]], flow: str, bucket: str) -> Latency:
    """``bucket`` is ``rtx1`` … ``rtx4plus``, or ``any`` for every message retransmitted at
    least once (mean and max only)."""
    if bucket == "any":
        parts = [pooled(rows, flow, b) for b in [*BUCKETS, "rtx4plus"]]
        n = sum(p.n for p in parts)
        mean = sum(p.n * p.mean for p in parts if p.n) / n if n else math.nan
        return Latency(n, mean, math.nan, max((p.max for p in parts if p.n), default=math.nan))
    key = f"flow.{flow}.latency_{bucket}_"
    runs = [r for r in rows if (_num(r.get(key + "count")) or 0) > 0]
    n = sum(int(r[key + "count"]) for r in runs)
    if not n:
        return Latency(0, math.nan, math.nan, math.nan)
    mean = sum(r[key + "count"] * r[key + "mean_s"] for r in runs) / n
    return Latency(n, mean, statistics.mean(r[key + "p99_s"] for r in runs), max(r[key + "max_s"] for r in runs))


def total(rows: Sequence[dict[str, Any]], flow: str, metric: str) -> float:
    """A count metric summed over the runs (0 where the flow does not report it)."""
    return sum(_num(r.get(f"flow.{flow}.{metric}")) or 0.0 for r in rows)


def by_point(out: Path, keys: Sequence[str]) -> dict[tuple[Any, ...], list[dict[str, Any]]]:
    """A finished sweep's runs grouped by the values of the parameters ``keys``."""
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for r in load_runs(out).to_pylist():
        groups.setdefault(tuple(r[f"param.{k}"] for k in keys), []).append(r)
    return groups


Stats = dict[str, dict[str, Latency]]  # variant -> bucket -> latency


def variants_in(rows: Sequence[dict[str, Any]]) -> list[str]:
    """The variants that ran in these runs (the HTTP runs leave EFR out)."""
    return [v for v in VARIANT_NAMES if any(_num(r.get(f"flow.{v}.messages_delivered")) is not None for r in rows)]


def stats_of(rows: Sequence[dict[str, Any]], buckets: Sequence[str] = (*BUCKETS, "any")) -> Stats:
    return {v: {b: pooled(rows, v, b) for b in buckets} for v in variants_in(rows)}


# --- tables --------------------------------------------------------------------------------
def latency_rows(stats: Stats, buckets: Sequence[str] = BUCKETS) -> list[dict[str, Any]]:
    """One row per variant: n, mean, p99 and max (ms) for each retransmission count."""
    rows = []
    for v, per in stats.items():
        row: dict[str, Any] = {"variant": LABELS[v]}
        for b in buckets:
            lat = per[b]
            row[f"{ORDINAL[b]} n"] = lat.n
            for stat in ("mean", "p99", "max"):
                if b != "any" or stat != "p99":
                    row[f"{ORDINAL[b]} {stat} ms"] = lat.ms(stat)
        rows.append(row)
    return rows


# SCTP's retransmissions by cause (Fig. 9: TO, FR, B) and the spurious ones (ground truth: the
# receiver got the TSN twice); TCP's equivalents.
_SCTP_CAUSES = [
    ("timeouts (TO)", "rtx_timeout"),
    ("fast rtx, 3 misses (FR)", "rtx_fast"),
    ("fast rtx, 1st indication", "rtx_thin_fast"),
    ("RFC 5827 ER", "rtx_early"),
    ("EFR", "rtx_efr"),
    ("bundled (B)", "rtx_bundled"),
    ("spurious", "dup_tsns_received"),
]
_TCP_CAUSES = {
    "timeouts (TO)": "retransmits_timeout",
    "fast rtx, 3 misses (FR)": "retransmits_fast",
    "spurious": "spurious_retransmits",
}


def cause_rows(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Retransmissions by cause per variant, summed over the runs (Fig. 9's split)."""
    out = []
    for v in variants_in(rows):
        tcp = v == "tcp_newreno"
        row: dict[str, Any] = {"variant": LABELS[v], "messages": int(total(rows, v, "messages_delivered"))}
        row["retransmissions"] = int(total(rows, v, "retransmissions"))
        for label, metric in _SCTP_CAUSES:
            name = _TCP_CAUSES.get(label) if tcp else metric
            row[label] = int(total(rows, v, name)) if name else "–"
        out.append(row)
    return out


# --- figures -------------------------------------------------------------------------------
# Okabe-Ito without black (the 99th percentile and maximum marks are black); a variant past the
# seventh colour is told apart by hatching.
_COLOURS = [c for c in PALETTE if c != "#000000"]


def _colours(names: Sequence[str]) -> dict[str, Any]:
    return {v: _COLOURS[VARIANT_NAMES.index(v) % len(_COLOURS)] for v in names}


def _hatch(variant: str) -> str | None:
    return "//" if VARIANT_NAMES.index(variant) >= len(_COLOURS) else None


def bars(stats: Stats, figures: Path, name: str, title: str, buckets: Sequence[str] = BUCKETS) -> report_mod.Figure:
    """Seed 004 Fig. 8's style: per retransmission count, one bar per variant for the mean, a
    dash at the 99th percentile and a cross at the maximum."""
    fig = report_mod.new_figure(9.0, 4.4)
    ax = fig.add_subplot()
    names = list(stats)
    colour = _colours(names)
    width = 0.8 / len(names)
    for i, v in enumerate(names):
        xs = [k + (i - (len(names) - 1) / 2) * width for k in range(len(buckets))]
        lat = [stats[v][b] for b in buckets]
        ax.bar(
            xs, [x.mean * 1e3 for x in lat], width, color=colour[v], hatch=_hatch(v), edgecolor="white", label=LABELS[v]
        )
        ax.scatter(
            xs,
            [x.p99 * 1e3 for x in lat],
            marker="_",
            s=120,
            color="black",
            zorder=3,
            label="99th percentile" if i == 0 else None,
        )
        ax.scatter(
            xs,
            [x.max * 1e3 for x in lat],
            marker="x",
            s=20,
            color="black",
            zorder=3,
            label="maximum" if i == 0 else None,
        )
    ax.set_xticks(range(len(buckets)), [f"{ORDINAL[b]} retransmission" for b in buckets])
    ax.set_ylabel("Latency (ms)")
    ax.set_title(title)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize="small", ncol=4, loc="upper center", bbox_to_anchor=(0.5, -0.1))
    return report_mod.save_figure(fig, figures, name, title)


def lines(
    series: dict[Any, Stats],
    x_label: str,
    figures: Path,
    name: str,
    title: str,
    buckets: Sequence[str],
    stats_drawn: Sequence[str] = ("mean", "p99"),
    variants: Sequence[str] = LINE_VARIANTS,
) -> report_mod.Figure:
    """Seed 004 Fig. 10's style: latency against ``x`` (the keys of ``series``, numbers), one
    panel per retransmission count, one colour per variant, mean solid and p99 dashed."""
    xs = sorted(series)
    fig = report_mod.new_figure(4.2 * len(buckets), 4.2)
    axes = fig.subplots(1, len(buckets), squeeze=False)[0]
    colour = _colours(variants)
    styles = {"mean": "-", "p99": "--", "max": ":"}
    for ax, b in zip(axes, buckets):
        for v in variants:
            for stat in stats_drawn:
                ys = [getattr(series[x][v][b], stat) * 1e3 for x in xs]
                ax.plot(xs, ys, styles[stat], marker="o", markersize=3, color=colour[v], label=f"{LABELS[v]} {stat}")
        ax.set_xlabel(x_label[:1].upper() + x_label[1:])
        ax.set_ylabel(f"Latency of the {ORDINAL[b]} retransmission (ms)")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize="x-small", ncol=2)
    fig.suptitle(title)
    return report_mod.save_figure(fig, figures, name, title)


def fairness_figure(
    goodput: dict[tuple[str, bool], dict[float, tuple[float, float]]], figures: Path
) -> report_mod.Figure:
    """Seed 004 Fig. 11: (a) the test stream's and (b) the greedy flow's throughput against the
    test stream's attempted rate, with lksctp and with all modifications. ``goodput`` maps
    (greedy kind, modified) to {attempted rate: (test stream, greedy) bit/s}."""
    fig = report_mod.new_figure(10.0, 4.2)
    a, b = fig.subplots(1, 2)
    for (greedy, modified), points in sorted(goodput.items()):
        rates = sorted(points)
        style = dict(marker="o" if modified else "s", linestyle="-" if modified else "--", markersize=4)
        label = f"{'modified' if modified else 'lksctp'} vs greedy {greedy.replace('_bulk', '').upper()}"
        colour = PALETTE[(2 if greedy.startswith("tcp") else 0) + int(modified)]
        a.plot([r / 1e3 for r in rates], [points[r][0] / 1e3 for r in rates], label=label, color=colour, **style)
        b.plot([r / 1e3 for r in rates], [points[r][1] / 1e3 for r in rates], label=label, color=colour, **style)
    for ax, what in ((a, "(a) Test stream throughput (kb/s)"), (b, "(b) Greedy flow throughput (kb/s)")):
        ax.set_xscale("log")
        ax.set_xlabel("Attempted rate of the test stream (kb/s)")
        ax.set_ylabel(what)
        ax.grid(alpha=0.3)
    a.legend(fontsize="x-small")
    title = "Fig. 11: fairness, 1 Mb/s bottleneck, 50 ms each way"
    fig.suptitle(title)
    return report_mod.save_figure(fig, figures, "fig11_fairness", title)


def preset_bars(per_preset: dict[str, Stats], figures: Path) -> report_mod.Figure:
    """Table 1's applications: per source, one bar per variant for the mean latency of the
    messages retransmitted at least once, a cross at the maximum (log scale)."""
    fig = report_mod.new_figure(10.0, 4.4)
    ax = fig.add_subplot()
    presets = list(per_preset)
    names = VARIANT_NAMES
    colour = _colours(names)
    width = 0.8 / len(names)
    for i, v in enumerate(names):
        xs = [k + (i - (len(names) - 1) / 2) * width for k in range(len(presets))]
        lat = [per_preset[p][v]["any"] for p in presets]
        ax.bar(
            xs, [x.mean * 1e3 for x in lat], width, color=colour[v], hatch=_hatch(v), edgecolor="white", label=LABELS[v]
        )
        ax.scatter(
            xs,
            [x.max * 1e3 for x in lat],
            marker="x",
            s=16,
            color="black",
            zorder=3,
            label="maximum" if i == 0 else None,
        )
    ax.set_yscale("log")
    ax.set_xticks(range(len(presets)), presets)
    ax.set_ylabel("Latency of retransmitted messages (ms)")
    title = "Table 1 sources (RTT 100 ms, 5% loss): mean and max latency of retransmitted messages"
    ax.set_title(title, fontsize="medium")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize="x-small", ncol=5, loc="upper center", bbox_to_anchor=(0.5, -0.1))
    return report_mod.save_figure(fig, figures, "table1_presets", title)
