"""Seed 003 (sizing of TCP retransmission and out-of-order buffers): ``rexmit reproduce buffer-sizing``."""

from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import Any

from rexmit import buffer_model as model
from rexmit import report as report_mod
from rexmit.recipes.buffer_sizing_claims import Curve
from rexmit.recipes.buffer_sizing_claims import claims as _claims
from rexmit.recipes.buffer_sizing_plan import (
    B_PACKETS,
    BOTTLENECK,
    GOODPUT,
    GRIDS,
    INITIAL_WINDOW,
    MSS,
    NEWRENO_RTO,
    PACKET_SIZE,
    QUICK_GRIDS,
    QUICK_SETTINGS,
    RATE_BPS,
    REFINE,
    RTT_M_S,
    RTXQ_MAX,
    SETTINGS,
    UNLIMITED,
    UTILIZATION,
)
from rexmit.recipes.buffer_sizing_plan import (
    requirement as _requirement,
)
from rexmit.recipes.common import Claim, run_recipe_sweep
from rexmit.sweep import Sweep, summarize


def _grid(sizes: list[str], settings: list[tuple[float, float]], recovery: str) -> list[str]:
    """``sizes`` and, for every (a, b), REFINE times the model's buffer in whole MB, in increasing
    size: the knee is then resolved to about ±10% of the model's prediction."""
    grid = {report_mod.as_number(s)[0] or 0.0: s for s in sizes}
    for a, b in settings:
        need = _requirement(a, b).send_buffer_bytes(recovery)
        for factor in REFINE:
            mb = round(factor * need / 1e6)
            grid.setdefault(mb * 1e6, f"{mb}MB")
    return [grid[k] for k in sorted(grid)]


def _initial_ssthresh(settings: list[tuple[float, float]]) -> int:
    """Slow start ends 4 RTTs of congestion avoidance (of the fastest setting) before the loss
    point, so the first loss episode comes early; its last round queues ssthresh/2 < B packets."""
    c = model.packet_rate(RATE_BPS, PACKET_SIZE)
    fastest = max(model.increase_per_rtt(c, RTT_M_S, B_PACKETS, a) for a, _ in settings)
    segments = math.floor(model.window_at_loss(c, RTT_M_S, B_PACKETS) - 4 * fastest)
    if segments / 2 >= B_PACKETS:
        raise ValueError(
            f"initial_ssthresh: slow start to {segments} segments would overflow the {B_PACKETS}-packet bottleneck"
        )
    return segments * MSS


def _base(recovery: str, stop: str, ssthresh: int) -> dict[str, Any]:
    tcp: dict[str, Any] = {
        "recovery": recovery,
        "sack": recovery == "sack",  # the paper's NewReno does not use SACK
        "cc": "aimd",
        "aimd_a": 1.0,  # set per setting by the sweep
        "aimd_b": 0.5,
        "mss": MSS,
        "timestamps": False,
        "ack_every": 1,  # ns-2's sink: the model counts one ACK per packet
        "initial_ssthresh": ssthresh,
        # The start-up is not what the paper studies: the largest initial window rexmit allows
        # (its burst fits in B) reaches the loss point in 4 RTTs of slow start instead of 12.
        "initial_cwnd_segments": INITIAL_WINDOW,
        "send_buffer": UNLIMITED,
        "recv_buffer": UNLIMITED,
    }
    if recovery == "newreno":
        tcp["rto"] = dict(NEWRENO_RTO)
    huge = {"packets": 1_000_000}  # access links never drop
    return {
        "stop_time": stop,
        "seed": 1,
        "description": f"Seed 003 Fig. 3/4: one {recovery} flow, 200 Mb/s, RTTm 300 ms, B = {B_PACKETS} packets",
        "topology": {
            "kind": "chain",
            "nodes": ["S", "R1", "R2", "D"],
            "links": [
                {"rate": "10Gbps", "delay": "1ms", "queue": huge},
                {"rate": f"{RATE_BPS / 1e6:g}Mbps", "delay": "148ms", "queue": {"packets": B_PACKETS}},
                {"rate": "10Gbps", "delay": "1ms", "queue": huge},
            ],
        },
        "apps": [{"name": "bulk", "kind": "tcp_bulk", "from": "S", "to": "D", "tcp": tcp}],
    }


def _settings_zip(settings: list[tuple[float, float]]) -> dict[str, list[Any]]:
    c = model.packet_rate(RATE_BPS, PACKET_SIZE)
    return {
        "apps[0].tcp.aimd_a": [round(model.increase_per_rtt(c, RTT_M_S, B_PACKETS, a), 9) for a, _ in settings],
        "apps[0].tcp.aimd_b": [b for _, b in settings],
    }


