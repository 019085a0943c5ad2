"""The ``thin-streams`` figures (drawn by :mod:`rexmit.recipes.thin_figures`) and its index page:
claims, figures, tables and links to the sweep reports."""

from __future__ import annotations

from pathlib import Path

from rexmit import report as report_mod
from rexmit.recipes import thin_figures as tf
from rexmit.recipes import thin_scenarios as ts
from rexmit.recipes.common import Claim
from rexmit.recipes.thin_plan import NOTES
from rexmit.recipes.thin_runs import Results, fair_rows, grid_series, pct


def draw_figures(r: Results, figures: Path) -> list[report_mod.Figure]:
    figs = [
        tf.bars(
            s,
            figures,
            f"fig8a_{pct(loss).rstrip('%')}pct",
            f"Fig. 8a: lab, RTT 100 ms, {pct(loss)} uniform loss, 4 × 100 B/s",
        )
        for loss, s in sorted(r.fig8.items())
    ]
    figs.append(
        tf.bars(
            r.http_rtt[float(ts.LAB_RTT_MS)],
            figures,
            "fig8b_http",
            "Fig. 8b: HTTP cross traffic, RTT 100 ms, 4 × 100 B/s",
        )
    )
    if len(r.http_iat) > 1:
        figs.append(
            tf.lines(
                r.http_iat,
                "interarrival time (ms)",
                figures,
                "fig10_http",
                "Fig. 10: HTTP cross traffic, RTT 100 ms",
                ["rtx1", "rtx2"],
            )
        )
    for loss in sorted({p for p, _, _ in r.grid}):
        series = grid_series(r, loss, float(ts.LAB_RTT_MS))
        if len(series) > 1:
            figs.append(
                tf.lines(
                    series,
                    "interarrival time (ms)",
                    figures,
                    f"fig10_lab_{pct(loss).rstrip('%')}pct",
                    f"Fig. 10 style: {pct(loss)} uniform loss, RTT 100 ms",
                    ["rtx1", "rtx2"],
                )
            )
        iat = max(i for p, _, i in r.grid if p == loss)
        by_rtt = {t: s for (p, t, i), s in r.grid.items() if p == loss and i == iat}
        if len(by_rtt) > 1:
            figs.append(
                tf.lines(
                    by_rtt,
                    "RTT (ms)",
                    figures,
                    f"rtt_lab_{pct(loss).rstrip('%')}pct",
                    f"RTT: {pct(loss)} uniform loss, interarrival {iat:g} ms (mean)",
                    tf.BUCKETS,
                    ("mean",),
                )
            )
    if len(r.http_rtt) > 1:
        figs.append(
            tf.lines(
                r.http_rtt,
                "RTT (ms)",
                figures,
                "rtt_http",
                "RTT: HTTP cross traffic, interarrival 250 ms (mean)",
                tf.BUCKETS,
                ("mean",),
            )
        )
    figs.append(tf.fairness_figure(r.fair, figures))
    figs.append(tf.preset_bars(r.presets, figures))
    return figs


def index(out: Path, r: Results, claims: list[Claim], figures: list[report_mod.Figure], quick: bool) -> Path:
    scope = (
        "Quick version (a reduced grid; see the recipe's docstring)."
        if quick
        else "Full version: 2 h per latency run, replications as in the recipe's docstring."
    )
    intro = [
        f"Seed 004: latency per retransmission of thin streams, lksctp vs the §5 modifications, EFR, RFC 5827 ER and TCP New Reno. {scope}",
        "Bar figures: bars are means, dashes 99th percentiles, crosses maxima.",
        *NOTES,
    ]
    tables = [
        (f"Fig. 8a, {pct(loss)} uniform loss: latency per retransmission (ms)", tf.latency_rows(s))
        for loss, s in sorted(r.fig8.items())
    ]
    tables.append(
        (
            "Fig. 8b, HTTP cross traffic: latency per retransmission (ms)",
            tf.latency_rows(r.http_rtt[float(ts.LAB_RTT_MS)]),
        )
    )
    tables.append(
        ("Fig. 9, HTTP cross traffic: retransmissions by cause (summed over runs)", tf.cause_rows(r.http_rows))
    )
    tables.append(("HTTP cross traffic: bottleneck loss and utilisation (§6.2 measured about 5% loss)", r.http_loss))
    tables.append(("Fairness (Fig. 11)", fair_rows(r.fair)))
    tables.extend(
        (f"Table 1 source {p}: latency per retransmission (ms)", tf.latency_rows(s, [*tf.BUCKETS, "any"]))
        for p, s in r.presets.items()
    )
    sections = [(t, report_mod.html_table(rows)) for t, rows in tables]
    return report_mod.reproduction_index(
        out, "rexmit reproduce thin-streams (seed 004)", intro, claims, figures, sections
    )
