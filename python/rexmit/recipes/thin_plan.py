"""Seed 004 (Petlund et al., "Improving SCTP retransmission delays for time-dependent thin
streams"): what ``rexmit reproduce thin-streams`` runs, and why.

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
- TCP New Reno: no SACK, Nagle off (interactive applications set TCP_NODELAY), and Linux
  2.6.16's RTO: RTO.min 200 ms (§5.2) applied to the variance term, RTO = SRTT +
  max(4·RTTVAR, 200 ms) (RFC 6298 with G = 200 ms; 300 ms at the lab's 100 ms RTT);
- "All mods" is the four modifications of §5 (Fig. 8's three plus the timer restart
  correction of §5.2), each active only while the stream is thin (Fig. 3, pttfr = 3);
- FreeBSD EFR is left out of the HTTP runs, as seed 004 compared EFR in the lab and over the
  Internet only (§6.4, §7.5);
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
  rexmit's default buffers nothing would ever be lost); 10 min per run; the test stream starts
  at a random time in the first second (``start_jitter``): nothing else in these runs is random,
  so without it the replications repeat one of two phase-locked runs (docs/reproductions_causes.md);
- Table 1 sources (rexmit's presets: exponential gaps and sizes with Table 1's means; the
  sensor sends bursts of 4 every 30 s) run over the lab network at RTT 100 ms and 5% loss;
- a message's latency runs from its generation to its delivery to the application, in order,
  so it includes head-of-line blocking (a message retransmitted once may wait behind one
  retransmitted three times); the 99th percentile pooled over replications is the mean of each
  run's 99th percentile (the sweep keeps the per-run statistics, not every message); the mean is
  weighted by message count and the maximum is the largest; a comparison needs at least 5
  messages on each side;
- EFR follows §2's description (a timer of SRTT + RTTVAR for every outgoing packet; on expiry
  every chunk that could have been acknowledged is resent, at most once, and cwnd shrinks by
  one MTU) with FreeBSD's floor of 250 ms (early_fast_retran_msec, the default of the FreeBSD
  6.2 the paper ran; ``sctp.thin.efr_min``): without it, on a path of constant delay the timer
  expires with the SACK on its way and EFR resends about half of all chunks, and then stalls for
  60 s once no RTT sample is left to undo T3-rtx's backoff (docs/reproductions_causes.md).
  A message counts as retransmitted only if a
  retransmission of its chunk left before the message was delivered.

Full version (33 min on 2 cores, 2026-11-26): 2 h per latency run as in §6; Fig. 8a 20 replications per loss
rate; the RTT × loss × interarrival grid (6 × 2 × 5 points) 4 replications; HTTP 6 replications
per RTT (6) and interarrival time (5); fairness 8 rates × 2 greedy kinds × 2, 10 replications of
10 min; Table 1 sources 3 replications of 2 h. Quick version (under a minute): Fig. 8a
5 replications of 2 h, a 2 × 2 grid of 20 min runs at 5% loss, HTTP at RTT 100 ms for 20 min,
three fairness rates against TCP (3.2, 200 and 500 kb/s: the last is the test stream's fair
share, where Fig. 11's claims are judged), two sources for 30 min.
"""

from __future__ import annotations

from dataclasses import dataclass

from rexmit.recipes import thin_scenarios as ts

# The choices above as the reports list them (the last item without the run sizes).
NOTES = [" ".join(line.split()) for line in (__doc__ or "").split("\n- ")[1:]]
NOTES[-1] = NOTES[-1].split(" Full version")[0]


@dataclass(frozen=True)
class Plan:
    """What a version of the recipe runs: durations in seconds, RTTs and interarrival times in
    ms. Built from named fields."""

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


FULL = Plan(
    latency_s=ts.TEST_DURATION_S,
    fig8_reps=20,
    grid_losses=ts.LOSSES,
    grid_rtts=ts.RTTS_MS,
    grid_iats=ts.IATS_MS,
    grid_s=ts.TEST_DURATION_S,
    grid_reps=4,
    http_s=ts.TEST_DURATION_S,
    http_rtts=ts.RTTS_MS,
    http_iats=[50, 100, 150, 200],
    http_reps=6,
    fair_iats_ms=[250, 50, 16, 8, 4, 2, 1.6, 0.8],
    fair_greedy=["sctp_bulk", "tcp_bulk"],
    fair_s=600,
    fair_reps=10,
    presets=ts.PRESETS,
    preset_s=ts.TEST_DURATION_S,
    preset_reps=3,
)
QUICK = Plan(
    latency_s=ts.TEST_DURATION_S,
    fig8_reps=5,
    grid_losses=[0.05],
    grid_rtts=[0, 100],
    grid_iats=[50, 250],
    grid_s=1200,
    grid_reps=1,
    http_s=1200,
    http_rtts=[100],
    http_iats=[],
    http_reps=1,
    fair_iats_ms=[250, 4, 1.6],
    fair_greedy=["tcp_bulk"],
    fair_s=120,
    fair_reps=1,
    presets=["game", "ssh"],
    preset_s=1800,
    preset_reps=1,
)
