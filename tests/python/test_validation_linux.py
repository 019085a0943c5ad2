"""The reduced live Linux comparison of `make test` (the full one is `make validate-linux`):
rexmit's TCP in the `linux` profile against the kernel's, through emulation, on the same
simulated path (validation/linux.py). Needs root and /dev/net/tun (conftest.emulation_or_skip)."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import pytest
from conftest import ROOT, emulation_or_skip

sys.path.insert(0, str(ROOT / "validation"))
import linux

# Real time: `make test` runs these alone, after the others (pyproject.toml's markers).
pytestmark = pytest.mark.realtime


@pytest.mark.parametrize("cc,case", [("cubic", "drops3"), ("bbr", "drops1")])
def test_scripted_drop_timelines_agree_with_linux(cc: str, case: str) -> None:
    emulation_or_skip()
    row = linux.timeline_case(cc, case)
    assert row["verdict"] == "agree", row
    for side in ("rexmit", "linux"):
        assert [r["seg"] for r in row[side]["rtx"]] == linux.DROPS[case]
        assert row[side]["flow"]["timeouts"] == 0


def test_recovery_stall_is_the_worst_lateness_within_the_recovery() -> None:
    """The window runs back from the dropped segment's first transmission by its
    retransmission delay, and ends at the last retransmission (times from the SYN at 1.0 s)."""

    class Res:
        emulation = {
            "lateness": {
                "stalls": [
                    {"at_s": 1.0 + 0.040, "late_s": 0.009},  # before the window
                    {"at_s": 1.0 + 0.070, "late_s": 0.004},
                    {"at_s": 1.0 + 0.140, "late_s": 0.003},
                    {"at_s": 1.0 + 0.200, "late_s": 0.008},  # after it
                ]
            }
        }

    firsts = {30: 0.100}
    rtx = [(0.150, 30), (0.152, 32)]  # 50 ms after the first transmission: window 50..152 ms
    assert linux.recovery_stall(Res(), firsts, rtx, 1.0) == 0.004  # type: ignore[arg-type]
    Res.emulation["lateness"]["stalls"] = []
    assert linux.recovery_stall(Res(), firsts, rtx, 1.0) == 0.0  # type: ignore[arg-type]


def test_bbr_goodput_under_one_percent_loss_agrees_with_linux() -> None:
    emulation_or_skip()
    goodput = {}
    for real in (False, True):
        with tempfile.TemporaryDirectory() as d:
            res = linux.run(linux.scenario("bbr", seed=3, secs=6.0, loss=0.01), real, Path(d))
        goodput[real] = linux.flows_of(res)[0]["goodput_bps"]
    # BBR v1 does not back off on random loss: both fill most of the 10 Mb/s.
    assert goodput[True] > 8e6
    assert abs(goodput[False] / goodput[True] - 1) <= linux.BAND, goodput
