"""packetdrill-style scripts run against rexmit's TCP and SCTP cores (``rexmit script``).

A script is a timeline of system calls, packets injected (``<``) and packets expected (``>``),
with assertions over a read-only ``tcp_info`` (``%{ assert tcpi_snd_cwnd == 10 }%``); it runs in
virtual time, so a run is exact and reproducible. The language, the ``tcp_info`` fields and the
sysctl/socket-option mapping are in docs/scripts.md; the runner itself is Rust
(``rexmit._core.run_script``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from rexmit import _core

#: Exit codes of ``rexmit script``: every script passed, one failed, one is malformed.
EXIT_PASSED, EXIT_FAILED, EXIT_MALFORMED = 0, 1, 2


@dataclass(frozen=True)
class ScriptResult:
    """How one script ended: ``status`` is "passed", "failed" or "malformed"; ``report`` is
    empty when it passed, else packetdrill's kind of report (the script line, what was expected
    and what the core did, with times); ``trace`` lists every packet in and out when asked."""

    name: str
    status: str
    report: str
    trace: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    @property
    def exit_code(self) -> int:
        return {"passed": EXIT_PASSED, "failed": EXIT_FAILED}.get(self.status, EXIT_MALFORMED)


def run_text(text: str, name: str = "script.pkt", *, trace: bool = False) -> ScriptResult:
    """Run the script ``text``; ``name`` names it in the report."""
    status, report, lines = _core.run_script(text, name, trace)
    return ScriptResult(name, status, report, list(lines))


def run(path: str | Path, *, trace: bool = False) -> ScriptResult:
    """Run the script in file ``path`` (a missing file raises ``FileNotFoundError``)."""
    p = Path(path)
    return run_text(p.read_text(encoding="utf-8"), str(p), trace=trace)
