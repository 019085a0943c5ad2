#!/usr/bin/env bash
# Run every cargo-fuzz target of fuzz/ for SECONDS each (default 60) and print how many inputs
# each one executed. New corpus entries go to fuzz/corpus-work/<target>/ (not committed); the
# committed seeds in fuzz/corpus/<target>/ are read only. A crash leaves its input in
# fuzz/artifacts/<target>/ and makes the script exit 1 after the other targets have run.
#
# Needs cargo-fuzz (`cargo install cargo-fuzz`). On a stable toolchain RUSTC_BOOTSTRAP=1 lets
# cargo-fuzz use its nightly flags; FUZZ_SANITIZER=none runs without AddressSanitizer where
# that fails (the default is address).
set -euo pipefail

seconds="${1:-60}"
sanitizer="${FUZZ_SANITIZER:-address}"
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root/fuzz"

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "cargo-fuzz is missing: cargo install cargo-fuzz" >&2
    exit 2
fi
export RUSTC_BOOTSTRAP=1

failed=()
summary=()
for target in $(cargo fuzz list); do
    mkdir -p "corpus-work/$target" "artifacts/$target"
    log="$(mktemp)"
    echo "== $target: ${seconds}s" >&2
    status=0
    cargo fuzz run --sanitizer "$sanitizer" "$target" "corpus-work/$target" "corpus/$target" -- \
        -max_total_time="$seconds" -max_len=4096 -timeout=20 -rss_limit_mb=2048 \
        -print_final_stats=1 >"$log" 2>&1 || status=$?
    execs="$(awk '/stat::number_of_executed_units/ {print $2}' "$log" | tail -n 1)"
    if [ "$status" -ne 0 ]; then
        failed+=("$target")
        summary+=("$target ${execs:-?} FAILED")
        grep -E "panicked|ERROR|SUMMARY|Test unit written" "$log" >&2 || tail -n 30 "$log" >&2
    else
        summary+=("$target ${execs:-?} ok")
    fi
    rm -f "$log"
done

printf '\n%-12s %14s %s\n' target executions result
total=0
for row in "${summary[@]}"; do
    read -r t n r <<<"$row"
    printf '%-12s %14s %s\n' "$t" "$n" "$r"
    [[ "$n" =~ ^[0-9]+$ ]] && total=$((total + n))
done
printf '%-12s %14s\n' total "$total"

if [ "${#failed[@]}" -gt 0 ]; then
    echo "crashes in: ${failed[*]} (inputs in fuzz/artifacts/)" >&2
    exit 1
fi
