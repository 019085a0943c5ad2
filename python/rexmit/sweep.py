"""Parameter sweeps: many runs of one base scenario, in parallel, resumable.

Owns the sweep file format (docs/sweeps.md), its expansion into runs (grid x zip x replications,
derived seeds, run ids), executing the runs on local processes or on a Dask cluster, and the
results directory. Not here: the simulation (Rust, through :func:`rexmit.run`), the CI
arithmetic (:mod:`rexmit.stats`), figures and HTML (:mod:`rexmit.report`).

Results directory ``DIR``:

- ``sweep.json``            the sweep, self-contained (base scenario inlined, the sweep file's text)
- ``plan.parquet``          one row per planned run: run_id, point, replication, seed, param.*
- ``runs/<run_id>.parquet`` one row per finished run (labels + metrics); its presence marks the run done
- ``series/<run_id>.parquet`` the run's time series (long form, as ``rexmit run`` writes them)
- ``scenarios/<run_id>.toml`` the exact scenario of the run
- ``results.parquet``       every finished run in plan order (written when the sweep ends)
- ``summary.parquet``       per point: mean, std and 95% CI half-width over replications

Every file appears atomically (temp file + rename), and the worker processes only compute: the
process that runs the sweep writes every file, so a kill at any moment leaves finished runs whole
and the others absent. The run id hashes the run's full normalized scenario, so a run is reused
only when exactly the same scenario (seed included) ran before.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rexmit import _core
from rexmit._lazy import pa, pq
from rexmit.results import _atomic_write_bytes, _atomic_write_table
from rexmit.scenario import Scenario, _split_path, parse_toml_loosely, read_text_file
from rexmit.stats import mean_ci
from rexmit.sweep_workers import FinishedRun, OnDone, Task, View, _metrics_table, execute, metrics_row, run_local

if TYPE_CHECKING:
    from typing_extensions import Self

    from rexmit.ci_target import CiTarget

SWEEP_FORMAT = 1
LABELS = ("run_id", "point", "replication", "seed")
PARAM_PREFIX = "param."
_SWEEP_KEYS = {
    "name",
    "description",
    "base",
    "seed",
    "replications",
    "grid",
    "zip",
    "report",
    "labels",
    "max_runs",
    "ci",
    "plugins",
}
#: Default bound on the runs of one sweep (points x replications); a sweep file may raise it.
DEFAULT_MAX_RUNS = 100_000
_REPORT_KEYS = {"x", "metrics"}


class SweepError(ValueError):
    """A sweep file or sweep directory is malformed."""


def derive_seed(base_seed: int, replication: int) -> int:
    """The seed of replication ``replication``: the first 63 bits of
    SHA-256("rexmit-sweep-seed/<base_seed>/<replication>"), so it fits a TOML integer."""
    import hashlib  # here: `import rexmit` imports this module, and a single run hashes nothing

    digest = hashlib.sha256(f"rexmit-sweep-seed/{base_seed}/{replication}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def run_id_of(scenario: Scenario) -> str:
    """A stable id of a normalized scenario: SHA-256 of its canonical JSON, 16 hex digits."""
    import hashlib

    canonical = json.dumps(scenario.data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def _normalized(data: dict[str, Any]) -> Scenario:
    return Scenario.from_dict(json.loads(_core.validate(json.dumps(data), "json")))


@dataclass(frozen=True)
class PlannedRun:
    """One run of a sweep: a parameter point, a replication, its seed and full scenario."""

    run_id: str
    point: int
    replication: int
    seed: int
    params: dict[str, Any]
    scenario: Scenario


@dataclass
class Sweep:
    """A base scenario, the parameters to vary and the number of replications.

    ``grid`` maps key paths (as :meth:`Scenario.set` takes them) to lists of values, combined as
    a cartesian product; ``zip`` maps key paths to lists of equal length, taken element-wise as one
    more axis of that product. ``seed`` replaces the base scenario's seed as the base of the
    derived replication seeds.
    """

    base: Scenario
    grid: dict[str, list[Any]] = field(default_factory=dict)
    zip: dict[str, list[Any]] = field(default_factory=dict)
    replications: int = 1
    seed: int | None = None
    name: str | None = None
    report: dict[str, Any] = field(default_factory=dict)
    #: Names and units on the report's figures (the sweep file's ``[labels]``; :func:`rexmit.labels.check_labels`).
    labels: dict[str, Any] = field(default_factory=dict)
    text: str | None = None
    max_runs: int = DEFAULT_MAX_RUNS
    #: A planning progress bar on stderr (None: only on a terminal); set by :func:`run_sweep`.
    plan_progress: bool | None = field(default=False, compare=False, repr=False)
    #: Replications by confidence interval (``[ci]``, :mod:`rexmit.ci_target`); None: ``replications``.
    ci: CiTarget | None = None
    #: Replications of each point where they differ from ``replications`` (set while a ``ci``
    #: sweep runs).
    point_replications: dict[int, int] = field(default_factory=dict, compare=False, repr=False)
    #: Plugin sources (``.py`` files or module names) every run imports first: the sweep file's
    #: ``plugins``, paths relative to it (:mod:`rexmit.plugins`).
    plugins: list[str] = field(default_factory=list)

    # --- loading -----------------------------------------------------------------------------
    @classmethod
    def load(cls, path: str | Path) -> Sweep:
        p = Path(path)
        if not p.is_file():
            raise FileNotFoundError(f"{path}: no such sweep file")
        text = read_text_file(p, "sweep")
        return cls.from_toml(text, base_dir=p.parent)

    @classmethod
    def from_toml(cls, text: str, base_dir: str | Path = ".") -> Sweep:
        try:
            data = parse_toml_loosely(text)
        except ValueError as e:
            raise SweepError(f"not valid TOML: {e}") from e
        sweep = cls.from_dict(data, base_dir)
        sweep.text = text
        return sweep

    @classmethod
    def from_dict(cls, data: dict[str, Any], base_dir: str | Path = ".") -> Sweep:
        unknown = sorted(set(data) - _SWEEP_KEYS)
        if unknown:
            raise SweepError(f"{unknown[0]}: unknown key (allowed: {', '.join(sorted(_SWEEP_KEYS))})")
        if "base" not in data:
            raise SweepError("base: missing (a scenario table, or the path of a scenario file)")
        plugins = _load_plugins(data.get("plugins", []), base_dir)
        base = data["base"]
        try:
            if isinstance(base, str):
                base_path = Path(base_dir) / base
                if not base_path.is_file():
                    raise SweepError(f"base: {base_path}: no such scenario file")
                scenario = Scenario.load(base_path)
            elif isinstance(base, dict):
                scenario = _normalized(base)
            else:
                raise SweepError("base: must be a scenario table or a path")
        except _core.ScenarioError as e:
            raise SweepError(f"base.{e.path}: {e.detail}" if e.path else f"base: {e}") from e
        sweep = cls(
            base=scenario,
            grid=_axes(data.get("grid", {}), "grid"),
            zip=_axes(data.get("zip", {}), "zip"),
            replications=data.get("replications", 1),
            seed=data.get("seed"),
            name=data.get("name"),
            report=dict(data.get("report", {})),
            labels=data.get("labels", {}),
            max_runs=data.get("max_runs", DEFAULT_MAX_RUNS),
            plugins=plugins,
        )
        if "ci" in data:
            sweep.set_ci(data["ci"])
        sweep.check()
        return sweep

    def set_ci(self, table: Any) -> Sweep:
        """Replications by confidence interval (``[ci]``: target, metrics, min/max_replications);
        the metrics default to the report's."""
        if not isinstance(table, dict):
            raise SweepError(
                f"ci: must be a table (target, metrics, min_replications, max_replications), got {table!r}"
            )
        try:
            from rexmit.ci_target import CiError, CiTarget  # here, as every ci_target use: `rexmit run` needs none

            self.ci = CiTarget.from_dict(table, self.report.get("metrics", []))
        except CiError as e:
            raise SweepError(str(e)) from None
        self.replications = self.ci.min_replications
        return self

    def check(self) -> Self:
        """Check the sweep's own fields (the scenarios are checked by :meth:`plan`)."""
        if not isinstance(self.replications, int) or isinstance(self.replications, bool) or self.replications < 1:
            raise SweepError(f"replications: {self.replications!r} must be an integer >= 1")
        if self.seed is not None and (not isinstance(self.seed, int) or not 0 <= self.seed < 2**63):
            raise SweepError(f"seed: {self.seed!r} must be an integer from 0 to 2^63-1")
        for where, axes in (("grid", self.grid), ("zip", self.zip)):
            for key, values in axes.items():
                # A string is a sequence too: "abc" would be swept as "a", "b", "c".
                if not isinstance(values, list) or not values:
                    raise SweepError(f"{where}.{key!r}: must be a non-empty list of values, got {values!r}")
                try:
                    _split_path(key)
                except KeyError as e:
                    raise SweepError(f"{where}: {e.args[0]}") from None
        if not isinstance(self.max_runs, int) or isinstance(self.max_runs, bool) or self.max_runs < 1:
            raise SweepError(f"max_runs: {self.max_runs!r} must be an integer >= 1")
        if self.base.data.get("metrics", {}).get("pcap"):
            raise SweepError(
                "base.metrics.pcap: a sweep does not write packet captures; remove [[metrics.pcap]] from the base scenario (to capture one point, run its scenario from DIR/scenarios/ with `rexmit run --out`)"
            )
        lengths = {len(v) for v in self.zip.values()}
        if len(lengths) > 1:
            raise SweepError(
                f"zip: the lists have different lengths ({', '.join(f'{k}: {len(v)}' for k, v in self.zip.items())})"
            )
        both = sorted(set(self.grid) & set(self.zip))
        if both:
            raise SweepError(f"{both[0]}: varied both in grid and in zip")
        unknown = sorted(set(self.report) - _REPORT_KEYS)
        if unknown:
            raise SweepError(f"report.{unknown[0]}: unknown key (allowed: {', '.join(sorted(_REPORT_KEYS))})")
        try:
            from rexmit.labels import check_labels

            self.labels = check_labels(
                self.labels, self.parameters, len(next(iter(self.zip.values()))) if self.zip else 0
            )
        except ValueError as e:
            raise SweepError(str(e)) from None
        total = self.size()
        if total > self.max_runs:
            raise SweepError(
                f"{total:,} runs ({total // self.replications:,} points x {self.replications:,} replications) exceed max_runs = {self.max_runs:,}: shrink the grid or replications, or set max_runs in the sweep file to run them anyway"
            )
        return self

    def size(self) -> int:
        """The number of runs (points x replications; with ``ci``, at most max_replications per
        point), computed without expanding them."""
        n = self.ci.max_replications if self.ci is not None else self.replications
        for values in self.grid.values():
            n *= len(values)
        if self.zip:
            n *= len(next(iter(self.zip.values())))
        return n

    # --- expansion ---------------------------------------------------------------------------
    @property
    def parameters(self) -> list[str]:
        """The varied key paths: grid first (the first one varies slowest), then zip."""
        return list(self.grid) + list(self.zip)

    def points(self) -> list[dict[str, Any]]:
        """Every parameter point: the cartesian product of the grid axes and the zip rows."""
        grid_axes = [[(key, v) for v in values] for key, values in self.grid.items()]
        zip_rows = [list(zip(self.zip, row)) for row in zip(*self.zip.values())] if self.zip else [[]]
        return [dict(list(combo) + row) for combo in itertools.product(*grid_axes) for row in zip_rows]

    def plan(self) -> list[PlannedRun]:
        """Every run, points outer and replications inner, each scenario validated (once per
        point: replications differ only in their seed), with a bar when ``plan_progress``."""
        from tqdm import tqdm  # type: ignore[import-untyped]

        self.check()
        runs = []
        points = self.points()
        progress = self.plan_progress
        bar = tqdm(
            total=len(points),
            unit="point",
            desc="planning",
            file=sys.stderr,
            disable=None if progress is None else not progress,
            delay=1.0,
        )
        for i, params in enumerate(points):
            bar.update()
            point = self.base.copy()
            if self.seed is not None:
                point.data["seed"] = self.seed
            for key, value in params.items():
                try:
                    point.set(key, value)
                except (KeyError, IndexError, TypeError) as e:
                    raise SweepError(
                        f"{key}: does not name a value in the base scenario ({type(e).__name__}: {e})"
                    ) from e
            base_seed = int(point.data.get("seed", 1))
            try:
                normalized = _normalized(dict(point.data, seed=derive_seed(base_seed, 0))).data
            except _core.ScenarioError as e:
                where = ", ".join(f"{k} = {v!r}" for k, v in params.items()) or "the base scenario"
                raise SweepError(f"point {i} ({where}): {e}") from e
            for r in range(self.point_replications.get(i, self.replications)):
                scenario = Scenario.from_dict(dict(normalized, seed=derive_seed(base_seed, r)))
                runs.append(PlannedRun(run_id_of(scenario), i, r, scenario.data["seed"], params, scenario))
        bar.close()
        return runs

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": SWEEP_FORMAT,
            "name": self.name,
            "base": self.base.data,
            "grid": self.grid,
            "zip": self.zip,
            "replications": self.replications,
            "seed": self.seed,
            "report": self.report,
            "labels": self.labels,
            "text": self.text,
            "max_runs": self.max_runs,
            "ci": self.ci.to_dict() if self.ci is not None else None,
            "plugins": self.plugins,
        }

    @classmethod
    def from_saved(cls, out_dir: str | Path) -> Sweep:
        """The sweep stored in a results directory's ``sweep.json``."""
        path = Path(out_dir) / "sweep.json"
        if not path.is_file():
            raise SweepError(f"{out_dir}: not a sweep directory (no sweep.json)")
        d = json.loads(path.read_text(encoding="utf-8"))
        return cls(
            base=Scenario.from_dict(d["base"]),
            grid=d["grid"],
            zip=d["zip"],
            replications=d["replications"],
            seed=d["seed"],
            name=d["name"],
            report=d["report"],
            text=d["text"],
            labels=d.get("labels", {}),
            max_runs=d.get("max_runs", DEFAULT_MAX_RUNS),
            ci=_ci_target(d["ci"]) if d.get("ci") else None,
            plugins=_load_plugins(d.get("plugins", []), "."),
        )


