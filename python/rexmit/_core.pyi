"""Type stubs for the compiled module rexmit._core."""

from os import PathLike
from typing import Callable, TypedDict

__version__: str
__git_revision__: str
"""The short git revision the extension was built from ("unknown" outside a git checkout)."""
__all__ = [
    "__version__",
    "__git_revision__",
    "ScenarioError",
    "InternalError",
    "EmulationUnavailable",
    "EmulationError",
    "validate",
    "convert",
    "with_defaults",
    "work_estimate",
    "run",
    "emulate",
    "emulation_unavailable",
    "_panic_for_test",
]

class ScenarioError(ValueError):
    """A scenario is malformed or impossible."""

    path: str
    """Key path of the offending value, e.g. ``links[2].rate`` (empty for the whole file)."""
    detail: str
    """The message without the path."""

class InternalError(Exception):
    """A bug in rexmit."""

class _Series(TypedDict):
    name: str
    t_ns: list[int]
    values: list[float]

class _RunOutput(TypedDict):
    results: str
    series: list[_Series]

def validate(text: str, format: str = "toml") -> str: ...
def convert(text: str, from_format: str, to_format: str) -> str: ...
def with_defaults(text: str, from_format: str, to_format: str = "toml") -> str: ...
def work_estimate(text: str, format: str = "toml") -> float: ...
def run(
    text: str,
    format: str = "toml",
    out_dir: str | PathLike[str] | None = None,
    progress: Callable[[float, float, int, float], bool | None] | None = None,
) -> _RunOutput: ...

class EmulationUnavailable(Exception):
    """This machine cannot emulate (no root, no /dev/net/tun or no ``ip``)."""

class EmulationError(Exception):
    """Setting up an emulation run failed (a namespace, TUN device or socket)."""

def emulate(
    text: str,
    format: str = "toml",
    out_dir: str | PathLike[str] | None = None,
    progress: Callable[[float, float, int, float], bool | None] | None = None,
) -> _RunOutput: ...
def emulation_unavailable() -> str | None: ...
def _panic_for_test(msg: str) -> None:
    """Test hook: a Rust panic inside the FFI guard, raised here as ``InternalError``."""
    ...
