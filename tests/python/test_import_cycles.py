"""scripts/import_cycles.py (run by `make lint`) finds import circles between the modules of a
Python package, including those closed by an import inside a function or under TYPE_CHECKING,
and passes a package without one; the repository's own tree has none."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "import_cycles.py"


def check(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), str(root)], capture_output=True, text=True)


def package(root: Path, files: dict[str, str]) -> Path:
    """A tree with ``root/python/pkg/<files>`` (an empty ``__init__.py`` unless given)."""
    top = root / "python" / "pkg"
    for name, text in {"__init__.py": "", **files}.items():
        path = top / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


# Layers as the real package has them: a low module, one above it, one above both.
ACYCLIC = {
    "low.py": "import json\n",
    "mid.py": "from pkg import low\n",
    "top.py": "from pkg.mid import x\nfrom . import low\n\ndef f():\n    from pkg import mid\n",
    "sub/__init__.py": "from pkg.sub import leaf\n",
    "sub/leaf.py": "from ..low import y\n",
    "_core.pyi": "def f() -> None: ...\n",
    "uses_core.py": "from pkg import _core\n",
}


def test_a_package_without_a_circle_passes(tmp_path: Path) -> None:
    done = check(package(tmp_path, ACYCLIC))
    assert (done.returncode, done.stdout) == (0, "")


@pytest.mark.parametrize(
    "closing",
    [
        pytest.param("from pkg.top import z\n", id="module level"),
        pytest.param("def g():\n    from pkg import top\n    return top\n", id="inside a function"),
        pytest.param(
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.top import Z\n", id="type checking"
        ),
        pytest.param("from .top import z\n", id="relative"),
        pytest.param("import pkg.top\n", id="import statement"),
    ],
)
def test_a_planted_circle_fails_and_is_named(tmp_path: Path, closing: str) -> None:
    # low -> top closes two circles: top imports low, and mid which imports low.
    done = check(package(tmp_path, {**ACYCLIC, "low.py": closing}))
    assert done.returncode == 1
    assert (
        done.stdout
        == "python/pkg: import circle pkg.low -> pkg.top -> pkg.low (the modules importing one another: pkg.low, pkg.mid, pkg.top)\n"
    )


def test_a_submodule_importing_from_its_package_that_imports_it_is_a_circle(tmp_path: Path) -> None:
    done = check(package(tmp_path, {**ACYCLIC, "sub/leaf.py": "from pkg.sub import NAME\n"}))
    assert (done.returncode, done.stdout) == (1, "python/pkg: import circle pkg.sub -> pkg.sub.leaf -> pkg.sub\n")


def test_a_rust_crate_circle_is_still_found(tmp_path: Path) -> None:
    src = tmp_path / "crates" / "c" / "src"
    src.mkdir(parents=True)
    (src / "lib.rs").write_text("mod a;\nmod b;\n")
    (src / "a.rs").write_text("use crate::b::B;\n")
    (src / "b.rs").write_text("// use crate::a is a comment\npub struct B;\n")
    assert check(tmp_path).returncode == 0
    (src / "b.rs").write_text("use crate::a;\npub struct B;\n")
    done = check(tmp_path)
    assert (done.returncode, done.stdout) == (1, "c: import circle a -> b -> a\n")


def test_the_repository_has_no_circle() -> None:
    done = check(ROOT)
    assert (done.returncode, done.stdout) == (0, "")
