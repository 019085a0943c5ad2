"""The views' pages of a finished sweep: for every point, the first replication's flow traced
(from the trace the sweep kept, else run again traced and stopped once the window has passed)
and drawn as interactive time-sequence and cwnd pages under ``SWEEP_DIR/views/``.

Sits above the sweep and the report: it reads a sweep directory (:mod:`rexmit.sweep`), runs
scenarios (:func:`rexmit.run`) and draws (:mod:`rexmit.plot`); a report's caller (``rexmit
report --views``, the recipes) hands :class:`FlowViews` to :func:`rexmit.report.report`, which
links the pages without knowing how they were made. The window, the kept traces and the
section's HTML are :mod:`rexmit.views`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rexmit.views import KINDS, WINDOW_S, PointViews, seconds, stop_after, stored_trace, window_of


def point_views(
    sweep_dir: str | Path, flow: str, kinds: Sequence[str] = KINDS, window_s: float = WINDOW_S
) -> list[PointViews]:
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
        source: Path | Any = stored_trace(out, row["run_id"], flow, window)
        if source is None:
            # Not traced by the sweep: run it again, traced, and stop once the window has
            # passed: nothing after it is drawn, and up to it the run is the full run event
            # for event (a 2 h thin-stream run needs its first 15 s only).
            source = run(scenario.trace(flow, *window), progress=stop_after(seconds(window[1])))
        pages = {
            k: plot_flow(source, flow, k, format="html", out=out / "views" / f"point{point}_{k}.html", shared_js=True)
            for k in kinds
        }
        params = {k[len(PARAM_PREFIX) :]: v for k, v in row.items() if k.startswith(PARAM_PREFIX)}
        done.append(PointViews(point, row["run_id"], params, pages))
    return done


@dataclass(frozen=True)
class FlowViews:
    """The views of ``flow`` that a sweep report links: ``report(DIR, views=FlowViews("bulk"))``,
    as ``rexmit report DIR --views bulk`` does. The report asks for the pages once its own
    choices (metrics, x) are checked, so a wrong metric runs nothing."""

    flow: str
    kinds: Sequence[str] = KINDS
    window_s: float = WINDOW_S

    def pages(self, sweep_dir: Path) -> list[PointViews]:
        return point_views(sweep_dir, self.flow, self.kinds, self.window_s)
