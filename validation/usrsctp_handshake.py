#!/usr/bin/env python3
"""The handshake of one seed 000 SCTP run at heavy load, packet by packet (issue 39's tenth
pass, docs/validation_freebsd_seed000.md: replications 4 and 9).

Runs usrsctp_seed000.py's SCTP point (Fig. 5's dumbbell, INF buffer, SACK) for one replication,
pcaps at S and R, and prints every SCTP packet at S and at R up to ``until`` seconds (its chunks:
INIT, INIT-ACK, COOKIE-ECHO, COOKIE-ACK, DATA with its TSN, SACK with its cumulative ack), then
the sender's SRTT and RTO (``srtt_primary_s``, ``rto_primary_s``, sampled every 10 ms) each time
they change.

    python validation/usrsctp_handshake.py 9 50.4          # usrsctp, replication 9
    python validation/usrsctp_handshake.py 4 22 --stack rexmit-freebsd
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

import rexmit

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import usrsctp_seed000  # noqa: E402
from usrsctp_dups import sctp_chunks  # noqa: E402


def label(c: tuple[Any, ...]) -> str:
    """A chunk of `sctp_chunks` as printed: DATA with its TSN, SACK with its cumulative ack."""
    if c[0] == "DATA":
        return f"DATA {c[1]}"
    if c[0] == "SACK":
        return f"SACK cum {c[1]}"
    return c[0]


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("seed", type=int, help="the replication")
    ap.add_argument("until", type=float, help="last instant to print, seconds")
    ap.add_argument("--stack", default="usrsctp", choices=("usrsctp", "rexmit-freebsd", "rexmit"))
    ns = ap.parse_args(argv)
    data = usrsctp_seed000.build("sctp", "heavy", "INF", "SACK", ns.stack, ns.seed)
    app = usrsctp_seed000.setup.SCTP_APP
    probes = ("srtt_primary_s", "rto_primary_s") if ns.stack == "usrsctp" else ("cwnd_primary",)
    data["metrics"] = {"timeseries": [{"kind": "app", "app": app, "value": v, "interval": "10ms"} for v in probes]}
    s = rexmit.Scenario.from_dict(data)
    for node in ("S", "R"):
        s.pcap(node=node)
    with tempfile.TemporaryDirectory() as tmp:
        r = rexmit.run(s, out_dir=tmp)
        for node in ("S", "R"):
            print(f"== at {node}")
            for t, src, _, chunks in sctp_chunks(Path(tmp) / "pcap" / f"node_{node}.pcap", others=True):
                if t / 1e9 > ns.until:
                    break
                cs = [label(c) for c in chunks]
                print(f"{t / 1e9:.4f} {src} {' '.join(cs[:6])}{' ...' if len(cs) > 6 else ''}")
    if ns.stack == "usrsctp":
        t, srtt = r.series[f"{app}:srtt_primary_s"]
        _, rto = r.series[f"{app}:rto_primary_s"]
        last = None
        for ti, x, y in zip(t, srtt, rto, strict=True):
            if ti / 1e9 > ns.until + 0.5:
                break
            if x == x and (x, y) != last:
                print(f"  {ti / 1e9:.2f} s: SRTT {x:.3f} s, RTO {y:.3f} s")
                last = (x, y)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
