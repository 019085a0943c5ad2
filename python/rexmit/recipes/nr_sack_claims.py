"""The claims of seed 000 (NR-SACKs for SCTP, §V-§VI) checked against the ``nr-sack`` results
(:class:`rexmit.recipes.nr_sack_runs.Results`), each with its stable id. Not here: running the
sweeps, figures."""

from __future__ import annotations

from rexmit.recipes import seed000_setup as setup
from rexmit.recipes.common import Claim
from rexmit.recipes.nr_sack_plan import ACKS, BLOCKED, GOODPUT, F
from rexmit.recipes.nr_sack_runs import Results, RtxqSwing, est
from rexmit.stats import Estimate, mean_ci


def _fmt(res: Results, buffer: str, ack: str, metric: str, scale: float = 1.0, digits: int = 3) -> str:
    return " ".join(f"{load} {res.m(load, buffer, ack, metric) * scale:.{digits}f}" for load in res.loads)


def _not_worse(a: Estimate, b: Estimate, rel: float) -> bool:
    """``a`` is not below ``b`` by more than their 95% CIs together, or ``rel`` of ``b``."""
    if a.mean is None or b.mean is None:
        return False
    return a.mean >= b.mean - max((a.half_width or 0.0) + (b.half_width or 0.0), rel * abs(b.mean))


def _alike(a: Estimate, b: Estimate, rel: float) -> bool:
    return _not_worse(a, b, rel) and _not_worse(b, a, rel)


def _falls(values: list[float], slack: float) -> bool:
    """Lower at the last point than at the first, and never up by more than ``slack``."""
    return values[-1] < values[0] and all(b <= a + slack for a, b in zip(values, values[1:]))


