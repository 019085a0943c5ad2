"""The runs of a sweep, one per task: what a worker process (or a Dask worker) does with a
scenario, and the pool of local workers. Owns: running one scenario and sending back its
metrics row, time series, scenario text and (for the views) a traced flow's records; leaving
when the sweep process is gone. Not here: the plan, the files of a sweep directory, Dask
(``rexmit.sweep``)."""

from __future__ import annotations

import os
import signal
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Optional

from rexmit._lazy import pa
from rexmit.scenario import Scenario

if TYPE_CHECKING:
    from rexmit.results import RunResult
    from rexmit.views import ViewTrace


def metrics_row(result: RunResult) -> dict[str, Any]:
    """A run's metrics as one flat row: ``summary.<field>``, ``flow.<name>.<metric>``,
    ``link.<name>.<metric>``, ``node.<name>.<metric>`` (numbers only; wall time left out, as it
    is the one thing that differs between identical runs)."""
    row: dict[str, Any] = {}
    for key, value in result.summary.items():
        if key not in ("seed", "wall_time_s"):
            row[f"summary.{key}"] = value
    for prefix, rows in (("flow", result.flows), ("link", result.links), ("node", result.nodes)):
        for entry in rows:
            for key, value in entry.items():
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    row[f"{prefix}.{entry['name']}.{key}"] = float(value)
    return row


def _metrics_table(row: dict[str, Any]) -> pa.Table:
    cols = {}
    for key, value in row.items():
        if value is None or isinstance(value, str):
            cols[key] = pa.array([value], pa.string())
        elif isinstance(value, int) and not isinstance(value, bool):
            cols[key] = pa.array([value], pa.int64())
        else:
            cols[key] = pa.array([value], pa.float64())
    return pa.table(cols)


@dataclass(frozen=True)
class FinishedRun:
    """What a worker sends back: the metrics row, the time series, the scenario text and, for
    a run the views draw, the traced flow's records."""

    run_id: str
    metrics: dict[str, Any]
    series: pa.Table
    scenario_toml: str
    view: ViewTrace | None = None


#: The sweep process of a local worker (set by its initializer), None elsewhere.
_PARENT: int | None = None


def _parent_alive(*_: Any) -> bool:
    """Progress callback of runs in a local worker: the simulator calls it about four times a
    second, so a worker whose sweep process died leaves within a second, even mid-run."""
    if _PARENT is not None and os.getppid() != _PARENT:
        os._exit(1)
    return True


#: A flow to trace for the views and its window (``[[metrics.trace]]``'s flow, from, to).
View = tuple[str, str, str]


def execute(
    run_id: str, scenario_data: dict[str, Any], view: View | None = None, plugins: tuple[str, ...] = ()
) -> FinishedRun:
    """Run one scenario (in a worker process or on a Dask worker); writes nothing. With
    ``view`` the run traces that flow over that window and sends its records back: a trace
    records and schedules nothing, so the metrics are the untraced run's (rexmit.views).
    ``plugins``: controller sources imported first (rexmit.plugins; once per process)."""
    from rexmit.results import run

    if plugins:
        from rexmit.plugins import load_plugins

        load_plugins(list(plugins))

    scenario = Scenario.from_dict(scenario_data)
    progress = _parent_alive if _PARENT is not None else None
    if view is None:
        result = run(scenario, progress=progress)
        trace = None
    else:
        from rexmit.views import capture

        flow, t_from, t_to = view
        result = run(Scenario.from_dict(scenario_data).trace(flow, t_from, t_to), progress=progress)
        trace = capture(result, flow)
    return FinishedRun(run_id, metrics_row(result), result.series_table(), scenario.to_toml(), trace)


Task = tuple[str, dict[str, Any], Optional[View], tuple[str, ...]]
OnDone = Callable[[FinishedRun], None]


def _init_worker(parent: int) -> None:
    global _PARENT
    _PARENT = parent
    # Ctrl-C is for the sweep process: it stops the workers itself, and saved runs stay saved.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A worker whose sweep process was killed (kill -9) would wait forever for work: leave.
    threading.Thread(target=_exit_when_orphaned, args=(parent,), daemon=True).start()


def _exit_when_orphaned(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(0.2)
    os._exit(1)


def run_local(tasks: list[Task], jobs: int, on_done: OnDone) -> None:
    if jobs == 1 or len(tasks) <= 1:
        for task in tasks:
            on_done(execute(*task))
        return
    # Imported here: `import rexmit` imports this module, and most processes never fan out.
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    others = set(multiprocessing.active_children())
    workers: list[multiprocessing.process.BaseProcess] = []
    pool = ProcessPoolExecutor(max_workers=jobs, initializer=_init_worker, initargs=(os.getpid(),))
    try:
        futures = [pool.submit(execute, *task) for task in tasks]
        workers = [c for c in multiprocessing.active_children() if c not in others]
        for future in as_completed(futures):
            on_done(future.result())
    except BaseException:
        # Stop now rather than after the runs in progress; they are not saved anyway.
        pool.shutdown(wait=False, cancel_futures=True)
        for worker in workers:
            worker.terminate()
        raise
    pool.shutdown()
