"""Reports: matplotlib figures (PNG and SVG) and one self-contained HTML page.

Owns turning a results directory into ``figures/*.png``, ``figures/*.svg`` and ``report.html``.
A run directory (``rexmit run --out``) gets its time series drawn, its flow/link tables and its
scenario; a sweep directory (``rexmit sweep --out``) gets each chosen metric against one varied
parameter with 95% CI error bars, the summary table, the sweep file and the base scenario. Reads
results only; the statistics come from :mod:`rexmit.sweep`.
"""

from __future__ import annotations

import base64
import html
import json
import re
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rexmit._lazy import pa, pq
from rexmit.labels import PALETTE, UNITS, Label, line_names, metric_label, param_label, plain_numbers, series_label
from rexmit.quantities import as_number
from rexmit.scenario import Scenario

if TYPE_CHECKING:
    from rexmit.views import ViewPages


@dataclass(frozen=True)
class Marker:
    """A reference line on a sweep's figures, e.g. a model's prediction.

    ``axis = "x"``: a vertical line at ``value`` as the x parameter takes it (``"32MB"``,
    ``0.01``); ``axis = "y"``: a horizontal line at ``value`` in the metric's units. ``group``
    maps the other varied parameters to values and gives the line the colour of that curve
    (without it the line is grey); ``metrics`` limits it to those figures (default: all)."""

    value: Any
    label: str
    axis: str = "x"
    group: dict[str, Any] | None = None
    metrics: Sequence[str] | None = None


@dataclass(frozen=True)
class Figure:
    """A written figure: its name and the paths of its PNG and SVG files."""

    name: str
    title: str
    png: Path
    svg: Path


def new_figure(width: float = 6.4, height: float = 4.0) -> Any:
    """A matplotlib figure of ``width`` x ``height`` inches with a constrained layout, drawn
    off-screen (no GUI backend, no pyplot state). Give its axes :data:`rexmit.labels.PALETTE`
    (``ax.set_prop_cycle(color=PALETTE)``) or colours from it."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure as MplFigure

    fig = MplFigure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def save_figure(fig: Any, figures_dir: Path, name: str, title: str) -> Figure:
    """Write ``fig`` as ``figures_dir/<name>.png`` (120 dpi) and ``.svg`` (no date: the same
    figure gives the same file) with plain tick numbers (no ``1e6`` offsets); ``title`` is its
    caption in the HTML pages."""
    figures_dir.mkdir(parents=True, exist_ok=True)
    plain_numbers(fig)
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "figure"
    png, svg = figures_dir / f"{slug}.png", figures_dir / f"{slug}.svg"
    fig.savefig(png, dpi=120)
    fig.savefig(svg, metadata={"Date": None})
    return Figure(name, title, png, svg)


def _fmt(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def html_table(rows: Sequence[dict[str, Any]], columns: Sequence[str] | None = None) -> str:
    """An HTML table of ``rows`` (dicts) with ``columns`` (default: every key, first seen
    first); floats with 6 significant digits, text escaped."""
    if not rows:
        return "<p><em>(none)</em></p>"
    cols = list(columns) if columns is not None else list(dict.fromkeys(k for r in rows for k in r))
    head = "".join(f"<th>{html.escape(c)}</th>" for c in cols)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(_fmt(r.get(c)))}</td>" for c in cols) + "</tr>" for r in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 70em; color: #222; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0 1.5em; display: block; overflow-x: auto; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: right; }
th { background: #f0f0f0; }
pre { background: #f6f6f6; padding: 1em; overflow-x: auto; font-size: 0.85em; }
figure { margin: 1em 0; } figcaption { font-size: 0.9em; color: #555; }
img { max-width: 100%; }
.warn { color: #a00; }
"""


def html_page(title: str, sections: Sequence[tuple[str, str]]) -> str:
    """A self-contained HTML page: ``title`` and one ``<h2>`` section per (heading, HTML)."""
    body = "".join(f"<h2>{html.escape(h)}</h2>\n{content}\n" for h, content in sections)
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"<style>{_STYLE}</style></head><body><h1>{html.escape(title)}</h1>\n{body}</body></html>\n"
    )