def _size(value: Any) -> float:
    """A buffer size of the sweep's grid in bytes (the recipe writes them as quantities)."""
    size = report_mod.as_number(value)[0]
    if size is None:
        raise ValueError(f"buffer size {value!r}: not a quantity")
    return size


def _curves(out: Path, key: str, settings: list[tuple[float, float]]) -> dict[tuple[float, float], Curve]:
    """Per (a, b): the sweep's points in increasing buffer size."""
    per_rtt = dict(zip(_settings_zip(settings)["apps[0].tcp.aimd_a"], settings))
    rows = summarize(out).to_pylist()
    curves: dict[tuple[float, float], Curve] = {}
    for r in sorted(rows, key=lambda r: _size(r[f"param.{key}"])):
        c = curves.setdefault(per_rtt[r["param.apps[0].tcp.aimd_a"]], Curve([], [], [], []))
        c.sizes.append(_size(r[f"param.{key}"]))
        c.utilization.append(r[f"{UTILIZATION}.mean"])
        c.goodput.append(r[f"{GOODPUT}.mean"])
        c.rtxq_max.append(r[f"{RTXQ_MAX}.mean"])
    return curves


def _table_i(settings: list[tuple[float, float]]) -> list[dict[str, Any]]:
    rows = []
    c = model.packet_rate(RATE_BPS, PACKET_SIZE)
    for a, b in settings:
        q = _requirement(a, b)
        rows.append(
            {
                "a (per ACK)": a,
                "b": b,
                "aimd_a (segments/RTT)": round(model.increase_per_rtt(c, RTT_M_S, B_PACKETS, a), 3),
                "N = a(C RTTm + B)": round(q.loss_count, 2),
                "W(t2) packets": round(q.window_at_detection, 1),
                "condition i": q.condition_i,
                "condition ii": q.condition_ii,
                "NewReno Q packets": round(q.newreno_packets),
                "NewReno Q MB": round(q.newreno_bytes / 1e6, 1),
                "SACK Q packets": round(q.sack_packets),
                "SACK Q MB": round(q.sack_bytes / 1e6, 1),
            }
        )
    return rows


def _notes(quick: bool, stop: str, ssthresh: int) -> list[str]:
    return [
        "Seed 003 Fig. 4: goodput of one TCP flow against the size of its retransmission (send) or out-of-order "
        "(receive) buffer, C = 200 Mb/s, RTTm = 300 ms, 1500 B packets; the other buffer is 2^30 B. Dashed lines: "
        "the buffer the model predicts (point iii; Eq. 3 for NewReno, U_1 for SACK), one per (a, b) in the colour of its line.",
        f"Choices where the paper gives none: losses are the flow's own drop-tail overflows at a bottleneck buffer of B = {B_PACKETS} "
        f"packets (1.4 C RTTm), the loss process the model describes; {stop} per run ({'quick' if quick else 'full'}), one run per point "
        "(nothing is random but the initial sequence numbers); ACK every segment; no timestamps; initial ssthresh "
        f"{ssthresh // MSS} segments (slow start ends just below the loss point without overflowing B) and initial window {INITIAL_WINDOW} "
        "segments (a short start-up); NewReno without SACK and with "
        f"RTO.min 30 s (see the buffer-sizing recipe: RFC 6582 restarts the timer only on the first partial ACK).",
        "The paper's per-ACK increase a is given to rexmit's cc = \"aimd\" as aimd_a = a (C RTTm + B) segments per RTT, the same "
        "per-ACK increase at the loss point, hence the same a (C RTTm + B) losses per episode; the legend shows aimd_a / aimd_b.",
        f"Utilisation of the bottleneck ({BOTTLENECK}) is the goodput measure used for the claims: NewReno's receiver releases a whole "
        "recovery's data at once, so application goodput depends on where the run stops, and flow goodput_bps counts bytes "
        "delivered since the start of the run. Both include the slow start at the beginning.",
        "Below C RTTm + B packets a buffer clamps the window under the loss point, no loss happens, and goodput is full: the "
        "grids start above it.",
        "Below the model's size the sender stalls once U reaches the buffer; when the recovery ACK frees it, the sender sends "
        "cwnd − pipe segments back to back (no pacing), which can overflow B and start another recovery (more recoveries and "
        "drops in the table). A receive-buffer limit softens this burst a little: the ACK that ends the recovery advertises the "
        "window left after the reassembled data, which the application has not read yet.",
        "The model's Q ≥ U is sufficient; it is also necessary only when B is just large enough for condition ii. While a sender "
        "short of buffer waits during recovery, the bottleneck queue keeps the link busy for up to B − b·W(t2) packets more; "
        "SACK's single recovery RTT fits in that slack, so its simulated knee can lie that much (here about 10 MB) below Q, "
        "whereas NewReno's U grows by about C·RTTm + B − b·W(t2) packets every RTT of its recovery.",
    ]


