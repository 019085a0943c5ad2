"""ECN with FreeBSD's SCTP (``stack = "usrsctp"``, ``sctp.ecn = true``) from a scenario, end to
end (issue 39): a TOML scenario through DCTCP's step marker (RFC 8257 §3.1: a queue above K = 5
packets marks ECT packets CE, drops Not-ECT ones) at a 5 Mb/s bottleneck. With ECN the marker
marks instead of dropping DATA, the receiver echoes (ECNE), the sender cuts its window and
answers (CWR), and no DATA is lost; the same scenario from Python with ``ecn`` off has no mark
and loses DATA at the marker. Skipped without the library unless REXMIT_REQUIRE_USRSCTP=1."""

from __future__ import annotations

import os
import sys
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import rexmit
import rexmit.cli

VALIDATION = Path(__file__).resolve().parents[2] / "validation"
sys.path.insert(0, str(VALIDATION))

import pcapread  # noqa: E402

NOT_INSTALLED = "usrsctp is not installed"
MARKER = "R1->R2"
DATA, CWR = 0, 13
SCENARIO = """seed = 1
stop_time = "5s"

[topology]
kind = "dumbbell"
bottleneck = { rate = "5Mbps", delay = "10ms", queue = { packets = 100, ecn_threshold = 5 } }
left = [{ name = "S", rate = "100Mbps", delay = "5ms" }]
right = [{ name = "R", rate = "100Mbps", delay = "5ms" }]

[[apps]]
name = "sctp"
kind = "sctp_bulk"
from = "S"
to = "R"
stack = "usrsctp"
sctp = { ecn = true }
"""


@pytest.fixture(scope="module")
def usrsctp() -> None:
    """Skip (or fail, with REXMIT_REQUIRE_USRSCTP=1) when the library cannot be loaded."""
    try:
        rexmit.run(rexmit.Scenario.from_toml(SCENARIO.replace('"5s"', '"1s"')))
    except rexmit.ScenarioError as e:
        if NOT_INSTALLED not in str(e) or os.environ.get("REXMIT_REQUIRE_USRSCTP") == "1":
            raise
        pytest.skip(str(e))


def lost_from_s(out: Path, before_ns: int) -> list[tuple[int, set[int]]]:
    """Packets S sent before `before_ns` that never reached R, as (IP ECN field, chunk types),
    matched by their SCTP bytes (a router rewrites only the IP header: TTL, checksum, CE)."""

    def packets(node: str) -> list[tuple[int, str, int, bytes]]:
        out_ = []
        for t, b in pcapread.records(out / "pcap" / f"node_{node}.pcap"):
            if len(b) > 20 and b[9] == 132:
                out_.append((t, ".".join(map(str, b[12:16])), b[1] & 3, bytes(b[(b[0] & 0xF) * 4 :])))
        return out_

    at_s, at_r = packets("S"), packets("R")
    s_addr = at_s[0][1]  # S sends the INIT
    arrived = Counter(p[3] for p in at_r if p[1] == s_addr)
    lost = []
    for t, src, ecn, sctp in at_s:
        if src != s_addr or t >= before_ns:
            continue
        if arrived[sctp] > 0:
            arrived[sctp] -= 1
            continue
        types, at = set(), 12
        while at + 4 <= len(sctp):
            types.add(sctp[at])
            at += (int.from_bytes(sctp[at + 2 : at + 4], "big") + 3) & ~3
        lost.append((ecn, types))
    return lost


def test_ecn_marks_replace_data_drops_from_a_toml_scenario(usrsctp, tmp_path):
    path = tmp_path / "ecn.toml"
    path.write_text(SCENARIO + '\n[[metrics.pcap]]\nnode = "S"\n\n[[metrics.pcap]]\nnode = "R"\n')
    assert rexmit.cli.main(["run", str(path), "--out", str(tmp_path / "out")]) == 0
    (flow,) = pq.read_table(tmp_path / "out" / "flows.parquet").to_pylist()
    links = {r["name"]: r for r in pq.read_table(tmp_path / "out" / "links.parquet").to_pylist()}
    marker = links[MARKER]
    assert flow["stack"] == "usrsctp" and flow["failure"] == 0 and flow["undecodable_packets"] == 0
    # The marker marked; every mark reached the receiver's stack (ground truth at R, one
    # CE-marked DATA packet per mark), which echoed them; the sender heard the echoes, cut its
    # window (once per window of data: fewer cuts than echoes) and answered with CWR.
    assert marker["ecn_marked"] > 20
    assert flow["ecn_ce_received"] == marker["ecn_marked"]
    assert flow["ecn_ece_received"] > 0 and flow["ecn_cwr_sent"] > 0
    assert 0 < flow["ecn_reductions"] < flow["ecn_ece_received"]
    # No DATA lost: nothing retransmitted, nothing arrived twice, the queue never overflowed.
    assert flow["retransmissions"] == 0 and flow["dup_tsns_received"] == 0
    assert marker["drop_overflow"] == 0
    # What the marker did drop are FreeBSD's lone CWR packets: a CWR with no DATA to ride on
    # leaves in a control packet of its own, Not-ECT (sctp_lowlevel_chunk_output sets ECT only
    # on packets with DATA), and a step marker drops a Not-ECT packet where it marks an ECT one.
    # Packets of the last second may still be on their way.
    lost = lost_from_s(tmp_path / "out", 4_000_000_000)
    assert lost == [(0, {CWR})] * len(lost)
    assert marker["drop_early"] >= len(lost)


def test_same_scenario_without_ecn_loses_data_at_the_marker(usrsctp):
    on = rexmit.run(rexmit.Scenario.from_toml(SCENARIO))
    off = rexmit.run(rexmit.Scenario.from_toml(SCENARIO).set("apps[0].sctp.ecn", False))
    f, marker = off.flow("sctp"), off.link(MARKER)
    assert marker["ecn_marked"] == 0 and marker["drop_early"] > 0
    assert f["retransmissions"] > 0 and f["fast_retransmits"] > 0
    assert not any(k.startswith("ecn_") for k in f)
    # The ECN counters appear only when ECN was asked for; goodput is the link's either way.
    assert on.flow("sctp")["ecn_cwr_sent"] > 0
    assert f["goodput_bps"] > 3e6 and on.flow("sctp")["goodput_bps"] > 3e6
