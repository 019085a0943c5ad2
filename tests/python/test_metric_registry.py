"""The metric registry (rexmit.metric_registry) names exactly what the simulator emits: every app
kind (TCP, SCTP, message apps over both, UDP cbr/on-off/random, HTTP, CMT over four paths) run
through ``rexmit.run``, every time series an app or a link offers recorded, and each metric key
of the flow, link and node rows, of the summary and of the series compared with the registry,
both ways. The only names a simulated run may lack are those the registry marks
``not_simulated``, each with its reason, and those are checked where they do come from."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import emulation_or_skip

import rexmit
from rexmit.labels import base_unit, metric_label, series_label
from rexmit.metric_names import DEPRECATED
from rexmit.metric_registry import _ALL, LABEL_COLUMNS, METRICS, PLACES

HOSTS = 8
APPS = {
    # ECN on: its counters (ecn_*) through the bottleneck's marking CoDel; undo on: undos_*.
    "tcp": 'kind = "tcp_bulk"\ntcp = { ecn = "on", adaptive_reordering = true, undo = true }',
    "sctp": 'kind = "sctp_bulk"',
    "smsg": 'kind = "sctp_messages"\ninterarrival = { kind = "fixed", value = "50ms" }\nsize = { kind = "fixed", value = 100 }',
    "tmsg": 'kind = "tcp_messages"\nsource = "game"',
    "cbr": 'kind = "udp_cbr"\nrate = "1Mbps"\npacket_size = 500',
    "onoff": 'kind = "udp_onoff"\nrate = "1Mbps"\npacket_size = 500\non = { kind = "fixed", value = "100ms" }\noff = { kind = "fixed", value = "100ms" }',
    "rnd": 'kind = "udp_random"',
    "web": 'kind = "http"',
}
assert len(APPS) == HOSTS


def every_app(series: dict[str, list[str]]) -> str:
    """One app of every kind on a lossy dumbbell, 3 s, with ``series[app]`` recorded for each
    app, every kind of link series on the bottleneck, an active queue there (the link's
    ``ecn_marked`` and ``queue_delay_p99_s``) and a scripted drop that never matches (its
    ``scripted_unfired``)."""
    left = ", ".join(f'{{ name = "S{i}", rate = "100Mbps", delay = "1ms" }}' for i in range(HOSTS))
    right = ", ".join(f'{{ name = "D{i}", rate = "100Mbps", delay = "1ms" }}' for i in range(HOSTS))
    errors = '[{ kind = "uniform", rate = 0.02, direction = "forward" }, { kind = "scripted", app = "cbr", packets = [1000000] }]'
    text = f"""seed = 3