def _labels(key: str | None, settings: list[tuple[float, float]]) -> dict[str, Any]:
    """The figures' names: the varied buffer (``key``) in MB, one line per (a, b) as the paper
    writes them."""
    buffer = {key: {"name": "Send buffer" if "send" in key else "Receive buffer", "unit": "MB"}} if key else {}
    return {
        **buffer,
        UTILIZATION: "Bottleneck utilisation",
        GOODPUT: {"name": "Goodput", "unit": "Mb/s"},
        RTXQ_MAX: {"name": "Largest retransmission queue", "unit": "MB"},
        "zip": [f"a = {a:g}, b = {b:g}" for a, b in settings],
    }


def _markers(recovery: str, settings: list[tuple[float, float]]) -> list[report_mod.Marker]:
    """Where the model says the buffer stops limiting goodput; and the most unacknowledged data it
    predicts, which the max retransmission queue reaches once the buffer is larger."""
    zipped = _settings_zip(settings)
    marks = []
    for i, (a, b) in enumerate(settings):
        need = _requirement(a, b).send_buffer_bytes(recovery)
        group = {k: zipped[k][i] for k in zipped}
        marks.append(
            report_mod.Marker(
                f"{need:.0f}B",
                f"model a={a:g} b={b:g}: {need / 1e6:.1f} MB",
                group=group,
                metrics=[UTILIZATION, GOODPUT],
            )
        )
        marks.append(
            report_mod.Marker(
                need, f"model U a={a:g} b={b:g}: {need / 1e6:.1f} MB", axis="y", group=group, metrics=[RTXQ_MAX]
            )
        )
    return marks


def _index(
    out: Path,
    quick: bool,
    stop: str,
    settings: list[tuple[float, float]],
    claims: list[Claim],
    table: list[dict[str, Any]],
) -> Path:
    drawn = []
    for recovery, paper in (("newreno", "NewReno"), ("sack", "SACK")):
        for kind, what in (("send", "send buffer"), ("recv", "receive buffer")):
            name = f"fig4_{recovery}_{kind}_buffer"
            title = f"Fig. 4: goodput (bottleneck utilisation) of {paper} against the {what}, C = 200 Mb/s, RTTm = 300 ms, 1500 B packets"
            drawn.append(
                report_mod.sweep_figure(
                    out / name,
                    UTILIZATION,
                    f"apps[0].tcp.{kind}_buffer",
                    out / "figures",
                    name,
                    title,
                    _markers(recovery, settings),
                )
            )
    intro = [
        "Seed 003: goodput of one NewReno and one SACK flow against the send and the receive buffer, with the buffer the model requires drawn on each figure "
        f"(dashed). {'Quick' if quick else 'Full'} version: {stop} runs, (a, b) = {', '.join(f'({a:g}, {b:g})' for a, b in settings)}.",
        "Choices where the paper gives no number are in the recipe's docstring (rexmit/recipes/buffer_sizing.py) and in each report.",
    ]
    return report_mod.reproduction_index(
        out,
        "rexmit reproduce buffer-sizing (seed 003)",
        intro,
        claims,
        drawn,
        [("Table I: buffers the model requires", report_mod.html_table(table))],
    )


def _run(
    out: Path,
    name: str,
    recovery: str,
    key: str,
    sizes: list[str],
    settings: list[tuple[float, float]],
    stop: str,
    ssthresh: int,
    jobs: int | None,
    quick: bool,
    table: list[dict[str, Any]],
) -> dict[tuple[float, float], Curve]:
    spec = {
        "name": f"seed 003 {name}",
        "replications": 1,
        "base": _base(recovery, stop, ssthresh),
        "grid": {key: sizes},
        "zip": _settings_zip(settings),
        "report": {"x": key, "metrics": [UTILIZATION, GOODPUT, RTXQ_MAX]},
        "labels": _labels(key, settings),
    }
    fig_dir = out / name
    run_recipe_sweep(Sweep.from_dict(spec), fig_dir, jobs=jobs)
    marks = _markers(recovery, settings)
    report_mod.report(
        fig_dir,
        markers=marks,
        notes=_notes(quick, stop, ssthresh),
        tables=[("Seed 003 Table I: buffers the model requires", table)],
    )
    return _curves(fig_dir, key, settings)


