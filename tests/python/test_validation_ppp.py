"""The ns-3 mirrors of validation/ carry ns-3's 2-byte PPP header on every link
(`framing_bytes = 2`, docs/validation_queues.md "ns-3's PPP header in the mirror"); the ns-2 mirrors
carry none (ns-2's links have no link-layer header)."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

VALIDATION = Path(__file__).resolve().parents[2] / "validation"
sys.path.insert(0, str(VALIDATION))

import compare  # noqa: E402
import multiflow  # noqa: E402
import pcapread  # noqa: E402
import timelines  # noqa: E402


def _links(topology: dict) -> list[dict]:
    return [topology["bottleneck"], *topology["left"], *topology["right"]]


def test_multiflow_mirrors_frame_every_link_as_their_peer_does():
    for sc in multiflow.SCENARIOS.values():
        links = _links(multiflow.rexmit_scenario(sc, 1).data["topology"])
        want = 2 if sc.peer == "ns3" else 0
        assert [link.get("framing_bytes", 0) for link in links] == [want] * len(links), sc.name


def test_ns3_path_sends_back_to_back_packets_1502_byte_times_apart():
    # Seed 001's path at 10 Mb/s from S: the initial window leaves S back to back, each packet
    # holding the line for (IP bytes + 2) * 8 / 10e6 s (1201.6 µs for 1500 bytes), as ns-3's
    # point-to-point device with its PPP header; the ns-2 path has no header (1200 µs).
    for ppp, extra in ((True, 2), (False, 0)):
        s = timelines.path_scenario(compare.Mirror(tcp=compare.NS3_TCP), 1, 0.3, ppp, [])
        s.pcap(link="S->G1")
        with tempfile.TemporaryDirectory() as d:
            import rexmit

            res = rexmit.run(s, out_dir=d)
            segs = pcapread.tcp_segments(Path(res.pcap_files[0]))
        data = [x for x in segs if x.payload > 0]
        gaps = [(b.t_ns - a.t_ns, a.ip_len) for a, b in zip(data, data[1:4])]
        assert gaps, "no back-to-back data packets"
        for gap_ns, ip_len in gaps:
            assert gap_ns == (ip_len + extra) * 8 * 100, (ppp, gap_ns, ip_len)
