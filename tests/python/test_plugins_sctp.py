"""Python controllers on SCTP (issue 36 item 1): ``sctp = { cc = "reno_py" }`` runs the Python
Reno of examples/plugins/reno.py on the association's path through the adapter every plugged
controller takes (docs/congestion_control.md, "SCTP"), giving exactly what the registry's Reno
gives there; an exception inside it is a PluginError naming the SCTP flow; a sweep's workers
import the controllers ``sctp.cc`` names."""

from __future__ import annotations

from pathlib import Path

import pytest

import rexmit
from rexmit.plugins import plugin_sources, sources_for

ROOT = Path(__file__).resolve().parents[2]
RENO = ROOT / "examples" / "plugins" / "reno.py"
rexmit.load_plugins([RENO])

# An SCTP bulk transfer for 10 s over 10 Mb/s and 2 × 10 ms with 1% random loss on the data
# direction: the window, not the link, sets its goodput.
SCENARIO = """
seed = 3
stop_time = "10s"
[topology]
kind = "chain"
nodes = ["A", "R", "B"]
links = [
  { rate = "10Mbps", delay = "10ms", queue = { packets = 50 }, errors = [{ kind = "uniform", rate = 0.01, direction = "forward" }] },
  { rate = "10Mbps", delay = "10ms", queue = { packets = 50 } },
]
[[apps]]
name = "f"
kind = "sctp_bulk"
from = "A"
to = "B"
sctp = { send_buffer = "1MiB", recv_buffer = "1MiB" }
"""


def sctp(cc: str | None = None) -> rexmit.Scenario:
    s = rexmit.Scenario.from_toml(SCENARIO)
    if cc is not None:
        s.set("apps[0].sctp.cc", cc)
    return s


def flow(s: rexmit.Scenario) -> dict:
    return dict(rexmit.run(s).flow("f"))


def test_python_reno_runs_an_sctp_association_as_the_registrys_reno():
    py = flow(sctp("reno_py"))
    assert py == flow(sctp("reno"))
    assert py["fast_retransmits"] > 10 and py["goodput_bps"] > 1e6
    # Other controllers give other goodputs: the plugged controller really is in charge.
    for other in [None, "cubic"]:
        assert flow(sctp(other))["goodput_bps"] != py["goodput_bps"], other


class Raises(rexmit.CongestionControl):
    def on_ack(self, ack):
        self.cwnd += min(ack.acked, self.smss)

    def on_congestion_event(self, ev):
        raise RuntimeError("boom on SCTP")


def test_an_exception_in_a_plugin_on_sctp_names_the_flow_event_and_time():
    rexmit.register_cc("raises_sctp_py", Raises, replace=True)
    with pytest.raises(rexmit.PluginError) as e:
        rexmit.run(sctp("raises_sctp_py"))
    text = str(e.value)
    assert 'plugin "raises_sctp_py" failed in on_congestion_event at simulated time' in text
    assert "(flow f)" in text
    assert "RuntimeError: boom on SCTP" in text


def test_a_sweep_imports_the_python_controller_sctp_names():
    assert sources_for([sctp("reno_py").data], []) == [plugin_sources()["reno_py"]]
    assert sources_for([sctp().data], []) == [], "the built-in rules need no plugin"


def test_a_controller_needing_rate_samples_is_refused_on_sctp():
    with pytest.raises(rexmit.ScenarioError, match=r'apps\[0\]\.sctp\.cc: "bbr" needs delivery-rate samples'):
        sctp("bbr").validate()