def _load_plugins(sources: Any, base_dir: str | Path) -> list[str]:
    """A sweep's ``plugins`` (files relative to ``base_dir``, or module names), imported here so
    that the base scenario can name their controllers."""
    from rexmit.plugins import load_plugins, resolve_sources

    if not isinstance(sources, list) or not all(isinstance(s, str) for s in sources):
        raise SweepError(f"plugins: a list of .py files or module names, got {sources!r}")
    resolved = resolve_sources(sources, base_dir)
    try:
        load_plugins(resolved)
    except ImportError as e:
        raise SweepError(f"plugins: {e}") from None
    return resolved


def _ci_target(table: dict[str, Any]) -> CiTarget:
    from rexmit.ci_target import CiTarget

    return CiTarget.from_dict(table)


def _axes(table: Any, where: str) -> dict[str, list[Any]]:
    if not isinstance(table, dict):
        raise SweepError(f"{where}: must be a table of key path = [values]")
    for key, values in table.items():
        if not isinstance(values, list) or not values:
            raise SweepError(f"{where}.{key!r}: must be a non-empty list of values")
    return {k: list(v) for k, v in table.items()}


# --- result rows -----------------------------------------------------------------------------
def _param_type(values: list[Any]) -> pa.DataType:
    if all(isinstance(v, bool) for v in values):
        return pa.bool_()
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return pa.int64()
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return pa.float64()
    return pa.string()


