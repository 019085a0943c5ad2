"""Tutorial: how long do a thin stream's messages wait when packets are lost? The latency CDF of
seed 004's thin stream, with and without the paper's modifications.

    python examples/thin_stream_latency_cdf.py --out results/thin_cdf

Runs examples/thin_stream.toml (4 messages of 100 B per second, RTT 100 ms, 5% loss) for 5
simulated minutes with a second, identical stream that uses all of seed 004's modifications
(`thin = { all = true }`: linear timeouts, RTO.min 200 ms, fast retransmit on the first
indication, timer restart correction), about 2 s. Reads every delivered message from the run
(`messages` table), prints the median and 99th percentile latency of each stream, and draws
their latency CDFs in DIR/latency_cdf.png and .svg. Latency per retransmission count, as the
paper reports it: `rexmit reproduce thin-streams`.
"""

from __future__ import annotations

import argparse
import copy
from pathlib import Path

import rexmit
from rexmit.labels import PALETTE
from rexmit.report import new_figure, save_figure

NAMES = {"thin": "lksctp (default SCTP)", "thin_mods": "all modifications"}


def percentile(sorted_values: list[float], q: float) -> float:
    """The q-quantile (nearest rank) of sorted values."""
    return sorted_values[min(len(sorted_values) - 1, max(0, round(q * len(sorted_values)) - 1))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="results/thin_cdf", help="output directory")
    args = parser.parse_args()
    out = Path(args.out)

    # 1. The scenario: the example's thin stream, and a copy of it with the modifications.
    s = rexmit.Scenario.load(Path(__file__).with_name("thin_stream.toml"))
    s.set("stop_time", "300s")
    modified = copy.deepcopy(s.data["apps"][0])
    modified["name"] = "thin_mods"
    modified["sctp"] = {**modified.get("sctp", {}), "thin": {"all": True}}
    s.data["apps"].append(modified)

    # 2. Run it, writing the usual result files (messages.parquet has every delivered message).
    res = rexmit.run(s, out_dir=out)

    # 3. Latency of every message, per stream (the table is pyarrow; .to_pandas() works too).
    fig = new_figure(6.4, 4.0)
    ax = fig.add_subplot()
    for colour, (flow, name) in zip(PALETTE, NAMES.items()):
        latency_ms = sorted(x * 1e3 for x in res.table("messages", flow=flow).column("latency_s").to_pylist())
        n = len(latency_ms)
        print(
            f"{name:>22}: {n} messages, median {percentile(latency_ms, 0.5):.0f} ms, 99th percentile {percentile(latency_ms, 0.99):.0f} ms, max {latency_ms[-1]:.0f} ms"
        )
        ax.step(latency_ms, [(i + 1) / n for i in range(n)], where="post", color=colour, label=name)

    # 4. The CDF: most messages arrive in about half an RTT; the tail is the retransmitted ones.
    ax.set_xscale("log")
    ax.set_xlabel("Message latency (ms)")
    ax.set_ylabel("Fraction of messages")
    ax.set_title("Thin stream, RTT 100 ms, 5% loss: latency CDF")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    figure = save_figure(fig, out, "latency_cdf", "Latency CDF of the thin streams")
    print(f"figure: {figure.png}")


if __name__ == "__main__":
    main()
