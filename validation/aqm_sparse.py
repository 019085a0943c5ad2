#!/usr/bin/env python3
"""A sparse flow beside bulk flows through the bottleneck's active queue (docs/validation_queues.md,
"Active queues against ns-3.44", FQ-CoDel's empty dequeue): the time a thin UDP flow's packets
wait at R1, from R1's capture.

    python validation/aqm_sparse.py [ns3-fq_codel-newreno-4] [--seeds 3] [--rate 64kbps] [--size 200] [--from 10]

The scenario is one of validation/aqm.py's (N TCP flows, 40 / 80 ms) with one more sender,
`V`, whose UDP flow sends `--size`-byte packets at `--rate` from 0.5 s (64 kb/s of 200-byte
packets: one every 25 ms, a voice call's rate). A packet's wait is the time from its arrival at
R1 to the start of its transmission on R1->R2 (the capture holds each packet once arriving and
once leaving, the TTL one lower, RFC 791); the flow is FIFO at R1, so departures match arrivals
in order, and any arrival left over was dropped. Prints per seed the packets, their mean, p99
and maximum wait after `--from` seconds, and the drops.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import aqm  # noqa: E402
import multiflow  # noqa: E402
from aqm_flows import p99, records  # noqa: E402


def sparse_waits(name: str, seed: int, rate: str, size: int) -> tuple[list[tuple[int, int]], int]:
    """(arrival ns, wait ns) of the thin flow's packets that left R1, and how many did not."""
    import rexmit

    sc = aqm.SCENARIOS[name]
    s = multiflow.rexmit_scenario(sc, seed, aqm.REXMIT_TCP.get(sc.variants[0]))
    topo = s.data["topology"]
    fr = {"framing_bytes": sc.framing_bytes} if sc.framing_bytes else {}  # ns-3's PPP header
    topo["left"].append({"name": "V", "rate": "100Mbps", "delay": "1ms", **fr})
    topo["right"].append({"name": "VD", "rate": "100Mbps", "delay": "1ms", **fr})
    s.udp_cbr("voice", "V", "VD", rate=rate, packet_size=size, start="0.5s")
    s.pcap(node="R1")
    with tempfile.TemporaryDirectory() as tmp:
        rexmit.run(s, out_dir=tmp)
        recs = list(records(next(Path(tmp).rglob("*.pcap"))))
    udp = [(t, p) for t, p in recs if p[9] == 17]
    ttl_in = max(p[8] for _, p in udp)
    arrivals: list[int] = []
    waits: list[tuple[int, int]] = []
    for t, p in udp:
        if p[8] == ttl_in:
            arrivals.append(t)
        else:
            t0 = arrivals[len(waits)]
            waits.append((t0, t - t0))
    return waits, len(arrivals) - len(waits)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scenario", nargs="?", default="ns3-fq_codel-newreno-4", choices=sorted(aqm.SCENARIOS))
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--rate", default="64kbps")
    ap.add_argument("--size", type=int, default=200)
    ap.add_argument("--from", dest="start", type=float, default=10.0)
    ns = ap.parse_args(argv)
    means = []
    for seed in range(1, ns.seeds + 1):
        waits, dropped = sparse_waits(ns.scenario, seed, ns.rate, ns.size)
        ms = [w * 1e-6 for t0, w in waits if t0 >= ns.start * 1e9]
        means.append(statistics.fmean(ms))
        print(
            f"seed {seed}: {len(ms)} packets from {ns.start:g} s, wait mean {means[-1]:.3f} ms, "
            f"p99 {p99(ms):.3f}, max {max(ms):.3f}; dropped {dropped} (whole run)"
        )
    print(f"mean over seeds: {statistics.fmean(means):.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