def _param_value(value: Any, typ: pa.DataType) -> Any:
    if typ == pa.string() and not isinstance(value, str):
        return json.dumps(value, sort_keys=True)
    return value


def _param_types(sweep: Sweep) -> dict[str, pa.DataType]:
    values = {**sweep.grid, **sweep.zip}
    return {key: _param_type(values[key]) for key in sweep.parameters}


def _label_table(runs: list[PlannedRun], types_: dict[str, pa.DataType]) -> pa.Table:
    cols: dict[str, pa.Array] = {
        "run_id": pa.array([r.run_id for r in runs], pa.string()),
        "point": pa.array([r.point for r in runs], pa.int64()),
        "replication": pa.array([r.replication for r in runs], pa.int64()),
        "seed": pa.array([r.seed for r in runs], pa.int64()),
    }
    for key, typ in types_.items():
        cols[PARAM_PREFIX + key] = pa.array([_param_value(r.params[key], typ) for r in runs], typ)
    return pa.table(cols)


def _write_run(out: Path, finished: FinishedRun, labels: pa.Table) -> pa.Table:
    """The series, scenario and views' trace first, the run row last: the row marks the run as
    done. Returns the run's metrics (the row without its labels)."""
    if finished.view is not None:
        from rexmit.views import write_trace

        write_trace(out, finished.run_id, finished.view)
    _atomic_write_table(out / "series" / f"{finished.run_id}.parquet", finished.series)
    _atomic_write_bytes(out / "scenarios" / f"{finished.run_id}.toml", finished.scenario_toml.encode())
    metrics = _metrics_table(finished.metrics)
    _atomic_write_table(out / "runs" / f"{finished.run_id}.parquet", _beside(labels, metrics))
    return metrics


