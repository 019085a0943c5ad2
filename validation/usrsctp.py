#!/usr/bin/env python3
"""rexmit's SCTP core against FreeBSD's SCTP (usrsctp, `stack = "usrsctp"`) on the ns-2 SCTP
scenarios of validation/ (seed 000's Fig. 5 dumbbell and Fig. 6 dual dumbbell with random loss),
issue 39.

Both stacks run in rexmit's simulator on the same network, so unlike the ns-2 comparison the
links, queues and error models are the same code; the random draws of the error models follow
the packets each stack sends, so random-loss rows compare means over seeds, and the same-loss
rows drop the same TSNs' first transmissions in both. rexmit runs twice: with FreeBSD's choices
(`FREEBSD_PINS`, the options of docs/usrsctp.md that model what FreeBSD does differently from
RFC 9260) and with its own RFC 9260 defaults. ns-2's numbers come from the saved peer runs
(validation/results/peer_*.json, `make validate`) where the scenario is the same one.

    python validation/usrsctp.py run [--seeds 10] [--duration 60] [--only NAME]
    python validation/usrsctp.py repro          # identical runs, identical results?
    python validation/usrsctp.py table          # docs/validation_usrsctp.md

Results: validation/results/usrsctp_<case>.json (every run's metrics and wall time); the table
is generated from them. Findings: docs/validation_freebsd.md.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import rexmit

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results"
sys.path.insert(0, str(HERE))
from compare import ci95  # noqa: E402

# FreeBSD's choices where rexmit's defaults differ by design, set in the `sctp` table of both
# stacks in every comparison (docs/validation_freebsd.md): usrsctp takes
# rexmit's value of every mapped option, and accepts a built-in behaviour written with FreeBSD's
# value, so the same table runs FreeBSD as shipped and rexmit as FreeBSD behaves.
FREEBSD_PINS: dict[str, Any] = {
    "cwnd_growth": "rfc4960",
    "cwnd_bytes": "chunk",
    "slow_start_limit_mtus": 2,
    "t3_rtx": "freebsd",
    "handshake_rtt": True,
    "fast_rtx_again": True,
    "fr_max_burst": 4,
    "fr_ssthresh_floor_mtus": 2,
    "sack_first_data": True,
    "tsn_map_window": 4096,
    "rto": {"estimator": "freebsd"},
}
FREEBSD_CMT_PINS: dict[str, Any] = {
    "rtx_policy": "cwnd",
    "rtx_pseudo_cumack": True,
    "rtx_dest_at_mark": True,
    "cut_every_sack": True,
    "grow_in_recovery": True,
    "no_fr_after_t3": True,
}

# The ns-2 SCTP scenarios' settings (validation/compare.py NS2_SCTP, without the initial
# ssthresh that FreeBSD cannot set: both stacks start at the peer's a_rwnd).
BASE: dict[str, Any] = {"recv_buffer": "4MiB", "rto": {"initial": "3s", "min": "1s", "max": "60s"}}

# Goodput within this relative difference counts as agreement (issue 39's band); otherwise the
# means' 95% confidence intervals must overlap.
BAND = 0.05

METRICS = [
    "goodput_bps",
    "retransmissions",
    "fast_retransmits",
    "rtx_fast",
    "timeouts",
    "dup_tsns_received",
    "app_blocked_fraction",
    "latency_mean_s",
]
# The primary path's cwnd sampled every CWND_EVERY (`cwnd_primary`, both stacks); its mean is
# the table's "mean cwnd". rexmit counts DATA payload bytes, FreeBSD DATA chunk bytes (payload +
# the 16-byte chunk header: sctp_flight_size_increase adds book_size), so FreeBSD's number is
# about 1468/1452 = 1.1% larger for the same packets in flight.
CWND_EVERY = "100ms"


@dataclass(frozen=True)
class Case:
    """One scenario: seed 000's Fig. 5 dumbbell (`dumbbell`) or Fig. 6 dual dumbbell (`cmt`,
    loss `rate` on path 1 and `rate2` on path 2) with the ns-2 SCTP scenario's links."""

    name: str
    what: str
    nr_sack: bool
    rate: float
    send_buffer: str = "64KiB"
    loss: str = "uniform"
    topo: str = "dumbbell"
    rate2: float = 0.001
    core_delay2: str = "2ms"
    ns2: str | None = None  # peer result file stem

    def sctp(self) -> dict[str, Any]:
        s: dict[str, Any] = {**BASE, "nr_sack": self.nr_sack, "send_buffer": self.send_buffer}
        if self.topo == "cmt":
            s["cmt"] = {"enabled": True, "pf": True}
        return s


