#!/usr/bin/env python3
"""The sender's access queue in seed 000's SCTP runs (issue 39, docs/validation_freebsd_seed000.md:
the 1-in-10 overflow of the spot check).

Runs usrsctp_seed000.py's SCTP point (Fig. 5's dumbbell, INF buffer) for each stack and
replication with the queue of S's access link (S->R1, 833 packets, 100 Mb/s) sampled every
100 µs, and prints per run: the retransmissions, the queue's maximum and when, the milliseconds
it held 500 packets or more, its overflow drops, and the largest rises between two samples (the
packets one input and the writes at its instant put in at once, less the one or two that left);
then per stack the mean and median of goodput, retransmissions and duplicate TSNs.

    python validation/usrsctp_access_queue.py --seeds 1-10
    python validation/usrsctp_access_queue.py --stacks usrsctp --seeds 8 --load low --ack SACK
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import rexmit

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import usrsctp_seed000  # noqa: E402
from usrsctp_dups import seeds  # noqa: E402

LINK = "S->R1"
SAMPLE_S = 1e-4


def queue_run(stack: str, seed: int, load: str, ack: str) -> tuple[str, dict[str, float]]:
    data = usrsctp_seed000.build("sctp", load, "INF", ack, stack, seed)
    s = rexmit.Scenario.from_dict(data)
    s.timeseries("queue_packets", f"{SAMPLE_S * 1e6:g}us", link=LINK)
    r = rexmit.run(s)
    t, v = next(series for key, series in r.series.items() if LINK in key)
    samples = [(ti, x) for ti, x in zip(t, v, strict=True) if x == x]
    top_t, top = max(samples, key=lambda p: p[1])
    rises = sorted(
        ((b[1] - a[1], b[0]) for a, b in zip(samples, samples[1:], strict=False)),
        reverse=True,
    )[:3]
    high_ms = sum(1 for _, x in samples if x >= 500) * SAMPLE_S * 1e3
    f = r.flow(usrsctp_seed000.setup.SCTP_APP)
    line = (
        f"{stack:15} seed {seed:2}: {f['goodput_bps'] / 1e6:5.2f} Mb/s, {f['dup_tsns_received']:4.0f} dups, "
        f"{f['retransmissions']:5.0f} retransmissions, queue max "
        f"{top:4.0f} at {top_t / 1e9:6.3f} s, {high_ms:5.1f} ms at >= 500, "
        f"{r.link(LINK)['drop_overflow']:4.0f} drops; largest rises "
        + ", ".join(f"{d:.0f} at {tt / 1e9:.4f} s" for d, tt in rises)
    )
    keys = ("goodput_bps", "retransmissions", "dup_tsns_received")
    return line, {k: f[k] for k in keys}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--stacks", default="rexmit-freebsd,usrsctp", help="of usrsctp_seed000.STACKS")
    ap.add_argument("--seeds", default="1-10", help="one replication or a range, e.g. 1-10")
    ap.add_argument("--load", default="low", choices=usrsctp_seed000.LOADS)
    ap.add_argument("--ack", default="SACK", choices=usrsctp_seed000.ACKS)
    ns = ap.parse_args(argv)
    for stack in ns.stacks.split(","):
        if stack not in usrsctp_seed000.STACKS:
            ap.error(f"--stacks: {stack!r} is not one of {', '.join(usrsctp_seed000.STACKS)}")
        runs = []
        for seed in seeds(ns.seeds):
            line, metrics = queue_run(stack, seed, ns.load, ns.ack)
            print(line, flush=True)
            runs.append(metrics)
        summary = ", ".join(
            f"{k} mean {statistics.mean(v):.2f} median {statistics.median(v):.2f}"
            for k, v in ((k, [m[k] / (1e6 if k == "goodput_bps" else 1) for m in runs]) for k in runs[0])
        )
        print(f"{stack}: {summary}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