def finished_ids(out_dir: str | Path) -> set[str]:
    runs = Path(out_dir) / "runs"
    return {p.stem for p in runs.glob("*.parquet") if not p.name.startswith(".")} if runs.is_dir() else set()


# --- executors: local workers (rexmit.sweep_workers) or a Dask cluster ------------------------
_CLUSTER_URL = re.compile(r"(tcp|tls|ws|wss|inproc|ucx)://[^\s/:]+\S*")
#: Seconds to wait for a Dask scheduler to answer before giving up.
CLUSTER_CONNECT_TIMEOUT = 10


def check_cluster_address(address: str) -> None:
    if not _CLUSTER_URL.fullmatch(address):
        raise SweepError(
            f"--cluster {address!r}: not a Dask scheduler address; write it as tcp://HOST:PORT (e.g. tcp://10.0.0.5:8786)"
        )


def _run_dask(tasks: list[Task], address: str, on_done: OnDone) -> None:
    from distributed import Client
    from distributed import as_completed as dask_as_completed

    check_cluster_address(address)
    try:
        client = Client(address, set_as_default=False, timeout=CLUSTER_CONNECT_TIMEOUT)
    except (OSError, TimeoutError) as e:
        raise SweepError(
            f"--cluster {address}: no Dask scheduler answered within {CLUSTER_CONNECT_TIMEOUT} s ({type(e).__name__}); is `dask scheduler` running there?"
        ) from None
    with client:
        plugins = sorted({p for task in tasks for p in task[3]})
        if plugins:
            # Every worker must import the controllers before a run names them: fail here, not
            # in the middle of the sweep.
            from rexmit.plugins import load_plugins

            try:
                client.run(load_plugins, plugins)
            except ImportError as e:
                raise SweepError(f"plugins: a Dask worker cannot import them: {e}") from None
        futures = [client.submit(execute, *task, key=f"rexmit-run-{task[0]}") for task in tasks]
        try:
            for future in dask_as_completed(futures, loop=client.loop):
                on_done(future.result())
        except BaseException:
            client.cancel(futures)
            raise