def _cases() -> list[Case]:
    out = []
    for nr, tag in ((False, "sack"), (True, "nrsack")):
        label = "NR-SACK" if nr else "SACK"
        peer = f"peer_ns2-sctp-{tag}"
        out += [
            Case(f"{tag}-u1", f"{label}, uniform 1%", nr, 0.01, ns2=f"{peer}_uniform_0.01"),
            Case(f"{tag}-u01", f"{label}, uniform 0.1%", nr, 0.001, ns2=f"{peer}_uniform_0.001"),
            Case(f"{tag}-burst", f"{label}, bursts of 2-5 at 1e-3", nr, 0.001, loss="burst"),
            Case(f"{tag}-same1", f"{label}, same 1% in both", nr, 0.01, loss="sameloss"),
            Case(f"{tag}-same01", f"{label}, same 0.1% in both", nr, 0.001, loss="sameloss"),
            Case(f"{tag}-sameburst", f"{label}, same bursts in both", nr, 0.001, loss="sameburst"),
            Case(f"{tag}-buf16k", f"{label}, 0.1%, 16 KiB send buffer", nr, 0.001, send_buffer="16KiB"),
            Case(f"{tag}-buf256k", f"{label}, 0.1%, 256 KiB send buffer", nr, 0.001, send_buffer="256KiB"),
            Case(
                f"cmt-{tag}",
                f"CMT {label}, loss 2% / 0.1%",
                nr,
                0.02,
                send_buffer="128KiB",
                topo="cmt",
                ns2=f"peer_ns2-cmt-{tag}_uniform_0.02",
            ),
            Case(
                f"cmt-{tag}-asym",
                f"CMT {label}, loss 2% / 0.1%, core delay 2 / 52 ms (RTT 60 / 160 ms)",
                nr,
                0.02,
                send_buffer="128KiB",
                topo="cmt",
                core_delay2="52ms",
                ns2=f"peer_ns2-cmt-{tag}-asym_uniform_0.02",
            ),
        ]
    return out


CASES = {c.name: c for c in _cases()}
STACKS = ("rexmit", "usrsctp", "rexmit-defaults")


# Same loss: the first transmissions of the same TSNs are dropped in both stacks (relative TSN
# = segment + 1; validation/droplists.py draws the list from the seed), so each seed is a paired,
# deterministic comparison in which only the algorithms differ. Enough TSNs for 60 s at 12 Mb/s.
SAME_LOSS_TSNS = 62_000


def error_model(loss: str, rate: float, seed: int = 1) -> dict[str, Any]:
    if loss == "burst":
        return {"kind": "burst", "rate": rate, "size": {"min": 2, "max": 5}, "direction": "forward"}
    if loss in ("sameloss", "sameburst"):
        import droplists

        segs = (
            droplists.uniform_segments(seed, rate, SAME_LOSS_TSNS)
            if loss == "sameloss"
            else droplists.burst_segments(seed, rate, n=SAME_LOSS_TSNS)
        )
        return {"kind": "scripted", "app": "assoc", "sctp_tsns": [k + 1 for k in segs]}
    return {"kind": "uniform", "rate": rate, "direction": "forward"}


def sctp_table(sctp: dict[str, Any], stack: str) -> dict[str, Any]:
    """The `sctp` table a stack runs with: FreeBSD's pins, except for rexmit's own defaults."""
    if stack == "rexmit-defaults":
        return sctp
    out = {**sctp, **FREEBSD_PINS, "rto": {**sctp.get("rto", {}), **FREEBSD_PINS["rto"]}}
    if "cmt" in sctp:
        out["cmt"] = {**sctp["cmt"], **FREEBSD_CMT_PINS}
    return out


def app_stack(stack: str) -> str:
    return "usrsctp" if stack == "usrsctp" else "rexmit"


def scenario(case: Case, stack: str, seed: int, secs: float) -> rexmit.Scenario:
    s = rexmit.Scenario(stop_time=f"{secs:g}s", seed=seed)
    q = {"packets": 833}
    lossy = lambda r, d="2ms", loss="uniform": {
        "rate": "100Mbps",
        "delay": d,
        "queue": q,
        "errors": [error_model(loss, r, seed)],
    }  # noqa: E731
    access = {"rate": "100Mbps", "delay": "14ms", "queue": q}
    if case.topo == "cmt":
        path = lambda lr, rr, bn: {"left_router": lr, "right_router": rr, "bottleneck": bn, "left": [], "right": []}  # noqa: E731
        s.dual_dumbbell(
            [path("R1", "R2", lossy(case.rate, loss=case.loss)), path("R3", "R4", lossy(case.rate2, case.core_delay2))],
            [
                {"name": "S", "side": "left", "links": [access, access]},
                {"name": "R", "side": "right", "links": [access, access]},
            ],
        )
    else:
        s.dumbbell(lossy(case.rate, loss=case.loss), [{"name": "S", **access}], [{"name": "R", **access}])
    s.app("assoc", "sctp_bulk", "S", "R", unordered=True, stack=app_stack(stack), sctp=sctp_table(case.sctp(), stack))
    s.timeseries("app", CWND_EVERY, app="assoc", value="cwnd_primary")
    return s


