"""Seed 001's plan as data (Nguyen & Sterbenz): Table 1's network, the five TCP variants, the
figures with the paper's names, their swept keys and points, run lengths and replications."""

from __future__ import annotations

from typing import Any

# The five variants of seed 001 (recovery, congestion control). Westwood+ in ns-3 runs on
# NewReno's recovery.
TCP_VARIANTS = [
    ("Tahoe", "tahoe", "reno"),
    ("Reno", "reno", "reno"),
    ("NewReno", "newreno", "reno"),
    ("SACK", "sack", "reno"),
    ("Westwood+", "newreno", "westwood"),
]


def seed001_base(stop_time: str) -> dict[str, Any]:
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
                {
                    "rate": "4Mbps",
                    "delay": "50ms",
                    "queue": q,
                    "errors": [{"kind": "burst", "rate": 1e-5, "size": {"min": 2, "max": 5}, "direction": "forward"}],
                },
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


def variant_zip() -> dict[str, list[Any]]:
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


RATE_KEY = "topology.links[1].errors[0].rate"


def runs(quick: bool) -> tuple[str, int]:
    """(stop time, replications) per point. Full: 600 s, 10 runs (Table 1). Quick: 30 s, 2 runs."""
    return ("30s", 2) if quick else ("600s", 10)


def figures(quick: bool) -> dict[str, tuple[str, list[Any]]]:
    """Per figure, its swept key and points: burst error rate (Fig. 9), packet error rate (Fig.
    10, values chosen here: 1e-5 … 1e-2, the paper gives none), bottleneck speed 4–8 Mb/s (Fig.
    11) and delay 50–250 ms (Fig. 12); quick: 2 points per figure."""
    return {
        "fig9_burst_rate": (RATE_KEY, [1e-5, 1e-3] if quick else [1e-7, 1e-6, 1e-5, 1e-4, 1e-3]),
        "fig10_per": (RATE_KEY, [1e-4, 1e-2] if quick else [1e-5, 1e-4, 1e-3, 1e-2]),
        "fig11_speed": (
            "topology.links[1].rate",
            ["4Mbps", "8Mbps"] if quick else ["4Mbps", "5Mbps", "6Mbps", "7Mbps", "8Mbps"],
        ),
        "fig12_delay": (
            "topology.links[1].delay",
            ["50ms", "250ms"] if quick else ["50ms", "100ms", "150ms", "200ms", "250ms"],
        ),
    }
