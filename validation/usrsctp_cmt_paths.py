#!/usr/bin/env python3
"""Where CMT's goodput goes at seed 000's heavy load, per path and in the send buffer, in both
FreeBSD stacks (issue 39, docs/validation_freebsd_seed000.md).

Runs usrsctp_seed000.py's CMT point (Fig. 6's dual dumbbell, path 1 at the load, path 2 at low
load) for each replication given, with rexmit (FreeBSD's choices, ``--set`` overriding any) and
with usrsctp, pcaps at S and R, and reads both stacks the same way, from the wire, over the
measured interval (from the warm-up's end to the end of the run):

- per path (S's source address; path 1 is S's first address): DATA chunks sent, of them
  retransmissions, and those whose previous copy had left on the other path; chunks lost on
  the path (sent on it, never arriving at R over it); retransmissions sent again within 50 ms
  of the previous retransmission of the same TSN (less than path 2's round trip: no SACK
  could have shown that copy lost); the SACKs that reached S over the path;
- the send buffer as the wire shows it: the chunks S has sent and not yet seen freed, a chunk
  being freed by the cumulative ack or, with NR-SACK, by an nr-gap block (FreeBSD frees
  NR-acked chunks' buffer space, ``sctp_process_segment_range``; rexmit drops them from its
  rtxq): the time-weighted mean in chunks, and the share of the interval with the buffer full
  (held chunks · 1 452 B above the buffer less one message: no room for the next message, the
  sender blocked on its buffer);
- of that holding, the part held by chunks that were retransmitted (chunk-seconds from the
  first transmission to the ack that freed it, per run, over the interval's length: the mean
  number of buffer slots held by lost chunks) and how long one such chunk was held (mean);
- the handshake's INITs (FreeBSD's T1-init expiry makes the alternate address the primary
  when there is one, ``sctp_t1init_timer``: the primary is the source of the last INIT);
- with ``--trace``, each path's cwnd: rexmit's from its trace (``[[metrics.trace]]``: mean,
  cuts, and the cuts that came with the fast retransmission of a chunk a T3-rtx expiry had
  resent, which FreeBSD's CMT never makes: ``cmt.no_fr_after_t3``), usrsctp's primary path's
  from ``cwnd_primary`` every 1 ms.

    python validation/usrsctp_cmt_paths.py 1-10 --trace       # CMT heavy 256K NR-SACK
    python validation/usrsctp_cmt_paths.py 1-10 --trace --set cmt.no_fr_after_t3=false
    python validation/usrsctp_cmt_paths.py 1-20 --brief       # goodput per run and the means
"""

from __future__ import annotations

import argparse
import collections
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import rexmit

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import usrsctp_seed000  # noqa: E402
from compare import ci95  # noqa: E402
from usrsctp_dups import after, sctp_chunks  # noqa: E402

CHUNK = usrsctp_seed000.setup.MESSAGE_SIZE
MTU = 1500
# A retransmission resent again within this: less than path 2's round trip (about 90 ms at
# low load), so no SACK could have reported the earlier retransmission lost.
AGAIN_NS = 50_000_000
BUFFERS = {"128K": 128 * 1024, "256K": 256 * 1024}


def ip_key(a: str) -> tuple[int, ...]:
    return tuple(int(x) for x in a.split("."))


