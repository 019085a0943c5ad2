"""Seed 001 (Nguyen & Sterbenz): ``rexmit reproduce tcp-sack``."""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any, Optional

from rexmit import report as report_mod
from rexmit.sweep import Sweep, load as load_runs, run_sweep
from rexmit.recipes.common import Claim, decided, param_key

# The five variants of seed 001 (recovery, congestion control). Westwood+ in ns-3 runs on
# NewReno's recovery.
TCP_VARIANTS = [
    ("Tahoe", "tahoe", "reno"),
    ("Reno", "reno", "reno"),
    ("NewReno", "newreno", "reno"),
    ("SACK", "sack", "reno"),
    ("Westwood+", "newreno", "westwood"),
]


def _seed001_base(stop_time: str) -> dict[str, Any]:
    """Seed 001 Table 1. Choices where the paper gives no number (ns-3 defaults of the time):
    drop-tail queues of 100 packets, send and receive buffers of 128 KiB, initial window of one
    segment, RTO minimum 1 s, no timestamps, MSS 1460 (1500 B packets). The paper ran ns-3,
    whose retransmission timer is restarted by ACKs of new data only (`rto_rearm = "new_ack"`)
    and whose integer clock runs same-instant events in FIFO order (`event_ties = "fifo"`);
    docs/validation.md, "Competing flows (issue 19)"."""
    q = {"packets": 100}
    return {
        "stop_time": stop_time,
        "seed": 1,
        "event_ties": "fifo",
        "description": "Seed 001 Table 1: single TCP flow, 10 Mb/s access, error-prone bottleneck",
        "topology": {
            "kind": "chain",
            "nodes": ["S", "G1", "G2", "D"],
            "links": [
                {"rate": "10Mbps", "delay": "0.1ms", "queue": q},
                {"rate": "4Mbps", "delay": "50ms", "queue": q, "errors": [{"kind": "burst", "rate": 1e-5, "size": {"min": 2, "max": 5}, "direction": "forward"}]},
                {"rate": "10Mbps", "delay": "0.1ms", "queue": q},
            ],
        },
        "apps": [
            {
                "name": "bulk",
                "kind": "tcp_bulk",
                "from": "S",
                "to": "D",
                "tcp": {
                    "recovery": "sack",
                    "cc": "reno",
                    "mss": 1460,
                    "initial_cwnd_segments": 1,
                    "rto": {"min": "1s"},
                    "timestamps": False,
                    "send_buffer": "128KiB",
                    "recv_buffer": "128KiB",
                    "ack_every": 2,
                    "delayed_ack_timeout": "200ms",
                    "rto_rearm": "new_ack",
                },
            }
        ],
    }


def _variant_zip() -> dict[str, list[Any]]:
    # Tahoe runs as ns-3's TcpTahoe did for the paper: without the RFC 6582 guard, duplicate
    # ACKs drawn by its own go-back-N resends start further fast retransmits. With the guard
    # (rexmit's default) Tahoe beats Reno at 1e-3 (2.49 vs 2.28 Mb/s, 600 s × 10 runs).
    return {
        "apps[0].tcp.recovery": [v[1] for v in TCP_VARIANTS],
        "apps[0].tcp.cc": [v[2] for v in TCP_VARIANTS],
        "apps[0].tcp.tahoe_recover_guard": [v[1] != "tahoe" for v in TCP_VARIANTS],
    }


# The paper's names on the figures (seed 001 Figs. 9-12).
TITLES = {
    "fig9_burst_rate": "Fig. 9: throughput vs burst error rate",
    "fig10_per": "Fig. 10: throughput vs packet error rate",
    "fig11_speed": "Fig. 11: throughput vs bottleneck speed",
    "fig12_delay": "Fig. 12: throughput vs bottleneck delay",
}
AXES = {
    "fig9_burst_rate": "Burst error rate",
    "fig10_per": "Packet error rate",
    "fig11_speed": {"name": "Bottleneck speed", "unit": "Mb/s"},
    "fig12_delay": {"name": "Bottleneck one-way delay", "unit": "ms"},
}


def _labels(name: str, key: str) -> dict[str, Any]:
    return {key: AXES[name], "flow.bulk.goodput_bps": {"name": "Goodput", "unit": "Mb/s"}, "zip": [v[0] for v in TCP_VARIANTS]}


def _index(out: Path, quick: bool, stop: str, reps: int, claims: list[Claim], figures: dict[str, tuple[str, list[Any]]]) -> Path:
    drawn = [report_mod.sweep_figure(out / name, "flow.bulk.goodput_bps", key, out / "figures", name, TITLES[name]) for name, (key, _) in figures.items()]
    intro = [
        "Seed 001 (Nguyen & Sterbenz): goodput of one TCP flow with Tahoe, Reno, NewReno, SACK and Westwood+ over Table 1's path "
        "(10 Mb/s access links, a 4 Mb/s bottleneck of 50 ms one way with an error model, 1500 B packets), as in Figs. 9-12. "
        f"{'Quick' if quick else 'Full'} version: {reps} runs of {stop} per point.",
        "Choices where the paper gives no number (ns-3 defaults of the time) are in the recipe's docstring (rexmit/recipes/tcp_sack.py).",
    ]
    return report_mod.reproduction_index(out, "rexmit reproduce tcp-sack (seed 001)", intro, claims, drawn)


