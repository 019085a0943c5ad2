#!/usr/bin/env python3
"""ns-3.44 peer: competing TCP flows on one bottleneck (validation/src/ns3_tcp_multi.cc).

Compiled against the venv's PyPI `ns3` wheel on first use (validation/build/), like ns3_tcp.py.
Every option is passed through, e.g.
  python validation/ns3_multi.py --ccs=newreno,cubic --delaysNs=11000000,30000000 --starts=0,0.5
Prints one JSON object.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import ns3_tcp  # noqa: E402

SRC = HERE / "src" / "ns3_tcp_multi.cc"
BIN = HERE / "build" / "ns3-tcp-multi"
HEADERS = [
    "ns3_tcp_defaults.h",
    "ns3_prr_variants.h",
    "ns3_newreno_variants.h",
    "ns3_rtt_sample_variants.h",
    "ns3_hystart_trace.h",
    "ns3_aqm.h",
]


def build() -> Path:
    return ns3_tcp.build(SRC, [HERE / "src" / h for h in HEADERS], BIN)


def main(argv: list[str]) -> int:
    return subprocess.run([str(build()), *argv]).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
