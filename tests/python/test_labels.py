"""rexmit.labels: axis names with units, paper names in legends, the palette, and a sweep
file's [labels] table (issue 15 §2)."""

import pytest
from test_sweep import chain_sweep

from rexmit.labels import PALETTE, Label, check_labels, line_names, metric_label, param_label, tcp_variant
from rexmit.report import new_figure, report, save_figure
from rexmit.sweep import Sweep, SweepError, run_sweep

SEED001_KEYS = ["apps[0].tcp.recovery", "apps[0].tcp.cc", "apps[0].tcp.tahoe_recover_guard"]
SEED001_ROWS = [
    ("tahoe", "reno", False),
    ("reno", "reno", True),
    ("newreno", "reno", True),
    ("sack", "reno", True),
    ("newreno", "westwood", True),
]


def test_tcp_variants_are_named_as_seed_001_names_them():
    zip_table = {k: [r[i] for r in SEED001_ROWS] for i, k in enumerate(SEED001_KEYS)}
    # tahoe_recover_guard moves with the variant, so it is left out of the legend.
    assert line_names(SEED001_KEYS, SEED001_ROWS, zip_table) == ["Tahoe", "Reno", "NewReno", "SACK", "Westwood+"]
    assert tcp_variant("sack", "cubic") == "CUBIC/SACK" and tcp_variant("newreno", "bbr") == "BBR"


def test_legend_of_a_grid_parameter_says_what_varies_with_units():
    assert line_names(["topology.links[0].delay"], [("5ms",), ("250ms",)]) == [
        "One-way link delay = 5 ms",
        "One-way link delay = 250 ms",
    ]
    assert line_names(["apps[0].sctp.nr_sack"], [(False,), (True,)]) == ["SACK", "NR-SACK"]
    assert line_names(["apps[0].sctp.cmt.enabled", "apps[0].sctp.nr_sack"], [(True, False), (True, True)]) == [
        "CMT, SACK",
        "CMT, NR-SACK",
    ]
    assert line_names(["apps[1].sctp.rack.enabled"], [(True,), (False,)]) == ["RACK", "dupthresh"]


def test_quantities_are_scaled_to_a_readable_unit():
    assert metric_label("flow.bulk.goodput_bps").scaled([3.8e6, 1.2e6]) == ("Goodput (Mb/s)", 1e-6)
    assert metric_label("flow.thin.latency_p99_s").scaled([0.25]) == ("99th-percentile latency (ms)", 1e3)
    assert metric_label("flow.a.rtxq_bytes_max").scaled([3.2e7]) == ("Largest retransmission queue (MB)", 1e-6)
    # A unit asked for wins over the automatic choice; a fraction may be shown in percent.
    assert Label("Goodput", "bit/s", "kb/s").scaled([3.8e6]) == ("Goodput (kb/s)", 1e-3)
    assert (
        metric_label("flow.a.send_blocked_fraction", {"flow.a.send_blocked_fraction": {"unit": "%"}}).scaled([0.5])[0]
        == "Send-buffer blocked fraction (%)"
    )


def test_error_rates_are_named_by_their_model():
    base = {"topology": {"links": [{}, {"errors": [{"kind": "burst"}, {"kind": "uniform"}]}]}}
    assert param_label("topology.links[1].errors[0].rate", base).name == "Burst error rate"
    assert param_label("topology.links[1].errors[1].rate", base).name == "Packet error rate"
    assert param_label("topology.links[0].errors[0].rate", base).name == "Error rate"  # no model there


def test_distribution_parameters_are_named_by_what_they_draw():
    assert param_label("apps[0].interarrival.value").scaled([0.25]) == ("Interarrival time (ms)", 1e3)
    assert param_label("apps[2].size.mean").scaled([9200]) == ("Mean message size (kB)", 1e-3)


@pytest.mark.parametrize(
    "table, message",
    [
        ({"apps[9].rate": "Rate"}, "neither a varied parameter"),
        ({"flow.a.goodput_bps": {"unit": "ms"}}, "does not measure bit/s"),
        ({"flow.a.goodput_bps": {"unit": "furlongs"}}, "is not a unit"),
        ({"apps[0].rate": {"name": "Rate", "colour": "red"}}, "labels.'apps[0].rate'.colour: unknown key"),
        ({"flow.a.goodput_bps": {"values": {"x": "y"}}}, "is a result column"),
        ({"zip": ["one"]}, "1 names for 2 zip rows"),
        ({"apps[0].rate": 3}, "must be a name or a table"),
    ],
)
def test_bad_labels_tables_are_clear_errors(table, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]").replace(".", r"\.")):
        check_labels(table, ["apps[0].rate", "apps[0].packet_size", "apps[0].start"], 2)


def test_figures_have_no_offsets_and_the_palette_is_okabe_ito(tmp_path):
    fig = new_figure()
    ax = fig.add_subplot()
    ax.plot([1e6, 1e6 + 1], [2e6, 2e6 + 3])
    save_figure(fig, tmp_path, "f", "f")
    assert ax.yaxis.get_major_formatter().get_offset() == ""
    assert PALETTE[:3] == ["#0072B2", "#D55E00", "#009E73"]


LABELLED = chain_sweep(
    2,
    3,
    '{ rate = "10Mbps", delay = "5ms", errors = [{ kind = "uniform", rate = 0.02 }] }',
    "2Mbps",
    head='name = "labels-test"',
    tail='[grid]\n"apps[0].rate" = ["2Mbps", "4Mbps"]\n[zip]\n"apps[0].packet_size" = [500, 1000]\n'
    '[report]\nmetrics = ["flow.cbr0.throughput_bps", "flow.cbr0.delay_mean_s"]\n'
    '[labels]\n"apps[0].rate" = { name = "Offered load", unit = "kb/s" }\n"flow.cbr0.delay_mean_s" = { name = "Delay", unit = "us" }\n'
    'zip = ["small packets", "large packets"]\n',
)


def test_a_sweep_files_labels_reach_the_figures(tmp_path):
    out = tmp_path / "out"
    run_sweep(Sweep.from_toml(LABELLED), out, jobs=1, progress=False)
    report(out)
    svgs = {p.stem: p.read_text() for p in (out / "figures").glob("*.svg")}
    tput, delay = svgs["flow.cbr0.throughput_bps_vs_apps_0_.rate"], svgs["flow.cbr0.delay_mean_s_vs_apps_0_.rate"]
    for text in ("Offered load (kb/s)", "Throughput (Mb/s)", "small packets", "large packets"):
        assert f"<!-- {text} -->" in tput
    assert "<!-- 4000 -->" in tput  # 4 Mb/s on an axis in kb/s
    assert "<!-- Delay (us) -->" in delay
    # The labels are stored with the sweep: a later report keeps them.
    assert Sweep.from_saved(out).labels["zip"] == ["small packets", "large packets"]


def test_a_bad_labels_table_stops_the_sweep_file_with_the_key(tmp_path):
    with pytest.raises(SweepError, match="labels.zip: 3 names for 2 zip rows"):
        Sweep.from_toml(LABELLED.replace('zip = ["small packets", "large packets"]', 'zip = ["a", "b", "c"]'))
