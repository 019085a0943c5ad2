#!/usr/bin/env python3
"""Import circles, in the Rust crates and in the Python package. Exit 1 and name them when any
exist; `make lint` runs it. ``import_cycles.py [ROOT]`` checks the tree at ROOT (default: this
repository): ``ROOT/crates/*/src`` and every package under ``ROOT/python``.

Rust: an edge from a crate's top-level module b to module a for every ``crate::a`` path in b
(``use crate::a`` or a path in code; the ``#[cfg(test)] mod tests`` block and comments left out).
A module's parent-child relation (``super::``) does not count.

Python: an edge from module b to module a (every ``.py`` file is a module; a package is its
``__init__.py``, a compiled module its ``.pyi`` stub) for every import statement in b that names a module of the package, wherever
the statement is: at module level, under ``if TYPE_CHECKING:``, in a ``try``, and inside a
function or method. A lazy import inside a function is a circle in the design all the same; it
only moves the failure from import time to call time. ``from P import N`` counts as importing
module ``P.N`` when that file exists, else ``P``. Not counted: the ``__init__`` of the parent
packages that Python runs before a submodule (every submodule would else be in a circle with
a package that re-exports it), and imports by name at run time (``importlib.import_module``)."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One shortest circle through each group of mutually importing modules (the strongly
    connected components of ``graph`` with more than one module), as ``[a, b, ..., a]``;
    a component of more modules than its circle is named whole by :func:`components`."""
    found = []
    for comp in components(graph):
        start = comp[0]
        # Breadth-first from start inside the component, back to start.
        paths = {start: [start]}
        queue = [start]
        circle = None
        while queue and circle is None:
            n = queue.pop(0)
            for m in sorted(graph.get(n, ())):
                if m == start:
                    circle = paths[n] + [start]
                    break
                if m in comp and m not in paths:
                    paths[m] = paths[n] + [m]
                    queue.append(m)
        assert circle is not None
        found.append(circle)
    return found


def components(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node, each sorted, in order of their
    first node (Tarjan's algorithm, iterative: no recursion limit on long chains)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out = []
    nodes = sorted(set(graph) | {m for ms in graph.values() for m in ms})
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            n, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[n] = min(low[n], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[n])
            if low[n] == index[n]:
                comp = []
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    comp.append(m)
                    if m == n:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return sorted(out)


# --- Rust --------------------------------------------------------------------------------------
def _rust_module_of(src: Path, f: Path) -> str:
    rel = f.relative_to(src).with_suffix("")
    parts = rel.parts
    return parts[0] if parts[0] not in ("lib", "main") else ""


def rust_graph(src: Path) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for f in src.rglob("*.rs"):
        me = _rust_module_of(src, f)
        if not me:
            continue
        text = re.sub(r"#\[cfg\(test\)\]\s*mod tests\s*\{.*", "", f.read_text(), flags=re.S)
        text = re.sub(r"//.*", "", text)
        for m in re.findall(r"\bcrate::([a-z_][a-z0-9_]*)", text):
            if m != me:
                graph.setdefault(me, set()).add(m)
    return graph


# --- Python ------------------------------------------------------------------------------------
def _python_modules(top: Path) -> dict[str, Path]:
    """Dotted module name -> file, for the package in directory ``top``."""
    modules = {}
    # A compiled module is known by its stub (rexmit/_core.pyi); it imports nothing of the package.
    for f in sorted(top.rglob("*.pyi")):
        modules[".".join(f.relative_to(top.parent).with_suffix("").parts)] = f
    for f in sorted(top.rglob("*.py")):
        parts = f.relative_to(top.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = f
    return modules


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The module ``name`` is, or the innermost package module that holds it."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def python_graph(top: Path) -> dict[str, set[str]]:
    """The import graph of the package in directory ``top`` (what counts: the module doc)."""
    modules = _python_modules(top)
    graph: dict[str, set[str]] = {}
    for me, f in modules.items():
        if f.suffix == ".pyi":
            continue
        is_package = f.name == "__init__.py"
        targets: list[str | None] = []
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"), str(f))):
            if isinstance(node, ast.Import):
                targets.extend(_resolve(a.name, modules) for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    # Relative: level 1 is the package holding this module (a package's own
                    # __init__ is inside it).
                    package = me.split(".") if is_package else me.split(".")[:-1]
                    package = package[: len(package) - (node.level - 1)]
                    base = ".".join(package + ([base] if base else []))
                for a in node.names:
                    full = f"{base}.{a.name}"
                    targets.append(full if full in modules else _resolve(base, modules))
        for t in targets:
            if t is not None and t != me:
                graph.setdefault(me, set()).add(t)
    return graph


def main(argv: list[str]) -> int:
    root = Path(argv[0]).resolve() if argv else ROOT
    checked: list[tuple[str, dict[str, set[str]]]] = []
    for src in sorted(root.glob("crates/*/src")):
        checked.append((src.parent.name, rust_graph(src)))
    for top in sorted(p.parent for p in root.glob("python/*/__init__.py")):
        checked.append((f"python/{top.name}", python_graph(top)))
    bad = 0
    for name, graph in checked:
        for comp, circle in zip(components(graph), cycles(graph)):
            bad += 1
            whole = f" (the modules importing one another: {', '.join(comp)})" if len(comp) + 1 > len(circle) else ""
            print(f"{name}: import circle " + " -> ".join(circle) + whole)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
