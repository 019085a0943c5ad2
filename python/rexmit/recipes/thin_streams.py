"""Seed 004 (Petlund et al., "Improving SCTP retransmission delays for time-dependent thin
streams"): ``rexmit reproduce thin-streams``.

Latency per retransmission (mean, 99th percentile, maximum of the messages that needed 1, 2 or 3
retransmissions) of a thin SCTP stream with default settings ("lksctp"), with each of the §5
modifications alone (linear timeouts "mod exp bo", RTO.min 200 ms "mod min rto", fast
retransmit on the first indication "mod FR", the timer restart correction), with all of them,
with the comparison mechanisms FreeBSD EFR (§2, §7.5) and RFC 5827 early retransmit (§8), and
over TCP New Reno: the lab scenario of Fig. 8a (RTT 100 ms, 1% and 5% uniform loss, 4 messages
of 100 B per second), the same under HTTP cross traffic (Fig. 8b, §6.2), the interarrival times
of Fig. 10, RTTs 0–400 ms (§6), the fairness test of Fig. 11 (§6.3) and Table 1's thin-stream
applications as sources.

Choices where the paper gives no number, stated in the reports too:

- every variant runs as its own thin stream in the same simulation (one sender host, one
  receiver host, the same path), so all see the same network at the same time, as seed 004
  §6.4 ran its four setups concurrently; their load (9 × 3.2 kb/s) hardly matters; their
  starts are spread evenly over one interarrival time (under HTTP cross traffic, identical
  streams a few ms apart lost more packets the later they came in the group);
- the lab network (Fig. 7) is 100 Mb/s Ethernet; the emulated delay sits on the sender's link
  (RTT/2 each way) and the uniform loss hits the data direction only (SACKs and ACKs are not
  lost); statistics count messages sent from 10 s on;
- delayed acknowledgements are off for SCTP and TCP (Fig. 8 caption: a SACK per packet);
  lksctp's other settings are RFC 4960's (RTO.min 1 s, RTO.initial 3 s, heartbeats every 30 s);
  messages are delivered in order;
- TCP New Reno: no SACK, RTO.min 200 ms (Linux's, §5.2), Nagle off (interactive applications set
  TCP_NODELAY), RFC 6298 RTO otherwise;
- "All mods" is the four modifications of §5 (Fig. 8's three plus the timer restart
  correction of §5.2), each active only while the stream is thin (Fig. 3, pttfr = 3);
- FreeBSD EFR is left out of the HTTP runs (see the caveat below: it would flood the shared
  bottleneck at small RTTs); seed 004 compared EFR over the Internet only (§6.4);
- HTTP cross traffic (§6.2): 81 web clients with one-way delays 10–90 ms (RTTs 20–180 ms; netem
  gave each its own delay, the values are not given), each requesting with exponential gaps
  of mean 580 ms (the paper's 655 ms gives 2.3% loss here; 580 ms gives the paper's ~5%,
  thin_scenarios.HTTP_REQUEST_MEAN_MS), Pareto responses of at least 1000 B with mean 9200 B and at most 64 MiB, over
  rexmit's default TCP (SACK, Reno); the bottleneck is 10 Mb/s with 100 packets of drop-tail
  queue and no delay of its own;
- fairness (§6.3): a 100-packet queue at the 1 Mb/s bottleneck; the test stream sends 100 B
  messages at a fixed interval (3.2 kb/s to 1 Mb/s attempted); the greedy flow is an SCTP bulk
  transfer (the paper's greedy lksctp stream) and, in the full run, also a TCP bulk transfer,
  with 1 MiB buffers so that its window outgrows the path and it keeps the queue full (with
  rexmit's default buffers nothing would ever be lost); 10 min per run;
- Table 1 sources (rexmit's presets: exponential gaps and sizes with Table 1's means; the
  sensor sends bursts of 4 every 30 s) run over the lab network at RTT 100 ms and 5% loss;
- a message's latency runs from its generation to its delivery to the application, in order,
  so it includes head-of-line blocking (a message retransmitted once may wait behind one
  retransmitted three times); the 99th percentile pooled over replications is the mean of each
  run's 99th percentile (the sweep keeps the per-run statistics, not every message); the mean is
  weighted by message count and the maximum is the largest; a comparison needs at least 5
  messages on each side;
- EFR follows §2's description (a timer of SRTT + RTTVAR for every outgoing packet, no floor;
  on expiry every chunk that could have been acknowledged is resent, at most once, and cwnd
  shrinks by one MTU): on a path of constant delay it often expires with the SACK on its way, so
  many of its retransmissions are spurious (lab network, 5% loss, 2 h: 15 325 EFR
  retransmissions for 28 786 messages). A message counts as retransmitted only if a
  retransmission of its chunk left before the message was delivered.

Full version (runtime not measured yet): 2 h per latency run as in §6; Fig. 8a 20 replications per loss
rate; the RTT × loss × interarrival grid (6 × 2 × 5 points) 4 replications; HTTP 6 replications
per RTT (6) and interarrival time (5); fairness 8 rates × 2 greedy kinds × 2, 3 replications of
10 min; Table 1 sources 3 replications of 2 h. Quick version (under a minute): Fig. 8a
5 replications of 2 h, a 2 × 2 grid of 20 min runs at 5% loss, HTTP at RTT 100 ms for 20 min,
two fairness rates against TCP, two sources for 30 min.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

from rexmit import report as report_mod
from rexmit import sweep as sweep_mod
from rexmit.recipes import thin_figures as tf
from rexmit.recipes import thin_scenarios as ts
from rexmit.labels import metric_label
from rexmit.recipes.common import Claim
from rexmit.recipes.thin_figures import Latency, Stats

NOTES = [" ".join(line.split()) for line in (__doc__ or "").split("\n- ")[1:]]
NOTES[-1] = NOTES[-1].split(" Full version")[0]
MIN_SAMPLES = 5
BOTTLENECK = "link.R1->R2"


@dataclass(frozen=True)
class Plan:
    latency_s: float  # one latency run (§6.1: 2 h)
    fig8_reps: int
    grid_losses: list[float]
    grid_rtts: list[float]
    grid_iats: list[float]
    grid_s: float
    grid_reps: int
    http_s: float
    http_rtts: list[float]
    http_iats: list[float]  # at RTT 100 ms besides the RTT sweep's 250 ms
    http_reps: int
    fair_iats_ms: list[float]
    fair_greedy: list[str]
    fair_s: float
    fair_reps: int
    presets: list[str]
    preset_s: float
    preset_reps: int


FULL = Plan(ts.TEST_DURATION_S, 20, ts.LOSSES, ts.RTTS_MS, ts.IATS_MS, ts.TEST_DURATION_S, 4, ts.TEST_DURATION_S, ts.RTTS_MS, [50, 100, 150, 200], 6, [250, 50, 16, 8, 4, 2, 1.6, 0.8], ["sctp_bulk", "tcp_bulk"], 600, 3, ts.PRESETS, ts.TEST_DURATION_S, 3)
QUICK = Plan(ts.TEST_DURATION_S, 5, [0.05], [0, 100], [50, 250], 1200, 1, 1200, [100], [], 1, [250, 4], ["tcp_bulk"], 120, 1, ["game", "ssh"], 1800, 1)


def _labels(varied: Sequence[str], metrics: Sequence[str]) -> dict[str, Any]:
    """The sweep reports' names: seed 004's words for the varied keys, latencies in ms, each
    metric named with its variant."""
    keys = {
        ts.RTT_KEY: {"name": "Sender's link delay (RTT/2)", "unit": "ms"},
        ts.LOSS_KEY: "Uniform loss rate",
        ts.IAT_KEY: {"name": "Interarrival time", "unit": "ms"},
        ts.SOURCE_KEY: "Table 1 source",
    }
    out: dict[str, Any] = {k: v for k, v in keys.items() if k in varied}
    for m in metrics:
        flow = m.split(".")[1]
        out[m] = {"name": f"{ts.LABELS.get(flow, flow)}: {metric_label(m).name[0].lower()}{metric_label(m).name[1:]}", "unit": "ms"}
    return out


def _sweep(out: Path, name: str, title: str, base: dict[str, Any], grid: dict[str, list[Any]], zip_: dict[str, list[Any]], reps: int, jobs: Optional[int], x: str, metrics: Sequence[str], tables: Callable[[Path], list[tuple[str, list[dict[str, Any]]]]]) -> Path:
    spec = {"name": f"seed 004 {title}", "replications": reps, "seed": 4, "base": base, "grid": grid, "zip": zip_, "report": {"x": x, "metrics": list(metrics)}, "labels": _labels([*grid, *zip_], [*metrics, *FALLBACK_MEANS])}
    d = out / name
    sweep_mod.run_sweep(sweep_mod.Sweep.from_dict(spec), d, jobs=jobs)
    # A short run may have no message with a 2nd retransmission (an all-null column): then the
    # figures show the mean latency of all messages.
    present = set(sweep_mod.summarize(d).column_names)
    drawn = [m for m in metrics if f"{m}.mean" in present] or FALLBACK_MEANS
    report_mod.report(d, metrics=drawn, notes=NOTES, tables=tables(d))
    return d


def _ms(value: str) -> float:
    return (report_mod.as_number(value)[0] or 0.0) * 1e3


RTX2_MEANS = [f"flow.{v}.latency_rtx2_mean_s" for v in ("lksctp", "all_mods", "tcp_newreno")]
FALLBACK_MEANS = [f"flow.{v}.latency_mean_s" for v in ("lksctp", "all_mods", "tcp_newreno")]


def _point_tables(keys: Sequence[str], label: Callable[[tuple[Any, ...]], str]) -> Callable[[Path], list[tuple[str, list[dict[str, Any]]]]]:
    """Per point of a latency sweep: latency per retransmission and retransmissions by cause."""

    def tables(d: Path) -> list[tuple[str, list[dict[str, Any]]]]:
        out = []
        for key, rows in tf.by_point(d, keys).items():
            out.append((f"{label(key)}: latency per retransmission (ms; pooled over {len(rows)} runs)", tf.latency_rows(tf.stats_of(rows), [*tf.BUCKETS, "any"])))
            out.append((f"{label(key)}: retransmissions by cause, summed over the runs", tf.cause_rows(rows)))
        return out

    return tables


# --- the sweeps ----------------------------------------------------------------------------
def _lab_label(key: tuple[Any, ...]) -> str:
    loss, *rest = key
    text = f"{loss:.0%} uniform loss"
    if rest:
        text += f", RTT {2 * _ms(rest[0]):g} ms, interarrival {_ms(rest[1]):g} ms"
    return text


def _http_label(rtt_ms: float, iat_ms: float) -> str:
    return f"HTTP cross traffic, RTT {rtt_ms:g} ms, interarrival {iat_ms:g} ms"


def _http_loss_rows(d: Path, key: str, label: Callable[[tuple[Any, ...]], str]) -> list[dict[str, Any]]:
    """Per point: the bottleneck's drop rate and utilisation, and how many thin-stream messages
    needed a retransmission."""
    rows = []
    for k, runs in tf.by_point(d, [key]).items():
        drops = sum(r[f"{BOTTLENECK}.drop_overflow"] for r in runs) / sum(r[f"{BOTTLENECK}.offered_packets"] for r in runs)
        util = sum(r[f"{BOTTLENECK}.utilization"] for r in runs) / len(runs)
        retransmitted = tf.pooled(runs, "lksctp", "any").n
        counted = retransmitted + tf.total(runs, "lksctp", "latency_rtx0_count")
        rows.append({"point": label(k), "bottleneck loss": f"{drops:.2%}", "utilisation": f"{util:.3f}", "lksctp messages retransmitted": f"{retransmitted / max(counted, 1):.2%}"})
    return rows


# The HTTP sweeps' varied key and how a point is named.
HTTP_LABELS: dict[str, tuple[str, Callable[[tuple[Any, ...]], str]]] = {
    "http_rtt": (ts.RTT_KEY, lambda k: _http_label(2 * _ms(k[0]), ts.LAB_IAT_MS)),
    "http_iat": (ts.IAT_KEY, lambda k: _http_label(ts.LAB_RTT_MS, _ms(k[0]))),
}


def _run_latency(out: Path, plan: Plan, jobs: Optional[int]) -> dict[str, Path]:
    dirs = {}
    dirs["fig8_lab"] = _sweep(out, "fig8_lab", "Fig. 8a: lab, uniform loss", ts.lab(plan.latency_s, 0.05), {ts.LOSS_KEY: ts.LOSSES}, {}, plan.fig8_reps, jobs, ts.LOSS_KEY, RTX2_MEANS, _point_tables([ts.LOSS_KEY], _lab_label))
    grid = {ts.LOSS_KEY: plan.grid_losses, ts.RTT_KEY: [ts.rtt_value(r) for r in plan.grid_rtts]}
    dirs["lab_grid"] = _sweep(out, "lab_grid", "RTT x loss x interarrival, uniform loss", ts.lab(plan.grid_s, 0.05), grid, ts.iat_zip(plan.grid_iats), plan.grid_reps, jobs, ts.IAT_KEY, RTX2_MEANS, _point_tables([ts.LOSS_KEY, ts.RTT_KEY, ts.IAT_KEY], _lab_label))
    http_sweeps = [
        ("http_rtt", "Fig. 8b: HTTP cross traffic, RTTs", {ts.RTT_KEY: [ts.rtt_value(r) for r in plan.http_rtts]}, {}),
        ("http_iat", "Fig. 10: HTTP cross traffic, interarrival times", {}, ts.iat_zip(plan.http_iats, len(ts.HTTP_VARIANTS))),
    ]
    for name, title, grid, zip_ in http_sweeps:
        key, label = HTTP_LABELS[name]
        if not (grid or plan.http_iats):
            continue  # --quick: the RTT sweep's 250 ms point only
        tables = lambda d, key=key, label=label: [("Bottleneck loss and utilisation (§6.2 measured about 5% loss)", _http_loss_rows(d, key, label)), *_point_tables([key], label)(d)]
        dirs[name] = _sweep(out, name, title, ts.http(plan.http_s), grid, zip_, plan.http_reps, jobs, key, RTX2_MEANS, tables)
    return dirs


def _fair_rate(iat_ms: float) -> float:
    """Attempted rate (bit/s) of 100 B messages every ``iat_ms``."""
    return ts.MESSAGE_BYTES * 8 / (iat_ms / 1e3)


FairPoints = dict[tuple[str, bool], dict[float, tuple[float, float]]]
FAIR_KEYS = ["apps[0].interarrival.value", "apps[0].sctp.thin.all"]
FAIR_LABELS = {
    FAIR_KEYS[0]: {"name": "Interarrival time of the test stream", "unit": "ms"},
    FAIR_KEYS[1]: {"name": "Test stream", "values": {"false": "lksctp", "true": "all modifications"}},
    "flow.greedy.goodput_bps": {"name": "Goodput of the greedy flow", "unit": "kb/s"},
    "flow.thin.goodput_bps": {"name": "Goodput of the test stream", "unit": "kb/s"},
}


def _fair_points(d: Path, greedy: str, points: FairPoints) -> None:
    """(greedy kind, modified) -> {attempted rate: (test stream, greedy) goodput, mean over runs}."""
    for (iat, mod), runs in tf.by_point(d, FAIR_KEYS).items():
        mean = lambda m: sum(r[m] for r in runs) / len(runs)
        points.setdefault((greedy, bool(mod)), {})[_fair_rate(_ms(iat))] = (mean("flow.thin.goodput_bps"), mean("flow.greedy.goodput_bps"))


def _fair_rows(points: FairPoints) -> list[dict[str, Any]]:
    rows = []
    for greedy in sorted({g for g, _ in points}):
        plain, mod = points[(greedy, False)], points[(greedy, True)]
        for rate in sorted(plain):
            rows.append({"greedy": greedy, "attempted kb/s": f"{rate / 1e3:g}", "test stream lksctp kb/s": f"{plain[rate][0] / 1e3:.1f}", "test stream modified kb/s": f"{mod[rate][0] / 1e3:.1f}", "greedy vs lksctp kb/s": f"{plain[rate][1] / 1e3:.1f}", "greedy vs modified kb/s": f"{mod[rate][1] / 1e3:.1f}", "greedy change": f"{mod[rate][1] / plain[rate][1] - 1:+.2%}"})
    return rows


def _run_fairness(out: Path, plan: Plan, jobs: Optional[int]) -> FairPoints:
    """One sweep per greedy kind (``fairness_sctp_bulk``, ``fairness_tcp_bulk``)."""
    points: FairPoints = {}
    grid = {FAIR_KEYS[0]: [f"{x:g}ms" for x in plan.fair_iats_ms], FAIR_KEYS[1]: [False, True]}
    for greedy in plan.fair_greedy:
        d = out / f"fairness_{greedy}"
        base = ts.fairness(plan.fair_s)
        base["apps"][1] = ts.greedy_app(greedy)
        spec = {"name": f"seed 004 Fig. 11: fairness against {greedy}", "replications": plan.fair_reps, "seed": 4, "base": base, "grid": grid, "report": {"x": FAIR_KEYS[0], "metrics": ["flow.greedy.goodput_bps", "flow.thin.goodput_bps"]}, "labels": FAIR_LABELS}
        sweep_mod.run_sweep(sweep_mod.Sweep.from_dict(spec), d, jobs=jobs)
        _fair_points(d, greedy, points)
        report_mod.report(d, notes=NOTES, tables=[("Throughput of the test stream and of the greedy flow (mean over runs)", _fair_rows({k: v for k, v in points.items() if k[0] == greedy}))])
    return points


def _run_presets(out: Path, plan: Plan, jobs: Optional[int]) -> dict[str, Stats]:
    d = _sweep(out, "table1_presets", "Table 1 sources, RTT 100 ms, 5% loss", ts.lab(plan.preset_s, 0.05, source=plan.presets[0]), {}, ts.source_zip(plan.presets), plan.preset_reps, jobs, ts.SOURCE_KEY, [f"flow.{v}.latency_rtx1_mean_s" for v in ("lksctp", "all_mods", "tcp_newreno")], _point_tables([ts.SOURCE_KEY], lambda k: f"source {k[0]}"))
    return {key[0]: tf.stats_of(rows) for key, rows in tf.by_point(d, [ts.SOURCE_KEY]).items()}


# --- results as the claims read them -------------------------------------------------------
@dataclass
class Results:
    fig8: dict[float, Stats]  # loss -> stats (lab, RTT 100, IAT 250)
    fig8_rows: dict[float, list[dict[str, Any]]]
    grid: dict[tuple[float, float, float], Stats]  # (loss, rtt ms, iat ms)
    grid_rows: dict[tuple[float, float, float], list[dict[str, Any]]]
    http_rtt: dict[float, Stats]  # rtt ms -> stats (IAT 250)
    http_iat: dict[float, Stats]  # iat ms -> stats (RTT 100)
    http_rows: list[dict[str, Any]]  # the Fig. 8b point's runs
    fair: FairPoints
    presets: dict[str, Stats]
    http_loss: list[dict[str, Any]]  # bottleneck loss per HTTP point


def _collect(dirs: dict[str, Path], fair: FairPoints, presets: dict[str, Stats]) -> Results:
    fig8_rows = {k[0]: rows for k, rows in tf.by_point(dirs["fig8_lab"], [ts.LOSS_KEY]).items()}
    grid_rows = {(k[0], 2 * _ms(k[1]), _ms(k[2])): rows for k, rows in tf.by_point(dirs["lab_grid"], [ts.LOSS_KEY, ts.RTT_KEY, ts.IAT_KEY]).items()}
    rtt_rows = {2 * _ms(k[0]): rows for k, rows in tf.by_point(dirs["http_rtt"], [ts.RTT_KEY]).items()}
    iat_rows = {_ms(k[0]): rows for k, rows in tf.by_point(dirs["http_iat"], [ts.IAT_KEY]).items()} if "http_iat" in dirs else {}
    iat_rows[float(ts.LAB_IAT_MS)] = rtt_rows[float(ts.LAB_RTT_MS)]
    return Results(
        fig8={k: tf.stats_of(r) for k, r in fig8_rows.items()},
        fig8_rows=fig8_rows,
        grid={k: tf.stats_of(r) for k, r in grid_rows.items()},
        grid_rows=grid_rows,
        http_rtt={k: tf.stats_of(r) for k, r in rtt_rows.items()},
        http_iat={k: tf.stats_of(r) for k, r in sorted(iat_rows.items())},
        http_rows=rtt_rows[float(ts.LAB_RTT_MS)],
        fair=fair,
        presets=presets,
        http_loss=[row for name, label in HTTP_LABELS.items() if name in dirs for row in _http_loss_rows(dirs[name], *label)],
    )


# --- claims --------------------------------------------------------------------------------
def _cmp(a: Latency, b: Latency, stat: str) -> Optional[bool]:
    """a's statistic below b's; None when either side has fewer than MIN_SAMPLES messages."""
    if a.n < MIN_SAMPLES or b.n < MIN_SAMPLES:
        return None
    return getattr(a, stat) < getattr(b, stat)


class Check:
    """Collects comparisons for one claim: it holds when every testable one holds and at least
    one was testable; the numbers list each, and the untestable ones."""

    def __init__(self) -> None:
        self.results: list[bool] = []
        self.parts: list[str] = []
        self.untestable: list[str] = []

    def add(self, ok: Optional[bool], where: str, text: str) -> None:
        if ok is None:
            self.untestable.append(where)
        else:
            self.results.append(ok)
            self.parts.append(f"{where}: {text}{'' if ok else ' ✗'}")

    def lower(self, a: Latency, b: Latency, stats: Sequence[str], where: str, names: tuple[str, str]) -> None:
        for stat in stats:
            self.add(_cmp(a, b, stat), f"{where} {stat}", f"{names[0]} {a.ms(stat)} vs {names[1]} {b.ms(stat)} ms (n {a.n}/{b.n})")

    def claim(self, text: str) -> Claim:
        parts = list(self.parts)
        if self.untestable:
            parts.append(f"fewer than {MIN_SAMPLES} messages, not compared: {', '.join(self.untestable)}")
        if not self.results:
            parts.insert(0, "NOT TESTABLE (too few samples in these runs)")
        return Claim(text, bool(self.results) and all(self.results), "; ".join(parts))


def _pct(loss: float) -> str:
    return f"{loss:.0%}"


def _vs(per_loss: dict[float, Stats], a: tuple[str, str], b: tuple[str, str], buckets: Sequence[str], stats: Sequence[str], c: Optional[Check] = None) -> Check:
    """Compare variant a (name, label) with b at every loss rate and retransmission count."""
    c = c or Check()
    for loss, s in sorted(per_loss.items()):
        for bucket in buckets:
            c.lower(s[a[0]][bucket], s[b[0]][bucket], stats, f"{_pct(loss)} {tf.ORDINAL[bucket]}", (a[1], b[1]))
    return c


LKSCTP, ALL, TCP, FR = ("lksctp", "lksctp"), ("all_mods", "All mods"), ("tcp_newreno", "TCP"), ("mod_fr", "FR")
EXP_BO, MIN_RTO, EFR, ER = ("mod_exp_bo", "exp bo"), ("mod_min_rto", "min rto"), ("efr", "EFR"), ("er_rfc5827", "ER")
LATER, ALL_RTX = ("rtx2", "rtx3"), tuple(tf.BUCKETS)


def _fig8_claims(r: Results) -> list[Claim]:
    f8 = r.fig8
    claims = [
        _vs(f8, ALL, LKSCTP, LATER, ("mean", "p99", "max")).claim("Fig. 8a (§6.1): All mods lower the mean, 99th percentile and maximum latency of the 2nd and 3rd retransmission compared with lksctp (RTT 100 ms, 1% and 5% loss)"),
        _vs(f8, EXP_BO, LKSCTP, LATER, ("max",)).claim("Fig. 8a: without exponential backoff (mod exp bo) the maximum latency of the 2nd and 3rd retransmission drops compared with lksctp"),
    ]
    c = Check()
    for loss, s in sorted(f8.items()):
        for b in tf.BUCKETS:
            for stat in ("mean", "p99"):
                a, base = s["mod_exp_bo"][b], s["lksctp"][b]
                ok = None if min(a.n, base.n) < MIN_SAMPLES else abs(getattr(a, stat) / getattr(base, stat) - 1) <= 0.2
                c.add(ok, f"{_pct(loss)} {tf.ORDINAL[b]} {stat}", f"exp bo {a.ms(stat)} vs lksctp {base.ms(stat)} ms")
    claims.append(c.claim("Fig. 8a: mod exp bo changes the mean and 99th percentile only marginally (within 20% of lksctp's, 1st–3rd retransmission)"))
    claims.append(_vs(f8, MIN_RTO, LKSCTP, ALL_RTX, ("mean", "p99")).claim("Fig. 8a: RTO.min 200 ms (mod min rto) improves the mean and 99th percentile latency of the 1st–3rd retransmission"))
    claims.append(_vs(f8, FR, LKSCTP, ALL_RTX, ("mean", "p99")).claim("Fig. 8a: fast retransmit on the first indication (mod FR) improves the mean and 99th percentile latency of the 1st–3rd retransmission"))
    claims.append(_vs(f8, ALL, FR, LATER, ("max",)).claim("Fig. 8a: with mod FR alone the maximum stays high (exponential backoff): above All mods' for the 2nd and 3rd retransmission"))
    c = Check()
    for loss, s in sorted(f8.items()):
        red = {b: 1 - s["all_mods"][b].mean / s["lksctp"][b].mean for b in tf.BUCKETS}
        for b in LATER:
            testable = min(s[v][x].n for v in ("all_mods", "lksctp") for x in ("rtx1", b)) >= MIN_SAMPLES
            c.add(red[b] > red["rtx1"] if testable else None, f"{_pct(loss)} {tf.ORDINAL[b]}", f"mean reduced by {red[b]:.0%} vs {red['rtx1']:.0%} for the 1st")
    claims.append(c.claim("Fig. 8a: the improvement of All mods over lksctp is more pronounced for the 2nd and 3rd retransmission than for the 1st (relative reduction of the mean)"))
    claims.append(_vs(f8, TCP, LKSCTP, ("rtx1", "rtx2"), ("mean", "p99")).claim("§6.1: TCP New Reno beats lksctp on the 1st and 2nd retransmission"))
    claims.append(_vs(f8, LKSCTP, TCP, ("rtx3",), ("mean",)).claim("§6.1: on the 3rd retransmission lksctp has a lower mean than TCP New Reno"))
    c = _vs(f8, ALL, TCP, ALL_RTX, ("mean", "p99"))
    claims.append(_vs(f8, ALL, TCP, ("rtx3",), ("max",), c).claim("§6.1: All mods beat TCP New Reno (mean and 99th percentile of the 1st–3rd retransmission, and the maximum of the 3rd)"))
    claims.append(_vs(f8, EFR, LKSCTP, ALL_RTX, ("mean",)).claim("§7.5: FreeBSD's early fast retransmit (EFR) improves the retransmission delays over plain SCTP (mean, 1st–3rd retransmission)"))
    c = _vs(f8, ALL, EFR, ALL_RTX, ("mean",))
    claims.append(_vs(f8, ALL, ER, ALL_RTX, ("mean",), c).claim("§7.5, §8: neither EFR nor RFC 5827 early retransmit reaches the latency of All mods (mean, 1st–3rd retransmission)"))
    return claims


def _http_claims(r: Results) -> list[Claim]:
    claims = []
    h = r.http_rtt[float(ts.LAB_RTT_MS)]
    c = Check()
    for b in tf.BUCKETS:
        c.lower(h["all_mods"][b], h["lksctp"][b], ("mean", "p99", "max"), tf.ORDINAL[b], ("All mods", "lksctp"))
    claims.append(c.claim("Fig. 8b (§6.2): under HTTP cross traffic All mods lower the mean, 99th percentile and maximum latency of every retransmission compared with lksctp"))
    c = Check()
    for v, name in (("mod_exp_bo", "exp bo"), ("mod_min_rto", "min rto"), ("mod_fr", "FR")):
        c.lower(h[v]["any"], h["lksctp"]["any"], ("mean",), name, (name, "lksctp"))
    claims.append(c.claim("Fig. 8b: under HTTP cross traffic each modification (exp bo, min rto, FR) improves on lksctp (mean latency of the retransmitted messages)"))
    rows = r.http_rows
    causes = {m: tf.total(rows, "lksctp", m) for m in ("rtx_fast", "rtx_timeout", "rtx_bundled")}
    claims.append(Claim("Fig. 9: for lksctp under HTTP cross traffic, fast retransmission is the most common cause of retransmission", causes["rtx_fast"] > max(causes["rtx_timeout"], causes["rtx_bundled"]), f"FR {causes['rtx_fast']:.0f}, TO {causes['rtx_timeout']:.0f}, bundled {causes['rtx_bundled']:.0f}"))
    spurious = {v: tf.total(rows, v, "dup_tsns_received") for v in ("lksctp", "all_mods")}
    lab = {v: tf.total(r.fig8_rows[max(r.fig8_rows)], v, "dup_tsns_received") for v in ("lksctp", "all_mods")}
    claims.append(Claim("Fig. 9, Table 2: the modifications increase the number of spurious retransmissions (HTTP cross traffic)", spurious["all_mods"] > spurious["lksctp"], f"HTTP: All mods {spurious['all_mods']:.0f} vs lksctp {spurious['lksctp']:.0f}; lab {_pct(max(r.fig8_rows))} loss (for comparison): {lab['all_mods']:.0f} vs {lab['lksctp']:.0f}"))
    return claims


def _fig10_check(series: dict[float, Stats], c: Check, where: str) -> None:
    for iat, s in series.items():
        a, b = s["all_mods"]["rtx2"], s["lksctp"]["rtx2"]
        ok = None if min(a.n, b.n) < MIN_SAMPLES else a.p99 < b.mean
        c.add(ok, f"{where} {iat:g} ms", f"All mods p99 {a.ms('p99')} vs lksctp mean {b.ms('mean')} ms")


def _grid_series(r: Results, loss: float, rtt: float) -> dict[float, Stats]:
    return {iat: s for (l, t, iat), s in sorted(r.grid.items()) if l == loss and t == rtt}


def _iat_rtt_claims(r: Results) -> list[Claim]:
    claims = []
    loss = max(l for l, _, _ in r.grid)
    lab = _grid_series(r, loss, float(ts.LAB_RTT_MS))
    for series, where in ((r.http_iat, "HTTP"), (lab, f"{_pct(loss)} loss")):
        c = Check()
        _fig10_check(series, c, where)
        claims.append(c.claim(f"Fig. 10 ({where}, RTT 100 ms): the 99th percentile of the 2nd retransmission with All mods stays below lksctp's mean at every interarrival time"))
    c = Check()
    for series, where in ((r.http_iat, "HTTP"), (lab, f"{_pct(loss)} loss")):
        iats = sorted(i for i in series if series[i]["mod_min_rto"]["rtx2"].n >= MIN_SAMPLES)
        if len(iats) < 2:
            c.add(None, where, "")
            continue
        gap = {i: series[i]["mod_min_rto"]["rtx2"].p99 - series[i]["mod_min_rto"]["rtx2"].mean for i in (iats[0], iats[-1])}
        c.add(gap[iats[-1]] < gap[iats[0]], where, f"p99 − mean {gap[iats[0]] * 1e3:.0f} ms at {iats[0]:g} ms, {gap[iats[-1]] * 1e3:.0f} ms at {iats[-1]:g} ms")
    claims.append(c.claim("Fig. 10: for mod min rto the distance between the 99th percentile and the mean of the 2nd retransmission decreases as the interarrival time grows"))
    rtts = sorted({t for _, t, _ in r.grid})
    iats = sorted({i for _, _, i in r.grid})
    lat = lambda rtt, iat: r.grid[(loss, rtt, iat)]["lksctp"]["rtx1"]
    c = Check()
    if 0.0 in rtts and float(ts.LAB_RTT_MS) in rtts and len(iats) >= 2:
        red = {i: 1 - lat(0.0, i).mean / lat(float(ts.LAB_RTT_MS), i).mean for i in (iats[0], iats[-1])}
        c.add(red[iats[0]] > red[iats[-1]], f"{_pct(loss)} loss", f"RTT 100→0 ms lowers the mean by {red[iats[0]]:.0%} at {iats[0]:g} ms and by {red[iats[-1]]:.0%} at {iats[-1]:g} ms")
    claims.append(c.claim("§6.2: lowering the RTT reduces the latency mainly for the smallest interarrival times (lksctp, 1st retransmission, relative reduction from RTT 100 to 0 ms)"))
    fr_share = lambda rtt, iat: tf.total(r.grid_rows[(loss, rtt, iat)], "lksctp", "rtx_fast") / max(tf.total(r.grid_rows[(loss, rtt, iat)], "lksctp", "retransmissions"), 1)
    c, share = Check(), Check()
    for iat in iats[: len(iats) if len(rtts) >= 2 else 0]:
        c.add(lat(rtts[-1], iat).mean > lat(rtts[0], iat).mean, f"{iat:g} ms", f"{lat(rtts[0], iat).ms('mean')} ms at RTT {rtts[0]:g} → {lat(rtts[-1], iat).ms('mean')} ms at {rtts[-1]:g}")
        share.add(fr_share(rtts[-1], iat) > fr_share(rtts[0], iat), f"{iat:g} ms", f"{fr_share(rtts[0], iat):.0%} at RTT {rtts[0]:g} → {fr_share(rtts[-1], iat):.0%} at {rtts[-1]:g}")
    claims.append(c.claim(f"§6.2: increasing the RTT increases the retransmission latency (lksctp, mean of the 1st retransmission, {_pct(loss)} loss, every interarrival time)"))
    claims.append(share.claim(f"§6.2: increasing the RTT increases the share of retransmissions due to fast retransmit (lksctp, {_pct(loss)} loss, every interarrival time)"))
    return claims


def _other_claims(r: Results) -> list[Claim]:
    claims = []
    for which, text in ((1, "Fig. 11b (§6.3): the greedy flow's throughput hardly changes (within 5%) when it competes with the modified rather than the unmodified thin stream, at every attempted rate"), (0, "Fig. 11a: the test stream achieves nearly the same throughput (within 5%) with and without the modifications, at every attempted rate")):
        c = Check()
        for (greedy, mod), points in sorted(r.fair.items()):
            if mod:
                for rate, values in sorted(points.items()):
                    base = r.fair[(greedy, False)][rate][which]
                    c.add(abs(values[which] / base - 1) <= 0.05, f"{greedy} {rate / 1e3:g} kb/s", f"{values[which] / 1e3:.1f} vs {base / 1e3:.1f} kb/s")
        claims.append(c.claim(text))
    c = Check()
    for preset, s in r.presets.items():
        c.lower(s["all_mods"]["any"], s["lksctp"]["any"], ("mean", "max"), preset, ("All mods", "lksctp"))
    claims.append(c.claim("Table 1 sources (§3.2, §6.5): for every thin-stream application All mods lower the mean and maximum latency of retransmitted messages compared with lksctp (RTT 100 ms, 5% loss)"))
    return claims


# --- figures and the index page ------------------------------------------------------------
def _figures(r: Results, figures: Path) -> list[report_mod.Figure]:
    figs = [tf.bars(s, figures, f"fig8a_{_pct(loss).rstrip('%')}pct", f"Fig. 8a: lab, RTT 100 ms, {_pct(loss)} uniform loss, 4 × 100 B/s") for loss, s in sorted(r.fig8.items())]
    figs.append(tf.bars(r.http_rtt[float(ts.LAB_RTT_MS)], figures, "fig8b_http", "Fig. 8b: HTTP cross traffic, RTT 100 ms, 4 × 100 B/s"))
    if len(r.http_iat) > 1:
        figs.append(tf.lines(r.http_iat, "interarrival time (ms)", figures, "fig10_http", "Fig. 10: HTTP cross traffic, RTT 100 ms", ["rtx1", "rtx2"]))
    for loss in sorted({l for l, _, _ in r.grid}):
        series = _grid_series(r, loss, float(ts.LAB_RTT_MS))
        if len(series) > 1:
            figs.append(tf.lines(series, "interarrival time (ms)", figures, f"fig10_lab_{_pct(loss).rstrip('%')}pct", f"Fig. 10 style: {_pct(loss)} uniform loss, RTT 100 ms", ["rtx1", "rtx2"]))
        iat = max(i for l, _, i in r.grid if l == loss)
        by_rtt = {t: s for (l, t, i), s in r.grid.items() if l == loss and i == iat}
        if len(by_rtt) > 1:
            figs.append(tf.lines(by_rtt, "RTT (ms)", figures, f"rtt_lab_{_pct(loss).rstrip('%')}pct", f"RTT: {_pct(loss)} uniform loss, interarrival {iat:g} ms (mean)", tf.BUCKETS, ("mean",)))
    if len(r.http_rtt) > 1:
        figs.append(tf.lines(r.http_rtt, "RTT (ms)", figures, "rtt_http", "RTT: HTTP cross traffic, interarrival 250 ms (mean)", tf.BUCKETS, ("mean",)))
    figs.append(tf.fairness_figure(r.fair, figures))
    figs.append(tf.preset_bars(r.presets, figures))
    return figs


def _index(out: Path, r: Results, claims: list[Claim], figures: list[report_mod.Figure], quick: bool) -> Path:
    scope = "Quick version (a reduced grid; see the recipe's docstring)." if quick else "Full version: 2 h per latency run, replications as in the recipe's docstring."
    intro = [f"Seed 004: latency per retransmission of thin streams, lksctp vs the §5 modifications, EFR, RFC 5827 ER and TCP New Reno. {scope}", "Bar figures: bars are means, dashes 99th percentiles, crosses maxima.", *NOTES]
    tables = [(f"Fig. 8a, {_pct(loss)} uniform loss: latency per retransmission (ms)", tf.latency_rows(s)) for loss, s in sorted(r.fig8.items())]
    tables.append(("Fig. 8b, HTTP cross traffic: latency per retransmission (ms)", tf.latency_rows(r.http_rtt[float(ts.LAB_RTT_MS)])))
    tables.append(("Fig. 9, HTTP cross traffic: retransmissions by cause (summed over runs)", tf.cause_rows(r.http_rows)))
    tables.append(("HTTP cross traffic: bottleneck loss and utilisation (§6.2 measured about 5% loss)", r.http_loss))
    tables.append(("Fairness (Fig. 11)", _fair_rows(r.fair)))
    tables.extend((f"Table 1 source {p}: latency per retransmission (ms)", tf.latency_rows(s, [*tf.BUCKETS, "any"])) for p, s in r.presets.items())
    sections = [(t, report_mod.html_table(rows)) for t, rows in tables]
    return report_mod.reproduction_index(out, "rexmit reproduce thin-streams (seed 004)", intro, claims, figures, sections)


def thin_streams(out: Path, quick: bool, jobs: Optional[int]) -> list[Claim]:
    """Seed 004 §6: see the module docstring for the setups, the choices and the run sizes."""
    plan = QUICK if quick else FULL
    out.mkdir(parents=True, exist_ok=True)
    dirs = _run_latency(out, plan, jobs)
    fair = _run_fairness(out, plan, jobs)
    presets = _run_presets(out, plan, jobs)
    r = _collect(dirs, fair, presets)
    claims = [*_fig8_claims(r), *_http_claims(r), *_iat_rtt_claims(r), *_other_claims(r)]
    _index(out, r, claims, _figures(r, out / "figures"), quick)
    return claims
