#!/usr/bin/env python3
"""rexmit against ns-2.35 and ns-3.44 on identical work (issue 7, issue 18; `make bench`): the
single-flow scenarios below, and competing flows on one drop-tail bottleneck (`COMPETING`, from
validation/multiflow.py).

Each scenario runs in each simulator N times, one run after another (no fan-out), with the same
seed, duration and configuration (compare.py's mirrors of the peer scripts). Two times per run:

- loop: the simulator's event loop only. ns-3: `Simulator::Run` (wall_run_s); ns-2: `$ns run`
  (wall_run_s, Tcl clock); rexmit: `summary["wall_time_s"]` of `rexmit.run` (the simulation loop,
  without building the scenario or converting results);
- process: the whole process, as the driver sees it. ns-3: the compiled scenario binary; ns-2:
  `ns` through its Python wrapper; rexmit: a fresh Python that imports rexmit, builds the
  scenario and runs it (interpreter start and imports included).

Peers run UNTRACED (no packet trace, no per-packet lists): tracing would dominate their time.
Reported per scenario: the median of each time, the wall-time ratio peer/rexmit (medians),
packet hops per wall second of loop time for each (one hop = one packet sent over one link
direction, as each simulator counts it), and the hop counts (they differ slightly because the
simulators are not identical). No timing is asserted anywhere.

    python validation/bench_peers.py [--quick] [--runs N] [--duration S] [--only SUBSTRING]

Then the whole process on the ns-2 scenarios over short runs (`--process-durations`): the
`rexmit run` command line against `ns` itself (see "Whole process" below).

Writes bench-results/peers.json and peers.md, and process.json and process.md.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import compare  # noqa: E402
import ns3_tcp  # noqa: E402

# (peer preset of peers.py, loss, rate, rate2)
SCENARIOS: list[tuple[str, str, float, float | None]] = [
    ("ns3-newreno-sack-prr", "uniform", 0.01, None),
    ("ns3-newreno-sack-prr", "burst", 0.001, None),
    ("ns3-cubic", "uniform", 0.01, None),
    ("ns3-cubic", "burst", 0.001, None),
    ("ns3-westwoodplus", "uniform", 0.01, None),
    ("ns3-westwoodplus", "burst", 0.001, None),
    ("ns2-sack1", "uniform", 0.01, None),
    ("ns2-sack1", "burst", 0.001, None),
    ("ns2-newreno", "uniform", 0.01, None),
    ("ns2-newreno", "burst", 0.001, None),
    ("ns2-sctp-sack", "uniform", 0.01, None),
    ("ns2-sctp-nrsack", "uniform", 0.01, None),
    ("ns2-cmt-nrsack", "uniform", 0.02, 0.001),
]

# Competing flows on one drop-tail bottleneck (issue 18): validation/multiflow.py's scenarios,
# its peer scripts (which time their own event loop) and its rexmit mirror, over `--duration`.
COMPETING: list[str] = ["ns2-sack-4-rtt44-82", "ns2-sack-16-equal", "ns3-newreno-4-rtt44-82", "ns3-newreno-16-equal"]

# The rexmit side of one run in a fresh interpreter (for the whole-process time).
CHILD = r"""
import json, sys
sys.path.insert(0, {here!r})
import compare, rexmit
peer = json.loads({peer!r})
m = compare.mirror(peer["name"])
if m.tcp is not None:
    s = compare.tcp_scenario(m, peer["loss"], peer["rate"], peer["seed"], peer["duration"])
else:
    s = compare.sctp_scenario(m, peer["options"], peer["rate"], peer["seed"], peer["duration"])
