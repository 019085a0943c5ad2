#!/usr/bin/env python3
"""How many fast retransmissions FreeBSD sends per SACK (issue 39, docs/validation_freebsd.md
"FreeBSD's SCTP", `fr_max_burst`).

The same TSNs' first transmissions are dropped in both stacks (a scripted error model on the
bottleneck of validation/usrsctp.py's dumbbell, unlimited send buffer), and the sender's access
link runs at 10 Gb/s, so its queue stays empty and the sender's pcap shows each DATA packet at the
instant the stack decided to send it. Prints, per stack, the retransmissions, the duplicate TSNs
the receiver got, how many TSNs were sent n times, and with --trace the DATA chunks each SACK let
out (TSN#transmission) from the first third transmission on.

    python validation/usrsctp_fr_burst.py alt        # every other TSN of 401..599 lost
    python validation/usrsctp_fr_burst.py burst40 --trace 12
"""

from __future__ import annotations

import argparse
import collections
import sys
import tempfile
from pathlib import Path
from typing import Any

import rexmit

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import usrsctp  # noqa: E402
from usrsctp_dups import sctp_chunks  # noqa: E402

DROPS = {
    "alt": list(range(401, 601, 2)),
    "burst12": list(range(401, 413)),
    "burst40": list(range(401, 441)),
}


def scenario(stack: str, drops: list[int], secs: float) -> rexmit.Scenario:
    s = rexmit.Scenario(stop_time=f"{secs:g}s", seed=1)
    q = {"packets": 833}
    lossy = {
        "rate": "100Mbps",
        "delay": "2ms",
        "queue": q,
        "errors": [{"kind": "scripted", "app": "assoc", "sctp_tsns": drops}],
    }
    access = {"rate": "100Mbps", "delay": "14ms", "queue": q}
    s.dumbbell(lossy, [{"name": "S", **access, "rate": "10Gbps"}], [{"name": "R", **access}])
    sctp = {**usrsctp.BASE, "nr_sack": False, "send_buffer": "1GiB", "recv_buffer": "64MiB"}
    s.app(
        "assoc",
        "sctp_bulk",
        "S",
        "R",
        unordered=True,
        stack=usrsctp.app_stack(stack),
        sctp=usrsctp.sctp_table(sctp, stack),
    )
    for node in ("S", "R"):
        s.pcap(node=node)
    return s


def sends(out: Path) -> tuple[dict[int, list[int]], list[tuple[int, int]]]:
    """Every DATA transmission time per relative TSN at S, and (time, cum ack) of each SACK."""
    tx: dict[int, list[int]] = collections.defaultdict(list)
    acks: list[tuple[int, int]] = []
    base = None
    for t, _src, _, chunks in sctp_chunks(out / "pcap" / "node_S.pcap"):
        for c in chunks:
            if c[0] == "DATA":
                base = c[1] - 1 if base is None else base
                tx[c[1] - base].append(t)
            elif c[0] == "SACK" and base is not None:
                acks.append((t, c[1] - base))
    return tx, acks


def trace(tx: dict[int, list[int]], acks: list[tuple[int, int]], lines: int) -> None:
    ev: list[tuple[int, int, str]] = [(t, 0, f"SACK cum={c}:") for t, c in acks]
    ev += [(t, 1, f" {k}#{i + 1}") for k, v in tx.items() for i, t in enumerate(v)]
    ev.sort()
    start = min((v[2] for v in tx.values() if len(v) > 2), default=None)
    if start is None:
        return
    row: list[str] = []
    for t, kind, text in ev:
        if t < start - 300_000:
            continue
        if kind == 0:
            if row and sum(1 for x in row if "#" in x) > 0:
                print("".join(row))
                lines -= 1
                if lines == 0:
                    return
            row = [f"{t / 1e6:9.3f} ms {text}"]
        else:
            row.append(text)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("drops", choices=sorted(DROPS))
    ap.add_argument("--seconds", type=float, default=8.0)
    ap.add_argument("--trace", type=int, default=0, help="print this many SACKs that let DATA out")
    ns = ap.parse_args(argv)
    for stack in ("usrsctp", "rexmit"):
        with tempfile.TemporaryDirectory() as tmp:
            r = rexmit.run(scenario(stack, DROPS[ns.drops], ns.seconds), out_dir=tmp)
            tx, acks = sends(Path(tmp))
        f: dict[str, Any] = r.flow("assoc")
        hist = collections.Counter(len(v) for v in tx.values() if len(v) > 1)
        print(
            f"{stack:8} {f['retransmissions']:.0f} retransmissions, {f['dup_tsns_received']:.0f} "
            f"duplicate TSNs; TSNs sent n times: {dict(sorted(hist.items()))}"
        )
        if ns.trace:
            trace(tx, acks, ns.trace)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
