#!/usr/bin/env python3
"""Active queues against ns-3.44's traffic-control module (issue 37 item 4): CoDel, FQ-CoDel,
PIE and Adaptive RED at the bottleneck of N long-lived TCP flows, in both simulators.

    python validation/aqm.py list
    python validation/aqm.py run ns3-codel-newreno-4 [--seeds 10] [--side peer|rexmit|both]
    python validation/aqm.py run all                  (every scenario)
    python validation/aqm.py run ns3-codel-newreno-2 --seeds 30 --side rexmit --tag -30
                                                      (saved apart: aqm_<scenario>_<side>-30.json)
    python validation/aqm.py table                    (docs/validation_aqm.md from saved runs)

A scenario is validation/multiflow.py's dumbbell (its per-seed start times and access-delay
jitter, its ns-3 mirror: IW 10, RTO.min 1 s, timestamps, SACK with PRR) with a 50 Mb/s, 10 ms
bottleneck whose queue is the AQM under test, 1000 packets deep, every parameter at its RFC
value (ns-3 is set to them where it has the knob, validation/src/ns3_aqm.h). Half the flows
have a 40 ms and half an 80 ms two-way delay, so that Jain's index measures something. Per
seed: goodput per flow after the warm-up, and over the whole run the bottleneck's mean and 99th
percentile queueing delay (enqueue to the start of transmission), early (AQM) and overflow
drops and ECN marks. Saved runs: validation/results/aqm_<scenario>_{peer,rexmit}.json.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results"
sys.path.insert(0, str(HERE))

import multiflow  # noqa: E402
from compare import ci95  # noqa: E402
from multiflow import MultiScenario  # noqa: E402

AQMS = ("codel", "fq_codel", "pie", "ared")
FLOWS = (2, 4, 8, 16)


def _scenario(aqm: str, variant: str, n: int) -> MultiScenario:
    return MultiScenario(
        f"ns3-{aqm}-{variant}-{n}",
        "ns3",
        (variant,) * n,
        tuple(40.0 if i % 2 == 0 else 80.0 for i in range(n)),
        queue=1000,
        qdisc=aqm,
        # FQ-CoDel marks by default in both (RFC 8290 §5.2.6); TCP here is not ECN-capable,
        # so every AQM drops.
        ecn=aqm == "fq_codel",
        bottleneck_rate_mbps=50.0,
        jitter_us=240.0,  # one 1500-byte packet time at 50 Mb/s
        start_window=1.0,
        duration=60.0,
        warmup=10.0,
    )


def _scenarios() -> dict[str, MultiScenario]:
    out = [_scenario(a, "newreno", n) for a in AQMS for n in FLOWS]
    out += [_scenario(a, "cubic", 4) for a in AQMS]
    return {s.name: s for s in out}


SCENARIOS = _scenarios()

# ns-3's drop reasons that are the AQM's own decision (rexmit's drop_early); every other reason
# is the queue's limit (drop_overflow). A child queue disc's reasons (FQ-CoDel's flows) carry
# the prefix "(Dropped by child queue disc) ".
EARLY_REASONS = {
    "codel": {"Target exceeded drop"},
    "fq_codel": {"Target exceeded drop"},
    "pie": {"Unforced drop"},
    "ared": {"Unforced drop", "Forced drop"},
    # DCTCP's step marking (validation/dctcp.py): a packet that cannot be marked above K.
    "step": {"Unforced drop", "Forced drop"},
}


def ns3_drops(aqm: str, stats: dict[str, Any]) -> tuple[int, int]:
    """(early, overflow) from ns-3's per-reason drop counts."""
    early = overflow = 0
    for where in ("dropped_before_enqueue", "dropped_after_dequeue"):
        for reason, n in stats[where].items():
            if reason.removeprefix("(Dropped by child queue disc) ") in EARLY_REASONS[aqm]:
                early += n
            else:
                overflow += n
    return early, overflow


def queue_numbers(sc: MultiScenario, side: str, run: dict[str, Any]) -> dict[str, float]:
    """One run's queue metrics in rexmit's names."""
    a = run["aqm"]
    if side == "rexmit":
        return {k: float(a[k]) for k in multiflow.AQM_LINK_METRICS}
    early, overflow = ns3_drops(sc.qdisc, a)
    return {
        "queue_delay_mean_s": a["queue_delay_mean_s"],
        "queue_delay_p99_s": a["queue_delay_p99_s"],
        "drop_early": float(early),
        "drop_overflow": float(overflow),
        "ecn_marked": float(a["marked"]),
        # What ns-3's AQM itself sees: the queue disc only (see ns3_aqm.h).
        "qdisc_sojourn_mean_s": a["qdisc_sojourn_mean_s"],
    }