def buffer_sizing(out: Path, quick: bool, jobs: int | None) -> list[Claim]:
    """Seed 003 Fig. 4 and Table I: goodput of one NewReno and one SACK flow against the size of the
    send buffer and, separately, of the receive buffer, with the model's required size drawn on
    the figures, for several (a, b) of the generalised AIMD; and the checks of the paper's claims.

    C = 200 Mb/s, RTTm = 300 ms, 1500 B packets (the paper's). Choices where the paper gives no
    number: the loss process is the flow's own overflow of a drop-tail bottleneck buffer of
    B = 7000 packets (1.4·C·RTTm), which is what the model analyses; (a, b) = (0.0005, 0.0125),
    (0.001, 0.025), (0.002, 0.05) (b/a = 25 RTTs of congestion avoidance, N = 6, 12, 24 losses
    per episode); one run per point (deterministic but for sequence numbers); ACK every segment;
    initial window 1000 segments and ssthresh just below the loss point (a short start-up);
    NewReno without SACK and with RTO.min 30 s so that a timeout does not end its N-RTT recovery
    (RFC 6582 restarts the timer on the first partial ACK only; the full run shows that case too).
    Full: 40 s per run (one or two loss episodes after the start-up), 5 (NewReno) or 4 (SACK)
    buffer sizes per curve plus 0.9 and 1.1 times the model's buffer of each (a, b) (11 and 6
    sizes). Quick: 10 s, (a, b) = (0.0005, 0.0125) only, 2 sizes per curve (one below and one
    above the model's prediction) plus its 0.9 and 1.1 times.
    """
    settings = QUICK_SETTINGS if quick else SETTINGS
    grids = QUICK_GRIDS if quick else GRIDS
    stop = "10s" if quick else "40s"
    ssthresh = _initial_ssthresh(settings)
    table = _table_i(settings)
    out.mkdir(parents=True, exist_ok=True)
    with (out / "table_I.csv").open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(table[0]))
        w.writeheader()
        w.writerows(table)
    curves: dict[tuple[str, str], dict[tuple[float, float], Curve]] = {}
    for recovery in ("newreno", "sack"):
        for kind in ("send", "recv"):
            key = f"apps[0].tcp.{kind}_buffer"
            curves[(recovery, kind)] = _run(
                out,
                f"fig4_{recovery}_{kind}_buffer",
                recovery,
                key,
                _grid(grids[recovery], settings, recovery),
                settings,
                stop,
                ssthresh,
                jobs,
                quick,
                table,
            )
    claims = _claims(curves, settings)
    if not quick:
        claims.append(_rfc6582_check(out, settings, stop, ssthresh, jobs))
    _index(out, quick, stop, settings, claims, table)
    return claims


def _rfc6582_check(out: Path, settings: list[tuple[float, float]], stop: str, ssthresh: int, jobs: int | None) -> Claim:
    """NewReno with rexmit's default RTO (1 s floor, RFC 6582 timer rule) and unlimited buffers."""
    base = _base("newreno", stop, ssthresh)
    del base["apps"][0]["tcp"]["rto"]
    spec = {
        "name": "seed 003 NewReno with RFC 6582's timer",
        "base": base,
        "zip": _settings_zip(settings),
        "report": {"metrics": [UTILIZATION, "flow.bulk.timeouts", RTXQ_MAX]},
        "labels": _labels(None, settings),
    }
    fig_dir = out / "rfc6582_rto"
    run_recipe_sweep(Sweep.from_dict(spec), fig_dir, jobs=jobs)
    report_mod.report(fig_dir)
    rows = summarize(fig_dir).to_pylist()
    timeouts = [r["flow.bulk.timeouts.mean"] for r in rows]
    nums = ", ".join(
        f"a={a:g}: {t:.0f} timeouts, utilisation {r[f'{UTILIZATION}.mean']:.3f}, max U {r[f'{RTXQ_MAX}.mean'] / MSS:.0f} packets (model {_requirement(a, b).newreno_packets:.0f})"
        for (a, b), t, r in zip(settings, timeouts, rows)
    )
    return Claim(
        "buffer-sizing/rfc6582-timer-cuts-newreno-recovery",
        "(modelling check, not a paper claim) with RFC 6582's timer rule and RTO.min 1 s, NewReno's N-RTT recovery is cut short by timeouts, so Eq. 3 does not apply",
        all(t > 0 for t in timeouts),
        nums,
        sanity=True,
        why="a check of the recipe's set-up (why NewReno runs with RTO.min 30 s), not a claim of the paper",
    )