# --- the sweep -------------------------------------------------------------------------------
@dataclass(frozen=True)
class SweepResult:
    """What a sweep did: ``total`` distinct runs, ``ran`` now, ``skipped`` finished before."""

    out: Path
    total: int
    ran: int
    skipped: int
    #: A ``ci`` sweep: what ``ci.json`` records (target, metrics, replications per point).
    ci: dict[str, Any] | None = None

    @classmethod
    def from_dir(cls, out: str | Path) -> SweepResult:
        """The result of a sweep run earlier into ``out`` (for a notebook): its finished runs."""
        if not (Path(out) / "plan.parquet").is_file():
            raise SweepError(f"{out}: not a sweep directory (no plan.parquet)")
        done = len(finished_ids(out))
        return cls(Path(out), done, 0, done)

    def table(self) -> pa.Table:
        return load(self.out)

    def summary(self) -> pa.Table:
        return summarize(self.out)

    def _arrow(self, what: str) -> pa.Table:
        if what not in ("runs", "summary"):
            raise ValueError(
                f"{what!r}: a sweep converts its 'runs' (one row per run) or its 'summary' (one row per point)"
            )
        return self.table() if what == "runs" else self.summary()

    def to_pandas(self, what: str = "runs") -> Any:
        """The sweep's ``runs`` (one row per finished run: labels, ``param.*``, metrics) or its
        ``summary`` (per point: ``.mean``, ``.std``, ``.ci95``) as a pandas DataFrame (pandas is
        optional: a clear ImportError says how to install it)."""
        from rexmit.frames import to_pandas

        return to_pandas(self._arrow(what))

    def to_polars(self, what: str = "runs") -> Any:
        """The sweep's ``runs`` or ``summary`` as a polars DataFrame (polars is optional)."""
        from rexmit.frames import to_polars

        return to_polars(self._arrow(what))


