"""Seed 000's simulation setup (§IV.A): topology 1 (Fig. 5, a dumbbell), topology 2 (Fig. 6, a
dual dumbbell with multihomed S and R), the HTTP / video / FTP cross traffic at the four loads,
the random start times of every flow, and the calibration of the loads against the paper's
bottleneck loss rates.

Owns scenario construction for seed 000 only; what runs and what is measured is
:mod:`rexmit.recipes.nr_sack`'s. Every start time is drawn from ``random.Random(seed)`` of the
run's own seed, so a run is a pure function of its scenario.
"""

from __future__ import annotations

import json
import random
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from rexmit import _core
from rexmit.recipes.common import run_recipe_sweep
from rexmit.scenario import Scenario
from rexmit.sweep import PlannedRun, Sweep, SweepError, derive_seed, run_id_of
from rexmit.sweep import load as load_runs

# §IV.A, Fig. 5: 100 Mb/s, 2 ms bottleneck; drop-tail queues of the BDP of a 100 ms flow
# (100 Mb/s × 100 ms = 1.25 MB = 833 packets of 1500 B; ns-2 queues count packets).
BOTTLENECK_RATE = "100Mbps"
BOTTLENECK_DELAY = "2ms"
QUEUE_PACKETS = 833
# §IV.A: three cross-traffic edge nodes per router on 100 Mb/s links of 0/12/25 ms (left) and
# 2/37/75 ms (right), so cross-traffic RTTs range from 8 to 204 ms.
EDGE_RATE = "100Mbps"
LEFT_EDGE_DELAYS = ("0ms", "12ms", "25ms")
RIGHT_EDGE_DELAYS = ("2ms", "37ms", "75ms")
# §IV.A: S and R on 100 Mb/s duplex links of 14 ms (30 ms one way end to end).
HOST_RATE = "100Mbps"
HOST_DELAY = "14ms"
# Choice (the paper gives none): edge and host links get the bottleneck's queue size too, so
# that drops happen at the bottleneck, where the paper measures its loss rates.
EDGE_QUEUE = {"packets": QUEUE_PACKETS}

# §IV.A: 1500 B IP packets for all TCP traffic, 576 B for 10% of the FTP flows.
MSS_DEFAULT = 1460
MSS_SMALL = 536
SMALL_MSS_EVERY = 10
# Choices (the paper gives none): an FTP flow is a SACK TCP connection with Reno congestion
# control (ns-2's Sack1 agent) whose receive window is ns-2's default window_ of 20 packets (the
# paper, on ns-2, gives no other), so that the load grows with the number of flows rather than
# with the slow-start overshoot of a few unlimited ones. The FTP flows of a pair are one `http`
# app whose every "response" is larger than the run can carry (4 GiB), so each of its
# connections is a greedy transfer for the rest of the run: one app instead of one per flow
# keeps the results to a few thousand columns. Its connections open at exponential gaps of mean
# 5 s / flows (on average all within the first 5 s, §IV.A). Video is one constant-bit-rate UDP
# session per pair in 1000 B packets with ±10 ms jitter (so that pairs do not stay in phase).
# HTTP uses the `http` app's response sizes (Pareto, mean 9200 B, min 1000 B: seed 004 §6.2,
# standing in for PackMime's) with exponential request interarrivals at the load's rate, on
# rexmit's default TCP, with up to 128 connections open per session.
FTP_TCP = {"recovery": "sack", "cc": "reno"}
FTP_WINDOW_PACKETS = 20
FTP_FILE = "4GiB"
FTP_SPREAD_S = 5.0
VIDEO_PACKET = 1000
VIDEO_JITTER = "10ms"
HTTP_CONNECTIONS = 128

# The SCTP / CMT association (§IV.A): unordered, so that all out-of-order data is deliverable
# and non-renegable. Choice: the receive buffer (which the paper does not give) never limits
# the sender, so that only the send buffer does; 64 MiB is far above any window of the run.
SCTP_APP = "sctp"
RECV_BUFFER = "64MiB"
# MTU-sized TPDUs (§V.B.1): one full DATA chunk at PMTU 1500.
MESSAGE_SIZE = 1452
CROSS_KINDS = ("http", "video", "ftp")