def summarize(sc: MultiScenario, side: str, runs: list[dict[str, Any]]) -> dict[str, Any]:
    """multiflow's goodput summary plus each queue metric's mean and 95% CI over seeds."""
    out = multiflow.summarize(sc, runs)
    per_run = [queue_numbers(sc, "peer" if side in ALIGNED_PEERS else side, r) for r in runs]
    out["queue"] = {
        k: {"mean": statistics.fmean(p[k] for p in per_run), "ci": ci95([p[k] for p in per_run])} for k in per_run[0]
    }
    return out


GOODPUT_BAND = 0.05


def verdict(peer: dict[str, Any], ours: dict[str, Any]) -> dict[str, Any]:
    """Goodput: the aggregate and every class of identical flows within 5%. Delay: the mean and
    the p99 within each other's 95% CIs (their difference at most the sum of the half-widths)."""
    agg = ours["aggregate_bps"] / peer["aggregate_bps"] - 1
    flows = [o["goodput_bps"] / p["goodput_bps"] - 1 for p, o in zip(peer["flows"], ours["flows"])]
    delays = {}
    for k in ("queue_delay_mean_s", "queue_delay_p99_s"):
        p, o = peer["queue"][k], ours["queue"][k]
        delays[k] = {
            "rel": o["mean"] / p["mean"] - 1 if p["mean"] else float("nan"),
            "overlap": abs(o["mean"] - p["mean"]) <= o["ci"] + p["ci"],
        }
    goodput_ok = abs(agg) <= GOODPUT_BAND and all(abs(f) <= GOODPUT_BAND for f in flows)
    delay_ok = all(d["overlap"] for d in delays.values())
    return {
        "aggregate_rel": agg,
        "flows_rel": flows,
        "delays": delays,
        "goodput": "agree" if goodput_ok else "differs",
        "delay": "agree" if delay_ok else "differs",
        "verdict": "agree" if goodput_ok and delay_ok else "differs",
    }


def saved(name: str, side: str) -> Path:
    return RESULTS / f"aqm_{name}_{side}.json"


# ns-3.44's TcpCubic runs HyStart (its attribute HyStart is on by default); rexmit's CUBIC does
# when told.
REXMIT_TCP = {"cubic": {"hystart": True}}


# Peer sides besides ns-3.44 as it is: ns-3 with one of its deviations aligned, each with the
# arguments that select it and its table's heading (docs/validation_queues.md "Active queues against
# ns-3.44"). `prr-rfc`: RFC 6937's PRR (validation/src/ns3_prr_variants.h), where ns-3.44's
# counts a duplicate ACK's segment twice with SACK and takes RecoverFS from the pipe (both
# corrected in ns-3 after 3.44).
ALIGNED_PEERS: dict[str, tuple[tuple[str, ...], str]] = {
    "peer-prr-rfc": (
        ("--recovery=prr-rfc",),
        "Aligned: ns-3 with RFC 6937's PRR (`aqm.py run NAMES --side peer-prr-rfc`; the same rexmit runs)",
    )
}


def run_one(sc: MultiScenario, side: str, seed: int) -> dict[str, Any]:
    if side == "peer":
        return multiflow.run_peer(sc, seed)
    if side in ALIGNED_PEERS:
        return multiflow.run_peer(sc, seed, ALIGNED_PEERS[side][0])
    return multiflow.run_rexmit(sc, seed, REXMIT_TCP.get(sc.variants[0]))


def run_side(sc: MultiScenario, side: str, seeds: list[int], tag: str = "") -> dict[str, Any]:
    t0 = time.perf_counter()
    runs = [run_one(sc, side, s) for s in seeds]
    doc = {
        "scenario": asdict(sc),
        "side": side,
        "seeds": seeds,
        "wall_s": round(time.perf_counter() - t0, 3),
        "summary": summarize(sc, side, runs),
        "runs": runs,
    }
    path = saved(sc.name, side + tag)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=1) + "\n")
    return doc


def compare(name: str, seeds: int) -> dict[str, Any]:
    """Both sides over seeds 1..`seeds`, not saved (the live test's entry point)."""
    sc = SCENARIOS[name]
    ss = range(1, seeds + 1)
    peer = summarize(sc, "peer", [run_one(sc, "peer", s) for s in ss])
    ours = summarize(sc, "rexmit", [run_one(sc, "rexmit", s) for s in ss])
    return {"peer": peer, "rexmit": ours, **verdict(peer, ours)}


