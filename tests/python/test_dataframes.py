"""RunResult and sweep results as pandas and polars DataFrames, and the DuckDB query of
docs/dataframes.md over a sweep directory (issue 15 §3). pandas, polars and duckdb are dev
dependencies (`make dev-deps`), optional for users."""

import re
import sys

import duckdb
import pandas as pd
import polars as pl
import pytest
from conftest import ROOT

import rexmit
from rexmit.sweep import Sweep, SweepError, SweepResult, run_sweep, summarize


@pytest.fixture(scope="module")
def lossy():
    return rexmit.run(ROOT / "examples" / "lossy_chain.toml")


def test_run_result_converts_each_table(lossy):
    flows = lossy.to_pandas()
    assert isinstance(flows, pd.DataFrame) and list(flows["name"]) == [f["name"] for f in lossy.flows]
    assert flows.set_index("name").loc[lossy.flows[0]["name"], "kind"] == lossy.flows[0]["kind"]
    links = lossy.to_polars("links")
    assert isinstance(links, pl.DataFrame) and links.height == len(lossy.links)
    assert links["name"].to_list() == [link["name"] for link in lossy.links]
    with pytest.raises(KeyError, match="no table 'nope' in this run .tables: flows, links, nodes, series"):
        lossy.to_pandas("nope")


def test_a_missing_optional_dependency_says_how_to_install_it(lossy, monkeypatch):
    monkeypatch.setitem(sys.modules, "polars", None)  # makes `import polars` fail
    with pytest.raises(ImportError, match=r"polars is not installed.*pip install 'rexmit\[dataframes\]'"):
        lossy.to_polars()


@pytest.fixture(scope="module")
def udp_rate(tmp_path_factory):
    out = tmp_path_factory.mktemp("sweep") / "udp_rate"
    sweep = Sweep.load(ROOT / "examples" / "udp_rate.sweep.toml")
    sweep.replications = 2
    return run_sweep(sweep, out, jobs=2, progress=False)


def test_sweep_result_converts_runs_and_summary(udp_rate):
    runs = udp_rate.to_pandas()
    assert len(runs) == 12 and {"run_id", "param.apps[0].rate", "flow.cbr0.throughput_bps"} <= set(runs.columns)
    summary = SweepResult.from_dir(udp_rate.out).to_polars("summary")
    assert summary.height == 6 and summary["runs"].to_list() == [2] * 6
    assert summary["flow.cbr0.throughput_bps.mean"][0] == pytest.approx(
        runs[runs["point"] == 0]["flow.cbr0.throughput_bps"].mean()
    )
    with pytest.raises(ValueError, match="'runs'.*'summary'"):
        udp_rate.to_pandas("rows")
    with pytest.raises(SweepError, match="not a sweep directory"):
        SweepResult.from_dir(udp_rate.out / "runs")


def test_the_documented_duckdb_query_runs_on_a_sweep_directory(udp_rate):
    doc = (ROOT / "docs" / "dataframes.md").read_text()
    (query,) = re.findall(r"```sql\n(.*?)```", doc, re.S)
    rows = duckdb.sql(query.replace("results/udp_rate", str(udp_rate.out))).fetchall()
    expected = summarize(udp_rate.out).to_pylist()
    assert [(r[0], r[1], r[2]) for r in rows] == [(s["point"], s["param.apps[0].rate"], s["runs"]) for s in expected]
    for r, s in zip(rows, expected):
        assert r[3] == pytest.approx(s["flow.cbr0.throughput_bps.mean"] / 1e6)
        assert r[4] == pytest.approx(s["link.R->D.drop_error.mean"])