def _prepare(out: Path, sweep: Sweep, runs: list[PlannedRun]) -> None:
    for sub in ("runs", "series", "scenarios"):
        (out / sub).mkdir(parents=True, exist_ok=True)
        for stale in (out / sub).glob(".*.tmp"):
            stale.unlink()
    _atomic_write_bytes(out / "sweep.json", (json.dumps(sweep.to_dict(), indent=2) + "\n").encode())
    _atomic_write_table(out / "plan.parquet", _label_table(runs, _param_types(sweep)))


def run_sweep(
    sweep: Sweep | str | Path,
    out: str | Path,
    jobs: int | None = None,
    cluster: str | None = None,
    progress: bool | None = None,
    views: str | None = None,
) -> SweepResult:
    """Run every run of ``sweep`` (a :class:`Sweep` or a sweep file) not yet finished in ``out``.

    Local worker processes (``jobs``, default the CPU count; 1 runs in this process), or the Dask
    scheduler at ``cluster`` (e.g. ``tcp://host:8786``). ``progress``: a tqdm bar on stderr
    (None: only on a terminal). Interrupting (Ctrl-C, kill) loses no finished run; calling again
    with the same arguments runs only what is missing. A sweep with ``ci`` adds replications
    point by point until the confidence intervals are narrow enough (:mod:`rexmit.ci_target`;
    ``ci.json`` records what each point needed). ``views`` (a TCP or SCTP flow's name): the
    first replication of every point also records that flow's trace over the views' window,
    from which ``report(..., views=FlowViews(FLOW))`` draws its pages without running it again
    (:mod:`rexmit.views`; the metrics are the untraced run's).
    """
    if jobs is not None and jobs < 1:
        raise SweepError(f"jobs: {jobs} must be at least 1")
    if cluster is not None:
        check_cluster_address(cluster)
    spec = sweep if isinstance(sweep, Sweep) else Sweep.load(sweep)
    out_dir = Path(out)
    spec.plan_progress = progress
    if spec.ci is None:
        return _run_planned(spec, out_dir, jobs, cluster, progress, views)
    from rexmit.ci_target import CiError, next_counts
    from rexmit.ci_target import status as ci_status
    from rexmit.ci_target import write_record as write_ci_record

    ci = spec.ci
    counts = {i: ci.min_replications for i in range(len(spec.points()))}
    total = ran = skipped = 0
    while True:
        spec.point_replications = dict(counts)
        result = _run_planned(spec, out_dir, jobs, cluster, progress, views)
        ran += result.ran
        total, skipped = result.total, result.total - ran
        try:
            # results.parquet was just written from every finished run (_run_planned).
            points = ci_status(pq.read_table(out_dir / "results.parquet").to_pylist(), counts, ci)
        except CiError as e:
            raise SweepError(str(e)) from None
        grown = next_counts(points, counts, ci)
        if not grown:
            break
        counts.update(grown)
    record = write_ci_record(out_dir, ci, points)
    return SweepResult(out_dir, total, ran, skipped, ci=record)


def _view(run: PlannedRun, flow: str | None) -> View | None:
    """The views' trace of ``run``: the first replication of each point (what the sweep report
    draws), none for the others or without a flow."""
    if flow is None or run.replication != 0:
        return None
    from rexmit.views import window_of

    try:
        return (flow, *window_of(run.scenario.data, flow))
    except ValueError as e:
        raise SweepError(str(e)) from None


