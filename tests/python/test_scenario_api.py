"""Scenarios built in Python are the same objects as scenarios read from TOML files."""

import json

import pytest

import rexmit
from rexmit import _core


def built_in_python() -> rexmit.Scenario:
    s = rexmit.Scenario(
        stop_time="5s", seed=7, description="Lossy chain: burst errors, Gilbert-Elliott, scripted drops, reordering"
    )
    lossy = {
        "rate": "4Mbps",
        "delay": "50ms",
        "queue": {"bytes": "64KB"},
        "errors": [
            {"kind": "burst", "rate": 1e-3, "size": {"min": 2, "max": 5}, "direction": "forward"},
            {"kind": "gilbert_elliott", "p_good_to_bad": 0.001, "p_bad_to_good": 0.3, "loss_bad": 0.5},
            {"kind": "scripted", "app": "voice", "packets": [3, 4, 10]},
        ],
        "reorder": {"probability": 0.05, "mean_delay": "10ms", "direction": "forward"},
    }
    s.chain(["A", "R1", "R2", "B"], [{"rate": "100Mbps", "delay": "1ms"}, lossy, {"rate": "100Mbps", "delay": "1ms"}])
    s.udp_cbr("voice", "A", "B", rate="64kbps", packet_size=200, jitter="1ms")
    s.udp_cbr("bulk", "A", "B", rate="3Mbps", packet_size=1500, start="1s", stop="4s")
    return s


def test_python_scenario_equals_the_toml_file(examples):
    from_file = rexmit.Scenario.load(examples / "lossy_chain.toml")
    from_python = rexmit.Scenario.from_dict(json.loads(_core.validate(built_in_python().to_json(), "json")))
    assert from_python == from_file
    # And they run to the same results.
    a = rexmit.run(from_file)
    b = rexmit.run(built_in_python())
    assert a.flows == b.flows and a.links == b.links


def test_errors_are_typed_and_carry_the_path():
    s = built_in_python().set("topology.links[1].errors[0].rate", 2.0)
    with pytest.raises(rexmit.ScenarioError) as e:
        s.validate()
    assert isinstance(e.value, ValueError)
    assert e.value.path.endswith("errors[0].rate")
    assert "0 to 1" in str(e.value)
    with pytest.raises(rexmit.ScenarioError) as e:
        rexmit.Scenario.from_toml('stop_time = "1s"\nbogus = 1\n')
    assert "bogus" in str(e.value)


def test_link_framing_bytes_parse_run_and_refuse_bad_values():
    # docs/options.md `framing_bytes`: 1500 + 2 bytes at 100 Mb/s take 120.16 µs (ns-3's PPP).
    s = rexmit.Scenario(stop_time="1s", seed=1)
    s.chain(["A", "B"], [{"rate": "100Mbps", "delay": "1ms", "framing_bytes": 2}])
    s.udp_cbr("f", "A", "B", rate="1Mbps", packet_size=1500)
    f = rexmit.run(s).flow("f")
    assert f["delay_min_s"] == pytest.approx(0.00112016, abs=1e-12)
    assert f["delay_max_s"] == pytest.approx(0.00112016, abs=1e-12)
    for bad, words in [(1025, "allowed 0..=1024"), (-1, "invalid value"), ("2B", "invalid type")]:
        with pytest.raises(rexmit.ScenarioError) as e:
            s.set("topology.links[0].framing_bytes", bad).validate()
        assert e.value.path == "topology.links[0].framing_bytes"
        assert words in str(e.value)


def test_toml_round_trip_and_save(tmp_path):
    s = built_in_python()
    p = tmp_path / "s.toml"
    s.save(p)
    assert rexmit.Scenario.load(p) == rexmit.Scenario.from_toml(s.to_toml())


def test_progress_callback_can_stop_a_run():
    s = rexmit.Scenario(stop_time="100000s")
    s.chain(["A", "B"], [{"rate": "1Gbps", "delay": "1ms"}])
    s.udp_cbr("f", "A", "B", rate="500Mbps", packet_size=1000)
    calls = []

    def progress(now_s, stop_s, events, wall_s):
        calls.append((now_s, events))
        return False

    res = rexmit.run(s, progress=progress)
    assert len(calls) == 1
    assert res.partial is not None and "interrupted" in res.partial
    assert 0 < res.summary["end_time_s"] < 100000


def test_wall_time_guard():
    s = rexmit.Scenario(stop_time="100000s")
    s.data["limits"] = {"max_wall_time": "200ms"}
    s.chain(["A", "B"], [{"rate": "1Gbps", "delay": "1ms"}])
    s.udp_cbr("f", "A", "B", rate="500Mbps", packet_size=1000)
    res = rexmit.run(s)
    assert "wall-time" in res.partial
    assert res.flow("f")["rx_packets"] > 0


def test_a_rust_panic_comes_back_as_internal_error_and_python_goes_on(examples):
    from rexmit import _core

    with pytest.raises(rexmit.InternalError, match="internal error.*boom at the boundary"):
        _core._panic_for_test("boom at the boundary")
    # The interpreter and the extension still work after the caught panic.
    r = rexmit.run(rexmit.Scenario.load(examples / "lossy_chain.toml"))
    assert r.summary["partial"] is None


def test_run_takes_a_dict_and_names_a_wrong_type():
    data = built_in_python().data
    from_dict = rexmit.run(data)
    assert from_dict.flows == rexmit.run(built_in_python()).flows
    with pytest.raises(
        TypeError, match="scenario: expected a rexmit.Scenario, a dict or the path of a TOML file, not int"
    ):
        rexmit.run(42)  # type: ignore[arg-type]
