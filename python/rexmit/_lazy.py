"""Modules imported on first use, so that `import rexmit` stays quick (pyarrow alone takes
about a quarter of a second to import, and a plain `rexmit.run` does not need it)."""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import TYPE_CHECKING, Any


class LazyModule:
    """Stands for a module until an attribute is first read, then imports it."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attr: str) -> Any:
        if self._module is None:
            self._module = importlib.import_module(self._name)
        return getattr(self._module, attr)


if TYPE_CHECKING:
    # For type checkers the modules themselves (pyarrow ships no type information: `Any`).
    import pyarrow as pa  # type: ignore[import-untyped]
    import pyarrow.compute as pc  # type: ignore[import-untyped]
    import pyarrow.parquet as pq  # type: ignore[import-untyped]
else:
    pa = LazyModule("pyarrow")
    pc = LazyModule("pyarrow.compute")
    pq = LazyModule("pyarrow.parquet")
