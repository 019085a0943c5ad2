"""The cost of a congestion controller written in Python (issue 36 item 5): seed 001's scenario
run with the built-in `reno` and with examples/plugins/reno.py (the same controller, byte for
byte), alternating, median wall time of each; the extra time divided by the calls the run made
into Python is the cost per event. Part of `make bench`; writes bench-results/plugins.json.

    python validation/bench_plugins.py [--quick] [--out DIR]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import time
from pathlib import Path

import rexmit
from rexmit import _core

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", default="bench-results")
    args = ap.parse_args()
    spec = importlib.util.spec_from_file_location("reno_plugin_bench", ROOT / "examples" / "plugins" / "reno.py")
    assert spec and spec.loader
    spec.loader.exec_module(importlib.util.module_from_spec(spec))
    stop, reps = ("60s", 3) if args.quick else ("600s", 7)
    base = rexmit.Scenario.load(ROOT / "examples" / "tcp_seed001.toml")
    base.set("stop_time", stop)
    walls: dict[str, list[float]] = {"reno": [], "reno_py": []}
    calls = 0
    results = {}
    for _ in range(reps):
        for cc in walls:
            s = base.copy()
            s.set("apps[0].tcp.cc", cc)
            before = _core.plugin_calls()
            t = time.perf_counter()
            r = rexmit.run(s)
            walls[cc].append(time.perf_counter() - t)
            if cc == "reno_py":
                calls = _core.plugin_calls() - before
            flow = dict(r.flow("bulk"))
            flow.pop("cc", None)
            results[cc] = flow
    assert results["reno"] == results["reno_py"], "the Python reno must match the built-in"
    builtin = statistics.median(walls["reno"])
    python = statistics.median(walls["reno_py"])
    per_call_ns = (python - builtin) / calls * 1e9 if calls else float("nan")
    out = {
        "scenario": f"examples/tcp_seed001.toml, stop_time {stop}",
        "repetitions": reps,
        "builtin_wall_s": round(builtin, 6),
        "python_wall_s": round(python, 6),
        "slowdown": round(python / builtin, 3),
        "python_calls": calls,
        "ns_per_python_event": round(per_call_ns, 1),
        "target_ns_per_event": 1000,
        "met": per_call_ns <= 1000,
    }
    print(
        f"Python controller (examples/plugins/reno.py) vs built-in reno, seed 001 {stop}, median of {reps}: "
        f"built-in {builtin:.4f} s, Python {python:.4f} s ({out['slowdown']}x), {calls} calls into Python, "
        f"{per_call_ns:.0f} ns per event (target <= 1000 ns: {'met' if out['met'] else 'NOT met'})"
    )
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "plugins.json").write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
