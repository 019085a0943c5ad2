"""Congestion controllers written in Python (issue 36): registered by name, selected from a
scenario like a built-in, byte-identical to the built-in they re-implement, and failing with a
clear error (the traceback, the event, the simulated time, the flow) instead of a panic."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

import rexmit
import rexmit.script

ROOT = Path(__file__).resolve().parents[2]


def _load(name: str):
    spec = importlib.util.spec_from_file_location(
        f"rexmit_test_plugin_{name}", ROOT / "examples" / "plugins" / f"{name}.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


RENO = _load("reno")


def seed001(cc: str, recovery: str = "sack", **tcp) -> rexmit.Scenario:
    s = rexmit.Scenario.load(ROOT / "examples" / "tcp_seed001.toml")
    s.set("apps[0].tcp.cc", cc)
    s.set("apps[0].tcp.recovery", recovery)
    for k, v in tcp.items():
        s.set(f"apps[0].tcp.{k}", v)
    return s


def flow(s: rexmit.Scenario) -> dict:
    f = dict(rexmit.run(s).flow("bulk"))
    f.pop("cc", None)
    return f


@pytest.mark.parametrize("recovery", ["sack", "newreno", "reno", "tahoe"])
def test_python_reno_is_byte_identical_to_the_builtin(recovery):
    assert flow(seed001("reno_py", recovery)) == flow(seed001("reno", recovery))


def test_python_reno_is_byte_identical_under_the_linux_profile():
    # Whole-segment windows, slow start without L, byte counting: the other branches.
    s = seed001("reno_py", profile="linux")
    assert flow(s) == flow(seed001("reno", profile="linux"))


class Fixed(rexmit.CongestionControl):
    """A fixed window of `segments` segments."""

    params = {"segments": rexmit.Param(4, 1, 1000, integer=True)}

    def __init__(self, p):
        super().__init__(p)
        self.cwnd = int(self.cc["segments"]) * self.smss

    def on_ack(self, ack):
        pass

    def on_congestion_event(self, ev):
        pass

    def on_timeout(self, ev):
        pass


def test_a_plugins_parameters_reach_it_and_are_range_checked():
    rexmit.register_cc("fixed_py", Fixed, replace=True)
    small = flow(seed001("fixed_py", cc_params={"segments": 2}))
    large = flow(seed001("fixed_py", cc_params={"segments": 20}))
    assert large["goodput_bps"] > 5 * small["goodput_bps"]
    with pytest.raises(
        rexmit.ScenarioError, match=r"apps\[0\]\.tcp\.cc_params\.segments: 0 is out of range: allowed \[1, 1000\]"
    ):
        seed001("fixed_py", cc_params={"segments": 0}).validate()
    with pytest.raises(rexmit.ScenarioError, match=r"cc_params\.window: .* a parameter of cc = \"fixed_py\": segments"):
        seed001("fixed_py", cc_params={"window": 3}).validate()


class Raises(RENO.Reno):
    def on_congestion_event(self, ev):
        if ev.now > 5:
            raise RuntimeError("boom at a loss")
        super().on_congestion_event(ev)


class NaN(RENO.Reno):
    def on_ack(self, ack):
        super().on_ack(ack)
        if ack.now > 3:
            self.cwnd = float("nan")


def test_an_exception_in_a_plugin_stops_the_run_with_its_traceback_time_and_flow():
    rexmit.register_cc("raises_py", Raises, replace=True)
    with pytest.raises(rexmit.PluginError) as e:
        rexmit.run(seed001("raises_py"))
    text = str(e.value)
    assert 'plugin "raises_py" failed in on_congestion_event at simulated time 5.' in text
    assert "(flow bulk)" in text
    assert "RuntimeError: boom at a loss" in text and "Traceback" in text
    # The interpreter and the next run are fine.
    assert flow(seed001("reno_py")) == flow(seed001("reno"))


def test_a_nonsense_window_is_a_plugin_error_naming_the_event():
    rexmit.register_cc("nan_py", NaN, replace=True)
    with pytest.raises(
        rexmit.PluginError,
        match=r'(?s)"nan_py" failed in on_ack at simulated time 3\..*set `cwnd` to NaN: allowed a number of bytes in \[1, 1099511627776\]',
    ):
        rexmit.run(seed001("nan_py"))

    class Zero(RENO.Reno):
        def on_congestion_event(self, ev):
            self.cwnd = 0

    rexmit.register_cc("zero_py", Zero, replace=True)
    with pytest.raises(rexmit.PluginError, match=r"(?s)in on_congestion_event .*set `cwnd` to 0"):
        rexmit.run(seed001("zero_py"))


def test_registration_errors_are_clear():
    with pytest.raises(ValueError, match='"cubic" is a built-in controller'):
        rexmit.register_cc("cubic", RENO.Reno)

    class NoAck(rexmit.CongestionControl):
        def on_congestion_event(self, ev):
            pass

    with pytest.raises(ValueError, match="must define on_ack"):
        rexmit.register_cc("noack_py", NoAck)
    with pytest.raises(ValueError, match="not a controller name"):
        rexmit.register_cc("My CC", RENO.Reno)
    rexmit.register_cc("twice_py", RENO.Reno, replace=True)
    with pytest.raises(ValueError, match="registered already"):
        rexmit.register_cc("twice_py", RENO.Reno)
    with pytest.raises(ValueError, match=r'the default 0 of parameter "x" is outside its range \[1, 2\]'):
        rexmit.register_cc("badparam_py", Fixed, params={"x": rexmit.Param(0, 1, 2)}, replace=True)
    with pytest.raises(rexmit.ScenarioError, match='"nope" is not a registered congestion controller: one of .*reno'):
        seed001("nope").validate()


def test_the_same_plugin_scenario_and_seed_give_identical_results():
    a = rexmit.run(seed001("reno_py"))
    b = rexmit.run(seed001("reno_py"))
    assert json.dumps(a.flow("bulk"), sort_keys=True) == json.dumps(b.flow("bulk"), sort_keys=True)


def ecn_dumbbell(cc: str) -> rexmit.Scenario:
    """Two Reno-like flows with ECN through a CoDel bottleneck that marks (RFC 3168)."""
    hosts = lambda p: ", ".join(f'{{ name = "{p}{i}", rate = "100Mbps", delay = "1ms" }}' for i in range(2))  # noqa: E731
    text = f"""seed = 2
