"""rexmit report: figures (PNG, SVG) and one self-contained HTML page, for a sweep and a run."""

import base64
import html
import re

import pytest
from conftest import rexmit_cli
from test_sweep import chain_sweep

import rexmit
import rexmit.report
from rexmit.report import as_number, report
from rexmit.sweep import Sweep, SweepError, run_sweep

SWEEP = chain_sweep(
    2,
    9,
    '{ rate = "10Mbps", delay = "5ms", errors = [{ kind = "uniform", rate = 0.02 }] }',
    "2Mbps",
    head='name = "report-test"',
    base_extra='description = "report test chain"',
    tail='[grid]\n"apps[0].rate" = ["2Mbps", "4Mbps", "8Mbps"]\n"topology.links[0].delay" = ["5ms", "10ms"]\n',
)


def _svgs_in(page: str) -> list[bytes]:
    return [base64.b64decode(m) for m in re.findall(r'src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"', page)]


def test_sweep_report_writes_png_svg_and_self_contained_html(tmp_path):
    sweep_file = tmp_path / "r.sweep.toml"
    sweep_file.write_text(SWEEP)
    out = tmp_path / "out"
    run_sweep(sweep_file, out, jobs=1, progress=False)
    page_path = report(out)
    assert page_path == out / "report.html"
    pngs, svgs = sorted((out / "figures").glob("*.png")), sorted((out / "figures").glob("*.svg"))
    # Default: each flow's throughput against the first varied parameter, one line per delay.
    assert [p.stem for p in pngs] == [p.stem for p in svgs] and len(pngs) == 1
    assert pngs[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert b"<svg" in svgs[0].read_bytes()
    page = page_path.read_text()
    assert len(_svgs_in(page)) == 1 and b"<svg" in _svgs_in(page)[0]
    text = html.unescape(page)
    assert SWEEP.strip() in text  # the sweep file, verbatim
    base = Sweep.from_toml(SWEEP).base.to_toml()
    assert 'description = "report test chain"' in base and base in text  # the base scenario, normalized
    figure_text = svgs[0].read_text()
    # Human axis labels with scaled units, and the other parameter in the legend (issue 15 §2).
    for text in ("Sending rate (Mb/s)", "Throughput (Mb/s)", "One-way link delay = 10 ms"):
        assert f"<!-- {text} -->" in figure_text
    assert "<table>" in page and "±" in page
    assert not re.search(r'(src|href)="(?!data:)', page)  # nothing outside the page


def test_a_sweep_figure_of_many_lines_keeps_its_axes_and_every_legend_entry(tmp_path):
    # Seed 004's RTT x loss grid draws 12 lines of long names: the legend below the axes once
    # took all the figure's height (matplotlib: "axes sizes collapsed to zero") and three
    # columns of it ran off both sides of the page.
    import warnings

    from matplotlib.figure import Figure as MplFigure

    delays = ", ".join(f'"{d}ms"' for d in (1, 2, 5, 10, 20, 50))
    text = chain_sweep(
        1,
        9,
        '{ rate = "10Mbps", delay = "5ms" }',
        "2Mbps",
        tail=f'[grid]\n"apps[0].rate" = ["2Mbps", "4Mbps"]\n"topology.links[0].delay" = [{delays}]\n"topology.links[0].rate" = ["10Mbps", "20Mbps"]\n',
    )
    out = tmp_path / "out"
    run_sweep(Sweep.from_toml(text), out, jobs=1, progress=False)
    drawn: list[MplFigure] = []
    saved = rexmit.report.save_figure

    def keep(fig, *args):
        drawn.append(fig)
        return saved(fig, *args)

    rexmit.report.save_figure = keep
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            report(out, metrics=["flow.cbr0.throughput_bps"], x="apps[0].rate")
    finally:
        rexmit.report.save_figure = saved
    (fig,) = drawn
    legend = fig.legends[0]
    assert len(legend.get_texts()) == 12
    # Every entry lies inside the figure.
    box = legend.get_window_extent(fig.canvas.get_renderer())
    assert box.x0 >= 0 and box.x1 <= fig.bbox.width and box.y0 >= 0, (box, fig.bbox)


def test_sweep_report_metrics_and_x_can_be_chosen(tmp_path):
    out = tmp_path / "out"
    run_sweep(Sweep.from_toml(SWEEP), out, jobs=1, progress=False)
    report(out, metrics=["link.A->B.drop_error", "flow.cbr0.delay_mean_s"], x="topology.links[0].delay")
    names = {p.stem for p in (out / "figures").glob("*.svg")}
    assert any(n.startswith("link.A-_B.drop_error_vs_topology.links_0_.delay") for n in names)
    assert len(names) == 2
    with pytest.raises(SweepError, match="not in the results"):
        report(out, metrics=["flow.nope.throughput_bps"])
    with pytest.raises(SweepError, match="not a varied parameter"):
        report(out, x="apps[0].packet_size")


def test_run_report_draws_time_series_and_shows_the_scenario(tmp_path, examples):
    s = rexmit.Scenario.load(examples / "lossy_chain.toml")
    s.timeseries("queue_packets", "100ms", link="R1->R2").timeseries("app", "100ms", app="voice", value="rx_bytes")
    out = tmp_path / "run"
    rexmit.run(s, out_dir=out)
    r = rexmit_cli("report", str(out))
    assert "report in" in r.stdout
    figures = out / "figures"
    assert {p.name for p in figures.iterdir()} == {
        f"series_{n}.{e}" for n in ("queue_packets_R1-_R2", "voice_rx_bytes") for e in ("png", "svg")
    }
    page = (out / "report.html").read_text()
    assert len(_svgs_in(page)) == 2
    # The quantities by name, in readable units (rx_bytes of a 64 kb/s flow over 5 s: kB).
    queue, rx = (
        (figures / "series_queue_packets_R1-_R2.svg").read_text(),
        (figures / "series_voice_rx_bytes.svg").read_text(),
    )
    assert "<!-- Queue (packets) -->" in queue and "<!-- Queue (packets) (R1-&gt;R2) -->" in queue
    assert "<!-- Bytes received (kB) -->" in rx and "<!-- Time (s) -->" in rx
    scenario_text = (out / "scenario.toml").read_text()
    assert 'stop_time = "5s"' in scenario_text and scenario_text in html.unescape(page)


def test_cli_sweep_and_report_and_their_errors(tmp_path):
    sweep_file = tmp_path / "r.sweep.toml"
    sweep_file.write_text(SWEEP)
    r = rexmit_cli("sweep", str(sweep_file), "--out", str(tmp_path / "s"), "--jobs", "2")
    assert "12 runs (12 run now, 0 already finished)" in r.stdout
    r = rexmit_cli("sweep", str(sweep_file), "--out", str(tmp_path / "s"), "--jobs", "2")
    assert "(0 run now, 12 already finished)" in r.stdout
    r = rexmit_cli("report", str(tmp_path / "s"), "-m", "flow.cbr0.throughput_bps", "-m", "link.A->B.drop_error")
    assert (tmp_path / "s" / "report.html").is_file() and len(list((tmp_path / "s" / "figures").glob("*.png"))) == 2
    bad = tmp_path / "bad.sweep.toml"
    bad.write_text(SWEEP.replace('"2Mbps", "4Mbps"', '"2Mbps", "-4Mbps"'))
    r = rexmit_cli("sweep", str(bad), "--out", str(tmp_path / "b"), check=False)
    assert r.returncode == 2 and "apps[0].rate = '-4Mbps'" in r.stderr
    r = rexmit_cli("report", str(tmp_path / "nothing"), check=False)
    assert r.returncode == 2 and "neither a run directory" in r.stderr


def test_example_sweep_is_valid(examples):
    sweep = Sweep.load(examples / "udp_rate.sweep.toml")
    assert len(sweep.plan()) == 6 * 3
    assert sweep.report["x"] in sweep.parameters


def test_quantities_become_numbers_for_the_x_axis():
    assert as_number("4Mbps") == (4e6, "bit/s")
    assert as_number("2.5ms") == (0.0025, "s")
    assert as_number("64KB") == (64000.0, "B")
    assert as_number(0.01) == (0.01, "")
    assert as_number("cubic") == (None, "")
    assert as_number(True) == (None, "")


def test_claims_table_shows_the_papers_value_beside_rexmits_when_recorded():
    from rexmit.report import claims_table

    claims = [
        {"text": "RACK recovers in one RTT", "holds": True, "numbers": "63 ms", "paper": "about 50 ms"},
        {"text": "dupthresh is slower", "holds": None, "numbers": "203 ms"},
        {"text": "ids are unique", "holds": False, "numbers": "-", "sanity": True},
    ]
    page = html.unescape(claims_table(claims))
    assert "<th>paper</th><th>rexmit</th>" in page
    assert "<td>RACK recovers in one RTT</td><td>yes</td><td>about 50 ms</td><td>63 ms</td>" in page
    assert (
        "<td>needs the full run</td>" in page
        and "<td>ids are unique</td><td>sanity check, not counted: NO</td>" in page
    )
    # Without any paper value the column is left out.
    assert "<th>paper</th>" not in claims_table(claims[1:])


def test_reproduction_index_shows_the_claims_as_claims_json_records_them(tmp_path):
    import json

    from rexmit.report import refresh_index_claims, reproduction_index

    claim = {"text": "SACK beats Reno", "holds": False, "numbers": "3.1 vs 2.9"}
    page = reproduction_index(tmp_path, "rexmit reproduce x", ["overview"], [claim], [])
    assert "<td>SACK beats Reno</td><td>NO</td>" in page.read_text()
    assert not refresh_index_claims(tmp_path)  # no claims.json yet: unchanged
    # A quick run records a failing claim as undecided; the page follows claims.json.
    (tmp_path / "claims.json").write_text(json.dumps({"claims": [dict(claim, holds=None, paper="3.0")]}))
    assert refresh_index_claims(tmp_path)
    text = page.read_text()
    assert "<td>SACK beats Reno</td><td>needs the full run</td><td>3.0</td><td>3.1 vs 2.9</td>" in text
    assert "<td>NO</td>" not in text and text.count("<h2>Claims</h2>") == 1
