"""Emulation: the scenario's ``[emulation] real_hosts`` run Linux's own TCP, each in a network
namespace behind a TUN device, while rexmit runs the rest of the network in real time.

``emulate(scenario, out_dir)`` returns the usual :class:`~rexmit.results.RunResult`; its
``emulation`` dict holds the emulator's lateness (``lateness``: events, mean_s, p99_s, max_s),
the load average around the run, and per real host its namespace, routes, sysctls and the
packets that crossed the TUN device; per real app its socket options and both sockets'
TCP_INFO at the stop time. Flows between real hosts carry ``stack = "linux"``.

Needs root and /dev/net/tun; :func:`unavailable` says plainly why a machine cannot emulate.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rexmit import _core
from rexmit.results import ProgressFn, RunResult, _run_with
from rexmit.scenario import Scenario

EmulationUnavailable = _core.EmulationUnavailable
EmulationError = _core.EmulationError


def unavailable() -> str | None:
    """Why this machine cannot emulate (no root, no /dev/net/tun, no ``ip``), or None."""
    return _core.emulation_unavailable()


def emulate(
    scenario: Scenario | dict[str, Any] | str | Path,
    out_dir: str | Path | None = None,
    progress: ProgressFn | None = None,
) -> RunResult:
    """Run ``scenario`` with its real hosts real (see the module docs). Takes as long as the
    scenario's ``stop_time`` of wall-clock time. Raises :class:`EmulationUnavailable` when the
    machine cannot emulate, ``ScenarioError`` for a scenario emulation cannot run."""
    return _run_with(_core.emulate, scenario, out_dir, progress)
