"""FreeBSD's SCTP (usrsctp) from Python and the command line (issue 39): a TOML scenario with
``stack = "usrsctp"`` runs end to end, twice in one process with identical results, in sweep
worker processes as in the sweep process, and without the library the run stops with exit 2
and says how to install it. Skipped without the library unless REXMIT_REQUIRE_USRSCTP=1."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import rexmit
import rexmit.cli
from rexmit.sweep import Sweep, load, run_sweep

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "sctp_usrsctp.toml"
NOT_INSTALLED = "usrsctp is not installed"


def short(seconds: int) -> rexmit.Scenario:
    return rexmit.Scenario.from_toml(EXAMPLE.read_text().replace('stop_time = "20s"', f'stop_time = "{seconds}s"'))


@pytest.fixture(scope="module")
def usrsctp() -> None:
    """Skip (or fail, with REXMIT_REQUIRE_USRSCTP=1) when the library cannot be loaded."""
    try:
        rexmit.run(short(3))
    except rexmit.ScenarioError as e:
        if NOT_INSTALLED not in str(e) or os.environ.get("REXMIT_REQUIRE_USRSCTP") == "1":
            raise
        pytest.skip(str(e))


def test_toml_scenario_runs_freebsd_sctp_from_the_command_line(usrsctp, tmp_path, capsys):
    assert rexmit.cli.main(["run", str(EXAMPLE), "--out", str(tmp_path / "out")]) == 0
    flows = pq.read_table(tmp_path / "out" / "flows.parquet").to_pylist()
    (sctp,) = flows
    # 1% loss, 32 ms RTT: a few Mb/s, with losses recovered by the stack's fast retransmits.
    assert 1e6 < sctp["goodput_bps"] < 20e6
    assert sctp["retransmissions"] > 10 and sctp["fast_retransmits"] > 0
    assert sctp["undecodable_packets"] == 0 and sctp["failure"] == 0
    assert sctp["stack"] == "usrsctp" and sctp["kind"] == "sctp_bulk"
    assert 'stack = "usrsctp"' in (tmp_path / "out" / "scenario.toml").read_text()


def test_two_runs_in_one_process_are_identical(usrsctp):
    a, b = rexmit.run(short(3)), rexmit.run(short(3))
    assert a.flows == b.flows and a.links == b.links


def test_sweep_workers_run_usrsctp_like_the_sweep_process(usrsctp, tmp_path):
    sweep = Sweep(base=short(3), grid={"apps[0].sctp.nr_sack": [False, True]}, replications=1, seed=3)
    run_sweep(sweep, tmp_path / "serial", jobs=1, progress=False)
    run_sweep(sweep, tmp_path / "workers", jobs=2, progress=False)
    serial = load(tmp_path / "serial")
    assert serial.num_rows == 2
    assert load(tmp_path / "workers").equals(serial)
    assert all(g > 0 for g in serial.column("flow.sctp.goodput_bps").to_pylist())


def test_without_the_library_run_exits_2_naming_the_install_step(tmp_path):
    env = {**os.environ, "REXMIT_USRSCTP_LIB": "librexmit-no-such-usrsctp.so.2"}
    done = subprocess.run(
        [sys.executable, "-m", "rexmit", "run", str(EXAMPLE), "--out", str(tmp_path / "out")],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    err = done.stderr.strip()
    assert err.startswith("error: ") and "\n" not in err, err
    assert "apps[0].stack" in err and NOT_INSTALLED in err and "make usrsctp-deps" in err, err
