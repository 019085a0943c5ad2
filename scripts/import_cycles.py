#!/usr/bin/env python3
"""Import circles between the top-level modules of each Rust crate (`use crate::a` in module
b and `use crate::b` in module a, or longer cycles). Exit 1 and name them when any exist.
A module's parent-child relation (`super::`) does not count; only `crate::` paths do."""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def module_of(src: Path, f: Path) -> str:
    rel = f.relative_to(src).with_suffix("")
    parts = rel.parts
    return parts[0] if parts[0] not in ("lib", "main") else ""


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    found, seen = [], set()
    def visit(n: str, path: list[str]) -> None:
        for m in sorted(graph.get(n, ())):
            if m in path:
                c = path[path.index(m):]
                key = frozenset(c)
                if key not in seen:
                    seen.add(key)
                    found.append(c + [m])
            elif len(path) < 8:
                visit(m, path + [m])
    for n in sorted(graph):
        visit(n, [n])
    return found


def main() -> int:
    bad = 0
    for src in sorted(ROOT.glob("crates/*/src")):
        graph: dict[str, set[str]] = {}
        for f in src.rglob("*.rs"):
            me = module_of(src, f)
            if not me:
                continue
            text = re.sub(r"#\[cfg\(test\)\]\s*mod tests\s*\{.*", "", f.read_text(), flags=re.S)
            text = re.sub(r"//.*", "", text)
            for m in re.findall(r"\bcrate::([a-z_][a-z0-9_]*)", text):
                if m != me:
                    graph.setdefault(me, set()).add(m)
        for c in cycles(graph):
            bad += 1
            print(f"{src.parent.name}: import circle " + " -> ".join(c))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
