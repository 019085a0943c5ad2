#!/usr/bin/env bash
# Result digests of the reference scenarios (tests/reference/*.toml, written by
# scripts/reference_scenarios.py): a hash of everything each run produced except wall time and
# event counts. A restructuring must leave every line unchanged; a behaviour change lists the
# scenarios it changes (diff against tests/reference/digests.txt, then update that file in the
# same commit and say why; tests/reference/extension_digests.txt too: scripts/extension_digests.py).
#   usage: bash scripts/digests.sh            (prints; > tests/reference/digests.txt to update)
#          bash scripts/digests.sh --check    (exit 1 and show the diff if anything changed)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build -q --release -p rexmit-bench --example profile_scenario
out=$(for f in tests/reference/*.toml; do target/release/examples/profile_scenario "$f" 1 --digest 2>/dev/null; done)
if [ "${1:-}" = "--check" ]; then
  if diff <(echo "$out") tests/reference/digests.txt; then echo "digests: all $(echo "$out" | wc -l) unchanged"; else exit 1; fi
else
  echo "$out"
fi
