"""Your own congestion controller, in Python (issue 36).

A controller is a class with the events of rexmit's controller interface
(docs/congestion_control.md) as methods. It keeps its window in ``self.cwnd`` and
``self.ssthresh`` (bytes) and may pace with ``self.pacing_rate`` (bytes per second, or None).
Two events are required: ``on_ack(ack)``, the growth on an ACK of new data, and
``on_congestion_event(ev)``, the decrease at a loss. Every other event the class does not define
runs the RFC default in Rust (a fast retransmit's inflation, the timeout's loss window, PRR,
...). Register the class by name and scenarios select it like a built-in::

    import rexmit

    class Aimd(rexmit.CongestionControl):
        params = {"a": rexmit.Param(1.0, 0.0, 100.0, min_inclusive=False)}

        def on_ack(self, ack):
            if self.cwnd < self.ssthresh:
                self.cwnd += min(ack.acked, self.smss)            # slow start
            else:
                self.cwnd += self.cc["a"] * self.smss * self.smss // self.cwnd

        def on_congestion_event(self, ev):
            self.ssthresh = max(ev.base // 2, 2 * self.smss)
            self.cwnd = self.ssthresh

    rexmit.register_cc("my_aimd", Aimd)
    # tcp = { cc = "my_aimd", cc_params = { a = 2 } }

An exception inside a method stops the run with :class:`rexmit.PluginError` (its traceback, the
event and the simulated time); so does a window that is not a number of bytes in
[1, 2**40]. The same class, scenario and seed give byte-identical results.

Sweeps run each point in a worker process, which must register the class too: define it in a
module (a file) rather than in ``__main__`` or a notebook cell, and pass the module with
``Sweep(..., plugins=[...])`` or ``rexmit run/sweep --plugin FILE.py``; :func:`plugin_sources`
says where each registered class comes from.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rexmit import _core

#: The events a controller class may define (docs/congestion_control.md).
EVENTS = (
    "on_connected",
    "on_lost_syn",
    "on_idle_restart",
    "on_delivery",
    "on_ack",
    "on_rate_ack",
    "on_congestion_event",
    "on_timeout",
    "on_ecn_echo",
    "on_recovery_start",
    "on_recovery_end",
    "on_undo",
    "on_recovery_inflate",
    "on_recovery_dupack",
    "on_recovery_deflate",
    "on_partial_ack",
    "on_prr",
    "on_go_back",
)


@dataclasses.dataclass(frozen=True)
class Param:
    """One numeric parameter of a controller (``cc_params = { name = value }``): its default and
    allowed range, checked before a run starts."""

    default: float
    min: float
    max: float
    doc: str = ""
    min_inclusive: bool = True
    max_inclusive: bool = True
    integer: bool = False


class CongestionControl:
    """Base class of a Python congestion controller (see the module's docs).

    ``__init__`` receives the connection's :class:`rexmit._core.ControllerParams`: the initial
    window and ssthresh, the segment size ``smss``, the TCP options a controller may follow
    (``byte_counting``, ``whole_segments``, ``slow_start_limit``, ``hystart``) and ``cc``, the
    controller's own parameters by name (defaults filled in).
    """

    #: The controller's parameters (``cc_params``) by name.
    params: dict[str, Param] = {}
    #: Ask for ``on_rate_ack`` with a delivery-rate sample on every ACK (BBR-style controllers).
    wants_rate_samples: bool = False

    def __init__(self, p: Any) -> None:
        self.smss: int = p.smss
        self.cwnd: int = p.initial_cwnd
        self.ssthresh: int = p.initial_ssthresh
        self.pacing_rate: int | None = None
        self.cc: dict[str, float] = dict(p.cc)
        self.p = p


class LossDetection:
    """Base class of a Python loss-detection policy (docs/plugins.md): define
    ``dup_thresh(state)`` (a :class:`rexmit._core.DupThreshState`; return the duplicate-ACK
    threshold, a whole number of segments in [1, 1000]) and/or ``reo_wnd(state)`` (a
    :class:`rexmit._core.ReoWndState`; return RACK's reordering window in whole nanoseconds).
    What the class does not define runs the RFC rule in Rust. ``__init__`` receives the
    policy's own parameters (``loss_params``) by name, defaults filled in."""

    params: dict[str, Param] = {}

    def __init__(self, values: dict[str, float]) -> None:
        self.values: dict[str, float] = dict(values)


# Where each Python plugin was registered from, by kind ("cc" or "loss") and name: a controller
# and a loss-detection policy may share a name.
_SOURCES: dict[tuple[str, str], str] = {}


def _specs(what: str, name: str, declared: dict[str, Param] | None) -> list[tuple]:
    specs = []
    for pname, p in (declared or {}).items():
        if not isinstance(p, Param):
            raise TypeError(f"{what} {name!r}: parameter {pname!r} must be a rexmit.Param, got {p!r}")
        specs.append(
            (pname, p.doc, float(p.default), float(p.min), float(p.max), p.min_inclusive, p.max_inclusive, p.integer)
        )
    return specs


def register_loss(
    name: str,
    cls: type,
    *,
    params: dict[str, Param] | None = None,
    doc: str | None = None,
    replace: bool = False,
) -> None:
    """Register loss-detection policy class ``cls`` as ``name``, so that ``loss = "name"`` (in a
    scenario's ``tcp`` table) selects it; as :func:`register_cc` otherwise."""
    if not isinstance(cls, type):
        raise TypeError(f"register_loss: cls must be a class, got {cls!r}")
    declared = cls.params if params is None else params  # type: ignore[attr-defined]
    specs = _specs("loss-detection policy", name, declared)
    defined = [m for m in ("dup_thresh", "reo_wnd") if callable(getattr(cls, m, None))]
    summary = doc if doc is not None else (cls.__doc__ or "").strip().split("\n")[0]
    _core.register_loss(name, cls, specs, defined, doc=summary, replace=replace)
    _SOURCES[("loss", name)] = _source_of(cls)


def register_cc(
    name: str,
    cls: type,
    *,
    params: dict[str, Param] | None = None,
    doc: str | None = None,
    replace: bool = False,
) -> None:
    """Register controller class ``cls`` as ``name`` (lowercase letters, digits, _), so that
    ``cc = "name"`` selects it. ``params`` defaults to ``cls.params``. A name already taken is
    an error unless ``replace=True`` (a notebook cell run again); built-in names cannot be
    taken. Raises ValueError naming the problem (a missing required event, a default outside
    its range)."""
    if not isinstance(cls, type):
        raise TypeError(f"register_cc: cls must be a class, got {cls!r}")
    declared = cls.params if params is None else params  # type: ignore[attr-defined]
    specs = _specs("controller", name, declared)
    defined = [e for e in EVENTS if callable(getattr(cls, e, None))]
    summary = doc if doc is not None else (cls.__doc__ or "").strip().split("\n")[0]
    _core.register_cc(
        name,
        cls,
        specs,
        defined,
        wants_rate_samples=bool(getattr(cls, "wants_rate_samples", False)),
        doc=summary,
        replace=replace,
    )
    _SOURCES[("cc", name)] = _source_of(cls)


def _source_of(cls: type) -> str:
    """Where a worker process can import ``cls`` from: a module name, or a file path for a module
    loaded with :func:`load_plugins`; "__main__" when it cannot."""
    module = sys.modules.get(cls.__module__)
    origin = getattr(module, "__rexmit_plugin_file__", None)
    return str(origin) if origin else cls.__module__


def plugin_sources(kind: str = "cc") -> dict[str, str]:
    """Each Python plugin of ``kind`` ("cc": controllers, "loss": loss-detection policies)
    registered in this process and where it comes from (a module name or a file path): what a
    sweep's workers import before they run."""
    return {name: src for (k, name), src in _SOURCES.items() if k == kind}


def load_plugins(sources: Sequence[str | Path]) -> None:
    """Import each plugin source: a ``.py`` file (loaded under a private module name) or an
    importable module name. Importing registers its controllers. Raises ImportError naming the
    source that cannot be imported."""
    for src in sources:
        text = str(src)
        if text.endswith(".py") or Path(text).is_file():
            path = Path(text).resolve()
            if not path.is_file():
                raise ImportError(f"{text}: no such file")
            mod_name = "rexmit_plugin_" + "".join(c if c.isalnum() else "_" for c in str(path))
            if mod_name in sys.modules:
                continue
            spec = importlib.util.spec_from_file_location(mod_name, path)
            if spec is None or spec.loader is None:
                raise ImportError(f"{text}: not a Python file")
            module = importlib.util.module_from_spec(spec)
            module.__rexmit_plugin_file__ = str(path)  # type: ignore[attr-defined]
            sys.modules[mod_name] = module
            try:
                spec.loader.exec_module(module)
            except Exception as e:
                del sys.modules[mod_name]
                raise ImportError(f"{text}: importing it raised {type(e).__name__}: {e}") from e
        else:
            try:
                importlib.import_module(text)
            except Exception as e:
                raise ImportError(f"{text}: importing it raised {type(e).__name__}: {e}") from e


def resolve_sources(sources: list[str], base_dir: str | Path = ".") -> list[str]:
    """Plugin sources as a worker imports them: a ``.py`` file as an absolute path (relative ones
    from ``base_dir``), a module name as it is."""
    out = []
    for src in sources:
        if src.endswith(".py"):
            path = Path(src)
            out.append(str(path if path.is_absolute() else (Path(base_dir) / path).resolve()))
        else:
            out.append(src)
    return out


def sources_for(scenarios: Any, explicit: list[str], in_process: bool = False) -> list[str]:
    """What a sweep's workers import before running ``scenarios`` (dicts): ``explicit`` and the
    source of every Python controller the scenarios name. Raises ValueError for a controller
    defined in ``__main__`` (a script or a notebook), which no worker can import, unless the
    runs stay ``in_process``."""
    builtin = {("cc", name) for name, _, is_builtin in _core.controllers() if is_builtin}
    builtin |= {("loss", name) for name, _, is_builtin in _core.loss_policies() if is_builtin}
    used = set()
    for data in scenarios:
        for app in data.get("apps", []):
            for table in ("tcp", "sctp"):
                t = app.get(table) or {}
                for key in ("cc", "loss"):
                    if t.get(key) and (key, t[key]) not in builtin:
                        used.add((key, t[key]))
    out = list(explicit)
    for kind, name in sorted(used):
        src = _SOURCES.get((kind, name))
        if src is None:
            continue  # a Rust plugin, or not registered (the scenario's validation says so)
        if src == "__main__":
            if in_process:
                continue
            raise ValueError(
                f"plugin {name!r} is defined in __main__ (a script or a notebook), which the sweep's "
                "worker processes cannot import: define it in a module file and pass the file with "
                "Sweep(..., plugins=['FILE.py']) or --plugin FILE.py"
            )
        if src not in out:
            out.append(src)
    return out


def controllers() -> list[tuple[str, str, bool]]:
    """The registered controllers: (name, one-line doc, built-in) each."""
    return _core.controllers()


def loss_policies() -> list[tuple[str, str, bool]]:
    """The registered loss-detection policies: (name, one-line doc, built-in) each."""
    return _core.loss_policies()
