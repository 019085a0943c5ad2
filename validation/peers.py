#!/usr/bin/env python3
"""Run a named peer scenario (ns-2.35 or ns-3.44) over N seeds, one run after another, and save
the results with the wall time of every run (issue 7: cross-validation and speed benchmark).

  python validation/peers.py list
  python validation/peers.py run ns3-newreno-sack-prr --loss burst --rate 1e-3 --seeds 10
  python validation/peers.py run ns2-sack1 --loss drops --drops 100,101,102 --duration 10
  python validation/peers.py run ns2-sctp-nrsack --loss uniform --rate 0.01 --seeds 10
  python validation/peers.py run ns2-cmt-nrsack --rate 0.02 --rate2 0.001 --set swnd=131072
  python validation/peers.py run ns3-newreno-sack-classic --loss sameloss --rate 0.01 --seeds 5

Loss: none | uniform (packet error rate `--rate`) | burst (burst start rate `--rate`, size uniform
2..5) | drops (first transmission of the 0-based data segments `--drops`; TCP only) | sameloss
(TCP only: per seed, the first transmissions of the segments that validation/droplists.py draws
with that seed and `--rate`; rexmit drops the same ones, see compare.py) | sameburst (the same
with droplists.burst_segments: bursts of 2..5 consecutive segments starting at `--rate` per
segment). `--set k=v`
passes a raw peer option (ns-3: its --k=v options; ns-2: the Tcl script's k=v). Writes
validation/results/peer_<name>_<loss>[_<rate>].json (or --out) and prints the summary.
The venv's python is needed for the ns-3 peers (it finds the ns3 wheel there).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import droplists  # noqa: E402

RESULTS = HERE / "results"

# name -> (script, fixed peer options)
SCENARIOS: dict[str, tuple[str, dict[str, str]]] = {
    "ns3-newreno-sack-prr": ("ns3_tcp.py", {"cc": "newreno", "sack": "1", "recovery": "prr"}),
    "ns3-newreno-sack-classic": ("ns3_tcp.py", {"cc": "newreno", "sack": "1", "recovery": "classic"}),
    "ns3-newreno-nosack-classic": ("ns3_tcp.py", {"cc": "newreno", "sack": "0", "recovery": "classic"}),
    "ns3-newreno-nosack-prr": ("ns3_tcp.py", {"cc": "newreno", "sack": "0", "recovery": "prr"}),
    "ns3-westwoodplus": ("ns3_tcp.py", {"cc": "westwoodplus", "sack": "1", "recovery": "prr"}),
    "ns3-cubic": ("ns3_tcp.py", {"cc": "cubic", "sack": "1", "recovery": "prr"}),
    "ns2-tahoe": ("ns2_tcp.py", {"agent": "Tahoe", "sink": "DelAck"}),
    "ns2-reno": ("ns2_tcp.py", {"agent": "Reno", "sink": "DelAck"}),
    "ns2-newreno": ("ns2_tcp.py", {"agent": "Newreno", "sink": "DelAck"}),
    "ns2-sack1": ("ns2_tcp.py", {"agent": "Sack1", "sink": "Sack1DelAck"}),
    "ns2-sctp-sack": ("ns2_sctp.py", {"topo": "dumbbell", "nrsack": "0"}),
    "ns2-sctp-nrsack": ("ns2_sctp.py", {"topo": "dumbbell", "nrsack": "1"}),
    "ns2-cmt-sack": ("ns2_sctp.py", {"topo": "cmt", "nrsack": "0", "swnd": "131072"}),
    "ns2-cmt-nrsack": ("ns2_sctp.py", {"topo": "cmt", "nrsack": "1", "swnd": "131072"}),
    # Asymmetric CMT paths: RTT 32 ms on path 1 and 132 ms on path 2 (core delays 2 and 52 ms).
    "ns2-cmt-sack-asym": ("ns2_sctp.py", {"topo": "cmt", "nrsack": "0", "swnd": "131072", "core_delay2": "52ms"}),
    "ns2-cmt-nrsack-asym": ("ns2_sctp.py", {"topo": "cmt", "nrsack": "1", "swnd": "131072", "core_delay2": "52ms"}),
    # Diagnostic variants with one known peer deviation from the RFCs switched off (timelines):
    # ssthresh = FlightSize/2 (RFC 5681 eq. (4)) instead of ns-3.44's pipe/2, and ns-2 Reno
    # without bugFix_ (the RFC 6582 `recover` check that ns-2 also applies to Reno).
    "ns3-newreno-sack-classic-fs": ("ns3_tcp.py", {"cc": "newreno-flightsize", "sack": "1", "recovery": "classic"}),
    "ns3-newreno-sack-prr-fs": ("ns3_tcp.py", {"cc": "newreno-flightsize", "sack": "1", "recovery": "prr"}),
    "ns2-reno-nobugfix": ("ns2_tcp.py", {"agent": "Reno", "sink": "DelAck", "bugfix": "false"}),
    # ns-3 NewReno + SACK aligned with rexmit's choices where ns-3.44 differs (same-loss runs):
    # FlightSize/2 ssthresh, whole-SMSS congestion-avoidance steps, no increase on the ACK that
    # ends recovery (validation/src/ns3_tcp_single.cc, cc=newreno-aligned).
    "ns3-newreno-sack-classic-aligned": ("ns3_tcp.py", {"cc": "newreno-aligned", "sack": "1", "recovery": "classic"}),
    # ... and ns-3 with RFC 5681's ssthresh (limited-transmit segments left out of FlightSize),
    # alone and with the two other alignments.
    "ns3-newreno-sack-classic-rfc": ("ns3_tcp.py", {"cc": "newreno-rfc", "sack": "1", "recovery": "classic"}),
    "ns3-newreno-sack-classic-rfc-aligned": (
        "ns3_tcp.py",
        {"cc": "newreno-rfc-aligned", "sack": "1", "recovery": "classic"},
    ),
}

METRICS = ["goodput_bps", "retransmissions", "timeouts"]


def peer_options(script: str, loss: str, rate: float, rate2: float | None, drops: str) -> dict[str, str]:
    """The common loss vocabulary in each peer's own option names."""
    if script == "ns3_tcp.py":
        return {
            "none": {"loss": "none"},
            "uniform": {"loss": "uniform", "rate": str(rate)},
            "burst": {"loss": "burst", "rate": str(rate)},
            "drops": {"loss": "segs", "dropSegs": drops},
            "sameloss": {"loss": "segs"},
            "sameburst": {"loss": "segs"},
        }[loss]  # dropSegs per seed, in run()
    if script == "ns2_tcp.py":
        return {
            "none": {"loss": "none"},
            "uniform": {"loss": "uniform", "rate": str(rate)},
            "burst": {"loss": "burst", "rate": str(rate)},
            "drops": {"dropsegs": drops},
            "sameloss": {},
            "sameburst": {},
        }[loss]
    if loss not in ("none", "uniform"):
        sys.exit("the SCTP peers have uniform loss only")
    opts = {"rate": str(rate if loss == "uniform" else 0.0)}
    if rate2 is not None:
        opts["rate2"] = str(rate2)
    return opts


