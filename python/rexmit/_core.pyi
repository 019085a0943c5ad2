"""Type stubs for the compiled module rexmit._core."""

from os import PathLike
from typing import Callable, TypedDict, final

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
    "run_script",
    "_panic_for_test",
    "PluginError",
    "register_cc",
    "controllers",
    "plugin_calls",
    "ControllerParams",
    "Ack",
    "CongestionEvent",
    "Timeout",
    "EcnEcho",
    "Undo",
    "Connected",
    "Recovery",
    "IdleRestart",
    "RateAck",
    "register_loss",
    "loss_policies",
    "DupThreshState",
    "ReoWndState",
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
def run_script(text: str, name: str = "script.pkt", trace: bool = False) -> tuple[str, str, list[str]]:
    """Run a packetdrill-style script: (status, report, trace); status is "passed", "failed" or "malformed"."""
    ...

def _panic_for_test(msg: str) -> None:
    """Test hook: a Rust panic inside the FFI guard, raised here as ``InternalError``."""
    ...

class PluginError(Exception):
    """A congestion-control plugin raised an exception or reported a window that is not one."""

def register_cc(
    name: str,
    factory: object,
    params: list[tuple[str, str, float, float, float, bool, bool, bool]],
    defined: list[str],
    wants_rate_samples: bool = False,
    doc: str = "",
    replace: bool = False,
) -> None: ...
def controllers() -> list[tuple[str, str, bool]]: ...
def plugin_calls() -> int: ...
def register_loss(
    name: str,
    factory: object,
    params: list[tuple[str, str, float, float, float, bool, bool, bool]],
    defined: list[str],
    doc: str = "",
    replace: bool = False,
) -> None: ...
def loss_policies() -> list[tuple[str, str, bool]]: ...

@final
class DupThreshState:
    now_ns: int
    dup_thresh: int
    dupacks: int
    outstanding: int
    new_data_sendable: bool
    early_retransmit: bool
    thin: bool
    in_recovery: bool
    dsacks: int

@final
class ReoWndState:
    now_ns: int
    reordering_seen: bool
    reo_wnd_mult: int
    in_recovery: bool
    segs_sacked: int
    dup_thresh: int
    rack_rtt_ns: int
    min_rtt_ns: int | None
    srtt_ns: int | None
    dsacks: int

@final
class ControllerParams:
    initial_cwnd: int
    initial_ssthresh: int
    smss: int
    byte_counting: bool
    whole_segments: bool
    slow_start_limit: int
    hystart: bool
    hystart_detect: int
    cubic_alpha_switch: bool
    cubic_idle_epoch: bool
    cc: dict[str, float]

@final
class Ack:
    now: float
    now_ns: int
    acked: int
    delivered: int
    srtt: float | None
    srtt_ns: int | None
    min_rtt: float | None
    min_rtt_ns: int | None
    rtt: float | None
    rtt_ns: int | None
    snd_una: int
    snd_nxt: int
    ece: bool

@final
class CongestionEvent:
    now: float
    now_ns: int
    cause: str
    base: int
    smss: int

@final
class Timeout:
    now: float
    now_ns: int
    base: int
    smss: int
    repeated: bool
    in_recovery: bool
    prior_ssthresh: int
    lost_total: int
    def ssthresh_to_keep(self, computed: int) -> int: ...
    def congestion_event(self) -> CongestionEvent: ...

@final
class EcnEcho:
    now: float
    now_ns: int
    base: int
    smss: int
    def congestion_event(self) -> CongestionEvent: ...

@final
class Undo:
    now: float
    now_ns: int
    cause: str
    prior_cwnd: int
    prior_ssthresh: int

@final
class Connected:
    now: float
    now_ns: int
    smss: int
    srtt: float | None
    min_rtt: float | None

@final
class Recovery:
    now: float
    now_ns: int
    cause: str | None
    recovery_point: int | None
    by_timeout: bool | None

@final
class IdleRestart:
    now: float
    now_ns: int
    idle: float
    restart_window: int
    ssthresh_floor: int

@final
class RateAck:
    now: float
    now_ns: int
    delivery_rate: int | None
    sample_delivered: int
    interval_ns: int
    prior_in_flight: int
    sample_rtt: float | None
    delivered: int
    in_flight: int
    losses: int
    lost_total: int
    ca_state: str
    srtt: float | None
