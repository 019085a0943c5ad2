"""Tutorial: your own congestion controller. TCP Vegas in about 50 lines of Python
(examples/plugins/vegas.py), run against the built-in Reno and CUBIC over seed 001's path.

    python examples/plugin_tutorial.py --out results/plugin_tutorial [--rust BIN]

1. examples/plugins/vegas.py defines a class with the controller's events (`on_ack`, the growth;
   `on_congestion_event`, the decrease; the others keep their RFC defaults) and registers it:
   `rexmit.register_cc("vegas_py", Vegas)`. Scenarios then say `tcp = { cc = "vegas_py" }`,
   with `cc_params = { alpha = 2, beta = 4 }` checked against the ranges the class declares.
2. This script runs seed 001's scenario (examples/tcp_seed001.toml: a 4 Mb/s, 50 ms bottleneck
   with burst errors, 60 s) once per controller, sampling the bottleneck queue every 100 ms,
   prints goodput, retransmissions and the queue, and draws goodput and the queue over time in
   DIR/plugin_tutorial.png (.svg). Vegas keeps the queue short: it backs off when it sees its own
   segments queue up, which loss-based Reno and CUBIC do only when the queue overflows.
3. The same controller in Rust is examples/plugin-crate (a crate outside rexmit's workspace,
   docs/plugins.md): `cargo build --release --manifest-path examples/plugin-crate/Cargo.toml`,
   then `--rust target/release/vegas-plugin` runs it on the same scenario and checks that it
   gives the same numbers.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
from pathlib import Path

import rexmit
from rexmit.labels import PALETTE
from rexmit.report import new_figure, save_figure

HERE = Path(__file__).resolve().parent
CONTROLLERS = {"reno": "Reno (built-in)", "cubic": "CUBIC (built-in)", "vegas_py": "Vegas (Python plugin)"}
QUEUE = "queue_packets:G1->G2"


def load_plugin(path: Path) -> None:
    """Import a plugin file: importing it registers its controller."""
    spec = importlib.util.spec_from_file_location(path.stem + "_plugin", path)
    assert spec is not None and spec.loader is not None
    spec.loader.exec_module(importlib.util.module_from_spec(spec))


def scenario(cc: str) -> rexmit.Scenario:
    s = rexmit.Scenario.load(HERE / "tcp_seed001.toml")
    s.set("apps[0].tcp.cc", cc)
    s.data["metrics"] = {"timeseries": [{"kind": "queue_packets", "link": "G1->G2", "interval": "100ms"}]}
    return s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="results/plugin_tutorial", help="output directory")
    parser.add_argument("--rust", help="the plugin crate's binary (examples/plugin-crate) to compare with")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    load_plugin(HERE / "plugins" / "vegas.py")

    results = {cc: rexmit.run(scenario(cc)) for cc in CONTROLLERS}
    print(f"{'controller':<24} {'goodput':>12} {'retransmissions':>16} {'queue mean':>11} {'max':>5}")
    for cc, r in results.items():
        f = r.flow("bulk")
        _, q = r.series[QUEUE]
        print(
            f"{CONTROLLERS[cc]:<24} {f['goodput_bps'] / 1e6:>8.3f} Mb/s {f['retransmissions']:>16.0f} {sum(q) / len(q):>7.1f} pkt {max(q):>5.0f}"
        )

    fig = new_figure(7.0, 6.0)
    top, bottom = fig.subplots(2, 1)
    names = [CONTROLLERS[cc] for cc in results]
    top.bar(names, [r.flow("bulk")["goodput_bps"] / 1e6 for r in results.values()], color=PALETTE[: len(names)])
    top.set_ylabel("Goodput (Mb/s)")
    top.set_title("Seed 001's path, 60 s: goodput and bottleneck queue")
    for (cc, r), colour in zip(results.items(), PALETTE):
        t, q = r.series[QUEUE]
        bottom.plot([x / 1e9 for x in t], q, label=CONTROLLERS[cc], color=colour, linewidth=0.8)
    bottom.set_xlabel("Time (s)")
    bottom.set_ylabel("Queue (packets)")
    bottom.legend(loc="upper right")
    figure = save_figure(fig, out, "plugin_tutorial", "Goodput and queue per controller")
    print(f"figure: {figure.png}")

    if args.rust:
        # The Rust version of the same controller, registered as `vegas_rs` by its crate.
        # (as JSON: this process cannot validate a scenario naming a controller it lacks).
        path = out / "vegas_rs.json"
        path.write_text(scenario("vegas_rs").to_json())
        flows = json.loads(subprocess.run([args.rust, str(path)], check=True, capture_output=True, text=True).stdout)
        python = results["vegas_py"].flow("bulk")
        same = all(flows["bulk"][k] == python[k] for k in flows["bulk"] if k in python and k != "cc")
        print(
            f"Rust plugin (vegas_rs): goodput {flows['bulk']['goodput_bps'] / 1e6:.3f} Mb/s, the same numbers as Python's: {same}"
        )
        if not same:
            raise SystemExit("the Rust and Python Vegas differ")


if __name__ == "__main__":
    main()
