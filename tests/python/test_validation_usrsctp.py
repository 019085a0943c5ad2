"""Reduced live check of rexmit's SCTP core against FreeBSD's SCTP (usrsctp, issue 39), run inside
`make test` (about 2 s; the full set is `make validate-usrsctp`, docs/validation_usrsctp.md).

rexmit runs with FreeBSD's choices (validation/usrsctp.py FREEBSD_PINS) against stack =
"usrsctp" on the ns-2 SCTP dumbbell with the same 1% of TSNs' first transmissions dropped in both
(seed 000 Fig. 5's path, SACK and NR-SACK), 5 seeds of 30 s. On these cases the full run agrees
within 1% (docs/validation_freebsd.md, "FreeBSD's SCTP (usrsctp)"); the tolerances are the
validation's ±5% band on goodput and mean cwnd, and 10% on the loss counters. Skipped when
libusrsctp is missing, unless REXMIT_REQUIRE_USRSCTP=1 (set by `make test`) makes that a failure.
"""

from __future__ import annotations

import os
import statistics
import sys
from pathlib import Path

import pytest

import rexmit

VALIDATION = Path(__file__).resolve().parents[2] / "validation"
sys.path.insert(0, str(VALIDATION))

import usrsctp as validation  # noqa: E402

SEEDS = range(1, 6)
SECONDS = 30.0
NOT_INSTALLED = "usrsctp is not installed"


@pytest.fixture(scope="module")
def usrsctp_lib() -> None:
    try:
        rexmit.run(validation.scenario(validation.CASES["sack-same1"], "usrsctp", 1, 1.0))
    except rexmit.ScenarioError as e:
        if NOT_INSTALLED not in str(e) or os.environ.get("REXMIT_REQUIRE_USRSCTP") == "1":
            raise
        pytest.skip(f"libusrsctp is missing ({e}); `make usrsctp-deps` installs it")


def means(case: validation.Case, stack: str) -> dict[str, float]:
    runs = [validation.run_one(validation.scenario(case, stack, seed, SECONDS), "assoc") for seed in SEEDS]
    return {
        k: statistics.mean(r[k] for r in runs)
        for k in ("goodput_bps", "retransmissions", "fast_rtx_chunks", "cwnd_mean")
    }


def rel(a: float, b: float) -> float:
    return abs(a / b - 1)


@pytest.mark.parametrize("name", ["sack-same1", "nrsack-same1"])
def test_rexmit_with_freebsd_choices_matches_usrsctp_under_the_same_losses(usrsctp_lib, name):
    case = validation.CASES[name]
    ours, theirs = means(case, "rexmit"), means(case, "usrsctp")
    # Both really ran and recovered losses: 1% of ~6000 packets each, mostly by fast retransmit.
    assert theirs["retransmissions"] > 30 and ours["retransmissions"] > 30, (ours, theirs)
    assert rel(ours["goodput_bps"], theirs["goodput_bps"]) <= validation.BAND, (ours, theirs)
    assert rel(ours["cwnd_mean"], theirs["cwnd_mean"]) <= validation.BAND, (ours, theirs)
    assert rel(ours["retransmissions"], theirs["retransmissions"]) <= 0.10, (ours, theirs)
    assert rel(ours["fast_rtx_chunks"], theirs["fast_rtx_chunks"]) <= 0.10, (ours, theirs)


def test_the_check_can_fail_rexmit_defaults_leave_the_band_at_low_loss(usrsctp_lib):
    """With its RFC 9260 defaults (above all the T3-rtx timer restarted by every SACK that acks
    new data, so it never expires without loss) rexmit outruns FreeBSD with a 256 KiB send
    buffer and 0.1% loss (+18% over 10 seeds): the comparison tells the configurations apart."""
    case = validation.CASES["nrsack-buf256k"]
    dflt = [
        validation.run_one(validation.scenario(case, "rexmit-defaults", s, SECONDS), "assoc")["goodput_bps"]
        for s in SEEDS
    ]
    theirs = [
        validation.run_one(validation.scenario(case, "usrsctp", s, SECONDS), "assoc")["goodput_bps"] for s in SEEDS
    ]
    assert statistics.mean(dflt) > (1 + validation.BAND) * statistics.mean(theirs), (dflt, theirs)
