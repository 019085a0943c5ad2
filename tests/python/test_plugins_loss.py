"""Loss-detection policies as plugins (issue 36): DupThresh and RACK's reordering window as
functions of the sender's state, selected with `loss = "name"`. The built-in `rfc` written in
Python (examples/plugins/loss_rfc.py) gives byte-identical results; a policy of one's own
changes what it should; bad policies are clear errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_plugins_identity import PLUGINS, four_flows, seed001_sweep, sweep_rows

import rexmit
from rexmit.sweep import Sweep, run_sweep

ROOT = Path(__file__).resolve().parents[2]
LOSS_RFC = str(ROOT / "examples" / "plugins" / "loss_rfc.py")
rexmit.load_plugins([LOSS_RFC])


def seed001(**tcp: Any) -> rexmit.Scenario:
    s = rexmit.Scenario.load(ROOT / "examples" / "tcp_seed001.toml")
    for k, v in tcp.items():
        s.set(f"apps[0].tcp.{k}", v)
    return s


def run(s: rexmit.Scenario) -> dict[str, Any]:
    r = rexmit.run(s)
    return {"flows": r.flows, "links": r.links, "series": r.series}


CASES = [
    {"recovery": "sack"},
    {"recovery": "sack", "rack": True},
    {"recovery": "sack", "profile": "linux"},
    {"recovery": "newreno", "early_retransmit": True, "limited_transmit": True},
    {"recovery": "sack", "thin_dupack": True, "early_retransmit": True},
]


@pytest.mark.parametrize("tcp", CASES, ids=["sack", "rack", "linux", "newreno-er", "thin"])
def test_the_python_rfc_policy_is_byte_identical_to_the_builtin(tcp):
    # Reordering on the bottleneck gives RACK's window and DupThresh work to do.
    def scenario(loss: str) -> rexmit.Scenario:
        s = seed001(loss=loss, **tcp)
        s.set("topology.links[1].reorder", {"probability": 0.02, "mean_delay": "20ms", "direction": "forward"})
        return s

    builtin = run(scenario("rfc"))
    assert builtin["flows"][0]["retransmissions"] > 0
    assert run(scenario("rfc_py")) == builtin


def test_four_competing_flows_with_the_python_policy_equal_the_builtin():
    def with_loss(s: rexmit.Scenario, loss: str) -> rexmit.Scenario:
        for i in range(4):
            s.set(f"apps[{i}].tcp.loss", loss)
            s.set(f"apps[{i}].tcp.rack", True)
        return s

    ccs = ["reno", "cubic", "reno", "cubic"]
    assert run(with_loss(four_flows(ccs), "rfc_py")) == run(with_loss(four_flows(ccs), "rfc"))


def test_the_seed001_sweep_with_the_python_policy_and_controllers_equals_the_builtins(tmp_path):
    def sweep(suffix: str, loss: str) -> Sweep:
        s = seed001_sweep(suffix)
        s.base.set("apps[0].tcp.loss", loss)
        s.plugins = [*PLUGINS, LOSS_RFC]
        s.check()
        return s

    run_sweep(sweep("", "rfc"), tmp_path / "builtin", jobs=2, progress=False)
    run_sweep(sweep("_py", "rfc_py"), tmp_path / "plugin", jobs=2, progress=False)
    assert sweep_rows(tmp_path / "plugin") == sweep_rows(tmp_path / "builtin")


class Patient(rexmit.LossDetection):
    """DupThresh raised to `k` segments: a reordering-tolerant sender."""

    params = {"k": rexmit.Param(3, 1, 1000, integer=True)}

    def dup_thresh(self, s):
        return int(self.values["k"])


def test_a_policy_of_ones_own_changes_loss_detection_as_it_should():
    rexmit.register_loss("patient_py", Patient, replace=True)

    def flow(k: int) -> dict:
        s = seed001(loss="patient_py", loss_params={"k": k}, recovery="newreno")
        s.set("topology.links[1].errors[0].rate", 0.0)
        s.set("topology.links[1].reorder", {"probability": 0.05, "mean_delay": "20ms", "direction": "forward"})
        return rexmit.run(s).flow("bulk")

    # 5% of segments 20 ms late, no loss: with DupThresh 3 every fast retransmit is spurious
    # and halves the window (42 of them, 0.75 Mb/s); DupThresh 20 waits for most late segments
    # (11, 2.7 Mb/s).
    eager, patient = flow(3), flow(20)
    assert eager["fast_retransmits"] > 20 and eager["spurious_retransmits"] == eager["retransmissions"]
    assert patient["fast_retransmits"] < eager["fast_retransmits"] / 2
    assert patient["goodput_bps"] > 2 * eager["goodput_bps"]


class RaisesInReoWnd(rexmit.LossDetection):
    def reo_wnd(self, s):
        if s.now_ns > 5_000_000_000:
            raise RuntimeError("no window today")
        return 0


class ZeroThresh(rexmit.LossDetection):
    def dup_thresh(self, s):
        return 0


def test_a_failing_policy_is_a_plugin_error_naming_the_method_and_time():
    rexmit.register_loss("raises_py", RaisesInReoWnd, replace=True)
    with pytest.raises(rexmit.PluginError) as e:
        rexmit.run(seed001(loss="raises_py", rack=True))
    text = str(e.value)
    assert 'plugin "raises_py" failed in reo_wnd at simulated time 5.' in text
    assert "RuntimeError: no window today" in text
    rexmit.register_loss("zero_py", ZeroThresh, replace=True)
    with pytest.raises(
        rexmit.PluginError, match=r"dup_thresh returned 0: allowed a whole number of segments in \[1, 1000\]"
    ):
        rexmit.run(seed001(loss="zero_py"))


def test_bad_names_and_parameters_are_scenario_errors():
    with pytest.raises(
        rexmit.ScenarioError,
        match=r'apps\[0\]\.tcp\.loss: "nope" is not a registered loss-detection policy: one of .*rfc',
    ):
        seed001(loss="nope").validate()
    rexmit.register_loss("patient_py", Patient, replace=True)
    with pytest.raises(
        rexmit.ScenarioError, match=r"apps\[0\]\.tcp\.loss_params\.k: 0 is out of range: allowed \[1, 1000\]"
    ):
        seed001(loss="patient_py", loss_params={"k": 0}).validate()
    with pytest.raises(ValueError, match='"rfc" is a built-in loss-detection policy'):
        rexmit.register_loss("rfc", Patient)
    with pytest.raises(ValueError, match="must define dup_thresh or reo_wnd"):
        rexmit.register_loss("empty_py", rexmit.LossDetection, replace=True)


class NoReorderingWindow(rexmit.LossDetection):
    """RACK without a reordering window: a segment is lost once a later one is delivered."""

    def reo_wnd(self, s):
        return 0


def test_racks_reordering_window_comes_from_the_policy():
    rexmit.register_loss("no_reo_wnd_py", NoReorderingWindow, replace=True)

    def flow(loss: str) -> dict:
        s = seed001(loss=loss, rack=True)
        s.set("topology.links[1].errors[0].rate", 0.0)
        s.set("topology.links[1].reorder", {"probability": 0.05, "mean_delay": "5ms", "direction": "forward"})
        return rexmit.run(s).flow("bulk")

    rfc, none = flow("rfc"), flow("no_reo_wnd_py")
    # The RFC window (min_RTT/4 ≈ 25 ms) covers 5 ms of lateness; a zero window does not.
    assert none["spurious_retransmits"] > 2 * max(rfc["spurious_retransmits"], 1)


def test_a_controller_and_a_policy_may_share_a_name_and_each_keeps_its_source(tmp_path):
    """Worker imports are looked up by kind and name: a loss-detection policy named like a
    controller of another file does not hide the controller's file (nor the reverse)."""
    from rexmit.plugins import sources_for

    cc_file = tmp_path / "twin_cc.py"
    cc_file.write_text(
        "import rexmit\n"
        "class Twin(rexmit.CongestionControl):\n"
        "    def on_ack(self, ack):\n        pass\n"
        "    def on_congestion_event(self, ev):\n        pass\n"
        "    def window(self):\n        return 14600\n"
        "    def ssthresh(self):\n        return 1 << 40\n"
        "rexmit.register_cc('twin', Twin)\n"
    )
    loss_file = tmp_path / "twin_loss.py"
    loss_file.write_text(
        "import rexmit\n"
        "class Twin(rexmit.LossDetection):\n"
        "    def dup_thresh(self, s):\n        return 3\n"
        "rexmit.register_loss('twin', Twin)\n"
    )
    rexmit.load_plugins([str(cc_file), str(loss_file)])
    both = {"apps": [{"tcp": {"cc": "twin", "loss": "twin"}}]}
    assert sources_for([both], []) == [str(cc_file.resolve()), str(loss_file.resolve())]
    only_loss = {"apps": [{"tcp": {"loss": "twin"}}]}
    assert sources_for([only_loss], []) == [str(loss_file.resolve())]
