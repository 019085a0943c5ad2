"""The command line: run, validate, normalize, exit codes, outputs."""

import json
import re
import shutil
import subprocess

import pyarrow.parquet as pq
from conftest import ROOT, rexmit_cli

import rexmit


def test_run_writes_summary_parquet_and_pcap(examples, tmp_path):
    out = tmp_path / "out"
    r = rexmit_cli("run", str(examples / "udp_dumbbell.toml"), "--out", str(out))
    assert "results in" in r.stdout
    summary = json.loads((out / "summary.json").read_text())
    assert summary["partial"] is None
    assert summary["end_time_s"] == 20.0
    flows = pq.read_table(out / "flows.parquet").to_pylist()
    assert [f["name"] for f in flows] == ["cbr0", "cbr1", "cbr2", "cbr3"]
    assert all(f["rx_packets"] > 0 for f in flows)
    links = {row["name"]: row for row in pq.read_table(out / "links.parquet").to_pylist()}
    assert links["R1->R2"]["utilization"] > 0.98
    ts = pq.read_table(out / "timeseries.parquet").to_pylist()
    assert {row["series"] for row in ts} == {"queue_packets:R1->R2", "cbr0:rx_bytes"}
    assert max(row["value"] for row in ts if row["series"] == "queue_packets:R1->R2") == 50
    assert (out / "pcap" / "link_R1-R2.pcap").stat().st_size > 1000
    assert "scenario.toml" in {p.name for p in out.iterdir()}


def test_validate_ok_and_errors_name_the_key(examples, tmp_path):
    ok = rexmit_cli("validate", str(examples / "lossy_chain.toml"))
    assert ok.returncode == 0 and "ok" in ok.stdout
    bad = tmp_path / "bad.toml"
    bad.write_text((examples / "lossy_chain.toml").read_text().replace('rate = "64kbps"', 'rate = "0bps"'))
    r = rexmit_cli("validate", str(bad), check=False)
    assert r.returncode == 2
    assert "apps[0].rate" in r.stderr and "> 0" in r.stderr


def test_missing_file_and_unknown_key(tmp_path):
    r = rexmit_cli("validate", str(tmp_path / "nope.toml"), check=False)
    assert r.returncode == 2 and "no such scenario file" in r.stderr
    f = tmp_path / "x.toml"
    f.write_text('stop_time = "1s"\nstop_tiem = "2s"\n')
    r = rexmit_cli("run", str(f), "--out", str(tmp_path / "o"), check=False)
    assert r.returncode == 2 and "stop_tiem" in r.stderr


def test_guard_stops_a_run_and_marks_results_partial(examples, tmp_path):
    text = (
        (examples / "udp_dumbbell.toml")
        .read_text()
        .replace('stop_time = "20s"', 'stop_time = "20s"\n[limits]\nmax_events = 5000', 1)
    )
    f = tmp_path / "limited.toml"
    f.write_text(text)
    out = tmp_path / "o"
    r = rexmit_cli("run", str(f), "--out", str(out), check=False)
    assert r.returncode == 3
    assert "max_events" in r.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert "max_events" in summary["partial"]
    assert summary["end_time_s"] < 20.0
    assert pq.read_table(out / "flows.parquet").num_rows == 4


def test_seed_override_and_normalize(examples, tmp_path):
    out = tmp_path / "o"
    rexmit_cli("run", str(examples / "lossy_chain.toml"), "--out", str(out), "--seed", "99", "-q")
    assert json.loads((out / "summary.json").read_text())["seed"] == 99
    r = rexmit_cli("normalize", str(examples / "lossy_chain.toml"))
    assert 'stop_time = "5s"' in r.stdout and "seed = 7" in r.stdout


def test_progress_bar_appears_on_runs_longer_than_a_second(tmp_path):
    # A 1 Gb/s CBR over a long stop time: well over a second of wall time on any machine,
    # stopped by the wall-time guard so the test stays short.
    f = tmp_path / "long.toml"
    f.write_text(
        'stop_time = "100000s"\n[limits]\nmax_wall_time = "2500ms"\n'
        '[topology]\nkind = "chain"\nnodes = ["A", "B"]\nlinks = [{ rate = "1Gbps", delay = "1ms" }]\n'
        '[[apps]]\nname = "f"\nkind = "udp_cbr"\nfrom = "A"\nto = "B"\nrate = "900Mbps"\npacket_size = 1500\n'
    )
    r = rexmit_cli("run", str(f), "--out", str(tmp_path / "o"), "--progress", check=False)
    assert r.returncode == 3  # stopped by the guard: partial
    assert "sim-s" in r.stderr and "events/s" in r.stderr, r.stderr[-500:]


