#!/usr/bin/env python3
"""How far above the cumulative ack a receiver holds TSNs (issue 39, docs/validation_freebsd.md
"FreeBSD's SCTP": FreeBSD's mapping array of 4096 TSNs, `tsn_map_window`).

Runs one CMT point of validation/usrsctp_seed000.py (Fig. 6's dual dumbbell) with a pcap at
the receiver R and prints, over every SACK R sends, the largest gap-block end (the highest TSN
reported above the cumulative ack) and how many SACKs report one 4000 or more above it.

    python validation/usrsctp_tsn_span.py low SACK usrsctp 1
    python validation/usrsctp_tsn_span.py low SACK rexmit-freebsd 1
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import rexmit

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import usrsctp_seed000  # noqa: E402
from usrsctp_dups import sctp_chunks  # noqa: E402


def main(argv: list[str]) -> int:
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    load, ack, stack, seed = argv[0], argv[1], argv[2], int(argv[3])
    s = rexmit.Scenario.from_dict(usrsctp_seed000.build("cmt", load, "INF", ack, stack, seed))
    s.pcap(node="R")
    with tempfile.TemporaryDirectory() as tmp:
        r = rexmit.run(s, out_dir=tmp)
        spans = [
            max((end for _, end in c[2]), default=0)
            for _, _, _, chunks in sctp_chunks(Path(tmp) / "pcap" / "node_R.pcap")
            for c in chunks
            if c[0] == "SACK"
        ]
    f = r.flow(usrsctp_seed000.setup.SCTP_APP)
    print(
        f"{stack}: {f['goodput_bps'] / 1e6:.2f} Mb/s; highest TSN above the cumulative ack in R's SACKs: "
        f"{max(spans)}; SACKs at 4000 or more: {sum(s >= 4000 for s in spans)} of {len(spans)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