def run_one(s: rexmit.Scenario, flow: str) -> dict[str, Any]:
    t0 = time.perf_counter()
    r = rexmit.run(s)
    f = r.flow(flow)
    out = {m: f.get(m) for m in METRICS}
    # Fast-retransmitted DATA chunks: rexmit's `rtx_fast`; usrsctp's `fast_retransmits` is
    # FreeBSD's sctps_sendfastretrans, a count of chunks (rexmit's `fast_retransmits` counts
    # fast recoveries entered: one per loss event, fewer than chunks under burst loss).
    out["fast_rtx_chunks"] = f["rtx_fast"] if f.get("rtx_fast") is not None else f.get("fast_retransmits")
    _, cwnd = r.series["assoc:cwnd_primary"]
    out["cwnd_mean"] = statistics.mean(cwnd) if cwnd else None
    out["wall_s"] = time.perf_counter() - t0
    out["events"] = r.summary["events"]
    return out


def saved(name: str) -> Path:
    return RESULTS / f"usrsctp_{name}.json"


def run_case(case: Case, seeds: list[int], secs: float) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "case": case.name,
        "what": case.what,
        "seconds": secs,
        "seeds": seeds,
        "pins": {"sctp": FREEBSD_PINS, "cmt": FREEBSD_CMT_PINS},
        "runs": {},
    }
    for stack in STACKS:
        doc["runs"][stack] = [run_one(scenario(case, stack, seed, secs), "assoc") for seed in seeds]
    return doc


# --- reproducibility ---------------------------------------------------------------------------
def repro() -> dict[str, Any]:
    """The same usrsctp scenario twice in this process and once in another: every result the
    same? (Only wall time may differ.)"""
    import subprocess

    case = CASES["cmt-nrsack"]
    s = scenario(case, "usrsctp", 3, 20)
    strip = lambda r: json.dumps({"flows": r.flows, "links": r.links}, sort_keys=True)  # noqa: E731
    a, b = strip(rexmit.run(s)), strip(rexmit.run(s))
    code = f"import sys,json,rexmit; sys.path.insert(0,{str(HERE)!r}); import usrsctp as u; r=rexmit.run(u.scenario(u.CASES['cmt-nrsack'],'usrsctp',3,20)); print(json.dumps({{'flows': r.flows, 'links': r.links}}, sort_keys=True))"
    c = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout.strip()
    other = scenario(case, "usrsctp", 4, 20)
    d = strip(rexmit.run(other))
    return {
        "case": "cmt-nrsack, 20 s, seed 3",
        "same_process_identical": a == b,
        "other_process_identical": a == c,
        "other_seed_differs": a != d,
    }


# --- tables ------------------------------------------------------------------------------------
def _mean(xs: Sequence[float | None]) -> float | None:
    v = [x for x in xs if x is not None]
    return statistics.mean(v) if v else None


def _ci(xs: Sequence[float | None]) -> float:
    v = [x for x in xs if x is not None]
    return ci95(v) if len(v) > 1 else 0.0


def _pm(xs: Sequence[float | None], scale: float = 1.0, fmt: str = "{:.1f}") -> str:
    """Mean ± 95% CI of the runs' values, divided by `scale`."""
    m = _mean(xs)
    if m is None:
        return "–"
    return f"{fmt.format(m / scale)} ± {fmt.format(_ci(xs) / scale)}"


def verdict(ours: Sequence[float | None], theirs: Sequence[float | None]) -> tuple[float, str]:
    """Goodput: `agree` within ±BAND, else `CIs overlap` when the 95% intervals meet, else
    `differs`."""
    a, b = _mean(ours) or 0.0, _mean(theirs) or 0.0
    rel = a / b - 1 if b else float("nan")
    if abs(rel) <= BAND:
        return rel, "agree"
    overlap = abs(a - b) <= _ci(ours) + _ci(theirs)
    return rel, "CIs overlap" if overlap else "differs"


