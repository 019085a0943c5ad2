"""Result digests of the reference scenarios (tests/reference/*.toml) as the installed Python
extension gives them: a hash of everything `rexmit.run` returns except wall time and event
counts (summary, flows, links, nodes, flow tables, series). `scripts/digests.sh` checks the
Rust example binary; this checks the build users run, which `make install` compiles with
profile-guided optimisation (scripts/pgo.sh): the two must not differ in any result.
tests/python/test_extension_digests.py compares the extension with tests/reference/extension_digests.txt.

    usage: python scripts/extension_digests.py > tests/reference/extension_digests.txt
    (update it in the same commit as tests/reference/digests.txt, after a behaviour change)
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

REFERENCE = Path(__file__).resolve().parent.parent / "tests" / "reference"


def digest(path: Path) -> str:
    import rexmit

    r = rexmit.run(path)
    summary = {k: v for k, v in dict(r.summary).items() if k not in ("wall_time_s", "events")}
    h = hashlib.sha256()
    for part in (summary, r.flows, r.links, r.nodes, dict(r.series)):
        h.update(json.dumps(part, sort_keys=True, default=str).encode())
    for name in sorted(r.tables):
        h.update(name.encode())
        h.update(json.dumps(r.tables[name].to_pylist(), sort_keys=True, default=str).encode())
    return h.hexdigest()[:16]


def main() -> int:
    for path in sorted(REFERENCE.glob("*.toml")):
        print(f"{path.name} {digest(path)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
