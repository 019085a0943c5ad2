"""rexmit: a fast, deterministic packet-level simulator of reliable transports.

The scenario schema and the simulator live in Rust (``rexmit._core``); this package is the
user-facing front: :class:`Scenario` to build or load scenarios, :func:`run` to run them, :func:`emulate` to run them with real Linux hosts,
:func:`sweep` to run parameter sweeps, :class:`RunResult` to read and write results, and the ``rexmit`` command line.

``rexmit.sweep`` is a function; the sweep API lives in the module of the same name and is
imported from it: ``from rexmit.sweep import Sweep, load, summarize``.
"""

from __future__ import annotations

import gc

# Importing allocates many objects, none of them garbage: the collections their number triggers
# would find nothing (issue 18: they cost a short `rexmit run` several milliseconds). The
# standard modules imported here (pathlib, typing) count too.
_gc_was_enabled = gc.isenabled()
gc.disable()
try:
    import importlib
    import sys
    import types
    from pathlib import Path
    from typing import TYPE_CHECKING, Any

    from rexmit._core import InternalError, PluginError, ScenarioError, __version__
    from rexmit.results import RunResult, run
    from rexmit.scenario import Scenario
finally:
    if _gc_was_enabled:
        gc.enable()

if TYPE_CHECKING:
    from rexmit import buffer_model, report
    from rexmit.emulation import emulate
    from rexmit.plugins import CongestionControl, LossDetection, Param, load_plugins, register_cc, register_loss
    from rexmit.sweep import Sweep, SweepResult
    from rexmit.sweep import run_sweep as run_sweep  # `rexmit.run_sweep`, imported on first use (_LAZY)

#: Imported on first use (PEP 562), so that `import rexmit` and `rexmit run` stay quick. The
#: sweep module alone was a sixth of a short `rexmit run` (its dataclasses; issue 18: 149 → 125
#: ms for a 10 s run without it).
_LAZY = {
    # Controllers in Python (issue 36): their module loads dataclasses, which `import rexmit`
    # must not (test_lean_output).
    "register_cc": ("rexmit.plugins", "register_cc"),
    "CongestionControl": ("rexmit.plugins", "CongestionControl"),
    "register_loss": ("rexmit.plugins", "register_loss"),
    "LossDetection": ("rexmit.plugins", "LossDetection"),
    "Param": ("rexmit.plugins", "Param"),
    "load_plugins": ("rexmit.plugins", "load_plugins"),
    "buffer_model": ("rexmit.buffer_model", None),
    "report": ("rexmit.report", None),
    "emulate": ("rexmit.emulation", "emulate"),
    "Sweep": ("rexmit.sweep", "Sweep"),
    "SweepResult": ("rexmit.sweep", "SweepResult"),
    "run_sweep": ("rexmit.sweep", "run_sweep"),
}


class _Package(types.ModuleType):
    """The package's module type: importing the submodule ``rexmit.sweep`` for the first time
    binds it as an attribute of the package, which would replace the function ``sweep`` below;
    the function keeps the name (the submodule is ``sys.modules["rexmit.sweep"]``)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "sweep" and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'rexmit' has no attribute {name!r}")
    module_name, attr = _LAZY[name]
    module = importlib.import_module(module_name)
    return module if attr is None else getattr(module, attr)


def sweep(
    sweep: Sweep | str | Path,
    out: str | Path,
    jobs: int | None = None,
    cluster: str | None = None,
    progress: bool | None = None,
) -> SweepResult:
    """Run a sweep (a :class:`rexmit.sweep.Sweep` or a sweep file) into ``out``: the same as
    :func:`rexmit.sweep.run_sweep`, which documents the arguments."""
    from rexmit.sweep import run_sweep

    return run_sweep(sweep, out, jobs=jobs, cluster=cluster, progress=progress)


__all__ = [
    "Scenario",
    "ScenarioError",
    "InternalError",
    "PluginError",
    "RunResult",
    "run",
    "emulate",
    "sweep",
    "report",
    "buffer_model",
    "register_cc",
    "CongestionControl",
    "register_loss",
    "LossDetection",
    "Param",
    "load_plugins",
    "__version__",
]