def wire_view(out: Path, start_ns: int, stop_ns: int, buffer: int) -> dict[str, Any]:
    s_pcap, r_pcap = out / "pcap" / "node_S.pcap", out / "pcap" / "node_R.pcap"
    events: list[tuple[int, str, tuple[Any, ...]]] = []
    inits: list[tuple[float, str]] = []
    s_addrs: set[str] = set()
    for t, src, dst, chunks in sctp_chunks(s_pcap, others=True, split_nr=True):
        for c in chunks:
            if c[0] == "DATA":
                s_addrs.add(src)
                events.append((t, "DATA", (c[1], src)))
            elif c[0] == "SACK":
                events.append((t, "SACK", (*c, dst)))
            elif c[0] == "INIT":
                inits.append((t / 1e9, f"{src}->{dst}"))
    paths = {a: i + 1 for i, a in enumerate(sorted(s_addrs, key=ip_key))}
    sender = set(s_addrs)
    # DATA arrivals at R per (TSN, path of the copy).
    arrived: collections.Counter[tuple[int, int]] = collections.Counter()
    for t, src, _, chunks in sctp_chunks(r_pcap):
        if src not in sender or not start_ns <= t < stop_ns:
            continue
        for c in chunks:
            if c[0] == "DATA":
                arrived[(c[1], paths[src])] += 1
    sent: collections.Counter[tuple[int, int]] = collections.Counter()
    per: dict[int, collections.Counter[str]] = {p: collections.Counter() for p in paths.values()}
    last_path: dict[int, int] = {}
    first_sent: dict[int, int] = {}
    last_rtx: dict[int, int] = {}
    rtx_tsns: set[int] = set()
    held: set[int] = set()
    cum: int | None = None
    freed: dict[int, int] = {}
    t_prev, area, full_ns = start_ns, 0.0, 0

    def account(t: int) -> None:
        nonlocal t_prev, area, full_ns
        lo, hi = max(t_prev, start_ns), min(t, stop_ns)
        if hi > lo:
            area += len(held) * (hi - lo)
            if (len(held) + 1) * CHUNK > buffer:
                full_ns += hi - lo
        t_prev = max(t_prev, t)

    def free(tsn: int, t: int) -> None:
        held.discard(tsn)
        freed[tsn] = t

    for t, kind, c in events:
        account(t)
        if kind == "DATA":
            tsn, src = c
            p = paths[src]
            if start_ns <= t < stop_ns:
                sent[(tsn, p)] += 1
                per[p]["sent"] += 1
                if tsn in last_path:
                    per[p]["rtx"] += 1
                    if last_path[tsn] != p:
                        per[p]["rtx_from_other_path"] += 1
                    if tsn in last_rtx and t - last_rtx[tsn] < AGAIN_NS:
                        per[p]["rtx_again_soon"] += 1
            if tsn in last_path:
                rtx_tsns.add(tsn)
                last_rtx[tsn] = t
            else:
                first_sent[tsn] = t
                if cum is None or after(tsn, cum):
                    held.add(tsn)
            last_path[tsn] = p
        else:
            _, new_cum, _gaps, nrs, to = c
            if start_ns <= t < stop_ns and to in paths:
                per[paths[to]]["sacks"] += 1
            if cum is None or after(new_cum, cum):
                for x in [x for x in held if not after(x, new_cum)]:
                    free(x, t)
                cum = new_cum
            for lo, hi in nrs:
                for off in range(lo, hi + 1):
                    x = (cum + off) % 2**32
                    if x in held:
                        free(x, t)
    account(stop_ns)
    span = stop_ns - start_ns
    # Buffer slots held by chunks that were retransmitted: from the first transmission to the
    # ack that freed the chunk (or the end), within the interval.
    lost_area, held_times = 0.0, []
    for tsn in rtx_tsns:
        t0, t1 = first_sent[tsn], freed.get(tsn, stop_ns)
        lost_area += max(0, min(t1, stop_ns) - max(t0, start_ns))
        if t0 >= start_ns:
            held_times.append((t1 - t0) / 1e9)
    for p in per:
        per[p]["lost"] = sum(max(0, n - arrived[k]) for k, n in sent.items() if k[1] == p)
    return {
        "paths": {p: dict(v) for p, v in per.items()},
        "held_mean": area / span,
        "full_share": full_ns / span,
        "held_by_rtx_mean": lost_area / span,
        "rtx_held_s": statistics.mean(held_times) if held_times else 0.0,
        "inits": inits,
        "addrs": {a: p for a, p in paths.items()},
    }


def cwnd_changes(rows: list[tuple[int, float]], start_ns: int, stop_ns: int) -> dict[str, Any]:
    """Time-weighted mean (MTUs) over the interval and the decreases in it of one path's cwnd,
    given as (time, cwnd) at each change or sample."""
    area, cuts, ones = 0.0, [], 0
    for (t0, c0), (t1, c1) in zip(rows, [*rows[1:], (stop_ns, rows[-1][1])], strict=True):
        lo, hi = max(t0, start_ns), min(t1, stop_ns)
        if hi > lo:
            area += c0 * (hi - lo)
        if start_ns <= t1 < stop_ns and c1 < c0:
            if c1 <= 1.01 * MTU:
                ones += 1
            else:
                cuts.append((t1, c0, c1))
    return {"mean": area / (stop_ns - start_ns) / MTU, "fr_cuts": len(cuts), "to_one": ones, "cuts": cuts}


