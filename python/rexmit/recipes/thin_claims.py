"""The claims of seed 004 (Petlund et al.) checked against the ``thin-streams`` results
(:class:`rexmit.recipes.thin_runs.Results`): each with its stable id, the comparisons made and
those left out for too few samples. Not here: running the sweeps, figures."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rexmit import report as report_mod
from rexmit.recipes import thin_figures as tf
from rexmit.recipes import thin_scenarios as ts
from rexmit.recipes.common import Claim
from rexmit.recipes.thin_figures import Latency, Stats
from rexmit.recipes.thin_runs import Results, grid_series, pct

MIN_SAMPLES = 5
#: "Lower" means lower by more than this (s): the record's precision. Two variants whose
#: timer chains are the same differ only by serialisation jitter (e.g. mod exp bo's and
#: lksctp's 2nd-retransmission maxima at 1% loss: 1.900111 and 1.900139 s), not a drop.
RESOLUTION_S = 0.001


def _cmp(a: Latency, b: Latency, stat: str) -> bool | None:
    """a's statistic below b's by more than RESOLUTION_S; None when either side has fewer than
    MIN_SAMPLES messages."""
    if a.n < MIN_SAMPLES or b.n < MIN_SAMPLES:
        return None
    return getattr(a, stat) < getattr(b, stat) - RESOLUTION_S


class Check:
    """Collects comparisons for one claim: it holds when every testable one holds and at least
    one was testable; the numbers list each, and the untestable ones."""

    def __init__(self, none_testable: str = "too few samples in these runs") -> None:
        self.results: list[bool] = []
        self.parts: list[str] = []
        self.untestable: list[str] = []
        self.none_testable = none_testable  # why, when nothing could be compared

    def add(self, ok: bool | None, where: str, text: str) -> None:
        if ok is None:
            self.untestable.append(where)
        else:
            self.results.append(ok)
            self.parts.append(f"{where}: {text}{'' if ok else ' ✗'}")

    def lower(self, a: Latency, b: Latency, stats: Sequence[str], where: str, names: tuple[str, str]) -> None:
        for stat in stats:
            self.add(
                _cmp(a, b, stat),
                f"{where} {stat}",
                f"{names[0]} {a.ms(stat)} vs {names[1]} {b.ms(stat)} ms (n {a.n}/{b.n})",
            )

    def claim(self, claim_id: str, text: str, **extra: Any) -> Claim:
        parts = list(self.parts)
        if self.untestable:
            parts.append(f"fewer than {MIN_SAMPLES} messages, not compared: {', '.join(self.untestable)}")
        if not self.results:
            parts.insert(0, f"NOT TESTABLE ({self.none_testable})")
        return Claim(claim_id, text, bool(self.results) and all(self.results), "; ".join(parts), **extra)


def _vs(
    per_loss: dict[float, Stats],
    a: tuple[str, str],
    b: tuple[str, str],
    buckets: Sequence[str],
    stats: Sequence[str],
    c: Check | None = None,
) -> Check:
    """Compare variant a (name, label) with b at every loss rate and retransmission count."""
    c = c or Check()
    for loss, s in sorted(per_loss.items()):
        for bucket in buckets:
            c.lower(s[a[0]][bucket], s[b[0]][bucket], stats, f"{pct(loss)} {tf.ORDINAL[bucket]}", (a[1], b[1]))
    return c


LKSCTP, ALL, TCP, FR = ("lksctp", "lksctp"), ("all_mods", "All mods"), ("tcp_newreno", "TCP"), ("mod_fr", "FR")
EXP_BO, MIN_RTO, EFR, ER = ("mod_exp_bo", "exp bo"), ("mod_min_rto", "min rto"), ("efr", "EFR"), ("er_rfc5827", "ER")
LATER, ALL_RTX = ("rtx2", "rtx3"), tuple(tf.BUCKETS)


def _fig8_claims(r: Results) -> list[Claim]:
    f8 = r.fig8
    claims = [
        _vs(f8, ALL, LKSCTP, LATER, ("mean", "p99", "max")).claim(
            "thin-streams/fig8a-all-mods-lower-2nd-3rd",
            "Fig. 8a (§6.1): All mods lower the mean, 99th percentile and maximum latency of the 2nd and 3rd retransmission compared with lksctp (RTT 100 ms, 1% and 5% loss)",
        ),
        _vs(f8, EXP_BO, LKSCTP, LATER, ("max",)).claim(
            "thin-streams/fig8a-exp-bo-lowers-max",
            "Fig. 8a: without exponential backoff (mod exp bo) the maximum latency of the 2nd and 3rd retransmission drops compared with lksctp",
        ),
    ]
    c = Check()
    for loss, s in sorted(f8.items()):
        for b in tf.BUCKETS:
            for stat in ("mean", "p99"):
                a, base = s["mod_exp_bo"][b], s["lksctp"][b]
                ok = None if min(a.n, base.n) < MIN_SAMPLES else abs(getattr(a, stat) / getattr(base, stat) - 1) <= 0.2
                c.add(ok, f"{pct(loss)} {tf.ORDINAL[b]} {stat}", f"exp bo {a.ms(stat)} vs lksctp {base.ms(stat)} ms")
    claims.append(
        c.claim(
            "thin-streams/fig8a-exp-bo-marginal-mean-p99",
            "Fig. 8a: mod exp bo changes the mean and 99th percentile only marginally (within 20% of lksctp's, 1st–3rd retransmission)",
        )
    )
    claims.append(
        _vs(f8, MIN_RTO, LKSCTP, ALL_RTX, ("mean", "p99")).claim(
            "thin-streams/fig8a-min-rto-improves",
            "Fig. 8a: RTO.min 200 ms (mod min rto) improves the mean and 99th percentile latency of the 1st–3rd retransmission",
        )
    )
    claims.append(
        _vs(f8, FR, LKSCTP, ALL_RTX, ("mean", "p99")).claim(
            "thin-streams/fig8a-fr-improves",
            "Fig. 8a: fast retransmit on the first indication (mod FR) improves the mean and 99th percentile latency of the 1st–3rd retransmission",
        )
    )
    claims.append(
        _vs(f8, ALL, FR, LATER, ("max",)).claim(
            "thin-streams/fig8a-fr-alone-max-high",
            "Fig. 8a: with mod FR alone the maximum stays high (exponential backoff): above All mods' for the 2nd and 3rd retransmission",
        )
    )
    c = Check()
    for loss, s in sorted(f8.items()):
        red = {b: 1 - s["all_mods"][b].mean / s["lksctp"][b].mean for b in tf.BUCKETS}
        for b in LATER:
            testable = min(s[v][x].n for v in ("all_mods", "lksctp") for x in ("rtx1", b)) >= MIN_SAMPLES
            c.add(
                red[b] > red["rtx1"] if testable else None,
                f"{pct(loss)} {tf.ORDINAL[b]}",
                f"mean reduced by {red[b]:.0%} vs {red['rtx1']:.0%} for the 1st",
            )
    claims.append(
        c.claim(
            "thin-streams/fig8a-gain-larger-for-later-retransmissions",
            "Fig. 8a: the improvement of All mods over lksctp is more pronounced for the 2nd and 3rd retransmission than for the 1st (relative reduction of the mean)",
        )
    )
    claims.append(
        _vs(f8, TCP, LKSCTP, ("rtx1", "rtx2"), ("mean", "p99")).claim(
            "thin-streams/sec6.1-tcp-beats-lksctp-1st-2nd",
            "§6.1: TCP New Reno beats lksctp on the 1st and 2nd retransmission",
        )
    )
    claims.append(
        _vs(f8, LKSCTP, TCP, ("rtx3",), ("mean",)).claim(
            "thin-streams/sec6.1-lksctp-beats-tcp-3rd",
            "§6.1: on the 3rd retransmission lksctp has a lower mean than TCP New Reno",
        )
    )
    c = _vs(f8, ALL, TCP, ALL_RTX, ("mean", "p99"))
    claims.append(
        _vs(f8, ALL, TCP, ("rtx3",), ("max",), c).claim(
            "thin-streams/sec6.1-all-mods-beat-tcp",
            "§6.1: All mods beat TCP New Reno (mean and 99th percentile of the 1st–3rd retransmission, and the maximum of the 3rd)",
        )
    )
    claims.append(
        _vs(f8, EFR, LKSCTP, ALL_RTX, ("mean",)).claim(
            "thin-streams/sec7.5-efr-improves-on-lksctp",
            "§7.5: FreeBSD's early fast retransmit (EFR) improves the retransmission delays over plain SCTP (mean, 1st–3rd retransmission)",
        )
    )
    c = _vs(f8, ALL, EFR, ALL_RTX, ("mean",))
    claims.append(
        _vs(f8, ALL, ER, ALL_RTX, ("mean",), c).claim(
            "thin-streams/sec7.5-efr-and-er-short-of-all-mods",
            "§7.5, §8: neither EFR nor RFC 5827 early retransmit reaches the latency of All mods (mean, 1st–3rd retransmission)",
        )
    )
    return claims


def _http_claims(r: Results) -> list[Claim]:
    claims = []
    h = r.http_rtt[float(ts.LAB_RTT_MS)]
    c = Check()
    for b in tf.BUCKETS:
        c.lower(h["all_mods"][b], h["lksctp"][b], ("mean", "p99", "max"), tf.ORDINAL[b], ("All mods", "lksctp"))
    claims.append(
        c.claim(
            "thin-streams/fig8b-all-mods-lower-every-retransmission",
            "Fig. 8b (§6.2): under HTTP cross traffic All mods lower the mean, 99th percentile and maximum latency of every retransmission compared with lksctp",
        )
    )
    c = Check()
    for v, name in (("mod_exp_bo", "exp bo"), ("mod_min_rto", "min rto"), ("mod_fr", "FR")):
        c.lower(h[v]["any"], h["lksctp"]["any"], ("mean",), name, (name, "lksctp"))
    claims.append(
        c.claim(
            "thin-streams/fig8b-each-mod-improves",
            "Fig. 8b: under HTTP cross traffic each modification (exp bo, min rto, FR) improves on lksctp (mean latency of the retransmitted messages)",
        )
    )
    rows = r.http_rows
    causes = {m: tf.total(rows, "lksctp", m) for m in ("rtx_fast", "rtx_timeout", "rtx_bundled")}
    claims.append(
        Claim(
            "thin-streams/fig9-fast-retransmit-most-common",
            "Fig. 9: for lksctp under HTTP cross traffic, fast retransmission is the most common cause of retransmission",
            causes["rtx_fast"] > max(causes["rtx_timeout"], causes["rtx_bundled"]),
            f"FR {causes['rtx_fast']:.0f}, TO {causes['rtx_timeout']:.0f}, bundled {causes['rtx_bundled']:.0f}",
            paper="timeouts a little more than 20% of 1st and about 75% of 2nd retransmissions",
        )
    )
    spurious = {v: tf.total(rows, v, "dup_tsns_received") for v in ("lksctp", "all_mods")}
    lab = {v: tf.total(r.fig8_rows[max(r.fig8_rows)], v, "dup_tsns_received") for v in ("lksctp", "all_mods")}
    claims.append(
        Claim(
            "thin-streams/fig9-mods-more-spurious",
            "Fig. 9, Table 2: the modifications increase the number of spurious retransmissions (HTTP cross traffic)",
            spurious["all_mods"] > spurious["lksctp"],
            f"HTTP: All mods {spurious['all_mods']:.0f} vs lksctp {spurious['lksctp']:.0f}; lab {pct(max(r.fig8_rows))} loss (for comparison): {lab['all_mods']:.0f} vs {lab['lksctp']:.0f}",
        )
    )
    return claims


def _fig10_check(series: dict[float, Stats], c: Check, where: str) -> None:
    for iat, s in series.items():
        a, b = s["all_mods"]["rtx2"], s["lksctp"]["rtx2"]
        ok = None if min(a.n, b.n) < MIN_SAMPLES else a.p99 < b.mean
        c.add(ok, f"{where} {iat:g} ms", f"All mods p99 {a.ms('p99')} vs lksctp mean {b.ms('mean')} ms")


def _iat_rtt_claims(r: Results) -> list[Claim]:
    claims = []
    loss = max(p for p, _, _ in r.grid)
    lab = grid_series(r, loss, float(ts.LAB_RTT_MS))
    for series, where in ((r.http_iat, "HTTP"), (lab, f"{pct(loss)} loss")):
        c = Check()
        _fig10_check(series, c, where)
        claims.append(
            c.claim(
                f"thin-streams/fig10-{'http' if where == 'HTTP' else 'lab'}-all-mods-p99-below-lksctp-mean",
                f"Fig. 10 ({where}, RTT 100 ms): the 99th percentile of the 2nd retransmission with All mods stays below lksctp's mean at every interarrival time",
            )
        )
    # Fig. 10 is §6.2's experiment (HTTP cross traffic); the same trend on the lab network's
    # uniform loss is a separate claim, so that each verdict names its condition.
    for series, where in ((r.http_iat, "HTTP"), (lab, f"{pct(loss)} loss")):
        c = Check()
        iats = sorted(i for i in series if series[i]["mod_min_rto"]["rtx2"].n >= MIN_SAMPLES)
        if len(iats) < 2:
            c.add(None, where, "")
        else:
            gap = {
                i: series[i]["mod_min_rto"]["rtx2"].p99 - series[i]["mod_min_rto"]["rtx2"].mean
                for i in (iats[0], iats[-1])
            }
            c.add(
                gap[iats[-1]] < gap[iats[0]],
                where,
                f"p99 − mean {gap[iats[0]] * 1e3:.0f} ms at {iats[0]:g} ms, {gap[iats[-1]] * 1e3:.0f} ms at {iats[-1]:g} ms (n {series[iats[0]]['mod_min_rto']['rtx2'].n}/{series[iats[-1]]['mod_min_rto']['rtx2'].n})",
            )
        if where == "HTTP":
            claims.append(
                c.claim(
                    "thin-streams/fig10-min-rto-p99-gap-shrinks",
                    "Fig. 10 (§6.2, HTTP cross traffic, RTT 100 ms): for mod min rto the distance between the 99th percentile and the mean of the 2nd retransmission decreases as the interarrival time grows",
                )
            )
        else:
            claims.append(
                c.claim(
                    "thin-streams/fig10-lab-min-rto-p99-gap-shrinks",
                    f"Fig. 10's trend on the lab network ({where}, RTT 100 ms; the paper shows Fig. 10 for HTTP cross traffic only): for mod min rto the distance between the 99th percentile and the mean of the 2nd retransmission decreases as the interarrival time grows",
                )
            )
    rtts = sorted({t for _, t, _ in r.grid})
    iats = sorted({i for _, _, i in r.grid})
    lat = lambda rtt, iat: r.grid[(loss, rtt, iat)]["lksctp"]["rtx1"]
    c = Check()
    if 0.0 in rtts and float(ts.LAB_RTT_MS) in rtts and len(iats) >= 2:
        red = {i: 1 - lat(0.0, i).mean / lat(float(ts.LAB_RTT_MS), i).mean for i in (iats[0], iats[-1])}
        c.add(
            red[iats[0]] > red[iats[-1]],
            f"{pct(loss)} loss",
            f"RTT 100→0 ms lowers the mean by {red[iats[0]]:.0%} at {iats[0]:g} ms and by {red[iats[-1]]:.0%} at {iats[-1]:g} ms",
        )
    claims.append(
        c.claim(
            "thin-streams/sec6.2-lower-rtt-helps-small-interarrival",
            "§6.2: lowering the RTT reduces the latency mainly for the smallest interarrival times (lksctp, 1st retransmission, relative reduction from RTT 100 to 0 ms)",
        )
    )
    # §6.2 speaks of "the number of retransmissions due to fast retransmit"; the share is shown
    # beside it (bundled retransmissions grow with the RTT too).
    fast = lambda rtt, iat: tf.total(r.grid_rows[(loss, rtt, iat)], "lksctp", "rtx_fast")
    fr_share = lambda rtt, iat: (
        fast(rtt, iat) / max(tf.total(r.grid_rows[(loss, rtt, iat)], "lksctp", "retransmissions"), 1)
    )
    c, share = Check(), Check()
    for iat in iats[: len(iats) if len(rtts) >= 2 else 0]:
        c.add(
            lat(rtts[-1], iat).mean > lat(rtts[0], iat).mean,
            f"{iat:g} ms",
            f"{lat(rtts[0], iat).ms('mean')} ms at RTT {rtts[0]:g} → {lat(rtts[-1], iat).ms('mean')} ms at {rtts[-1]:g}",
        )
        share.add(
            fast(rtts[-1], iat) > fast(rtts[0], iat),
            f"{iat:g} ms",
            f"{fast(rtts[0], iat):.0f} ({fr_share(rtts[0], iat):.0%}) at RTT {rtts[0]:g} → {fast(rtts[-1], iat):.0f} ({fr_share(rtts[-1], iat):.0%}) at {rtts[-1]:g}",
        )
    claims.append(
        c.claim(
            "thin-streams/sec6.2-higher-rtt-higher-latency",
            f"§6.2: increasing the RTT increases the retransmission latency (lksctp, mean of the 1st retransmission, {pct(loss)} loss, every interarrival time)",
        )
    )
    claims.append(
        share.claim(
            "thin-streams/sec6.2-higher-rtt-more-fast-retransmit",
            f"§6.2: increasing the RTT increases the number of retransmissions due to fast retransmit (lksctp, {pct(loss)} loss, every interarrival time; their share in brackets)",
        )
    )
    return claims


def _fair_share_bps() -> float:
    """The test stream's share of the fairness bottleneck against one greedy flow (§6.3)."""
    return (report_mod.as_number(ts.FAIR_RATE)[0] or 0.0) / 2


