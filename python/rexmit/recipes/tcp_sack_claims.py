"""Seed 001's claims (§VI, Figs. 9–12), each with a stable id, from the mean goodput and its 95%
confidence half-width per (variant, x) of each figure's sweep."""

from __future__ import annotations

from typing import Any

from rexmit.recipes.common import Claim, decided, param_key
from rexmit.recipes.tcp_sack_plan import TCP_VARIANTS


def claims(
    means: dict[str, dict[tuple[str, Any], tuple[float, float]]],
    figures: dict[str, tuple[str, list[Any]]],
    enough: bool,
) -> list[Claim]:
    """The paper's claims; those judged by confidence intervals need ≥ 5 replications per
    point to fail (`decided`)."""
    g = lambda fig, variant, x: means[fig][(variant, param_key(x))][0]
    ci = lambda fig, variant, x: means[fig][(variant, param_key(x))][1]
    # "beats": the 95% confidence intervals are apart; "no noticeable difference": they overlap.
    beats = lambda fig, a, b, x: g(fig, a, x) - ci(fig, a, x) > g(fig, b, x) + ci(fig, b, x)
    close = lambda fig, a, b, x: abs(g(fig, a, x) - g(fig, b, x)) <= ci(fig, a, x) + ci(fig, b, x)
    fmt = lambda fig, x: ", ".join(
        f"{v} {g(fig, v, x) / 1e6:.2f} ± {ci(fig, v, x) / 1e6:.2f}" for v, _, _ in TCP_VARIANTS
    )
    claims = []
    burst_values = figures["fig9_burst_rate"][1]
    low = [v for v in burst_values if v <= 1e-5]
    worst = burst_values[-1]
    util = {v: min(g("fig9_burst_rate", v, x) for x in low) for v, _, _ in TCP_VARIANTS}
    claims.append(
        Claim(
            "tcp-sack/fig9-low-error-rates-fill-the-bottleneck",
            "at burst error rates ≤ 1e-5 every variant uses the bottleneck (≥ 90% of 3.89 Mb/s payload)",
            all(u >= 0.9 * 3.893e6 for u in util.values()),
            ", ".join(f"{v} {u / 1e6:.2f}" for v, u in util.items()),
            paper="every variant uses the bandwidth up to a burst error rate of 1e-5; throughput drops above it",
        )
    )
    at = {v: g("fig9_burst_rate", v, worst) for v, _, _ in TCP_VARIANTS}
    nums = fmt("fig9_burst_rate", worst)
    above = [x for x in burst_values if x > 1e-5]
    claims.append(
        Claim(
            "tcp-sack/fig9-westwood-beats-sack-and-newreno",
            "at 1e-3, Westwood+ beats SACK and NewReno (95% CIs apart)",
            decided(
                beats("fig9_burst_rate", "Westwood+", "SACK", worst)
                and beats("fig9_burst_rate", "Westwood+", "NewReno", worst),
                enough,
            ),
            nums,
        )
    )
    claims.append(
        Claim(
            "tcp-sack/fig9-sack-and-newreno-beat-tahoe-and-reno",
            "§VI: above a burst error rate of 1e-5 SACK performs as well as NewReno and outperforms Tahoe and Reno (95% CIs apart), at every rate",
            decided(
                all(
                    beats("fig9_burst_rate", a, b, x)
                    for x in above
                    for a in ("SACK", "NewReno")
                    for b in ("Reno", "Tahoe")
                ),
                enough,
            ),
            "; ".join(f"{x:g}: {fmt('fig9_burst_rate', x)}" for x in above),
        )
    )
    # Overlapping intervals prove little when they are wide: at quick size only a failure counts.
    same = all(close("fig9_burst_rate", "SACK", "NewReno", x) for x in burst_values)
    claims.append(
        Claim(
            "tcp-sack/fig9-sack-like-newreno",
            "§VI: no noticeable difference between SACK and NewReno (95% CIs overlap at every burst error rate)",
            same if enough or not same else None,
            "; ".join(
                f"{x:g}: SACK {g('fig9_burst_rate', 'SACK', x) / 1e6:.2f} ± {ci('fig9_burst_rate', 'SACK', x) / 1e6:.2f}, NewReno {g('fig9_burst_rate', 'NewReno', x) / 1e6:.2f} ± {ci('fig9_burst_rate', 'NewReno', x) / 1e6:.2f}"
                for x in burst_values
            ),
            overlap=True,
        )
    )
    claims.append(
        Claim("tcp-sack/fig9-tahoe-worst", "at 1e-3, Tahoe is the worst", at["Tahoe"] <= min(at.values()), nums)
    )
    per = figures["fig10_per"][1][-1]
    p = {v: g("fig10_per", v, per) for v, _, _ in TCP_VARIANTS}
    claims.append(
        Claim(
            "tcp-sack/fig10-sack-beats-reno-and-newreno",
            f"uncorrelated loss (PER {per:g}): SACK beats Reno and NewReno, which are close",
            p["SACK"] > max(p["Reno"], p["NewReno"]) and abs(p["Reno"] - p["NewReno"]) / p["Reno"] < 0.1,
            ", ".join(f"{v} {x / 1e6:.2f}" for v, x in p.items()),
            paper="SACK ahead of Reno and NewReno above a PER of 1e-4",
        )
    )
    claims.append(
        Claim(
            "tcp-sack/fig10-westwood-least-affected",
            "Westwood+ is least affected by PER",
            p["Westwood+"] >= max(p.values()),
            ", ".join(f"{v} {x / 1e6:.2f}" for v, x in p.items()),
        )
    )
    speeds = figures["fig11_speed"][1]
    s = {v: (g("fig11_speed", v, speeds[0]), g("fig11_speed", v, speeds[-1])) for v, _, _ in TCP_VARIANTS}
    claims.append(
        Claim(
            "tcp-sack/fig11-throughput-grows-with-speed",
            "throughput grows with bottleneck speed for every variant",
            all(b > a for a, b in s.values()),
            ", ".join(f"{v} {a / 1e6:.2f}→{b / 1e6:.2f}" for v, (a, b) in s.items()),
            sanity=True,
            why="more capacity cannot lower an uncongested bulk transfer's throughput",
        )
    )
    delays = figures["fig12_delay"][1]
    d = {v: (g("fig12_delay", v, delays[0]), g("fig12_delay", v, delays[-1])) for v, _, _ in TCP_VARIANTS}
    claims.append(
        Claim(
            "tcp-sack/fig12-throughput-drops-with-delay",
            "throughput drops significantly with delay for every variant (≥ 30%)",
            all(b < 0.7 * a for a, b in d.values()),
            ", ".join(f"{v} {a / 1e6:.2f}→{b / 1e6:.2f}" for v, (a, b) in d.items()),
            sanity=True,
            why="the 128 KiB windows cap throughput at window/RTT (2.1 Mb/s at 250 ms delay, 500 ms RTT), below 70% of the 50 ms value whatever the variant does",
        )
    )
    return claims