@dataclass(frozen=True)
class Timing:
    """When flows start and what is measured (§IV.A): cross traffic starts uniformly in
    ``cross_start``, the SCTP or CMT flow uniformly in ``sctp_start``; measurements begin
    ``warmup_s`` after the SCTP flow starts ("a 20 second warm-up period from the start of SCTP
    or CMT traffic") and the run ends at ``stop_s``."""

    stop_s: float = 70.0
    sctp_start: tuple[float, float] = (18.0, 20.0)
    warmup_s: float = 20.0
    cross_start: tuple[float, float] = (0.0, 5.0)

    def describe(self) -> str:
        return (
            f"cross traffic starts uniformly in [{self.cross_start[0]:g}, {self.cross_start[1]:g}) s, the SCTP/CMT flow in "
            f"[{self.sctp_start[0]:g}, {self.sctp_start[1]:g}) s; measurements from {self.warmup_s:g} s after the SCTP flow starts "
            f"to the end of the run at {self.stop_s:g} s"
        )


@dataclass(frozen=True)
class Load:
    """One cross-traffic load of §IV.A, per (left edge, right edge) pair and per direction (the
    paper's traffic is bidirectional and similar both ways): ``ftp`` greedy TCP flows, one HTTP
    session with ``http_rate`` requests per second (PackMime's rate parameter) and one video
    session of ``video_rate``."""

    name: str
    ftp: int
    http_rate: float
    video_rate: str
    # What the paper reports for this load (§IV.A), for the report's comparison.
    paper_loss: tuple[float, float] = (0.0, 1.0)
    paper_load: float = float("nan")

    def describe(self) -> str:
        return f"{self.ftp} FTP flows, HTTP {self.http_rate:g} req/s, {self.video_rate} video"

    def paper(self) -> str:
        lo, hi = self.paper_loss
        loss = f"< {hi * 100:g}%" if lo == 0 else f"{lo * 100:g}-{hi * 100:g}%"
        return f"{loss} loss, L ~{self.paper_load * 100:g}%"


# The four loads of §IV.A, per pair and direction, chosen with `calibrate` (cross traffic alone
# on topology 1, 70 s; the measured numbers are in nr_sack's docstring and in the report).
LOADS: dict[str, Load] = {
    "low": Load("low", ftp=2, http_rate=60.0, video_rate="1Mbps", paper_loss=(0.0, 0.001), paper_load=0.15),
    "mild": Load("mild", ftp=7, http_rate=60.0, video_rate="1Mbps", paper_loss=(0.01, 0.02), paper_load=0.45),
    "medium": Load("medium", ftp=14, http_rate=75.0, video_rate="1Mbps", paper_loss=(0.03, 0.04), paper_load=0.60),
    "heavy": Load("heavy", ftp=45, http_rate=75.0, video_rate="4Mbps", paper_loss=(0.08, 0.09), paper_load=0.85),
}


# --- topologies --------------------------------------------------------------------------------
def _edges(prefix: str) -> tuple[list[str], list[str]]:
    return [f"{prefix}XL{i}" for i in range(3)], [f"{prefix}XR{i}" for i in range(3)]


def _edge_links(names: list[str], delays: tuple[str, ...]) -> list[dict[str, Any]]:
    return [{"name": n, "rate": EDGE_RATE, "delay": d, "queue": dict(EDGE_QUEUE)} for n, d in zip(names, delays)]


def _host_link(name: str | None = None) -> dict[str, Any]:
    link: dict[str, Any] = {"rate": HOST_RATE, "delay": HOST_DELAY, "queue": dict(EDGE_QUEUE)}
    if name is not None:
        link["name"] = name
    return link


def _dumbbell(
    prefix: str,
    left_router: str,
    right_router: str,
    hosts: tuple[list[dict[str, Any]], list[dict[str, Any]]] = ([], []),
) -> dict[str, Any]:
    lefts, rights = _edges(prefix)
    return {
        "left_router": left_router,
        "right_router": right_router,
        "bottleneck": {"rate": BOTTLENECK_RATE, "delay": BOTTLENECK_DELAY, "queue": {"packets": QUEUE_PACKETS}},
        "left": hosts[0] + _edge_links(lefts, LEFT_EDGE_DELAYS),
        "right": hosts[1] + _edge_links(rights, RIGHT_EDGE_DELAYS),
    }