stop_time = "6s"
[topology]
kind = "dumbbell"
bottleneck = {{ rate = "10Mbps", delay = "10ms", queue = {{ packets = 1000, aqm = "codel", ecn = true }} }}
left = [ {hosts("S")} ]
right = [ {hosts("D")} ]
"""
    for i in range(2):
        text += f'[[apps]]\nname = "f{i}"\nkind = "tcp_bulk"\nfrom = "S{i}"\nto = "D{i}"\nstart = "{50 * i}ms"\n'
        text += f'tcp = {{ cc = "{cc}", ecn = "on", send_buffer = "1MiB", recv_buffer = "1MiB" }}\n'
    return rexmit.Scenario.from_toml(text)


class EchoCounting(RENO.Reno):
    """Reno that counts the echoes it is told of (and the ACKs with ECE), then reduces as the
    RFC default does."""

    echoes: list[str] = []

    def on_ecn_echo(self, ev):
        EchoCounting.echoes.append(ev.congestion_event().cause)
        self.on_congestion_event(ev.congestion_event())


def test_a_python_controller_hears_ecn_echoes_once_per_window_like_the_builtin():
    rexmit.register_cc("echo_py", EchoCounting, replace=True)
    builtin = rexmit.run(ecn_dumbbell("reno"))
    # Undefined, on_ecn_echo runs the RFC default: on_congestion_event with cause "ecn".
    for cc in ("reno_py", "echo_py"):
        EchoCounting.echoes = []
        r = rexmit.run(ecn_dumbbell(cc))
        for f in ("f0", "f1"):
            a, b = dict(r.flow(f)), dict(builtin.flow(f))
            a.pop("cc", None), b.pop("cc", None)
            assert a == b, f"{cc} {f}"
    reductions = sum(builtin.flow(f)["ecn_reductions"] for f in ("f0", "f1"))
    assert reductions > 0 and builtin.flow("f0")["retransmissions"] == 0
    assert EchoCounting.echoes == ["ecn"] * int(reductions)


class HalfUndo(rexmit.CongestionControl):
    """Halves at a loss; at an undo (tcp.undo) takes back 80 % of the window before the
    reduction, and records what it was told."""

    heard: list = []

    def on_ack(self, ack):
        self.cwnd += self.smss

    def on_congestion_event(self, ev):
        self.ssthresh = max(ev.base // 2, 2 * self.smss)
        self.cwnd = self.ssthresh

    def on_undo(self, ev):
        HalfUndo.heard.append((ev.cause, ev.prior_cwnd, ev.now_ns))
        self.cwnd = ev.prior_cwnd * 8 // 10
        self.ssthresh = max(self.ssthresh, ev.prior_ssthresh)


UNDO_SCRIPT = """// RFC 3708: a D-SACK of the only retransmission makes the reduction spurious.
--tcp.cc=undo_py
0   socket(..., SOCK_STREAM, IPPROTO_TCP) = 3
+0  bind(3, ..., ...) = 0
+0  listen(3, 1) = 0
+0  < S 0:0(0) win 65535 <mss 1000,sackOK,nop,nop,nop,wscale 7>
+0  > S. 0:0(0) ack 1 <mss 1460,sackOK,wscale 7>
+.1 < . 1:1(0) ack 1 win 514
+0  accept(3, ..., ...) = 4
+0  write(4, ..., 10000) = 10000
+0  > . 1:10001(10000) ack 1
+.1 < . 1:1(0) ack 1 win 514 <sack 1001:2001>
+0  < . 1:1(0) ack 1 win 514 <sack 1001:3001>
+0  < . 1:1(0) ack 1 win 514 <sack 1001:4001>
+0  > . 1:1001(1000) ack 1
+.01 < . 1:1(0) ack 10001 win 514
+0  %{ assert tcpi_snd_cwnd == 5 and rexmit_undos_dsack == 0 }%
+.09 < . 1:1(0) ack 10001 win 514 <sack 1:1001>
+0  %{ assert tcpi_snd_cwnd == 8 and rexmit_undos_dsack == 1 }%
"""


def test_a_python_controller_hears_on_undo_and_chooses_the_window():
    # The linux profile's tcp.undo: the D-SACK at 300 ms reaches the plugin's on_undo with
    # the window before the reduction (10 segments); the plugin's answer (8) is the window.
    rexmit.register_cc("undo_py", HalfUndo, replace=True)
    HalfUndo.heard.clear()
    r = rexmit.script.run_text(UNDO_SCRIPT, "undo.pkt")
    assert r.status == "passed", r.report
    assert HalfUndo.heard == [("dsack", 10_000, 300_000_000)]
