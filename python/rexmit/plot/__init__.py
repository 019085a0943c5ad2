"""Looking inside one flow: ``rexmit plot RUN_DIR --flow NAME --kind tsg|cwnd|rtxq|rtt`` and
:func:`plot_flow`, from the opt-in trace a scenario asks for with ``[[metrics.trace]]``.

Views (one module each): ``tsg`` (time-sequence graph), ``state`` (cwnd/ssthresh/flight, rtxq
bytes, smoothed RTT and RTO). Formats: PNG and SVG (matplotlib), HTML (plotly, with plotly.js
embedded in the page so that it zooms and pans offline).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rexmit.plot.figure import Figure, render_matplotlib, render_plotly
from rexmit.plot.trace import FlowTrace, NoTraceError, load_trace

if TYPE_CHECKING:
    from rexmit.results import RunResult

KINDS = ("tsg", "cwnd", "rtxq", "rtt")
FORMATS = ("png", "svg", "html")

__all__ = ["KINDS", "FORMATS", "FlowTrace", "NoTraceError", "load_trace", "figure", "plot_flow"]


def figure(trace: FlowTrace, kind: str) -> Figure:
    """The description of one view of a loaded trace."""
    if kind == "tsg":
        from rexmit.plot.tsg import tsg

        return tsg(trace)
    if kind in KINDS:
        from rexmit.plot.state import state

        return state(trace, kind)
    raise ValueError(f"unknown plot kind {kind!r} (kinds: {', '.join(KINDS)})")


def plot_flow(
    source: str | Path | RunResult,
    flow: str,
    kind: str = "tsg",
    *,
    t_from: float | None = None,
    t_to: float | None = None,
    format: str = "png",
    out: str | Path | None = None,
    shared_js: bool = False,
) -> Path:
    """Draw one view of a traced flow and write it to ``out``.

    ``source`` is a run directory or a :class:`~rexmit.results.RunResult`; ``t_from``/``t_to``
    (seconds) zoom into a time window. ``out`` defaults to ``RUN_DIR/plots/FLOW_KIND.FORMAT``
    (for a RunResult: ``FLOW_KIND.FORMAT`` in the current directory). Returns the path written.
    Raises :class:`NoTraceError` when the run did not trace the flow. ``shared_js`` (HTML
    only): plotly.js goes into one ``plotly.min.js`` beside ``out`` instead of into the page,
    for directories of many views.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown plot kind {kind!r} (kinds: {', '.join(KINDS)})")
    if format not in FORMATS:
        raise ValueError(f"unknown format {format!r} (formats: {', '.join(FORMATS)})")
    if t_from is not None and t_to is not None and t_to <= t_from:
        raise ValueError(f"--to {t_to} must be after --from {t_from}")
    trace = load_trace(source, flow).window(t_from, t_to)
    fig = figure(trace, kind)
    if out is None:
        name = f"{flow}_{kind}.{format}"
        out = Path(source) / "plots" / name if isinstance(source, (str, Path)) else Path(name)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if format == "html":
        render_plotly(fig, out, shared_js)
    else:
        render_matplotlib(fig, out, format)
    return out
