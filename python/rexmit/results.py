"""Running scenarios and handling their results.

Output directory layout (everything but ``run_info.json`` is identical for the same scenario
and seed, byte for byte):

- ``scenario.toml``   the exact scenario that ran, every default written out
- ``summary.json``    seed, stop/end time, events, packet hops, partial flag
- ``flows.parquet``   one row per application flow (labels + metrics)
- ``links.parquet``   one row per link direction
- ``nodes.parquet``   one row per node (drop counters)
- ``timeseries.parquet`` requested time series in long form: series, t_ns, t_s, value
- ``messages.parquet``  every delivered message of the message apps (sctp_messages,
  tcp_messages): flow, msg, sent_ns, latency_ns, rtx, size (+ sent_s, latency_s), if any
- ``responses.parquet`` every request of the http apps: flow, request, requested_ns, size,
  completed, completion_ns (+ requested_s, completion_s), if any
- ``trace_sent/acks/blocks/state.parquet`` the event record of the flows ``[[metrics.trace]]``
  names (see ``rexmit.plot`` and the README's "Looking inside a flow"), if any
- ``pcap/*.pcap``     packet captures, if requested
- ``run_info.json``   wall time and speed (varies between runs)
- ``emulation.json``  emulation runs only (``rexmit emulate``): lateness, the real hosts'
  namespaces, routes, sysctls and socket options, and each kernel socket's TCP_INFO
"""

from __future__ import annotations

import json
import os
import platform
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional, Union

from rexmit._lazy import pa, pc, pq

from rexmit import _core
from rexmit.metric_names import Metrics
from rexmit.scenario import Scenario

ProgressFn = Callable[[float, float, int, float], Optional[bool]]


