"""Seed 002's claims (§IV, §V), each with a stable id, from the figures' runs: the mean of a
metric over the runs of one point, RACK against dupthresh."""

from __future__ import annotations

import statistics
from typing import Any

from rexmit.recipes.common import Claim, param_key
from rexmit.recipes.rack_sctp_plan import (
    BURST_MITIGATION_KEY,
    DEGREE_KEY,
    INTERVAL_KEY,
    LOSS_KEY,
    MAX_BURST_KEY,
    QUEUE_KEY,
    RACK_KEY,
    RTT,
)

Rows = list[dict[str, Any]]


def _mean(rows: Rows, metric: str, **params: Any) -> float:
    vals = [r[f"flow.sctp.{metric}"] for r in rows if all(r[f"param.{k}"] == param_key(v) for k, v in params.items())]
    vals = [v for v in vals if v is not None and v == v]
    return statistics.mean(vals) if vals else float("nan")


def _fmt_ms(v: float) -> str:
    return f"{v * 1e3:.0f} ms"


def claims(
    fig2: Rows,
    fig3: Rows,
    fig4: Rows,
    fig5: Rows,
    fig6: Rows,
    fig7: Rows,
    fig10: Rows,
    intervals: list[str],
    fast: list[str],
    losses: list[float],
    degrees: list[str],
    queues: list[int],
) -> list[Claim]:
    """The paper's claims from the runs of Figs. 2–7 and 10 (rows of each sweep's table) and
    the points swept."""
    ia = INTERVAL_KEY
    found: list[Claim] = []
    r10 = _mean(fig2, "recovery_time_mean_s", **{ia: "10ms", RACK_KEY: True})
    found.append(
        Claim(
            "rack-sctp/fig2-rack-recovers-in-one-rtt",
            "Fig. 2: at a 10 ms interval RACK recovers in about one RTT (< 1.5 RTT)",
            r10 < 1.5 * RTT,
            f"RACK {_fmt_ms(r10)}, RTT 50 ms",
            paper="about 50 ms, near the lower limit of one RTT (§IV.A)",
        )
    )
    r50, d50 = (_mean(fig2, "recovery_time_mean_s", **{ia: "50ms", RACK_KEY: m}) for m in (True, False))
    found.append(
        Claim(
            "rack-sctp/fig2-dupthresh-twice-as-long-at-50ms",
            "Fig. 2: at a 50 ms interval dupthresh takes more than twice as long as RACK",
            d50 > 2 * r50,
            f"RACK {_fmt_ms(r50)}, dupthresh {_fmt_ms(d50)}",
            paper="dupthresh more than 2× RACK's recovery time",
        )
    )
    pairs = {
        i: tuple(_mean(fig2, "recovery_time_mean_s", **{ia: i, RACK_KEY: m}) for m in (True, False)) for i in intervals
    }
    found.append(
        Claim(
            "rack-sctp/fig2-advantage-grows-as-rate-falls",
            "Fig. 2: RACK's advantage grows as the sending rate falls",
            pairs[intervals[-1]][1] - pairs[intervals[-1]][0] > pairs[intervals[0]][1] - pairs[intervals[0]][0],
            ", ".join(f"{i}: {_fmt_ms(r)} vs {_fmt_ms(d)}" for i, (r, d) in pairs.items()),
        )
    )
    sp = {i: tuple(_mean(fig3, "dup_tsns_received", **{ia: i, RACK_KEY: m}) for m in (True, False)) for i in fast}
    # §4: "RACK provides a much better robustness against spurious retransmissions" (10 ms: 40
    # vs 236 of 100,000; "this ratio increases for lower send intervals"): every interval.
    found.append(
        Claim(
            "rack-sctp/fig3-fewer-spurious-retransmissions",
            "Fig. 3: under 5% reordering RACK retransmits spuriously less than dupthresh at every send interval, and the gap grows as the interval falls (paper, 10 ms: 40 vs 236)",
            all(r < d for r, d in sp.values()) and sp[fast[0]][1] - sp[fast[0]][0] > sp[fast[-1]][1] - sp[fast[-1]][0],
            ", ".join(f"{i}: {r:.0f} vs {d:.0f}" for i, (r, d) in sp.items()),
            paper="10 ms: RACK 40 vs dupthresh 236 of 100,000; dupthresh about 3,300 at lower intervals",
        )
    )
    r4 = _mean(fig4, "recovery_time_mean_s", **{ia: "10ms", RACK_KEY: True})
    # §4: "the RACK algorithm calculates a reordering window of a single RTT ... This results in a
    # recovery time of at least two RTTs."
    found.append(
        Claim(
            "rack-sctp/fig4-recovery-at-least-two-rtts",
            "Fig. 4: with 1% loss and 1% reordering RACK's reordering window of one RTT gives a recovery time of at least two RTTs (≥ 100 ms)",
            r4 >= 2 * RTT,
            f"10 ms interval: {_fmt_ms(r4)} with reordering vs {_fmt_ms(r10)} without, RTT 50 ms",
            paper="at least two RTTs (≥ 100 ms)",
        )
    )
    lk = LOSS_KEY
    g5 = {loss: tuple(_mean(fig5, "goodput_bps", **{lk: loss, RACK_KEY: m}) for m in (True, False)) for loss in losses}
    found.append(
        Claim(
            "rack-sctp/fig5-similar-goodput-under-loss",
            "Fig. 5: without reordering both reach similar bulk goodput under loss (within 15%)",
            all(abs(r - d) <= 0.15 * max(r, d) for r, d in g5.values()),
            ", ".join(f"{loss:g}: {r / 1e6:.2f} vs {d / 1e6:.2f} Mb/s" for loss, (r, d) in g5.items()),
        )
    )
    dk = DEGREE_KEY
    g6 = {g: tuple(_mean(fig6, "goodput_bps", **{dk: g, RACK_KEY: m}) for m in (True, False)) for g in degrees}
    best = max(r / d for r, d in g6.values())
    found.append(
        Claim(
            "rack-sctp/fig6-rack-goodput-under-reordering",
            "Fig. 6: with 1% reordering RACK's bulk goodput is at least dupthresh's at every degree, up to about twice as high (≥ 1.5×)",
            all(r >= 0.98 * d for r, d in g6.values()) and best >= 1.5,
            f"best ratio {best:.2f}; "
            + ", ".join(f"{g}: {r / 1e6:.2f} vs {d / 1e6:.2f} Mb/s" for g, (r, d) in g6.items()),
            paper="RACK's goodput up to 2× dupthresh's",
        )
    )
    g7 = {loss: tuple(_mean(fig7, "goodput_bps", **{lk: loss, RACK_KEY: m}) for m in (True, False)) for loss in losses}
    found.append(
        Claim(
            "rack-sctp/fig7-rack-goodput-under-loss-and-reordering",
            "Fig. 7: with loss and 1% reordering RACK's goodput is at least dupthresh's",
            all(r >= 0.98 * d for r, d in g7.values()),
            ", ".join(f"{loss:g}: {r / 1e6:.2f} vs {d / 1e6:.2f} Mb/s" for loss, (r, d) in g7.items()),
        )
    )
    qk, bm, mb = QUEUE_KEY, BURST_MITIGATION_KEY, MAX_BURST_KEY
    t = {
        (m, b): _mean(fig10, "retransmissions", **{qk: 10, bm: m, mb: b})
        for m, b in [("none", 4), ("max_burst", 4), ("max_burst", 3), ("adaptive", 4)]
    }
    found.append(
        Claim(
            "rack-sctp/fig10-burst-limits-cut-retransmissions",
            "Fig. 8–10: after a tail loss of 100 at a 10-packet queue, Max.Burst 4 needs fewer retransmissions than no mitigation, and the adaptive limit fewer than Max.Burst 4",
            t[("none", 4)] > t[("max_burst", 4)] > t[("adaptive", 4)],
            ", ".join(f"{m}{'' if m != 'max_burst' else ' ' + str(b)}: {v:.0f}" for (m, b), v in t.items()),
        )
    )
    # §5: "reducing the burst limit from four to three reduces the recovery time by more than a
    # half in case of a shallow buffer" (the smallest queue of the grid).
    shallow = queues[0]
    rt = {b: _mean(fig10, "recovery_time_mean_s", **{qk: shallow, bm: "max_burst", mb: b}) for b in (4, 3)}
    found.append(
        Claim(
            "rack-sctp/fig10-max-burst-3-halves-recovery",
            f"Fig. 10: with a shallow buffer ({shallow} packets) Max.Burst 3 more than halves the tail-loss recovery time of Max.Burst 4",
            rt[3] < 0.5 * rt[4],
            f"Max.Burst 4 {_fmt_ms(rt[4])}, 3 {_fmt_ms(rt[3])}",
            paper="Max.Burst 3: less than half of Max.Burst 4's recovery time",
        )
    )
    return found