def command(script: str, opts: dict[str, str]) -> list[str]:
    if script == "ns3_tcp.py":
        return [sys.executable, str(HERE / script), *[f"--{k}={v}" for k, v in opts.items()]]
    return [sys.executable, str(HERE / script), *[f"{k}={v}" for k, v in opts.items()]]


def summarize(values: list[float]) -> dict[str, float]:
    out = {"mean": statistics.fmean(values), "min": min(values), "max": max(values)}
    if len(values) > 1:
        sd = statistics.stdev(values)
        out.update(stdev=sd, ci95_half=1.96 * sd / len(values) ** 0.5)
    return out


def run(ns: argparse.Namespace) -> int:
    script, fixed = SCENARIOS[ns.name]
    base = {**fixed, "duration": str(ns.duration), **peer_options(script, ns.loss, ns.rate, ns.rate2, ns.drops)}
    for kv in ns.set:
        k, _, v = kv.partition("=")
        base[k] = v
    if script == "ns3_tcp.py":  # compile once, outside the timed runs
        import ns3_tcp

        ns3_tcp.build()
    runs = []
    for seed in range(ns.seed0, ns.seed0 + ns.seeds):
        opts = {**base, "seed": str(seed)}
        if ns.loss in ("sameloss", "sameburst"):
            segs = droplists.as_arg(droplists.segments(ns.loss, seed, ns.rate))
            opts.update({"dropSegs": segs} if script == "ns3_tcp.py" else {"dropsegs": segs})
        t0 = time.perf_counter()
        out = subprocess.run(command(script, opts), check=True, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        res = json.loads(out.stdout.strip().splitlines()[-1])
        res["wall_process_s"] = round(wall, 6)
        runs.append(res)
        print(
            f"{ns.name} seed {seed}: " + ", ".join(f"{m}={res.get(m)}" for m in METRICS) + f", wall {wall:.3f} s",
            file=sys.stderr,
        )
    summary = {m: summarize([float(r[m]) for r in runs]) for m in METRICS if all(m in r for r in runs)}
    summary["wall_process_s"] = {"median": statistics.median(r["wall_process_s"] for r in runs)}
    if all("wall_run_s" in r for r in runs):
        summary["wall_run_s"] = {"median": statistics.median(float(r["wall_run_s"]) for r in runs)}
    doc = {
        "name": ns.name,
        "script": script,
        "options": base,
        "loss": ns.loss,
        "rate": ns.rate,
        "seeds": list(range(ns.seed0, ns.seed0 + ns.seeds)),
        "summary": summary,
        "runs": runs,
    }
    tag = ns.loss if ns.loss in ("none", "drops") else f"{ns.loss}_{ns.rate:g}"
    out_path = Path(ns.out) if ns.out else RESULTS / f"peer_{ns.name}_{tag}.json"
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(json.dumps(doc, indent=1) + "\n")
    print(json.dumps({"name": ns.name, "loss": ns.loss, "summary": summary, "saved": str(out_path)}))
    return 0


def table(_: argparse.Namespace) -> int:
    """A markdown table of every saved result."""
    print(
        "| scenario | loss | seeds | goodput Mb/s (mean ± 95% CI) | retransmissions | timeouts "
        "| wall run s (median) | wall process s (median) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for path in sorted(RESULTS.glob("peer_*.json")):
        doc = json.loads(path.read_text())
        s = doc["summary"]
        g = s["goodput_bps"]
        ci = f" ± {g['ci95_half'] / 1e6:.3f}" if "ci95_half" in g else ""
        tag = path.stem.removeprefix("peer_").removeprefix(doc["name"]).lstrip("_")
        print(
            f"| {doc['name']} | {tag} | {len(doc['seeds'])} | {g['mean'] / 1e6:.3f}{ci} "
            f"| {s['retransmissions']['mean']:.1f} | {s['timeouts']['mean']:.1f} "
            f"| {s.get('wall_run_s', {}).get('median', float('nan')):.3f} "
            f"| {s['wall_process_s']['median']:.3f} |"
        )
    return 0


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list", help="list the scenario names")
    sub.add_parser("table", help="markdown table of validation/results/peer_*.json")
    r = sub.add_parser("run", help="run one scenario over seeds")
    r.add_argument("name", choices=sorted(SCENARIOS))
    r.add_argument("--seeds", type=int, default=1, help="number of seeds (runs, sequential)")
    r.add_argument("--seed0", type=int, default=1, help="first seed")
    r.add_argument("--duration", type=float, default=60.0, help="simulated seconds")
    r.add_argument("--loss", choices=["none", "uniform", "burst", "drops", "sameloss", "sameburst"], default="uniform")
    r.add_argument("--rate", type=float, default=0.01, help="PER or burst start rate (path 1)")
    r.add_argument("--rate2", type=float, default=None, help="CMT path 2 loss rate")
    r.add_argument("--drops", default="100,101,102", help="loss=drops: 0-based data segments")
    r.add_argument("--set", action="append", default=[], metavar="K=V", help="raw peer option")
    r.add_argument("--out", default=None, help="output JSON path")
    ns = ap.parse_args(argv)
    if ns.cmd == "list":
        for name, (script, fixed) in SCENARIOS.items():
            print(f"{name:28s} {script:12s} {fixed}")
        return 0
    if ns.cmd == "table":
        return table(ns)
    return run(ns)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
