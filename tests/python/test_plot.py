"""`rexmit plot` and `rexmit.plot.plot_flow`: the views of a traced TCP and SCTP flow are
written in every format with the run's data in them; an untraced flow is a one-line error
(exit 2) saying to add [[metrics.trace]]."""

from __future__ import annotations

import contextlib
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import rexmit
from rexmit.cli import main
from rexmit.plot import NoTraceError, load_trace, plot_flow

# The 11th segment (relative sequence number 1 + 10 * 1460) is dropped once: SACK recovery
# retransmits it by fast retransmit.
DROPPED_SEQ = 1 + 10 * 1460
TCP = f"""
stop_time = "5s"
[topology]
kind = "chain"
nodes = ["A", "R", "B"]
links = [ {{ rate = "10Mbps", delay = "5ms", errors = [{{ kind = "scripted", app = "bulk", tcp_seqs = [{DROPPED_SEQ}], direction = "forward" }}] }},
          {{ rate = "10Mbps", delay = "5ms" }} ]
[[apps]]
name = "bulk"
kind = "tcp_bulk"
from = "A"
to = "B"
bytes = "200KB"
tcp = {{ recovery = "sack" }}
[[apps]]
name = "other"
kind = "tcp_bulk"
from = "A"
to = "B"
bytes = "10KB"
"""
SCTP = """
stop_time = "5s"
[topology]
kind = "chain"
nodes = ["A", "R", "B"]
links = [ { rate = "10Mbps", delay = "5ms", errors = [{ kind = "scripted", app = "assoc", sctp_tsns = [10], direction = "forward" }] },
          { rate = "10Mbps", delay = "5ms" } ]
[[apps]]
name = "assoc"
kind = "sctp_bulk"
from = "A"
to = "B"
messages = 100
message_size = 1000
sctp = { nr_sack = true }
"""
TRACE = '\n[[metrics.trace]]\nflow = "{}"\n'


