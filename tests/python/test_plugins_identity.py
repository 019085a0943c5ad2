"""The interface is complete (issue 36 item 4): Reno and CUBIC written as Python plugins
(examples/plugins/reno.py, cubic.py) give results byte-identical to the built-ins, on seed
001's scenario under both profiles, on a seed 001 sweep in worker processes, and on four
competing flows of both controllers sharing one bottleneck."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

import rexmit
from rexmit.recipes.tcp_sack_plan import RATE_KEY, TCP_VARIANTS, seed001_base
from rexmit.sweep import Sweep, load, run_sweep

ROOT = Path(__file__).resolve().parents[2]
PLUGINS = [str(ROOT / "examples" / "plugins" / f) for f in ("reno.py", "cubic.py")]
rexmit.load_plugins(PLUGINS)


def seed001(cc: str, **tcp: Any) -> rexmit.Scenario:
    s = rexmit.Scenario.load(ROOT / "examples" / "tcp_seed001.toml")
    s.set("apps[0].tcp.cc", cc)
    for k, v in tcp.items():
        s.set(f"apps[0].tcp.{k}", v)
    return s


def flows(s: rexmit.Scenario) -> dict[str, Any]:
    """Every flow's metrics (but the controller's name), every link's and the time series."""
    r = rexmit.run(s)
    out: dict[str, Any] = {f["name"]: {k: v for k, v in f.items() if k != "cc"} for f in r.flows}
    out["links"] = r.links
    out["series"] = r.series
    return out


@pytest.mark.parametrize(
    "tcp",
    [
        {"recovery": "sack"},
        {"recovery": "newreno"},
        {"recovery": "sack", "profile": "linux"},
        # HyStart on a window that reaches its 16 segments: a fast, long path from IW 10.
        {"recovery": "sack", "hystart": True, "initial_cwnd_segments": 10},
        {"recovery": "sack", "cubic_alpha_switch": False, "byte_counting": True},
    ],
    ids=["sack", "newreno", "linux", "hystart", "linux-alpha"],
)
def test_python_cubic_is_byte_identical_to_the_builtin(tcp):
    assert flows(seed001("cubic_py", **tcp)) == flows(seed001("cubic", **tcp))


def test_hystart_ends_slow_start_early_in_the_identity_case():
    # The hystart case above must exercise HyStart: without it the first loss comes later.
    fast = {"recovery": "sack", "initial_cwnd_segments": 10}
    on = flows(seed001("cubic", hystart=True, **fast))
    off = flows(seed001("cubic", hystart=False, **fast))
    assert on != off


def four_flows(ccs: list[str]) -> rexmit.Scenario:
    """Four long flows with RTTs 24–84 ms and staggered starts on a 10 Mb/s, 30-packet
    bottleneck with 0.1% uniform loss: windows grow, collide, time out and recover."""
    n = len(ccs)
    data: dict[str, Any] = {
        "seed": 3,
        "stop_time": "40s",
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {
                "rate": "10Mbps",
                "delay": "10ms",
                "queue": {"packets": 30},
                "errors": [{"kind": "uniform", "rate": 1e-3, "direction": "forward"}],
            },
            "left": [{"name": f"S{i}", "rate": "100Mbps", "delay": f"{1 + 10 * i}ms"} for i in range(n)],
            "right": [{"name": f"D{i}", "rate": "100Mbps", "delay": "1ms"} for i in range(n)],
        },
        "apps": [
            {
                "name": f"f{i}",
                "kind": "tcp_bulk",
                "from": f"S{i}",
                "to": f"D{i}",
                "start": f"{300 * i}ms",
                "tcp": {"cc": cc, "recovery": "sack", "profile": "linux" if i % 2 else "rfc"},
            }
            for i, cc in enumerate(ccs)
        ],
    }
    return rexmit.Scenario.from_dict(data)


def test_four_competing_python_flows_equal_four_builtin_ones():
    builtin = flows(four_flows(["reno", "cubic", "reno", "cubic"]))
    plugin = flows(four_flows(["reno_py", "cubic_py", "reno_py", "cubic_py"]))
    assert plugin == builtin
    # They compete: every flow lost packets and got a share of the 10 Mb/s.
    for name, f in builtin.items():
        if name in ("links", "series"):
            continue
        assert f["retransmissions"] > 0 and f["goodput_bps"] > 0.5e6
    # Mixed (Python flows against built-in ones) is the same run as well.
    assert flows(four_flows(["reno_py", "cubic", "reno", "cubic_py"])) == builtin


def seed001_sweep(suffix: str) -> Sweep:
    """Seed 001's Fig. 10 sweep (quick: two packet error rates, two replications) over its five
    variants, Reno's congestion control replaced by `reno<suffix>`, and CUBIC likewise."""
    base = seed001_base("20s")
    rows = [v for v in TCP_VARIANTS if v[2] == "reno"]
    zip_ = {
        "apps[0].tcp.recovery": [v[1] for v in rows] * 2,
        "apps[0].tcp.cc": [f"reno{suffix}"] * len(rows) + [f"cubic{suffix}"] * len(rows),
    }
    s = Sweep(
        base=rexmit.Scenario.from_dict(copy.deepcopy(base)),
        grid={RATE_KEY: [1e-4, 1e-2]},
        zip=zip_,
        replications=2,
        plugins=PLUGINS,
    )
    s.check()
    return s


def sweep_rows(out: Path) -> list[dict]:
    rows = load(out).to_pylist()
    keep = []
    for r in rows:
        keep.append({k: v for k, v in r.items() if k.startswith(("flow.", "link.")) and not k.endswith(".cc")})
        cc = r["param.apps[0].tcp.cc"].removesuffix("_py")
        keep[-1]["point"] = (r[f"param.{RATE_KEY}"], r["param.apps[0].tcp.recovery"], cc, r["replication"])
    return sorted(keep, key=lambda r: repr(sorted(r.items())))


def test_the_seed001_sweep_with_python_reno_and_cubic_equals_the_builtins(tmp_path):
    run_sweep(seed001_sweep(""), tmp_path / "builtin", jobs=2, progress=False)
    result = run_sweep(seed001_sweep("_py"), tmp_path / "plugin", jobs=2, progress=False)
    assert result.ran == 2 * 8 * 2
    plugin, builtin = sweep_rows(tmp_path / "plugin"), sweep_rows(tmp_path / "builtin")
    assert len({r["point"] for r in builtin}) == 32
    assert plugin == builtin
