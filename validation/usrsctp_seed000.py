#!/usr/bin/env python3
"""Seed 000's topologies at the paper's loads with FreeBSD's SCTP (usrsctp) as a third column
(issue 39): the nr-sack recipe's scenarios (cross traffic calibrated to §IV.A's loads, start
times drawn per replication, measured after the warm-up; python/rexmit/recipes/seed000_setup.py)
run by three stacks on the same network:

- ``rexmit``: the reproduction's own association (docs/reproductions.md, seed 000);
- ``rexmit-freebsd``: the same with FreeBSD's choices (validation/usrsctp.py's pins: cwnd in
  chunk bytes, L = 2, FreeBSD's T3-rtx rules and RTT estimator, heartbeats jittered, CMT
  retransmissions to the largest cwnd);
- ``usrsctp``: FreeBSD's SCTP itself (``stack = "usrsctp"``) with those same settings, which it
  has built in.

The paper's (ns-2) claims on goodput are the reproduction's claims 12-17 (Fig. 14): whether
each holds is evaluated here for every stack. The rtxq-based metrics (RtxQ_Util, send-buffer
blocking) read rexmit's retransmission queue and are not available from usrsctp
(docs/usrsctp.md); the mean number of chunks awaiting acknowledgement is (usrsctp's
``sstat_unackdata``, rexmit's rtxq in chunks).

    python validation/usrsctp_seed000.py run [--reps 3] [--only cmt|sctp] [--stacks a,b] [--loads a,b] [--fresh]
    python validation/usrsctp_seed000.py table     # docs/validation_usrsctp_seed000.md

Results: validation/results/usrsctp_seed000.json (every run, written as it goes).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import rexmit
from rexmit.recipes import seed000_setup as setup

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RESULTS = HERE / "results" / "usrsctp_seed000.json"
sys.path.insert(0, str(HERE))
from compare import ci95  # noqa: E402
from usrsctp import FREEBSD_CMT_PINS, FREEBSD_PINS  # noqa: E402

STACKS = ("rexmit", "rexmit-freebsd", "usrsctp")
LOADS = tuple(setup.LOADS)
CMT_BUFFERS = {"128K": "128KiB", "256K": "256KiB", "INF": "1GiB"}
SCTP_BUFFERS = {"INF": "1GiB"}
ACKS = ("SACK", "NR-SACK")


def sctp_settings(app: dict[str, Any], stack: str) -> dict[str, Any]:
    """The recipe's association, with FreeBSD's choices for the two FreeBSD columns."""
    app = json.loads(json.dumps(app))
    if stack == "rexmit":
        return app
    sctp = app["sctp"]
    sctp.update({k: v for k, v in FREEBSD_PINS.items() if k != "rto"})
    sctp["rto"] = {**sctp.get("rto", {}), **FREEBSD_PINS["rto"]}
    sctp["hb_jitter"] = True  # FreeBSD jitters heartbeats (the recipe follows ns-2: off)
    if "cmt" in sctp:
        sctp["cmt"] = {**sctp["cmt"], **FREEBSD_CMT_PINS}
    if stack == "usrsctp":
        app["stack"] = "usrsctp"
    return app


def build(kind: str, load: str, buffer: str, ack: str, stack: str, seed: int) -> dict[str, Any]:
    timing = setup.Timing()
    if kind == "cmt":
        topo, cross = setup.topology2(setup.LOADS[load], setup.LOADS["low"])
        size = CMT_BUFFERS[buffer]
    else:
        topo, cross = setup.topology1(setup.LOADS[load])
        size = SCTP_BUFFERS[buffer]
    app = sctp_settings(setup.sctp_app(size, ack == "NR-SACK", kind == "cmt"), stack)
    series = ("unacked_chunks",) if stack == "usrsctp" else ("rtxq_bytes",)
    data = setup.scenario(f"seed 000 {kind} {load} {buffer} {ack} ({stack})", topo, [app, *cross], timing, series)
    return setup.draw_starts(data, seed, timing)


def run_one(kind: str, load: str, buffer: str, ack: str, stack: str, seed: int) -> dict[str, Any]:
    t0 = time.perf_counter()
    data = build(kind, load, buffer, ack, stack, seed)
    r = rexmit.run(rexmit.Scenario.from_dict(data))
    f = r.flow(setup.SCTP_APP)
    warm = setup.Timing().warmup_s
    start = int(data["apps"][0]["warmup"].removesuffix("ns"))  # series times are in ns
    if stack == "usrsctp":
        t, v = r.series[f"{setup.SCTP_APP}:unacked_chunks"]
        chunks = [x for ti, x in zip(t, v, strict=True) if ti >= start and x == x]
    else:
        t, v = r.series[f"{setup.SCTP_APP}:rtxq_bytes"]
        chunks = [x / setup.MESSAGE_SIZE for ti, x in zip(t, v, strict=True) if ti >= start and x == x]
    return {
        "kind": kind,
        "load": load,
        "buffer": buffer,
        "ack": ack,
        "stack": stack,
        "seed": seed,
        "goodput_bps": f.get("goodput_bps"),
        "timeouts": f.get("timeouts"),
        "retransmissions": f.get("retransmissions"),
        "dup_tsns_received": f.get("dup_tsns_received"),
        "unacked_chunks_mean": sum(chunks) / len(chunks) if chunks else None,
        "warmup_s": warm,
        "wall_s": time.perf_counter() - t0,
    }


def points(only: str | None, loads: tuple[str, ...] = LOADS) -> list[tuple[str, str, str, str]]:
    out = []
    if only in (None, "sctp"):
        out += [("sctp", load, b, ack) for load in loads for b in SCTP_BUFFERS for ack in ACKS]
    if only in (None, "cmt"):
        out += [("cmt", load, b, ack) for load in loads for b in CMT_BUFFERS for ack in ACKS]
    return out


def key(r: dict[str, Any]) -> tuple[Any, ...]:
    return (r["kind"], r["load"], r["buffer"], r["ack"], r["stack"], r["seed"])


def run(
    reps: int, only: str | None, fresh: bool, stacks: tuple[str, ...] = STACKS, loads: tuple[str, ...] = LOADS
) -> None:
    done: list[dict[str, Any]] = json.loads(RESULTS.read_text()) if RESULTS.exists() and not fresh else []
    have = {key(r) for r in done}
    for kind, load, buffer, ack in points(only, loads):
        for seed in range(1, reps + 1):
            for stack in stacks:
                if (kind, load, buffer, ack, stack, seed) in have:
                    continue
                r = run_one(kind, load, buffer, ack, stack, seed)
                done.append(r)
                RESULTS.write_text(json.dumps(done, indent=1) + "\n")
                print(
                    f"{kind} {load:6} {buffer:4} {ack:7} {stack:14} seed {seed}: "
                    f"{r['goodput_bps'] / 1e6:6.2f} Mb/s, {r['timeouts']:.0f} timeouts, {r['wall_s']:.1f} s",
                    flush=True,
                )


# --- the table ---------------------------------------------------------------------------------
def _cell(rs: list[dict[str, Any]], m: str, scale: float = 1.0, fmt: str = "{:.2f}") -> str:
    xs = [r[m] * scale for r in rs if r.get(m) is not None]
    if not xs:
        return "–"
    mean = sum(xs) / len(xs)
    return (fmt + " ± " + fmt).format(mean, ci95(xs))


def _mean(rs: list[dict[str, Any]], m: str) -> float:
    xs = [r[m] for r in rs if r.get(m) is not None]
    return sum(xs) / len(xs) if xs else float("nan")


def _groups(runs: list[dict[str, Any]]) -> dict[tuple[str, ...], list[dict[str, Any]]]:
    g: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for r in runs:
        g.setdefault((r["kind"], r["load"], r["buffer"], r["ack"], r["stack"]), []).append(r)
    return g


def claims(g: dict[tuple[str, ...], list[dict[str, Any]]]) -> list[str]:
    """The reproduction's goodput claims (Fig. 14), evaluated per stack on these runs' means."""

    def runs(kind: str, load: str, buf: str, ack: str, stack: str) -> list[float]:
        return [r["goodput_bps"] / 1e6 for r in g.get((kind, load, buf, ack, stack), [])]

    def gp(kind: str, load: str, buf: str, ack: str, stack: str) -> float:
        xs = runs(kind, load, buf, ack, stack)
        return sum(xs) / len(xs) if xs else float("nan")

    def overlap(a: list[float], b: list[float]) -> bool:
        ma, mb = sum(a) / len(a), sum(b) / len(b)
        return abs(ma - mb) <= ci95(a) + ci95(b)

    # The reproduction's criteria (nr_sack_claims.py): "alike" = within 5% or the 95% CIs
    # overlap; "not below" = not lower beyond 5% or beyond the CIs.
    def alike_at(kind: str, load: str, buf: str, s: str) -> bool:
        a, b = runs(kind, load, buf, "SACK", s), runs(kind, load, buf, "NR-SACK", s)
        return abs(gp(kind, load, buf, "SACK", s) - gp(kind, load, buf, "NR-SACK", s)) <= 0.05 * max(
            gp(kind, load, buf, "SACK", s), gp(kind, load, buf, "NR-SACK", s)
        ) or overlap(a, b)

    def not_below(lo: tuple[str, str], hi: tuple[str, str], load: str, s: str) -> bool:
        a, b = runs("cmt", load, lo[0], lo[1], s), runs("cmt", load, hi[0], hi[1], s)
        return gp("cmt", load, *lo, s) >= 0.95 * gp("cmt", load, *hi, s) or overlap(a, b)

    out = ["| claim (docs/reproductions.md, seed 000) | " + " | ".join(STACKS) + " |", "|---|" + "---|" * len(STACKS)]
    rows: list[tuple[str, Any]] = [
        (
            "14: CMT 128K/256K: NR-SACK's goodput beats SACK's at every load (gain at low / heavy)",
            lambda s: (
                all(
                    gp("cmt", ld, b, "NR-SACK", s) > gp("cmt", ld, b, "SACK", s)
                    for ld in LOADS
                    for b in ("128K", "256K")
                ),
                ", ".join(
                    f"{b} {100 * (gp('cmt', ld, b, 'NR-SACK', s) / gp('cmt', ld, b, 'SACK', s) - 1):+.0f}%"
                    for b in ("128K", "256K")
                    for ld in ("low", "heavy")
                ),
            ),
        ),
        (
            "13: CMT INF: SACK and NR-SACK goodput alike (within 5% or the CIs) at every load",
            lambda s: (
                all(alike_at("cmt", ld, "INF", s) for ld in LOADS),
                "",
            ),
        ),
        (
            "12: SCTP INF: SACK and NR-SACK goodput alike (within 5% or the CIs) at every load",
            lambda s: (
                all(alike_at("sctp", ld, "INF", s) for ld in LOADS),
                "",
            ),
        ),
        (
            "16: CMT-NR-SACK 128K not below CMT-SACK 256K (beyond 5% or the CIs) at mild, medium, heavy",
            lambda s: (
                all(not_below(("128K", "NR-SACK"), ("256K", "SACK"), ld, s) for ld in ("mild", "medium", "heavy")),
                ", ".join(
                    f"{gp('cmt', ld, '128K', 'NR-SACK', s):.1f} vs {gp('cmt', ld, '256K', 'SACK', s):.1f}"
                    for ld in ("mild", "medium", "heavy")
                ),
            ),
        ),
        (
            "17: CMT-NR-SACK 256K not below CMT-SACK INF (beyond 5% or the CIs) at mild, medium, heavy",
            lambda s: (
                all(not_below(("256K", "NR-SACK"), ("INF", "SACK"), ld, s) for ld in ("mild", "medium", "heavy")),
                ", ".join(
                    f"{gp('cmt', ld, '256K', 'NR-SACK', s):.1f} vs {gp('cmt', ld, 'INF', 'SACK', s):.1f}"
                    for ld in ("mild", "medium", "heavy")
                ),
            ),
        ),
    ]
    for name, f in rows:
        cells = []
        for s in STACKS:
            ok, detail = f(s)
            cells.append(("holds" if ok else "**does not hold**") + (f" ({detail})" if detail else ""))
        out.append(f"| {name} | " + " | ".join(cells) + " |")
    return out


def agreement(g: dict[tuple[str, ...], list[dict[str, Any]]]) -> list[str]:
    """Goodput of each rexmit column against usrsctp's, per topology: the mean and range of the
    relative differences of the points' means, how many within 5%, how many with the 95% CIs
    overlapping."""
    out = [
        "| topology | column | points | mean difference | range | within 5% | CIs overlapping |",
        "|---|---|---|---|---|---|---|",
    ]
    for kind in ("sctp", "cmt"):
        for s in STACKS[:-1]:
            diffs, near, overlap = [], 0, 0
            for _, load, buffer, ack in (p for p in points(None) if p[0] == kind):
                a = [r["goodput_bps"] / 1e6 for r in g.get((kind, load, buffer, ack, s), [])]
                b = [r["goodput_bps"] / 1e6 for r in g.get((kind, load, buffer, ack, "usrsctp"), [])]
                if len(a) < 2 or len(b) < 2:
                    continue
                ma, mb = sum(a) / len(a), sum(b) / len(b)
                diffs.append(ma / mb - 1)
                near += abs(ma / mb - 1) <= 0.05
                overlap += abs(ma - mb) <= ci95(a) + ci95(b)
            if diffs:
                out.append(
                    f"| {'CMT (Fig. 6)' if kind == 'cmt' else 'SCTP (Fig. 5)'} | {s} | {len(diffs)} |"
                    f" {100 * sum(diffs) / len(diffs):+.1f}% | {100 * min(diffs):+.1f}% … {100 * max(diffs):+.1f}% |"
                    f" {near} | {overlap} |"
                )
    return out


def table(out: Path) -> None:
    runs = json.loads(RESULTS.read_text())
    g = _groups(runs)
    counts = sorted({len(v) for v in g.values()})
    reps = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]} to {counts[-1]} (column `n`)"
    lines = [
        "# Seed 000's topologies with FreeBSD's SCTP as a third column (generated by `validation/usrsctp_seed000.py table`)",
        "",
        "Explanations: [validation_freebsd_seed000.md](validation_freebsd_seed000.md). The nr-sack recipe's scenarios (cross traffic at",
        "§IV.A's four loads, start times drawn per replication, measured from 20 s after the association starts to 70 s),",
        f"{reps} replications per point (replication r has the same start times in every column). Columns: `rexmit` is the",
        "reproduction's association; `rexmit-freebsd` the same with FreeBSD's choices (validation/usrsctp.py's pins, heartbeats",
        "jittered); `usrsctp` is FreeBSD's SCTP with those settings. Goodput in Mb/s, mean ± 95% CI; timeouts per run; spurious:",
        "duplicate TSNs at the receiver; unacked: mean chunks awaiting acknowledgement (rexmit's rtxq / 1452 B, usrsctp's",
        "`sstat_unackdata`, FreeBSD's sent-queue count, which keeps NR-acked chunks until the cumulative ack passes them:",
        "comparable for SACK only). Path 2 of CMT stays at low load.",
        "",
        "## The paper's goodput claims, per stack",
        "",
        *claims(g),
        "",
        "## Goodput against usrsctp's",
        "",
        *agreement(g),
        "",
        "## Every point",
        "",
        "| topology | load | buffer | ack | stack | n | goodput | timeouts | retransmissions | spurious | unacked |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for kind, load, buffer, ack in points(None):
        for s in STACKS:
            rs = g.get((kind, load, buffer, ack, s), [])
            if not rs:
                continue
            lines.append(
                f"| {'CMT (Fig. 6)' if kind == 'cmt' else 'SCTP (Fig. 5)'} | {load} | {buffer} | {ack} | {s} | {len(rs)} | "
                f"{_cell(rs, 'goodput_bps', 1e-6)} | {_cell(rs, 'timeouts', fmt='{:.1f}')} | "
                f"{_cell(rs, 'retransmissions', fmt='{:.0f}')} | {_cell(rs, 'dup_tsns_received', fmt='{:.1f}')} | "
                f"{_cell(rs, 'unacked_chunks_mean', fmt='{:.0f}')} |"
            )
    out.write_text("\n".join(lines) + "\n")
    print(f"wrote {out}")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--reps", type=int, default=3)
    r.add_argument("--only", choices=("cmt", "sctp"), default=None)
    r.add_argument("--fresh", action="store_true", help="start over (default: keep the runs already saved)")
    r.add_argument("--stacks", default=",".join(STACKS), help="run only these columns (comma-separated)")
    r.add_argument("--loads", default=",".join(LOADS), help="run only these loads (comma-separated)")
    t = sub.add_parser("table")
    t.add_argument("--out", default=str(ROOT / "docs" / "validation_usrsctp_seed000.md"))
    a = ap.parse_args(argv)
    if a.cmd == "run":
        stacks, loads = tuple(a.stacks.split(",")), tuple(a.loads.split(","))
        for name, given, known in (("stacks", stacks, STACKS), ("loads", loads, LOADS)):
            if unknown := set(given) - set(known):
                ap.error(f"--{name}: unknown {sorted(unknown)}; known {', '.join(known)}")
        run(a.reps, a.only, a.fresh, stacks, loads)
    else:
        table(Path(a.out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
