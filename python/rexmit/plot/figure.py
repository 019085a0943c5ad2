"""A small description of a flow figure (panels of layers, shaded periods, event marks) and its
two renderers: matplotlib (PNG, SVG) and plotly (HTML with plotly.js embedded, so the page
zooms and pans offline). The views (``tsg.py``, ``state.py``) only build descriptions.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

#: Okabe & Ito's colour-blind-safe palette, then Paul Tol's muted one for further classes.
PALETTE = [
    "#0072B2",
    "#D55E00",
    "#009E73",
    "#CC79A7",
    "#E69F00",
    "#56B4E9",
    "#000000",
    "#882255",
    "#117733",
    "#999933",
    "#AA4499",
    "#44AA99",
    "#332288",
]
RECOVERY_SHADE = "#F0E442"
TIMEOUT_MARK = "#CC79A7"

#: Above this many points a plotly layer is drawn with WebGL (Scattergl) to stay responsive.
WEBGL_POINTS = 50_000


@dataclass
class Layer:
    """``step`` (a value held until the next sample), ``line``, ``points``, or ``bars``:
    vertical segments from ``y`` to ``y2`` at each ``x`` (segments sent, SACK blocks)."""

    style: str
    name: str
    x: np.ndarray
    y: np.ndarray
    color: str
    y2: np.ndarray | None = None
    dash: bool = False
    #: Also mark each bar's start (retransmissions, which are short next to the axis).
    marker: bool = False


@dataclass
class Panel:
    ylabel: str
    layers: list[Layer] = field(default_factory=list)
    #: Shaded periods (loss recovery).
    spans: list[tuple[float, float]] = field(default_factory=list)

    def add(
        self,
        style: str,
        name: str,
        x: Any,
        y: Any,
        color: str,
        y2: Any = None,
        dash: bool = False,
        marker: bool = False,
    ) -> None:
        if len(x):
            self.layers.append(
                Layer(
                    style,
                    name,
                    np.asarray(x, float),
                    np.asarray(y, float),
                    color,
                    None if y2 is None else np.asarray(y2, float),
                    dash,
                    marker,
                )
            )


@dataclass
class Figure:
    title: str
    panels: list[Panel]
    #: Marked instants (timeouts), on every panel.
    marks: np.ndarray = field(default_factory=lambda: np.array([]))
    span_name: str = "fast recovery"
    mark_name: str = "RTO"
    xlabel: str = "Time (s)"

    def points(self) -> int:
        return sum(len(lay.x) for p in self.panels for lay in p.layers)


def _segments(x: np.ndarray, y: np.ndarray, y2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vertical segments as one polyline broken by NaN (plotly draws it as one trace)."""
    n = len(x)
    xs = np.column_stack([x, x, np.full(n, np.nan)]).ravel()
    ys = np.column_stack([y, y2, np.full(n, np.nan)]).ravel()
    return xs, ys


