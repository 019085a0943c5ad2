#!/usr/bin/env python3
"""FreeBSD's CMT strike rule replayed over a run's sender pcap (issue 39, docs/validation_freebsd.md
"FreeBSD's SCTP", the CMT duplicates).

Reads the DATA chunks S sends (TSN, destination) and the SACKs reaching S, and applies the rule
as read in sctp_indata.c (sctp_strike_gap_ack_chunks, sctp_handle_sack) and sctp_cc_functions.c
(sctp_cwnd_update_after_fr): a miss indication for an outstanding chunk below the highest TSN
reported when its destination had newly acked data and a newer TSN of that destination was
newly acked (SFR) below the highest TSN newly acked (HTNA); one more (DAC) when the SACK's DAC
flag is set, one destination had newly acked data and the chunk is below the lowest TSN newly
acked; three mark it. Every SACK that marks chunks is a cut and opens (or moves) the
association-wide window (`asoc->fast_recovery_tsn`) to the highest TSN sent so far; in the
window a SACK that moves the cumulative ack strikes without SFR's newer-TSN test and HTNA. A
SACK on FreeBSD's slow path (it or the one before had gap blocks) that moves the cumulative ack
to the window's end closes it after its own cuts; a retransmission the replay did not mark (a
T3-rtx) closes it too. A chunk sent again is never struck again (CMT's `no_fr_allowed`).

It prints per seed how the replay's marks compare with what the stack retransmitted (`rtx not
replay-marked`: a retransmission the replay did not predict) and how many chunks the window's
relaxed rule marks whose first copy was not lost (each becomes a duplicate TSN if it leaves
before a SACK covers it), with the SACK counts that drive them.

    python validation/usrsctp_strike_replay.py cmt-sack-asym --stack usrsctp --seeds 1-10
"""

from __future__ import annotations

import argparse
import bisect
import collections
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from usrsctp_dups import after, sctp_chunks, seeds  # noqa: E402


def replay(out_dir: Path, window_rule: bool = True) -> collections.Counter[str]:
    at_s = list(sctp_chunks(out_dir / "pcap" / "node_S.pcap", dac=True))
    at_r = list(sctp_chunks(out_dir / "pcap" / "node_R.pcap", dac=True))
    sender = {src for _, src, _, cs in at_s if any(c[0] == "DATA" for c in cs)}
    arrived: collections.Counter[int] = collections.Counter()
    for _, src, _, cs in at_r:
        arrived.update(c[1] for c in cs if src in sender and c[0] == "DATA")
    sent: collections.Counter[int] = collections.Counter()
    events = []
    for t, src, dst, cs in at_s:
        for c in cs:
            if src in sender and c[0] == "DATA":
                sent[c[1]] += 1
                events.append((t, 1, c, dst))
            elif src not in sender and c[0] == "SACK":
                events.append((t, 0, c, dst))  # a SACK before a DATA of the same instant
    events.sort(key=lambda e: (e[0], e[1]))
    out: dict[int, dict[str, Any]] = {}
    order: list[int] = []
    stats: collections.Counter[str] = collections.Counter()
    highest_sent = cum_pt = window = None
    prev_gaps = False
    in_window = 0  # SACKs with gap blocks and a cumulative-ack move in the open window
    for _t, _, c, dst in events:
        if c[0] == "DATA":
            tsn = c[1]
            e = out.get(tsn)
            if e is None:
                if cum_pt is not None and not after(tsn, cum_pt):
                    continue
                stats[f"DATA to {dst}"] += 1
                out[tsn] = {"path": dst, "n": 1, "acked": False, "marked": False, "strikes": 0, "nofr": False}
                # TSN order: the two access links' pcaps interleave their packets by when each
                # link began to send them, not in the order the stack numbered them.
                base = order[0] if order else tsn
                bisect.insort(order, tsn, key=lambda x: (x - base) % 2**32)
                if highest_sent is None or after(tsn, highest_sent):
                    highest_sent = tsn
                continue
            if not e["marked"]:
                stats["rtx not replay-marked"] += 1
                window = None
            e.update(n=e["n"] + 1, path=dst, marked=False, strikes=0, nofr=True)
            continue
        _, cum, blocks, dac = c
        if cum_pt is None:
            cum_pt = (order[0] - 1) % 2**32 if order else cum
        if after(cum_pt, cum):
            continue
        moved = after(cum, cum_pt) and any(not after(t, cum) for t in order)
        saw: dict[str, bool] = collections.defaultdict(bool)
        hi_new: dict[str, int] = {}
        newly_hi, lowest_new = cum, None
        for tsn in order:
            if after(tsn, cum):
                break
            if not out[tsn]["acked"]:
                saw[out[tsn]["path"]] = True
                lowest_new = tsn  # FreeBSD keeps the last cumulatively acked one
            del out[tsn]
        order = [t for t in order if after(t, cum)]
        cum_pt = cum
        biggest = max(((cum + hi) % 2**32 for _, hi in blocks), key=lambda x: (x - cum) % 2**32, default=cum)
        for tsn in order:
            e, off = out[tsn], (tsn - cum) % 2**32
            if not e["acked"] and any(lo <= off <= hi for lo, hi in blocks):
                e.update(acked=True, marked=False)
                saw[e["path"]] = True
                if e["path"] not in hi_new or after(tsn, hi_new[e["path"]]):
                    hi_new[e["path"]] = tsn
                newly_hi = tsn if after(tsn, newly_hi) else newly_hi
                lowest_new = tsn if lowest_new is None else lowest_new
        slow = bool(blocks) or prev_gaps
        prev_gaps = bool(blocks)
        closes = slow and window is not None and moved and not after(window, cum)
        relaxed = window_rule and window is not None and moved
        stats["SACKs"] += 1
        stats["SACKs with gap blocks"] += bool(blocks)
        stats["relaxed SACKs (window open, cum ack moved)"] += bool(blocks) and relaxed
        cut = False
        for tsn in order if blocks else []:
            e = out[tsn]
            if after(tsn, biggest):
                break
            if e["acked"] or e["marked"] or e["nofr"] or not saw[e["path"]]:
                continue
            if not relaxed and (after(tsn, hi_new.get(e["path"], cum)) or after(tsn, newly_hi)):
                continue
            e["strikes"] += 1
            if dac and sum(saw.values()) == 1 and lowest_new is not None and after(lowest_new, tsn):
                e["strikes"] += 1
            if e["strikes"] >= 3:
                e["marked"] = cut = True
                lost = arrived[tsn] < sent[tsn]
                stats["marked in the window (relaxed)" if relaxed else "marked by SFR/HTNA"] += 1
                if relaxed and not lost:
                    stats["marked in the window, first copy not lost"] += 1
        in_window += bool(blocks) and relaxed
        if cut and window_rule:
            if window is None:
                in_window = 0
            window = highest_sent
        if closes:
            stats[f"windows closed after {min(in_window, 3)}{'+' if in_window >= 3 else ''} such SACKs"] += 1
            window = None
    stats.update(tsn_runs(at_s, sender))
    return stats