def ns2_summary(stem: str | None) -> dict[str, list[float]] | None:
    if stem is None:
        return None
    p = RESULTS / f"{stem}.json"
    if not p.exists():
        return None
    runs = json.loads(p.read_text())["runs"]
    out = {
        k: [float(r[k]) for r in runs if r.get(k) is not None] for k in ("goodput_bps", "retransmissions", "timeouts")
    }
    # ns-2's fast retransmit count (frCount_) is not known to count chunks: left out of that column.
    return out


def col(runs: list[dict[str, Any]], k: str) -> list[float | None]:
    return [r.get(k) for r in runs]


# The table's quantities: (column, metric, scale, format).
QUANTITIES = [
    ("goodput (Mb/s)", "goodput_bps", 1e6, "{:.3f}"),
    ("retransmissions", "retransmissions", 1.0, "{:.1f}"),
    ("T3 timeouts", "timeouts", 1.0, "{:.1f}"),
    ("fast-retransmitted chunks", "fast_rtx_chunks", 1.0, "{:.1f}"),
    ("mean cwnd (KB)", "cwnd_mean", 1e3, "{:.1f}"),
    ("spurious (dup TSNs at receiver)", "dup_tsns_received", 1.0, "{:.1f}"),
]
ROWS = [
    ("rexmit, FreeBSD's choices", "rexmit"),
    ("usrsctp (FreeBSD)", "usrsctp"),
    ("rexmit, RFC 9260 defaults", "rexmit-defaults"),
]


def case_table(docs: list[dict[str, Any]]) -> list[str]:
    """One row per case and stack (ns-2 where it ran the same scenario), means ± 95% CI."""
    head = "| case | stack | " + " | ".join(q[0] for q in QUANTITIES) + " | vs usrsctp (goodput) |"
    lines = [head, "|" + "---|" * (len(QUANTITIES) + 3)]
    for d in docs:
        case = CASES[d["case"]]
        them = col(d["runs"]["usrsctp"], "goodput_bps")
        what = f"{d['what']} ({len(d['seeds'])} seeds)"
        for label, stack in ROWS:
            runs = d["runs"].get(stack)
            if not runs:
                continue
            cells = [_pm(col(runs, k), sc, fmt) for _, k, sc, fmt in QUANTITIES]
            rel, v = verdict(col(runs, "goodput_bps"), them)
            cmp = "" if stack == "usrsctp" else f"{rel:+.1%} {v}"
            lines.append(f"| {what} | {label} | " + " | ".join(cells) + f" | {cmp} |")
            what = ""
        ns2 = ns2_summary(case.ns2)
        if ns2:
            cells = [_pm(ns2[k], sc, fmt) if ns2.get(k) else "–" for _, k, sc, fmt in QUANTITIES]
            rel, v = verdict(ns2["goodput_bps"], them)
            lines.append(
                f"| | ns-2.35 ({len(ns2['goodput_bps'])} seeds, saved) | " + " | ".join(cells) + f" | {rel:+.1%} {v} |"
            )
    return lines


def goodput_table(docs: list[dict[str, Any]]) -> list[str]:
    """Goodput only, one row per case (the table of docs/validation_freebsd.md)."""
    lines = [
        "| case | usrsctp | rexmit, FreeBSD's choices | rexmit, RFC 9260 defaults | ns-2.35 |",
        "|---|---|---|---|---|",
    ]
    for d in docs:
        them = col(d["runs"]["usrsctp"], "goodput_bps")
        cells = []
        for stack in ("rexmit", "rexmit-defaults"):
            ours = col(d["runs"][stack], "goodput_bps")
            rel, v = verdict(ours, them)
            cells.append(f"{(_mean(ours) or 0.0) / 1e6:.2f} ({rel:+.1%}, {v})")
        ns2 = ns2_summary(CASES[d["case"]].ns2)
        n2 = f"{statistics.mean(ns2['goodput_bps']) / 1e6:.2f}" if ns2 and ns2["goodput_bps"] else "–"
        lines.append(f"| {d['what']} | {(_mean(them) or 0.0) / 1e6:.2f} | {cells[0]} | {cells[1]} | {n2} |")
    return lines


def summary(docs: list[dict[str, Any]]) -> dict[str, Any]:
    """Verdict counts for the headline (rexmit with FreeBSD's choices and with its defaults)."""
    out: dict[str, Any] = {}
    for stack in ("rexmit", "rexmit-defaults"):
        rels = []
        counts: dict[str, int] = {}
        for d in docs:
            rel, v = verdict(col(d["runs"][stack], "goodput_bps"), col(d["runs"]["usrsctp"], "goodput_bps"))
            rels.append(rel)
            counts[v] = counts.get(v, 0) + 1
        out[stack] = {"verdicts": counts, "mean_rel": statistics.mean(rels) if rels else None}
    return out