def trace_view(out: Path, start_ns: int, stop_ns: int) -> dict[str, Any]:
    """rexmit's own record (`[[metrics.trace]]`): each path's cwnd, its decreases, and those
    that came with the fast retransmission of a chunk a T3-rtx expiry had already retransmitted
    (FreeBSD's CMT never fast-retransmits such a chunk: sctp_mark_all_for_resend sets
    `no_fr_allowed`)."""
    import pyarrow.parquet as pq

    st = pq.read_table(out / "trace_state.parquet").to_pydict()
    se = pq.read_table(out / "trace_sent.parquet").to_pydict()
    timeout, fast = 2, 1  # trace_sent.cause
    t3_sent: dict[int, int] = {}
    fr_after_t3: list[tuple[int, int]] = []  # (time, path) of such fast retransmissions
    causes: collections.Counter[tuple[int, int]] = collections.Counter()
    for t, tsn, cause, p in zip(se["t_ns"], se["start"], se["cause"], se["path"], strict=True):
        if start_ns <= t < stop_ns:
            causes[(p + 1, cause)] += 1
        if cause == timeout:
            t3_sent.setdefault(tsn, t)
        elif cause == fast and tsn in t3_sent and start_ns <= t < stop_ns:
            fr_after_t3.append((t, p + 1))
    rows: dict[int, list[tuple[int, float]]] = collections.defaultdict(list)
    t3s: dict[int, int] = {}
    for t, p, c, n in zip(st["t_ns"], st["path"], st["cwnd"], st["timeouts"], strict=True):
        rows[p + 1].append((t, float(c)))
        t3s[p + 1] = n if t < stop_ns else t3s.get(p + 1, 0)
    paths = {}
    for p, r in sorted(rows.items()):
        v = cwnd_changes(r, start_ns, stop_ns)
        frs = {t for t, q in fr_after_t3 if q == p}
        v["cuts_at_fr_after_t3"] = sum(1 for t, _, _ in v.pop("cuts") if t in frs)
        v["fr_after_t3"] = sum(1 for _, q in fr_after_t3 if q == p)
        v["rtx_fast"] = causes[(p, fast)]
        v["rtx_timeout"] = causes[(p, timeout)]
        paths[p] = v
    return paths


def merge(into: dict[str, Any], over: dict[str, Any]) -> None:
    """``over``'s values into ``into``, tables key by key (``cmt.x`` leaves ``cmt``'s others)."""
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(into.get(k), dict):
            merge(into[k], v)
        else:
            into[k] = v


def run(
    stack: str, seed: int, load: str, buffer: str, ack: str, overrides: dict[str, Any], trace: bool
) -> dict[str, Any]:
    data = usrsctp_seed000.build("cmt", load, buffer, ack, stack, seed)
    app = usrsctp_seed000.setup.SCTP_APP
    if stack != "usrsctp":
        merge(data["apps"][0]["sctp"], overrides)
        if trace:
            data.setdefault("metrics", {})["trace"] = [{"flow": app}]
    elif trace:
        data["metrics"] = {"timeseries": [{"kind": "app", "app": app, "value": "cwnd_primary", "interval": "1ms"}]}
    s = rexmit.Scenario.from_dict(data)
    for node in ("S", "R"):
        s.pcap(node=node)
    start = int(data["apps"][0]["warmup"].removesuffix("ns"))
    stop = int(usrsctp_seed000.setup.Timing().stop_s * 1e9)
    with tempfile.TemporaryDirectory() as tmp:
        r = rexmit.run(s, out_dir=tmp)
        w = wire_view(Path(tmp), start, stop, BUFFERS.get(buffer, 2**62))
        if trace and stack != "usrsctp":
            w["cwnd"] = trace_view(Path(tmp), start, stop)
    f = r.flow(app)
    w["goodput"] = f["goodput_bps"] / 1e6
    if trace and stack == "usrsctp":
        # SCTP_STATUS reports the primary path's cwnd only: the source address of the last INIT.
        last = w["inits"][-1][1].split("->")[0] if w["inits"] else None
        primary = w["addrs"].get(last, 1)
        t, v = r.series[f"{app}:cwnd_primary"]
        pts = [(ti, x) for ti, x in zip(t, v, strict=True) if x == x]
        c = cwnd_changes(pts, start, stop)
        c.pop("cuts")
        w["cwnd"] = {primary: c}
    return w


def line(stack: str, seed: int, w: dict[str, Any]) -> str:
    ps = "; ".join(
        f"path {p}: sent {v.get('sent', 0)}, lost {v.get('lost', 0)}, rtx {v.get('rtx', 0)}"
        f" (previous copy on the other path {v.get('rtx_from_other_path', 0)}, within 50 ms of the"
        f" previous retransmission {v.get('rtx_again_soon', 0)}), SACKs received {v.get('sacks', 0)}"
        for p, v in sorted(w["paths"].items())
    )
    cw = "; ".join(
        f"path {p}{' (primary)' if 'fr_after_t3' not in v else ''}: mean cwnd {v['mean']:.1f} MTU, cuts"
        f" {v['fr_cuts']} + {v['to_one']} to one MTU"
        + (
            f", fast rtx {v['rtx_fast']}, T3 rtx {v['rtx_timeout']}; fast rtx of a T3-retransmitted chunk"
            f" {v['fr_after_t3']}, cuts with them {v['cuts_at_fr_after_t3']}"
            if "fr_after_t3" in v
            else ""
        )
        for p, v in sorted(w.get("cwnd", {}).items())
    )
    first = w["inits"][-1][1] if w["inits"] else "?"
    return (
        f"{stack:14} rep {seed:2}: {w['goodput']:.2f} Mb/s; held {w['held_mean']:.0f} chunks, full"
        f" {100 * w['full_share']:.0f}% of the time, by retransmitted chunks {w['held_by_rtx_mean']:.1f}"
        f" (each {w['rtx_held_s']:.2f} s); INITs {len(w['inits'])} (last {first})\n    {ps}"
        + (f"\n    {cw}" if cw else "")
    )