def brief(doc: dict[str, Any]) -> str:
    s = doc["summary"]
    q = s["queue"]
    return (
        f"{doc['side']:>7}: agg {s['aggregate_bps'] / 1e6:.2f} jain {s['jain']:.3f} "
        f"delay {q['queue_delay_mean_s']['mean'] * 1e3:.2f}±{q['queue_delay_mean_s']['ci'] * 1e3:.2f} ms "
        f"p99 {q['queue_delay_p99_s']['mean'] * 1e3:.1f}±{q['queue_delay_p99_s']['ci'] * 1e3:.1f} ms "
        f"early {q['drop_early']['mean']:.0f} overflow {q['drop_overflow']['mean']:.0f} "
        f"marks {q['ecn_marked']['mean']:.0f} | "
        + " ".join(f"{f['goodput_bps'] / 1e6:.2f}±{f['goodput_ci'] / 1e6:.2f}" for f in s["flows"])
    )


# The suffix of the saved runs over more seeds that the table lists apart (`run --tag`).
MORE_SEEDS_TAG = "-30"


def write_table(out: Path) -> int:
    import aqm_tables

    # validation/dctcp.py's section follows this table in the same file: kept as it is.
    old = out.read_text() if out.exists() else ""
    kept = old.find("\n## DCTCP with step marking")
    more = aqm_tables.render_more_seeds(SCENARIOS, saved, MORE_SEEDS_TAG, "peer-prr-rfc")
    out.write_text(
        aqm_tables.render(SCENARIOS, saved, verdict, {s: h for s, (_, h) in ALIGNED_PEERS.items()})
        + ("\n\n" + more if more else "")
        + "\n"
        + (old[kept:] if kept >= 0 else "")
    )
    print(f"wrote {out}", file=sys.stderr)
    return 0


def run_named(ns: Any, scenarios: dict[str, MultiScenario], run_side: Any, brief: Any) -> int:
    """The `run` command (this script's and validation/dctcp.py's): each named scenario's sides
    as `ns.side` asks (the other side from its saved run), then their verdict. `ns.tag` is a
    suffix of the saved runs' names, both those written and the other side's read (e.g. `-30`
    for runs over more seeds, kept beside the 10-seed runs the tables are made from)."""
    tag = ns.tag
    for name in list(scenarios) if ns.names == ["all"] else ns.names:
        print(name, file=sys.stderr)
        docs = {}
        aligned = ns.side if ns.side in ALIGNED_PEERS else None
        if aligned:
            # An aligned peer against rexmit's saved run, saved under the aligned side's name.
            docs["peer"] = run_side(scenarios[name], aligned, list(range(1, ns.seeds + 1)), tag)
            print("  " + brief(docs["peer"]), file=sys.stderr)
        for side in ("peer", "rexmit"):
            if side in docs:
                continue
            if ns.side in (side, "both"):
                docs[side] = run_side(scenarios[name], side, list(range(1, ns.seeds + 1)), tag)
                print("  " + brief(docs[side]), file=sys.stderr)
            elif saved(name, side + tag).exists():
                docs[side] = json.loads(saved(name, side + tag).read_text())
        if len(docs) == 2:
            v = verdict(docs["peer"]["summary"], docs["rexmit"]["summary"])
            print(
                f"  {v['verdict']}: goodput {v['aggregate_rel']:+.1%} ("
                + " ".join(f"{f:+.1%}" for f in v["flows_rel"])
                + f"), delay {v['delays']['queue_delay_mean_s']['rel']:+.1%}, p99 {v['delays']['queue_delay_p99_s']['rel']:+.1%}",
                file=sys.stderr,
            )
    return 0


def main(argv: list[str]) -> int:
    ap, _ = multiflow.command_line(__doc__ or "", "'all'", 10, "validation_aqm.md", tuple(ALIGNED_PEERS))
    ns = ap.parse_args(argv)
    if ns.cmd == "list":
        for sc in SCENARIOS.values():
            print(f"{sc.name:28s} {sc.qdisc} {len(sc.variants)} x {sc.variants[0]} rtts {sorted(set(sc.rtts_ms))}")
        return 0
    if ns.cmd == "table":
        return write_table(Path(ns.out))
    return run_named(ns, SCENARIOS, run_side, brief)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
