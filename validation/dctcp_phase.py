#!/usr/bin/env python3
"""Where each DCTCP flow's packets land between the bottleneck's departures, and what queue they
find (docs/validation_queues.md, "DCTCP with step marking", Jain's index at 100 Mb/s).

    python validation/dctcp_phase.py ns3-dctcp-2-100m [--seed 8] [--side both|peer|rexmit]

rexmit: a capture of R1 holds every data packet once arriving (the sender's TTL) and once
starting on R1->R2 (TTL one lower, RFC 791), in the order the simulation handled them. Per
sender, after the warm-up: its arrivals, the mean queue they found (data packets arrived and not
yet started), the share that found it at K or above (the step marker marks those, RFC 8257
§3.1), and where in the bottleneck's packet time (modulo 121 µs, one 1500-byte packet at
100 Mb/s) after the last departure they came, in 10 µs bins. ns-3: validation/src/ns3_aqm.h's
`phase_by_source` (per sender over the whole run: arrivals at the queue disc, the marked ones,
the packets waiting ahead, disc and device, and the time since the device's last transmission
start, modulo the same 121 µs, in 10 µs bins). rexmit's counts start after the warm-up (`--since 0`: at 0),
ns-3's at 0. `--near-k N`: per flow, the arrivals by packets waiting from K-N to K+N and the share of
them marked (rexmit: CE on R1's departures), the 1 µs phase bins, the arrivals at a departure's
nanosecond, and the arrivals after another flow's in the same packet time (`after_other`).
`--shift-last-us US`: a probe that moves the last sender's access delay in both simulators.
rexmit's links carry dctcp.py's `framing_bytes = 2` (ns-3's PPP header: 1502 byte times per
data packet, 120.16 µs at 100 Mb/s, and N + 2 per ACK of N bytes); `--framing-bytes 0` runs
them without (the phases rexmit had before the option, ~60 µs from ns-3's).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import dctcp  # noqa: E402
import multiflow  # noqa: E402
from pcapread import records  # noqa: E402

PKT_NS = 121_000


def phases(name: str, seed: int, since_s: float | None = None) -> list[dict]:
    """rexmit's side; arrivals counted from `since_s` (default the scenario's warm-up)."""
    import rexmit

    sc = dctcp.SCENARIOS[name]
    since_ns = (sc.warmup if since_s is None else since_s) * 1e9
    s = multiflow.rexmit_scenario(sc, seed)
    s.pcap(node="R1")
    with tempfile.TemporaryDirectory() as tmp:
        rexmit.run(s, out_dir=tmp)
        recs = list(records(next(Path(tmp).rglob("*.pcap"))))
    data = [(t, p) for t, p in recs if int.from_bytes(p[2:4], "big") > 200]
    ttl_in = max(p[8] for _, p in data)
    q, last_dep = 0, None
    per: dict[bytes, dict] = {}
    waiting_of: dict[tuple, list] = {}  # (sender, sequence number) -> its arrivals' [waiting, flow]
    since_dep: list[bytes] = []  # the senders arrived since the last departure started
    for t, p in data:
        key = (p[12:16], p[24:28])
        if p[8] != ttl_in:
            q -= 1
            last_dep = t
            since_dep.clear()
            pend = waiting_of.get(key)
            if pend:
                n, d, other = pend.pop(0)
                ce = p[1] & 3 == 3  # CE on the way out: the step marker marked it (RFC 3168 §5)
                d["by_waiting"].setdefault(n, [0, 0])[1] += ce
                d["after_other"][1] += other and ce
            continue
        if t >= since_ns and last_dep is not None:
            d = per.setdefault(
                p[12:16],
                {
                    "n": 0,
                    "waiting": 0,
                    "at_k": 0,
                    "bins": Counter(),
                    "us": Counter(),
                    "same": [0, 0],
                    "after_other": [0, 0],
                },
            )
            d["n"] += 1
            d["waiting"] += q
            d["at_k"] += q >= sc.step_k
            d["bins"][((t - last_dep) % PKT_NS) // 10_000] += 1
            d["us"][((t - last_dep) % PKT_NS) // 1_000] += 1
            # an arrival at the very nanosecond of a departure: handled after it, or before it
            d["same"][0] += t == last_dep
            d.setdefault("by_waiting", {}).setdefault(q, [0, 0])[0] += 1
            other = any(a != p[12:16] for a in since_dep)
            d["after_other"][0] += other
            waiting_of.setdefault(key, []).append((q, d, other))
        since_dep.append(p[12:16])
        q += 1
    # arrivals followed by a departure at the same nanosecond (the arrival was handled first)
    for (t, p), (t2, p2) in zip(data, data[1:]):
        if p[8] == ttl_in and p2[8] != ttl_in and t == t2 and p[12:16] in per and t >= since_ns:
            per[p[12:16]]["same"][1] += 1
    return [
        {
            "sender": ".".join(map(str, a)),
            "arrivals": d["n"],
            "mean_waiting": d["waiting"] / d["n"],
            "share_at_k": d["at_k"] / d["n"],
            "marked": sum(m for _, m in d.get("by_waiting", {}).values()),
            "phase_bins_10us": {b: c / d["n"] for b, c in sorted(d["bins"].items())},
            "phase_bins_1us": {b: c / d["n"] for b, c in sorted(d["us"].items())},
            "same_instant": d["same"],
            "after_other": d["after_other"],
            "by_waiting": d.get("by_waiting", {}),
        }
        for a, d in sorted(per.items())
    ]


def peer_phases(name: str, seed: int) -> list[dict]:
    res = multiflow.run_peer(dctcp.SCENARIOS[name], seed)
    return [
        {
            "sender": a,
            "arrivals": d["arrivals"],
            "mean_waiting": d["waiting_sum"] / d["arrivals"],
            "share_marked": d["marked"] / d["arrivals"],
            "marked": d["marked"],
            "phase_bins_10us": {
                int(b): c / d["arrivals"] for b, c in sorted(d["bins_10us"].items(), key=lambda x: int(x[0]))
            },
            "phase_bins_1us": {int(b): c / d["arrivals"] for b, c in d["bins_1us"].items()},
            "same_instant": [d["same_instant"], None],
            "after_other": d["after_other"],
            "by_waiting": {int(n): w for n, w in d["by_waiting"].items()},
        }
        for a, d in res["aqm"]["phase_by_source"].items()
    ]


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scenario", choices=sorted(dctcp.SCENARIOS))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--side", choices=("both", "peer", "rexmit"), default="both")
    ap.add_argument(
        "--near-k",
        type=int,
        default=0,
        metavar="N",
        help="also show, per flow, the arrivals that found K-N .. K+N waiting and the share of them marked",
    )
    ap.add_argument(
        "--shift-last-us",
        type=float,
        default=0.0,
        metavar="US",
        help="add this to the last sender's one-way access delay in both simulators (a probe: "
        "a multiple of half the packet time moves its round trip by whole packet times, phases unchanged)",
    )
    ap.add_argument(
        "--since",
        type=float,
        default=None,
        metavar="S",
        help="count rexmit's arrivals from S seconds (default: the warm-up; 0 compares with ns-3's whole run)",
    )
    ap.add_argument(
        "--framing-bytes",
        type=int,
        default=None,
        metavar="N",
        help="rexmit's framing_bytes on every link (default: the scenario's, 2 as ns-3's PPP header; "
        "0: IP bytes only, as before the option)",
    )
    ns = ap.parse_args(argv)
    if ns.framing_bytes is not None:
        sc = dctcp.SCENARIOS[ns.scenario]
        dctcp.SCENARIOS[ns.scenario] = dataclasses.replace(sc, framing_bytes=ns.framing_bytes)
    if ns.shift_last_us:
        base = multiflow.access_delays_ns

        def shifted(sc: multiflow.MultiScenario, seed: int) -> list[int]:
            d = base(sc, seed)
            return [*d[:-1], d[-1] + round(ns.shift_last_us * 1e3)]

        multiflow.access_delays_ns = shifted
    sides = [("peer", peer_phases), ("rexmit", lambda n, sd: phases(n, sd, ns.since))]
    for side, fn in sides:
        if ns.side not in ("both", side):
            continue
        for f in fn(ns.scenario, ns.seed):
            _show(side, f)
            if ns.near_k:
                _show_near_k(f, dctcp.SCENARIOS[ns.scenario].step_k, ns.near_k)
    return 0


def _show(side: str, f: dict) -> None:
    bins = ", ".join(f"{10 * b}-{10 * b + 10} µs {s:.1%}" for b, s in f["phase_bins_10us"].items() if s >= 0.005)
    share = f"at K or above {f['share_at_k']:.2%}" if "share_at_k" in f else f"marked {f['share_marked']:.2%}"
    print(
        f"{side:>6} {f['sender']}: {f['arrivals']} arrivals, mean waiting {f['mean_waiting']:.2f}, "
        f"{share}; after the last departure: {bins}"
    )


def _show_near_k(f: dict, k: int, n: int) -> None:
    """Per waiting count near K: the share of the flow's arrivals that found it, and of those the
    share marked (rexmit: CE on the way out; ns-3: RED's Mark trace)."""
    bw = f["by_waiting"]
    cells = []
    for w in range(k - n, k + n + 1):
        arr, marked = bw.get(w, [0, 0])[:2]
        cells.append(f"{w}: {arr / f['arrivals']:.2%} m {marked / arr if arr else 0:.0%}")
    fine = sorted(f["phase_bins_1us"].items(), key=lambda x: -x[1])[:3]
    same = f["same_instant"]
    ao = f["after_other"]
    print(
        "        by waiting "
        + ", ".join(cells)
        + "; top 1 µs bins "
        + ", ".join(f"{b}-{b + 1} µs {s:.1%}" for b, s in fine)
        + f"; same ns as a departure: {same[0]} after it"
        + (f", {same[1]} before it" if same[1] is not None else "")
        + f"; after another flow's arrival in the same packet time {ao[0] / f['arrivals']:.1%}, marked"
        + f" {ao[1] / ao[0] if ao[0] else 0:.1%} of those, {(f['marked'] - ao[1]) / max(f['arrivals'] - ao[0], 1):.1%} of the rest"
    )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
