#!/usr/bin/env bash
# The event-order witness against another commit (issue 40 step 1): every reference scenario
# (tests/reference/*.toml) runs once in a build of REV and once in the working tree, each
# writing its witness (crates/rexmit-net/src/witness.rs: every packet at a node, offer, outcome,
# timer and start, in order); the first record where the two differ is printed per scenario.
# A layout change that reorders same-instant work shows here at its first step, where the
# result digests (scripts/digests.sh) would only say that something changed.
#   usage: bash scripts/witness.sh [REV] [SCENARIO.toml ...]   (REV defaults to HEAD)
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:-HEAD}
shift || true
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=(tests/reference/*.toml)
work=$(mktemp -d /tmp/rexmit-witness.XXXXXX)
trap 'git worktree remove --force "$work/src" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

# REV is built in a target directory of its own (target/witness-rev, kept between runs so its
# dependencies are built once). Not in this tree's: cargo names a workspace crate's artifacts
# the same whatever its path, so REV's freshly built rexmit-net replaced the working tree's,
# and the working tree's build then found its older sources "fresh" and compared REV with itself.
git worktree add -q --detach "$work/src" "$rev"
(cd "$work/src" && CARGO_TARGET_DIR="$OLDPWD/target/witness-rev" cargo build -q --release -p rexmit-bench --example profile_scenario)
cp target/witness-rev/release/examples/profile_scenario "$work/old"
cargo build -q --release -p rexmit-bench --example profile_scenario
old="$work/old"
new=target/release/examples/profile_scenario
if ! "$old" --witness-diff /dev/null /dev/null >/dev/null 2>&1; then
  echo "witness: $rev has no event-order witness (it came after); compare with a later commit" >&2
  exit 2
fi
fail=0
for f in "${scenarios[@]}"; do
  name=$(basename "$f" .toml)
  "$old" "$f" 1 --witness "$work/$name.a" >/dev/null 2>&1
  "$new" "$f" 1 --witness "$work/$name.b" >/dev/null 2>&1
  if out=$("$new" --witness-diff "$work/$name.a" "$work/$name.b"); then
    echo "$name: identical ($(($(stat -c %s "$work/$name.a") / 32)) records)"
  else
    echo "$name: DIFFERS"
    echo "$out" | sed 's/^/  /'
    fail=1
  fi
done
exit $fail
