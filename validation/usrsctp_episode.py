#!/usr/bin/env python3
"""The first loss episode of a seed 000 SCTP run, in both FreeBSD stacks (issue 39,
docs/validation_freebsd_seed000.md: which runs cascade).

Runs usrsctp_seed000.py's SCTP point (Fig. 5's dumbbell, INF buffer) for one replication with
rexmit (FreeBSD's choices) and with usrsctp, pcaps at S and R, and prints for the TSNs first
sent in a time window and sent again: how many, their retransmissions, how many were sent n
times, the lowest one's transmissions and arrivals at R, and for the TSNs sent exactly twice
how often the cumulative ack advanced between their retransmission and the SACK covering it
(FreeBSD's in-recovery strike needs three advances to mark a chunk again). TSNs are relative
to each stack's first.

    python validation/usrsctp_episode.py 3               # replication 3, TSNs first sent 18-19.8 s
    python validation/usrsctp_episode.py 8 --window 18-19.6
"""

from __future__ import annotations

import argparse
import collections
import sys
import tempfile
from pathlib import Path

import rexmit

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import usrsctp_seed000  # noqa: E402
from usrsctp_dups import after, covers, transfer_view  # noqa: E402


def episode(out: Path, t0: float, t1: float) -> str:
    sent, arrived, sacks = transfer_view(out)
    base = min(sent) - 1
    lost = sorted(k for k, v in sent.items() if len(v) > 1 and t0 <= v[0] / 1e9 < t1)
    if not lost:
        return "no TSN first sent in the window was sent again"
    times = collections.Counter(len(sent[k]) for k in lost)
    advances: collections.Counter[int] = collections.Counter()
    for k in (k for k in lost if len(sent[k]) == 2):
        rtx, prev, n = sent[k][1], None, 0
        for t, s in sacks:
            if t <= rtx:
                prev = s[1]
                continue
            if covers(s, k):
                break
            n += prev is not None and after(s[1], prev)
            prev = s[1]
        advances[min(n, 3)] += 1
    low = lost[0]

    def secs(v: list[int]) -> str:
        return ", ".join(f"{x / 1e9:.4f}" for x in v)

    return (
        f"{len(lost)} TSNs sent again, {sum(len(sent[k]) - 1 for k in lost)} retransmissions; "
        f"sent n times: {dict(sorted(times.items()))}\n"
        f"    lowest, TSN {low - base}: sent at {secs(sent[low])} s, arrived at {secs(arrived[low])} s\n"
        f"    sent twice, cumulative-ack advances between the retransmission and its SACK "
        f"(3 = three or more): {dict(sorted(advances.items()))}"
    )


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("seed", type=int, help="the replication")
    ap.add_argument("--window", default="18-19.8", help="first transmissions from-to, in seconds")
    ns = ap.parse_args(argv)
    t0, _, t1 = ns.window.partition("-")
    for stack in ("rexmit-freebsd", "usrsctp"):
        data = usrsctp_seed000.build("sctp", "low", "INF", "SACK", stack, ns.seed)
        s = rexmit.Scenario.from_dict(data)
        for node in ("S", "R"):
            s.pcap(node=node)
        with tempfile.TemporaryDirectory() as tmp:
            r = rexmit.run(s, out_dir=tmp)
            text = episode(Path(tmp), float(t0), float(t1))
        f = r.flow(usrsctp_seed000.setup.SCTP_APP)
        print(f"{stack} (run: {f['retransmissions']:.0f} retransmissions): {text}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
