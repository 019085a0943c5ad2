"""Seed 002 (Weinrank, Tüxen, Rathgeb, "RACK for SCTP"): ``rexmit reproduce rack-sctp``. The
scenarios of §IV and §V.A, the sweeps of Figs. 2–7 and 10, and the index page; the plan (network,
points, captions, the choices where the paper gives no number) is in ``rack_sctp_plan``, the
claims in ``rack_sctp_claims``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rexmit import report as report_mod
from rexmit.recipes.common import Claim, run_recipe_sweep
from rexmit.recipes.rack_sctp_claims import claims as _claims
from rexmit.recipes.rack_sctp_plan import (
    ACCESS,
    BURST_LIMITS,
    BURST_ZIP,
    DEGREE_KEY,
    FIGURES,
    INTERVAL_KEY,
    LABELS,
    LOSS_KEY,
    MECHANISMS,
    NOTES,
    QUEUE_KEY,
    RACK_KEY,
    RTT,
    points,
)
from rexmit.sweep import Sweep
from rexmit.sweep import load as load_runs
from rexmit.view_pages import FlowViews


def _topology(queue: int, loss: float = 0.0, reorder: tuple[float, str] | None = None) -> dict[str, Any]:
    bottleneck: dict[str, Any] = {"rate": "10Mbps", "delay": "25ms", "queue": {"packets": queue}}
    if loss:
        bottleneck["errors"] = [{"kind": "uniform", "rate": loss, "direction": "both"}]
    if reorder:
        bottleneck["reorder"] = {"probability": reorder[0], "mean_delay": reorder[1], "direction": "forward"}
    return {
        "kind": "dumbbell",
        "bottleneck": bottleneck,
        "left": [{"name": "client", **ACCESS}, {"name": "udp_client", **ACCESS}],
        "right": [{"name": "server", **ACCESS}, {"name": "udp_server", **ACCESS}],
    }


def _base(stop: str, app: dict[str, Any], topology: dict[str, Any]) -> dict[str, Any]:
    app = {"name": "sctp", "from": "client", "to": "server", **app}
    app.setdefault("sctp", {})
    # Seed 002's INET SCTP predates the RFC 4960 errata: cwnd grows only when the cumulative ack
    # moves (rexmit's default is RFC 9260's rule).
    app["sctp"] = {
        "hb_interval": "0s",
        "cwnd_growth": "rfc4960",
        "rack": {"enabled": True, "reo_wnd_persist": "reordering"},
        **app["sctp"],
    }
    background = {"name": "background", "kind": "udp_random", "from": "udp_client", "to": "udp_server"}
    return {
        "stop_time": stop,
        "seed": 1,
        "description": "Seed 002: RACK for SCTP",
        "topology": topology,
        "apps": [app, background],
    }


def _signalling(stop: str, topology: dict[str, Any]) -> dict[str, Any]:
    """§IV.A: 50-byte messages at a constant interval (the `signalling` source)."""
    app = {"kind": "sctp_messages", "source": "signalling", "interarrival": {"kind": "fixed", "value": "10ms"}}
    return _base(stop, app, topology)


def _bulk(stop: str, topology: dict[str, Any]) -> dict[str, Any]:
    """§IV.B: full-sized frames at wire speed for 60 s (a greedy sender)."""
    return _base(stop, {"kind": "sctp_bulk", "sctp": {"send_buffer": "1MiB", "recv_buffer": "1MiB"}}, topology)


def _tail(queue: int) -> dict[str, Any]:
    """§V.A: 2000 messages of 1000 B at one per millisecond, the last 100 lost. The sender's
    INIT and COOKIE ECHO are its first two packets, so DATA packets 1901–2000 are packets
    1903–2002 of the flow."""
    app = {
        "kind": "sctp_messages",
        "interarrival": {"kind": "fixed", "value": "1ms"},
        "size": {"kind": "fixed", "value": 1000},
        "messages": 2000,
        "sctp": {"initial_cwnd": "145200B", "send_buffer": "4MiB", "recv_buffer": "4MiB"},
    }
    topo = _topology(queue)
    topo["bottleneck"]["errors"] = [
        {"kind": "scripted", "app": "sctp", "packets": list(range(1903, 2003)), "direction": "forward"}
    ]
    return _base("30s", app, topo)


def _labels(varied: list[str], zipped: bool) -> dict[str, Any]:
    chosen = {k: v for k, v in LABELS.items() if k in varied or k.startswith("flow.")}
    return {**chosen, "zip": BURST_LIMITS} if zipped else chosen


def _index(out: Path, quick: bool, reps: int, claims: list[Claim]) -> Path:
    drawn = [
        report_mod.sweep_figure(out / name, f"flow.sctp.{metric}", figures_dir=out / "figures", name=name, title=title)
        for name, (title, metric) in FIGURES.items()
    ]
    intro = [
        "Seed 002 (Weinrank, Tüxen, Rathgeb): RACK with tail loss probes and the adaptive burst limit against SCTP's three-miss rule (dupthresh) "
        f"on a 10 Mb/s, 50 ms RTT bottleneck with random UDP background traffic. {'Quick' if quick else 'Full'} version: {reps} run(s) per point.",
        *NOTES,
    ]
    return report_mod.reproduction_index(out, "rexmit reproduce rack-sctp (seed 002)", intro, claims, drawn)


def _run(
    out: Path,
    name: str,
    base: dict[str, Any],
    grid: dict[str, list[Any]],
    x: str,
    metrics: list[str],
    reps: int,
    jobs: int | None,
    zip_: dict[str, list[Any]] | None = None,
) -> list[dict[str, Any]]:
    spec: dict[str, Any] = {
        "name": f"seed 002 {name}",
        "replications": reps,
        "seed": 2,
        "base": base,
        "grid": grid,
        "report": {"x": x, "metrics": [f"flow.sctp.{m}" for m in metrics]},
    }
    spec["labels"] = _labels([*grid, *(zip_ or {})], bool(zip_))
    if zip_:
        spec["zip"] = zip_
    d = out / name
    run_recipe_sweep(Sweep.from_dict(spec), d, jobs=jobs, views="sctp")
    report_mod.report(d, notes=NOTES, views=FlowViews("sctp"))  # one traced run per point, linked
    return load_runs(d).to_pylist()


def rack_sctp(out: Path, quick: bool, jobs: int | None) -> list[Claim]:
    """Seed 002 Figures 2–7 (signalling and saturated traffic under loss and reordering) and the
    tail-loss study of Figures 8–10 (runs and points: `rack_sctp_plan.points`)."""
    pt = points(quick)
    reps = pt.reps
    mech = {RACK_KEY: [True, False]}
    rec = ["recovery_time_mean_s", "retransmissions", "latency_mean_s"]
    ia, sig, bulk = INTERVAL_KEY, pt.signalling_stop, pt.bulk_stop

    fig2 = _run(
        out,
        "fig2_recovery_loss",
        _signalling(sig, _topology(50, loss=0.01)),
        {ia: pt.intervals, **mech},
        ia,
        rec,
        reps,
        jobs,
    )
    fig3 = _run(
        out,
        "fig3_spurious_reordering",
        _signalling(sig, _topology(50, reorder=(0.05, "10ms"))),
        {ia: pt.fast, **mech},
        ia,
        ["dup_tsns_received", "retransmissions", "messages_delivered"],
        reps,
        jobs,
    )
    fig4 = _run(
        out,
        "fig4_recovery_loss_reordering",
        _signalling(sig, _topology(50, loss=0.01, reorder=(0.01, "10ms"))),
        {ia: pt.intervals, **mech},
        ia,
        rec,
        reps,
        jobs,
    )
    goodput = ["goodput_bps", "retransmissions", "dup_tsns_received"]
    fig5 = _run(
        out,
        "fig5_bulk_loss",
        _bulk(bulk, _topology(50, loss=0.01)),
        {LOSS_KEY: pt.losses, **mech},
        LOSS_KEY,
        goodput,
        reps,
        jobs,
    )
    fig6 = _run(
        out,
        "fig6_bulk_reordering",
        _bulk(bulk, _topology(50, reorder=(0.01, "10ms"))),
        {DEGREE_KEY: pt.degrees, **mech},
        DEGREE_KEY,
        goodput,
        reps,
        jobs,
    )
    fig7 = _run(
        out,
        "fig7_bulk_loss_reordering",
        _bulk(bulk, _topology(50, loss=0.01, reorder=(0.01, "5ms"))),
        {LOSS_KEY: pt.losses, **mech},
        LOSS_KEY,
        goodput,
        reps,
        jobs,
    )
    fig10 = _run(
        out,
        "fig10_tail_loss",
        _tail(10),
        {QUEUE_KEY: pt.queues},
        QUEUE_KEY,
        ["retransmissions", "tail_recoveries", "tlp_probes", "timeouts"],
        reps,
        jobs,
        zip_={k: list(v) for k, v in BURST_ZIP.items()},
    )
    claims = _claims(fig2, fig3, fig4, fig5, fig6, fig7, fig10, pt.intervals, pt.fast, pt.losses, pt.degrees, pt.queues)
    _index(out, quick, reps, claims)
    return claims


__all__ = ["rack_sctp", "RTT", "RACK_KEY", "MECHANISMS", "FIGURES", "LABELS", "BURST_LIMITS", "NOTES"]
