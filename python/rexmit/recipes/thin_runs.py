"""Running the ``thin-streams`` sweeps (seed 004) and reading their results as the claims and
figures need them: one sweep per setup of the plan (:mod:`rexmit.recipes.thin_plan`), each with its
report, and :class:`Results`. Not here: the scenarios (``thin_scenarios``), the claims
(``thin_claims``), the figures and the index page (``thin_figures``, ``thin_report``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from rexmit import report as report_mod
from rexmit.labels import metric_label
from rexmit.recipes import thin_figures as tf
from rexmit.recipes import thin_scenarios as ts
from rexmit.recipes.common import run_recipe_sweep
from rexmit.recipes.thin_figures import Stats
from rexmit.recipes.thin_plan import NOTES, Plan
from rexmit.sweep import Sweep, summarize
from rexmit.view_pages import FlowViews

BOTTLENECK = "link.R1->R2"


def _labels(varied: Sequence[str], metrics: Sequence[str]) -> dict[str, Any]:
    """The sweep reports' names: seed 004's words for the varied keys, latencies in ms, each
    metric named with its variant."""
    keys = {
        ts.RTT_KEY: {"name": "Sender's link delay (RTT/2)", "unit": "ms"},
        ts.LOSS_KEY: "Uniform loss rate",
        ts.IAT_KEY: {"name": "Interarrival time", "unit": "ms"},
        ts.SOURCE_KEY: "Table 1 source",
    }
    out: dict[str, Any] = {k: v for k, v in keys.items() if k in varied}
    for m in metrics:
        flow = m.split(".")[1]
        out[m] = {
            "name": f"{ts.LABELS.get(flow, flow)}: {metric_label(m).name[0].lower()}{metric_label(m).name[1:]}",
            "unit": "ms",
        }
    return out


def _sweep(
    out: Path,
    name: str,
    title: str,
    base: dict[str, Any],
    grid: dict[str, list[Any]],
    zip_: dict[str, list[Any]],
    reps: int,
    jobs: int | None,
    x: str,
    metrics: Sequence[str],
    tables: Callable[[Path], list[tuple[str, list[dict[str, Any]]]]],
) -> Path:
    spec = {
        "name": f"seed 004 {title}",
        "replications": reps,
        "seed": 4,
        "base": base,
        "grid": grid,
        "zip": zip_,
        "report": {"x": x, "metrics": list(metrics)},
        "labels": _labels([*grid, *zip_], [*metrics, *FALLBACK_MEANS]),
    }
    d = out / name
    run_recipe_sweep(Sweep.from_dict(spec), d, jobs=jobs, views="lksctp")
    # A short run may have no message with a 2nd retransmission (an all-null column): then the
    # figures show the mean latency of all messages.
    present = set(summarize(d).column_names)
    drawn = [m for m in metrics if f"{m}.mean" in present] or FALLBACK_MEANS
    report_mod.report(d, metrics=drawn, notes=NOTES, tables=tables(d), views=FlowViews("lksctp"))
    return d


def ms(value: str) -> float:
    return (report_mod.as_number(value)[0] or 0.0) * 1e3


RTX2_MEANS = [f"flow.{v}.latency_rtx2_mean_s" for v in ("lksctp", "all_mods", "tcp_newreno")]
FALLBACK_MEANS = [f"flow.{v}.latency_mean_s" for v in ("lksctp", "all_mods", "tcp_newreno")]


def _point_tables(
    keys: Sequence[str], label: Callable[[tuple[Any, ...]], str]
) -> Callable[[Path], list[tuple[str, list[dict[str, Any]]]]]:
    """Per point of a latency sweep: latency per retransmission and retransmissions by cause."""

    def tables(d: Path) -> list[tuple[str, list[dict[str, Any]]]]:
        out = []
        for key, rows in tf.by_point(d, keys).items():
            out.append(
                (
                    f"{label(key)}: latency per retransmission (ms; pooled over {len(rows)} runs)",
                    tf.latency_rows(tf.stats_of(rows), [*tf.BUCKETS, "any"]),
                )
            )
            out.append((f"{label(key)}: retransmissions by cause, summed over the runs", tf.cause_rows(rows)))
        return out

    return tables


# --- the sweeps ----------------------------------------------------------------------------
def _lab_label(key: tuple[Any, ...]) -> str:
    loss, *rest = key
    text = f"{loss:.0%} uniform loss"
    if rest:
        text += f", RTT {2 * ms(rest[0]):g} ms, interarrival {ms(rest[1]):g} ms"
    return text


def _http_label(rtt_ms: float, iat_ms: float) -> str:
    return f"HTTP cross traffic, RTT {rtt_ms:g} ms, interarrival {iat_ms:g} ms"


def _http_loss_rows(d: Path, key: str, label: Callable[[tuple[Any, ...]], str]) -> list[dict[str, Any]]:
    """Per point: the bottleneck's drop rate and utilisation, and how many thin-stream messages
    needed a retransmission."""
    rows = []
    for k, runs in tf.by_point(d, [key]).items():
        drops = sum(r[f"{BOTTLENECK}.drop_overflow"] for r in runs) / sum(
            r[f"{BOTTLENECK}.offered_packets"] for r in runs
        )
        util = sum(r[f"{BOTTLENECK}.utilization"] for r in runs) / len(runs)
        retransmitted = tf.pooled(runs, "lksctp", "any").n
        counted = retransmitted + tf.total(runs, "lksctp", "latency_rtx0_count")
        rows.append(
            {
                "point": label(k),
                "bottleneck loss": f"{drops:.2%}",
                "utilisation": f"{util:.3f}",
                "lksctp messages retransmitted": f"{retransmitted / max(counted, 1):.2%}",
            }
        )
    return rows


# The HTTP sweeps' varied key and how a point is named.
HTTP_LABELS: dict[str, tuple[str, Callable[[tuple[Any, ...]], str]]] = {
    "http_rtt": (ts.RTT_KEY, lambda k: _http_label(2 * ms(k[0]), ts.LAB_IAT_MS)),
    "http_iat": (ts.IAT_KEY, lambda k: _http_label(ts.LAB_RTT_MS, ms(k[0]))),
}


def run_latency(out: Path, plan: Plan, jobs: int | None) -> dict[str, Path]:
    dirs = {}
    dirs["fig8_lab"] = _sweep(
        out,
        "fig8_lab",
        "Fig. 8a: lab, uniform loss",
        ts.lab(plan.latency_s, 0.05),
        {ts.LOSS_KEY: ts.LOSSES},
        {},
        plan.fig8_reps,
        jobs,
        ts.LOSS_KEY,
        RTX2_MEANS,
        _point_tables([ts.LOSS_KEY], _lab_label),
    )
    grid: dict[str, list[Any]] = {ts.LOSS_KEY: plan.grid_losses, ts.RTT_KEY: [ts.rtt_value(r) for r in plan.grid_rtts]}
    dirs["lab_grid"] = _sweep(
        out,
        "lab_grid",
        "RTT x loss x interarrival, uniform loss",
        ts.lab(plan.grid_s, 0.05),
        grid,
        ts.iat_zip(plan.grid_iats),
        plan.grid_reps,
        jobs,
        ts.IAT_KEY,
        RTX2_MEANS,
        _point_tables([ts.LOSS_KEY, ts.RTT_KEY, ts.IAT_KEY], _lab_label),
    )
    http_sweeps = [
        ("http_rtt", "Fig. 8b: HTTP cross traffic, RTTs", {ts.RTT_KEY: [ts.rtt_value(r) for r in plan.http_rtts]}, {}),
        (
            "http_iat",
            "Fig. 10: HTTP cross traffic, interarrival times",
            {},
            ts.iat_zip(plan.http_iats, len(ts.HTTP_VARIANTS)),
        ),
    ]
    for name, title, grid, zip_ in http_sweeps:
        key, label = HTTP_LABELS[name]
        if not (grid or plan.http_iats):
            continue  # --quick: the RTT sweep's 250 ms point only
        tables = lambda d, key=key, label=label: [
            ("Bottleneck loss and utilisation (§6.2 measured about 5% loss)", _http_loss_rows(d, key, label)),
            *_point_tables([key], label)(d),
        ]
        dirs[name] = _sweep(
            out, name, title, ts.http(plan.http_s), grid, zip_, plan.http_reps, jobs, key, RTX2_MEANS, tables
        )
    return dirs


def _fair_rate(iat_ms: float) -> float:
    """Attempted rate (bit/s) of 100 B messages every ``iat_ms``."""
    return ts.MESSAGE_BYTES * 8 / (iat_ms / 1e3)


FairPoints = dict[tuple[str, bool], dict[float, tuple[float, float]]]
FAIR_KEYS = ["apps[0].interarrival.value", "apps[0].sctp.thin.all"]
FAIR_LABELS = {
    FAIR_KEYS[0]: {"name": "Interarrival time of the test stream", "unit": "ms"},
    FAIR_KEYS[1]: {"name": "Test stream", "values": {"false": "lksctp", "true": "all modifications"}},
    "flow.greedy.goodput_bps": {"name": "Goodput of the greedy flow", "unit": "kb/s"},
    "flow.thin.goodput_bps": {"name": "Goodput of the test stream", "unit": "kb/s"},
}


def _fair_points(d: Path, greedy: str, points: FairPoints) -> None:
    """(greedy kind, modified) -> {attempted rate: (test stream, greedy) goodput, mean over runs}."""
    for (iat, mod), runs in tf.by_point(d, FAIR_KEYS).items():
        thin, other = (
            sum(r[m] for r in runs) / len(runs) for m in ("flow.thin.goodput_bps", "flow.greedy.goodput_bps")
        )
        points.setdefault((greedy, bool(mod)), {})[_fair_rate(ms(iat))] = (thin, other)


def fair_rows(points: FairPoints) -> list[dict[str, Any]]:
    rows = []
    for greedy in sorted({g for g, _ in points}):
        plain, mod = points[(greedy, False)], points[(greedy, True)]
        for rate in sorted(plain):
            rows.append(
                {
                    "greedy": greedy,
                    "attempted kb/s": f"{rate / 1e3:g}",
                    "test stream lksctp kb/s": f"{plain[rate][0] / 1e3:.1f}",
                    "test stream modified kb/s": f"{mod[rate][0] / 1e3:.1f}",
                    "greedy vs lksctp kb/s": f"{plain[rate][1] / 1e3:.1f}",
                    "greedy vs modified kb/s": f"{mod[rate][1] / 1e3:.1f}",
                    "greedy change": f"{mod[rate][1] / plain[rate][1] - 1:+.2%}",
                }
            )
    return rows


def run_fairness(out: Path, plan: Plan, jobs: int | None) -> FairPoints:
    """One sweep per greedy kind (``fairness_sctp_bulk``, ``fairness_tcp_bulk``)."""
    points: FairPoints = {}
    grid = {FAIR_KEYS[0]: [f"{x:g}ms" for x in plan.fair_iats_ms], FAIR_KEYS[1]: [False, True]}
    for greedy in plan.fair_greedy:
        d = out / f"fairness_{greedy}"
        base = ts.fairness(plan.fair_s)
        base["apps"][1] = ts.greedy_app(greedy)
        spec = {
            "name": f"seed 004 Fig. 11: fairness against {greedy}",
            "replications": plan.fair_reps,
            "seed": 4,
            "base": base,
            "grid": grid,
            "report": {"x": FAIR_KEYS[0], "metrics": ["flow.greedy.goodput_bps", "flow.thin.goodput_bps"]},
            "labels": FAIR_LABELS,
        }
        run_recipe_sweep(Sweep.from_dict(spec), d, jobs=jobs)
        _fair_points(d, greedy, points)
        report_mod.report(
            d,
            notes=NOTES,
            tables=[
                (
                    "Throughput of the test stream and of the greedy flow (mean over runs)",
                    fair_rows({k: v for k, v in points.items() if k[0] == greedy}),
                )
            ],
        )
    return points


def run_presets(out: Path, plan: Plan, jobs: int | None) -> dict[str, Stats]:
    d = _sweep(
        out,
        "table1_presets",
        "Table 1 sources, RTT 100 ms, 5% loss",
        ts.lab(plan.preset_s, 0.05, source=plan.presets[0]),
        {},
        ts.source_zip(plan.presets),
        plan.preset_reps,
        jobs,
        ts.SOURCE_KEY,
        [f"flow.{v}.latency_rtx1_mean_s" for v in ("lksctp", "all_mods", "tcp_newreno")],
        _point_tables([ts.SOURCE_KEY], lambda k: f"source {k[0]}"),
    )
    return {key[0]: tf.stats_of(rows) for key, rows in tf.by_point(d, [ts.SOURCE_KEY]).items()}


# --- results as the claims read them -------------------------------------------------------
@dataclass
class Results:
    fig8: dict[float, Stats]  # loss -> stats (lab, RTT 100, IAT 250)
    fig8_rows: dict[float, list[dict[str, Any]]]
    grid: dict[tuple[float, float, float], Stats]  # (loss, rtt ms, iat ms)
    grid_rows: dict[tuple[float, float, float], list[dict[str, Any]]]
    http_rtt: dict[float, Stats]  # rtt ms -> stats (IAT 250)
    http_iat: dict[float, Stats]  # iat ms -> stats (RTT 100)
    http_rows: list[dict[str, Any]]  # the Fig. 8b point's runs
    fair: FairPoints
    presets: dict[str, Stats]
    http_loss: list[dict[str, Any]]  # bottleneck loss per HTTP point


def collect(dirs: dict[str, Path], fair: FairPoints, presets: dict[str, Stats]) -> Results:
    fig8_rows = {k[0]: rows for k, rows in tf.by_point(dirs["fig8_lab"], [ts.LOSS_KEY]).items()}
    grid_rows = {
        (k[0], 2 * ms(k[1]), ms(k[2])): rows
        for k, rows in tf.by_point(dirs["lab_grid"], [ts.LOSS_KEY, ts.RTT_KEY, ts.IAT_KEY]).items()
    }
    rtt_rows = {2 * ms(k[0]): rows for k, rows in tf.by_point(dirs["http_rtt"], [ts.RTT_KEY]).items()}
    iat_rows = (
        {ms(k[0]): rows for k, rows in tf.by_point(dirs["http_iat"], [ts.IAT_KEY]).items()}
        if "http_iat" in dirs
        else {}
    )
    iat_rows[float(ts.LAB_IAT_MS)] = rtt_rows[float(ts.LAB_RTT_MS)]
    return Results(
        fig8={k: tf.stats_of(r) for k, r in fig8_rows.items()},
        fig8_rows=fig8_rows,
        grid={k: tf.stats_of(r) for k, r in grid_rows.items()},
        grid_rows=grid_rows,
        http_rtt={k: tf.stats_of(r) for k, r in rtt_rows.items()},
        http_iat={k: tf.stats_of(r) for k, r in sorted(iat_rows.items())},
        http_rows=rtt_rows[float(ts.LAB_RTT_MS)],
        fair=fair,
        presets=presets,
        http_loss=[
            row for name, label in HTTP_LABELS.items() if name in dirs for row in _http_loss_rows(dirs[name], *label)
        ],
    )


def pct(loss: float) -> str:
    return f"{loss:.0%}"


def grid_series(r: Results, loss: float, rtt: float) -> dict[float, Stats]:
    """The lab grid's points at one loss rate and RTT, by interarrival time (ms)."""
    return {iat: s for (p, t, iat), s in sorted(r.grid.items()) if p == loss and t == rtt}