def _run_planned(
    spec: Sweep,
    out_dir: Path,
    jobs: int | None,
    cluster: str | None,
    progress: bool | None,
    views: str | None = None,
) -> SweepResult:
    from tqdm import tqdm

    runs = spec.plan()
    _prepare(out_dir, spec, runs)
    types_ = _param_types(spec)
    # Two points may give the same scenario (e.g. "1Mbps" and "1000kbps"): it runs once.
    first: dict[str, PlannedRun] = {}
    for r in runs:
        first.setdefault(r.run_id, r)
    done = finished_ids(out_dir) & set(first)
    from rexmit.plugins import sources_for

    todo = [r for r in first.values() if r.run_id not in done]
    in_process = cluster is None and ((jobs or os.cpu_count() or 1) == 1 or len(todo) <= 1)
    try:
        plugins = tuple(sources_for((r.scenario.data for r in todo), spec.plugins, in_process))
    except ValueError as e:
        raise SweepError(str(e)) from None
    tasks: list[Task] = [(r.run_id, r.scenario.data, _view(r, views), plugins) for r in todo]
    bar = tqdm(
        total=len(first),
        initial=len(done),
        unit="run",
        desc=spec.name or "sweep",
        file=sys.stderr,
        disable=None if progress is None else not progress,
    )
    # The metrics rows of the runs finished here, as written: results.parquet is built from
    # them without reading their files back (a wide run file costs ~0.1 s to read).
    known: dict[str, pa.Table] = {}

    def on_done(finished: FinishedRun) -> None:
        known[finished.run_id] = _write_run(out_dir, finished, _label_table([first[finished.run_id]], types_))
        bar.update()

    try:
        if cluster is not None:
            _run_dask(tasks, cluster, on_done)
        else:
            run_local(tasks, jobs or os.cpu_count() or 1, on_done)
    finally:
        bar.close()
    labels = _finished_labels(out_dir)
    # A resumed sweep with nothing left to run (a recipe recomputing its claims) reads its
    # results file, one file instead of one per run, when it is current.
    results = None if tasks else _current_results(out_dir, labels)
    if results is None:
        results = _load_from_runs(out_dir, labels, known=known)
        _atomic_write_table(out_dir / "results.parquet", results)
    summarize(out_dir, table=results)
    return SweepResult(out_dir, len(first), len(tasks), len(done))


# --- reading results -------------------------------------------------------------------------
def _beside(left: pa.Table, right: pa.Table) -> pa.Table:
    """The columns of ``right`` appended to those of ``left`` (same number of rows)."""
    # One new table, not one per column: a run of many flows and links has thousands of columns.
    return pa.Table.from_arrays([*left.columns, *right.columns], names=[*left.column_names, *right.column_names])


def _unify(tables: list[pa.Table]) -> pa.Table:
    """Concatenate tables whose columns may differ (a parameter may change the set of flows)."""
    if not tables:
        return pa.table({})
    first = tables[0].schema
    if all(t.schema.equals(first) for t in tables[1:]):
        return pa.concat_tables(tables)  # the common case: every run has the same flows
    names: dict[str, pa.DataType] = {}
    for t in tables:
        for f in t.schema:
            names.setdefault(f.name, f.type)
    # Column by column (a run of many flows has thousands of columns and a table-wide cast per
    # run costs one compute call per column): each run's chunk as it is, cast to the first
    # type seen only where it differs, nulls where the run lacks the column.
    where = [{n: i for i, n in enumerate(t.column_names)} for t in tables]
    columns = []
    for name, typ in names.items():
        chunks: list[pa.Array] = []
        for t, index in zip(tables, where):
            i = index.get(name)
            if i is None:
                chunks.append(pa.nulls(t.num_rows, typ))
                continue
            col = t.column(i)
            chunks.extend((col if col.type == typ else col.cast(typ)).chunks)
        columns.append(pa.chunked_array(chunks, typ))
    return pa.Table.from_arrays(columns, schema=pa.schema(list(names.items())))


def _finished_labels(out: Path) -> pa.Table:
    """The plan's label rows (run_id, point, replication, seed, params) of the finished runs,
    in plan order."""
    plan_path = out / "plan.parquet"
    if not plan_path.is_file():
        raise SweepError(f"{out}: not a sweep directory (no plan.parquet)")
    plan = pq.read_table(plan_path)
    done = finished_ids(out)
    keep = [i for i, rid in enumerate(plan.column("run_id").to_pylist()) if rid in done]
    return plan.take(pa.array(keep, pa.int64()))


