"""Inside one run per sweep point (issue 15 §1): the first finished replication of every point is
run again with ``[[metrics.trace]]`` on one flow (a trace changes no result, so this is the same
run, stopped once the traced window has passed) and drawn as interactive pages under ``SWEEP_DIR/views/``, which the sweep report links.

The traced window is the first ``window_s`` seconds of the flow's measurements (from its
``warmup``, else its ``start``), so that pages stay small however long the runs are; the pages
share one ``plotly.min.js`` beside them and open offline."""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional, Sequence, Union

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


def _seconds(value: Any) -> float:
    from rexmit.report import as_number

    return float(as_number(value)[0] or 0.0) if value is not None else 0.0


def _window(data: dict[str, Any], flow: str, window_s: float) -> tuple[float, float]:
    app = next((a for a in data.get("apps", []) if a.get("name") == flow), None)
    if app is None:
        names = ", ".join(a.get("name", "?") for a in data.get("apps", []))
        raise ValueError(f"views: no app named {flow!r} in the sweep's scenarios (apps: {names})")
    start = max(_seconds(app.get("start")), _seconds(app.get("warmup")))
    stop = _seconds(data["stop_time"])
    return start, min(stop, start + window_s)


def window_of(data: dict[str, Any], flow: str, window_s: float = WINDOW_S) -> tuple[str, str]:
    """The traced window of ``flow`` in scenario ``data`` as ``[[metrics.trace]]`` takes it."""
    t_from, t_to = _window(data, flow, window_s)
    return f"{t_from:.9f}s", f"{t_to:.9f}s"


def _ns(value: Any) -> Optional[int]:
    """A duration as written in a scenario (``"38.470817483s"``, ``"38470817483ns"``) in whole
    nanoseconds, None when it is not one."""
    from rexmit.report import as_number

    seconds, unit = as_number(value) if isinstance(value, str) else (None, "")
    return round(seconds * 1e9) if seconds is not None and unit == "s" else None


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


def _stored_trace(sweep_dir: Path, run_id: str, flow: str, window: tuple[str, str]) -> Optional[Path]:
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


def point_views(sweep_dir: Union[str, Path], flow: str, kinds: Sequence[str] = KINDS, window_s: float = WINDOW_S) -> list[PointViews]:
    """Trace ``flow`` in one run per point of the sweep in ``sweep_dir`` and write its views
    (``views/point<N>_<kind>.html``). Returns what was written, in point order."""
    from rexmit.plot import plot_flow
    from rexmit.results import run
    from rexmit.scenario import Scenario
    from rexmit.sweep import PARAM_PREFIX, load

    out = Path(sweep_dir)
    rows = load(out).to_pylist()
    first: dict[int, dict[str, Any]] = {}
    for r in sorted(rows, key=lambda r: (r["point"], r["replication"])):
        first.setdefault(r["point"], r)
    done = []
    for point, row in sorted(first.items()):
        scenario = Scenario.load(out / "scenarios" / f"{row['run_id']}.toml")
        window = window_of(scenario.data, flow, window_s)
        source: Union[Path, Any] = _stored_trace(out, row["run_id"], flow, window)
        if source is None:
            # Not traced by the sweep: run it again, traced, and stop once the window has
            # passed: nothing after it is drawn, and up to it the run is the full run event
            # for event (a 2 h thin-stream run needs its first 15 s only).
            source = run(scenario.trace(flow, *window), progress=stop_after(_seconds(window[1])))
        pages = {k: plot_flow(source, flow, k, format="html", out=out / "views" / f"point{point}_{k}.html", shared_js=True) for k in kinds}
        params = {k[len(PARAM_PREFIX):]: v for k, v in row.items() if k.startswith(PARAM_PREFIX)}
        done.append(PointViews(point, row["run_id"], params, pages))
    return done


def views_section(sweep_dir: Path, views: Sequence[PointViews], flow: str, window_s: float = WINDOW_S) -> tuple[str, str]:
    """The sweep report's section linking every point's pages."""
    head = "".join(f"<th>{html.escape(p)}</th>" for p in (views[0].params if views else {}))
    kinds = list(views[0].pages) if views else []
    rows = []
    for v in views:
        cells = "".join(f"<td>{html.escape(str(x))}</td>" for x in v.params.values())
        links = "".join(f'<td><a href="{html.escape(p.relative_to(sweep_dir).as_posix())}">{html.escape(k)}</a></td>' for k, p in v.pages.items())
        rows.append(f"<tr><td>{v.point}</td>{cells}<td>{html.escape(v.run_id)}</td>{links}</tr>")
    table = f"<table><tr><th>point</th>{head}<th>run</th>{''.join(f'<th>{k}</th>' for k in kinds)}</tr>{''.join(rows)}</table>"
    title = f"Inside one run per point: flow {flow}, the first replication traced ({window_s:g} s from its measurements' start; rexmit plot draws more)"
    return html.escape(title), table