r = rexmit.run(s)
print(json.dumps({{"wall_run_s": r.summary["wall_time_s"], "packet_hops": r.summary["packet_hops"]}}))
"""


def peer_command(name: str, loss: str, rate: float, rate2: float | None, secs: float, seed: int) -> list[str]:
    import peers

    script, fixed = peers.SCENARIOS[name]
    opts = {**fixed, "duration": f"{secs:g}", "seed": str(seed), **peers.peer_options(script, loss, rate, rate2, "")}
    if script == "ns3_tcp.py":  # the compiled binary itself, as ns-3 users run it
        return [str(ns3_tcp.build()), *[f"--{k}={v}" for k, v in opts.items()]]
    if script == "ns2_sctp.py":
        opts["notrace"] = "1"
    return [sys.executable, str(HERE / script), *[f"{k}={v}" for k, v in opts.items()]]


def timed(cmd: list[str]) -> tuple[dict[str, Any], float]:
    t0 = time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    return json.loads(out.stdout.strip().splitlines()[-1]), wall


def bench_one(
    name: str, loss: str, rate: float, rate2: float | None, secs: float, runs: int, seed: int = 1
) -> dict[str, Any]:
    m = compare.mirror(name)
    assert m is not None, name
    peer_runs = [timed(peer_command(name, loss, rate, rate2, secs, seed)) for _ in range(runs)]
    options = {"topo": "cmt", "rate2": rate2} if rate2 is not None else {}
    child = CHILD.format(
        here=str(HERE),
        peer=json.dumps({"name": name, "loss": loss, "rate": rate, "seed": seed, "duration": secs, "options": options}),
    )
    ours = [timed([sys.executable, "-c", child]) for _ in range(runs)]
    med = statistics.median
    p_loop = med(float(r["wall_run_s"]) for r, _ in peer_runs)
    p_proc = med(w for _, w in peer_runs)
    o_loop = med(float(r["wall_run_s"]) for r, _ in ours)
    o_proc = med(w for _, w in ours)
    p_hops = int(peer_runs[0][0]["packet_hops"])
    o_hops = int(ours[0][0]["packet_hops"])
    return {
        "scenario": name,
        "loss": loss,
        "rate": rate,
        "rate2": rate2,
        "duration_s": secs,
        "runs": runs,
        "peer": "ns-3.44" if name.startswith("ns3") else "ns-2.35",
        "peer_loop_s": p_loop,
        "peer_process_s": p_proc,
        "rexmit_loop_s": o_loop,
        "rexmit_process_s": o_proc,
        "ratio_loop": p_loop / o_loop if o_loop > 0 else None,
        "ratio_process": p_proc / o_proc if o_proc > 0 else None,
        "peer_packet_hops": p_hops,
        "rexmit_packet_hops": o_hops,
        "peer_hops_per_s": p_hops / p_loop if p_loop > 0 else None,
        "rexmit_hops_per_s": o_hops / o_loop if o_loop > 0 else None,
        "peer_loop_all_s": [float(r["wall_run_s"]) for r, _ in peer_runs],
        "rexmit_loop_all_s": [float(r["wall_run_s"]) for r, _ in ours],
    }


MULTI_CHILD = r"""
import dataclasses, json, sys
sys.path.insert(0, {here!r})
import multiflow
sc = dataclasses.replace(multiflow.SCENARIOS[{name!r}], duration={secs!r}, warmup={warmup!r})
r = multiflow.run_rexmit(sc, {seed!r})
print(json.dumps({{"wall_run_s": r["wall_run_s"]}}))
"""


def bench_competing(name: str, secs: float, runs: int, seed: int = 1) -> dict[str, Any]:
    """One competing-flows scenario: the peer's compiled program or ns-2 script (it times its
    own event loop, untraced but for the bottleneck's queue monitor, as rexmit's link
    statistics) against rexmit in a fresh interpreter."""
    import dataclasses

    import multiflow

    warmup = min(multiflow.SCENARIOS[name].warmup, secs / 5)
    sc = dataclasses.replace(multiflow.SCENARIOS[name], duration=secs, warmup=warmup)
    cmd = multiflow.ns2_command(sc, seed) if sc.peer == "ns2" else multiflow.ns3_command(sc, seed)
    peer_runs = [timed(cmd) for _ in range(runs)]
    child = MULTI_CHILD.format(here=str(HERE), name=name, secs=secs, warmup=warmup, seed=seed)
    ours = [timed([sys.executable, "-c", child]) for _ in range(runs)]
    med = statistics.median
    p_loop = med(float(r["wall_run_s"]) for r, _ in peer_runs)
    o_loop = med(float(r["wall_run_s"]) for r, _ in ours)
    p_proc, o_proc = med(w for _, w in peer_runs), med(w for _, w in ours)
    return {
        "scenario": name,
        "loss": "competing",
        "rate": float(len(sc.variants)),
        "rate2": None,
        "duration_s": secs,
        "runs": runs,
        "peer": "ns-3.44" if sc.peer == "ns3" else "ns-2.35",
        "peer_loop_s": p_loop,
        "peer_process_s": p_proc,
        "rexmit_loop_s": o_loop,
        "rexmit_process_s": o_proc,
        "ratio_loop": p_loop / o_loop if o_loop > 0 else None,
        "ratio_process": p_proc / o_proc if o_proc > 0 else None,
        "peer_packet_hops": None,
        "rexmit_packet_hops": None,
        "peer_hops_per_s": None,
        "rexmit_hops_per_s": None,
        "peer_loop_all_s": [float(r["wall_run_s"]) for r, _ in peer_runs],
        "rexmit_loop_all_s": [float(r["wall_run_s"]) for r, _ in ours],
    }


# --- Whole process: the `rexmit run` command against ns-2's `ns` (issue 18) -------------------------
# Researchers script short runs by the thousand, so the process around the loop counts: Python's
# start, imports, reading the scenario and writing the results. Here rexmit is its command line,
# `rexmit run SCENARIO.toml --out DIR --quiet` on the mirror of the ns-2 scenario saved as TOML,
# and ns-2 is `ns SCRIPT.tcl key=value...` itself, without the Python wrapper of the loop table;
# the two alternate run by run after one untimed run of each. Ratio = ns-2 median / rexmit median
# (above 1: rexmit is faster). The rexmit package is byte-compiled first, as pip does when it
# installs a wheel: an editable install under PYTHONDONTWRITEBYTECODE=1 would compile it anew at
# every start.


def compile_rexmit() -> None:
    import compileall

    import rexmit

    compileall.compile_dir(str(Path(rexmit.__file__).parent), quiet=1)


def ns2_command(name: str, loss: str, rate: float, rate2: float | None, secs: float, seed: int) -> list[str]:
    """`ns` on the Tcl script the ns-2 wrapper of `name` runs, untraced, with the same options."""
    import ns2_sctp
    import ns2_tcp
    import peers

    script, fixed = peers.SCENARIOS[name]
    opts = {**fixed, "duration": f"{secs:g}", "seed": str(seed), **peers.peer_options(script, loss, rate, rate2, "")}
    tcl = {"ns2_tcp.py": ns2_tcp.TCL, "ns2_sctp.py": ns2_sctp.TCL}[script]
    return ["ns", str(tcl), *[f"{k}={v}" for k, v in opts.items()]]


def rexmit_command(scenario: Path, out: Path) -> list[str]:
    """`rexmit run` as users type it: the venv's console script, else `python -m rexmit`."""
    script = Path(sys.executable).with_name("rexmit")
    head = [str(script)] if script.is_file() else [sys.executable, "-m", "rexmit"]
    return [*head, "run", str(scenario), "--out", str(out), "--quiet"]