def _load_from_runs(out: Path, labels: pa.Table | None = None, known: dict[str, pa.Table] | None = None) -> pa.Table:
    """The results table built from the run files; ``known``: metrics of runs already in
    memory (as :func:`_write_run` returns them), which are not read back."""
    labels = _finished_labels(out) if labels is None else labels
    cache: dict[str, pa.Table] = dict(known or {})
    rows = []
    for rid in labels.column("run_id").to_pylist():
        if rid not in cache:
            t = pq.read_table(out / "runs" / f"{rid}.parquet")
            cache[rid] = t.drop_columns([c for c in t.column_names if c in LABELS or c.startswith(PARAM_PREFIX)])
        rows.append(cache[rid])
    return _beside(labels, _unify(rows))


def _current_results(out: Path, labels: pa.Table) -> pa.Table | None:
    """``results.parquet`` when it holds exactly the finished runs with the plan's labels (the
    sweep writes it when its last run ends; a run's file never changes once written, as a
    resumed sweep skips finished runs), else None. Reading it costs one file instead of one
    per run: a run of many flows has thousands of columns, and its footer dominates the read."""
    path = out / "results.parquet"
    if not path.is_file():
        return None
    try:
        head = pq.read_table(path, columns=labels.column_names)
    except (OSError, KeyError, pa.ArrowException):
        return None
    if not head.equals(labels):
        return None
    table = pq.read_table(path)
    return table if table.num_rows == labels.num_rows else None


def load(out_dir: str | Path) -> pa.Table:
    """Every finished run of the sweep in ``out_dir``, one row each, in plan order (points, then
    replications). Labels (point, params) come from the current plan; runs not finished yet are
    absent."""
    out = Path(out_dir)
    labels = _finished_labels(out)
    cached = _current_results(out, labels)
    return cached if cached is not None else _load_from_runs(out, labels)


def _is_numeric(typ: pa.DataType) -> bool:
    return pa.types.is_integer(typ) or pa.types.is_floating(typ)


def summarize(out_dir: str | Path, level: float = 0.95, table: pa.Table | None = None) -> pa.Table:
    """Per parameter point: its parameters, ``runs`` (replications finished), and for every
    numeric metric ``<metric>.mean``, ``.std`` and ``.ci95`` (half-width of the Student-t
    interval at ``level``). Writes ``summary.parquet`` and returns the table. ``table``: the
    sweep's results when the caller has them already (as :func:`load` returns them)."""
    out = Path(out_dir)
    table = load(out) if table is None else table
    param_cols = [c for c in table.column_names if c.startswith(PARAM_PREFIX)]
    metric_cols = [
        c
        for c in table.column_names
        if c not in LABELS and not c.startswith(PARAM_PREFIX) and _is_numeric(table.schema.field(c).type)
    ]
    groups: dict[int, list[int]] = {}
    for i, point in enumerate(table.column("point").to_pylist()):
        groups.setdefault(point, []).append(i)
    order = list(groups)
    cols: dict[str, Any] = {"point": pa.array(order, pa.int64())}
    for c in param_cols:
        cols[c] = table.column(c).take(pa.array([groups[p][0] for p in order], pa.int64()))
    cols["runs"] = pa.array([len(groups[p]) for p in order], pa.int64())
    suffix = "ci95" if abs(level - 0.95) < 1e-12 else f"ci{level * 100:g}"
    for c in metric_cols:
        values = table.column(c).to_pylist()
        estimates = [mean_ci([values[i] for i in groups[p]], level) for p in order]
        cols[f"{c}.mean"] = pa.array([e.mean for e in estimates], pa.float64())
        cols[f"{c}.std"] = pa.array([e.std for e in estimates], pa.float64())
        cols[f"{c}.{suffix}"] = pa.array([e.half_width for e in estimates], pa.float64())
    summary = pa.table(cols)
    _atomic_write_table(out / "summary.parquet", summary)
    return summary


__all__ = [
    "Sweep",
    "SweepError",
    "SweepResult",
    "PlannedRun",
    "FinishedRun",
    "derive_seed",
    "run_id_of",
    "run_sweep",
    "load",
    "summarize",
    "metrics_row",
    "execute",
    "finished_ids",
]
