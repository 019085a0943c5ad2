"""The plugin tutorial (issue 36 item 6) runs as a reader runs it: Vegas in Python against the
built-in Reno and CUBIC, then the same controller in Rust from a crate outside rexmit's
workspace (examples/plugin-crate), built here once as CI builds it, giving the same numbers."""

import re
import subprocess
import sys

import pytest
from conftest import EXAMPLES

ROOT = EXAMPLES.parent


@pytest.mark.slow
def test_the_plugin_tutorial_runs_and_the_rust_crate_gives_the_same_numbers(tmp_path):
    # A debug build sharing the workspace's target directory (its dependencies are built).
    subprocess.run(
        [
            "cargo",
            "build",
            "-q",
            "--manifest-path",
            str(EXAMPLES / "plugin-crate" / "Cargo.toml"),
            "--target-dir",
            str(ROOT / "target"),
        ],
        check=True,
        timeout=1200,
    )
    binary = ROOT / "target" / "debug" / "vegas-plugin"
    out = tmp_path / "out"
    r = subprocess.run(
        [sys.executable, str(EXAMPLES / "plugin_tutorial.py"), "--out", str(out), "--rust", str(binary)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr
    queue = {
        m.group(1).strip(): float(m.group(2))
        for m in re.finditer(r"^(.+?)\s+[0-9.]+ Mb/s\s+\d+\s+([0-9.]+) pkt", r.stdout, re.M)
    }
    assert set(queue) == {"Reno (built-in)", "CUBIC (built-in)", "Vegas (Python plugin)"}
    # Vegas backs off when its own segments queue up: the shortest queue of the three.
    assert queue["Vegas (Python plugin)"] < min(queue["Reno (built-in)"], queue["CUBIC (built-in)"])
    assert "the same numbers as Python's: True" in r.stdout
    assert (out / "plugin_tutorial.png").is_file()
    assert "<!-- Goodput (Mb/s) -->" in (out / "plugin_tutorial.svg").read_text()