def wall(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return time.perf_counter() - t0


def bench_process(
    name: str, loss: str, rate: float, rate2: float | None, secs: float, runs: int, work: Path, seed: int = 1
) -> dict[str, Any]:
    m = compare.mirror(name)
    assert m is not None and name.startswith("ns2"), name
    if m.tcp is not None:
        s = compare.tcp_scenario(m, loss, rate, seed, secs)
    else:
        s = compare.sctp_scenario(m, {"topo": "cmt", "rate2": rate2} if rate2 is not None else {}, rate, seed, secs)
    toml = work / f"{name}-{loss}-{secs:g}s.toml"
    s.save(toml)
    ns_cmd = ns2_command(name, loss, rate, rate2, secs, seed)
    ours_cmd = rexmit_command(toml, work / "out")
    wall(ns_cmd), wall(ours_cmd)  # untimed: the files in the page cache, as for the runs after it
    peer, ours = [], []
    for _ in range(runs):
        peer.append(wall(ns_cmd))
        ours.append(wall(ours_cmd))
    p, o = statistics.median(peer), statistics.median(ours)
    return {
        "scenario": name,
        "loss": loss,
        "rate": rate,
        "rate2": rate2,
        "duration_s": secs,
        "runs": runs,
        "peer": "ns-2.35",
        "peer_process_s": p,
        "rexmit_process_s": o,
        "ratio": p / o,
        "peer_all_s": peer,
        "rexmit_all_s": ours,
    }


def process_markdown(rows: list[dict[str, Any]], runs: int) -> list[str]:
    out = [
        f"## Whole process: `rexmit run` vs `ns` (median of {runs} alternating runs)",
        "",
        "rexmit: `rexmit run SCENARIO.toml --out DIR --quiet` (interpreter start, imports, TOML, run, results written); "
        "ns-2: `ns SCRIPT.tcl ...` untraced. Ratio = ns-2 time / rexmit time (above 1: rexmit is faster).",
        "",
        "| scenario | loss | simulated (s) | ns-2 (s) | rexmit (s) | ratio |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        out.append(
            f"| {r['scenario']} | {r['loss']} {r['rate']:g} | {r['duration_s']:g} | {r['peer_process_s']:.3f} | {r['rexmit_process_s']:.3f} | {r['ratio']:.2f}× |"
        )
    for secs in sorted({r["duration_s"] for r in rows}):
        sel = [r["ratio"] for r in rows if r["duration_s"] == secs]
        out += [
            "",
            f"{secs:g} s simulated: median whole-process ratio ns-2/rexmit {statistics.median(sel):.2f}× (range {min(sel):.2f}–{max(sel):.2f}×) over {len(sel)} scenarios.",
        ]
    return out


def _mhops(x: float | None) -> str:
    return "–" if x is None else f"{x / 1e6:.2f}"


def markdown(rows: list[dict[str, Any]], meta: dict[str, Any]) -> list[str]:
    out = [
        f"# rexmit vs ns-2.35 / ns-3.44 on identical work: single flows and competing flows ({meta['duration_s']:g} s simulated, median of {meta['runs']} runs)",
        "",
        f"Host: {meta['host']}, Python {meta['python']}, rexmit {meta['rexmit']}. Loop = simulator event loop only; process = whole process. "
        "Ratio = peer time / rexmit time (medians). Hops/s = packet hops per second of loop time (Mhop/s).",
        "",
        "| peer | scenario | loss | loop peer (s) | loop rexmit (s) | ratio loop | process peer (s) | process rexmit (s) | ratio process | Mhop/s peer | Mhop/s rexmit | hops peer | hops rexmit |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if r["loss"] == "competing":
            loss = f"{r['rate']:g} flows, drop-tail"
        else:
            loss = f"{r['loss']} {r['rate']:g}" + (f" / {r['rate2']:g}" if r["rate2"] is not None else "")
        out.append(
            f"| {r['peer']} | {r['scenario']} | {loss} | {r['peer_loop_s']:.4f} | {r['rexmit_loop_s']:.4f} | {r['ratio_loop']:.1f}× "
            f"| {r['peer_process_s']:.3f} | {r['rexmit_process_s']:.3f} | {r['ratio_process']:.1f}× "
            f"| {_mhops(r['peer_hops_per_s'])} | {_mhops(r['rexmit_hops_per_s'])} | {r['peer_packet_hops'] or '–'} | {r['rexmit_packet_hops'] or '–'} |"
        )
    for peer in ("ns-3.44", "ns-2.35"):
        sel = [r for r in rows if r["peer"] == peer]
        if sel:
            loop = statistics.median(r["ratio_loop"] for r in sel)
            proc = statistics.median(r["ratio_process"] for r in sel)
            out += [
                "",
                f"{peer}: median loop ratio {loop:.1f}× (range {min(r['ratio_loop'] for r in sel):.1f}–{max(r['ratio_loop'] for r in sel):.1f}×), median process ratio {proc:.1f}× over {len(sel)} scenarios.",
            ]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="60 s simulated, 3 runs")
    ap.add_argument(
        "--runs",
        type=int,
        default=None,
        help="runs per simulator and scenario (default 5; the whole-process comparison 11)",
    )
    ap.add_argument("--duration", type=float, default=None, help="simulated seconds (default 600)")
    ap.add_argument("--only", default=None, help="only scenarios whose name contains this")
    ap.add_argument("--out", default=str(ROOT / "bench-results"))
    ap.add_argument(
        "--process-durations",
        default=None,
        help="simulated seconds of the whole-process comparison with ns-2, comma-separated (default 10,60,600; --quick 10,60; empty: skip it)",
    )
    ap.add_argument("--process-only", action="store_true", help="only the whole-process comparison")
    args = ap.parse_args(argv)
    runs = args.runs or (3 if args.quick else 5)
    secs = args.duration or (60.0 if args.quick else 600.0)
    import rexmit

    meta = {
        "duration_s": secs,
        "runs": runs,
        "host": f"{platform.machine()} {platform.node()}",
        "python": platform.python_version(),
        "rexmit": rexmit.__version__,
    }
    rows = []
    for name, loss, rate, rate2 in [] if args.process_only else SCENARIOS:
        if args.only and args.only not in name:
            continue
        row = bench_one(name, loss, rate, rate2, secs, runs)
        rows.append(row)
        print(
            f"{name:<22} {loss:<8} peer {row['peer_loop_s']:.4f} s, rexmit {row['rexmit_loop_s']:.4f} s: {row['ratio_loop']:.1f}x (process {row['ratio_process']:.1f}x)",
            file=sys.stderr,
        )
    # Competing flows: at most 100 s simulated (multiflow's own duration), 16 flows included.
    for name in [] if args.process_only else COMPETING:
        if args.only and args.only not in name:
            continue
        row = bench_competing(name, min(secs, 100.0), runs)
        rows.append(row)
        print(
            f"{name:<22} competing peer {row['peer_loop_s']:.4f} s, rexmit {row['rexmit_loop_s']:.4f} s: {row['ratio_loop']:.1f}x (process {row['ratio_process']:.1f}x)",
            file=sys.stderr,
        )
    durations = (
        args.process_durations if args.process_durations is not None else ("10,60" if args.quick else "10,60,600")
    )
    # A short run's two processes differ by 5-10 ms out of 60-100 ms, less than five runs' medians
    # move on a shared machine (a 0.74x that was 1.04x over 11 runs): at least 11 runs unless asked.
    process_runs = args.runs or (3 if args.quick else 11)
    process: list[dict[str, Any]] = []
    if durations.strip():
        compile_rexmit()
    with tempfile.TemporaryDirectory(prefix="rexmit-bench-") as work:
        for secs_p in [float(x) for x in durations.split(",") if x.strip()]:
            for name, loss, rate, rate2 in SCENARIOS:
                if name.startswith("ns2") and not (args.only and args.only not in name):
                    row = bench_process(name, loss, rate, rate2, secs_p, process_runs, Path(work))
                    process.append(row)
                    print(
                        f"{name:<22} {loss:<8} {secs_p:>5g} s whole process: ns-2 {row['peer_process_s']:.3f} s, rexmit run {row['rexmit_process_s']:.3f} s: {row['ratio']:.2f}x",
                        file=sys.stderr,
                    )
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if rows:
        (out / "peers.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=1) + "\n")
        md = "\n".join(markdown(rows, meta)) + "\n"
        (out / "peers.md").write_text(md)
        print(md)
    if process:
        (out / "process.json").write_text(json.dumps({"meta": meta, "rows": process}, indent=1) + "\n")
        md = "\n".join(process_markdown(process, process_runs)) + "\n"
        (out / "process.md").write_text(md)
        print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
