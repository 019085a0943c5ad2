"""The sender's state over time: congestion window, slow-start threshold, flight size and pipe
(``cwnd``), retransmission-queue bytes (``rtxq``), smoothed RTT and RTO (``rtt``); an SCTP
association's per-destination quantities in one panel per path. Fast recovery is shaded and
timeouts marked, as in the time-sequence graph."""

from __future__ import annotations

import numpy as np

from rexmit.plot.figure import Figure, Panel
from rexmit.plot.trace import INFINITE, FlowTrace

COLORS = {
    "cwnd": "#0072B2",
    "ssthresh": "#D55E00",
    "flight": "#009E73",
    "pipe": "#CC79A7",
    "rtxq_bytes": "#882255",
    "srtt": "#0072B2",
    "rto": "#D55E00",
}
LABELS = {"flight": "flight size", "pipe": "pipe (RFC 6675)", "srtt": "smoothed RTT", "rto": "RTO"}
TITLES = {
    "cwnd": "congestion window, ssthresh and flight size",
    "rtxq": "retransmission queue",
    "rtt": "smoothed RTT and RTO",
}


def _scaled(v: np.ndarray, scale: float, missing: float) -> np.ndarray:
    """``v / scale`` with "infinite" values (or ``missing``) left out of the line."""
    out = v.astype(float) / scale
    out[(v >= INFINITE) | (v == missing)] = np.nan
    return out


def _panel(tr: FlowTrace, kind: str, path: int, named: bool) -> Panel:
    s = tr.state
    sel = s["path"] == path
    t = s["t"][sel]
    where = f", path {path}" if named else ""
    if kind == "cwnd":
        panel = Panel(f"Bytes (kB){where}")
        keys = ["flight", "ssthresh", "cwnd"]
        if tr.protocol == "tcp" and np.any(s["pipe"][sel] != s["flight"][sel]):
            keys.append("pipe")
        for key in keys:
            panel.add(
                "step", LABELS.get(key, key), t, _scaled(s[key][sel], 1e3, -1), COLORS[key], dash=key == "ssthresh"
            )
    elif kind == "rtxq":
        panel = Panel("Retransmission queue (kB)")
        panel.add("step", "rtxq bytes", t, s["rtxq_bytes"][sel] / 1e3, COLORS["rtxq_bytes"])
    else:
        panel = Panel(f"Time (ms){where}")
        for key in ("srtt", "rto"):
            panel.add("step", LABELS[key], t, _scaled(s[key][sel] * 1e3, 1.0, 0), COLORS[key], dash=key == "rto")
    panel.spans = tr.recovery_episodes(path if named else None)
    return panel


def state(tr: FlowTrace, kind: str) -> Figure:
    if kind not in TITLES:
        raise ValueError(f"unknown state view {kind!r}")
    paths = sorted(set(tr.state["path"].tolist())) or [0]
    if kind == "rtxq" or len(paths) == 1:
        panels = [_panel(tr, kind, paths[0], named=False)]
    else:
        panels = [_panel(tr, kind, p, named=True) for p in paths]
    return Figure(f"{tr.flow}: {TITLES[kind]}", panels, marks=tr.timeout_times())
