#!/usr/bin/env bash
# Benchmarks (issue 7). 1) The Rust benchmarks (release build): engine throughput, TCP dumbbell
# scaling to 10 000 flows, peak memory, memory per flow (rexmit-mem). 2) rexmit against ns-2.35 and ns-3.44 on the same
# single-flow scenarios (validation/bench_peers.py: wall-time ratios and packet hops per second,
# median of several untraced runs), and the whole `rexmit run` process against `ns` on 10, 60
# and 600 s runs of the ns-2 scenarios (issue 18; --quick: 10 and 60 s). Tables go to stdout,
# JSON (and peers.md, process.md) to bench-results/; last, the verdict on each of issue 18's targets
# (validation/bench_targets.py, bench-results/targets.md).
#   usage: bash scripts/bench.sh [--quick]     (VENV=.venv; SKIP_RUST=1 / SKIP_PLUGINS=1 / SKIP_PEERS=1 skip a part)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
QUICK=()
for a in "$@"; do [ "$a" = --quick ] && QUICK=(--quick); done
mkdir -p bench-results
if [ "${SKIP_RUST:-0}" != 1 ]; then
  cargo build --release -p rexmit-bench
  "${CARGO_TARGET_DIR:-target}/release/rexmit-bench" --json bench-results/bench.json "$@"
  # Memory per flow, idle and active, and the peak at 10 000 flows (a counting allocator).
  "${CARGO_TARGET_DIR:-target}/release/rexmit-mem" --json bench-results/memory.json "$@"
fi
# Issue 36: the cost of a Python congestion controller per event (the built-in reno against the
# same controller in Python, examples/plugins/reno.py; bench-results/plugins.json). The Rust
# plugin's cost is in the Rust part above ("Rust plugin vs built-in").
if [ "${SKIP_PLUGINS:-0}" != 1 ]; then
  "$VENV/bin/python" validation/bench_plugins.py "${QUICK[@]}" --out bench-results
fi
if [ "${SKIP_PEERS:-0}" != 1 ]; then
  # The peers must be there (idempotent), and rexmit importable from the venv (make install).
  VENV="$VENV" bash scripts/install_peers.sh
  "$VENV/bin/python" -c 'import rexmit' || { echo "bench: rexmit is not installed in $VENV (run make install)" >&2; exit 1; }
  "$VENV/bin/python" validation/bench_peers.py "${QUICK[@]}" --out bench-results
fi
# Issue 18's targets against what was measured above (stdlib only; a skipped part reads "not measured").
python3 validation/bench_targets.py --dir bench-results
