"""What ``rexmit reproduce nr-sack`` (seed 000) runs: the send buffers, ack schemes, loads and run
sizes of the full and quick versions, and the metrics it reads. The setup and the choices are
described in :mod:`rexmit.recipes.nr_sack`."""

from __future__ import annotations

from dataclasses import dataclass

from rexmit.recipes import seed000_setup as setup

INF = "1GiB"
# §V: send buffers (ns-2's K = 1024 bytes).
SCTP_BUFFERS = {"32K": "32KiB", "64K": "64KiB", "INF": INF}
CMT_BUFFERS = {"128K": "128KiB", "256K": "256KiB", "INF": INF}
ACKS = {"SACK": False, "NR-SACK": True}
# §IV.A: in CMT evaluations, path 2 stays at low load.
PATH2_LOAD = "low"
F = f"flow.{setup.SCTP_APP}."
# Derived per run from the sampled series over the trace window (see the module docstring).
GOODPUT = "goodput_trace_bps"
BLOCKED = "send_blocked_trace_fraction"
SERIES_GOODPUT = f"{setup.SCTP_APP}:bytes_delivered"
SERIES_RTXQ = f"{setup.SCTP_APP}:rtxq_bytes"
SCTP_METRICS = [
    F + m
    for m in ("rtxq_util_l", "rtxq_util", "send_blocked_fraction", "timeouts", "rtxq_bytes_mean", "fast_retransmits")
]
CMT_METRICS = [
    F + m
    for m in ("rtxq_util", "timeouts", "send_blocked_fraction", "rtxq_bytes_mean", "path0_timeouts", "path1_timeouts")
]


@dataclass(frozen=True)
class Plan:
    """What a version of the recipe runs. Built from named fields."""

    loads: tuple[str, ...]
    sctp_buffers: tuple[str, ...]
    cmt_buffers: tuple[str, ...]
    replications: int
    timing: setup.Timing
    calibration_runs: int  # 0: no calibration sweep


FULL = Plan(
    loads=tuple(setup.LOADS),
    sctp_buffers=tuple(SCTP_BUFFERS),
    cmt_buffers=tuple(CMT_BUFFERS),
    replications=5,
    timing=setup.Timing(),
    calibration_runs=3,
)
QUICK = Plan(
    loads=("low", "heavy"),
    sctp_buffers=("64K",),
    cmt_buffers=("128K",),
    replications=1,
    timing=setup.Timing(stop_s=25.0, sctp_start=(6.0, 8.0), warmup_s=8.0),
    calibration_runs=0,
)

Key = tuple[str, str, str]  # (load, buffer, ack)
