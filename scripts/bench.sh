#!/usr/bin/env bash
# Benchmarks (issue 7). 1) The Rust benchmarks (release build): engine throughput, TCP dumbbell
# scaling to 10 000 flows, peak memory, memory per flow (rexmit-mem). 2) rexmit against ns-2.35 and ns-3.44 on the same
# single-flow scenarios (validation/bench_peers.py: wall-time ratios and packet hops per second,
# median of several untraced runs), and the whole `rexmit run` process against `ns` on 10, 60
# and 600 s runs of the ns-2 scenarios (issue 18; --quick: 10 and 60 s). Tables go to stdout,
# JSON (and peers.md, process.md) to bench-results/; 3) simulated cache misses per packet hop at
# 10 000 flows (scripts/cache_profile.py under callgrind, about a minute; not with --quick); last,
# the verdict on each of issue 40's targets (validation/bench_targets.py, bench-results/targets.md;
# the reproductions' line reads results/*/wall_s from `make reproduce-all`).
#   usage: bash scripts/bench.sh [--quick]     (VENV=.venv; SKIP_RUST=1 / SKIP_PLUGINS=1 / SKIP_PEERS=1 /
#          SKIP_CACHE=1 skip a part)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
QUICK=()
for a in "$@"; do [ "$a" = --quick ] && QUICK=(--quick); done
mkdir -p bench-results
if [ "${SKIP_RUST:-0}" != 1 ]; then
  # Built as `make install` builds the extension: with the profile of scripts/pgo.sh when there
  # is one (PGO=0: without), so that these figures are those of what users run.
  bash scripts/pgo.sh
  (
    . scripts/pgo_env.sh
    cargo build --release -p rexmit-bench
    "${CARGO_TARGET_DIR:-target}/release/rexmit-bench" --json bench-results/bench.json "$@"
    # Memory per flow, idle and active, and the peak at 10 000 flows (a counting allocator).
    "${CARGO_TARGET_DIR:-target}/release/rexmit-mem" --json bench-results/memory.json "$@"
  )
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
# Issue 40: last-level cache misses per hop at 10 000 flows (callgrind's cache simulation; valgrind
# comes from Debian like the peers).
if [ "${SKIP_CACHE:-0}" != 1 ] && [ ${#QUICK[@]} -eq 0 ]; then
  if ! command -v valgrind >/dev/null; then
    SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends valgrind >/dev/null
  fi
  python3 scripts/cache_profile.py 10000 2.5 4.5 --top 15 --json bench-results/cache.json
fi
# Issue 40's targets against what was measured above (stdlib only; a skipped part reads "not measured").
python3 validation/bench_targets.py --dir bench-results
