"""Tutorial: which TCP variant copes best with random loss? Seed 001's comparison in miniature.

    python examples/tcp_variants_vs_loss.py --out results/tcp_variants

Runs Tahoe, Reno, NewReno, SACK and Westwood+ over seed 001's path (examples/tcp_seed001.toml:
10 Mb/s access links, a 4 Mb/s bottleneck of 50 ms) at three uniform packet loss rates, four
15 s runs each (about 15 s on 2 cores), then prints the mean goodput per variant and writes
DIR/report.html with the figure DIR/figures/flow.bulk.goodput_bps_vs_*.png. The full
reproduction with the paper's numbers is `rexmit reproduce tcp-sack`.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import rexmit
from rexmit.report import report
from rexmit.sweep import Sweep, run_sweep

# (loss recovery, congestion control) of each variant; Westwood+ runs on NewReno's recovery.
VARIANTS = {
    "Tahoe": ("tahoe", "reno"),
    "Reno": ("reno", "reno"),
    "NewReno": ("newreno", "reno"),
    "SACK": ("sack", "reno"),
    "Westwood+": ("newreno", "westwood"),
}
LOSS = "topology.links[1].errors[0].rate"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="results/tcp_variants", help="sweep directory")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    args = parser.parse_args()

    # 1. The base scenario: seed 001's path, shortened to 15 s, with uniform (not bursty) loss.
    base = rexmit.Scenario.load(Path(__file__).with_name("tcp_seed001.toml"))
    base.set("stop_time", "15s")
    base.set("topology.links[1].errors", [{"kind": "uniform", "rate": 1e-3, "direction": "forward"}])

    # 2. The sweep: every loss rate (grid) x every variant (zip: recovery and cc move together),
    #    4 runs per point on independent seeds. [labels] names the axes and the legend.
    sweep = Sweep(
        base=base,
        grid={LOSS: [1e-4, 1e-3, 1e-2]},
        zip={
            "apps[0].tcp.recovery": [r for r, _ in VARIANTS.values()],
            "apps[0].tcp.cc": [c for _, c in VARIANTS.values()],
        },
        replications=4,
        name="TCP variants vs packet loss",
        report={"x": LOSS, "metrics": ["flow.bulk.goodput_bps", "flow.bulk.retransmissions"]},
        labels={"flow.bulk.goodput_bps": {"name": "Goodput", "unit": "Mb/s"}, "zip": list(VARIANTS)},
    )
    result = run_sweep(sweep, args.out, jobs=args.jobs, progress=False)

    # 3. The numbers: one row per point with the mean over the runs (pyarrow; .to_pandas() works too).
    print(f"{'packet loss':>12} " + " ".join(f"{name:>10}" for name in VARIANTS))
    rows = result.summary().to_pylist()
    for loss in sweep.grid[LOSS]:
        goodput = {
            (r["param.apps[0].tcp.recovery"], r["param.apps[0].tcp.cc"]): r["flow.bulk.goodput_bps.mean"]
            for r in rows
            if r[f"param.{LOSS}"] == loss
        }
        print(f"{loss:>12g} " + " ".join(f"{goodput[v] / 1e6:>10.2f}" for v in VARIANTS.values()) + "  Mb/s")

    # 4. The figure and the report page.
    page = report(args.out)
    print(f"report: {page}")


if __name__ == "__main__":
    main()
