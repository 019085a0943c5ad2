"""Packaging (issue 15 §4): the wheel maturin builds from this checkout installs into a fresh
virtual environment, and its `rexmit` command runs a scenario and names the version and git
revision it was built from.

The build takes `make install`'s build settings (scripts/pgo_env.sh: with a profile, its target
directory and RUSTFLAGS), so cargo finds the same sources already built and the wheel takes
seconds; with other settings it would build everything again (minutes, with fat LTO). The fresh
venv gets only the wheel (`pip install --no-deps`): its dependencies (pyarrow, ...) come from
the environment running the tests through a .pth file, so the test needs no network, while
`rexmit` itself is imported from the wheel alone."""

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from conftest import EXAMPLES, ROOT


def _maturin() -> str:
    found = shutil.which("maturin", path=str(Path(sys.executable).parent)) or shutil.which("maturin")
    if found is None:
        pytest.fail("maturin is needed to build the wheel (make install puts it in .venv)")
    return found


def _run(cmd: list[str], **kwargs) -> subprocess.CompletedProcess:
    r = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    assert r.returncode == 0, f"{' '.join(cmd)}\n{r.stdout}\n{r.stderr}"
    return r


def test_wheel_installs_into_a_fresh_venv_and_runs_an_example(tmp_path):
    # The build as `make install` runs it (VIRTUAL_ENV too: maturin gives pyo3 that interpreter,
    # and another one would rebuild pyo3 and everything above it); the fresh venv without either.
    build = '. scripts/pgo_env.sh && exec "$0" build --release -o "$1"'
    _run(["bash", "-c", build, _maturin(), str(tmp_path / "dist")], cwd=ROOT, timeout=1800)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    (wheel,) = (tmp_path / "dist").glob("rexmit-*.whl")

    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], env=env)
    python, rexmit = venv / "bin" / "python", venv / "bin" / "rexmit"
    _run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)], env=env, timeout=600)
    site = _run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], env=env
    ).stdout.strip()
    deps = dict.fromkeys([sysconfig.get_paths()["purelib"], *(p for p in sys.path if p.endswith("site-packages"))])
    (Path(site) / "rexmit-test-deps.pth").write_text("".join(f"{p}\n" for p in deps))

    # rexmit comes from the wheel, not from the checkout or the test environment.
    where = _run([str(python), "-c", "import rexmit; print(rexmit.__file__)"], env=env, cwd=tmp_path).stdout.strip()
    assert Path(where).is_relative_to(venv), where

    version = _run([str(rexmit), "--version"], env=env, cwd=tmp_path).stdout
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    expected = head.stdout.strip() if head.returncode == 0 else "unknown"
    assert version.startswith("rexmit 0.") and version.endswith(f"(git {expected})\n"), version

    out = tmp_path / "run"
    r = _run(
        [str(rexmit), "run", str(EXAMPLES / "udp_dumbbell.toml"), "--out", str(out)], env=env, cwd=tmp_path, timeout=600
    )
    assert "results in" in r.stdout
    assert (out / "summary.json").is_file() and (out / "flows.parquet").is_file()
