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

The Parquet files are written by :mod:`rexmit._parquet`, which needs neither pyarrow nor numpy
(a short `rexmit run` would spend most of its time importing them); a table of more than
``LEAN_MAX_ROWS`` rows, or with a column that writer does not know, is written by pyarrow. Read
back, both give the same Arrow tables as :meth:`RunResult.arrow`.
"""

from __future__ import annotations

import json
import os
import sys
from array import array
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional

from rexmit import _core, _parquet
from rexmit._lazy import pa, pc, pq
from rexmit._parquet import DOUBLE, STRING, UINT64, Column
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


def _lean_columns(rows: list[dict[str, Any]]) -> list[Column] | None:
    """The columns :func:`_table` makes of these rows, for :mod:`rexmit._parquet`; None when a
    column holds what only pyarrow writes (lists, mixed types)."""
    if not rows:
        return [Column("name", STRING, [])]
    names: dict[str, None] = {}
    for r in rows:
        for k in r:
            names.setdefault(k)
    out = []
    for k in names:
        values = [r.get(k) for r in rows]
        kind = _parquet.infer(values)
        if kind is None:
            return None
        out.append(Column(k, kind, values))
    return out


#: Tables of more rows than this are written by pyarrow (dictionary-encoded and compressed, so
#: much smaller); below it the time to import pyarrow would exceed the time to write them.
LEAN_MAX_ROWS = 50_000


def _write_rows(path: Path, rows: list[dict[str, Any]]) -> None:
    """The rows as :func:`_table` makes them, written without pyarrow when the columns allow."""
    cols = _lean_columns(rows) if len(rows) <= LEAN_MAX_ROWS else None
    if cols is None:
        _atomic_write_table(path, _table(rows))
    else:
        _parquet.write(path, cols, _CREATED_BY)


_CREATED_BY = f"rexmit version {_core.__version__}"


if TYPE_CHECKING:
    _TableMapping = Mapping[str, pa.Table]
else:
    # No string forward reference at run time: typing compiles one, which initialises the ast
    # module, 5% of a short `rexmit run`'s instructions (issue 18).
    _TableMapping = Mapping[str, object]


class FlowTables(_TableMapping):
    """The per-flow integer tables of a run (``messages``, ``responses``, ``trace_*``) by name,
    long form with a ``flow`` column first; every ``*_ns`` column also comes as seconds
    (``*_s``). Each table is a ``pyarrow.Table`` made on first use: writing the results needs
    only the columns (:meth:`columns`), which spares a short run importing pyarrow and numpy.
    Columns arrive as little-endian u64 bytes from the extension (lists in older partial
    results)."""

    def __init__(self, entries: list[dict[str, Any]]) -> None:
        #: name -> [(flow, rows, [(column, little-endian u64 bytes)])], in the run's order.
        self._raw: dict[str, list[tuple[str, int, list[tuple[str, bytes]]]]] = {}
        for e in entries:
            cols = [(name, v if isinstance(v, bytes) else _u64_bytes(v)) for name, v in e["columns"]]
            rows = len(cols[0][1]) // 8 if cols else 0
            self._raw.setdefault(e["table"], []).append((e["flow"], rows, cols))
        self._made: dict[str, pa.Table] = {}

    def __getitem__(self, name: str) -> pa.Table:
        if name not in self._made:
            self._made[name] = self._arrow(self._raw[name])
        return self._made[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._raw)

    def __len__(self) -> int:
        return len(self._raw)

    def rows(self, name: str) -> int:
        return sum(rows for _, rows, _ in self._raw[name])

    def columns(self, name: str) -> list[Column]:
        """The table's columns for :mod:`rexmit._parquet`, without pyarrow or numpy."""
        parts = self._raw[name]
        out = [Column("flow", STRING, [flow for flow, rows, _ in parts for _ in range(rows)])]
        for col in _column_names(parts):
            data = b"".join(dict(cols).get(col, b"") for _, _, cols in parts)
            out.append(Column(col, UINT64, data))
            if col.endswith("_ns"):
                seconds = array("d", (t / 1e9 for t in _u64_values(data)))
                if sys.byteorder == "big":
                    seconds.byteswap()
                out.append(Column(col[:-3] + "_s", DOUBLE, seconds.tobytes()))
        return out

    @staticmethod
    def _arrow(parts: list[tuple[str, int, list[tuple[str, bytes]]]]) -> pa.Table:
        import numpy as np

        arrays: dict[str, pa.Array] = {
            "flow": pa.array([flow for flow, rows, _ in parts for _ in range(rows)], pa.string())
        }
        for col in _column_names(parts):
            values = np.frombuffer(b"".join(dict(cols).get(col, b"") for _, _, cols in parts), "<u8")
            arrays[col] = pa.array(values, pa.uint64())
            if col.endswith("_ns"):
                arrays[col[:-3] + "_s"] = pa.array(values / 1e9, pa.float64())
        return pa.table(arrays)