stop_time = "3s"
[topology]
kind = "dumbbell"
bottleneck = {{ rate = "20Mbps", delay = "20ms", queue = {{ packets = 50, aqm = "codel", ecn = true }}, errors = {errors} }}
left = [ {left} ]
right = [ {right} ]
"""
    for i, (name, kind) in enumerate(APPS.items()):
        text += f'[[apps]]\nname = "{name}"\nfrom = "S{i}"\nto = "D{i}"\n{kind}\n'
    for name, values in series.items():
        for value in values:
            text += f'[[metrics.timeseries]]\nkind = "app"\napp = "{name}"\nvalue = "{value}"\ninterval = "500ms"\n'
    for kind in ("queue_packets", "queue_bytes", "drops"):
        text += f'[[metrics.timeseries]]\nkind = "{kind}"\nlink = "R1->R2"\ninterval = "500ms"\n'
    return text


# Seed 000's CMT with a host on four paths: S and D each have four interfaces (S-Ri-D), so the
# association has four destination addresses and reports path0_timeouts .. path3_timeouts.
CMT = (
    'seed = 1\nstop_time = "3s"\n'
    + "".join(f'[[nodes]]\nname = "{n}"\n' for n in ["S", "D", "R1", "R2", "R3", "R4"])
    + "".join(
        f'[[links]]\nbetween = ["S", "R{i}"]\nrate = "10Mbps"\ndelay = "5ms"\n'
        'errors = [{ kind = "uniform", rate = 0.03, direction = "forward" }]\n'
        f'[[links]]\nbetween = ["R{i}", "D"]\nrate = "10Mbps"\ndelay = "5ms"\n'
        for i in range(1, 5)
    )
    + '[[apps]]\nname = "cmt"\nkind = "sctp_bulk"\nfrom = "S"\nto = "D"\nsctp = { nr_sack = true, cmt = { enabled = true } }\n'
)


def offered_series(app: str) -> list[str]:
    """The values ``app`` offers as time series, as the simulator lists them when asked for one
    it does not have (the adapters' ``probe_names``)."""
    with pytest.raises(rexmit.ScenarioError) as e:
        rexmit.run(rexmit.Scenario.from_toml(every_app({app: ["?"]})))
    allowed = re.search(r"\(allowed: ([^)]*)\)", str(e.value))
    assert allowed is not None, str(e.value)
    return allowed.group(1).split(", ")


def emitted(result: rexmit.RunResult) -> set[tuple[str, str]]:
    """(place, name) of every metric in ``result``; a metric whose value is NaN (None here) counts."""
    found = set()
    for place, rows in (
        ("flow", result.flows),
        ("link", result.links),
        ("node", result.nodes),
        ("summary", [result.summary]),
    ):
        for row in rows:
            found |= {(place, k) for k in row if k not in LABEL_COLUMNS[place]}
            assert all(isinstance(row[k], str) for k in LABEL_COLUMNS[place] if k in row and k != "partial")
    for name in result.series:
        app_or_kind, subject = name.split(":", 1)
        # An app's series is "<app>:<value>", a link's "<kind>:<link>".
        found.add(("series", subject if app_or_kind in APPS else app_or_kind))
    return found


@pytest.fixture(scope="module")
def runs() -> list[rexmit.RunResult]:
    series = {app: offered_series(app) for app in APPS}
    return [rexmit.run(rexmit.Scenario.from_toml(every_app(series))), rexmit.run(rexmit.Scenario.from_toml(CMT))]


def registered(simulated: bool) -> set[tuple[str, str]]:
    return {(p, m.name) for m in METRICS.values() if (not m.not_simulated) == simulated for p in m.places}


def test_every_emitted_metric_is_in_the_registry_and_every_registered_one_is_emitted(
    runs: list[rexmit.RunResult],
) -> None:
    found = set().union(*(emitted(r) for r in runs))
    assert {k for r in runs for f in r.flows for k in f} >= {"goodput_bps", "path3_timeouts", "completion_time_p99_s"}
    assert sorted(found - registered(True)) == [], "emitted but not in rexmit.metric_registry (or marked not_simulated)"
    assert sorted(registered(True) - found) == [], "in rexmit.metric_registry but no run emits it"


def test_the_registry_is_well_formed() -> None:
    assert len(METRICS) == len(_ALL), "a name listed twice"
    for m in METRICS.values():
        assert m.label and set(m.places) <= set(PLACES) and m.places, m
        assert m.unit in ("bit/s", "s", "B", ""), m
    # The deprecated names are aliases, not metrics; what they stand for is.
    assert not set(DEPRECATED) & set(METRICS) and set(DEPRECATED.values()) <= set(METRICS)


def test_labels_and_units_come_from_the_registry() -> None:
    assert metric_label("flow.bulk.goodput_bps").scaled([3e6]) == ("Goodput (Mb/s)", 1e-6)
    assert metric_label("flow.a.ooo_bytes_max").scaled([3e6]) == ("Largest out-of-order data (MB)", 1e-6)
    assert metric_label("flow.t.latency_rtx4plus_p99_s").name == "99th-percentile latency, 4th or later retransmission"
    assert metric_label("summary.stop_time_s").name == "Stop time" and base_unit("link.A->B.queue_bytes_mean") == "B"
    assert series_label("bulk:cwnd") == (metric_label("x.cwnd"), "bulk")
    assert series_label("queue_packets:R1->R2")[1] == "R1->R2"
    # A name the registry does not know still gets a label and a unit from its spelling.
    assert metric_label("flow.a.new_thing_s").scaled([0.002]) == ("New thing s (ms)", 1e3)


def test_the_recipe_metrics_are_the_recipe_s() -> None:
    from rexmit.recipes import nr_sack_plan

    recipe = {m.name for m in METRICS.values() if "nr-sack recipe" in m.not_simulated}
    assert recipe == {nr_sack_plan.GOODPUT, nr_sack_plan.BLOCKED}


LINUX = """stop_time = "1s"
[topology]
kind = "dumbbell"
bottleneck = { rate = "10Mbps", delay = "20ms", queue = { packets = 100 } }
left = [{ name = "S", rate = "100Mbps", delay = "1ms" }]
right = [{ name = "R", rate = "100Mbps", delay = "1ms" }]
[[apps]]
name = "bulk"
kind = "tcp_bulk"
from = "S"
to = "R"
[emulation]
real_hosts = ["S", "R"]
"""


def test_an_emulated_linux_flow_row_is_in_the_registry(tmp_path: Path) -> None:
    emulation_or_skip()
    row = rexmit.emulate(rexmit.Scenario.from_toml(LINUX), out_dir=tmp_path).flow("bulk")
    found = {("flow", k) for k in row if k not in LABEL_COLUMNS["flow"]}
    linux_only = {("flow", m.name) for m in METRICS.values() if "emulation only" in m.not_simulated}
    assert sorted(found - registered(True) - linux_only) == []
    assert linux_only <= found
