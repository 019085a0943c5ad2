#!/usr/bin/env python3
"""Which arrivals DCTCP's step marker marks, in both simulators (docs/validation_queues.md, "DCTCP
with step marking"): per arrival at the bottleneck, the packets already waiting ahead of it
(not the one being sent) and whether it left marked CE; plus how the arrivals are spaced and
how the receivers acknowledge, what share of the acknowledged bytes carried ECE, and how each
sender's window moved after the warm-up (bytes added and removed per second, reductions and their
mean depth; ns-3 also the growth and the time in CA_CWR).

    python validation/dctcp_arrivals.py ns3-dctcp-2-10m [--seed 1] [--side both|peer|rexmit]

rexmit: a capture of the left router R1 (`metrics.pcap` with `node = "R1"`) holds every packet
twice, when it reaches R1 (before the queue) and when it starts on R1->R2, in the order the
simulation handled them; the queue at an arrival is the data-direction packets seen arriving
and not yet started. ns-3: validation/src/ns3_aqm.h's `waiting_at_arrival` (queue disc plus
device queue, per arrival) with the marked ones among them
(`marked_by_waiting`), the arrival gaps and the pure ACKs reaching R1; rexmit's windows from a
1 ms `cwnd` series per flow, ns-3's from its CongestionWindow trace (ns3_tcp_multi.cc).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import dctcp  # noqa: E402
import multiflow  # noqa: E402
from pcapread import records  # noqa: E402

CE = 3
# A 1500-byte packet at the senders' 100 Mb/s access links (and 1 µs of slack).
ACCESS_PKT_NS = 121_000


def _tcp(pkt: bytes) -> tuple[tuple[bytes, int, bytes, int, int, int], int, int, int, int]:
    """(packet key, ECN bits, payload bytes, ack number, flags)."""
    ihl = (pkt[0] & 0x0F) * 4
    total = int.from_bytes(pkt[2:4], "big")
    sport, dport = int.from_bytes(pkt[ihl : ihl + 2], "big"), int.from_bytes(pkt[ihl + 2 : ihl + 4], "big")
    seq = int.from_bytes(pkt[ihl + 4 : ihl + 8], "big")
    ack = int.from_bytes(pkt[ihl + 8 : ihl + 12], "big")
    doff = (pkt[ihl + 12] >> 4) * 4
    flags = pkt[ihl + 13]
    ident = int.from_bytes(pkt[4:6], "big")
    key = (pkt[12:16], sport, pkt[16:20], dport, seq, ident)
    return key, pkt[1] & 3, total - ihl - doff, ack, flags


def rexmit_side(sc: multiflow.MultiScenario, seed: int) -> dict[str, Any]:
    import rexmit

    s = multiflow.rexmit_scenario(sc, seed)
    s.pcap(node="R1")
    for i in range(len(sc.variants)):
        s.timeseries("app", "1ms", app=f"f{i}", value="cwnd")
    with tempfile.TemporaryDirectory() as tmp:
        res = rexmit.run(s, out_dir=tmp)
        pcap = next(Path(tmp).rglob("*.pcap"))
        recs = list(records(pcap))
    link = res.link("R1->R2")
    tab = res.series_table().to_pydict()
    by: dict[str, list[tuple[float, float]]] = {}
    for name, t, v in zip(tab["series"], tab["t_s"], tab["value"]):
        by.setdefault(name, []).append((t, v))
    cwnd = [cwnd_changes([v for t, v in pts if t >= sc.warmup]) for _, pts in sorted(by.items())]
    # The data direction: packets from the senders' side (any packet whose source sent payload).
    senders = set()
    for _, pkt in recs:
        if _tcp(pkt)[2] > 0:
            senders.add(pkt[12:16])
    waiting = 0
    pending: dict[Any, tuple[int, int, int]] = {}  # key -> (queue at arrival, arrival ns, ECN)
    hist: Counter[int] = Counter()
    marked: Counter[int] = Counter()
    gaps: Counter[int] = Counter()  # µs since the previous arrival
    last_arrival = None
    acks: Counter[int] = Counter()
    last_ack: dict[tuple[bytes, int], int] = {}
    acked = ece_acked = 0
    for t, pkt in recs:
        key, ecn, payload, ack, flags = _tcp(pkt)
        if pkt[12:16] not in senders:
            # An ACK arriving at or leaving R1 towards a sender: count each once (on arrival).
            if key in pending:
                pending.pop(key)
                continue
            pending[key] = (0, t, ecn)
            flow = (pkt[16:20], key[3])
            if flow in last_ack and payload == 0:
                new = (ack - last_ack[flow]) % 2**32
                acks[new // 1448 if new < 2**31 else 0] += 1
                if new < 2**31:
                    acked += new
                    ece_acked += new if flags & 0x40 else 0
            if flow not in last_ack or (ack - last_ack[flow]) % 2**32 < 2**31:
                last_ack[flow] = ack
            continue
        if key in pending:  # starts on R1->R2
            q, _, _ = pending.pop(key)
            waiting -= 1
            if ecn == CE:
                marked[q] += 1
            continue
        pending[key] = (waiting, t, ecn)
        hist[waiting] += 1
        waiting += 1
        if last_arrival is not None:
            gaps[min((t - last_arrival) // 1000, 100_000)] += 1
        last_arrival = t
    return {
        "arrivals": link["offered_packets"],
        "marked": link["ecn_marked"],
        "waiting_at_arrival": dict(sorted(hist.items())),
        "marked_by_waiting": dict(sorted(marked.items())),
        "gaps_us": dict(sorted(gaps.items())),
        "ack_segments": dict(sorted(acks.items())),
        "acked_bytes": acked,
        "ece_acked_bytes": ece_acked,
        "cwnd": cwnd,
    }


def cwnd_changes(values: list[float]) -> dict[str, float]:
    """Bytes added to and removed from cwnd, and the reductions with their mean depth, from a
    series sampled every millisecond (a reduction is one step; growth is about one segment per
    round trip, so a sample rarely holds both)."""
    up = down = 0.0
    depths = []
    for a, b in zip(values, values[1:]):
        if b > a:
            up += b - a
        elif b < a:
            down += a - b
            depths.append(1 - b / a)
    return {
        "cwnd_up_bytes": up,
        "cwnd_down_bytes": down,
        "cwnd_cuts": len(depths),
        "cut_depth_mean": sum(depths) / len(depths) if depths else 0.0,
    }


def peer_side(sc: multiflow.MultiScenario, seed: int) -> dict[str, Any]:
    cmd = multiflow.ns3_command(sc, seed)
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip().splitlines()
    res = json.loads(out[-1])
    a = res["aqm"]
    return {
        "arrivals": a["received"],
        "marked": a["marked"],
        "waiting_at_arrival": {int(k): v for k, v in a["waiting_at_arrival"].items()},
        "marked_by_waiting": {int(k): v for k, v in a.get("marked_by_waiting", {}).items()},
        "gaps_us": {int(k): v for k, v in a.get("arrival_gaps_us", {}).items()},
        "ack_segments": {int(k): v for k, v in a.get("ack_segments", {}).items()},
        "acked_bytes": a.get("acked_bytes", 0),
        "ece_acked_bytes": a.get("ece_acked_bytes", 0),
        "cwnd": [f["dctcp"] for f in res["flows"] if "dctcp" in f],
    }


def gap_summary(gaps: dict[int, int], pkt_ns: float) -> str:
    """How the arrivals are spaced (µs bins): the share back to back from one sender (within one
    access-link packet time) and the share closer than a bottleneck packet time."""
    if not gaps:
        return "gaps: not recorded"
    n = sum(gaps.values())
    pair = sum(c for g, c in gaps.items() if g * 1000 < ACCESS_PKT_NS)
    short = sum(c for g, c in gaps.items() if g * 1000 < pkt_ns)
    return (
        f"arrival gaps: back to back (< {ACCESS_PKT_NS} ns) {pair / n:.1%}, < 1 bottleneck packet time {short / n:.1%}"
    )


def report(side: str, d: dict[str, Any], k: int, pkt_ns: float, duration: float, warmup: float) -> None:
    h, m = d["waiting_at_arrival"], d["marked_by_waiting"]
    tot = sum(h.values())
    mean = sum(q * c for q, c in h.items()) / tot
    above = sum(c for q, c in h.items() if q >= k)
    print(
        f"{side:>7}: arrivals {d['arrivals']} marked {d['marked']} ({d['marked'] / d['arrivals']:.2%}); "
        f"traced {tot}, mean waiting {mean:.2f}, waiting >= K {above} ({above / tot:.2%})"
    )
    if m:
        wrong = sum(c for q, c in m.items() if q < k) + sum(h[q] - m.get(q, 0) for q in h if q >= k)
        print(f"         marks by waiting: {sum(m.values())}, disagreeing with 'waiting >= K': {wrong}")
    lo, hi = max(0, k - 10), k + 3
    below, beyond = sum(c for q, c in h.items() if q < lo), sum(c for q, c in h.items() if q > hi)
    print(
        f"         P(waiting < {lo}) {below / tot:.3f}; P(waiting = q): "
        + " ".join(f"{q}:{h.get(q, 0) / tot:.3f}" for q in range(lo, hi + 1))
        + f"; P(waiting > {hi}) {beyond / tot:.3f}"
    )
    print("         " + gap_summary(d["gaps_us"], pkt_ns))
    if d["ack_segments"]:
        a = d["ack_segments"]
        n = sum(a.values())
        print("         pure ACKs by new segments acked: " + " ".join(f"{s}:{c / n:.3f}" for s, c in a.items()))
    if d["acked_bytes"]:
        print(f"         bytes acknowledged with ECE: {d['ece_acked_bytes'] / d['acked_bytes']:.2%} (what α averages)")
    span = duration - warmup
    for i, c in enumerate(d["cwnd"]):
        extra = (
            f", of it in CWR {c['cwnd_up_in_cwr_bytes'] / span:.0f} (CWR {c['cwr_time_s'] / span:.1%} of the time)"
            if "cwnd_up_in_cwr_bytes" in c
            else ""
        )
        print(
            f"         flow {i} after the warm-up: cwnd +{c['cwnd_up_bytes'] / span:.0f} B/s{extra}, "
            f"-{c['cwnd_down_bytes'] / span:.0f} B/s, {c['cwnd_cuts'] / span:.2f} cuts/s, "
            f"mean depth {c['cut_depth_mean']:.3f}"
        )


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scenario", choices=sorted(dctcp.SCENARIOS))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--side", choices=("both", "peer", "rexmit"), default="both")
    ap.add_argument("--json", type=Path, help="also write the numbers here")
    ns = ap.parse_args(argv)
    sc = dctcp.SCENARIOS[ns.scenario]
    pkt_ns = dctcp.PACKET_BITS / (sc.bottleneck_rate_mbps * 1e6) * 1e9
    out = {}
    for side, fn in (("peer", peer_side), ("rexmit", rexmit_side)):
        if ns.side in ("both", side):
            out[side] = fn(sc, ns.seed)
            report(side, out[side], sc.step_k, pkt_ns, sc.duration, sc.warmup)
    if ns.json:
        ns.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