def seeds(specs: list[str]) -> list[int]:
    out: list[int] = []
    for x in specs:
        lo, _, hi = x.partition("-")
        out += list(range(int(lo), int(hi or lo) + 1))
    return out


def summary(stack: str, ws: list[dict[str, Any]]) -> str:
    g = [w["goodput"] for w in ws]
    ci = ci95(g) if len(g) > 1 else 0.0

    def m(key: str) -> float:
        return statistics.mean(w[key] for w in ws)

    def mp(p: int, key: str) -> float:
        return statistics.mean(w["paths"].get(p, {}).get(key, 0) for w in ws)

    out = (
        f"{stack:14} mean of {len(ws)}: {statistics.mean(g):.2f} ± {ci:.2f} Mb/s; held {m('held_mean'):.0f}"
        f" chunks, full {100 * m('full_share'):.0f}%, by retransmitted chunks {m('held_by_rtx_mean'):.1f}"
        f" (each {m('rtx_held_s'):.2f} s); "
        + "; ".join(
            f"path {p}: sent {mp(p, 'sent'):.0f}, lost {mp(p, 'lost'):.0f}, rtx {mp(p, 'rtx'):.0f}"
            f" (other path {mp(p, 'rtx_from_other_path'):.0f}, again within 50 ms {mp(p, 'rtx_again_soon'):.1f})"
            for p in (1, 2)
        )
    )
    traced = [w["cwnd"] for w in ws if "cwnd" in w and all("fr_after_t3" in v for v in w["cwnd"].values())]
    if traced:
        out += "\n    " + "; ".join(
            f"path {p}: mean cwnd {statistics.mean(c[p]['mean'] for c in traced):.1f} MTU, cuts"
            f" {statistics.mean(c[p]['fr_cuts'] for c in traced):.1f} + "
            f"{statistics.mean(c[p]['to_one'] for c in traced):.1f} to one MTU, fast rtx of a T3-retransmitted"
            f" chunk {statistics.mean(c[p]['fr_after_t3'] for c in traced):.1f}, cuts with them"
            f" {statistics.mean(c[p]['cuts_at_fr_after_t3'] for c in traced):.1f}"
            for p in (1, 2)
        )
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("seeds", nargs="+", help="replications (n or n-m)")
    ap.add_argument("--load", default="heavy", choices=usrsctp_seed000.LOADS)
    ap.add_argument("--buffer", default="256K", choices=tuple(usrsctp_seed000.CMT_BUFFERS))
    ap.add_argument("--ack", default="NR-SACK", choices=usrsctp_seed000.ACKS)
    ap.add_argument("--set", action="append", default=[], help="key=JSON value for rexmit's sctp table")
    ap.add_argument("--stacks", default="rexmit-freebsd,usrsctp")
    ap.add_argument("--trace", action="store_true", help="cwnd per path: rexmit's trace, usrsctp's primary path")
    ap.add_argument("--brief", action="store_true", help="goodput and the buffer only, one line per run")
    ap.add_argument("--json", default=None, help="write every run's view to this file")
    ns = ap.parse_args(argv)
    overrides: dict[str, Any] = {}
    for k, _, v in (x.partition("=") for x in ns.set):
        *outer, last = k.split(".")
        d = overrides
        for o in outer:
            d = d.setdefault(o, {})
        d[last] = json.loads(v)
    stacks = ns.stacks.split(",")
    views: dict[str, list[dict[str, Any]]] = {s: [] for s in stacks}
    for seed in seeds(ns.seeds):
        for stack in stacks:
            w = run(stack, seed, ns.load, ns.buffer, ns.ack, overrides, ns.trace)
            w["seed"] = seed
            views[stack].append(w)
            if ns.brief:
                print(
                    f"{stack:14} rep {seed:2}: {w['goodput']:6.2f} Mb/s, held {w['held_mean']:4.0f}, full"
                    f" {100 * w['full_share']:3.0f}%, by rtx {w['held_by_rtx_mean']:5.1f} ({w['rtx_held_s']:.2f} s),"
                    f" INITs {len(w['inits'])}",
                    flush=True,
                )
            else:
                print(line(stack, seed, w), flush=True)
    for stack, ws in views.items():
        print(summary(stack, ws))
    if ns.json:
        Path(ns.json).write_text(json.dumps(views, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
