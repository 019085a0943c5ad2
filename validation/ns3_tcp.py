#!/usr/bin/env python3
"""ns-3.44 peer: one TCP bulk flow on the seed 001 Table 1 path (validation/src/ns3_tcp_single.cc).

Compiles the C++ scenario against the PyPI `ns3` wheel of the venv on first use (cached in
validation/build/), runs it and prints its one JSON object. Every ns-3 option is passed through:
  python validation/ns3_tcp.py --seed=1 --duration=60 --cc=newreno --sack=1 --recovery=prr \
      --loss=burst --rate=1e-3
  python validation/ns3_tcp.py --loss=segs --dropSegs=30,31 --duration=10
  python validation/ns3_tcp.py --dumpDefaults=1        (ns-3's default TCP attributes)
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE / "src" / "ns3_tcp_single.cc"
HEADERS = [
    HERE / "src" / h
    for h in ("ns3_newreno_variants.h", "ns3_rtt_sample_variants.h", "ns3_tcp_defaults.h", "ns3_prr_variants.h")
]
BIN = HERE / "build" / "ns3-tcp-single"
LIBS = ["internet", "point-to-point", "applications", "traffic-control", "network", "core"]


def ns3_prefix() -> Path:
    spec = importlib.util.find_spec("ns3")  # locates the wheel without importing it (slow)
    if spec is None or not spec.submodule_search_locations:
        sys.exit("ns3 wheel not found: run scripts/install_peers.sh and use the venv's python")
    return Path(list(spec.submodule_search_locations)[0])


def build(src: Path = SRC, headers: list[Path] = HEADERS, binary: Path = BIN) -> Path:
    """Compile `src` (with `headers` as dependencies) into `binary` unless it is up to date."""
    newest = max(p.stat().st_mtime for p in [src, *headers])
    if binary.exists() and binary.stat().st_mtime >= newest:
        return binary
    prefix = ns3_prefix()
    binary.parent.mkdir(parents=True, exist_ok=True)
    # Compiled beside the binary, then renamed over it: tests running in parallel (pytest -n)
    # may build the same binary at once, and none may run a half-written one.
    partial = binary.with_name(f"{binary.name}.{os.getpid()}.tmp")
    # The wheel is a release build with logging and asserts compiled in (its CMake targets say so).
    cmd = [
        "g++",
        "-std=c++20",
        "-O2",
        "-DNS3_BUILD_PROFILE_RELEASE",
        "-DNS3_LOG_ENABLE",
        "-DNS3_ASSERT_ENABLE",
        f"-I{prefix / 'include'}",
        str(src),
        "-o",
        str(partial),
        f"-L{prefix / 'lib64'}",
        f"-Wl,-rpath,{prefix / 'lib64'}",
    ]
    cmd += [f"-lns3.44-{m}" for m in LIBS]
    try:
        subprocess.run(cmd, check=True)
        os.replace(partial, binary)
    finally:
        partial.unlink(missing_ok=True)
    return binary


def main(argv: list[str]) -> int:
    binary = build()
    return subprocess.run([str(binary), *argv]).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