def _flatten(row: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = Metrics(name=row["name"])
    out.update({k: v for k, v in row["labels"]})
    out.update({k: v for k, v in row["metrics"]})
    return out


def _table(rows: list[dict[str, Any]]) -> pa.Table:
    if not rows:
        return pa.table({"name": pa.array([], pa.string())})
    cols: dict[str, list[Any]] = {}
    for r in rows:
        for k in r:
            cols.setdefault(k, [])
    for r in rows:
        for k in cols:
            cols[k].append(r.get(k))
    return pa.table(cols)


def _flow_tables(entries: list[dict[str, Any]]) -> dict[str, pa.Table]:
    """Per-flow integer tables from the run, concatenated per table name in long form (a
    ``flow`` column first); every ``*_ns`` column also comes as seconds (``*_s``). Columns are
    little-endian u64 bytes from the extension (lists in older partial results)."""
    import numpy as np

    by_name: dict[str, dict[str, list[Any]]] = {}
    for e in entries:
        cols = {name: np.frombuffer(v, "<u8") if isinstance(v, bytes) else np.asarray(v, np.uint64) for name, v in e["columns"]}
        rows = len(next(iter(cols.values()), []))
        acc = by_name.setdefault(e["table"], {"flow": []})
        acc["flow"].append(pa.array([e["flow"]] * rows, pa.string()))
        for name, values in cols.items():
            acc.setdefault(name, []).append(values)
    tables: dict[str, pa.Table] = {}
    for name, cols in by_name.items():
        arrays: dict[str, pa.Array] = {"flow": pa.concat_arrays(cols.pop("flow"))}
        for col, parts in cols.items():
            values = np.concatenate(parts) if parts else np.array([], np.uint64)
            arrays[col] = pa.array(values, pa.uint64())
            if col.endswith("_ns"):
                arrays[col[:-3] + "_s"] = pa.array(values / 1e9, pa.float64())
        tables[name] = pa.table(arrays)
    return tables


def _atomic_write_bytes(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _atomic_write_table(path: Path, table: pa.Table) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    pq.write_table(table, tmp)
    os.replace(tmp, path)


@dataclass
class RunResult:
    """Results of one run."""

    scenario: Scenario
    summary: dict[str, Any]
    flows: list[dict[str, Any]]
    links: list[dict[str, Any]]
    nodes: list[dict[str, Any]]
    series: dict[str, tuple[list[int], list[float]]] = field(default_factory=dict)
    pcap_files: list[str] = field(default_factory=list)
    #: Per-flow tables by name (``messages``, ``responses``), long form with a ``flow`` column.
    tables: dict[str, pa.Table] = field(default_factory=dict)
    #: Emulation runs only: lateness, namespaces, sysctls, socket options, TCP_INFO.
    emulation: Optional[dict[str, Any]] = None
    #: What the user should know that did not stop the run (a scripted drop that never matched).
    warnings: list[str] = field(default_factory=list)

    @property
    def partial(self) -> Optional[str]:
        """Why the run stopped early, or None for a complete run."""
        return self.summary.get("partial")

    def flow(self, name: str) -> dict[str, Any]:
        for f in self.flows:
            if f["name"] == name:
                return f
        raise KeyError(f"no flow named {name!r} (flows: {', '.join(f['name'] for f in self.flows)})")

    def link(self, name: str) -> dict[str, Any]:
        for link in self.links:
            if link["name"] == name:
                return link
        raise KeyError(f"no link direction named {name!r}")

    def table(self, name: str, flow: Optional[str] = None) -> pa.Table:
        """A per-flow table (``"messages"``: one row per delivered message with its latency and
        retransmission count; ``"responses"``: one row per HTTP request), optionally one flow's."""
        if name not in self.tables:
            raise KeyError(f"no table {name!r} in this run (tables: {', '.join(self.tables) or 'none'})")
        t = self.tables[name]
        if flow is not None:
            t = t.filter(pc.equal(t["flow"], flow))
        return t

    def flows_table(self) -> pa.Table:
        return _table(self.flows)

    def links_table(self) -> pa.Table:
        return _table(self.links)

    def arrow(self, table: str = "flows") -> pa.Table:
        """One of the run's tables as a ``pyarrow.Table``: ``flows``, ``links``, ``nodes``,
        ``series`` (the time series, long form) or a per-flow table (``messages``, ``responses``)."""
        own = {"flows": self.flows_table, "links": self.links_table, "nodes": lambda: _table(self.nodes), "series": self.series_table}
        if table in own:
            return own[table]()
        if table in self.tables:
            return self.tables[table]
        raise KeyError(f"no table {table!r} in this run (tables: {', '.join([*own, *self.tables])})")

    def to_pandas(self, table: str = "flows") -> Any:
        """A table of the run (see :meth:`arrow`; default: one row per flow) as a pandas
        DataFrame. pandas is optional: a clear ImportError says how to install it."""
        from rexmit.frames import to_pandas

        return to_pandas(self.arrow(table))

    def to_polars(self, table: str = "flows") -> Any:
        """A table of the run (see :meth:`arrow`) as a polars DataFrame (polars is optional)."""
        from rexmit.frames import to_polars

        return to_polars(self.arrow(table))

    def series_table(self) -> pa.Table:
        names: list[str] = []
        t_ns: list[int] = []
        values: list[float] = []
        for name, (t, v) in self.series.items():
            names.extend([name] * len(t))
            t_ns.extend(t)
            values.extend(v)
        return pa.table(
            {
                "series": pa.array(names, pa.string()),
                "t_ns": pa.array(t_ns, pa.uint64()),
                "t_s": pa.array([x / 1e9 for x in t_ns], pa.float64()),
                "value": pa.array(values, pa.float64()),
            }
        )

    def write(self, out_dir: Union[str, Path]) -> Path:
        """Write all outputs (see module docs) under ``out_dir``; each file appears atomically."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        deterministic = {k: v for k, v in self.summary.items() if k != "wall_time_s"}
        if self.warnings:
            deterministic["warnings"] = list(self.warnings)
        _atomic_write_bytes(out / "scenario.toml", self.scenario.to_toml_with_defaults().encode())
        _atomic_write_table(out / "flows.parquet", self.flows_table())
        _atomic_write_table(out / "links.parquet", self.links_table())
        _atomic_write_table(out / "nodes.parquet", _table(self.nodes))
        _atomic_write_table(out / "timeseries.parquet", self.series_table())
        for name, table in self.tables.items():
            _atomic_write_table(out / f"{name}.parquet", table)
        wall = self.summary.get("wall_time_s", 0.0) or 0.0
        info = {
            "wall_time_s": wall,
            "events_per_s": self.summary["events"] / wall if wall > 0 else None,
            "packet_hops_per_s": self.summary["packet_hops"] / wall if wall > 0 else None,
            "rexmit_version": _core.__version__,
            "python": platform.python_version(),
        }
        _atomic_write_bytes(out / "run_info.json", (json.dumps(info, indent=2) + "\n").encode())
        if self.emulation is not None:
            _atomic_write_bytes(out / "emulation.json", (json.dumps(self.emulation, indent=2, sort_keys=True) + "\n").encode())
        # summary.json last: its presence marks a complete output directory.
        _atomic_write_bytes(out / "summary.json", (json.dumps(deterministic, indent=2, sort_keys=True) + "\n").encode())
        return out


def _from_output(scenario: Scenario, output: dict[str, Any]) -> RunResult:
    data = json.loads(output["results"])
    # The lists come from the simulator already: keep them rather than copy (large series).
    series = Metrics({s["name"]: (s["t_ns"], s["values"]) for s in output["series"]})
    return RunResult(
        scenario=scenario,
        summary=data["summary"],
        flows=[_flatten(r) for r in data["flows"]],
        links=[_flatten(r) for r in data["links"]],
        nodes=[_flatten(r) for r in data["nodes"]],
        series=series,
        pcap_files=list(data["pcap_files"]),
        tables=_flow_tables(output.get("tables", data.get("tables", []))),
        emulation=data.get("emulation"),
        warnings=list(data.get("warnings", [])),
    )


def run(
    scenario: Union[Scenario, dict[str, Any], str, Path],
    out_dir: Optional[Union[str, Path]] = None,
    progress: Optional[ProgressFn] = None,
) -> RunResult:
    """Run a scenario (a :class:`Scenario`, a dict as its TOML would parse, or a path to a TOML file).

    With ``out_dir`` the outputs are written there (pcap files while running, the rest at the
    end). ``progress(now_s, stop_s, events, wall_s)`` is called about four times a second;
    returning False stops the run early and the result is marked partial.
    """
    return _run_with(_core.run, scenario, out_dir, progress)


def _run_with(runner: Callable[..., Any], scenario: Union[Scenario, dict[str, Any], str, Path], out_dir: Optional[Union[str, Path]], progress: Optional[ProgressFn]) -> RunResult:
    if isinstance(scenario, dict):
        scenario = Scenario.from_dict(scenario)
    elif isinstance(scenario, (str, Path)):
        scenario = Scenario.load(scenario)
    elif not isinstance(scenario, Scenario):
        raise TypeError(f"scenario: expected a rexmit.Scenario, a dict or the path of a TOML file, not {type(scenario).__name__}")
    out = Path(out_dir) if out_dir is not None else None
    output = runner(scenario.to_json(), "json", str(out) if out else None, progress)
    result = _from_output(scenario, output)
    if out is not None:
        result.write(out)
    return result
