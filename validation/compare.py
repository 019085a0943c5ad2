"""rexmit side of the cross-validation: run rexmit configured like each peer scenario whose
results are in validation/results/, over the same seeds, and write docs/validation_tables.md
(random-loss and SCTP means, the deterministic same-loss runs, the scripted-drop timelines).

    python validation/compare.py [--seeds N] [--only SUBSTRING] [--out docs/validation_tables.md]

Each peer is mirrored setting by setting (see validation/README.md for the peers' details):
initial window, minimum and initial RTO, timestamps, D-SACK, limited transmit, segment size,
queue of 100 packets, error model on the bottleneck's data direction. Random streams differ
between simulators, so random-loss rows compare means over seeds (95% confidence intervals).
The same-loss rows (`sameloss`) drop the very same segments in both simulators
(validation/droplists.py), so each seed is a paired, deterministic comparison; the same-burst
rows (`sameburst`) do the same with seeded bursts of 2..5 consecutive segments.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import rexmit

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "validation" / "results"

# Student t 0.975 quantiles for small samples (df = n - 1).
T975 = {
    1: 12.706,
    2: 4.303,
    3: 3.182,
    4: 2.776,
    5: 2.571,
    6: 2.447,
    7: 2.365,
    8: 2.306,
    9: 2.262,
    10: 2.228,
    14: 2.145,
    19: 2.093,
    29: 2.045,
}


def ci95(xs: list[float]) -> float:
    if len(xs) < 2:
        return 0.0
    df = len(xs) - 1
    t = T975.get(df) or T975[min(T975, key=lambda k: abs(k - df))]
    return t * statistics.stdev(xs) / math.sqrt(len(xs))


@dataclass
class Mirror:
    """How to configure rexmit like one peer scenario; `None` settings are not mirrored."""

    tcp: dict[str, Any] | None = None
    sctp: dict[str, Any] | None = None
    note: str = ""


NS2_TCP = {
    "initial_cwnd_segments": 2,
    "rto": {"min": "200ms", "initial": "3s"},
    "timestamps": False,
    "dsack": False,
    "limited_transmit": True,
    "mss": 1460,
    "ack_every": 2,
    "delayed_ack_timeout": "200ms",
    "send_buffer": "16MiB",
    "recv_buffer": "16MiB",
}
# ns-3's TcpSocketBase restarts its retransmission timer on ACKs of new data only (RFC 6298 read
# literally); ns-2's agents also restart it at the fast retransmit, rexmit's default.
NS3_TCP = {
    "initial_cwnd_segments": 10,
    "rto": {"min": "1s", "initial": "1s"},
    "timestamps": True,
    "limited_transmit": True,
    "mss": 1460,
    "ack_every": 2,
    "delayed_ack_timeout": "200ms",
    "send_buffer": "1MiB",
    "recv_buffer": "1MiB",
    "rto_rearm": "new_ack",
}
# ns-2's SCTP grows cwnd only when the cumulative ack moves (RFC 4960 as written; rexmit's default
# is RFC 9260's rule) and sends its heartbeats without jitter.
NS2_SCTP = {
    "initial_ssthresh": 65536,
    "recv_buffer": "4MiB",
    "rto": {"initial": "3s", "min": "1s", "max": "60s"},
    "cwnd_growth": "rfc4960",
    "hb_jitter": False,
}


def mirror(peer: str) -> Mirror | None:
    m = {
        "ns2-tahoe": Mirror(tcp={**NS2_TCP, "recovery": "tahoe"}),
        "ns2-reno": Mirror(
            tcp={**NS2_TCP, "recovery": "reno"},
            note="ns-2's bugFix_ stops Reno's second fast retransmit in a window; rexmit's Reno has none (RFC 5681); after an RTO in a burst ns-2 halves its halved cwnd_, rexmit takes FlightSize/2",
        ),
        "ns2-reno-nobugfix": Mirror(tcp={**NS2_TCP, "recovery": "reno"}),
        "ns2-newreno": Mirror(
            tcp={**NS2_TCP, "recovery": "newreno"},
            note="both RFC 6582 NewReno with the Impatient timer; after an RTO in a burst ns-2 halves its halved cwnd_, rexmit takes FlightSize/2",
        ),
        "ns2-sack1": Mirror(
            tcp={**NS2_TCP, "recovery": "sack"}, note="ns-2 Sack1 is Fall & Floyd's SACK; rexmit runs RFC 6675"
        ),
        "ns3-newreno-sack-classic": Mirror(
            tcp={**NS3_TCP, "recovery": "sack", "prr": False}, note="ns-3.44 ssthresh = pipe/2, not FlightSize/2"
        ),
        "ns3-newreno-sack-prr": Mirror(
            tcp={**NS3_TCP, "recovery": "sack", "prr": True},
            note="ns-3.44 ssthresh = pipe/2; its PRR counts dup ACKs twice with SACK",
        ),
        "ns3-newreno-sack-classic-fs": Mirror(tcp={**NS3_TCP, "recovery": "sack", "prr": False}),
        "ns3-newreno-sack-prr-fs": Mirror(tcp={**NS3_TCP, "recovery": "sack", "prr": True}),
        "ns3-newreno-sack-classic-rfc": Mirror(
            tcp={**NS3_TCP, "recovery": "sack", "prr": False},
            note="ns-3 with RFC 5681 ssthresh (limited-transmit data left out of FlightSize)",
        ),
        "ns3-newreno-sack-classic-rfc-aligned": Mirror(
            tcp={**NS3_TCP, "recovery": "sack", "prr": False},
            note="ns-3 with RFC 5681 ssthresh, whole-SMSS CA steps, no increase on the recovery-exit ACK",
        ),
        "ns3-newreno-sack-classic-aligned": Mirror(
            tcp={**NS3_TCP, "recovery": "sack", "prr": False},
            note="ns-3 aligned: FlightSize ssthresh, whole-SMSS CA steps, no increase on the recovery-exit ACK",
        ),
        "ns3-newreno-nosack-classic": Mirror(tcp={**NS3_TCP, "recovery": "newreno", "sack": False}),
        "ns3-westwoodplus": Mirror(tcp={**NS3_TCP, "recovery": "sack", "prr": True, "cc": "westwood"}),
        "ns3-cubic": Mirror(
            tcp={**NS3_TCP, "recovery": "sack", "prr": True, "cc": "cubic"},
            note="ns-3 CUBIC runs HyStart; rexmit's CUBIC does not",
        ),
        "ns2-sctp-sack": Mirror(sctp={**NS2_SCTP, "nr_sack": False, "send_buffer": "64KiB"}),
        "ns2-sctp-nrsack": Mirror(sctp={**NS2_SCTP, "nr_sack": True, "send_buffer": "64KiB"}),
        "ns2-cmt-sack": Mirror(
            sctp={
                **NS2_SCTP,
                "nr_sack": False,
                "send_buffer": "128KiB",
                "cmt": {"enabled": True, "rtx_policy": "ssthresh", "pf": True},
            },
            note="both run DAC",
        ),
        "ns2-cmt-nrsack": Mirror(
            sctp={
                **NS2_SCTP,
                "nr_sack": True,
                "send_buffer": "128KiB",
                "cmt": {"enabled": True, "rtx_policy": "ssthresh", "pf": True},
            },
            note="both run DAC",
        ),
        "ns2-cmt-sack-asym": Mirror(
            sctp={
                **NS2_SCTP,
                "nr_sack": False,
                "send_buffer": "128KiB",
                "cmt": {"enabled": True, "rtx_policy": "ssthresh", "pf": True},
            },
            note="paths of 32 and 132 ms RTT",
        ),
        "ns2-cmt-nrsack-asym": Mirror(
            sctp={
                **NS2_SCTP,
                "nr_sack": True,
                "send_buffer": "128KiB",
                "cmt": {"enabled": True, "rtx_policy": "ssthresh", "pf": True},
            },
            note="paths of 32 and 132 ms RTT",
        ),
    }
    return m.get(peer)


def error_model(loss: str, rate: float) -> dict[str, Any]:
    if loss == "burst":
        return {"kind": "burst", "rate": rate, "size": {"min": 2, "max": 5}, "direction": "forward"}
    return {"kind": "uniform", "rate": rate, "direction": "forward"}


def tcp_scenario(m: Mirror, loss: str, rate: float, seed: int, secs: float, ppp: bool = False) -> rexmit.Scenario:
    """Seed 001's path with random loss; `ppp`: ns-3's PPP header on every link (timelines.py)."""
    import timelines

    return timelines.path_scenario(m, seed, secs, ppp, [error_model(loss, rate)])


def sctp_scenario(m: Mirror, opts: dict[str, Any], rate: float, seed: int, secs: float) -> rexmit.Scenario:
    s = rexmit.Scenario(stop_time=f"{secs:g}s", seed=seed)
    q = {"packets": 833}
    lossy = lambda r, d="2ms": {
        "rate": "100Mbps",
        "delay": d,
        "queue": q,
        "errors": [{"kind": "uniform", "rate": r, "direction": "forward"}],
    }
    access = {"rate": "100Mbps", "delay": "14ms", "queue": q}
    if opts.get("topo") == "cmt":
        path = lambda left, right, loss, d="2ms": {
            "left_router": left,
            "right_router": right,
            "bottleneck": lossy(loss, d),
            "left": [],
            "right": [],
        }
        s.dual_dumbbell(
            [path("R1", "R2", rate), path("R3", "R4", float(opts.get("rate2", 0.001)), opts.get("core_delay2", "2ms"))],
            [
                {"name": "S", "side": "left", "links": [access, access]},
                {"name": "R", "side": "right", "links": [access, access]},
            ],
        )
    else:
        s.dumbbell(lossy(rate), [{"name": "S", **access}], [{"name": "R", **access}])
    s.app("assoc", "sctp_bulk", "S", "R", unordered=True, sctp=m.sctp)
    return s


def run_rexmit(peer: dict[str, Any], m: Mirror, seeds: list[int]) -> dict[str, list[float]]:
    opts = peer["options"]
    secs = float(opts.get("duration", 60))
    rate = float(opts.get("rate", 0))
    out: dict[str, list[float]] = {"goodput_bps": [], "retransmissions": [], "timeouts": [], "wall_s": []}
    ppp = peer["name"].startswith("ns3")
    for seed in seeds:
        if m.tcp is not None:
            record(out, rexmit.run(tcp_scenario(m, peer["loss"], rate, seed, secs, ppp)), "bulk", "retransmissions")
        else:
            record(out, rexmit.run(sctp_scenario(m, opts, rate, seed, secs)), "assoc", "retransmissions")
    return out


def record(out: dict[str, list[float]], res: rexmit.RunResult, flow: str, rtx_metric: str) -> None:
    """Append one run's goodput, retransmissions (named `rtx_metric` by the flow's protocol),
    timeouts and loop wall time to `out`."""
    f = res.flow(flow)
    out["goodput_bps"].append(f["goodput_bps"])
    out["retransmissions"].append(f[rtx_metric])
    out["timeouts"].append(f["timeouts"])
    out["wall_s"].append(res.summary["wall_time_s"])


def verdict(peer_mean: float, peer_ci: float, ours: list[float], band: float) -> tuple[float, str]:
    mean = statistics.mean(ours)
    rel = (mean - peer_mean) / peer_mean if peer_mean else float("nan")
    overlap = abs(mean - peer_mean) <= peer_ci + ci95(ours)
    if abs(rel) <= band:
        return rel, "agree"
    return rel, "CIs overlap" if overlap else "differs"


def run_rexmit_sameloss(peer: dict[str, Any], m: Mirror, seeds: list[int]) -> dict[str, list[float]]:
    """rexmit with the first transmissions of the same segments dropped as in each peer run."""
    import droplists
    import timelines

    opts = peer["options"]
    secs = float(opts.get("duration", 60))
    rate = float(peer.get("rate", opts.get("rate", 0.01)))
    ppp = peer["name"].startswith("ns3")
    iss, payload = timelines.probe_iss(m, 1, ppp)
    out: dict[str, list[float]] = {"goodput_bps": [], "retransmissions": [], "timeouts": [], "wall_s": []}
    for seed in seeds:
        segs = droplists.segments(peer.get("loss", "sameloss"), seed, rate)
        s = timelines.path_scenario(m, 1, secs, ppp, [timelines.scripted_error(segs, iss, payload)])
        record(out, rexmit.run(s), "bulk", "retransmissions")
    return out


SAMELOSS_BAND = 0.05


def sameloss_row(peer: dict[str, Any], m: Mirror, seeds: list[int]) -> dict[str, Any]:
    ours = run_rexmit_sameloss(peer, m, seeds)
    runs = peer["runs"][: len(seeds)]
    rel = [o / float(r["goodput_bps"]) - 1 for o, r in zip(ours["goodput_bps"], runs)]
    row: dict[str, Any] = {
        "peer": peer["name"],
        "case": f"{peer.get('loss', 'sameloss')}_{peer.get('rate', peer['options'].get('rate', 0.01)):g}",
        "seeds": len(seeds),
        "note": m.note,
    }
    for metric, key in (
        ("goodput_bps", "goodput_bps"),
        ("retransmissions", "retransmissions"),
        ("timeouts", "timeouts"),
    ):
        pv = [float(r[key]) for r in runs]
        row[metric] = {
            "peer": statistics.mean(pv),
            "peer_ci": ci95(pv),
            "rexmit": statistics.mean(ours[metric]),
            "rexmit_ci": ci95(ours[metric]),
        }
    row["paired_rel"] = {"mean": statistics.mean(rel), "min": min(rel), "max": max(rel), "per_seed": rel}
    row["rel_goodput"] = statistics.mean(rel)
    row["verdict"] = "agree" if abs(row["rel_goodput"]) <= SAMELOSS_BAND else "differs"
    return row


def random_loss_row(peer: dict[str, Any], m: Mirror, seeds: list[int], band: float, stem: str) -> dict[str, Any]:
    ours = run_rexmit(peer, m, seeds)
    ps = peer["summary"]
    row: dict[str, Any] = {
        "peer": peer["name"],
        "case": stem.removeprefix(f"peer_{peer['name']}_"),
        "seeds": len(seeds),
        "note": m.note,
    }
    for metric in ("goodput_bps", "retransmissions", "timeouts"):
        row[metric] = {
            "peer": ps[metric]["mean"],
            "peer_ci": ps[metric].get("ci95_half", 0.0),
            "rexmit": statistics.mean(ours[metric]),
            "rexmit_ci": ci95(ours[metric]),
        }
    row["rel_goodput"], row["verdict"] = verdict(
        ps["goodput_bps"]["mean"], ps["goodput_bps"].get("ci95_half", 0.0), ours["goodput_bps"], band
    )
    row["wall"] = {"peer_run_s": ps.get("wall_run_s", {}).get("median"), "rexmit_s": statistics.median(ours["wall_s"])}
    return row


def fmt_mbps(v: float, ci: float) -> str:
    return f"{v / 1e6:.3f} ± {ci / 1e6:.3f}"


def tables(rows: list[dict[str, Any]], timeline_cases: list[dict[str, Any]], seeds: int, band: float) -> list[str]:
    import timelines

    lines = [
        "# Cross-validation tables (generated by `validation/compare.py`)",
        "",
        "Regenerate with `make validate` (peers and rexmit) or, with the peer results already in",
        "`validation/results/`, `.venv/bin/python validation/compare.py` (rexmit side only, about a minute).",
        "Explanations of every difference: [validation.md](validation.md).",
        "",
        "## Random loss (means over seeds) and SCTP",
        "",
        f"Means over {seeds} seeds; ± is the 95% confidence half-width. Verdict: `agree` = goodput within ±{band:.0%}; `CIs overlap` = outside the band but the intervals overlap; `differs` = neither. Wall times: simulator run only (median).",
        "",
        "| peer | case | goodput peer (Mb/s) | goodput rexmit (Mb/s) | diff | verdict | rtx peer | rtx rexmit | RTOs peer | RTOs rexmit | wall peer (s) | wall rexmit (s) | note |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if "skipped" in r:
            lines.append(f"| {r['peer']} | {r['loss']} | | | | skipped | | | | | | | {r['skipped']} |")
            continue
        if "paired_rel" in r:
            continue
        g, x, t, w = r["goodput_bps"], r["retransmissions"], r["timeouts"], r["wall"]
        wp = f"{w['peer_run_s']:.4f}" if w["peer_run_s"] else ""
        lines.append(
            f"| {r['peer']} | {r['case']} | {fmt_mbps(g['peer'], g['peer_ci'])} | {fmt_mbps(g['rexmit'], g['rexmit_ci'])} | {r['rel_goodput']:+.1%} | {r['verdict']} | {x['peer']:.1f} | {x['rexmit']:.1f} | {t['peer']:.1f} | {t['rexmit']:.1f} | {wp} | {w['rexmit_s']:.4f} | {r['note']} |"
        )
    same = [r for r in rows if "paired_rel" in r]
    if same:
        lines += [
            "",
            "## Same loss in both simulators (deterministic, paired per seed)",
            "",
            "Each seed is one drop list (validation/droplists.py), applied identically in the peer and in rexmit; 60 s runs; retransmissions are never dropped. "
            "`sameloss_0.01`: every segment's first transmission dropped with probability 1% by a seeded draw. "
            "`sameburst_0.001`: bursts of 2–5 consecutive segments (size uniform), a burst starting at a segment with probability 1e-3.",
            f"`diff` is the mean over seeds of rexmit/peer − 1 of goodput (range in brackets). Verdict band: ±{SAMELOSS_BAND:.0%} on that mean.",
            "",
            "| peer | case | seeds | goodput peer (Mb/s) | goodput rexmit (Mb/s) | diff (min … max) | verdict | rtx peer | rtx rexmit | RTOs peer | RTOs rexmit | note |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for r in same:
            g, x, t, pr = r["goodput_bps"], r["retransmissions"], r["timeouts"], r["paired_rel"]
            lines.append(
                f"| {r['peer']} | {r['case']} | {r['seeds']} | {fmt_mbps(g['peer'], g['peer_ci'])} | {fmt_mbps(g['rexmit'], g['rexmit_ci'])} | {pr['mean']:+.1%} ({pr['min']:+.1%} … {pr['max']:+.1%}) | {r['verdict']} | {x['peer']:.1f} | {x['rexmit']:.1f} | {t['peer']:.1f} | {t['rexmit']:.1f} | {r['note']} |"
            )
    if timeline_cases:
        lines += [
            "",
            "## Scripted-drop retransmission timelines (10 s runs)",
            "",
            "Segment 100 (drops1) or 100–102 (drops3) lose their first transmission on G1→G2. Times are transmission starts at S (both peers and rexmit measured at the wire). "
            "`since drop` = after the first dropped packet would have reached G2; the verdict compares those times for every retransmission of a dropped segment. "
            "ns-2 has no handshake (its first segment plays the SYN's role), so its `since data` times run one RTT later.",
            "",
        ]
        lines += timelines.summary_table(timeline_cases)
        lines += ["", "### Details", ""]
        lines += timelines.markdown(timeline_cases)
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--band", type=float, default=0.10, help="relative goodput difference counted as agreement")
    ap.add_argument("--only", default=None, help="only peer result files whose name contains this")
    ap.add_argument("--no-timelines", action="store_true", help="skip the scripted-drop timelines")
    ap.add_argument("--out", default=str(ROOT / "docs" / "validation_tables.md"))
    ap.add_argument("--json", default=str(ROOT / "validation" / "results" / "compare.json"))
    args = ap.parse_args(argv)
    rows = []
    for f in sorted(RESULTS.glob("peer_*.json")):
        if args.only and args.only not in f.name:
            continue
        peer = json.loads(f.read_text())
        loss = peer.get("loss")
        if loss in ("drops", "none"):
            continue  # scripted-drop timelines: validation/timelines.py
        m = mirror(peer["name"])
        if m is None:
            rows.append({"peer": peer["name"], "loss": f.stem, "skipped": "no rexmit mirror (see notes)"})
            continue
        seeds = [int(x) for x in peer["seeds"]][: args.seeds]
        row = (
            sameloss_row(peer, m, seeds)
            if loss in ("sameloss", "sameburst")
            else random_loss_row(peer, m, seeds, args.band, f.stem)
        )
        rows.append(row)
        print(
            f"{peer['name']:<34} {row['case']:<16} goodput peer {row['goodput_bps']['peer'] / 1e6:6.3f} rexmit {row['goodput_bps']['rexmit'] / 1e6:6.3f} Mb/s ({row['rel_goodput']:+.1%}) {row['verdict']}",
            file=sys.stderr,
        )
    cases: list[dict[str, Any]] = []
    if not args.no_timelines:
        import timelines

        cases = timelines.run_all([p for p in timelines.PEERS if not args.only or args.only in p])
    Path(args.json).write_text(json.dumps({"rows": rows, "timelines": cases}, indent=1))
    Path(args.out).write_text("\n".join(tables(rows, cases, args.seeds, args.band)) + "\n")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
