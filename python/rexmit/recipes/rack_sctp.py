"""Seed 002 (Weinrank, Tüxen, Rathgeb, "RACK for SCTP"): ``rexmit reproduce rack-sctp``.

Setting (§IV): a client sends over a 10 Mb/s bottleneck with 50 ms RTT to a server; hosts sit on
lossless 1 Gb/s links without delay; a UDP client sends random background traffic (100–1000 B
every 25–100 ms) across the same bottleneck. RACK (with tail loss probes and the adaptive burst
limit, §V) against SCTP's three-miss rule ("dupthresh").

Choices where the paper gives no number, stated in the report too:

- the bottleneck's drop-tail queue holds 50 packets (≈ one bandwidth-delay product of full
  frames), except in the tail-loss study (§V.A: 10 packets, and the capacities of Fig. 10);
- loss and reordering act on the bottleneck: loss in both directions ("drop one percent of all
  packets"), reordering on the data direction (the paper delays packets leaving the SCTP
  sender);
- signalling runs last 1000 s per point instead of 100 000 messages each (100 000 messages at
  the shortest interval, fewer at longer ones); heartbeats are off so that only the
  mechanisms under study act;
- the tail-loss sender starts with a congestion window of 100 packets so that it is
  application-limited at 1 packet/ms when the tail is lost, as in Fig. 8 (cwnd > 70 there);
- the queue capacities of Fig. 10 are 5, 10, 20 and 50 packets, and the burst limits compared
  are none, Max.Burst 4, 3 and 2, and the adaptive limit;
- RACK keeps a widened reordering window for 16 recoveries after the last reordering it
  detects (§II.B: "once no more reordering is detected, the inflated reordering window should
  be kept for a period of 16 loss recoveries"; `rack.reo_wnd_persist = "reordering"`), where
  RFC 8985 counts the 16 from the last D-SACK: under constant reordering this gives §IV's
  "reordering window of a single RTT".
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any, Optional

from rexmit import report as report_mod
from rexmit.sweep import Sweep, load as load_runs, run_sweep
from rexmit.recipes.common import Claim, param_key

RTT = 0.050
RACK_KEY = "apps[0].sctp.rack.enabled"
MECHANISMS = {True: "RACK", False: "dupthresh"}
ACCESS = {"rate": "1Gbps", "delay": "0ms"}
NOTES = [line.strip() for line in (__doc__ or "").split("- ")[1:]]


def _topology(queue: int, loss: float = 0.0, reorder: Optional[tuple[float, str]] = None) -> dict[str, Any]:
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
    app["sctp"] = {"hb_interval": "0s", "rack": {"enabled": True, "reo_wnd_persist": "reordering"}, **app["sctp"]}
    background = {"name": "background", "kind": "udp_random", "from": "udp_client", "to": "udp_server"}
    return {"stop_time": stop, "seed": 1, "description": "Seed 002: RACK for SCTP", "topology": topology, "apps": [app, background]}


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
    topo["bottleneck"]["errors"] = [{"kind": "scripted", "app": "sctp", "packets": list(range(1903, 2003)), "direction": "forward"}]
    return _base("30s", app, topo)


# The paper's names on the figures: its captions (seed 002 Figs. 2-10) with the metric drawn on
# the index page, and the names of the varied keys and their values.
FIGURES = {
    "fig2_recovery_loss": ("Fig. 2: recovery time in relation to the sending rate at 1% packet loss", "recovery_time_mean_s"),
    "fig3_spurious_reordering": ("Fig. 3: amount of spurious retransmissions in relation to the send interval", "dup_tsns_received"),
    "fig4_recovery_loss_reordering": ("Fig. 4: recovery time in relation to the send interval at 1% packet loss and reordering", "recovery_time_mean_s"),
    "fig5_bulk_loss": ("Fig. 5: goodput in relation to packet loss for a bulk transfer", "goodput_bps"),
    "fig6_bulk_reordering": ("Fig. 6: goodput in relation to packet reordering degree at 1% probability", "goodput_bps"),
    "fig7_bulk_loss_reordering": ("Fig. 7: goodput in relation to packet loss and a static reordering degree", "goodput_bps"),
    "fig10_tail_loss": ("Fig. 10: retransmissions to recover a tail loss of 100 packets, by bottleneck queue and burst limit", "retransmissions"),
}
LABELS: dict[str, Any] = {
    RACK_KEY: {"name": "Loss detection", "values": {"true": "RACK", "false": "dupthresh"}},
    "apps[0].interarrival.value": {"name": "Send interval", "unit": "ms"},
    "topology.bottleneck.errors[0].rate": "Packet loss rate",
    "topology.bottleneck.reorder.mean_delay": {"name": "Reordering degree", "unit": "ms"},
    "topology.bottleneck.queue.packets": "Bottleneck queue (packets)",
    "flow.sctp.goodput_bps": {"name": "Goodput", "unit": "Mb/s"},
    "flow.sctp.recovery_time_mean_s": {"name": "Recovery time", "unit": "ms"},
    "flow.sctp.dup_tsns_received": "Spurious retransmissions",
}
BURST_LIMITS = ["no mitigation", "Max.Burst 4", "Max.Burst 3", "Max.Burst 2", "adaptive"]


def _labels(varied: list[str], zipped: bool) -> dict[str, Any]:
    chosen = {k: v for k, v in LABELS.items() if k in varied or k.startswith("flow.")}
    return {**chosen, "zip": BURST_LIMITS} if zipped else chosen


def _index(out: Path, quick: bool, reps: int, claims: list[Claim]) -> Path:
    drawn = [report_mod.sweep_figure(out / name, f"flow.sctp.{metric}", figures_dir=out / "figures", name=name, title=title) for name, (title, metric) in FIGURES.items()]
    intro = [
        "Seed 002 (Weinrank, Tüxen, Rathgeb): RACK with tail loss probes and the adaptive burst limit against SCTP's three-miss rule (dupthresh) "
        f"on a 10 Mb/s, 50 ms RTT bottleneck with random UDP background traffic. {'Quick' if quick else 'Full'} version: {reps} run(s) per point.",
        *NOTES,
    ]
    return report_mod.reproduction_index(out, "rexmit reproduce rack-sctp (seed 002)", intro, claims, drawn)


def _run(out: Path, name: str, base: dict[str, Any], grid: dict[str, list[Any]], x: str, metrics: list[str], reps: int, jobs: Optional[int], zip_: Optional[dict[str, list[Any]]] = None) -> list[dict[str, Any]]:
    spec: dict[str, Any] = {"name": f"seed 002 {name}", "replications": reps, "seed": 2, "base": base, "grid": grid, "report": {"x": x, "metrics": [f"flow.sctp.{m}" for m in metrics]}}
    spec["labels"] = _labels([*grid, *(zip_ or {})], bool(zip_))
    if zip_:
        spec["zip"] = zip_
    d = out / name
    run_sweep(Sweep.from_dict(spec), d, jobs=jobs)
    report_mod.report(d, notes=NOTES, views="sctp")  # one traced run per point, linked
    return load_runs(d).to_pylist()


def _mean(rows: list[dict[str, Any]], metric: str, **params: Any) -> float:
    vals = [r[f"flow.sctp.{metric}"] for r in rows if all(r[f"param.{k}"] == param_key(v) for k, v in params.items())]
    vals = [v for v in vals if v is not None and v == v]
    return statistics.mean(vals) if vals else float("nan")


def rack_sctp(out: Path, quick: bool, jobs: Optional[int]) -> list[Claim]:
    """Seed 002 Figures 2–7 (signalling and saturated traffic under loss and reordering) and the
    tail-loss study of Figures 8–10. Full: 10 runs per point (the paper's), 1000 s signalling
    runs, 60 s bulk runs. Quick: 1 run, 2 points per figure, 200 s / 20 s runs."""
    reps = 1 if quick else 10
    sig_stop, bulk_stop = ("200s", "20s") if quick else ("1000s", "60s")
    intervals = ["10ms", "50ms"] if quick else ["10ms", "20ms", "50ms", "100ms"]
    fast = ["2ms", "10ms"] if quick else ["1ms", "2ms", "5ms", "10ms", "20ms"]
    losses = [0.01, 0.05] if quick else [0.001, 0.005, 0.01, 0.02, 0.05]
    degrees = ["5ms", "50ms"] if quick else ["1ms", "5ms", "10ms", "20ms", "50ms"]
    ia_key = "apps[0].interarrival.value"
    mech = {RACK_KEY: [True, False]}
    rec = ["recovery_time_mean_s", "retransmissions", "latency_mean_s"]

    fig2 = _run(out, "fig2_recovery_loss", _signalling(sig_stop, _topology(50, loss=0.01)), {ia_key: intervals, **mech}, ia_key, rec, reps, jobs)
    fig3 = _run(out, "fig3_spurious_reordering", _signalling(sig_stop, _topology(50, reorder=(0.05, "10ms"))), {ia_key: fast, **mech}, ia_key, ["dup_tsns_received", "retransmissions", "messages_delivered"], reps, jobs)
    fig4 = _run(out, "fig4_recovery_loss_reordering", _signalling(sig_stop, _topology(50, loss=0.01, reorder=(0.01, "10ms"))), {ia_key: intervals, **mech}, ia_key, rec, reps, jobs)
    loss_key = "topology.bottleneck.errors[0].rate"
    goodput = ["goodput_bps", "retransmissions", "dup_tsns_received"]
    fig5 = _run(out, "fig5_bulk_loss", _bulk(bulk_stop, _topology(50, loss=0.01)), {loss_key: losses, **mech}, loss_key, goodput, reps, jobs)
    deg_key = "topology.bottleneck.reorder.mean_delay"
    fig6 = _run(out, "fig6_bulk_reordering", _bulk(bulk_stop, _topology(50, reorder=(0.01, "10ms"))), {deg_key: degrees, **mech}, deg_key, goodput, reps, jobs)
    fig7 = _run(out, "fig7_bulk_loss_reordering", _bulk(bulk_stop, _topology(50, loss=0.01, reorder=(0.01, "5ms"))), {loss_key: losses, **mech}, loss_key, goodput, reps, jobs)
    queue_key = "topology.bottleneck.queue.packets"
    queues = [10, 20] if quick else [5, 10, 20, 50]
    limits = {"apps[0].sctp.rack.burst_mitigation": ["none", "max_burst", "max_burst", "max_burst", "adaptive"], "apps[0].sctp.max_burst": [4, 4, 3, 2, 4]}
    fig10 = _run(out, "fig10_tail_loss", _tail(10), {queue_key: queues}, queue_key, ["retransmissions", "tail_recoveries", "tlp_probes", "timeouts"], reps, jobs, zip_=limits)
    claims = _claims(fig2, fig3, fig4, fig5, fig6, fig7, fig10, intervals, fast, losses, degrees, queues)
    _index(out, quick, reps, claims)
    return claims


def _fmt_ms(v: float) -> str:
    return f"{v * 1e3:.0f} ms"


def _claims(fig2, fig3, fig4, fig5, fig6, fig7, fig10, intervals, fast, losses, degrees, queues) -> list[Claim]:  # type: ignore[no-untyped-def]
    ia = "apps[0].interarrival.value"
    claims = []
    r10 = _mean(fig2, "recovery_time_mean_s", **{ia: "10ms", RACK_KEY: True})
    claims.append(Claim("rack-sctp/fig2-rack-recovers-in-one-rtt", "Fig. 2: at a 10 ms interval RACK recovers in about one RTT (< 1.5 RTT)", r10 < 1.5 * RTT, f"RACK {_fmt_ms(r10)}, RTT 50 ms", paper="about 50 ms, near the lower limit of one RTT (§IV.A)"))
    r50, d50 = (_mean(fig2, "recovery_time_mean_s", **{ia: "50ms", RACK_KEY: m}) for m in (True, False))
    claims.append(Claim("rack-sctp/fig2-dupthresh-twice-as-long-at-50ms", "Fig. 2: at a 50 ms interval dupthresh takes more than twice as long as RACK", d50 > 2 * r50, f"RACK {_fmt_ms(r50)}, dupthresh {_fmt_ms(d50)}", paper="dupthresh more than 2× RACK's recovery time"))
    pairs = {i: tuple(_mean(fig2, "recovery_time_mean_s", **{ia: i, RACK_KEY: m}) for m in (True, False)) for i in intervals}
    claims.append(Claim("rack-sctp/fig2-advantage-grows-as-rate-falls", "Fig. 2: RACK's advantage grows as the sending rate falls", pairs[intervals[-1]][1] - pairs[intervals[-1]][0] > pairs[intervals[0]][1] - pairs[intervals[0]][0], ", ".join(f"{i}: {_fmt_ms(r)} vs {_fmt_ms(d)}" for i, (r, d) in pairs.items())))
    sp = {i: tuple(_mean(fig3, "dup_tsns_received", **{ia: i, RACK_KEY: m}) for m in (True, False)) for i in fast}
    # §4: "RACK provides a much better robustness against spurious retransmissions" (10 ms: 40
    # vs 236 of 100,000; "this ratio increases for lower send intervals"): every interval.
    claims.append(Claim("rack-sctp/fig3-fewer-spurious-retransmissions", "Fig. 3: under 5% reordering RACK retransmits spuriously less than dupthresh at every send interval, and the gap grows as the interval falls (paper, 10 ms: 40 vs 236)", all(r < d for r, d in sp.values()) and sp[fast[0]][1] - sp[fast[0]][0] > sp[fast[-1]][1] - sp[fast[-1]][0], ", ".join(f"{i}: {r:.0f} vs {d:.0f}" for i, (r, d) in sp.items()), paper="10 ms: RACK 40 vs dupthresh 236 of 100,000; dupthresh about 3,300 at lower intervals"))
    r4 = _mean(fig4, "recovery_time_mean_s", **{ia: "10ms", RACK_KEY: True})
    # §4: "the RACK algorithm calculates a reordering window of a single RTT ... This results in a
    # recovery time of at least two RTTs."
    claims.append(Claim("rack-sctp/fig4-recovery-at-least-two-rtts", "Fig. 4: with 1% loss and 1% reordering RACK's reordering window of one RTT gives a recovery time of at least two RTTs (≥ 100 ms)", r4 >= 2 * RTT, f"10 ms interval: {_fmt_ms(r4)} with reordering vs {_fmt_ms(r10)} without, RTT 50 ms", paper="at least two RTTs (≥ 100 ms)"))
    lk = "topology.bottleneck.errors[0].rate"
    g5 = {l: tuple(_mean(fig5, "goodput_bps", **{lk: l, RACK_KEY: m}) for m in (True, False)) for l in losses}
    claims.append(Claim("rack-sctp/fig5-similar-goodput-under-loss", "Fig. 5: without reordering both reach similar bulk goodput under loss (within 15%)", all(abs(r - d) <= 0.15 * max(r, d) for r, d in g5.values()), ", ".join(f"{l:g}: {r / 1e6:.2f} vs {d / 1e6:.2f} Mb/s" for l, (r, d) in g5.items())))
    dk = "topology.bottleneck.reorder.mean_delay"
    g6 = {g: tuple(_mean(fig6, "goodput_bps", **{dk: g, RACK_KEY: m}) for m in (True, False)) for g in degrees}
    best = max(r / d for r, d in g6.values())
    claims.append(Claim("rack-sctp/fig6-rack-goodput-under-reordering", "Fig. 6: with 1% reordering RACK's bulk goodput is at least dupthresh's at every degree, up to about twice as high (≥ 1.5×)", all(r >= 0.98 * d for r, d in g6.values()) and best >= 1.5, f"best ratio {best:.2f}; " + ", ".join(f"{g}: {r / 1e6:.2f} vs {d / 1e6:.2f} Mb/s" for g, (r, d) in g6.items()), paper="RACK's goodput up to 2× dupthresh's"))
    g7 = {l: tuple(_mean(fig7, "goodput_bps", **{lk: l, RACK_KEY: m}) for m in (True, False)) for l in losses}
    claims.append(Claim("rack-sctp/fig7-rack-goodput-under-loss-and-reordering", "Fig. 7: with loss and 1% reordering RACK's goodput is at least dupthresh's", all(r >= 0.98 * d for r, d in g7.values()), ", ".join(f"{l:g}: {r / 1e6:.2f} vs {d / 1e6:.2f} Mb/s" for l, (r, d) in g7.items())))
    qk, bm, mb = "topology.bottleneck.queue.packets", "apps[0].sctp.rack.burst_mitigation", "apps[0].sctp.max_burst"
    t = {(m, b): _mean(fig10, "retransmissions", **{qk: 10, bm: m, mb: b}) for m, b in [("none", 4), ("max_burst", 4), ("max_burst", 3), ("adaptive", 4)]}
    claims.append(Claim("rack-sctp/fig10-burst-limits-cut-retransmissions", "Fig. 8–10: after a tail loss of 100 at a 10-packet queue, Max.Burst 4 needs fewer retransmissions than no mitigation, and the adaptive limit fewer than Max.Burst 4", t[("none", 4)] > t[("max_burst", 4)] > t[("adaptive", 4)], ", ".join(f"{m}{'' if m != 'max_burst' else ' ' + str(b)}: {v:.0f}" for (m, b), v in t.items())))
    # §5: "reducing the burst limit from four to three reduces the recovery time by more than a
    # half in case of a shallow buffer" (the smallest queue of the grid).
    shallow = queues[0]
    rt = {b: _mean(fig10, "recovery_time_mean_s", **{qk: shallow, bm: "max_burst", mb: b}) for b in (4, 3)}
    claims.append(Claim("rack-sctp/fig10-max-burst-3-halves-recovery", f"Fig. 10: with a shallow buffer ({shallow} packets) Max.Burst 3 more than halves the tail-loss recovery time of Max.Burst 4", rt[3] < 0.5 * rt[4], f"Max.Burst 4 {_fmt_ms(rt[4])}, 3 {_fmt_ms(rt[3])}", paper="Max.Burst 3: less than half of Max.Burst 4's recovery time"))
    return claims