def tsn_runs(at_s: list[tuple[int, str, str, list[tuple[Any, ...]]]], sender: set[str]) -> collections.Counter[str]:
    """How the sender spread new TSNs over its paths: first transmissions in TSN order, cut into
    runs of consecutive TSNs sent to one destination (per destination: runs, TSNs, runs of 20+)."""
    first: dict[int, str] = {}
    for _, src, dst, cs in at_s:
        for c in cs:
            if src in sender and c[0] == "DATA":
                first.setdefault(c[1], dst)
    base = min(first, default=0)
    out: collections.Counter[str] = collections.Counter()
    cur, n = None, 0
    for tsn in sorted(first, key=lambda x: (x - base) % 2**32) + [None]:
        dst = first.get(tsn) if tsn is not None else None
        if dst == cur:
            n += 1
            continue
        if cur is not None:
            out[f"TSN runs on {cur}"] += 1
            out[f"TSN runs of 20+ on {cur}"] += n >= 20
        cur, n = dst, 1
    return out


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("case", help="a CMT case of validation/usrsctp.py (cmt-sack, cmt-sack-asym, ...)")
    ap.add_argument("--stack", default="usrsctp", choices=("usrsctp", "rexmit", "rexmit-defaults"))
    ap.add_argument("--seeds", default="1", help="one seed or a range, e.g. 1-10")
    ap.add_argument("--duration", type=float, default=60.0)
    ns = ap.parse_args(argv)
    import usrsctp

    import rexmit

    total: collections.Counter[str] = collections.Counter()
    for seed in seeds(ns.seeds):
        s = usrsctp.scenario(usrsctp.CASES[ns.case], ns.stack, seed, ns.duration)
        for node in ("S", "R"):
            s.pcap(node=node)
        with tempfile.TemporaryDirectory() as tmp:
            r = rexmit.run(s, out_dir=tmp)
            stats = replay(Path(tmp))
        dup = r.flow("assoc").get("dup_tsns_received")
        print(f"seed {seed}: {dup:.0f} duplicate TSNs; replay {dict(stats)}")
        total += stats
    print(f"all: {dict(total)}")
    for dst in sorted(k.removeprefix("DATA to ") for k in total if k.startswith("DATA to ")):
        print(f"{dst}: {total['DATA to ' + dst] / max(total['TSN runs on ' + dst], 1):.2f} TSNs per run")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
