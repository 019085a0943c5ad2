"""Seed 002's plan as data (Weinrank, Tüxen, Rathgeb, "RACK for SCTP"): the network of §IV, the
swept keys and their points, the figures with the paper's captions and their labels.

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

from dataclasses import dataclass
from typing import Any

RTT = 0.050
ACCESS = {"rate": "1Gbps", "delay": "0ms"}
# The choices above, one note each, for the report.
NOTES = [line.strip() for line in (__doc__ or "").split("- ")[1:]]

# The swept keys.
RACK_KEY = "apps[0].sctp.rack.enabled"
MECHANISMS = {True: "RACK", False: "dupthresh"}
INTERVAL_KEY = "apps[0].interarrival.value"
LOSS_KEY = "topology.bottleneck.errors[0].rate"
DEGREE_KEY = "topology.bottleneck.reorder.mean_delay"
QUEUE_KEY = "topology.bottleneck.queue.packets"
BURST_MITIGATION_KEY = "apps[0].sctp.rack.burst_mitigation"
MAX_BURST_KEY = "apps[0].sctp.max_burst"
# Fig. 10's burst limits, zipped: none, Max.Burst 4, 3 and 2, and the adaptive limit.
BURST_LIMITS = ["no mitigation", "Max.Burst 4", "Max.Burst 3", "Max.Burst 2", "adaptive"]
BURST_ZIP: dict[str, list[Any]] = {
    BURST_MITIGATION_KEY: ["none", "max_burst", "max_burst", "max_burst", "adaptive"],
    MAX_BURST_KEY: [4, 4, 3, 2, 4],
}


@dataclass(frozen=True)
class Points:
    """Run lengths, replications and the points of each swept key."""

    reps: int
    signalling_stop: str
    bulk_stop: str
    intervals: list[str]
    fast: list[str]
    losses: list[float]
    degrees: list[str]
    queues: list[int]


def points(quick: bool) -> Points:
    """Full: 10 runs per point (the paper's), 1000 s signalling runs, 60 s bulk runs. Quick: 1
    run, 2 points per figure, 200 s / 20 s runs."""
    if quick:
        return Points(1, "200s", "20s", ["10ms", "50ms"], ["2ms", "10ms"], [0.01, 0.05], ["5ms", "50ms"], [10, 20])
    return Points(
        10,
        "1000s",
        "60s",
        ["10ms", "20ms", "50ms", "100ms"],
        ["1ms", "2ms", "5ms", "10ms", "20ms"],
        [0.001, 0.005, 0.01, 0.02, 0.05],
        ["1ms", "5ms", "10ms", "20ms", "50ms"],
        [5, 10, 20, 50],
    )


# The paper's names on the figures: its captions (seed 002 Figs. 2-10) with the metric drawn on
# the index page, and the names of the varied keys and their values.
FIGURES = {
    "fig2_recovery_loss": (
        "Fig. 2: recovery time in relation to the sending rate at 1% packet loss",
        "recovery_time_mean_s",
    ),
    "fig3_spurious_reordering": (
        "Fig. 3: amount of spurious retransmissions in relation to the send interval",
        "dup_tsns_received",
    ),
    "fig4_recovery_loss_reordering": (
        "Fig. 4: recovery time in relation to the send interval at 1% packet loss and reordering",
        "recovery_time_mean_s",
    ),
    "fig5_bulk_loss": ("Fig. 5: goodput in relation to packet loss for a bulk transfer", "goodput_bps"),
    "fig6_bulk_reordering": (
        "Fig. 6: goodput in relation to packet reordering degree at 1% probability",
        "goodput_bps",
    ),
    "fig7_bulk_loss_reordering": (
        "Fig. 7: goodput in relation to packet loss and a static reordering degree",
        "goodput_bps",
    ),
    "fig10_tail_loss": (
        "Fig. 10: retransmissions to recover a tail loss of 100 packets, by bottleneck queue and burst limit",
        "retransmissions",
    ),
}
LABELS: dict[str, Any] = {
    RACK_KEY: {"name": "Loss detection", "values": {"true": "RACK", "false": "dupthresh"}},
    INTERVAL_KEY: {"name": "Send interval", "unit": "ms"},
    LOSS_KEY: "Packet loss rate",
    DEGREE_KEY: {"name": "Reordering degree", "unit": "ms"},
    QUEUE_KEY: "Bottleneck queue (packets)",
    "flow.sctp.goodput_bps": {"name": "Goodput", "unit": "Mb/s"},
    "flow.sctp.recovery_time_mean_s": {"name": "Recovery time", "unit": "ms"},
    "flow.sctp.dup_tsns_received": "Spurious retransmissions",
}