def _uniform(rate: float) -> list[dict[str, Any]]:
    return [{"kind": "uniform", "rate": rate, "direction": "forward"}]


def _means(out: Path, x_key: str) -> dict[tuple[str, Any], tuple[float, float]]:
    """Mean goodput and its 95% confidence half-width (Student t) per (variant, x) of a
    finished sweep."""
    rows = load_runs(out).to_pylist()
    acc: dict[tuple[str, Any], list[float]] = {}
    names = {(v[1], v[2]): v[0] for v in TCP_VARIANTS}
    for r in rows:
        variant = names[(r["param.apps[0].tcp.recovery"], r["param.apps[0].tcp.cc"])]
        acc.setdefault((variant, r[f"param.{x_key}"]), []).append(r["flow.bulk.goodput_bps"])
    return {k: (statistics.mean(v), _ci95(v)) for k, v in acc.items()}


def _ci95(xs: list[float]) -> float:
    """95% confidence half-width of the mean (Student t; 0 for a single run)."""
    if len(xs) < 2:
        return 0.0
    t = {2: 12.71, 3: 4.30, 4: 3.18, 5: 2.78, 6: 2.57, 7: 2.45, 8: 2.36, 9: 2.31, 10: 2.26}.get(len(xs), 2.0)
    return t * statistics.stdev(xs) / len(xs) ** 0.5


def tcp_sack(out: Path, quick: bool, jobs: Optional[int]) -> list[Claim]:
    """Seed 001 (Nguyen & Sterbenz), Figures 9–12: average throughput of Tahoe, Reno, NewReno,
    SACK and Westwood+ vs burst error rate (Fig. 9), packet error rate (Fig. 10, values chosen
    here: 1e-5 … 1e-2, the paper gives none), bottleneck speed 4–8 Mb/s (Fig. 11) and delay
    50–250 ms (Fig. 12). Full: 600 s, 10 runs per point (Table 1). Quick: 30 s, 2 runs, 2 points
    per figure."""
    stop, reps = ("30s", 2) if quick else ("600s", 10)
    rate_key = "topology.links[1].errors[0].rate"
    figures = {
        "fig9_burst_rate": (rate_key, [1e-5, 1e-3] if quick else [1e-7, 1e-6, 1e-5, 1e-4, 1e-3]),
        "fig10_per": (rate_key, [1e-4, 1e-2] if quick else [1e-5, 1e-4, 1e-3, 1e-2]),
        "fig11_speed": ("topology.links[1].rate", ["4Mbps", "8Mbps"] if quick else ["4Mbps", "5Mbps", "6Mbps", "7Mbps", "8Mbps"]),
        "fig12_delay": ("topology.links[1].delay", ["50ms", "250ms"] if quick else ["50ms", "100ms", "150ms", "200ms", "250ms"]),
    }
    means: dict[str, dict[tuple[str, Any], float]] = {}
    for name, (key, values) in figures.items():
        base = _seed001_base(stop)
        if name == "fig10_per":  # uncorrelated losses: ns-3's RateErrorModel in packet mode
            base["topology"]["links"][1]["errors"] = _uniform(1e-4)
        spec = {"name": f"seed 001 {name}", "replications": reps, "seed": 1, "base": base, "grid": {key: values}, "zip": _variant_zip(), "report": {"x": key, "metrics": ["flow.bulk.goodput_bps"]}, "labels": _labels(name, key)}
        sweep = Sweep.from_dict(spec)
        fig_dir = out / name
        run_sweep(sweep, fig_dir, jobs=jobs)
        report_mod.report(fig_dir, views="bulk")  # one traced run per point, linked
        means[name] = _means(fig_dir, key)
    claims = _tcp_sack_claims(means, figures, enough=reps >= 5)
    _index(out, quick, stop, reps, claims, figures)
    return claims