def embed_figures(figures: Sequence[Figure]) -> str:
    """Figures as HTML ``<figure>`` elements with their SVG as data URIs (self-contained, and no
    id clashes between inline SVG documents), captioned with their titles."""
    if not figures:
        return "<p><em>(no figures)</em></p>"
    parts = []
    for f in figures:
        data = base64.b64encode(f.svg.read_bytes()).decode()
        parts.append(
            f'<figure><img alt="{html.escape(f.title)}" src="data:image/svg+xml;base64,{data}"><figcaption>{html.escape(f.title)} ({html.escape(f.png.name)}, {html.escape(f.svg.name)})</figcaption></figure>'
        )
    return "\n".join(parts)


def _pre(text: str) -> str:
    return f"<pre>{html.escape(text)}</pre>"


# --- a single run ----------------------------------------------------------------------------
def _run_figures(out: Path) -> list[Figure]:
    path = out / "timeseries.parquet"
    if not path.is_file():
        return []
    _clear_figures(out / "figures")
    series: dict[str, tuple[list[float], list[float]]] = {}
    for row in pq.read_table(path).to_pylist():
        t, v = series.setdefault(row["series"], ([], []))
        t.append(row["t_s"])
        v.append(row["value"])
    figures = []
    for name, (t, v) in series.items():
        fig = new_figure(6.4, 3.2)
        ax = fig.add_subplot()
        label, subject = series_label(name)
        y_text, scale = label.scaled(v)
        ax.step(t, [x * scale for x in v], where="post", linewidth=1, color=PALETTE[0])
        ax.set_xlabel("Time (s)")
        ax.set_ylabel(y_text)
        ax.set_title(f"{label.name} ({subject})" if subject else label.name)
        ax.grid(alpha=0.3)
        figures.append(save_figure(fig, out / "figures", f"series_{name}", f"time series {name}"))
    return figures


def _clear_figures(figures_dir: Path) -> None:
    """figures/ belongs to the report: drop the figures of an earlier report with other choices."""
    for old in [*figures_dir.glob("*.png"), *figures_dir.glob("*.svg")]:
        old.unlink()


def _run_report(out: Path) -> Path:
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    scenario_text = (out / "scenario.toml").read_text(encoding="utf-8") if (out / "scenario.toml").is_file() else ""
    tables = {
        name: pq.read_table(out / f"{name}.parquet").to_pylist() if (out / f"{name}.parquet").is_file() else []
        for name in ("flows", "links", "nodes")
    }
    figures = _run_figures(out)
    partial = (
        f'<p class="warn">The run stopped early, results are partial: {html.escape(str(summary["partial"]))}</p>'
        if summary.get("partial")
        else ""
    )
    sections = [
        ("Summary", partial + html_table([{"field": k, "value": v} for k, v in summary.items()], ["field", "value"])),
        ("Time series", embed_figures(figures)),
        ("Flows", html_table(tables["flows"])),
        ("Links", html_table(tables["links"])),
        ("Nodes", html_table(tables["nodes"])),
        ("Scenario (scenario.toml, exactly as run)", _pre(scenario_text)),
    ]
    title = Scenario.from_toml(scenario_text).data.get("description") if scenario_text else None
    report = out / "report.html"
    report.write_text(html_page(f"rexmit run: {title or out.name}", sections), encoding="utf-8")
    return report


# --- a sweep ---------------------------------------------------------------------------------
def _default_metrics(columns: Sequence[str]) -> list[str]:
    chosen = [c for c in columns if c.startswith("flow.") and c.endswith(".throughput_bps")]
    return chosen or [c for c in columns if c.startswith("summary.")][:1]


def _x_positions(values: list[Any]) -> tuple[list[float], str, list[str] | None]:
    """Numeric x positions and unit, or category positions with their labels."""
    numbers = [as_number(v) for v in values]
    positions = [n for n, _ in numbers if n is not None]
    units = {u for _, u in numbers}
    if len(positions) == len(values) and len(units) == 1:
        return positions, units.pop(), None
    labels = list(dict.fromkeys(_fmt(v) for v in values))
    return [float(labels.index(_fmt(v))) for v in values], "", labels


def _group_key(group: dict[str, Any], others: list[str], where: str) -> tuple[Any, ...]:
    """A marker's group as the key of a line: values of the other parameters, stored as the sweep
    table stores them (tables and lists as sorted-key JSON)."""
    unknown = sorted(set(group) - set(others))
    if unknown or len(group) != len(others):
        raise ValueError(
            f"{where}.group: must give a value for each of {', '.join(others) or 'no parameter'} (got {', '.join(sorted(group)) or 'none'})"
        )
    return tuple(
        json.dumps(group[o], sort_keys=True) if isinstance(group[o], (dict, list)) else group[o] for o in others
    )


