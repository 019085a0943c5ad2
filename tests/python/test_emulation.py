"""`rexmit emulate` and `rexmit.emulate`: real Linux TCP in network namespaces on a simulated
path, run in real time. Live tests need root and /dev/net/tun (see conftest.emulation_or_skip)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import emulation_or_skip, rexmit_cli

import rexmit

# Real time: `make test` runs these alone, after the others (pyproject.toml's markers).
pytestmark = pytest.mark.realtime

SCENARIO = """
stop_time = "{stop}"
[topology]
kind = "dumbbell"
bottleneck = {{ rate = "10Mbps", delay = "20ms", queue = {{ packets = 100 }}, errors = [{{ kind = "uniform", rate = 0.01, direction = "forward" }}] }}
left = [{{ name = "S", rate = "100Mbps", delay = "1ms" }}]
right = [{{ name = "R", rate = "100Mbps", delay = "1ms" }}]
[[apps]]
name = "bulk"
kind = "tcp_bulk"
from = "S"
to = "R"
tcp = {{ cc = "{cc}" }}
[[metrics.pcap]]
link = "R1->R2"
[emulation]
real_hosts = ["S", "R"]
"""


def _our_namespaces(pid: int) -> list[str]:
    d = Path("/run/netns")
    return sorted(p.name for p in d.iterdir() if p.name.startswith(f"rexmit-{pid}-")) if d.is_dir() else []


def test_emulate_cli_writes_results_lateness_and_pcap(tmp_path: Path) -> None:
    emulation_or_skip()
    f = tmp_path / "s.toml"
    f.write_text(SCENARIO.format(stop="3s", cc="bbr"))
    out = tmp_path / "out"
    p = rexmit_cli("emulate", str(f), "--out", str(out), check=False)
    assert p.returncode in (0, 3), p.stderr  # 3: partial (lateness bound) on a loaded machine
    assert "emulator lateness" in p.stdout
    emu = json.loads((out / "emulation.json").read_text())
    late = emu["lateness"]
    assert late["events"] > 500 and 0 <= late["mean_s"] <= late["p99_s"] <= late["max_s"]
    # Every listed stall is an event at least `stall_s` late; the worst one is the max.
    assert all(s["late_s"] >= late["stall_s"] and 0 <= s["at_s"] <= 3.0 for s in late["stalls"])
    assert (
        late["max_s"] < late["stall_s"]
        or max(s["late_s"] for s in late["stalls"]) == late["max_s"]
        or late["stalls_unlisted"] > 0
    )
    assert emu["apps"][0]["socket_options"]["congestion"] == "bbr"
    assert emu["apps"][0]["sender"]["tcp_info"]["bytes_acked"] > 100_000
    # Every recorded sysctl is the namespace's, read back after setting.
    assert emu["hosts"][0]["sysctls"]["net.ipv4.tcp_no_metrics_save"] == "1"
    assert (out / "pcap" / "link_R1-R2.pcap").stat().st_size > 100_000
    assert (out / "flows.parquet").is_file()


def test_emulate_api_flow_row_uses_the_simulated_metric_names(tmp_path: Path) -> None:
    emulation_or_skip()
    r = rexmit.emulate(rexmit.Scenario.from_toml(SCENARIO.format(stop="2s", cc="reno")), out_dir=tmp_path)
    row = r.flow("bulk")
    assert row["stack"] == "linux"
    for k in ("goodput_bps", "retransmissions", "timeouts", "bytes_delivered", "bytes_retransmitted"):
        assert k in row
    assert row["goodput_bps"] > 1e6
    assert r.emulation is not None and r.emulation["kernel"]


def test_ctrl_c_stops_the_run_and_removes_the_namespaces(tmp_path: Path) -> None:
    emulation_or_skip()
    f = tmp_path / "s.toml"
    f.write_text(SCENARIO.format(stop="60s", cc="cubic"))
    exe = Path(sys.executable).parent / "rexmit"
    p = subprocess.Popen(
        [str(exe), "emulate", str(f), "--out", str(tmp_path / "out")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.time() + 20
    while not _our_namespaces(p.pid) and time.time() < deadline:
        time.sleep(0.05)
    assert _our_namespaces(p.pid), "the run never created its namespaces"
    time.sleep(1.0)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=30)
    assert p.returncode == 130, err
    assert _our_namespaces(p.pid) == []


def test_without_root_the_command_says_so_plainly(tmp_path: Path) -> None:
    # Needs a way to drop root; on a machine without root there is nothing to drop.
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or setpriv is None:
        pytest.skip("needs root and setpriv to run the command as an unprivileged user")
    f = tmp_path / "s.toml"
    f.write_text(SCENARIO.format(stop="1s", cc="cubic"))
    tmp_path.chmod(0o777)
    f.chmod(0o644)
    exe = Path(sys.executable).parent / "rexmit"
    p = subprocess.run(
        [
            setpriv,
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "--inh-caps=-all",
            str(exe),
            "emulate",
            str(f),
            "--out",
            str(tmp_path / "o"),
        ],
        capture_output=True,
        text=True,
    )
    assert p.returncode == 4, p.stderr
    assert "cannot emulate on this machine" in p.stderr and "root" in p.stderr


def test_an_app_across_a_real_and_a_simulated_host_is_refused(tmp_path: Path) -> None:
    text = SCENARIO.format(stop="1s", cc="cubic").replace('real_hosts = ["S", "R"]', 'real_hosts = ["S"]')
    with pytest.raises(rexmit.ScenarioError, match=r"apps\[0\]\.from: an app runs either between two real hosts"):
        rexmit.emulate(rexmit.Scenario.from_toml(text), out_dir=tmp_path)


def test_a_tcp_setting_without_a_linux_counterpart_is_refused(tmp_path: Path) -> None:
    text = SCENARIO.format(stop="1s", cc="cubic").replace('cc = "cubic"', 'cc = "cubic", thin_dupack = true')
    with pytest.raises(rexmit.ScenarioError, match=r"apps\[0\]\.tcp\.thin_dupack"):
        rexmit.emulate(rexmit.Scenario.from_toml(text), out_dir=tmp_path)


def test_run_simulates_the_real_hosts(tmp_path: Path) -> None:
    # The same file under `run`: every host simulated, [emulation] ignored.
    r = rexmit.run(rexmit.Scenario.from_toml(SCENARIO.format(stop="2s", cc="cubic")), out_dir=tmp_path)
    assert "stack" not in r.flow("bulk") and r.emulation is None
    assert r.flow("bulk")["goodput_bps"] > 1e6


def test_scenario_builder_marks_real_hosts() -> None:
    s = rexmit.Scenario.from_toml(SCENARIO.format(stop="1s", cc="cubic"))
    del s.data["emulation"]
    s.real_hosts("S", "R", max_lateness="2ms").validate()
    assert s.data["emulation"] == {"real_hosts": ["S", "R"], "max_lateness": "2ms"}
    assert "[emulation]" in s.to_toml()
