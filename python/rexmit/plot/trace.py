"""A traced flow's event record (``[[metrics.trace]]``), read from a run directory or a
:class:`~rexmit.results.RunResult`, as numpy columns per table.

Tables and columns are those of ``rexmit_endpoints::trace`` (the Rust module documents every
column): ``sent`` (t, start, end, cause, path), ``acks`` (t, cum, rwnd, path), ``blocks`` (t,
kind, start, end) and ``state`` (t, path, cwnd, ssthresh, flight, pipe, rtxq_bytes, rto, srtt,
recovery, timeouts), with times in seconds.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from rexmit._lazy import pa, pc, pq

if TYPE_CHECKING:
    from rexmit.results import RunResult

#: ``trace_sent.cause`` codes (``rexmit_endpoints::trace::Cause``).
CAUSES = {
    0: "new",
    1: "fast retransmit",
    2: "RTO",
    3: "RACK",
    4: "TLP",
    5: "rescue",
    6: "thin fast retransmit",
    7: "early retransmit",
    8: "early fast retransmit",
    9: "reneged",
    10: "TLP (new data)",
}
#: ``trace_blocks.kind`` codes (``rexmit_endpoints::trace::BlockKind``).
BLOCKS = {1: "SACK", 2: "D-SACK", 3: "gap", 4: "nr-gap"}
#: Values at or above this are "infinite" (an initial ssthresh).
INFINITE = 2**62

TABLES = ("sent", "acks", "blocks", "state")

Columns = dict[str, np.ndarray]


class NoTraceError(LookupError):
    """The run has no trace of the flow (the scenario did not ask for one)."""


@dataclass
class FlowTrace:
    flow: str
    #: ``"tcp"`` or ``"sctp"``.
    protocol: str
    sent: Columns
    acks: Columns
    blocks: Columns
    state: Columns

    def window(self, t_from: float | None, t_to: float | None) -> FlowTrace:
        """Only the events at ``t_from`` ≤ t ≤ ``t_to`` (seconds; None = open)."""

        def cut(cols: Columns) -> Columns:
            t = cols["t"]
            keep = np.ones(len(t), dtype=bool)
            if t_from is not None:
                keep &= t >= t_from
            if t_to is not None:
                keep &= t <= t_to
            return {k: v[keep] for k, v in cols.items()}

        return FlowTrace(self.flow, self.protocol, *(cut(getattr(self, n)) for n in TABLES))

    def recovery_episodes(self, path: int | None = None) -> list[tuple[float, float]]:
        """(start, end) of every fast-recovery period of ``path`` (None: of any path) in the state
        samples; an open one ends at the last event."""
        s = self.state
        ends = [float(c["t"].max()) for c in (self.sent, self.acks, s) if len(c["t"])]
        t_end = max(ends, default=0.0)
        current: dict[int, int] = {}
        out: list[tuple[float, float]] = []
        start: float | None = None
        for ti, p, r in zip(s["t"], s["path"], s["recovery"]):
            if path is not None and p != path:
                continue
            current[int(p)] = int(r)
            on = any(current.values())
            if on and start is None:
                start = float(ti)
            elif not on and start is not None:
                out.append((start, float(ti)))
                start = None
        if start is not None:
            out.append((start, t_end))
        return out

    def timeout_times(self) -> np.ndarray:
        """When a retransmission timeout fired (any path)."""
        s = self.state
        times = []
        for p in np.unique(s["path"]):
            sel = s["path"] == p
            t, n = s["t"][sel], s["timeouts"][sel]
            grew = np.diff(n, prepend=n[0] if len(n) else 0) > 0
            times.append(t[grew])
        return np.sort(np.concatenate(times)) if times else np.array([])


def _columns(table: pa.Table | None, flow: str) -> Columns:
    if table is None or table.num_rows == 0:
        return {}
    t = table.filter(pc.equal(table["flow"], flow))
    out: Columns = {}
    for name in t.column_names:
        if name == "flow" or name.endswith("_ns"):
            continue
        key = {"t_s": "t", "rto_s": "rto", "srtt_s": "srtt"}.get(name, name)
        out[key] = t[name].to_numpy()
    return out


_EMPTY = {
    "sent": ("t", "start", "end", "cause", "path"),
    "acks": ("t", "cum", "rwnd", "path"),
    "blocks": ("t", "kind", "start", "end"),
    "state": ("t", "path", "cwnd", "ssthresh", "flight", "pipe", "rtxq_bytes", "rto", "srtt", "recovery", "timeouts"),
}


def _hint(flow: str, where: str) -> str:
    return f'{where} has no trace of flow {flow!r}: add [[metrics.trace]] with flow = "{flow}" to the scenario and run it again'


def load_trace(source: str | Path | RunResult, flow: str) -> FlowTrace:
    """The trace of ``flow`` from a run directory or a :class:`RunResult`.

    Raises :class:`NoTraceError` when the run did not trace it, ``KeyError`` when it has no such
    flow.
    """
    from rexmit.results import RunResult

    if isinstance(source, RunResult):
        scenario, flows = source.scenario, source.flows
        tables: dict[str, Any] = {n: source.tables.get(f"trace_{n}") for n in TABLES}
        where = "this run"
    else:
        from rexmit.scenario import Scenario

        run_dir = Path(source)
        if not (run_dir / "scenario.toml").is_file():
            raise FileNotFoundError(
                f"{run_dir}: not a run directory (no scenario.toml; `rexmit run SCENARIO --out DIR` writes one)"
            )
        scenario = Scenario.load(run_dir / "scenario.toml")
        flows = pq.read_table(run_dir / "flows.parquet").to_pylist()
        tables = {n: pq.read_table(p) if (p := run_dir / f"trace_{n}.parquet").is_file() else None for n in TABLES}
        where = str(run_dir)
    row = next((f for f in flows if f["name"] == flow), None)
    if row is None:
        raise KeyError(f"{where} has no flow named {flow!r} (flows: {', '.join(f['name'] for f in flows) or 'none'})")
    traced = [t.get("flow") for t in scenario.data.get("metrics", {}).get("trace", [])]
    if flow not in traced:
        raise NoTraceError(_hint(flow, where))
    cols = {n: _columns(tables[n], flow) or {c: np.array([]) for c in _EMPTY[n]} for n in TABLES}
    protocol = "sctp" if str(row.get("kind", "")).startswith("sctp") else "tcp"
    return FlowTrace(flow, protocol, cols["sent"], cols["acks"], cols["blocks"], cols["state"])
