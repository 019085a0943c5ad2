"""Sweep reports link one traced run per point (issue 15 §1, rexmit.views): the first
replication of every point is run again with the flow traced, which is the same run, and its
time-sequence and cwnd pages are written under views/ with one shared plotly.min.js."""

from pathlib import Path

import pytest

import rexmit.cli
from rexmit.report import report
from rexmit.sweep import Sweep, load, run_sweep
from rexmit.view_pages import FlowViews

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
    page = report(sweep_dir, views=FlowViews("bulk")).read_text()
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
    data = {
        **data,
        "stop_time": "300s",
        "topology": {**data["topology"], "links": [{"rate": "100Mbps", "delay": "10ms", "queue": {"packets": 100}}]},
    }
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


def test_a_sweep_told_the_flow_keeps_its_trace_and_the_report_runs_nothing_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """run_sweep(views=FLOW) traces the first replication of every point as it runs: its
    metrics are the untraced sweep's, number for number, the kept trace is what a traced rerun
    records, and the report draws from it without running anything."""
    import numpy as np

    import rexmit.results
    from rexmit.plot.trace import load_trace
    from rexmit.results import run
    from rexmit.scenario import Scenario
    from rexmit.views import TRACES, window_of

    # A warmup of nine decimals: the kept scenario is normalised ("1987654321ns"), as the
    # recipes' drawn start times are, and must still be found.
    odd = SWEEP.replace('warmup = "1s"', 'warmup = "1.987654321s"')
    plain_dir, traced_dir = tmp_path / "plain", tmp_path / "traced"
    run_sweep(Sweep.from_toml(odd), plain_dir)
    run_sweep(Sweep.from_toml(odd), traced_dir, views="bulk")
    plain, traced = load(plain_dir), load(traced_dir)
    assert traced.equals(plain)
    rows = traced.to_pylist()
    kept = {p.name for p in (traced_dir / TRACES).iterdir()}
    assert kept == {r["run_id"] for r in rows if r["replication"] == 0} and len(kept) == 2
    for rid in kept:
        scenario = Scenario.load(traced_dir / "scenarios" / f"{rid}.toml")
        assert "trace" not in scenario.data.get("metrics", {})  # the sweep's scenario is untraced
        window = window_of(scenario.data, "bulk")
        again = load_trace(run(scenario.trace("bulk", *window)), "bulk")
        stored = load_trace(traced_dir / TRACES / rid, "bulk")
        for part in ("sent", "acks", "state"):
            a, b = getattr(stored, part), getattr(again, part)
            assert a.keys() == b.keys() and len(a["t"]) > 10, part
            assert all(np.array_equal(a[c], b[c]) for c in a), part

    def no_run(*_: object, **__: object) -> None:
        raise AssertionError("the report ran a scenario again")

    monkeypatch.setattr(rexmit.results, "run", no_run)
    page = report(traced_dir, views=FlowViews("bulk")).read_text()
    assert 'href="views/point1_tsg.html"' in page and (traced_dir / "views" / "point1_cwnd.html").is_file()


def test_a_sweep_told_a_flow_it_lacks_says_so_before_any_run(tmp_path: Path) -> None:
    from rexmit.sweep import SweepError

    with pytest.raises(SweepError, match="views: no app named 'nope'"):
        run_sweep(Sweep.from_toml(SWEEP), tmp_path, views="nope")
    assert not list((tmp_path / "runs").glob("*.parquet"))


def test_rexmit_sweep_views_keeps_the_traces(tmp_path: Path) -> None:
    from rexmit.views import TRACES

    (tmp_path / "s.toml").write_text(SWEEP)
    assert (
        rexmit.cli.main(
            [
                "sweep",
                str(tmp_path / "s.toml"),
                "--out",
                str(tmp_path / "o"),
                "--views",
                "bulk",
                "--quiet",
                "--jobs",
                "1",
            ]
        )
        == 0
    )
    assert len([p for p in (tmp_path / "o" / TRACES).iterdir() if (p / "scenario.toml").is_file()]) == 2
