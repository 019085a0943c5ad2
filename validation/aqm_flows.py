#!/usr/bin/env python3
"""Whose queue stands longer: per flow, the time its packets wait in the bottleneck's active
queue and the packets it loses there, in both simulators (docs/validation.md, "Active queues
against ns-3.44", the FQ-CoDel class split).

    python validation/aqm_flows.py ns3-fq_codel-newreno-4 [--seed 1] [--side both|peer|rexmit]

rexmit: a capture of the left router R1 holds every packet once arriving (before the queue) and
once starting on R1->R2, in the order the simulation handled them; a packet's wait is the time
between the two, a packet seen arriving and never leaving was dropped. ns-3: the queue disc's
own sojourn per sender (validation/src/ns3_aqm.h `sojourn_by_source`: enqueue to dequeue, its
device's one packet not included) and its drops per sender. Flows are told apart by the
sender's address (flow i is the i-th sender in address order in both).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from collections import Counter, deque
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import aqm  # noqa: E402
import multiflow  # noqa: E402
from pcapread import records  # noqa: E402


def _addr_key(a: str) -> tuple[int, ...]:
    return tuple(int(x) for x in a.split("."))


def peer_side(sc: multiflow.MultiScenario, seed: int) -> list[dict[str, Any]]:
    out = subprocess.run(multiflow.ns3_command(sc, seed), check=True, capture_output=True, text=True).stdout
    res = json.loads(out.strip().splitlines()[-1])
    per = res["aqm"]["sojourn_by_source"]
    # Only the long flows' senders (10.1.i.1); anything else (none here) is left out.
    addrs = sorted((a for a in per if a.startswith("10.1.")), key=_addr_key)
    return [
        {"packets": per[a][0], "delay_mean_s": per[a][1], "drops": per[a][2], "goodput_bps": f["goodput_bps"]}
        for a, f in zip(addrs, res["flows"])
    ]


def rexmit_waits(sc: multiflow.MultiScenario, seed: int) -> tuple[Any, list[tuple[bytes, int, int]], dict[bytes, int]]:
    """rexmit's run with a capture of R1: the run's results; per packet from a sender that left
    on R1->R2, (sender address, arrival ns, wait ns); per sender, the packets that arrived and
    never left (dropped, or still queued at the end)."""
    import rexmit

    s = multiflow.rexmit_scenario(sc, seed)
    s.pcap(node="R1")
    with tempfile.TemporaryDirectory() as tmp:
        res = rexmit.run(s, out_dir=tmp)
        recs = list(records(next(Path(tmp).rglob("*.pcap"))))
    # Senders: sources of packets that carry payload.
    senders: set[bytes] = set()
    for _, p in recs:
        ihl = (p[0] & 0x0F) * 4
        if int.from_bytes(p[2:4], "big") - ihl - (p[ihl + 12] >> 4) * 4 > 0:
            senders.add(p[12:16])
    # R1's capture holds a packet once arriving (with the sender's TTL) and once leaving on
    # R1->R2 (TTL one lower, RFC 791). rexmit's IP id is 0, so a retransmission looks like its
    # original; but one sender's packets leave in the order they came (every queue here is FIFO
    # per flow), so a departure belongs to the oldest arrival of the sender still waiting with
    # its source, ports and sequence number, and the arrivals waiting ahead of that one were
    # dropped.
    ttl_in: dict[bytes, int] = {}
    for _, p in recs:
        if p[12:16] in senders:
            ttl_in[p[12:16]] = max(ttl_in.get(p[12:16], 0), p[8])
    waiting: dict[bytes, deque[tuple[bytes, int]]] = {a: deque() for a in senders}
    waits: list[tuple[bytes, int, int]] = []
    drops: dict[bytes, int] = {a: 0 for a in senders}
    queued: Counter[tuple[bytes, bytes]] = Counter()  # waiting arrivals per (sender, key)
    for t, p in recs:
        src = p[12:16]
        if src not in senders:
            continue
        ihl = (p[0] & 0x0F) * 4
        key = p[ihl : ihl + 8]  # ports and sequence number
        q = waiting[src]
        if p[8] == ttl_in[src]:
            q.append((key, t))
            queued[(src, key)] += 1
        elif queued[(src, key)]:
            while True:
                k, t0 = q.popleft()
                queued[(src, k)] -= 1
                if k == key:
                    break
                drops[src] += 1
            waits.append((src, t0, t - t0))
    for src, q in waiting.items():  # arrived and never left: dropped (or queued at the end)
        drops[src] += len(q)
    return res, waits, drops


def rexmit_side(sc: multiflow.MultiScenario, seed: int) -> list[dict[str, Any]]:
    res, waits, drops = rexmit_waits(sc, seed)
    per: dict[bytes, list[int]] = {a: [] for a in drops}
    for a, _, w in waits:
        per[a].append(w)
    return [
        {
            "packets": len(per[a]),
            "delay_mean_s": statistics.fmean(per[a]) * 1e-9 if per[a] else 0.0,
            "drops": drops[a],
            "goodput_bps": res.flow(f"f{i}")["goodput_bps"],
        }
        for i, a in enumerate(sorted(drops))
    ]


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scenario", choices=sorted(aqm.SCENARIOS))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--side", choices=("both", "peer", "rexmit"), default="both")
    ns = ap.parse_args(argv)
    sc = aqm.SCENARIOS[ns.scenario]
    sides = {"peer": peer_side, "rexmit": rexmit_side}
    for side, fn in sides.items():
        if ns.side not in ("both", side):
            continue
        for i, f in enumerate(fn(sc, ns.seed)):
            print(
                f"{side:>7} flow {i} ({sc.rtts_ms[i]:g} ms): {f['goodput_bps'] / 1e6:6.2f} Mb/s, "
                f"{f['packets']} packets waited {f['delay_mean_s'] * 1e3:.2f} ms on average, {f['drops']} dropped"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
