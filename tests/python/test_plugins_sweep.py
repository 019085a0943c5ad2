"""Python controllers in sweeps and on the command line (issue 36 item 3): every worker imports
the plugin before it runs (local processes, Dask workers in their own processes), results equal
the built-in's where the plugin re-implements it, and a plugin the workers cannot import is an
error before the sweep starts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import rexmit
from rexmit.sweep import Sweep, SweepError, load, run_sweep

ROOT = Path(__file__).resolve().parents[2]
RENO = ROOT / "examples" / "plugins" / "reno.py"


def sweep(cc: str, plugins: list[str] | None = None) -> Sweep:
    base = rexmit.Scenario.load(ROOT / "examples" / "tcp_seed001.toml")
    base.set("stop_time", "10s")
    base.set("apps[0].tcp.cc", cc)
    s = Sweep(base=base, grid={"topology.links[1].errors[0].rate": [1e-3, 1e-2]}, replications=2, plugins=plugins or [])
    s.check()
    return s


def metrics(out: Path) -> list[dict]:
    rows = load(out).to_pylist()
    return sorted(
        ({k: v for k, v in r.items() if k.startswith("flow.") and not k.endswith(".cc")} for r in rows),
        key=lambda r: sorted(r.items()),
    )


def test_a_python_controller_in_a_sweep_on_local_workers_equals_the_builtin(tmp_path):
    rexmit.load_plugins([RENO])
    run_sweep(sweep("reno"), tmp_path / "builtin", jobs=2, progress=False)
    result = run_sweep(sweep("reno_py", [str(RENO)]), tmp_path / "plugin", jobs=2, progress=False)
    assert result.ran == 4
    assert metrics(tmp_path / "plugin") == metrics(tmp_path / "builtin")


def test_dask_workers_in_their_own_processes_import_the_plugin(tmp_path):
    distributed = pytest.importorskip("distributed")
    rexmit.load_plugins([RENO])
    run_sweep(sweep("reno"), tmp_path / "builtin", jobs=1, progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        result = run_sweep(sweep("reno_py"), tmp_path / "dask", cluster=cluster.scheduler_address, progress=False)
    assert result.ran == 4
    assert metrics(tmp_path / "dask") == metrics(tmp_path / "builtin")


class InMain(rexmit.CongestionControl):
    def on_ack(self, ack):
        self.cwnd += min(ack.acked, self.smss)

    def on_congestion_event(self, ev):
        self.cwnd = self.ssthresh = max(ev.base // 2, 2 * self.smss)


def test_a_controller_no_worker_can_import_is_an_error_before_the_sweep(tmp_path, monkeypatch):
    monkeypatch.setattr(InMain, "__module__", "__main__")
    rexmit.register_cc("in_main_py", InMain, replace=True)
    with pytest.raises(SweepError, match=r"defined in __main__ .* cannot import: define it in a module file"):
        run_sweep(sweep("in_main_py"), tmp_path / "out", jobs=2, progress=False)
    assert not (tmp_path / "out" / "runs").exists() or not any((tmp_path / "out" / "runs").iterdir())
    # In this process (one job) it runs.
    assert run_sweep(sweep("in_main_py"), tmp_path / "one", jobs=1, progress=False).ran == 4
    text = 'plugins = ["no_such_plugin.py"]\nreplications = 1\nbase = "x.toml"\n'
    with pytest.raises(SweepError, match="plugins: .*no_such_plugin.py: no such file"):
        Sweep.from_toml(text, base_dir=tmp_path)


def test_the_command_line_loads_plugins_for_run_validate_and_sweep(tmp_path):
    scenario = tmp_path / "vegas.toml"
    scenario.write_text((ROOT / "examples" / "tcp_seed001.toml").read_text().replace('cc = "reno"', 'cc = "vegas_py"'))
    cli = [sys.executable, "-m", "rexmit"]
    plugin = str(ROOT / "examples" / "plugins" / "vegas.py")
    r = subprocess.run([*cli, "validate", str(scenario)], capture_output=True, text=True)
    assert r.returncode == 2 and '"vegas_py" is not a registered congestion controller' in r.stderr
    r = subprocess.run([*cli, "validate", "--plugin", plugin, str(scenario)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    r = subprocess.run(
        [*cli, "run", "--plugin", plugin, str(scenario), "--out", str(tmp_path / "run"), "-q"],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    r = subprocess.run(
        [*cli, "run", "--plugin", str(tmp_path / "missing.py"), str(scenario), "--out", str(tmp_path / "r2")],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2 and "missing.py: no such file" in r.stderr
    sweep_file = tmp_path / "s.toml"
    sweep_file.write_text(
        'replications = 2\nbase = "vegas.toml"\n[grid]\n"topology.links[1].errors[0].rate" = [1e-3]\n'
    )
    r = subprocess.run(
        [*cli, "sweep", "--plugin", plugin, str(sweep_file), "--out", str(tmp_path / "sw"), "-q", "-j", "2"],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    assert load(tmp_path / "sw").num_rows == 2
