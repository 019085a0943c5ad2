"""Seed 004's test networks and thin streams as scenario tables, for the ``thin-streams`` recipe.

Owns the numbers of the setups (seed 004 §6: lab network, HTTP cross traffic, fairness test,
Table 1 sources) and the variants compared. Not here: running, statistics, figures and claims
(``thin_streams``, ``thin_figures``).

Every latency scenario carries one thin stream per variant, all from host ``S`` to host ``D``
across the same bottleneck, so the variants see the same network at once (seed 004 §6.4 ran its
four setups concurrently for the same reason), their starts spread evenly over one
interarrival time (``stagger``). Their load is tiny (9 × 3.2 kb/s at 4 messages of 100 B a
second).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

# Seed 004 §6: RTTs 0–400 ms, interarrival times 50–250 ms, uniform loss 1% and 5%.
RTTS_MS: list[float] = [0, 50, 100, 200, 250, 400]
IATS_MS: list[float] = [50, 100, 150, 200, 250]
LOSSES = [0.01, 0.05]
# Fig. 8: RTT 100 ms, 4 messages of 100 B per second.
LAB_RTT_MS = 100
LAB_IAT_MS = 250
MESSAGE_BYTES = 100
# §6.1: "Each test ran for 2 h".
TEST_DURATION_S = 7200
# Choice: statistics count messages sent from 10 s on (association set-up, cross traffic start).
WARMUP = "10s"
# Choice: the lab's links (Fig. 7 gives no rate) are 100 Mb/s Ethernet; the emulator's delay sits
# on the sender's link (half the RTT each way) and its loss on the data direction only.
LAB_RATE = "100Mbps"
# §6.2: 81 web clients, exponential request interarrival with mean 655 ms each (580 ms here, see
# below), Pareto responses
# of at least 1000 B with mean ≈ 9200 B (at most ≈ 64 MB, footnote 4), a 10 Mb/s bottleneck with a
# queue of 100 packets.
HTTP_CLIENTS = 81
# Calibrated to the paper's loss (§6.2: "an average packet loss of about 5%"), as nr-sack
# calibrates its cross traffic: with the paper's 655 ms rexmit's bottleneck loses 2.3% (600 s;
# the Linux 2.6 web clients and netem of the paper are not modelled packet for packet), at
# 580 ms 5.0% (1200 s, seeds 1-3: 6.4, 6.1, 2.4%; issue 19 §4).
HTTP_REQUEST_MEAN_MS = 580
HTTP_BOTTLENECK = "10Mbps"
HTTP_QUEUE_PACKETS = 100
# Choice: netem gave each client its own delay (§6.2); the paper does not list them. Here client
# i has a one-way delay of 10 + i ms (RTTs 20–180 ms, mean 100 ms, the thin stream's RTT).
HTTP_CLIENT_DELAY_MS = [10 + i for i in range(HTTP_CLIENTS)]
# §6.3: 1 Mb/s bottleneck, 50 ms each way. Choice: a queue of 100 packets (the only queue size
# the paper gives, §6.2).
FAIR_RATE = "1Mbps"
FAIR_DELAY = "50ms"
FAIR_QUEUE_PACKETS = 100
# Table 1's thin-stream applications (the message-source presets of rexmit).
PRESETS = ["game", "wow", "ssh", "rdp", "voip", "sensor"]


@dataclass(frozen=True)
class Variant:
    """One protocol setting compared: a flow name, a label as in the paper, and its config."""

    name: str
    label: str
    thin: dict[str, Any] | None = None  # sctp.thin; None for TCP
    tcp: dict[str, Any] = field(default_factory=dict)

    @property
    def kind(self) -> str:
        return "tcp_messages" if self.thin is None else "sctp_messages"


# Fig. 8's groups (lksctp, mod exp bo, mod min rto, mod FR, All mods), §5.2's timer restart
# correction on its own, the comparison mechanisms of §2/§7.5 (FreeBSD EFR) and §8 (RFC 5827
# early retransmit, the successor of Allman et al.'s draft), and TCP New Reno (§6: the TCP
# reference of Linux 2.6.16, whose RTO is SRTT plus a variance term of at least RTO.min = 200 ms
# (§5.2), i.e. RFC 6298 with G = 200 ms: 300 ms at the lab's 100 ms RTT, not 200; no SACK;
# Nagle off as interactive applications set it; cwnd counted in packets, as Linux counts it:
# after a timeout only the head is resent, not the next small message with it).
VARIANTS = [
    Variant("lksctp", "lksctp", {}),
    Variant("mod_exp_bo", "mod exp bo", {"linear_timeouts": True}),
    Variant("mod_min_rto", "mod min rto", {"rto_min_200ms": True}),
    Variant("mod_fr", "mod FR", {"fast_rtx_first_indication": True}),
    Variant("mod_restart", "mod timer restart", {"timer_restart_correction": True}),
    Variant("all_mods", "All mods", {"all": True}),
    Variant("efr", "FreeBSD EFR", {"early_fast_retransmit": True}),
    Variant("er_rfc5827", "RFC 5827 ER", {"early_retransmit_rfc5827": True}),
    Variant(
        "tcp_newreno",
        "TCP New Reno",
        None,
        {
            "recovery": "newreno",
            "sack": False,
            "rto": {"min": "200ms", "granularity": "200ms"},
            "ack_every": 1,
            "nagle": False,
            "window_unit": "segments",
        },
    ),
]
VARIANT_NAMES = [v.name for v in VARIANTS]
# EFR stays out of the HTTP runs, as seed 004 compared EFR only over the Internet (§6.4).
HTTP_VARIANTS = [v for v in VARIANTS if v.name != "efr"]
LABELS = {v.name: v.label for v in VARIANTS}


def stagger(i: int, streams: int, iat_ms: float) -> str:
    """Start of stream i: the streams spread evenly over one interarrival time. Streams a few ms
    apart lose more packets under HTTP cross traffic the later they come in the group (identical
    lksctp streams 5 ms apart: 93, 138, ..., 220 retransmissions in 40 min; spread evenly: 99-134
    in no order), so close starts would bias the comparison of the variants."""
    return f"{round(i * iat_ms / streams * 1000)}us"


def _thin_app(i: int, streams: int, v: Variant, iat_ms: float | None, source: str | None = None) -> dict[str, Any]:
    app: dict[str, Any] = {
        "name": v.name,
        "kind": v.kind,
        "from": "S",
        "to": "D",
        "start": stagger(i, streams, iat_ms or LAB_IAT_MS),
        "warmup": WARMUP,
    }
    if source is not None:
        app["source"] = source
    else:
        app["interarrival"] = {"kind": "fixed", "value": f"{iat_ms:g}ms"}
        app["size"] = {"kind": "fixed", "value": MESSAGE_BYTES}
    if v.thin is None:
        app["tcp"] = dict(v.tcp)
    else:
        # Fig. 8 caption: delayed acknowledgements were off (a SACK for every packet).
        # Seed 004's lksctp (Linux 2.6.16) predates the RFC 4960 errata: cwnd grows only when
        # the cumulative ack moves (rexmit's default is RFC 9260's rule).
        app["sctp"] = {"sack_freq": 1, "cwnd_growth": "rfc4960", **({"thin": dict(v.thin)} if v.thin else {})}
    return app


def thin_apps(
    iat_ms: float | None = LAB_IAT_MS, source: str | None = None, variants: Sequence[Variant] = VARIANTS
) -> list[dict[str, Any]]:
    """One thin stream per variant, in the order of ``variants`` (apps[0], apps[1], …)."""
    return [_thin_app(i, len(variants), v, iat_ms, source) for i, v in enumerate(variants)]


def _sender(rtt_ms: float) -> list[dict[str, Any]]:
    return [{"name": "S", "rate": LAB_RATE, "delay": f"{rtt_ms / 2:g}ms"}]


def lab(
    stop_s: float, loss: float, rtt_ms: float = LAB_RTT_MS, iat_ms: float = LAB_IAT_MS, source: str | None = None
) -> dict[str, Any]:
    """§6.1 (Fig. 7): the emulated network with uniform loss on the data direction."""
    return {
        "stop_time": f"{stop_s:g}s",
        "seed": 1,
        "description": f"Seed 004 §6.1: thin streams, RTT {rtt_ms:g} ms, {loss:.0%} uniform loss",
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {
                "rate": LAB_RATE,
                "delay": "0ms",
                "queue": {"packets": 1000},
                "errors": [{"kind": "uniform", "rate": loss, "direction": "forward"}],
            },
            "left": _sender(rtt_ms),
            "right": [{"name": "D", "rate": LAB_RATE, "delay": "0ms"}],
        },
        "apps": thin_apps(iat_ms, source),
    }


def http(stop_s: float, rtt_ms: float = LAB_RTT_MS, iat_ms: float = LAB_IAT_MS) -> dict[str, Any]:
    """§6.2: the thin streams and 81 web clients share a 10 Mb/s bottleneck (congestion loss).
    The web server ``W`` sits beside ``S``; responses go the thin streams' way."""
    clients = [{"name": f"C{i}", "rate": LAB_RATE, "delay": f"{d}ms"} for i, d in enumerate(HTTP_CLIENT_DELAY_MS)]
    web = [
        {
            "name": f"web{i}",
            "kind": "http",
            "from": "W",
            "to": f"C{i}",
            "interarrival": {"kind": "exponential", "mean": f"{HTTP_REQUEST_MEAN_MS}ms"},
            "response_size": {"kind": "pareto", "min": 1000, "mean": 9200, "max": "64MiB"},
        }
        for i in range(HTTP_CLIENTS)
    ]
    return {
        "stop_time": f"{stop_s:g}s",
        "seed": 1,
        "description": f"Seed 004 §6.2: thin streams against HTTP cross traffic, RTT {rtt_ms:g} ms",
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {"rate": HTTP_BOTTLENECK, "delay": "0ms", "queue": {"packets": HTTP_QUEUE_PACKETS}},
            "left": [*_sender(rtt_ms), {"name": "W", "rate": LAB_RATE, "delay": "0ms"}],
            "right": [{"name": "D", "rate": LAB_RATE, "delay": "0ms"}, *clients],
        },
        "apps": [*thin_apps(iat_ms, variants=HTTP_VARIANTS), *web],
    }