def _tcp_sack_claims(means: dict[str, dict[tuple[str, Any], tuple[float, float]]], figures: dict[str, tuple[str, list[Any]]], enough: bool) -> list[Claim]:
    """The paper's claims; those judged by confidence intervals need ≥ 5 replications per
    point to fail (`decided`)."""
    g = lambda fig, variant, x: means[fig][(variant, param_key(x))][0]
    ci = lambda fig, variant, x: means[fig][(variant, param_key(x))][1]
    # "beats": the 95% confidence intervals are apart; "no noticeable difference": they overlap.
    beats = lambda fig, a, b, x: g(fig, a, x) - ci(fig, a, x) > g(fig, b, x) + ci(fig, b, x)
    close = lambda fig, a, b, x: abs(g(fig, a, x) - g(fig, b, x)) <= ci(fig, a, x) + ci(fig, b, x)
    fmt = lambda fig, x: ", ".join(f"{v} {g(fig, v, x) / 1e6:.2f} ± {ci(fig, v, x) / 1e6:.2f}" for v, _, _ in TCP_VARIANTS)
    claims = []
    burst_values = figures["fig9_burst_rate"][1]
    low = [v for v in burst_values if v <= 1e-5]
    worst = burst_values[-1]
    util = {v: min(g("fig9_burst_rate", v, x) for x in low) for v, _, _ in TCP_VARIANTS}
    claims.append(Claim("tcp-sack/fig9-low-error-rates-fill-the-bottleneck", "at burst error rates ≤ 1e-5 every variant uses the bottleneck (≥ 90% of 3.89 Mb/s payload)", all(u >= 0.9 * 3.893e6 for u in util.values()), ", ".join(f"{v} {u / 1e6:.2f}" for v, u in util.items()), paper="every variant uses the bandwidth up to a burst error rate of 1e-5; throughput drops above it"))
    at = {v: g("fig9_burst_rate", v, worst) for v, _, _ in TCP_VARIANTS}
    nums = fmt("fig9_burst_rate", worst)
    above = [x for x in burst_values if x > 1e-5]
    claims.append(Claim("tcp-sack/fig9-westwood-beats-sack-and-newreno", "at 1e-3, Westwood+ beats SACK and NewReno (95% CIs apart)", decided(beats("fig9_burst_rate", "Westwood+", "SACK", worst) and beats("fig9_burst_rate", "Westwood+", "NewReno", worst), enough), nums))
    claims.append(Claim("tcp-sack/fig9-sack-and-newreno-beat-tahoe-and-reno", "§VI: above a burst error rate of 1e-5 SACK performs as well as NewReno and outperforms Tahoe and Reno (95% CIs apart), at every rate", decided(all(beats("fig9_burst_rate", a, b, x) for x in above for a in ("SACK", "NewReno") for b in ("Reno", "Tahoe")), enough), "; ".join(f"{x:g}: {fmt('fig9_burst_rate', x)}" for x in above)))
    # Overlapping intervals prove little when they are wide: at quick size only a failure counts.
    same = all(close("fig9_burst_rate", "SACK", "NewReno", x) for x in burst_values)
    claims.append(Claim("tcp-sack/fig9-sack-like-newreno", "§VI: no noticeable difference between SACK and NewReno (95% CIs overlap at every burst error rate)", same if enough or not same else None, "; ".join(f"{x:g}: SACK {g('fig9_burst_rate', 'SACK', x) / 1e6:.2f} ± {ci('fig9_burst_rate', 'SACK', x) / 1e6:.2f}, NewReno {g('fig9_burst_rate', 'NewReno', x) / 1e6:.2f} ± {ci('fig9_burst_rate', 'NewReno', x) / 1e6:.2f}" for x in burst_values)))
    claims.append(Claim("tcp-sack/fig9-tahoe-worst", "at 1e-3, Tahoe is the worst", at["Tahoe"] <= min(at.values()), nums))
    per = figures["fig10_per"][1][-1]
    p = {v: g("fig10_per", v, per) for v, _, _ in TCP_VARIANTS}
    claims.append(Claim("tcp-sack/fig10-sack-beats-reno-and-newreno", f"uncorrelated loss (PER {per:g}): SACK beats Reno and NewReno, which are close", p["SACK"] > max(p["Reno"], p["NewReno"]) and abs(p["Reno"] - p["NewReno"]) / p["Reno"] < 0.1, ", ".join(f"{v} {x / 1e6:.2f}" for v, x in p.items()), paper="SACK ahead of Reno and NewReno above a PER of 1e-4"))
    claims.append(Claim("tcp-sack/fig10-westwood-least-affected", "Westwood+ is least affected by PER", p["Westwood+"] >= max(p.values()), ", ".join(f"{v} {x / 1e6:.2f}" for v, x in p.items())))
    speeds = figures["fig11_speed"][1]
    s = {v: (g("fig11_speed", v, speeds[0]), g("fig11_speed", v, speeds[-1])) for v, _, _ in TCP_VARIANTS}
    claims.append(Claim("tcp-sack/fig11-throughput-grows-with-speed", "throughput grows with bottleneck speed for every variant", all(b > a for a, b in s.values()), ", ".join(f"{v} {a / 1e6:.2f}→{b / 1e6:.2f}" for v, (a, b) in s.items()), sanity=True, why="more capacity cannot lower an uncongested bulk transfer's throughput"))
    delays = figures["fig12_delay"][1]
    d = {v: (g("fig12_delay", v, delays[0]), g("fig12_delay", v, delays[-1])) for v, _, _ in TCP_VARIANTS}
    claims.append(Claim("tcp-sack/fig12-throughput-drops-with-delay", "throughput drops significantly with delay for every variant (≥ 30%)", all(b < 0.7 * a for a, b in d.values()), ", ".join(f"{v} {a / 1e6:.2f}→{b / 1e6:.2f}" for v, (a, b) in d.items()), sanity=True, why="the 128 KiB windows cap throughput at window/RTT (2.1 Mb/s at 250 ms delay, 500 ms RTT), below 70% of the 50 ms value whatever the variant does"))
    return claims


