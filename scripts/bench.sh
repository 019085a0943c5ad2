#!/usr/bin/env bash
# Build the benchmarks in release mode and run them; the table goes to stdout, JSON to bench-results/.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p rexmit-bench
mkdir -p bench-results
"${CARGO_TARGET_DIR:-target}/release/rexmit-bench" --json bench-results/bench.json "$@"
