"""Competing flows against ns-2.35 and ns-3.44, a reduced live set (issue 19; the full set, 20
seeds per scenario, is `make validate` and docs/validation_multiflow.md).

Each scenario runs in both simulators over the same seeds (identical start times and access-delay
jitter, validation/multiflow.py) and must meet the validation band: aggregate goodput within 3%
and every class of identical flows within 10% with overlapping 95% CIs. Both simulators are
deterministic, so these are fixed comparisons, not flaky ones.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path

import pytest

VALIDATION = Path(__file__).resolve().parents[2] / "validation"
sys.path.insert(0, str(VALIDATION))

import multiflow  # noqa: E402


def _require(ok: bool, what: str) -> None:
    if ok:
        return
    if os.environ.get("REXMIT_REQUIRE_PEERS") == "1":
        pytest.fail(f"{what} (REXMIT_REQUIRE_PEERS=1: run scripts/install_peers.sh)")
    pytest.skip(f"{what}: run scripts/install_peers.sh to install the peer simulators")


def _compare(name: str, seeds: int) -> dict:
    sc = multiflow.SCENARIOS[name]
    peer = multiflow.summarize(sc, [multiflow.run_peer(sc, s) for s in range(1, seeds + 1)])
    ours = multiflow.summarize(sc, [multiflow.run_rexmit(sc, s) for s in range(1, seeds + 1)])
    return {"peer": peer, "rexmit": ours, **multiflow.verdict(peer, ours)}


@pytest.mark.parametrize(
    "name", ["ns2-sack-4-rtt44-82", "ns2-newreno-2-rtt1to4", "ns2-sack-4-red", "ns2-sack-16-equal"]
)
def test_competing_flows_agree_with_ns2(name):
    _require(shutil.which("ns") is not None, "ns-2 ('ns') is not on the PATH")
    r = _compare(name, 10)
    assert r["verdict"] == "agree", r
    # RTT unfairness has the same size in both: the short/long-RTT goodput ratios' CIs overlap.
    if "rtt_ratio" in r["peer"]:
        p, o = r["peer"], r["rexmit"]
        assert abs(o["rtt_ratio"] - p["rtt_ratio"]) <= o["rtt_ratio_ci"] + p["rtt_ratio_ci"], r


def test_sixteen_flows_time_out_about_as_often_as_in_ns2():
    # Before the retransmission timer was restarted at the fast retransmit, rexmit timed out
    # 3-12 times as often as ns-2 with many small-window flows.
    _require(shutil.which("ns") is not None, "ns-2 ('ns') is not on the PATH")
    r = _compare("ns2-sack-16-equal", 10)
    assert r["rexmit"]["timeouts"] < 1.5 * r["peer"]["timeouts"], r


@pytest.mark.parametrize("name", ["ns3-newreno-4-rtt44-82", "ns3-newreno-vs-cubic-4-classic"])
def test_competing_flows_agree_with_ns3(name):
    _require(
        importlib.util.find_spec("ns3") is not None and shutil.which("g++") is not None,
        "the ns3 wheel (or g++) is not installed",
    )
    r = _compare(name, 12)
    assert r["verdict"] == "agree", r
