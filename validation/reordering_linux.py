"""Linux's adaptive reordering degree against rexmit's (issue 38 §2, docs/validation_linux.md
"Adaptive reordering"): one CUBIC flow through a bottleneck that delays 2 % of packets by an
exponential 5 ms, `profile = "linux"`, RACK off so that the duplicate threshold decides; rexmit
simulated and the kernel through `rexmit.emulate` on the same network. Needs root (network
namespaces).

    python validation/reordering_linux.py [--seeds 1 2] [--no-emulate]
"""

from __future__ import annotations

import argparse
import tempfile

import rexmit

SCENARIO = """seed = {seed}
stop_time = "20s"
[topology]
kind = "chain"
nodes = ["S", "R", "D"]
links = [
  {{ rate = "100Mbps", delay = "1ms" }},
  {{ rate = "10Mbps", delay = "20ms", queue = {{ packets = 200 }}, reorder = {{ probability = 0.02, mean_delay = "5ms" }} }},
]
[[apps]]
name = "f"
kind = "tcp_bulk"
from = "S"
to = "D"
tcp = {{ profile = "linux", cc = "cubic", adaptive_reordering = {adaptive}, rack = false }}
"""
REAL_HOSTS = '[emulation]\nreal_hosts = ["S", "D"]\n'


def row(name: str, seed: int, f: dict) -> str:
    return (
        f"{seed} {name:7} goodput {f['goodput_bps'] / 1e6:.2f} Mb/s, retransmissions "
        f"{f.get('retransmissions')}, reordering {f.get('reordering')}, seen {f.get('reordering_seen')}"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--no-emulate", action="store_true")
    args = ap.parse_args()
    for seed in args.seeds:
        for adaptive in ("false", "true"):
            text = SCENARIO.format(seed=seed, adaptive=adaptive)
            print(row(f"rexmit adaptive={adaptive}", seed, rexmit.run(rexmit.Scenario.from_toml(text)).flow("f")))
        if not args.no_emulate:
            text = SCENARIO.format(seed=seed, adaptive="true") + REAL_HOSTS
            with tempfile.TemporaryDirectory() as d:
                real = rexmit.emulate(rexmit.Scenario.from_toml(text), out_dir=d).flow("f")
            print(row("linux", seed, real))


if __name__ == "__main__":
    main()
