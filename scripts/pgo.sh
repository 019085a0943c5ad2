#!/usr/bin/env bash
# Profile-guided optimisation (issue 40): builds an instrumented `profile_scenario`, runs it on
# the 48 reference scenarios (tests/reference/*.toml), TCP dumbbells of 1 and 1 000 flows and
# shortened runs of the reproductions' heaviest kinds (scripts/pgo/*.toml: seed 000 CMT with
# cross traffic, seed 004 HTTP and lab runs; about 30 s in all), and merges what it recorded
# into target/pgo/rexmit.profdata; the release builds of `make install` and `make bench` then
# use it (RUSTFLAGS=-Cprofile-use=...). Results do not change:
# the profile only steers inlining and code layout (docs/validation_speed_issue40_sessions9to11.md).
# Needs llvm-profdata of rustc's own LLVM (rustup's llvm-tools component, added here when rustup
# is there); without it this prints why and exits 0 with no profile, and the builds go without.
#   usage: bash scripts/pgo.sh        (PGO=0 skips it; a profile newer than every source is kept)
set -euo pipefail
cd "$(dirname "$0")/.."
out=target/pgo/rexmit.profdata
if [ "${PGO:-1}" = 0 ]; then
  echo "pgo: skipped (PGO=0)" >&2
  rm -f "$out"
  exit 0
fi
# Up to date: no source, lock file, training scenario or this script changed since the profile
# was merged (a stale profile would only optimise less; results never depend on it).
if [ -f "$out" ] && [ -z "$(find crates Cargo.toml Cargo.lock tests/reference scripts/pgo scripts/pgo.sh \
  -newer "$out" -type f \( -name '*.rs' -o -name '*.toml' -o -name Cargo.lock -o -name pgo.sh \) -print -quit)" ]; then
  echo "pgo: $out is up to date" >&2
  exit 0
fi
host=$(rustc -vV | sed -n 's/^host: //p')
profdata="$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata"
if [ ! -x "$profdata" ] && command -v rustup >/dev/null; then
  timeout 300 rustup component add llvm-tools-preview >/dev/null 2>&1 || true
fi
if [ ! -x "$profdata" ]; then
  echo "pgo: skipped (no $profdata: rustup's llvm-tools component is needed; the build goes without a profile)" >&2
  rm -f "$out"
  exit 0
fi
raw=target/pgo/raw
rm -rf "$raw" && mkdir -p "$raw"
# Its own target directory: RUSTFLAGS differ from the ordinary release build's.
CARGO_TARGET_DIR=target/pgo-gen RUSTFLAGS="-Cprofile-generate=$PWD/$raw" \
  cargo build -q --release -p rexmit-bench --example profile_scenario --example scaling_toml
bin=target/pgo-gen/release/examples
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin/scaling_toml" 1 30 >"$tmp/one_flow.toml"
"$bin/scaling_toml" 1000 5 >"$tmp/thousand_flows.toml"
for f in tests/reference/*.toml scripts/pgo/*.toml "$tmp"/*.toml; do
  # A failing run is for the tests to report; the build then goes without a profile.
  "$bin/profile_scenario" "$f" >/dev/null 2>&1 || {
    echo "pgo: skipped (training run $f failed)" >&2
    rm -f "$out"
    exit 0
  }
done
"$profdata" merge -o "$out" "$raw"
echo "pgo: $out ($(du -h "$out" | cut -f1))" >&2