def _marker_position(m: Marker, unit: str, categories: list[str] | None, where: str) -> float:
    if m.axis == "y":
        if isinstance(m.value, bool) or not isinstance(m.value, (int, float)):
            raise ValueError(f"{where}.value: {m.value!r} is not a number (a horizontal line is in the metric's units)")
        return float(m.value)
    if m.axis != "x":
        raise ValueError(f"{where}.axis: {m.axis!r} is not an axis (allowed: x, y)")
    if categories is not None:
        if _fmt(m.value) not in categories:
            raise ValueError(f"{where}.value: {m.value!r} is not one of the x values ({', '.join(categories)})")
        return float(categories.index(_fmt(m.value)))
    number, value_unit = as_number(m.value)
    if number is None or value_unit != unit:
        raise ValueError(f"{where}.value: {m.value!r} is not a number in the x axis unit ({unit or 'no unit'})")
    return number


def _subject(metric: str) -> str:
    """What a result column is about: ``flow.bulk.goodput_bps`` -> ``flow bulk``."""
    parts = metric.split(".")
    return f"{parts[0]} {'.'.join(parts[1:-1])}" if len(parts) > 2 else ""


def _sweep_figure(
    summary: pa.Table,
    sweep: Any,
    x_param: str | None,
    metric: str,
    others: list[str],
    figures_dir: Path,
    markers: Sequence[Marker] = (),
    name: str | None = None,
    title: str | None = None,
) -> Figure:
    from rexmit.sweep import PARAM_PREFIX, SweepError

    rows = summary.to_pylist()
    xs_raw = [r[PARAM_PREFIX + x_param] for r in rows] if x_param else [r["point"] for r in rows]
    xs, unit, categories = _x_positions(xs_raw)
    label = param_label(x_param, sweep.base.data, sweep.labels) if x_param else Label("Point")
    if categories is None:
        if label.unit is not None and UNITS[label.unit][0] != unit:
            raise SweepError(
                f"labels.{x_param!r}.unit: {label.unit!r} does not fit the values of {x_param} ({unit or 'plain numbers'})"
            )
        x_label = Label(label.name, unit, label.unit)
        x_text, x_scale = x_label.scaled(xs)
    else:
        x_label, x_text, x_scale = label, label.name, 1.0
    y_label = metric_label(metric, sweep.labels)
    y_text, y_scale = y_label.scaled([r[f"{metric}.mean"] for r in rows])
    xs = [x * x_scale for x in xs]
    groups: dict[tuple[Any, ...], list[int]] = {}
    for i, r in enumerate(rows):
        groups.setdefault(tuple(r[PARAM_PREFIX + o] for o in others), []).append(i)
    marks = [(i, m) for i, m in enumerate(markers) if m.metrics is None or metric in m.metrics]
    # The legend sits below the axes, outside them; the figure grows by its rows so that a
    # sweep of many lines (12 in seed 004's RTT x loss grid) keeps its axes and its legend.
    names = line_names(others, list(groups), sweep.zip, sweep.labels) if others else [None]
    labels = [n for n in names if n and len(groups) > 1] + [m.label for _, m in marks if m.label]
    entries = len(labels)
    # Columns as many as the longest entry allows across the figure's 6.4 in (≈ 0.07 in per
    # character at the legend's size, 0.6 in for the marker and the gap), at most three.
    widest = max((len(n) for n in labels), default=0)
    ncol = max(1, min(3, entries, int(6.4 // (0.07 * widest + 0.6))))
    fig = new_figure(height=4.0 + 0.25 * -(-entries // ncol))
    ax = fig.add_subplot()
    colours: dict[tuple[Any, ...], Any] = {}
    for n, (key, idx) in enumerate(groups.items()):
        idx = sorted(idx, key=lambda i: xs[i])
        means = [rows[i][f"{metric}.mean"] for i in idx]
        errs = [(rows[i][f"{metric}.ci95"] or 0.0) * y_scale for i in idx]
        colours[key] = PALETTE[n % len(PALETTE)]
        ys = [m * y_scale if m is not None else float("nan") for m in means]
        # Past the palette's eight colours, lines differ by their marker too.
        ax.errorbar(
            [xs[i] for i in idx],
            ys,
            yerr=errs,
            marker="osD^v"[n // len(PALETTE) % 5],
            capsize=3,
            color=colours[key],
            label=names[n],
        )
    for i, m in marks:
        where = f"markers[{i}]"
        colour = colours.get(_group_key(m.group, others, where), "grey") if m.group is not None else "grey"
        draw = ax.axhline if m.axis == "y" else ax.axvline
        draw(
            _marker_position(m, unit, categories, where) * (y_scale if m.axis == "y" else x_scale),
            color=colour,
            linestyle="--",
            linewidth=1,
            label=m.label,
        )
    if categories is not None:
        ax.set_xticks(range(len(categories)), categories)
    elif xs and min(xs) > 0 and max(xs) / min(xs) >= 100:
        ax.set_xscale("log")  # rates spanning decades (error rates, PER)
    ax.set_xlabel(x_text)
    ax.set_ylabel(y_text)
    subject = _subject(metric) if metric not in sweep.labels else ""  # a name given says what it is
    title = title or (
        f"{y_label.name} ({subject}) vs {x_label.name}" if subject else f"{y_label.name} vs {x_label.name}"
    )
    ax.set_title(textwrap.fill(f"{title}: mean and 95% CI", 75), fontsize="medium")
    ax.grid(alpha=0.3)
    if entries:
        fig.legend(fontsize="small", loc="outside lower center", ncol=ncol)
    return save_figure(fig, figures_dir, name or f"{metric}_vs_{x_param or 'point'}", title)


def _lines_of(sweep: Any, x_param: str | None) -> list[str]:
    """The parameters that make separate lines: those that do not move with x (zipped ones do)."""
    moves_with_x = set(sweep.zip) if x_param in sweep.zip else {x_param}
    return [p for p in sweep.parameters if p not in moves_with_x]


def sweep_figure(
    out_dir: str | Path,
    metric: str,
    x: str | None = None,
    figures_dir: Path | None = None,
    name: str | None = None,
    title: str | None = None,
    markers: Sequence[Marker] = (),
) -> Figure:
    """One figure of a finished sweep, as its report draws it (``metric`` against ``x``, mean and
    95% CI, one line per combination of the other parameters, labelled by :mod:`rexmit.labels`
    and the sweep's ``[labels]``), written to ``figures_dir`` (default ``DIR/figures``) as
    ``name`` with ``title`` (e.g. the paper's figure number): for a reproduction's index page."""
    from rexmit.metric_names import canonical
    from rexmit.sweep import Sweep, SweepError, summarize

    out = Path(out_dir)
    sweep = Sweep.from_saved(out)
    summary = summarize(out)
    x_param = x or sweep.report.get("x") or (sweep.parameters[0] if sweep.parameters else None)
    metric = canonical(metric)
    if f"{metric}.mean" not in summary.column_names:
        raise SweepError(f"metric {metric!r} is not in the results of {out}")
    return _sweep_figure(
        summary, sweep, x_param, metric, _lines_of(sweep, x_param), figures_dir or out / "figures", markers, name, title
    )


def claims_table(claims: Sequence[Any]) -> str:
    """The claims of a reproduction (``Claim`` objects or the dicts of ``claims.json``) as an HTML
    table: the claim's id and text, the verdict, the paper's value where the claim records one
    (``paper``) and rexmit's numbers. Counted claims come first; sanity checks (``sanity``) follow,
    marked as not counted. A claim a quick run could not decide (``holds`` None) says "needs the
    full run", never "NO"."""
    rows = []
    dicts = [c if isinstance(c, Mapping) else vars(c) for c in claims]
    for d in [d for d in dicts if not d.get("sanity")] + [d for d in dicts if d.get("sanity")]:
        holds = d.get("holds")
        verdict = "yes" if holds else ("needs the full run" if holds is None else "NO")
        rows.append(
            {
                "id": d.get("id") or "",
                "claim": d["text"],
                "reproduced": f"sanity check, not counted: {verdict}" if d.get("sanity") else verdict,
                "paper": d.get("paper") or "",
                "rexmit": d.get("numbers", ""),
            }
        )
    columns = [
        c
        for c in ("id", "claim", "reproduced", "paper", "rexmit")
        if c in ("claim", "reproduced", "rexmit") or any(r[c] for r in rows)
    ]
    return html_table(rows, columns)


_CLAIMS_START, _CLAIMS_END = "<!-- claims -->", "<!-- /claims -->"


def refresh_index_claims(out: Path) -> bool:
    """Rewrite the claims table of ``out/index.html`` from ``out/claims.json``, so that the page
    shows the verdicts as recorded (a quick run's failing claims say "needs the full run").
    Returns False, changing nothing, when either file or the table is absent."""
    page, doc = out / "index.html", out / "claims.json"
    if not page.is_file() or not doc.is_file():
        return False
    text = page.read_text(encoding="utf-8")
    start, end = text.find(_CLAIMS_START), text.find(_CLAIMS_END)
    if start < 0 or end < start:
        return False
    data = json.loads(doc.read_text(encoding="utf-8"))
    claims = data["claims"] if isinstance(data, dict) else data
    page.write_text(text[: start + len(_CLAIMS_START)] + claims_table(claims) + text[end:], encoding="utf-8")
    return True


def reproduction_index(
    out: Path,
    title: str,
    overview: Sequence[str],
    claims: Sequence[Any],
    figures: Sequence[Figure],
    sections: Sequence[tuple[str, str]] = (),
) -> Path:
    """A reproduction's ``out/index.html``: the overview (paragraphs of plain text), the claims
    (:func:`claims_table`), each figure under its title (the paper's figure number), then
    ``sections`` (heading, HTML) and links to the sweep reports under ``out``."""
    links = "".join(
        f'<li><a href="{html.escape(p.parent.name)}/report.html">{html.escape(p.parent.name)}</a></li>'
        for p in sorted(out.glob("*/report.html"))
    )
    drawn = (
        "\n".join(f"<h3>{html.escape(f.title)}</h3>\n{embed_figures([f])}" for f in figures)
        or "<p><em>(no figures)</em></p>"
    )
    parts = [
        ("Overview", "".join(f"<p>{html.escape(p)}</p>" for p in overview)),
        ("Claims", f"{_CLAIMS_START}{claims_table(claims)}{_CLAIMS_END}"),
        ("Figures (mean and 95% CI over the replications)", drawn),
        *sections,
        (
            "Reports (one per sweep: every figure, the summary table, the sweep and its base scenario)",
            f"<ul>{links}</ul>",
        ),
    ]
    page = out / "index.html"
    page.write_text(html_page(title, parts), encoding="utf-8")
    return page


def _sweep_report(
    out: Path,
    metrics: Sequence[str] | None,
    x: str | None,
    markers: Sequence[Marker] = (),
    notes: Sequence[str] = (),
    tables: Sequence[tuple[str, Sequence[dict[str, Any]]]] = (),
    views: ViewPages | None = None,
) -> Path:
    from rexmit.sweep import PARAM_PREFIX, Sweep, SweepError, load, summarize

    sweep = Sweep.from_saved(out)
    results = load(out)
    summary = summarize(out)
    params = sweep.parameters
    x_param = x or sweep.report.get("x") or (params[0] if params else None)
    if x_param is not None and x_param not in params:
        raise SweepError(f"x: {x_param!r} is not a varied parameter (varied: {', '.join(params) or 'none'})")
    from rexmit.metric_names import canonical

    chosen = [canonical(m) for m in (metrics or sweep.report.get("metrics") or _default_metrics(results.column_names))]
    for m in chosen:
        if f"{m}.mean" not in summary.column_names:
            numeric = [c[: -len(".mean")] for c in summary.column_names if c.endswith(".mean")]
            raise SweepError(f"metric {m!r} is not in the results (for example: {', '.join(numeric[:8])})")
    others = _lines_of(sweep, x_param)
    _clear_figures(out / "figures")
    figures = (
        [_sweep_figure(summary, sweep, x_param, m, others, out / "figures", markers) for m in chosen]
        if summary.num_rows
        else []
    )
    table_rows = []
    for r in summary.to_pylist():
        row: dict[str, Any] = {"point": r["point"], **{p: r[PARAM_PREFIX + p] for p in params}, "runs": r["runs"]}
        for m in chosen:
            mean, ci = r[f"{m}.mean"], r[f"{m}.ci95"]
            row[m] = "" if mean is None else f"{mean:.6g}" + (f" ± {ci:.3g}" if ci is not None else "")
        table_rows.append(row)
    planned = pq.read_table(out / "plan.parquet").num_rows
    overview = [
        f"{results.num_rows} of {planned} planned runs finished; {sweep.replications} replications per point; seeds derived from the base seed (docs/sweeps.md)."
    ]
    partial = (
        [r["run_id"] for r in results.select(["run_id", "summary.partial"]).to_pylist() if r["summary.partial"]]
        if "summary.partial" in results.column_names
        else []
    )
    if partial:
        overview.append(
            f'<span class="warn">{len(partial)} runs stopped early (partial results): {", ".join(partial[:10])}</span>'
        )
    if results.num_rows < planned:
        overview.append(
            '<span class="warn">The sweep is not complete: run the same <code>rexmit sweep</code> command again to finish it.</span>'
        )
    overview.extend(html.escape(n) for n in notes)
    sections = [
        ("Overview", "".join(f"<p>{n}</p>" for n in overview)),
        ("Figures", embed_figures(figures)),
        ("Summary (mean ± 95% CI half-width over replications)", html_table(table_rows)),
        *((title, html_table(rows)) for title, rows in tables),
        *_views_sections(out, views),
        (
            "Sweep file",
            _pre(sweep.text or json.dumps({k: v for k, v in sweep.to_dict().items() if k != "base"}, indent=2)),
        ),
        (
            "Base scenario (every run is this with the parameters above and its own seed; scenarios/&lt;run_id&gt;.toml holds each one exactly)",
            _pre(sweep.base.to_toml()),
        ),
    ]
    report = out / "report.html"
    report.write_text(html_page(f"rexmit sweep: {sweep.name or out.name}", sections), encoding="utf-8")
    return report


def _views_sections(out: Path, views: ViewPages | None) -> list[tuple[str, str]]:
    if views is None:
        return []
    from rexmit.views import views_section

    return [views_section(out, views.pages(out), views.flow, views.window_s)]


def report(
    out_dir: str | Path,
    metrics: Sequence[str] | None = None,
    x: str | None = None,
    markers: Sequence[Marker] = (),
    notes: Sequence[str] = (),
    tables: Sequence[tuple[str, Sequence[dict[str, Any]]]] = (),
    views: ViewPages | None = None,
) -> Path:
    """Write ``figures/`` and ``report.html`` for a run or sweep directory; returns the HTML path.

    For a sweep, ``metrics`` are result columns (e.g. ``flow.cbr0.throughput_bps``) drawn
    against the varied parameter ``x``; the defaults come from the sweep file's ``[report]``
    table, else every flow's throughput against the first varied parameter. A caller (such as a
    reproduction recipe) may add ``markers`` (reference lines such as a model's predictions), ``notes``
    (paragraphs of plain text for the overview) and ``tables`` (titled lists of rows); these are
    not stored in the sweep directory, so a later ``rexmit report DIR`` leaves them out.
    ``views`` (``rexmit.view_pages.FlowViews(FLOW)`` for a TCP or SCTP flow) links that flow's
    time-sequence and cwnd pages in the first replication of every point: drawn from the trace
    the sweep kept (``run_sweep(..., views=FLOW)``), else from that run run again with the flow
    traced, by the caller's ``views`` (the report runs nothing itself).
    """
    if isinstance(views, str):
        raise TypeError(
            f"views: give rexmit.view_pages.FlowViews({views!r}), not the flow's name (the report runs nothing itself; FlowViews traces what the sweep did not keep)"
        )
    out = Path(out_dir)
    if (out / "sweep.json").is_file():
        return _sweep_report(out, metrics, x, markers, notes, tables, views)
    if markers or notes or tables or views:
        raise ValueError(
            f"{out_dir}: markers, notes, tables and views apply to sweep reports only (a run's flows are drawn by rexmit plot)"
        )
    if (metrics or x) and (out / "summary.json").is_file():
        from rexmit.sweep import SweepError

        refused = ", ".join([*(f"--metric {m}" for m in metrics or ()), *([f"--x {x}"] if x else [])])
        raise SweepError(
            f"{out_dir}: {refused} refused: --metric and --x choose what a sweep report plots; this is a run directory, whose report shows every flow"
        )
    if (out / "summary.json").is_file():
        return _run_report(out)
    raise FileNotFoundError(f"{out_dir}: neither a run directory (summary.json) nor a sweep directory (sweep.json)")


__all__ = [
    "report",
    "Marker",
    "Figure",
    "as_number",
    "sweep_figure",
    "new_figure",
    "save_figure",
    "html_table",
    "html_page",
    "embed_figures",
    "claims_table",
    "reproduction_index",
    "refresh_index_claims",
]