def _column_names(parts: list[tuple[str, int, list[tuple[str, bytes]]]]) -> list[str]:
    names: dict[str, None] = {}
    for _, _, cols in parts:
        for col, _ in cols:
            names.setdefault(col)
    return list(names)


def _u64_bytes(values: Sequence[int]) -> bytes:
    a = array("Q", values)
    if sys.byteorder == "big":
        a.byteswap()
    return a.tobytes()


def _u64_values(data: bytes) -> array:  # type: ignore[type-arg]
    a = array("Q", data)
    if sys.byteorder == "big":
        a.byteswap()
    return a


def _atomic_write_bytes(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _atomic_write_table(path: Path, table: pa.Table) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    pq.write_table(table, tmp)
    os.replace(tmp, path)


class RunResult:
    """Results of one run.

    A plain class, not a dataclass: ``dataclasses`` imports ``inspect`` (and ``ast``), about
    12 ms of every short ``rexmit run`` (issue 18); the constructor, equality and repr are a
    dataclass's."""

    #: The fields, in the constructor's order: what equality compares and repr shows. (No
    #: ``__slots__``: a dataclass's instances take other attributes too, and so do these.)
    _FIELDS = (
        "scenario",
        "summary",
        "flows",
        "links",
        "nodes",
        "series",
        "pcap_files",
        "tables",
        "emulation",
        "warnings",
    )

    def __init__(
        self,
        scenario: Scenario,
        summary: dict[str, Any],
        flows: list[dict[str, Any]],
        links: list[dict[str, Any]],
        nodes: list[dict[str, Any]],
        series: dict[str, tuple[list[int], list[float]]] | None = None,
        pcap_files: list[str] | None = None,
        tables: Mapping[str, pa.Table] | None = None,
        emulation: dict[str, Any] | None = None,
        warnings: list[str] | None = None,
    ) -> None:
        self.scenario = scenario
        self.summary = summary
        self.flows = flows
        self.links = links
        self.nodes = nodes
        self.series: dict[str, tuple[list[int], list[float]]] = {} if series is None else series
        self.pcap_files: list[str] = [] if pcap_files is None else pcap_files
        #: Per-flow tables by name (``messages``, ``responses``, ``trace_*``), long form with a
        #: ``flow`` column (a :class:`FlowTables` from a run, any mapping to ``pyarrow.Table``).
        self.tables: Mapping[str, pa.Table] = {} if tables is None else tables
        #: Emulation runs only: lateness, namespaces, sysctls, socket options, TCP_INFO.
        self.emulation = emulation
        #: What the user should know that did not stop the run (a scripted drop that never matched).
        self.warnings: list[str] = [] if warnings is None else warnings

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return all(getattr(self, k) == getattr(other, k) for k in self._FIELDS)

    __hash__ = None  # type: ignore[assignment]  # mutable, as a dataclass with eq

    def __repr__(self) -> str:
        return f"RunResult({', '.join(f'{k}={getattr(self, k)!r}' for k in self._FIELDS)})"

    @property
    def partial(self) -> str | None:
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

    def table(self, name: str, flow: str | None = None) -> pa.Table:
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
        own = {
            "flows": self.flows_table,
            "links": self.links_table,
            "nodes": lambda: _table(self.nodes),
            "series": self.series_table,
        }
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

    def _series_long(self) -> tuple[list[str], list[int], list[float]]:
        names: list[str] = []
        t_ns: list[int] = []
        values: list[float] = []
        for name, (t, v) in self.series.items():
            names.extend([name] * len(t))
            t_ns.extend(t)
            values.extend(v)
        return names, t_ns, values

    def series_table(self) -> pa.Table:
        names, t_ns, values = self._series_long()
        return pa.table(
            {
                "series": pa.array(names, pa.string()),
                "t_ns": pa.array(t_ns, pa.uint64()),
                "t_s": pa.array([x / 1e9 for x in t_ns], pa.float64()),
                "value": pa.array(values, pa.float64()),
            }
        )

    def write(self, out_dir: str | Path) -> Path:
        """Write all outputs (see module docs) under ``out_dir``; each file appears atomically."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        deterministic = {k: v for k, v in self.summary.items() if k != "wall_time_s"}
        if self.warnings:
            deterministic["warnings"] = list(self.warnings)
        _atomic_write_bytes(out / "scenario.toml", self.scenario.to_toml_with_defaults().encode())
        _write_rows(out / "flows.parquet", self.flows)
        _write_rows(out / "links.parquet", self.links)
        _write_rows(out / "nodes.parquet", self.nodes)
        if sum(len(t) for t, _ in self.series.values()) <= LEAN_MAX_ROWS:
            names, t_ns, values = self._series_long()
            series = [
                Column("series", STRING, names),
                Column("t_ns", UINT64, _u64_bytes(t_ns)),
                Column("t_s", DOUBLE, [t / 1e9 for t in t_ns]),
                Column("value", DOUBLE, values),
            ]
            _parquet.write(out / "timeseries.parquet", series, _CREATED_BY)
        else:
            _atomic_write_table(out / "timeseries.parquet", self.series_table())
        for name in self.tables:
            if isinstance(self.tables, FlowTables) and self.tables.rows(name) <= LEAN_MAX_ROWS:
                _parquet.write(out / f"{name}.parquet", self.tables.columns(name), _CREATED_BY)
            else:
                _atomic_write_table(out / f"{name}.parquet", self.tables[name])
        wall = self.summary.get("wall_time_s", 0.0) or 0.0
        info = {
            "wall_time_s": wall,
            "events_per_s": self.summary["events"] / wall if wall > 0 else None,
            "packet_hops_per_s": self.summary["packet_hops"] / wall if wall > 0 else None,
            "rexmit_version": _core.__version__,
            "python": sys.version.split()[0],  # platform.python_version(), without importing platform
        }
        _atomic_write_bytes(out / "run_info.json", (json.dumps(info, indent=2) + "\n").encode())
        if self.emulation is not None:
            _atomic_write_bytes(
                out / "emulation.json", (json.dumps(self.emulation, indent=2, sort_keys=True) + "\n").encode()
            )
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
        tables=FlowTables(output.get("tables", data.get("tables", []))),
        emulation=data.get("emulation"),
        warnings=list(data.get("warnings", [])),
    )


def run(
    scenario: Scenario | dict[str, Any] | str | Path,
    out_dir: str | Path | None = None,
    progress: ProgressFn | None = None,
) -> RunResult:
    """Run a scenario (a :class:`Scenario`, a dict as its TOML would parse, or a path to a TOML file).

    With ``out_dir`` the outputs are written there (pcap files while running, the rest at the
    end). ``progress(now_s, stop_s, events, wall_s)`` is called about four times a second;
    returning False stops the run early and the result is marked partial.
    """
    return _run_with(_core.run, scenario, out_dir, progress)


def _run_with(
    runner: Callable[..., Any],
    scenario: Scenario | dict[str, Any] | str | Path,
    out_dir: str | Path | None,
    progress: ProgressFn | None,
) -> RunResult:
    if isinstance(scenario, dict):
        scenario = Scenario.from_dict(scenario)
    elif isinstance(scenario, (str, Path)):
        scenario = Scenario.load(scenario)
    elif not isinstance(scenario, Scenario):
        raise TypeError(
            f"scenario: expected a rexmit.Scenario, a dict or the path of a TOML file, not {type(scenario).__name__}"
        )
    out = Path(out_dir) if out_dir is not None else None
    output = runner(scenario.to_json(), "json", str(out) if out else None, progress)
    result = _from_output(scenario, output)
    if out is not None:
        result.write(out)
    return result
