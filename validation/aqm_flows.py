#!/usr/bin/env python3
"""Whose queue stands longer: per flow, the time its packets wait in the bottleneck's active
queue and the packets it loses there, in both simulators (docs/validation_queues.md, "Active queues
against ns-3.44", the FQ-CoDel class split).

    python validation/aqm_flows.py ns3-fq_codel-newreno-4 [--seed 1] [--side both|peer|rexmit]
    python validation/aqm_flows.py ns3-fq_codel-newreno-2 --seed 1 --from 20 --peer-side peer-prr-rfc \
        [--ns3 fqQuantum=1500] [--fq quantum=1500] [--ns3 ccs=newreno-rfc,newreno-rfc]

rexmit: a capture of the left router R1 holds every packet once arriving (before the queue) and
once starting on R1->R2, in the order the simulation handled them; a packet's wait is the time
between the two, a packet seen arriving and never leaving was dropped. ns-3: the queue disc's
own sojourn per sender (validation/src/ns3_aqm.h `sojourn_by_source`: enqueue to dequeue, its
device's one packet not included) and its drops per sender. Flows are told apart by the
sender's address (flow i is the i-th sender in address order in both).

`--from START`: per flow, the mean and p99 delay (both: enqueue to the start of transmission,
ns-3's device queue included) of the packets that entered the queue from START on, and the
times of the flow's drops from then (ns-3: its queue disc's drop trace; rexmit: the departure
that showed a packet gone, which for CoDel's drop at dequeue is the drop's time); `--ns3`,
`--tcp` and `--fq` change one thing on one side for a test.
"""

from __future__ import annotations

import argparse
import json
import math
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


def rexmit_waits(
    sc: multiflow.MultiScenario,
    seed: int,
    overrides: dict[str, Any] | None = None,
    fq_codel: dict[str, Any] | None = None,
    traced: bool = False,
) -> tuple[Any, list[tuple[bytes, int, int]], dict[bytes, list[int | None]]]:
    """rexmit's run with a capture of R1: the run's results; per packet from a sender that left
    on R1->R2, (sender address, arrival ns, wait ns); per sender, the packets that arrived and
    never left (dropped, or still queued at the end): for each, the departure (ns) of the
    sender's next packet that showed it gone, which for a drop at dequeue (CoDel) is the drop's
    time, or None if nothing of the sender left after it. `overrides`: TCP options; `fq_codel`:
    entries of the bottleneck queue's `fq_codel` table; `traced`: every long flow traced
    (`rexmit.plot.load_trace(result, "f0")`)."""
    import rexmit

    s = multiflow.rexmit_scenario(sc, seed, overrides)
    if fq_codel:
        s.data["topology"]["bottleneck"]["queue"].setdefault("fq_codel", {}).update(fq_codel)
    s.pcap(node="R1")
    for i in range(len(sc.variants)) if traced else ():
        s.trace(f"f{i}")
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
    drops: dict[bytes, list[int | None]] = {a: [] for a in senders}
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
                drops[src].append(t)
            waits.append((src, t0, t - t0))
    for src, q in waiting.items():  # arrived and never left: dropped (or queued at the end)
        drops[src].extend(None for _ in q)
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
            "drops": len(drops[a]),
            "goodput_bps": res.flow(f"f{i}")["goodput_bps"],
        }
        for i, a in enumerate(sorted(drops))
    ]


def p99(xs: list[float]) -> float:
    """Nearest-rank 99th percentile (as ns3_aqm.h's MeanP99); 0 for no values."""
    v = sorted(xs)
    return v[math.ceil(0.99 * len(v)) - 1] if v else 0.0


def peer_after(sc: multiflow.MultiScenario, seed: int, start: float, extra: tuple[str, ...]) -> list[dict[str, Any]]:
    """ns-3 from `start` on, per flow: delays (queue disc plus device, enqueue to the wire) of
    the packets enqueued from then, and the drop times from then."""
    res = multiflow.run_peer(sc, seed, (*extra, f"--delayFrom={start:g}"))
    per = res["aqm"]["queue_delay_after"]["by_source"]
    addrs = sorted((a for a in per if a.startswith("10.1.")), key=_addr_key)
    return [
        {"mean_s": per[a]["mean_s"], "p99_s": per[a]["p99_s"], "drop_times_s": per[a]["drop_times_s"]} for a in addrs
    ]


def rexmit_after(
    sc: multiflow.MultiScenario,
    seed: int,
    start: float,
    overrides: dict[str, Any] | None,
    fq_codel: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """rexmit from `start` on, per flow, as `peer_after` (drop times: `rexmit_waits`)."""
    _, waits, drops = rexmit_waits(sc, seed, overrides, fq_codel)
    out = []
    for a in sorted(drops):
        w = [x * 1e-9 for s, t, x in waits if s == a and t >= start * 1e9]
        d = [t * 1e-9 for t in drops[a] if t is not None and t >= start * 1e9]
        out.append({"mean_s": statistics.fmean(w) if w else 0.0, "p99_s": p99(w), "drop_times_s": d})
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scenario", choices=sorted(aqm.SCENARIOS))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--side", choices=("both", "peer", "rexmit"), default="both")
    ap.add_argument("--from", dest="start", type=float, help="per flow from START s on: delays and drop times")
    ap.add_argument("--peer-side", default="peer", choices=["peer", *aqm.ALIGNED_PEERS])
    ap.add_argument("--ns3", action="append", default=[], help="an ns-3 option, KEY=VALUE (with --from)")
    ap.add_argument("--tcp", action="append", default=[], help="a rexmit TCP option, KEY=JSON (with --from)")
    ap.add_argument("--fq", action="append", default=[], help="a rexmit fq_codel option, KEY=JSON (with --from)")
    ns = ap.parse_args(argv)
    sc = aqm.SCENARIOS[ns.scenario]
    if ns.start is not None:
        extra = (*(aqm.ALIGNED_PEERS[ns.peer_side][0] if ns.peer_side in aqm.ALIGNED_PEERS else ()),)
        extra += tuple(f"--{kv}" for kv in ns.ns3)
        tcp = {k: json.loads(v) for k, v in (kv.split("=", 1) for kv in ns.tcp)}
        fq = {k: json.loads(v) for k, v in (kv.split("=", 1) for kv in ns.fq)}
        sides_after = {
            "peer": lambda: peer_after(sc, ns.seed, ns.start, extra),
            "rexmit": lambda: rexmit_after(
                sc, ns.seed, ns.start, {**aqm.REXMIT_TCP.get(sc.variants[0], {}), **tcp}, fq
            ),
        }
        for side, fn in sides_after.items():
            if ns.side not in ("both", side):
                continue
            for i, f in enumerate(fn()):
                d = f["drop_times_s"]
                print(
                    f"{side:>7} flow {i} ({sc.rtts_ms[i]:g} ms) from {ns.start:g} s: delay mean "
                    f"{f['mean_s'] * 1e3:.2f} ms, p99 {f['p99_s'] * 1e3:.2f} ms, {len(d)} drops at "
                    + " ".join(f"{t:.3f}" for t in d)
                )
        return 0
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