def _small_mss_flows(ftp: int) -> list[int]:
    """How many of each pair's ``ftp`` flows use 576 B packets: one in ten per direction
    (rounded), spread over the pairs in order (§IV.A)."""
    total = round(9 * ftp / SMALL_MSS_EVERY)
    return [total // 9 + (1 if i < total % 9 else 0) for i in range(9)]


def _ftp(name: str, src: str, dst: str, flows: int, mss: int) -> dict[str, Any]:
    return {
        "name": name,
        "kind": "http",
        "from": src,
        "to": dst,
        "interarrival": {"kind": "exponential", "mean": f"{FTP_SPREAD_S * 1e3 / flows:.6g}ms"},
        "response_size": {"kind": "fixed", "value": FTP_FILE},
        "max_connections": flows,
        "tcp": dict(FTP_TCP, mss=mss, recv_buffer=FTP_WINDOW_PACKETS * mss),
    }


def cross_traffic(prefix: str, load: Load) -> list[dict[str, Any]]:
    """§IV.A: from every edge node to every edge node on the other side and back, one HTTP
    session, one video session and ``load.ftp`` FTP flows per pair (of which one in ten per
    direction with 576 B packets). Start times are drawn per run by :func:`draw_starts`."""
    lefts, rights = _edges(prefix)
    small = _small_mss_flows(load.ftp)
    apps: list[dict[str, Any]] = []
    for direction, (srcs, dsts) in (("lr", (lefts, rights)), ("rl", (rights, lefts))):
        for i, (src, dst) in enumerate((s, d) for s in srcs for d in dsts):
            pair = f"{prefix}{direction}_{src}_{dst}"
            # `http` apps: `from` is the server, whose responses cross the bottleneck.
            apps.append(
                {
                    "name": f"http_{pair}",
                    "kind": "http",
                    "from": src,
                    "to": dst,
                    "interarrival": {"kind": "exponential", "mean": f"{1e3 / load.http_rate:.6g}ms"},
                    "max_connections": HTTP_CONNECTIONS,
                }
            )
            apps.append(
                {
                    "name": f"video_{pair}",
                    "kind": "udp_cbr",
                    "from": src,
                    "to": dst,
                    "rate": load.video_rate,
                    "packet_size": VIDEO_PACKET,
                    "jitter": VIDEO_JITTER,
                }
            )
            if load.ftp > small[i]:
                apps.append(_ftp(f"ftp_{pair}", src, dst, load.ftp - small[i], MSS_DEFAULT))
            if small[i]:
                apps.append(_ftp(f"ftp_{pair}_576", src, dst, small[i], MSS_SMALL))
    return apps


def topology1(load: Load) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Fig. 5: one dumbbell R1-R2 with S and R on 14 ms links, and the load's cross traffic."""
    hosts = ([_host_link("S")], [_host_link("R")])
    return {"kind": "dumbbell", **_dumbbell("", "R1", "R2", hosts)}, cross_traffic("", load)


def topology2(path1: Load, path2: Load) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Fig. 6: two independent dumbbells R1-R2 (path 1) and R3-R4 (path 2), each with its own
    three edge nodes per side and its own cross traffic, and S and R multihomed to both on
    14 ms links (S's and R's first addresses are on path 1)."""
    topo = {
        "kind": "dual_dumbbell",
        "paths": [_dumbbell("P1", "R1", "R2"), _dumbbell("P2", "R3", "R4")],
        "multihomed": [
            {"name": "S", "side": "left", "links": [_host_link(), _host_link()]},
            {"name": "R", "side": "right", "links": [_host_link(), _host_link()]},
        ],
    }
    return topo, cross_traffic("P1", path1) + cross_traffic("P2", path2)


def sctp_app(send_buffer: str, nr_sack: bool, cmt: bool) -> dict[str, Any]:
    """The unordered bulk association S -> R (§IV.A); CMT with RTX-SSTHRESH on topology 2."""
    # The paper's ns-2 SCTP (and FreeBSD) grow cwnd only when the cumulative ack moves (RFC 4960
    # as written; rexmit's default is RFC 9260's rule) and send heartbeats without jitter.
    sctp: dict[str, Any] = {
        "nr_sack": nr_sack,
        "send_buffer": send_buffer,
        "recv_buffer": RECV_BUFFER,
        "cwnd_growth": "rfc4960",
        "hb_jitter": False,
    }
    if cmt:
        sctp["cmt"] = {"enabled": True, "rtx_policy": "ssthresh"}
    return {
        "name": SCTP_APP,
        "kind": "sctp_bulk",
        "from": "S",
        "to": "R",
        "message_size": MESSAGE_SIZE,
        "unordered": True,
        "sctp": sctp,
    }


def scenario(
    description: str,
    topology: dict[str, Any],
    apps: list[dict[str, Any]],
    timing: Timing,
    series: tuple[str, ...] = (),
    interval: str = "10ms",
) -> dict[str, Any]:
    """A scenario table; ``series`` are values of the SCTP app sampled every ``interval``."""
    data: dict[str, Any] = {
        "description": description,
        "seed": 1,
        "stop_time": f"{timing.stop_s:g}s",
        "topology": topology,
        "apps": apps,
    }
    if series:
        data["metrics"] = {
            "timeseries": [{"kind": "app", "app": SCTP_APP, "value": v, "interval": interval} for v in series]
        }
    return data


# --- start times and the sweep that draws them -------------------------------------------------
def is_cross_traffic(app: dict[str, Any]) -> bool:
    return app["name"].split("_", 1)[0] in CROSS_KINDS


def _at(seconds: float) -> str:
    return f"{round(seconds * 1e9)}ns"


def draw_starts(data: dict[str, Any], seed: int, timing: Timing) -> dict[str, Any]:
    """A copy of scenario ``data`` with seed ``seed`` and every start time drawn from
    ``random.Random(seed)`` in scenario order: cross traffic in ``timing.cross_start``, the
    SCTP/CMT flow in ``timing.sctp_start`` with its measurements (``warmup``) from
    ``timing.warmup_s`` after its start."""
    rng = random.Random(seed)
    out = json.loads(json.dumps(data))
    out["seed"] = seed
    for app in out.get("apps", []):
        if app["name"] == SCTP_APP:
            start = rng.uniform(*timing.sctp_start)
            app["start"] = _at(start)
            app["warmup"] = _at(start + timing.warmup_s)
        elif app["name"].startswith("ftp_"):
            app["start"] = _at(timing.cross_start[0])  # its connections open at random gaps
        elif is_cross_traffic(app):
            app["start"] = _at(rng.uniform(*timing.cross_start))
    return out


def normalized(data: dict[str, Any]) -> Scenario:
    """The scenario with every default filled in (as the sweep stores and hashes it)."""
    return Scenario.from_dict(json.loads(_core.validate(json.dumps(data), "json")))


Builder = Callable[[dict[str, Any]], dict[str, Any]]


@dataclass
class Seed000Sweep(Sweep):
    """A sweep whose parameters are not scenario keys: ``build`` turns a point's parameters
    (e.g. ``{"load": "heavy", "buffer": "64K", "ack": "NR-SACK"}``) into a scenario table, and
    each replication draws its start times from its own seed (:func:`draw_starts`). Replication
    r has the same seed, hence the same start times, at every point (common random numbers)."""

    build: Builder | None = None
    timing: Timing = field(default_factory=Timing)

    def plan(self) -> list[PlannedRun]:
        if self.build is None:
            raise SweepError("Seed000Sweep: no build function")
        base_seed = self.seed if self.seed is not None else int(self.base.data.get("seed", 1))
        runs = []
        for i, params in enumerate(self.points()):
            data = self.build(params)
            for r in range(self.point_replications.get(i, self.replications)):
                seed = derive_seed(base_seed, r)
                s = normalized(draw_starts(data, seed, self.timing))
                runs.append(PlannedRun(run_id_of(s), i, r, seed, params, s))
        return runs


# The report's names of the recipe's own parameters (they are not scenario keys).
LABELS: dict[str, Any] = {
    "load": "Cross-traffic load",
    "buffer": "Send buffer",
    "ack": {"name": "Acknowledgements", "values": {"SACK": "SACK", "NR-SACK": "NR-SACK"}},
}


def make_sweep(
    name: str, grid: dict[str, list[Any]], build: Builder, timing: Timing, replications: int, metrics: list[str]
) -> Seed000Sweep:
    first = {k: v[0] for k, v in grid.items()}
    base = normalized(draw_starts(build(first), 1, timing))
    labels = {k: v for k, v in LABELS.items() if k in grid}
    return Seed000Sweep(
        base=base,
        grid=grid,
        replications=replications,
        seed=1,
        name=name,
        report={"x": "load", "metrics": metrics},
        labels=labels,
        build=build,
        timing=timing,
    ).check()


# --- measuring the loads -----------------------------------------------------------------------
def link_stats(link: dict[str, Any]) -> dict[str, float]:
    """Loss rate (overflow drops / offered packets), load L = mean queue / queue size (§IV.A)
    and utilisation of one link direction over a whole run."""
    return {
        "loss": link["drop_overflow"] / max(link["offered_packets"], 1.0),
        "load": link["queue_packets_mean"] / QUEUE_PACKETS,
        "utilization": link["utilization"],
    }


def traffic_shares(row: dict[str, Any], direction: str = "lr") -> dict[str, float]:
    """Share of the application bytes delivered by each cross-traffic kind in one direction,
    from a run's metrics row (§IV.A asks for "more HTTP traffic than video or FTP traffic")."""
    delivered = {k: 0.0 for k in CROSS_KINDS}
    for key, value in row.items():
        parts = key.split(".")
        if len(parts) != 3 or parts[0] != "flow" or parts[2] not in ("bytes_delivered", "rx_payload_bytes"):
            continue
        kind, rest = parts[1].split("_", 1) if "_" in parts[1] else (parts[1], "")
        if kind in delivered and rest.split("_", 1)[0].endswith(direction):
            delivered[kind] += value or 0.0
    total = sum(delivered.values()) or 1.0
    return {k: v / total for k, v in delivered.items()}


def calibration_build(load: Load, timing: Timing) -> dict[str, Any]:
    """Topology 1 with the cross traffic of ``load`` alone (no SCTP flow)."""
    topo, apps = topology1(load)
    return scenario(
        f"seed 000 calibration: cross traffic alone, {load.name} load ({load.describe()} per pair and direction)",
        topo,
        apps,
        timing,
    )


def _pct(x: float) -> float:
    return round(100 * x, 3)


def calibration_rows(results: list[dict[str, Any]], loads: dict[str, Load]) -> list[dict[str, Any]]:
    """One row per load from the run rows of a calibration sweep: mean loss, load L and
    utilisation of both bottleneck directions, and the traffic mix (percentages)."""
    by_load: dict[str, list[dict[str, float]]] = {}
    for result in results:
        stats: dict[str, float] = {}
        for d in ("R1->R2", "R2->R1"):
            link = {k.split(".", 2)[2]: v for k, v in result.items() if k.startswith(f"link.{d}.")}
            stats.update({f"{d} {k} %": v for k, v in link_stats(link).items()})
        stats.update({f"{k} share L->R %": v for k, v in traffic_shares(result).items()})
        by_load.setdefault(result["param.load"], []).append(stats)
    out = []
    for name, runs in by_load.items():
        load = loads[name]
        row: dict[str, Any] = {
            "load": name,
            "per pair and direction": load.describe(),
            "paper": load.paper(),
            "runs": len(runs),
        }
        row.update({k: _pct(statistics.mean(r[k] for r in runs)) for k in runs[0]})
        out.append(row)
    return out


def calibrate(
    out: Path, loads: dict[str, Load], replications: int, timing: Timing, jobs: int | None = None
) -> list[dict[str, Any]]:
    """The calibration helper: run the cross traffic of each load alone on topology 1
    (``replications`` runs each, as a sweep in ``out`` with its report) and measure the
    bottleneck; this is how the parameters of ``LOADS`` were chosen. Tune a load by passing
    ``{"x": Load("x", ftp=..., http_rate=..., video_rate=...)}``."""
    from rexmit import report as report_mod

    metrics = [f"link.R1->R2.{m}" for m in ("drop_overflow", "queue_packets_mean", "utilization")]
    spec = make_sweep(
        "seed 000 calibration: cross traffic alone on topology 1",
        {"load": list(loads)},
        lambda p: calibration_build(loads[p["load"]], timing),
        timing,
        replications,
        metrics,
    )
    run_recipe_sweep(spec, out, jobs=jobs)
    rows = calibration_rows(load_runs(out).to_pylist(), loads)
    notes = [
        "Seed 000 §IV.A loads: the cross traffic of each load alone on topology 1 (Fig. 5), no SCTP flow. Loss = overflow drops / "
        f"offered packets and L = mean queue / {QUEUE_PACKETS} packets (the paper's load), over the whole run; {timing.describe()}.",
    ]
    report_mod.report(out, notes=notes, tables=[("Calibration: measured vs the paper's loads", rows)])
    return rows