def test_quick_runs_show_no_progress_bar(examples, tmp_path):
    q = rexmit_cli("run", str(examples / "lossy_chain.toml"), "--out", str(tmp_path / "o"), "--progress")
    assert "sim-s" not in q.stderr


def test_validate_resolves_pcap_targets_without_writing(examples, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ok = rexmit_cli("validate", str(examples / "udp_dumbbell.toml"))
    assert ok.returncode == 0
    assert list(tmp_path.iterdir()) == []
    bad = tmp_path / "bad.toml"
    bad.write_text(
        (examples / "udp_dumbbell.toml")
        .read_text()
        .replace('link = "R1->R2"\n\n', 'link = "R1->R9"\n\n')
        .replace('[[metrics.pcap]]\nlink = "R1->R2"', '[[metrics.pcap]]\nlink = "R1->R9"')
    )
    r = rexmit_cli("validate", str(bad), check=False)
    assert r.returncode == 2 and "metrics.pcap[0].link" in r.stderr


def test_memory_guard_stops_a_growing_run_and_keeps_partial_results(tmp_path):
    # 1 Gb/s into a 1 Mb/s link with room for 50 M packets: the queue grows without bound
    # until limits.max_memory stops the run (the wall-time guard is only a safety net).
    f = tmp_path / "grow.toml"
    f.write_text(
        'stop_time = "100000s"\n[limits]\nmax_memory = "300MiB"\nmax_wall_time = "60s"\n'
        '[topology]\nkind = "chain"\nnodes = ["A", "B", "C"]\n'
        'links = [{ rate = "10Gbps", delay = "1ms" }, { rate = "1Mbps", delay = "1ms", queue = { packets = 50000000 } }]\n'
        '[[apps]]\nname = "f"\nkind = "udp_cbr"\nfrom = "A"\nto = "C"\nrate = "1Gbps"\npacket_size = 1500\n'
    )
    out = tmp_path / "o"
    r = rexmit_cli("run", str(f), "--out", str(out), check=False)
    assert r.returncode == 3, r.stderr[-500:]
    assert "limits.max_memory" in r.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert "max_memory" in summary["partial"]
    assert pq.read_table(out / "flows.parquet").num_rows == 1


def test_normalize_and_scenario_toml_show_every_tcp_and_sctp_default(examples, tmp_path):
    """Issue 17: `rexmit normalize` and a run's scenario.toml show the transport defaults
    (mss, initial window, RTO, dup_thresh, SACK, timestamps, ...) and the guards' defaults, and
    the filled-in scenario runs exactly as the original."""
    import tomllib

    r = rexmit_cli("normalize", str(examples / "tcp_seed001.toml"))
    tcp = tomllib.loads(r.stdout)["apps"][0]["tcp"]
    for key in ("mss", "initial_cwnd_segments", "dup_thresh", "sack", "timestamps", "rto", "ack_every", "profile"):
        assert key in tcp, key
    assert tcp["rto"]["min"] == "1s" and tcp["dup_thresh"] == 3
    assert "max_work" in tomllib.loads(r.stdout)["limits"]
    r = rexmit_cli("normalize", str(examples / "sctp_nrsack.toml"), "--format", "json")
    sctp = json.loads(r.stdout)["apps"][0]["sctp"]
    for key in ("pmtu", "rto", "sack_delay", "max_burst", "cmt", "rack", "thin"):
        assert key in sctp, key
    out = tmp_path / "o"
    rexmit_cli("run", str(examples / "tcp_seed001.toml"), "--out", str(out), "-q")
    again = tmp_path / "again"
    rexmit_cli("run", str(out / "scenario.toml"), "--out", str(again), "-q")
    assert (out / "summary.json").read_text() == (again / "summary.json").read_text()
    assert pq.read_table(out / "flows.parquet").equals(pq.read_table(again / "flows.parquet"))


def test_a_run_that_may_be_long_says_so_before_it_starts(tmp_path):
    """Issue 17: the work is estimated up front (link capacity over stop_time); a run that may
    take minutes says so, and how to see progress, before simulating."""
    f = tmp_path / "long.toml"
    f.write_text(
        'stop_time = "200s"\n[topology]\nkind = "chain"\nnodes = ["A", "B"]\n'
        'links = [{ rate = "100Gbps", delay = "1ms" }]\n'
        '[[apps]]\nname = "f"\nkind = "udp_cbr"\nfrom = "A"\nto = "B"\nrate = "100kbps"\npacket_size = 1000\n'
    )
    r = rexmit_cli("run", str(f), "--out", str(tmp_path / "o"))
    assert "note: the links could carry up to 3.3e+09 packet transmissions" in r.stderr
    assert "--progress" in r.stderr
    quick = rexmit_cli("run", str(f).replace("long", "long"), "--out", str(tmp_path / "q"), "-q")
    assert quick.stderr == ""


def test_run_prints_a_line_per_tcp_and_sctp_flow(tmp_path):
    """Issue 17: `rexmit run` shows TCP and SCTP flows, not only UDP ones."""
    s = rexmit.Scenario(stop_time="2s")
    s.chain(["A", "B"], [{"rate": "10Mbps", "delay": "5ms"}])
    s.app("bulk", "tcp_bulk", "A", "B")
    s.app("assoc", "sctp_bulk", "A", "B")
    s.udp_cbr("cbr", "A", "B", "1Mbps", 1000)
    f = tmp_path / "s.toml"
    s.save(f)
    out = rexmit_cli("run", str(f), "--out", str(tmp_path / "o")).stdout
    lines = {line.split()[0]: line for line in out.splitlines() if line.startswith("  ")}
    assert "tcp_bulk" in lines["bulk"] and "goodput" in lines["bulk"] and "retransmissions" in lines["bulk"]
    assert "sctp_bulk" in lines["assoc"] and "goodput" in lines["assoc"]
    assert "throughput" in lines["cbr"]


def test_ctrl_c_stops_a_run_and_says_what_to_do(tmp_path):
    """Issue 15 §4: Ctrl-C stops a run cleanly (exit 130, partial results kept) and says that a
    single run starts over when the command is run again."""
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    f = tmp_path / "long.toml"
    f.write_text(
        'stop_time = "1000s"\n[topology]\nkind = "chain"\nnodes = ["A", "B"]\nlinks = [{ rate = "1Gbps", delay = "1ms" }]\n'
        '[[apps]]\nname = "f"\nkind = "udp_cbr"\nfrom = "A"\nto = "B"\nrate = "500Mbps"\npacket_size = 1000\n'
    )
    exe = Path(sys.executable).parent / "rexmit"
    restore = lambda: signal.signal(signal.SIGINT, signal.SIG_DFL)
    proc = subprocess.Popen(
        [str(exe), "run", str(f), "--out", str(tmp_path / "o")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=restore,
    )
    time.sleep(2.0)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "run the same command again to start it over" in err and "Traceback" not in err
    assert (tmp_path / "o" / "partial_results.json").is_file()


def test_scenario_errors_of_commands_without_a_scenario_argument_are_one_line(examples, tmp_path, monkeypatch, capsys):
    # `rexmit report` of a run whose scenario.toml was edited into an invalid one: the error used
    # to die with AttributeError (the handler printed args.scenario, which `report` lacks).
    out = tmp_path / "run"
    rexmit_cli("run", str(examples / "udp_dumbbell.toml"), "--out", str(out), "-q")
    text = (out / "scenario.toml").read_text()
    (out / "scenario.toml").write_text(re.sub(r'stop_time = "[^"]*"', 'stop_time = "-5s"', text))
    r = rexmit_cli("report", str(out), check=False)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.startswith("error: stop_time:") and "negative duration" in r.stderr
    # The same for `reproduce`, whose recipes build scenarios.
    import rexmit.reproduce
    from rexmit import _core
    from rexmit.cli import main

    def bad_recipe(*args, **kwargs):
        raise _core.ScenarioError("apps[0].rate: 0bps is not a rate above 0")

    monkeypatch.setattr(rexmit.reproduce, "reproduce", bad_recipe)
    assert main(["reproduce", "tcp-sack", "--quick", "--out", str(tmp_path / "r")]) == 2
    assert capsys.readouterr().err == "error: apps[0].rate: 0bps is not a rate above 0\n"


def test_version_names_the_git_revision_of_the_build():
    from rexmit import _core

    r = rexmit_cli("--version")
    assert re.fullmatch(r"rexmit \d+\.\d+\.\d+\S* \(git ([0-9a-f]{7,}|unknown)\)\n", r.stdout), r.stdout
    assert f"(git {_core.__git_revision__})" in r.stdout
    if (ROOT / ".git").exists() and shutil.which("git"):
        # Built from this checkout: the short revision is a prefix of one that git knows.
        check = subprocess.run(
            ["git", "-C", str(ROOT), "cat-file", "-t", _core.__git_revision__], capture_output=True, text=True
        )
        assert check.stdout.strip() == "commit", _core.__git_revision__