def cli(*args: str) -> subprocess.CompletedProcess:
    """`rexmit ARGS` in this process (fast); `cli_process` runs the real command."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(list(args))
    return subprocess.CompletedProcess(args, rc, out.getvalue(), err.getvalue())


def cli_process(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rexmit", *args], capture_output=True, text=True)


def traced_run(factory: pytest.TempPathFactory, text: str, flow: str) -> Path:
    """Run `text` with `flow` traced; the run directory."""
    d = factory.mktemp(flow)
    (d / "s.toml").write_text(text + TRACE.format(flow))
    rexmit.run(str(d / "s.toml"), out_dir=d / "run")
    return d / "run"


@pytest.fixture(scope="module")
def tcp_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return traced_run(tmp_path_factory, TCP, "bulk")


@pytest.fixture(scope="module")
def sctp_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return traced_run(tmp_path_factory, SCTP, "assoc")


def test_the_trace_is_written_as_parquet_and_records_the_fast_retransmission(tcp_run: Path) -> None:
    for table in ("sent", "acks", "blocks", "state"):
        assert (tcp_run / f"trace_{table}.parquet").is_file()
    tr = load_trace(tcp_run, "bulk")
    rtx = tr.sent["cause"] != 0
    assert tr.sent["start"][rtx].tolist() == [DROPPED_SEQ]
    assert tr.sent["cause"][rtx].tolist() == [1]
    assert len(tr.recovery_episodes()) == 1


@pytest.mark.parametrize("kind", ["tsg", "cwnd", "rtxq", "rtt"])
@pytest.mark.parametrize("fmt", ["png", "svg", "html"])
def test_cli_writes_every_view_of_a_tcp_flow(tcp_run: Path, kind: str, fmt: str) -> None:
    out = tcp_run / f"v_{kind}.{fmt}"
    r = cli("plot", str(tcp_run), "--flow", "bulk", "--kind", kind, "--format", fmt, "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert out.stat().st_size > 10_000
    if fmt == "png":
        assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    elif fmt == "svg":
        assert b"<svg" in out.read_bytes()[:2000]


def _plotly_page(html: str) -> dict:
    """The figure (data and layout) embedded in the page."""
    m = re.search(r"Plotly\.newPlot\(\s*\"[^\"]+\",\s*(\[.*?\]),\s*(\{.*?\}),\s*\{\"responsive\"", html, re.S)
    assert m, "no Plotly.newPlot call in the page"
    return {"data": json.loads(m.group(1)), "layout": json.loads(m.group(2))}


def _plotly_traces(html: str) -> list[dict]:
    """The trace list of the figure embedded in the page."""
    return _plotly_page(html)["data"]


def test_tsg_html_embeds_plotly_and_the_data(tcp_run: Path) -> None:
    out = plot_flow(tcp_run, "bulk", "tsg", format="html")
    assert out == tcp_run / "plots" / "bulk_tsg.html"
    html = out.read_text()
    # plotly.js is in the page (offline): no script is loaded from elsewhere.
    assert re.search(r"<script[^>]*\ssrc=", html) is None and "plotly.js v" in html.lower()
    names = {t["name"] for t in _plotly_traces(html)}
    assert {"new data", "retransmitted: fast retransmit", "SACK blocks", "cumulative ACK"} <= names
    assert "fast recovery" in html


@pytest.mark.parametrize("run, flow", [("tcp_run", "bulk"), ("sctp_run", "assoc")])
def test_the_html_figure_is_what_plotlys_validated_figure_makes_of_it(
    run: str, flow: str, request: pytest.FixtureRequest
) -> None:
    # The page is written from plain data, not from plotly's validated objects (issue 18: their
    # validation was most of a view's time): plotly, validating the page's figure, must neither
    # reject a property nor change a value, the template and the typed arrays included.
    go = pytest.importorskip("plotly.graph_objects")
    source = request.getfixturevalue(run)
    for kind in ("tsg", "cwnd", "rtxq", "rtt"):
        page = _plotly_page(plot_flow(source, flow, kind, format="html").read_text())
        assert page["layout"]["template"]["layout"], kind
        assert json.loads(go.Figure(page).to_json()) == page, kind


def test_window_zooms_into_the_recovery(tcp_run: Path) -> None:
    tr = load_trace(tcp_run, "bulk")
    ((start, end),) = tr.recovery_episodes()
    zoomed = tr.window(start, end)
    assert 0 < len(zoomed.sent["t"]) < len(tr.sent["t"])
    assert zoomed.sent["t"].min() >= start and zoomed.sent["t"].max() <= end
    out = cli(
        "plot", str(tcp_run), "--flow", "bulk", "--from", str(start), "--to", str(end), "--out", str(tcp_run / "z.png")
    )
    assert out.returncode == 0, out.stderr


@pytest.mark.parametrize("kind", ["tsg", "cwnd", "rtxq", "rtt"])
def test_sctp_views(sctp_run: Path, kind: str) -> None:
    for fmt in ("png", "html"):
        r = cli("plot", str(sctp_run), "--flow", "assoc", "--kind", kind, "--format", fmt)
        assert r.returncode == 0, r.stderr
        assert (sctp_run / "plots" / f"assoc_{kind}.{fmt}").stat().st_size > 10_000


def test_sctp_tsg_shows_the_retransmitted_tsn_and_nr_gap_blocks(sctp_run: Path) -> None:
    tr = load_trace(sctp_run, "assoc")
    assert tr.protocol == "sctp"
    rtx = tr.sent["cause"] != 0
    assert tr.sent["start"][rtx].tolist() == [10]
    html = plot_flow(sctp_run, "assoc", "tsg", format="html").read_text()
    names = {t["name"] for t in _plotly_traces(html)}
    assert {"new TSNs", "retransmitted: fast retransmit", "nr-gap blocks", "cumulative TSN ack"} <= names


def test_plot_from_a_run_result(tmp_path: Path) -> None:
    s = rexmit.Scenario.from_toml(TCP).trace("bulk", t_from="0s", t_to="1s")
    res = rexmit.run(s)
    out = plot_flow(res, "bulk", "cwnd", format="svg", out=tmp_path / "c.svg")
    assert out.stat().st_size > 10_000
    assert res.table("trace_state", "bulk").num_rows > 0


def test_an_untraced_flow_is_a_one_line_error_with_exit_2(tcp_run: Path) -> None:
    r = cli_process("plot", str(tcp_run), "--flow", "other")
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert "add [[metrics.trace]]" in lines[0] and '"other"' in lines[0]
    with pytest.raises(NoTraceError, match=r"\[\[metrics.trace\]\]"):
        plot_flow(tcp_run, "other")


def test_bad_plot_arguments_are_one_line_errors(tcp_run: Path, tmp_path: Path) -> None:
    for args, words in [
        (["--flow", "nope"], "no flow named 'nope'"),
        (["--flow", "bulk", "--from", "2", "--to", "1"], "must be after"),
    ]:
        r = cli("plot", str(tcp_run), *args)
        assert r.returncode == 2 and words in r.stderr and "Traceback" not in r.stderr, r.stderr
    r = cli("plot", str(tmp_path), "--flow", "bulk")
    assert r.returncode == 2 and "not a run directory" in r.stderr, r.stderr
