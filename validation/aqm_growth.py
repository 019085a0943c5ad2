#!/usr/bin/env python3
"""How fast rexmit's CUBIC flows grow before a CoDel drop, and what a TCP option does to the
class goodput (docs/validation_queues.md, "Active queues against ns-3.44", FQ-CoDel CUBIC 4).

    python validation/aqm_growth.py ns3-fq_codel-cubic-4 --seed 1 [--tcp cubic_alpha_switch=false]
    python validation/aqm_growth.py ns3-fq_codel-cubic-4 --seeds 30 --tcp cubic_alpha_switch=false

`--seed N`: per flow, over its first drops from START (none in the 200 ms before), split by
whether CoDel dropped again within 200 ms (its control law's second drop): the cwnd at the drop
(state trace) and how much cwnd grew over the 0.5 s before it, in segments per 80 ms.
`--seeds N`: rexmit over seeds 1..N with the options (not saved), each class's goodput per flow
beside the saved ns-3 aligned and rexmit runs of as many seeds (`aqm.py run ... --tag -N`).
"""

from __future__ import annotations

import argparse
import bisect
import json
import statistics
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import aqm  # noqa: E402
import aqm_cycles  # noqa: E402
import aqm_flows  # noqa: E402
import multiflow  # noqa: E402
from compare import ci95  # noqa: E402

MSS = 1448
BEFORE_S = 0.5
PER_S = 0.08  # growth is reported per 80 ms, the long class's base RTT


def growth(sc: multiflow.MultiScenario, seed: int, start: float, tcp: dict[str, Any]) -> list[str]:
    from rexmit.plot import load_trace

    res, _, drops = aqm_flows.rexmit_waits(sc, seed, tcp, {}, traced=True)
    lines = []
    for i, a in enumerate(sorted(drops)):
        st = load_trace(res, f"f{i}").state
        t = [float(x) for x in st["t"]]
        cwnd = [c / MSS for c in st["cwnd"]]
        d = [x * 1e-9 for x in drops[a] if x is not None and x >= start * 1e9]
        firsts = []
        for x, second in aqm_cycles.first_drops(d):
            now, then = bisect.bisect_right(t, x) - 1, bisect.bisect_right(t, x - BEFORE_S) - 1
            firsts.append((second, cwnd[now], (cwnd[now] - cwnd[then]) / BEFORE_S * PER_S))
        for second in (True, False):
            rows = [r for r in firsts if r[0] == second]
            if rows:
                lines.append(
                    f"flow {i} ({sc.rtts_ms[i]:g} ms), first drops {'with' if second else 'without'} a second:"
                    f" {len(rows)}, cwnd at the drop {statistics.fmean(r[1] for r in rows):.1f},"
                    f" growth over the {BEFORE_S:g} s before {statistics.fmean(r[2] for r in rows):.2f}"
                    f" segments per 80 ms [{' '.join(f'{r[2]:.2f}' for r in rows)}]"
                )
    return lines


def goodputs(sc: multiflow.MultiScenario, seeds: int, tcp: dict[str, Any]) -> list[str]:
    def line(name: str, s: dict[str, Any]) -> str:
        return f"{name}: " + " / ".join(
            f"{c['rtt_ms']:g} ms {c['goodput_bps'] / 1e6:.2f} ± {c['goodput_ci'] / 1e6:.2f}" for c in s["flows"]
        )

    runs = [multiflow.run_rexmit(sc, s, tcp) for s in range(1, seeds + 1)]
    out = [line(f"rexmit {json.dumps(tcp)}, seeds 1-{seeds}", multiflow.summarize(sc, runs))]
    for side in ("peer-prr-rfc", "rexmit"):
        for tag in (f"-{seeds}", ""):
            path = aqm.saved(sc.name, side + tag)
            if path.exists() and json.loads(path.read_text())["summary"]["seeds"] == seeds:
                out.append(line(f"saved {path.name}", json.loads(path.read_text())["summary"]))
                break
    q = [r["aqm"]["queue_delay_mean_s"] * 1e3 for r in runs]
    out.append(f"rexmit queue delay mean {statistics.fmean(q):.2f} ± {ci95(q):.2f} ms")
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("scenario", choices=sorted(aqm.SCENARIOS))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seeds", type=int, help="class goodputs over seeds 1..SEEDS instead")
    ap.add_argument("--from", dest="start", type=float, default=10.0)
    ap.add_argument("--tcp", action="append", default=[], help="a rexmit TCP option, KEY=JSON")
    ns = ap.parse_args(argv)
    sc = aqm.SCENARIOS[ns.scenario]
    tcp = {
        **aqm.REXMIT_TCP.get(sc.variants[0], {}),
        **{k: json.loads(v) for k, v in (kv.split("=", 1) for kv in ns.tcp)},
    }
    out = goodputs(sc, ns.seeds, tcp) if ns.seeds else growth(sc, ns.seed, ns.start, tcp)
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
