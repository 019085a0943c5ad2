"""Seed 003's plan as data: the network of §IV Fig. 4, the (a, b) settings, the buffer grids,
the choices where the paper gives no number, and the model's requirement per setting."""

from __future__ import annotations

from rexmit import buffer_model as model

# Seed 003 §IV, Fig. 4: one flow, C = 200 Mb/s, RTTm = 300 ms, 1500 B packets.
RATE_BPS = 200e6
RTT_M_S = 0.300
PACKET_SIZE = 1500
MSS = PACKET_SIZE - model.HEADER_BYTES
# Choices (the paper gives no number): drop-tail bottleneck buffer of 1.4·C·RTTm packets, so that
# slow start can end just below the loss point without overflowing it (a slow-start round that
# ends at ssthresh queues up to ssthresh/2 packets), C·RTTm + B = 12000 makes the loss counts
# a·(C·RTTm + B) whole numbers, and condition ii holds for every setting below.
B_PACKETS = 7000
# (a per ACK, b) with b/a = 25: every setting has the same congestion-avoidance cycle (b·W/(a·W) =
# 25 RTTs) and loses N = a·(C·RTTm + B) = 6, 12 and 24 packets per episode. Scalable TCP's
# (0.01, 0.125) would lose 120, and NewReno would take 120 RTTs (over a minute) to recover.
SETTINGS = [(0.0005, 0.0125), (0.001, 0.025), (0.002, 0.05)]
QUICK_SETTINGS = [(0.0005, 0.0125)]
# Buffer sizes (payload bytes; MB = 10^6 B), around the model's predictions (Table I below). Each
# grid also gets REFINE times the model's buffer of every (a, b) (`_grid`): on the 2x grid alone the
# knee claims could not fail (NewReno's 106.7 MB for a = 0.0005 lay between 64 and 128 MB).
GRIDS = {"newreno": ["24MB", "64MB", "128MB", "256MB", "512MB"], "sack": ["18MB", "24MB", "30MB", "36MB"]}
QUICK_GRIDS = {"newreno": ["24MB", "128MB"], "sack": ["18MB", "36MB"]}
REFINE = (0.9, 1.1)
# The buffer not being varied: as large as a receive buffer may be (2^30 B), far above every U.
UNLIMITED = 1 << 30
# NewReno: the model lets recovery run N RTTs (ns-2's NewReno restarts its timer on every partial
# ACK); RFC 6582, which rexmit follows, restarts it on the first only, and a 1 s RTO would end the
# recovery after 2 RTTs. An RTO floor above the longest recovery (24 RTTs of at most 0.72 s) keeps
# the model's recovery; the full run also shows the RFC 6582 default (`rfc6582_rto` sweep).
NEWRENO_RTO = {"initial": "30s", "min": "30s", "max": "120s"}
INITIAL_WINDOW = 1000  # segments
BOTTLENECK = "link.R1->R2"
UTILIZATION = f"{BOTTLENECK}.utilization"
GOODPUT = "flow.bulk.goodput_bps"
RTXQ_MAX = "flow.bulk.rtxq_bytes_max"
KNEE = 0.99  # a buffer "gives the maximum goodput" when utilisation is within 1% of the best


def requirement(a: float, b: float) -> model.BufferRequirement:
    return model.required_buffers(RATE_BPS, RTT_M_S, B_PACKETS, PACKET_SIZE, a, b)