def paper_claims(s: Results, c: Results, swings: dict[str, RtxqSwing]) -> list[Claim]:
    claims = []
    u, ul, blk, to, gp, rq = F + "rtxq_util", F + "rtxq_util_l", BLOCKED, F + "timeouts", GOODPUT, F + "rtxq_bytes_mean"
    hi = s.loads[-1]

    nr = [
        (res.name, load, b, res.m(load, b, "NR-SACK", u)) for res in (s, c) for load in res.loads for b in res.buffers
    ]
    worst = min(nr, key=lambda x: x[3])
    claims.append(
        Claim(
            "nr-sack/nr-sack-rtxq-util-is-one",
            "NR-SACK: RtxQ_Util = 1 at every load and send buffer, for SCTP and CMT (§V.A, Figs. 8-9)",
            all(x[3] >= 0.999 for x in nr),
            f"lowest: {worst[0]} {worst[1]} {worst[2]} {worst[3]:.4f} over {len(nr)} points",
            sanity=True,
            why="NR-SACK's RtxQ_Util is 1 by definition: nothing non-renegably acknowledged stays in the rtxq",
            paper="1 (unity) for SCTP and CMT",
        )
    )

    ok = all(
        s.m(hi, b, "SACK", u) < 0.99 and _falls([s.m(load, b, "SACK", u) for load in s.loads], 0.02) for b in s.buffers
    )
    claims.append(
        Claim(
            "nr-sack/sctp-sack-rtxq-util-falls-with-load",
            "SCTP-SACK: RtxQ_Util < 1 and falling as the load grows (§V.A, Fig. 8)",
            ok,
            "; ".join(f"{b}: {_fmt(s, b, 'SACK', u)}" for b in s.buffers),
        )
    )

    if {"medium", "heavy"} <= set(s.loads):
        waste = {
            load: 1 - sum(s.m(load, b, "SACK", u) for b in s.buffers) / len(s.buffers) for load in ("medium", "heavy")
        }
        claims.append(
            Claim(
                "nr-sack/sctp-sack-wastes-rtxq",
                "SCTP-SACK wastes ~20% of the rtxq at medium and ~30% at heavy load (§V.A; checked as 10-30% and 20-40%, mean over buffers)",
                0.1 <= waste["medium"] <= 0.3 and 0.2 <= waste["heavy"] <= 0.4,
                f"wasted: medium {waste['medium']:.3f}, heavy {waste['heavy']:.3f}",
                paper="~20% wasted at moderate, ~30% at heavy congestion",
            )
        )

    vals = [s.mean(load, b, "SACK", ul) for load in s.loads for b in s.buffers]
    seen = [v for v in vals if v is not None]
    claims.append(
        Claim(
            "nr-sack/sctp-sack-rtxq-util-l-half",
            "SCTP-SACK: RtxQ_Util_L stays ~0.5 at every load (§V.A, Fig. 7; checked as 0.35-0.65 wherever there were recoveries)",
            bool(seen) and all(0.35 <= v <= 0.65 for v in seen),
            "; ".join(f"{b}: {_fmt(s, b, 'SACK', ul)}" for b in s.buffers),
            paper="~0.5",
        )
    )

    ok = all(
        c.m(c.loads[-1], b, "SACK", u) < 0.99 and _falls([c.m(load, b, "SACK", u) for load in c.loads], 0.02)
        for b in c.buffers
    )
    claims.append(
        Claim(
            "nr-sack/cmt-sack-rtxq-util-falls-with-load",
            "CMT-SACK: RtxQ_Util < 1 and falling as path 1's load grows (§V.A, Fig. 9)",
            ok,
            "; ".join(f"{b}: {_fmt(c, b, 'SACK', u)}" for b in c.buffers),
        )
    )

    if "INF" in s.buffers and "INF" in c.buffers and len(c.buffers) > 1:
        gap_c = c.m(c.loads[-1], "INF", "SACK", u) - c.m(c.loads[-1], c.buffers[0], "SACK", u)
        gap_s = s.m(hi, "INF", "SACK", u) - s.m(hi, s.buffers[0], "SACK", u)
        claims.append(
            Claim(
                "nr-sack/smaller-buffers-lower-sack-rtxq-util",
                f"smaller send buffers lower SACK's RtxQ_Util, more in CMT than in SCTP (§V.A, Figs. 8-9; INF minus smallest buffer at {hi} load)",
                gap_c > 0 and gap_c > gap_s,
                f"CMT {c.buffers[0]}: {gap_c:+.3f}, SCTP {s.buffers[0]}: {gap_s:+.3f}",
            )
        )

    limited = [b for b in c.buffers if b != "INF"]
    pts = [(load, b, ack, c.m(load, b, ack, blk)) for load in c.loads for b in limited for ack in ACKS]
    claims.append(
        Claim(
            "nr-sack/cmt-send-buffer-blocking",
            "CMT suffers send-buffer blocking at 128K and 256K with either ack scheme (§V.B; blocked > 1% of the trace window at every load)",
            all(x[3] > 0.01 for x in pts),
            "; ".join(f"{b} {ack}: {_fmt(c, b, ack, blk)}" for b in limited for ack in ACKS),
        )
    )
    claims.append(
        Claim(
            "nr-sack/cmt-sack-blocking-grows-with-load",
            "CMT-SACK's send-buffer blocking grows with path 1's load (§V.B)",
            all(c.m(c.loads[-1], b, "SACK", blk) > c.m(c.loads[0], b, "SACK", blk) for b in limited),
            "; ".join(f"{b}: {_fmt(c, b, 'SACK', blk)}" for b in limited),
        )
    )
    claims.append(
        Claim(
            "nr-sack/nr-sack-reduces-cmt-blocking",
            "NR-SACK reduces CMT's send-buffer blocking (lower blocked fraction than SACK at every load, 128K and 256K; §V.B)",
            all(c.m(load, b, "NR-SACK", blk) < c.m(load, b, "SACK", blk) for load in c.loads for b in limited),
            "; ".join(f"{b} NR-SACK: {_fmt(c, b, 'NR-SACK', blk)}" for b in limited),
        )
    )
    spread = {
        (b, ack): max(c.m(load, b, ack, blk) for load in c.loads) - min(c.m(load, b, ack, blk) for load in c.loads)
        for b in limited
        for ack in ACKS
    }
    claims.append(
        Claim(
            "nr-sack/cmt-nr-sack-blocking-unaffected-by-load",
            "CMT-NR-SACK's blocking is unaffected by path 1's load (§V.B; its spread over loads is under half of SACK's)",
            all(spread[(b, "NR-SACK")] < 0.5 * spread[(b, "SACK")] for b in limited),
            "; ".join(
                f"{b}: spread NR-SACK {spread[(b, 'NR-SACK')]:.3f} vs SACK {spread[(b, 'SACK')]:.3f}" for b in limited
            ),
        )
    )

    if "INF" in c.buffers and limited:
        h = c.loads[-1]
        t = {(b, ack): c.cells[(h, b, ack)][to] for b in c.buffers for ack in ACKS}
        nums = ", ".join(f"{b} {ack} {est(t[(b, ack)], 1, 1)}" for b in c.buffers for ack in ACKS)
        claims.append(
            Claim(
                "nr-sack/fig13-blocked-cmt-sack-more-timeouts",
                f"under {h} path-1 load, blocked CMT-SACK (128K, 256K) has more timeouts than non-blocked (INF) CMT-SACK (§V.B.2, Fig. 13)",
                all((t[(b, "SACK")].mean or 0) > (t[("INF", "SACK")].mean or 0) for b in limited),
                nums,
            )
        )
        claims.append(
            Claim(
                "nr-sack/fig13-cmt-nr-sack-timeouts-like-inf",
                f"under {h} path-1 load, CMT-NR-SACK's timeouts with 128K and 256K are similar to INF's (§V.B.2, Fig. 13; difference within the 95% CIs or 25%)",
                all(_alike(t[(b, "NR-SACK")], t[("INF", "NR-SACK")], 0.25) for b in limited),
                nums,
                overlap=True,
            )
        )

    for res, label in ((s, "SCTP"), (c, "CMT")):
        if "INF" in res.buffers:
            ok = all(
                _alike(res.cells[(load, "INF", "NR-SACK")][gp], res.cells[(load, "INF", "SACK")][gp], 0.05)
                for load in res.loads
            )
            nums = "; ".join(
                f"{load}: SACK {est(res.cells[(load, 'INF', 'SACK')][gp], 1e-6, 2)}, NR-SACK {est(res.cells[(load, 'INF', 'NR-SACK')][gp], 1e-6, 2)} Mb/s"
                for load in res.loads
            )
            claims.append(
                Claim(
                    f"nr-sack/fig14-{label.lower()}-inf-goodput-alike",
                    f"{label} with INF buffers: SACK and NR-SACK goodput are alike at every load (§V.B.3, Fig. 14; difference within the 95% CIs or 5%)",
                    ok,
                    nums,
                    overlap=True,
                )
            )

    gain = {
        (load, b): c.m(load, b, "NR-SACK", gp) / c.m(load, b, "SACK", gp) - 1 for load in c.loads for b in c.buffers
    }
    claims.append(
        Claim(
            "nr-sack/fig14-cmt-nr-sack-goodput-beats-sack",
            "CMT with 128K/256K buffers: NR-SACK's goodput beats SACK's at every load (§V.B.3, Fig. 14)",
            all(gain[(load, b)] > 0 for load in c.loads for b in limited),
            "; ".join(
                f"{b}: " + " ".join(f"{load} {gain[(load, b)] * 100:+.1f}%" for load in c.loads) for b in limited
            ),
        )
    )
    first = limited[0] if limited else c.buffers[0]
    ok = gain[(c.loads[-1], first)] > gain[(c.loads[0], first)] and all(
        gain[(c.loads[-1], first)] > gain[(c.loads[-1], b)] for b in limited[1:]
    )
    claims.append(
        Claim(
            "nr-sack/cmt-goodput-gain-grows",
            "NR-SACK's CMT goodput gain grows as the buffer shrinks and the paths grow asymmetric (§V.B.3)",
            ok,
            "; ".join(
                f"{b}: {c.loads[0]} {gain[(c.loads[0], b)] * 100:+.1f}%, {c.loads[-1]} {gain[(c.loads[-1], b)] * 100:+.1f}%"
                for b in c.buffers
            ),
        )
    )
    if {"128K", "256K", "INF"} <= set(c.buffers):
        busy = [load for load in c.loads if load != "low"]
        g = lambda load, b, ack: c.cells[(load, b, ack)][gp]
        claims.append(
            Claim(
                "nr-sack/cmt-nr-sack-128k-like-sack-256k",
                "CMT-NR-SACK with 128K performs similar to or better than CMT-SACK with 256K at mild, medium and heavy path-1 load (§V.B.3; not lower beyond the 95% CIs or 5%)",
                all(_not_worse(g(load, "128K", "NR-SACK"), g(load, "256K", "SACK"), 0.05) for load in busy),
                "; ".join(
                    f"{load}: NR-SACK 128K {est(g(load, '128K', 'NR-SACK'), 1e-6, 2)} vs SACK 256K {est(g(load, '256K', 'SACK'), 1e-6, 2)} Mb/s"
                    for load in busy
                ),
                overlap=True,
            )
        )
        claims.append(
            Claim(
                "nr-sack/cmt-nr-sack-256k-like-sack-inf",
                "CMT-NR-SACK with 256K performs similar to CMT-SACK with INF at mild, medium and heavy path-1 load (§V.B.3; not lower beyond the 95% CIs or 5%)",
                all(_not_worse(g(load, "256K", "NR-SACK"), g(load, "INF", "SACK"), 0.05) for load in busy),
                "; ".join(
                    f"{load}: NR-SACK 256K {est(g(load, '256K', 'NR-SACK'), 1e-6, 2)} vs SACK INF {est(g(load, 'INF', 'SACK'), 1e-6, 2)} Mb/s"
                    for load in busy
                ),
                overlap=True,
            )
        )
    if "INF" in c.buffers:
        sk, n = (
            [c.m(load, "INF", "SACK", rq) for load in c.loads],
            [c.m(load, "INF", "NR-SACK", rq) for load in c.loads],
        )
        claims.append(
            Claim(
                "nr-sack/fig15-cmt-sack-larger-rtxq",
                "CMT with INF buffers: SACK keeps a larger average rtxq than NR-SACK at every load (§V.B.3, Fig. 15)",
                all(a > b for a, b in zip(sk, n)),
                f"SACK {_fmt(c, 'INF', 'SACK', rq, 1e-3, 0)}; NR-SACK {_fmt(c, 'INF', 'NR-SACK', rq, 1e-3, 0)} KB",
            )
        )
        claims.append(
            Claim(
                "nr-sack/fig15-cmt-nr-sack-rtxq-falls-with-load",
                "CMT-NR-SACK's average rtxq (INF) falls as path 1's load grows (Fig. 15)",
                _falls(n, 0.05 * max(n)),
                f"{_fmt(c, 'INF', 'NR-SACK', rq, 1e-3, 0)} KB",
            )
        )
        if "mild" in c.loads:
            claims.append(
                Claim(
                    "nr-sack/fig15-cmt-sack-rtxq-grows-with-load",
                    "CMT-SACK's average rtxq (INF) grows from mild to heavy load (Fig. 15)",
                    sk[-1] > sk[c.loads.index("mild")],
                    f"{_fmt(c, 'INF', 'SACK', rq, 1e-3, 0)} KB",
                )
            )

    sw, nw = swings["SACK"], swings["NR-SACK"]
    runs = len({r["replication"] for r in c.rows})
    where = f"CMT, {c.buffers[0]}, {c.loads[-1]} path-1 load, " + (f"mean over {runs} runs" if runs > 1 else "one run")
    nums = f"times the rtxq filled the buffer and then fell below 10% of it: SACK {sw.swings}, NR-SACK {nw.swings}; std SACK {sw.std / 1024:.1f} KiB, NR-SACK {nw.std / 1024:.1f} KiB; mean SACK {sw.mean / 1024:.1f} KiB, NR-SACK {nw.mean / 1024:.1f} KiB; time above half the buffer SACK {sw.above_half:.2f}, NR-SACK {nw.above_half:.2f}"
    claims.append(
        Claim(
            "nr-sack/fig10-12-cmt-sack-rtxq-swings",
            f"{where}: CMT-SACK's rtxq varies more, reaching the buffer size and dropping to ~0 repeatedly, more than CMT-NR-SACK's (§V.B.1, Figs. 10-12)",
            sw.swings > nw.swings and sw.std > nw.std,
            nums,
        )
    )
    claims.append(
        Claim(
            "nr-sack/fig11-cmt-nr-sack-rtxq-near-buffer",
            f"{where}: CMT-NR-SACK's rtxq is closer to the buffer size most of the time (§V.B.1, Fig. 11; larger mean and more time above half the buffer than SACK's)",
            nw.mean > sw.mean and nw.above_half > sw.above_half,
            nums,
        )
    )

    worse = [
        f"{res.name} {load} {b}: {est(res.cells[(load, b, 'NR-SACK')][gp], 1e-6, 2)} vs {est(res.cells[(load, b, 'SACK')][gp], 1e-6, 2)} Mb/s"
        for res in (s, c)
        for load in res.loads
        for b in res.buffers
        if not _not_worse(res.cells[(load, b, "NR-SACK")][gp], res.cells[(load, b, "SACK")][gp], 0.02)
    ]
    claims.append(
        Claim(
            "nr-sack/nr-sack-never-worse",
            "NR-SACK never performs worse than SACK: goodput at every point, SCTP and CMT (§VI; not lower beyond the 95% CIs or 2%)",
            not worse,
            "; ".join(worse) or "no point worse",
            overlap=True,
        )
    )

    out_of_range = []
    for res, link in ((s, "R1->R2"), (c, "R1->R2")):
        for load in res.loads:
            loss = (
                mean_ci(
                    [
                        setup.link_stats(
                            {k.split(".", 2)[2]: v for k, v in r.items() if k.startswith(f"link.{link}.")}
                        )["loss"]
                        for r in res.rows
                        if r["param.load"] == load
                    ]
                ).mean
                or 0.0
            )
            lo_p, hi_p = setup.LOADS[load].paper_loss
            out_of_range.append((res.name, load, loss, lo_p <= loss <= hi_p))
    claims.append(
        Claim(
            "nr-sack/setup-loss-in-paper-range",
            "(setup check, not a paper claim) the bottleneck loss rate of each load is in the paper's range (§IV.A: < 0.1%, 1-2%, 3-4%, 8-9%)",
            all(x[3] for x in out_of_range),
            ", ".join(f"{n} {load} {loss * 100:.2f}%" for n, load, loss, _ in out_of_range),
            sanity=True,
            why="a check of the calibrated cross traffic, not a claim of the paper",
            paper="< 0.1%, 1-2%, 3-4%, 8-9% loss",
        )
    )
    return claims
