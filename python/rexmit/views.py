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
from typing import Any, Callable, Sequence, Union

KINDS = ("tsg", "cwnd")
WINDOW_S = 5.0


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
        t_from, t_to = _window(scenario.data, flow, window_s)
        scenario.trace(flow, f"{t_from:.9f}s", f"{t_to:.9f}s")
        # Stop once the window has passed: nothing after it is drawn, and up to it the run is
        # the full run event for event (a 2 h thin-stream run needs its first 15 s only).
        result = run(scenario, progress=stop_after(t_to))
        pages = {k: plot_flow(result, flow, k, format="html", out=out / "views" / f"point{point}_{k}.html", shared_js=True) for k in kinds}
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