def table(out: Path) -> None:
    docs = [json.loads(saved(c).read_text()) for c in CASES if saved(c).exists()]
    pins = ", ".join(f"{k} = {json.dumps(v)}" for k, v in FREEBSD_PINS.items())
    cmt_pins = ", ".join(f"{k} = {json.dumps(v)}" for k, v in FREEBSD_CMT_PINS.items())
    sm = summary(docs)
    lines = [
        "# rexmit against FreeBSD's SCTP (generated by `validation/usrsctp.py table`)",
        "",
        "Explanations: [validation_freebsd.md](validation_freebsd.md). Both stacks run in rexmit's simulator on the same",
        "network (seed 000's Fig. 5 dumbbell, 100 Mb/s, RTT 60 ms, queues of 833 packets, loss on the bottleneck's data",
        "direction; CMT: Fig. 6's two such paths, path 2 at 0.1% loss), the same `sctp` table (4 MiB receive buffer,",
        "RTO initial 3 s, min 1 s, max 60 s), an unordered bulk source.",
        f'"rexmit, FreeBSD\'s choices": {pins}; CMT also {cmt_pins}. "RFC 9260 defaults": none of these.',
        f"Means over seeds ± 95% CI. Verdict on goodput: `agree` = within ±{BAND:.0%} of usrsctp; `CIs overlap`; `differs`.",
        "T3 timeouts count every expiry (FreeBSD's rule may expire and mark nothing). Fast-retransmitted chunks: DATA chunks",
        "(rexmit's `rtx_fast`, FreeBSD's sctps_sendfastretrans; ns-2's count is left out). Mean cwnd: the primary path's, sampled",
        f"every {CWND_EVERY}; cwnd counts chunk bytes (+16 per DATA chunk) in FreeBSD and in rexmit with its choices, payload bytes with RFC 9260 defaults. ns-2: the saved peer runs",
        "of the same scenario (`make validate`), where there is one; its initial ssthresh is 64 KiB, not the peer's a_rwnd.",
        "",
    ]
    for stack, name in (("rexmit", "FreeBSD's choices"), ("rexmit-defaults", "RFC 9260 defaults")):
        v = sm[stack]
        lines.append(
            f"rexmit with {name}: "
            + ", ".join(f"{n} {k}" for k, n in sorted(v["verdicts"].items()))
            + f" of {len(docs)} cases; mean goodput difference {v['mean_rel']:+.1%}."
        )
    lines.append("")
    lines += goodput_table(docs)
    lines += ["", "## Every quantity", ""]
    lines += case_table(docs)
    rp = RESULTS / "usrsctp_repro.json"
    if rp.exists():
        r = json.loads(rp.read_text())
        lines += [
            "",
            "## Reproducibility",
            "",
            f"usrsctp, {r['case']}: two runs in one process identical: {r['same_process_identical']}; a run in another process identical: {r['other_process_identical']}; another seed differs: {r['other_seed_differs']}.",
        ]
    out.write_text("\n".join(lines) + "\n")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--seeds", type=int, default=10)
    r.add_argument("--duration", type=float, default=60.0)
    r.add_argument("--only", default=None, help="run the cases whose name contains this")
    sub.add_parser("repro")
    t = sub.add_parser("table")
    t.add_argument("--out", default=str(ROOT / "docs" / "validation_usrsctp.md"))
    ns = ap.parse_args(argv)
    RESULTS.mkdir(exist_ok=True)
    if ns.cmd == "run":
        for case in CASES.values():
            if ns.only and ns.only not in case.name:
                continue
            doc = run_case(case, list(range(1, ns.seeds + 1)), ns.duration)
            saved(case.name).write_text(json.dumps(doc, indent=1) + "\n")
            g = lambda st, doc=doc: _mean(col(doc["runs"][st], "goodput_bps")) or 0.0  # noqa: E731
            print(
                f"{case.name:<20} rexmit {g('rexmit') / 1e6:6.3f}  usrsctp {g('usrsctp') / 1e6:6.3f}  rexmit defaults {g('rexmit-defaults') / 1e6:6.3f} Mb/s",
                file=sys.stderr,
            )
    elif ns.cmd == "repro":
        res = repro()
        saved("repro").write_text(json.dumps(res, indent=1) + "\n")
        print(json.dumps(res))
    else:
        table(Path(ns.out))
        print(f"wrote {ns.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
