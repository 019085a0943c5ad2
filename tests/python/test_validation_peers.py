"""Reduced cross-validation against ns-2.35 and ns-3.44 (issue 7), run inside `make test`.

The peers are installed by scripts/install_peers.sh (`make test` does it); without them these
tests skip, unless REXMIT_REQUIRE_PEERS=1 (set by `make test`) turns a missing peer into a
failure. Every run is deterministic (fixed seeds; both simulators are deterministic), so the
tolerances only cover modelling differences, documented in docs/validation.md:

- scripted-drop timelines where rexmit and the peer run the same specified algorithm: every
  retransmission of a dropped segment at the same time after the drop, within one 1500-byte
  serialisation at 4 Mb/s (both peers ACK the first data segment at once, so their delayed-ACK
  pairs are one segment out of phase with rexmit's: a loss takes one ACK more or less to detect);
- goodput means over three seeds (random loss: different random streams, so a wide band);
- the same-loss scenario: identical drops in both simulators, paired per seed.

The full set (10 seeds, every peer) is `make validate`; speed is measured by `make bench`.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
VALIDATION = ROOT / "validation"
sys.path.insert(0, str(VALIDATION))

import compare  # noqa: E402
import droplists  # noqa: E402
import timelines  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _missing(what: str) -> None:
    if os.environ.get("REXMIT_REQUIRE_PEERS") == "1":
        pytest.fail(f"{what} (REXMIT_REQUIRE_PEERS=1: run scripts/install_peers.sh)")
    pytest.skip(f"{what}: run scripts/install_peers.sh to install the peer simulators")


@pytest.fixture(scope="module")
def ns2() -> str:
    path = shutil.which("ns")
    if path is None:
        _missing("ns-2 ('ns') is not on the PATH")
    return path


@pytest.fixture(scope="module")
def ns3() -> Path:
    if importlib.util.find_spec("ns3") is None:
        _missing("the ns3 wheel is not installed in this Python")
    if shutil.which("g++") is None:
        _missing("g++ (needed to build the ns-3 scenario) is not installed")
    import ns3_tcp

    return ns3_tcp.build()


def peer_run(
    name: str,
    loss: str,
    *,
    seeds: int = 1,
    rate: float = 0.01,
    rate2: float | None = None,
    drops: str = "100,101,102",
    duration: float = 10.0,
    tmp: Path,
) -> dict:
    """Runs `validation/peers.py run` (the same driver as `make validate`) and loads its JSON."""
    out = tmp / f"{name}_{loss}.json"
    cmd = [
        sys.executable,
        str(VALIDATION / "peers.py"),
        "run",
        name,
        "--loss",
        loss,
        "--seeds",
        str(seeds),
        "--rate",
        str(rate),
        "--drops",
        drops,
        "--duration",
        str(duration),
        "--out",
        str(out),
    ]
    if rate2 is not None:
        cmd += ["--rate2", str(rate2)]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    return json.loads(out.read_text())


# ---------------------------------------------------------------------------------------------
# Scripted-drop timelines (exact agreement expected)

TIMELINES = [
    # (peer, dropped segments, simulator fixture): rows that agree in docs/validation_tables.md.
    # With three drops, later retransmissions queue behind the new data sent during recovery,
    # which depends on the ssthresh rule: RFC 5681 section 3.2 step 2 in rexmit and in the
    # ns-3 variant `-rfc` (stock ns-3.44 halves the pipe instead).
    ("ns2-tahoe", [100, 101, 102], "ns2"),
    ("ns2-newreno", [100], "ns2"),
    ("ns2-reno", [100], "ns2"),
    ("ns3-newreno-nosack-classic", [100], "ns3"),
    ("ns3-newreno-sack-classic", [100], "ns3"),
    ("ns3-newreno-sack-classic-rfc", [100, 101, 102], "ns3"),
    ("ns3-newreno-sack-prr", [100], "ns3"),
]


@pytest.mark.parametrize("name,segs,sim", TIMELINES, ids=[f"{n}-drops{len(s)}" for n, s, _ in TIMELINES])
def test_scripted_drop_timeline_matches_peer(name, segs, sim, request, tmp_path):
    request.getfixturevalue(sim)
    doc = peer_run(name, "drops", drops=",".join(map(str, segs)), tmp=tmp_path)
    case = timelines.compare_case(doc, segs)
    rows = [r for r in case["rows"] if r["seg"] in segs]
    # Every retransmission of a dropped segment happened in both simulators ...
    assert case["dropped_seg_rtx"][0] == case["dropped_seg_rtx"][1] >= len(segs), case
    assert all("diff_since_drop" in r for r in rows), rows
    # ... at the same time after the drop.
    worst = max(abs(r["diff_since_drop"]) for r in rows)
    assert worst <= case["tolerance_s"], "\n".join(timelines.markdown([case]))
    assert case["verdict"] == "agree"


def test_newreno_timeline_with_three_drops_has_the_impatient_timeout(ns2, tmp_path):
    """Both run RFC 6582's Impatient variant: the timer is re-armed on the first partial ACK
    only, so the third drop is recovered by a timeout; its retransmission leaves at the same
    time in both."""
    doc = peer_run("ns2-newreno", "drops", drops="100,101,102", tmp=tmp_path)
    case = timelines.compare_case(doc, [100, 101, 102])
    assert doc["runs"][0]["timeouts"] == 1 and case["rexmit_timeouts"] == 1
    rto_rows = [r for r in case["rows"] if r["seg"] == 102][1:]
    assert rto_rows and abs(rto_rows[0]["diff_since_drop"]) < 0.005, rto_rows


def test_timeline_detects_a_known_peer_deviation(ns2, tmp_path):
    """The comparison can fail: ns-2's Reno (bugFix_ on) waits for a timeout where RFC 5681 Reno
    (rexmit) fast-retransmits segment 101 a second time."""
    doc = peer_run("ns2-reno", "drops", drops="100,101,102", tmp=tmp_path)
    case = timelines.compare_case(doc, [100, 101, 102])
    assert case["verdict"] != "agree"
    assert case["max_abs_diff_s"] > 0.1


# ---------------------------------------------------------------------------------------------
# Goodput means over a few seeds (random loss: different random streams, wide bands)


def mean_goodputs(doc: dict) -> tuple[float, float]:
    m = compare.mirror(doc["name"])
    seeds = [int(s) for s in doc["seeds"]]
    ours = compare.run_rexmit(doc, m, seeds)
    return statistics.mean(float(r["goodput_bps"]) for r in doc["runs"]), statistics.mean(ours["goodput_bps"])


def test_sctp_goodput_matches_ns2(ns2, tmp_path):
    doc = peer_run("ns2-sctp-sack", "uniform", seeds=3, rate=0.01, duration=60, tmp=tmp_path)
    peer, ours = mean_goodputs(doc)
    # 10-seed means agree within 3% (docs/validation_tables.md); 3 seeds of different streams.
    assert ours == pytest.approx(peer, rel=0.15)


def test_cmt_goodput_matches_ns2(ns2, tmp_path):
    doc = peer_run("ns2-cmt-nrsack", "uniform", seeds=3, rate=0.02, rate2=0.001, duration=60, tmp=tmp_path)
    peer, ours = mean_goodputs(doc)
    assert ours == pytest.approx(peer, rel=0.15)


def test_westwood_goodput_matches_ns3(ns3, tmp_path):
    doc = peer_run("ns3-westwoodplus", "uniform", seeds=3, rate=0.01, duration=60, tmp=tmp_path)
    peer, ours = mean_goodputs(doc)
    assert ours == pytest.approx(peer, rel=0.15)


# ---------------------------------------------------------------------------------------------
# The same segments lost in both simulators (deterministic, paired per seed)


def paired(doc: dict) -> list[float]:
    row = compare.sameloss_row(doc, compare.mirror(doc["name"]), [int(s) for s in doc["seeds"]])
    return row["paired_rel"]["per_seed"]


def test_sameloss_drop_lists_are_the_ones_the_peers_get():
    a, b = droplists.uniform_segments(3, 0.01), droplists.uniform_segments(3, 0.01)
    assert a == b and 100 < len(a) < 300 and a == sorted(set(a))
    assert droplists.uniform_segments(4, 0.01) != a


@pytest.mark.parametrize("name", ["ns3-newreno-sack-classic", "ns3-newreno-sack-prr"])
def test_sameloss_sack_goodput_vs_ns3(name, ns3, tmp_path):
    rel = paired(peer_run(name, "sameloss", seeds=2, rate=0.01, duration=60, tmp=tmp_path))
    # rexmit is +5.5% (classic) and +1.1% (PRR) above stock ns-3.44 on 10 seeds: ns-3 halves the
    # pipe, rexmit the FlightSize without limited-transmit data (RFC 5681 section 3.2 step 2).
    assert all(-0.06 < r < 0.12 for r in rel), rel


def test_sameloss_sack_goodput_vs_ns2(ns2, tmp_path):
    rel = paired(peer_run("ns2-sack1", "sameloss", seeds=1, rate=0.01, duration=60, tmp=tmp_path))
    # -0.6% on 10 seeds (docs/validation_tables.md); spurious timeouts (RTO not restarted at
    # fast retransmit, docs/validation.md) make single seeds vary more.
    assert all(-0.12 < r < 0.10 for r in rel), rel


def test_sameloss_matches_ns3_with_rfc5681_ssthresh(ns3, tmp_path):
    """ns-3 changed to RFC 5681's ssthresh (limited-transmit data left out of FlightSize), with
    whole-SMSS congestion-avoidance steps and no increase on the ACK ending recovery, loses the
    same segments and ends within a few % of rexmit: what remains is ns-3 clocking out data by
    pipe before recovery starts (docs/validation.md)."""
    rel = paired(
        peer_run("ns3-newreno-sack-classic-rfc-aligned", "sameloss", seeds=2, rate=0.01, duration=60, tmp=tmp_path)
    )
    assert all(abs(r) < 0.08 for r in rel), rel


def test_sameburst_drop_lists_are_deterministic_and_dropped_by_ns2(ns2, tmp_path):
    """The same-burst lists (bursts of 2..5 consecutive segments) are fixed by the seed, and the
    ns-2 peer drops exactly the listed segments that it sends (first transmissions only)."""
    a = droplists.burst_segments(1, 0.001)
    assert a == droplists.burst_segments(1, 0.001) != droplists.burst_segments(2, 0.001)
    runs = droplists.bursts(a)
    assert all(2 <= len(r) <= 5 for r in runs) and 5 < len(runs) < 40
    doc = peer_run("ns2-reno", "sameburst", seeds=1, rate=0.001, duration=10, tmp=tmp_path)
    run = doc["runs"][0]
    dropped = sorted(k for _, k in run["drops"])
    sent = [k for k in a if k not in run["unresolved_segs"]]
    assert dropped == sent and sent[:5] == [503, 504, 505, 506, 507], (dropped, sent)
    # Every dropped segment was resent, none twice dropped: the run carries on past the burst.
    assert {k for _, k in run["rtx"]} >= set(sent)