def render_matplotlib(fig: Figure, out: Path, fmt: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.collections import LineCollection

    f, axes = plt.subplots(len(fig.panels), 1, sharex=True, squeeze=False, figsize=(12, 3.2 + 2.4 * len(fig.panels)))
    for ax, panel in zip(axes[:, 0], fig.panels):
        for i, (a, b) in enumerate(panel.spans):
            ax.axvspan(a, b, color=RECOVERY_SHADE, alpha=0.3, lw=0, label=fig.span_name if i == 0 else None)
        for i, t in enumerate(fig.marks):
            ax.axvline(t, color=TIMEOUT_MARK, ls=":", lw=1, label=fig.mark_name if i == 0 else None)
        for lay in panel.layers:
            ls = "--" if lay.dash else "-"
            if lay.style == "step":
                ax.step(lay.x, lay.y, where="post", color=lay.color, ls=ls, lw=1.2, label=lay.name)
            elif lay.style == "line":
                ax.plot(lay.x, lay.y, color=lay.color, ls=ls, lw=1.2, label=lay.name)
            elif lay.style == "points":
                ax.plot(lay.x, lay.y, ".", color=lay.color, ms=3, label=lay.name)
            else:
                y2 = lay.y2 if lay.y2 is not None else lay.y
                segs = np.stack([np.column_stack([lay.x, lay.y]), np.column_stack([lay.x, y2])], axis=1)
                ax.add_collection(
                    LineCollection(list(segs), colors=lay.color, linewidths=1.6, label=None if lay.marker else lay.name)
                )
                ax.plot(
                    lay.x,
                    lay.y,
                    "D" if lay.marker else "_",
                    color=lay.color,
                    ms=5 if lay.marker else 4,
                    ls="none",
                    label=lay.name if lay.marker else None,
                )
        ax.autoscale_view()
        ax.ticklabel_format(axis="y", style="plain", useOffset=False)
        ax.set_ylabel(panel.ylabel)
        ax.grid(True, alpha=0.3)
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small", frameon=False)
    axes[-1, 0].set_xlabel(fig.xlabel)
    axes[0, 0].set_title(fig.title)
    f.tight_layout()
    f.savefig(out, format=fmt, dpi=120)
    plt.close(f)


@functools.cache
def _plotly_white() -> dict[str, Any]:
    """The "plotly_white" template as plain data, made once: validating it into every figure
    (``update_layout(template=...)``) cost ≈ 50 ms per page, most of a view's time (issue 18)."""
    import plotly.io as pio  # type: ignore[import-untyped]

    return pio.templates["plotly_white"].to_plotly_json()


@functools.cache
def _stacked_axes(n: int) -> str:
    """The axes of ``n`` panels stacked with one shared x axis, as plotly's ``make_subplots``
    lays them out (asked once per panel count; JSON, so each figure gets its own copy)."""
    from plotly.subplots import make_subplots  # type: ignore[import-untyped]

    layout = make_subplots(rows=n, cols=1, shared_xaxes=True, vertical_spacing=0.06).to_dict()["layout"]
    layout.pop("template", None)
    return json.dumps(layout)


def render_plotly(fig: Figure, out: Path, shared_js: bool = False) -> None:
    """The figure as plotly data written straight to HTML: the same figure plotly's validated
    objects would make (``tests/python/test_plot.py`` compares the two), without validating
    every trace, axis and the template again on each page."""
    try:
        import plotly.io as pio  # type: ignore[import-untyped]
    except ImportError as e:
        raise ImportError("the HTML view needs plotly: pip install 'rexmit[plot]' (or pip install plotly)") from e
    n = len(fig.panels)
    layout: dict[str, Any] = json.loads(_stacked_axes(n))
    data: list[dict[str, Any]] = []
    shapes: list[dict[str, Any]] = []
    named: set[str] = set()
    for row, panel in enumerate(fig.panels, start=1):
        suffix = "" if row == 1 else str(row)
        for lay in panel.layers:
            big = len(lay.x) > WEBGL_POINTS
            line: dict[str, Any] = dict(color=lay.color, dash="dash" if lay.dash else "solid")
            if lay.style == "bars":
                xs, ys = _segments(lay.x, lay.y, lay.y2 if lay.y2 is not None else lay.y)
                # Ticks at the ends keep one-TSN blocks (zero length) visible.
                marker = (
                    dict(symbol="diamond", size=6)
                    if lay.marker
                    else dict(symbol="line-ew", size=5, line=dict(width=2, color=lay.color))
                )
                tr = dict(
                    x=xs,
                    y=ys,
                    mode="lines+markers",
                    name=lay.name,
                    line=dict(line, width=2),
                    marker=marker,
                    connectgaps=False,
                )
            elif lay.style == "points":
                tr = dict(x=lay.x, y=lay.y, mode="markers", name=lay.name, marker=dict(color=lay.color, size=4))
            else:
                shape = "hv" if lay.style == "step" and not big else "linear"
                tr = dict(x=lay.x, y=lay.y, mode="lines", name=lay.name, line=dict(line, shape=shape))
            # Panels repeat names (one per SCTP path): one legend entry toggles them all.
            tr.update(
                type="scattergl" if big else "scatter",
                legendgroup=lay.name,
                showlegend=lay.name not in named,
                xaxis=f"x{suffix}",
                yaxis=f"y{suffix}",
            )
            named.add(lay.name)
            data.append(tr)
        layout[f"yaxis{suffix}"]["title"] = {"text": panel.ylabel}
        # Shapes go into the layout at once: add_vrect per episode is quadratic in plotly.
        yref = f"y{suffix} domain"
        shapes += [
            dict(
                type="rect",
                xref="x",
                yref=yref,
                x0=a,
                x1=b,
                y0=0,
                y1=1,
                fillcolor=RECOVERY_SHADE,
                opacity=0.3,
                line=dict(width=0),
                layer="below",
            )
            for a, b in panel.spans
        ]
        shapes += [
            dict(
                type="line",
                xref="x",
                yref=yref,
                x0=float(t),
                x1=float(t),
                y0=0,
                y1=1,
                line=dict(color=TIMEOUT_MARK, dash="dot", width=1),
            )
            for t in fig.marks
        ]
    notes = []
    if any(p.spans for p in fig.panels):
        notes.append(f"shaded: {fig.span_name}")
    if len(fig.marks):
        notes.append(f"dotted: {fig.mark_name}")
    title = fig.title + (f"<br><sup>{'; '.join(notes)}</sup>" if notes else "")
    layout[f"xaxis{'' if n == 1 else n}"]["title"] = {"text": fig.xlabel}
    layout.update(
        title={"text": title}, height=300 + 260 * n, template=_plotly_white(), hovermode="closest", shapes=shapes
    )
    # shared_js: plotly.min.js written once beside the pages (many views in one directory);
    # otherwise embedded. Either way nothing is fetched from the network.
    page = {"data": data, "layout": layout}
    try:
        # What plotly's own figures do to numeric arrays on the way out (plotly ≥ 6: typed arrays
        # in base64); older plotly writes them as lists, and so does this page then.
        from _plotly_utils.utils import convert_to_base64  # type: ignore[import-untyped]

        convert_to_base64(page)
    except ImportError:
        pass
    pio.write_html(page, str(out), include_plotlyjs="directory" if shared_js else True, full_html=True, validate=False)
