#!/usr/bin/env python3
"""ns-2.35 peer: SCTP with SACKs or NR-SACKs on a lossy dumbbell, and CMT over two lossy paths
(validation/src/ns2_sctp.tcl; seed 000 Figure 5 and Figure 6 shapes, uniform loss instead of
cross-traffic).

Arguments are the Tcl script's key=value pairs (see `opt` there), e.g.
  python validation/ns2_sctp.py topo=dumbbell nrsack=1 rate=0.01 seed=3 duration=60
  python validation/ns2_sctp.py topo=cmt nrsack=1 rate=0.02 rate2=0.001 swnd=131072
ns-2's SCTP exposes timeouts (timeoutCount_) and fast retransmits (frCount_) as variables, but
neither delivered bytes nor retransmitted chunks: those come from a packet trace of the first and
last hop of each path (`Trace set show_sctphdr_ 1` puts the TSN on each DATA line), read here.
Goodput = distinct TSNs that reached R × user bytes per chunk (dataChunkSize_ − 16) × 8 / duration.
notrace=1 skips the trace (for timing the engine alone): then goodput and retransmissions are
absent. Prints one JSON object.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TCL = HERE / "src" / "ns2_sctp.tcl"
DATA_CHUNK_HEADER = 16

# Node ids in creation order (see the Tcl script): first hop (sender side) and last hop per path.
LINKS = {
    "dumbbell": {"send": [("0", "1")], "recv": [("2", "3")]},
    # Sc=0 S0=1 S1=2 Rc=3 D0=4 D1=5 R1=6 R2=7 R3=8 R4=9
    "cmt": {"send": [("1", "6"), ("2", "8")], "recv": [("7", "4"), ("9", "5")]},
}


def main(argv: list[str]) -> int:
    wall0 = time.perf_counter()
    args: dict[str, str] = {}
    for a in argv:
        k, sep, v = a.partition("=")
        if not sep:
            sys.exit(f"argument without '=': {a}")
        args[k.lstrip("-")] = v
    topo = args.get("topo", "dumbbell")
    links = LINKS[topo]
    if args.pop("notrace", "0") not in ("0", "", "false"):
        out = subprocess.run(
            ["ns", str(TCL), *[f"{k}={v}" for k, v in args.items()]], check=True, capture_output=True, text=True
        )
        res = json.loads(out.stdout.strip().splitlines()[-1])
        res["wall_total_s"] = round(time.perf_counter() - wall0, 6)
        print(json.dumps(res))
        return 0
    with tempfile.TemporaryDirectory() as d:
        tr = Path(d) / "sctp.tr"
        out = subprocess.run(
            ["ns", str(TCL), *[f"{k}={v}" for k, v in args.items()], f"trace={tr}"],
            check=True,
            capture_output=True,
            text=True,
        )
        res = json.loads(out.stdout.strip().splitlines()[-1])
        delivered: set[int] = set()
        per_path_rx = [0] * len(links["recv"])
        sent_tsns: set[int] = set()
        per_path_tx = [0] * len(links["send"])
        per_path_rtx = [0] * len(links["send"])
        rtx = 0
        with open(tr) as f:
            for line in f:
                p = line.split()
                if len(p) < 12 or p[4] != "sctp" or not p[6].endswith("D"):
                    continue
                hop = (p[2], p[3])
                tsn = int(p[11])
                if p[0] == "r" and hop in links["recv"]:
                    if tsn not in delivered:
                        delivered.add(tsn)
                        per_path_rx[links["recv"].index(hop)] += 1
                elif p[0] == "+" and hop in links["send"]:
                    i = links["send"].index(hop)
                    per_path_tx[i] += 1
                    if tsn in sent_tsns:
                        rtx += 1
                        per_path_rtx[i] += 1
                    else:
                        sent_tsns.add(tsn)
    user = int(args.get("chunk", "1468")) - DATA_CHUNK_HEADER
    duration = float(res["duration_s"])
    res.update(
        goodput_bps=round(len(delivered) * user * 8 / duration, 1),
        rx_bytes=len(delivered) * user,
        data_chunks_sent=sum(per_path_tx),
        retransmissions=rtx,
        per_path={"data_chunks_sent": per_path_tx, "retransmissions": per_path_rtx, "new_tsns_delivered": per_path_rx},
        wall_total_s=round(time.perf_counter() - wall0, 6),
    )
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
