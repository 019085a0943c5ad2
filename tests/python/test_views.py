"""Sweep reports link one traced run per point (issue 15 §1, rexmit.views): the first
replication of every point is run again with the flow traced, which is the same run, and its
time-sequence and cwnd pages are written under views/ with one shared plotly.min.js."""

from pathlib import Path

import pytest

import rexmit.cli
from rexmit.report import report
from rexmit.sweep import Sweep, load, run_sweep

SWEEP = """name = "views"
replications = 2
seed = 3
[base]
stop_time = "4s"
[base.topology]
kind = "chain"
nodes = ["A", "B"]
links = [{ rate = "10Mbps", delay = "10ms", queue = { packets = 30 }, errors = [{ kind = "uniform", rate = 0.01, direction = "forward" }] }]
[[base.apps]]
name = "bulk"
kind = "tcp_bulk"
from = "A"
to = "B"
warmup = "1s"
tcp = { recovery = "newreno" }
[grid]
"apps[0].tcp.recovery" = ["newreno", "sack"]
"""


@pytest.fixture(scope="module")
def sweep_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("views")
    run_sweep(Sweep.from_toml(SWEEP), out)
    return out


def test_report_links_a_traced_run_per_point(sweep_dir: Path) -> None:
    page = report(sweep_dir, views="bulk").read_text()
    views = sweep_dir / "views"
    for point in (0, 1):
        for kind in ("tsg", "cwnd"):
            html = (views / f"point{point}_{kind}.html").read_text()
            assert f'href="views/point{point}_{kind}.html"' in page
            # plotly.js is shared, not embedded: the page loads it from beside itself.
            assert 'src="plotly.min.js"' in html and len(html) < 2_000_000
            assert ('"name":"cumulative ACK"' if kind == "tsg" else '"name":"cwnd"') in html
    assert (views / "plotly.min.js").stat().st_size > 1_000_000
    assert "Inside one run per point" in page


def test_the_traced_run_is_the_run_of_the_sweep(sweep_dir: Path) -> None:
    from rexmit.results import run
    from rexmit.scenario import Scenario

    row = next(r for r in load(sweep_dir).to_pylist() if r["point"] == 1 and r["replication"] == 0)
    scenario = Scenario.load(sweep_dir / "scenarios" / f"{row['run_id']}.toml").trace("bulk", "1s", "4s")
    traced = run(scenario).flow("bulk")
    for metric in ("goodput_bps", "retransmissions", "timeouts"):
        assert traced[metric] == row[f"flow.bulk.{metric}"], metric


def test_a_view_run_stopped_after_its_window_traces_what_the_full_run_traces() -> None:
    """The views stop a run once the traced window has passed (a 2 h run is traced over 5 s):
    the window's records must be the full run's, record for record."""
    from rexmit.results import run
    from rexmit.scenario import Scenario
    from rexmit.views import stop_after

    data = Sweep.from_toml(SWEEP).base.data
    data = {**data, "stop_time": "300s", "topology": {**data["topology"], "links": [{"rate": "100Mbps", "delay": "10ms", "queue": {"packets": 100}}]}}
    tables = ("trace_sent", "trace_acks", "trace_state")
    full = run(Scenario.from_dict(data).trace("bulk", "1s", "2s"))
    early = run(Scenario.from_dict(data).trace("bulk", "1s", "2s"), progress=stop_after(2.0))
    assert full.partial is None
    # 300 s at 100 Mb/s take about a second of wall time: the run stops long before its end.
    assert early.partial is not None and "interrupted" in early.partial and early.summary["end_time_s"] < 300
    for t in tables:
        a, b = full.arrow(t), early.arrow(t)
        assert a.num_rows > 100 and a.equals(b), t


def test_views_of_a_flow_that_is_not_there_is_one_line(sweep_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert rexmit.cli.main(["report", str(sweep_dir), "--views", "nope"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: views: no app named 'nope'") and "\n" not in err
