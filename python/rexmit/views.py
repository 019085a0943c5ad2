"""Inside one run per sweep point (issue 15 §1): the traced records and the pages of the views
that a sweep report links, as data. The first finished replication of every point is traced
with ``[[metrics.trace]]`` on one flow (a trace changes no result, so this is the same run,
stopped once the traced window has passed) and drawn as interactive pages under
``SWEEP_DIR/views/``.

The traced window is the first ``window_s`` seconds of the flow's measurements (from its
``warmup``, else its ``start``), so that pages stay small however long the runs are; the pages
share one ``plotly.min.js`` beside them and open offline.

Owns: the window, what a worker sends back of a traced run (:class:`ViewTrace`) and where a
sweep keeps it, the pages of a point (:class:`PointViews`) and the report's section linking
them. Runs nothing: a sweep traces as it runs (:mod:`rexmit.sweep`), and tracing what it did
not keep, then drawing the pages, is :mod:`rexmit.view_pages`, which the report's caller
hands to :func:`rexmit.report.report`."""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Protocol

from rexmit.quantities import as_number

KINDS = ("tsg", "cwnd")
WINDOW_S = 5.0
#: Where a sweep keeps the traced records of the runs its views draw (one run directory each).
TRACES = Path("views") / "traces"


@dataclass(frozen=True)
class PointViews:
    point: int
    run_id: str
    params: dict[str, Any]
    pages: dict[str, Path]  # kind -> page


class ViewPages(Protocol):
    """What a sweep report needs to link its views (``report(..., views=...)``): the flow, the
    traced window's length and the pages of one traced run per point of a sweep directory. The
    report's caller provides it (:class:`rexmit.view_pages.FlowViews`), so the report runs
    nothing itself."""

    @property
    def flow(self) -> str: ...

    @property
    def window_s(self) -> float: ...

    def pages(self, sweep_dir: Path) -> Sequence[PointViews]: ...


def seconds(value: Any) -> float:
    """A duration as a scenario writes it (``"38s"``, ``"250ms"``, a number) in seconds; 0 when absent."""
    return float(as_number(value)[0] or 0.0) if value is not None else 0.0


def _window(data: dict[str, Any], flow: str, window_s: float) -> tuple[float, float]:
    app = next((a for a in data.get("apps", []) if a.get("name") == flow), None)
    if app is None:
        names = ", ".join(a.get("name", "?") for a in data.get("apps", []))
        raise ValueError(f"views: no app named {flow!r} in the sweep's scenarios (apps: {names})")
    start = max(seconds(app.get("start")), seconds(app.get("warmup")))
    stop = seconds(data["stop_time"])
    return start, min(stop, start + window_s)


def window_of(data: dict[str, Any], flow: str, window_s: float = WINDOW_S) -> tuple[str, str]:
    """The traced window of ``flow`` in scenario ``data`` as ``[[metrics.trace]]`` takes it."""
    t_from, t_to = _window(data, flow, window_s)
    return f"{t_from:.9f}s", f"{t_to:.9f}s"


def _ns(value: Any) -> int | None:
    """A duration as written in a scenario (``"38.470817483s"``, ``"38470817483ns"``) in whole
    nanoseconds, None when it is not one."""
    secs, unit = as_number(value) if isinstance(value, str) else (None, "")
    return round(secs * 1e9) if secs is not None and unit == "s" else None


@dataclass(frozen=True)
class ViewTrace:
    """A traced flow's records from one sweep run, as a worker sends them back: the traced
    scenario, the flow's row and the trace tables (``rexmit plot`` reads them as a run
    directory)."""

    scenario_toml: str
    flow_row: dict[str, Any]
    tables: dict[str, Any]  # table name -> pyarrow.Table


def capture(result: Any, flow: str) -> ViewTrace:
    """What the views need of a traced run (a :class:`rexmit.results.RunResult`)."""
    row = next(f for f in result.flows if f["name"] == flow)
    tables = {name: result.tables[name] for name in result.tables if name.startswith("trace_")}
    return ViewTrace(result.scenario.to_toml(), row, tables)


def write_trace(sweep_dir: Path, run_id: str, trace: ViewTrace) -> None:
    """Keep ``trace`` as a run directory under ``views/traces/RUN_ID`` (scenario.toml last: it
    marks the directory complete)."""
    from rexmit.results import _atomic_write_bytes, _atomic_write_table, _write_rows

    d = sweep_dir / TRACES / run_id
    d.mkdir(parents=True, exist_ok=True)
    _write_rows(d / "flows.parquet", [trace.flow_row])
    for name, table in trace.tables.items():
        _atomic_write_table(d / f"{name}.parquet", table)
    _atomic_write_bytes(d / "scenario.toml", trace.scenario_toml.encode())


def stored_trace(sweep_dir: Path, run_id: str, flow: str, window: tuple[str, str]) -> Path | None:
    """The kept trace of run ``run_id`` if it traced ``flow`` over ``window``, else None."""
    from rexmit.scenario import Scenario

    d = sweep_dir / TRACES / run_id
    if not (d / "scenario.toml").is_file():
        return None
    # The kept scenario is the normalised one: its window reads "38470817483ns", not "38.470817483s".
    want = (flow, _ns(window[0]), _ns(window[1]))
    traced = Scenario.load(d / "scenario.toml").data.get("metrics", {}).get("trace", [])
    return d if any((t.get("flow"), _ns(t.get("from")), _ns(t.get("to"))) == want for t in traced) else None


def stop_after(t_s: float) -> Callable[[float, float, int, float], bool]:
    """A progress callback that ends a run once simulated time has passed ``t_s`` (the run
    stops at its next progress check, a fraction of a second of wall time later, marked
    partial): everything up to ``t_s`` is the full run's."""
    return lambda now_s, _stop_s, _events, _wall_s: now_s <= t_s


def views_section(
    sweep_dir: Path, views: Sequence[PointViews], flow: str, window_s: float = WINDOW_S
) -> tuple[str, str]:
    """The sweep report's section linking every point's pages."""
    head = "".join(f"<th>{html.escape(p)}</th>" for p in (views[0].params if views else {}))
    kinds = list(views[0].pages) if views else []
    rows = []
    for v in views:
        cells = "".join(f"<td>{html.escape(str(x))}</td>" for x in v.params.values())
        links = "".join(
            f'<td><a href="{html.escape(p.relative_to(sweep_dir).as_posix())}">{html.escape(k)}</a></td>'
            for k, p in v.pages.items()
        )
        rows.append(f"<tr><td>{v.point}</td>{cells}<td>{html.escape(v.run_id)}</td>{links}</tr>")
    table = f"<table><tr><th>point</th>{head}<th>run</th>{''.join(f'<th>{k}</th>' for k in kinds)}</tr>{''.join(rows)}</table>"
    title = f"Inside one run per point: flow {flow}, the first replication traced ({window_s:g} s from its measurements' start; rexmit plot draws more)"
    return html.escape(title), table