def greedy_app(kind: str) -> dict[str, Any]:
    """§6.3's greedy flow: ``sctp_bulk`` (the paper's greedy lksctp stream) or ``tcp_bulk``.
    Choice: 1 MiB buffers (Linux tunes a bulk flow's buffers up to megabytes), so its window
    outgrows the path's BDP and queue and the flow keeps the queue full and loses packets; with
    rexmit's default 64/128 KiB buffers it would never overflow the 100-packet queue.
    No warmup: with one, goodput_bps divides all bytes delivered by the time after the warmup
    only (rexmit-endpoints' receivers), which overstates it."""
    transport = "sctp" if kind == "sctp_bulk" else "tcp"
    return {
        "name": "greedy",
        "kind": kind,
        "from": "S1",
        "to": "D1",
        transport: {"send_buffer": "1MiB", "recv_buffer": "1MiB"},
    }


def fairness(stop_s: float) -> dict[str, Any]:
    """§6.3: a thin stream (lksctp or all modifications, ``apps[0].sctp.thin.all``) trying a send
    rate (``apps[0].interarrival``, 100 B messages) against a greedy flow (``apps[1]``, see
    ``greedy_app``)."""
    hosts = lambda side: [{"name": f"{side}{i}", "rate": LAB_RATE, "delay": "0ms"} for i in range(2)]
    thin = {
        "name": "thin",
        "kind": "sctp_messages",
        "from": "S0",
        "to": "D0",
        "interarrival": {"kind": "fixed", "value": f"{LAB_IAT_MS}ms"},
        "size": {"kind": "fixed", "value": MESSAGE_BYTES},
        "sctp": {"sack_freq": 1, "cwnd_growth": "rfc4960", "thin": {"all": False}},
        # A random phase per replication: nothing else in this scenario is random.
        "start_jitter": "1s",
    }
    return {
        "stop_time": f"{stop_s:g}s",
        "seed": 1,
        "description": "Seed 004 §6.3: a thin stream against a greedy flow, 1 Mb/s, 50 ms each way",
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {"rate": FAIR_RATE, "delay": FAIR_DELAY, "queue": {"packets": FAIR_QUEUE_PACKETS}},
            "left": hosts("S"),
            "right": hosts("D"),
        },
        "apps": [thin, greedy_app("sctp_bulk")],
    }


def iat_zip(iats_ms: list[float], streams: int = len(VARIANTS)) -> dict[str, list[Any]]:
    """Sweep axis: the interarrival time of the first ``streams`` apps (the thin streams) and
    their staggered starts, together."""
    axis: dict[str, list[Any]] = {}
    for i in range(streams):
        axis[f"apps[{i}].interarrival.value"] = [f"{x:g}ms" for x in iats_ms]
        axis[f"apps[{i}].start"] = [stagger(i, streams, x) for x in iats_ms]
    return axis


def source_zip(presets: list[str]) -> dict[str, list[Any]]:
    """Sweep axis: every thin stream's Table 1 source together."""
    return {f"apps[{i}].source": list(presets) for i in range(len(VARIANTS))}


RTT_KEY = "topology.left[0].delay"
LOSS_KEY = "topology.bottleneck.errors[0].rate"
IAT_KEY = "apps[0].interarrival.value"
SOURCE_KEY = "apps[0].source"


def rtt_value(rtt_ms: float) -> str:
    return f"{rtt_ms / 2:g}ms"
