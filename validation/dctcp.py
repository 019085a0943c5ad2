#!/usr/bin/env python3
"""DCTCP with step marking against ns-3.44 (issue 37 item 4: "queue length held near K, no
loss"): rexmit's `dctcp` (RFC 8257) and its drop-tail queue with `ecn_threshold = K` against
ns-3.44's TcpDctcp and a RedQueueDisc set up as ns-3's DCTCP documentation does (MinTh = MaxTh,
QW 1, ECN, no hard drop; validation/src/ns3_aqm.h).

    python validation/dctcp.py list
    python validation/dctcp.py run ns3-dctcp-2-10m [--seeds 10] [--side peer|rexmit|both]
    python validation/dctcp.py run all
    python validation/dctcp.py table                (a section of docs/validation_aqm.md)

A scenario is validation/aqm.py's dumbbell (multiflow.py's per-seed starts in [0, 1 s) and
access-delay jitter of one packet time; ns-3's mirror: IW 10, RTO.min 1 s, timestamps, SACK)
with every flow at a 40 ms two-way delay, a queue of 1000 packets marking above K, 60 s runs,
goodput after 10 s. K follows the DCTCP paper's rule K > C·RTT/7 (Alizadeh et al. 2010, §3.4):
10 Mb/s · 40 ms is 33 packets of 1500 bytes, bound 4.8, K = 10; 100 Mb/s · 40 ms is 333, bound
48, K = 65 (the paper's own value at 10 Gb/s). Recovery without PRR in both: ns-3's CWR then
sets cwnd to (1 − α/2)·cwnd at once, as rexmit's reduction does (RFC 3168 §6.1.2), rather than
PRR's gradual reduction. rexmit's links have `framing_bytes = 2`: ns-3's point-to-point
devices send a 2-byte PPP header with every packet, so its packet times are 1502 byte times
(120.16 µs at 100 Mb/s) and its ACKs' 42 or 54, which set where each flow's ACK-clocked packets
land between the bottleneck's departures (docs/validation_queues.md, "Jain's index"). Per seed: goodput per flow, queueing delay mean and p99, drops, marks,
window reductions for ECN, and ns-3's α (its CongestionEstimate trace, after the warm-up).
`ns3-dctcp-vs-newreno-2-10m` puts a NewReno flow without ECN beside a DCTCP flow.
Saved runs: validation/results/aqm_<scenario>_{peer,rexmit}.json (aqm.py's format).
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import aqm  # noqa: E402
import multiflow  # noqa: E402
from compare import ci95  # noqa: E402
from multiflow import MultiScenario  # noqa: E402

PACKET_BITS = 1500 * 8
RTT_MS = 40.0


def _scenario(name: str, variants: tuple[str, ...], mbps: float, k: int) -> MultiScenario:
    return MultiScenario(
        name,
        "ns3",
        variants,
        (RTT_MS,) * len(variants),
        queue=1000,
        qdisc="step",
        step_k=k,
        bottleneck_rate_mbps=mbps,
        jitter_us=PACKET_BITS / mbps,  # one 1500-byte packet time
        start_window=1.0,
        duration=60.0,
        warmup=10.0,
        prr=False,
    )


SCENARIOS = {
    s.name: s
    for s in [
        _scenario("ns3-dctcp-2-10m", ("dctcp",) * 2, 10.0, 10),
        _scenario("ns3-dctcp-4-10m", ("dctcp",) * 4, 10.0, 10),
        _scenario("ns3-dctcp-2-100m", ("dctcp",) * 2, 100.0, 65),
        _scenario("ns3-dctcp-4-100m", ("dctcp",) * 4, 100.0, 65),
        _scenario("ns3-dctcp-vs-newreno-2-10m", ("dctcp", "newreno"), 10.0, 10),
    ]
}


def dctcp_numbers(side: str, run: dict[str, Any], duration: float) -> dict[str, float]:
    """One run's DCTCP metrics: the fraction of arrivals marked, ECN reductions per DCTCP flow
    per second (whole run), and (ns-3) α averaged over its updates after the warm-up."""
    a = run["aqm"]
    arrivals = a["received"] if side == "peer" else a["arrivals"]
    marks = a["marked"] if side == "peer" else a["ecn_marked"]
    flows = [f for f in run["flows"] if side == "rexmit" or "dctcp" in f]
    if side == "peer":
        red = [f["dctcp"]["ecn_reductions"] for f in flows]
    else:
        red = [f["ecn_reductions"] for f in flows if f["ecn_reductions"] > 0]
    out = {
        "marked_fraction": marks / arrivals if arrivals else 0.0,
        "ecn_reductions_per_s": statistics.fmean(red) / duration if red else 0.0,
    }
    if side == "peer":
        out["alpha"] = statistics.fmean(f["dctcp"]["alpha_mean"] for f in flows)
    return out


def summarize(sc: MultiScenario, side: str, runs: list[dict[str, Any]]) -> dict[str, Any]:
    out = aqm.summarize(sc, side, runs)
    per = [dctcp_numbers(side, r, sc.duration) for r in runs]
    out["dctcp"] = {k: {"mean": statistics.fmean(p[k] for p in per), "ci": ci95([p[k] for p in per])} for k in per[0]}
    return out


def run_side(sc: MultiScenario, side: str, seeds: list[int], tag: str = "") -> dict[str, Any]:
    doc = aqm.run_side(sc, side, seeds, tag)
    doc["summary"] = summarize(sc, side, doc["runs"])
    aqm.saved(sc.name, side + tag).write_text(json.dumps(doc, indent=1) + "\n")
    return doc


def compare(name: str, seeds: int) -> dict[str, Any]:
    """Both sides over seeds 1..`seeds`, not saved (the live test's entry point)."""
    sc = SCENARIOS[name]
    ss = range(1, seeds + 1)
    peer = summarize(sc, "peer", [aqm.run_one(sc, "peer", s) for s in ss])
    ours = summarize(sc, "rexmit", [aqm.run_one(sc, "rexmit", s) for s in ss])
    return {"peer": peer, "rexmit": ours, **aqm.verdict(peer, ours)}


def _pkts(q: dict[str, Any], key: str, mbps: float) -> str:
    """A delay (mean ± CI, s) as packets of 1500 bytes at the bottleneck rate."""
    f = mbps * 1e6 / PACKET_BITS
    return f"{q[key]['mean'] * f:.1f} ± {q[key]['ci'] * f:.1f}"


def render() -> str:
    head = [
        "## DCTCP with step marking (generated by `validation/dctcp.py table`)",
        "",
        "DCTCP flows (RFC 8257; ns-3.44's TcpDctcp with its defaults g = 1/16, α₀ = 1) at a 40 ms",
        "two-way delay through a bottleneck whose 1000-packet queue marks ECN-capable packets above",
        "K (rexmit: `ecn_threshold = K`; ns-3: RED with MinTh = MaxTh = K − 1 packets in its queue",
        "disc, QW 1, ECN, no hard drop: the same backlog, its device holding the next packet). 60 s,",
        "10 seeds, goodput after 10 s, queue metrics over the run, ± the 95% CI over seeds. Queue:",
        "the queueing delay (as in the table above) in 1500-byte packets at the bottleneck rate.",
        "Marked: ECN marks over arrivals at the bottleneck. ECN cuts: window reductions for ECN per",
        "DCTCP flow and second. α: ns-3's, averaged over its updates after 10 s (rexmit does not",
        "report α; over a run its mean equals the marked fraction of the flow's bytes). Verdict as",
        "above. Jain: Jain's index of the flows' goodputs, per run, mean over seeds. rexmit's links",
        "have `framing_bytes = 2`, ns-3's PPP header: every packet and ACK takes ns-3's link time.",
        "Explanations: [validation_queues.md](validation_queues.md#dctcp-with-step-marking).",
        "",
        "| scenario | K | goodput ns-3 / rexmit (Mb/s) | diff | per class (diff; Mb/s if mixed) | queue ns-3 (pkts) "
        "| queue rexmit (pkts) | p99 ns-3 (pkts) | p99 rexmit (pkts) | drops ns-3 / rexmit "
        "| marked ns-3 / rexmit | ECN cuts/s ns-3 / rexmit | α ns-3 | Jain ns-3 / rexmit | verdict |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    rows = []
    for name, sc in SCENARIOS.items():
        paths = aqm.saved(name, "peer"), aqm.saved(name, "rexmit")
        if not all(p.exists() for p in paths):
            rows.append(f"| {name} | {sc.step_k} | not run |" + " |" * 12)
            continue
        p, o = (json.loads(x.read_text())["summary"] for x in paths)
        v = aqm.verdict(p, o)
        pq, oq, pd, od = p["queue"], o["queue"], p["dctcp"], o["dctcp"]
        mb = sc.bottleneck_rate_mbps
        classes = " / ".join(
            f"{c['variant']} {f:+.1%}"
            if len(p["flows"]) == 1
            else f"{c['variant']} {c['goodput_bps'] / 1e6:.2f} / {d['goodput_bps'] / 1e6:.2f}"
            for c, d, f in zip(p["flows"], o["flows"], v["flows_rel"])
        )
        drops = [q["drop_early"]["mean"] + q["drop_overflow"]["mean"] for q in (pq, oq)]
        rows.append(
            f"| {name} | {sc.step_k} | {p['aggregate_bps'] / 1e6:.2f} / {o['aggregate_bps'] / 1e6:.2f} "
            f"| {v['aggregate_rel']:+.1%} | {classes} "
            f"| {_pkts(pq, 'queue_delay_mean_s', mb)} | {_pkts(oq, 'queue_delay_mean_s', mb)} "
            f"| {_pkts(pq, 'queue_delay_p99_s', mb)} | {_pkts(oq, 'queue_delay_p99_s', mb)} "
            f"| {drops[0]:.0f} / {drops[1]:.0f} "
            f"| {pd['marked_fraction']['mean']:.1%} / {od['marked_fraction']['mean']:.1%} "
            f"| {pd['ecn_reductions_per_s']['mean']:.2f} / {od['ecn_reductions_per_s']['mean']:.2f} "
            f"| {pd['alpha']['mean']:.3f} | {p['jain']:.3f} / {o['jain']:.3f} | {v['goodput']} / {v['delay']} |"
        )
    return "\n".join(head + rows)


def write_table(out: Path) -> int:
    """Replace (or append) this script's section of docs/validation_aqm.md."""
    text = out.read_text() if out.exists() else ""
    start = text.find("## DCTCP with step marking")
    before = text[:start].rstrip("\n") if start >= 0 else text.rstrip("\n")
    out.write_text(before + "\n\n" + render() + "\n")
    print(f"wrote {out}", file=sys.stderr)
    return 0


def brief(doc: dict[str, Any]) -> str:
    d = doc["summary"]["dctcp"]
    return (
        aqm.brief(doc)
        + f" | marked {d['marked_fraction']['mean']:.3f} cuts/s {d['ecn_reductions_per_s']['mean']:.2f}"
        + (f" alpha {d['alpha']['mean']:.3f}" if "alpha" in d else "")
    )


def main(argv: list[str]) -> int:
    ap, _ = multiflow.command_line(__doc__ or "", "'all'", 10, "validation_aqm.md")
    ns = ap.parse_args(argv)
    if ns.cmd == "list":
        for sc in SCENARIOS.values():
            print(f"{sc.name:28s} {','.join(sc.variants)} {sc.bottleneck_rate_mbps:g} Mb/s K {sc.step_k}")
        return 0
    if ns.cmd == "table":
        return write_table(Path(ns.out))
    return aqm.run_named(ns, SCENARIOS, run_side, brief)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
