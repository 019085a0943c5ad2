"""Seed 000 (Natarajan, Ekiz, Amer, Iyengar, Stewart: Non-Renegable Selective Acknowledgments
(NR-SACKs) for SCTP): ``rexmit reproduce nr-sack``.

Unordered SCTP (topology 1, Fig. 5) and CMT with RTX-SSTHRESH (topology 2, Fig. 6) bulk
transfers with SACKs vs NR-SACKs, over HTTP / video / FTP cross traffic at four loads (§IV.A;
the setup is :mod:`rexmit.recipes.seed000_setup`), for send buffers of 32K, 64K and INF (SCTP)
and 128K, 256K and INF (CMT). INF is 1 GiB, larger than anything a 70 s run at 100 Mb/s can fill
(the report gives the largest rtxq seen). For CMT, path 1's load goes from low to heavy while
path 2 stays at low load (§IV.A). Figures: RtxQ_Util_L (Fig. 7) and RtxQ_Util (Fig. 8) of SCTP,
RtxQ_Util of CMT (Fig. 9), the rtxq evolution of CMT with 128K buffers (Figs. 10-11, heavy
path-1 load: the paper does not say which load it drew), CMT timeouts (Fig. 13), send-buffer
blocking (§V.B), goodput (Fig. 14 and SCTP's) and CMT's average rtxq (Fig. 15); the claims of
§V and §VI are checked against the numbers.

Loads (§IV.A gives loss rates and L = mean queue / queue size, not the traffic that made
them), per (left edge, right edge) pair and direction, calibrated with
``seed000_setup.calibrate`` (cross traffic alone on topology 1, 70 s, 3 runs per load; the full
recipe repeats this calibration and reports it). Measured at R1->R2 over whole runs; "with the
flow": the mean over the 30 SCTP runs of the full recipe at that load (CMT's path 1 is within
0.1 point of it):

======  ===================================  ===========  ==============  =====  ===========  =================
load    FTP flows / HTTP req/s / video       paper        loss alone      L      utilisation  loss with the flow
======  ===================================  ===========  ==============  =====  ===========  =================
low     2 / 60 / 1 Mb/s                      < 0.1%, 15%  0.013%          18%    88.5%        0.06%
mild    7 / 60 / 1 Mb/s                      1-2%, 45%    1.43%           53%    96.4%        1.50%
medium  14 / 75 / 1 Mb/s                     3-4%, 60%    3.38%           60%    97.3%        3.43%
heavy   45 / 75 / 4 Mb/s                     8-9%, 85%    7.94%           93%    99.3%        8.16%
======  ===================================  ===========  ==============  =====  ===========  =================

Of the delivered cross-traffic bytes (low / mild / medium / heavy), HTTP carries 44 / 34 / 39 /
23%, video 10 / 9 / 9 / 34% and FTP 46 / 57 / 52 / 43%: greedy FTP takes what HTTP and video
leave, so "more HTTP traffic than video or FTP traffic" (§IV.A) holds against video (except at
heavy load), not against FTP. Mean queues at mild and heavy load run above the paper's L (53% vs 45%,
93% vs 85%): with drop-tail queues the loss rate and L cannot be set apart, and the loss rate is
what the recipe matches.

Choices where the paper gives no number (also in each report): edge and host links have the
bottleneck's queue (833 packets); FTP is SACK TCP with a 20-packet receive window (ns-2's
default window_), 10% of FTP flows with MSS 536 (576 B packets), the flows of a pair being the
connections of one `http` app whose 4 GiB responses outlast the run; HTTP responses are the `http`
app's Pareto sizes (mean 9200 B); video is 1000 B CBR with ±10 ms jitter; the SCTP receive
buffer is 64 MiB (never limits); SCTP runs rexmit's RFC 9260 defaults (RTO.min 1 s, Max.Burst
4, delayed SACK every 2nd packet or 200 ms), CMT with SFR, CUC and DAC.

Measurements: RtxQ_Util, RtxQ_Util_L and the average rtxq count from the warm-up (20 s after
the association starts, which is uniform in 18-20 s) to 70 s, as in §IV.A. Goodput and
send-buffer blocking are computed here over the same window from the receiver's delivered bytes
and the sender's rtxq, sampled every 10 ms (blocked: the rtxq leaves no room for the next
message), because the flow metrics goodput_bps (bytes delivered since the association's start
over the time since the warm-up) and send_blocked_fraction count from the association's start.
Timeouts are counted from the association's start, i.e. over about 51 s, not the ~31 s window.

Full: 4 loads × 3 buffers × 2 ack schemes × 5 replications (the paper averages 30 runs with 95%
CIs; 5 keep the full recipe to about 25 min on 2 cores) for SCTP and for CMT, plus the
calibration (4 loads × 3 runs). Quick: low and heavy load, 64K (SCTP) and 128K (CMT) buffers,
1 replication, 25 s runs with the flow starting at 6-8 s and an 8 s warm-up.
"""

from __future__ import annotations

from pathlib import Path

from rexmit.recipes import nr_sack_claims, nr_sack_report, nr_sack_runs
from rexmit.recipes import seed000_setup as setup
from rexmit.recipes.common import Claim
from rexmit.recipes.nr_sack_plan import CMT_BUFFERS, CMT_METRICS, FULL, QUICK, SCTP_BUFFERS, SCTP_METRICS
from rexmit.recipes.nr_sack_report import CMT_FIGURES, SCTP_FIGURES


def nr_sack(out: Path, quick: bool, jobs: int | None) -> list[Claim]:
    """Seed 000 §V: SCTP (Figs. 7-8) and CMT (Figs. 9-15) with SACKs vs NR-SACKs; see the module
    docstring for the setup, the calibrated loads and the choices."""
    plan = QUICK if quick else FULL
    out.mkdir(parents=True, exist_ok=True)
    calibration = (
        setup.calibrate(
            out / "calibration", {n: setup.LOADS[n] for n in plan.loads}, plan.calibration_runs, setup.Timing(), jobs
        )
        if plan.calibration_runs
        else []
    )
    s = nr_sack_runs.run(
        out,
        "sctp",
        "SCTP, topology 1 (Figs. 7-8)",
        nr_sack_runs.sctp_build(plan.timing),
        plan.sctp_buffers,
        SCTP_BUFFERS,
        SCTP_METRICS,
        ["R1->R2"],
        plan,
        jobs,
    )
    c = nr_sack_runs.run(
        out,
        "cmt",
        "CMT, topology 2 (Figs. 9-15)",
        nr_sack_runs.cmt_build(plan.timing),
        plan.cmt_buffers,
        CMT_BUFFERS,
        CMT_METRICS,
        ["R1->R2", "R3->R4"],
        plan,
        jobs,
    )
    figures_dir = out / "figures"
    figures = [nr_sack_report.paper_figure(s, f, figures_dir) for f in SCTP_FIGURES] + [
        nr_sack_report.paper_figure(c, f, figures_dir) for f in CMT_FIGURES
    ]
    rtxq_fig, swings = nr_sack_report.rtxq_figure(c, figures_dir)
    figures.append(rtxq_fig)
    claims = nr_sack_claims.paper_claims(s, c, swings)
    nr_sack_report.index(out, plan, claims, calibration, figures, quick)
    return claims
