#!/usr/bin/env bash
# Every seed paper's reproduction in full (`make reproduce-all`), one after another, each into
# results/NAME with its wall time in results/NAME/wall_s; then docs/reproductions.md from their
# claims.json (scripts/reproductions_md.py). Long: see docs/reproductions.md for the times.
#   usage: bash scripts/reproduce_all.sh [NAME ...]     (VENV=.venv; default: all five;
#          OUT=results: where the runs go; REXMIT=path of the rexmit command)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
names=("$@")
[ ${#names[@]} -eq 0 ] && names=(tcp-sack buffer-sizing rack-sctp thin-streams nr-sack)
OUT=${OUT:-results}
REXMIT=${REXMIT:-$VENV/bin/rexmit}
mkdir -p "$OUT"
for n in "${names[@]}"; do
  start=$(date +%s.%N)
  nice -n 10 "$REXMIT" reproduce "$n" --out "$OUT/$n" > "$OUT/$n.log" 2>&1 || { echo "$n: failed ($OUT/$n.log)" >&2; continue; }
  end=$(date +%s.%N)
  python3 -c "print(round($end - $start, 1))" > "$OUT/$n/wall_s"
  echo "$n: $(cat "$OUT/$n/wall_s") s" >&2
done
"$VENV/bin/python" scripts/reproductions_md.py --results "$OUT"
