"""Cache misses per packet hop after the start-up (issue 18, docs/validation_speed.md "Session 12"):
runs the benchmark's TCP dumbbell of FLOWS flows to T1 and to T2 seconds under callgrind with
its cache simulation (this CPU's L1d and L2 by default), and prints per function what the
second run spent beyond the first, per hop of the difference. The simulation is deterministic,
so the shorter run is the longer one's first part, and the difference is the interval alone.
Needs valgrind.

    usage: python3 scripts/cache_profile.py [FLOWS] [T1] [T2] [--top N] [--l1 BYTES] [--l2 BYTES]
    e.g.   python3 scripts/cache_profile.py 10000 2.5 4.5     (about a minute)
    --json FILE also writes the totals per hop (read by validation/bench_targets.py, `make bench`);
    --by instructions lists the functions by instructions per hop instead of misses.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "target" / "release" / "examples"
#: Callgrind's event columns with --cache-sim=yes, in its order.
EVENTS = ["Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw"]


def per_function(annotated: str) -> dict[str, list[int]]:
    """Self cost per function from `callgrind_annotate --auto=no --inclusive=no` output."""
    out: dict[str, list[int]] = {}
    started = False
    for line in annotated.splitlines():
        if "file:function" in line:
            started = True
            continue
        if not started or not line.strip() or line.startswith("-"):
            continue
        parts, values, i = line.split(), [], 0
        while len(values) < len(EVENTS) and i < len(parts):
            p = parts[i]
            if p == ".":
                values.append(0)
                i += 1
            elif re.fullmatch(r"[\d,]+", p):
                values.append(int(p.replace(",", "")))
                i += 1
                # A percentage may follow a count: "(12.3%)", or "( 1.2%)" in two tokens.
                if i < len(parts) and parts[i].startswith("("):
                    while not parts[i].endswith("%)"):
                        i += 1
                    i += 1
            else:
                break
        if len(values) == len(EVENTS):
            name = re.sub(r" \[.*\]$", "", " ".join(parts[i:]))
            name = re.sub(r"/rustc/[0-9a-f]+/library/", "", name).replace(str(ROOT / "crates") + "/", "")
            acc = out.setdefault(name, [0] * len(EVENTS))
            for k, v in enumerate(values):
                acc[k] += v
    return out


def hops_of(log: str) -> int:
    m = re.search(r"hops (\d+)", log)
    if not m:
        raise SystemExit(f"no hop count in the run's output:\n{log}")
    return int(m.group(1))


def profile(scenario: Path, out: Path, l1: int, l2: int, binary: Path) -> tuple[dict[str, list[int]], int]:
    run = subprocess.run(
        [
            "valgrind",
            "--tool=callgrind",
            "--cache-sim=yes",
            f"--D1={l1},12,64",
            f"--LL={l2},16,64",
            # The whole process: with fat LTO (session 15) the loop is inlined into `main`, so a
            # `--toggle-collect` on the scheduler's `run` collected nothing (0 instructions per
            # hop). The set-up is the same in both runs and cancels in their difference.
            f"--callgrind-out-file={out}",
            str(binary),
            str(scenario),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    annotated = subprocess.run(
        ["callgrind_annotate", "--auto=no", "--inclusive=no", "--threshold=100", str(out)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return per_function(annotated), hops_of(run.stderr)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("flows", nargs="?", type=int, default=10_000)
    ap.add_argument("t1", nargs="?", type=float, default=2.5)
    ap.add_argument("t2", nargs="?", type=float, default=4.5)
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--l1", type=int, default=48 * 1024, help="L1 data cache bytes (default 48 KiB)")
    ap.add_argument(
        "--l2",
        type=int,
        default=2 * 1024 * 1024,
        help="cache simulated as the last level, bytes (default this CPU's 2 MiB L2)",
    )
    ap.add_argument("--json", metavar="FILE", help="also write the totals per hop to FILE")
    ap.add_argument(
        "--binary",
        type=Path,
        default=EXAMPLES / "profile_scenario",
        help="the profile_scenario to run (default this tree's; e.g. scripts/witness.sh's build of an older commit, "
        "target/witness-rev/release/examples/profile_scenario, for a before/after pair)",
    )
    ap.add_argument(
        "--by", choices=("misses", "instructions"), default="misses", help="order of the function list (default misses)"
    )
    args = ap.parse_args(argv)
    if not 0 < args.t1 < args.t2:
        ap.error(f"T1 {args.t1} and T2 {args.t2}: need 0 < T1 < T2")
    subprocess.run(["cargo", "build", "-q", "--release", "-p", "rexmit-bench", "--examples"], cwd=ROOT, check=True)
    with tempfile.TemporaryDirectory(prefix="rexmit-cache-") as tmp:
        runs = []
        for t in (args.t1, args.t2):
            toml = Path(tmp) / f"run_{t:g}.toml"
            toml.write_text(
                subprocess.run(
                    [str(EXAMPLES / "scaling_toml"), str(args.flows), f"{t:g}"],
                    capture_output=True,
                    text=True,
                    check=True,
                ).stdout
            )
            runs.append(profile(toml, Path(tmp) / f"cg_{t:g}", args.l1, args.l2, args.binary))
    (a, hops_a), (b, hops_b) = runs
    hops = hops_b - hops_a
    if hops <= 0:
        raise SystemExit(f"no hops between {args.t1} and {args.t2} s")
    rows = []
    for name in set(a) | set(b):
        va, vb = a.get(name, [0] * len(EVENTS)), b.get(name, [0] * len(EVENTS))
        rows.append((name, [(y - x) / hops for x, y in zip(va, vb)]))
    col = {e: i for i, e in enumerate(EVENTS)}
    total = [sum(r[1][k] for r in rows) for k in range(len(EVENTS))]
    print(
        f"{args.flows} flows, {args.t1:g} -> {args.t2:g} s: {hops} hops; per hop: {total[col['Ir']]:.0f} instructions, "
        f"{total[col['D1mr']]:.1f} L1 read misses, {total[col['DLmr']] + total[col['DLmw']]:.1f} last-level misses (L1 {args.l1} B, last level {args.l2} B)"
    )
    if args.json:
        totals = {
            "flows": args.flows,
            "t1_s": args.t1,
            "t2_s": args.t2,
            "hops": hops,
            "instructions_per_hop": total[col["Ir"]],
            "l1_read_misses_per_hop": total[col["D1mr"]],
            "last_level_misses_per_hop": total[col["DLmr"]] + total[col["DLmw"]],
            "l1_bytes": args.l1,
            "last_level_bytes": args.l2,
        }
        Path(args.json).write_text(json.dumps(totals, indent=1) + "\n")
    if args.by == "instructions":
        rows.sort(key=lambda r: -r[1][col["Ir"]])
    else:
        rows.sort(key=lambda r: -(r[1][col["DLmr"]] + r[1][col["DLmw"]]))
    print(f"{'LL miss':>8} {'Ir':>8} {'D1mr':>6}  function (per hop)")
    for name, v in rows[: args.top]:
        print(f"{v[col['DLmr']] + v[col['DLmw']]:8.2f} {v[col['Ir']]:8.1f} {v[col['D1mr']]:6.2f}  {name[:150]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
