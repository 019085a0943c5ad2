"""rexmit: a fast, deterministic packet-level simulator of reliable transports.

The scenario schema and the simulator live in Rust (``rexmit._core``); this package is the
user-facing front: :class:`Scenario` to build or load scenarios, :func:`run` to run them, :func:`emulate` to run them with real Linux hosts,
:class:`RunResult` to read and write results, and the ``rexmit`` command line.
"""

from rexmit._core import InternalError, ScenarioError, __version__
from rexmit.results import RunResult, run
from rexmit.scenario import Scenario
from rexmit import buffer_model, report, sweep  # noqa: E402  (sweep is callable: rexmit.sweep(...))
from rexmit.emulation import emulate

__all__ = ["Scenario", "ScenarioError", "InternalError", "RunResult", "run", "emulate", "sweep", "report", "buffer_model", "__version__"]