def _other_claims(r: Results) -> list[Claim]:
    """Fig. 11 holds trivially where the test stream attempts less than its fair share: it
    gets what it sends with or without the modifications, and leaves the greedy flow the
    rest. Those rates are a sanity check apart; the claim is judged at the others."""
    claims = []
    share = _fair_share_bps()
    fairness = (
        (
            1,
            "fig11b-greedy-flow-unchanged",
            "Fig. 11b (§6.3): the greedy flow's throughput hardly changes (within 5%) when it competes with the modified rather than the unmodified thin stream",
        ),
        (
            0,
            "fig11a-test-stream-unchanged",
            "Fig. 11a: the test stream achieves nearly the same throughput (within 5%) with and without the modifications",
        ),
    )
    for which, name, text in fairness:
        at_share, below = Check(f"no attempted rate of at least {share / 1e3:g} kb/s in this run"), Check()
        for (greedy, mod), points in sorted(r.fair.items()):
            if mod:
                for rate, values in sorted(points.items()):
                    base = r.fair[(greedy, False)][rate][which]
                    (at_share if rate >= share else below).add(
                        abs(values[which] / base - 1) <= 0.05,
                        f"{greedy} {rate / 1e3:g} kb/s",
                        f"{values[which] / 1e3:.1f} vs {base / 1e3:.1f} kb/s",
                    )
        claims.append(
            at_share.claim(
                f"thin-streams/{name}",
                f"{text}, at every attempted rate of at least the test stream's fair share ({share / 1e3:g} kb/s)",
            )
        )
        claims.append(
            below.claim(
                f"thin-streams/{name}-below-fair-share",
                f"{text}, at attempted rates below the test stream's fair share",
                sanity=True,
                why="below its fair share the thin stream gets the rate it sends either way and leaves the rest to the greedy flow",
            )
        )
    c = Check()
    for preset, s in r.presets.items():
        c.lower(s["all_mods"]["any"], s["lksctp"]["any"], ("mean", "max"), preset, ("All mods", "lksctp"))
    claims.append(
        c.claim(
            "thin-streams/table1-all-mods-lower-latency",
            "Table 1 sources (§3.2, §6.5): for every thin-stream application All mods lower the mean and maximum latency of retransmitted messages compared with lksctp (RTT 100 ms, 5% loss)",
        )
    )
    return claims


def paper_claims(r: Results) -> list[Claim]:
    """Every claim of the recipe, in the order of the paper."""
    return [*_fig8_claims(r), *_http_claims(r), *_iat_rtt_claims(r), *_other_claims(r)]
