#!/usr/bin/env python3
"""Where FreeBSD's duplicate TSNs come from (issue 39, docs/validation_freebsd.md "FreeBSD's SCTP").

Runs one case of validation/usrsctp.py with pcaps at the sender S and the receiver R, finds the
TSNs that reached R more than once, and sorts each extra arrival by what the sender had seen
when it sent that copy:

- `re-fast-retransmitted`: the chunk was lost and retransmitted, and the copy that arrived
  twice is a further retransmission sent before any SACK covered it; between the two
  retransmissions the cumulative TSN ack advanced n times (counted).
- `sacked-before`: a SACK covering the TSN (cumulative ack or gap block) reached the sender
  between the TSN's first arrival at R and the retransmission as S's pcap shows it. S's pcap
  stamps an outgoing packet when its access link starts to send it, after the packet waited in
  that link's queue, and a SACK when it arrives; so on a single-homed sender (queue of S's one
  access link sampled every `--queue-sample`, 100 µs by default) the copy is
  `sacked-before, still queued at S` when it left within the time the packets queued at the
  SACK's arrival (plus the one on the line) took to drain: the stack sent it before the SACK
  came, whatever the pcap order says. With rexmit's stack the run's trace
  (`[[metrics.trace]]`) gives each transmission's send instant, and such a copy is
  `sacked-before, sent before the SACK (trace)` or `sacked-before, sent after the SACK (trace)`.
- `first copy not lost, reported missing`: no copy was lost before, but a SACK that reached
  the sender after the first transmission and before this one reported the TSN missing below
  a higher TSN (with CMT: data of the other path overtook it, and FreeBSD's fast recovery
  strikes past SFR's per-destination test, docs/validation_freebsd.md).
- `other`.

    python validation/usrsctp_dups.py sack-burst --stack usrsctp --seeds 1-10
    python validation/usrsctp_dups.py seed000:sctp:low:SACK --seeds 1   # usrsctp_seed000.py's runs
"""

from __future__ import annotations

import argparse
import bisect
import collections
import struct
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import pcapread  # noqa: E402

SCTP = 132
DATA, SACK, NR_SACK = 0, 3, 16


#: Names of the other chunk types `sctp_chunks(..., others=True)` reports (RFC 9260 §3.2).
CHUNK_NAMES = {1: "INIT", 2: "INIT-ACK", 4: "HB", 5: "HB-ACK", 10: "COOKIE-ECHO", 11: "COOKIE-ACK"}


def sctp_chunks(
    path: Path, dac: bool = False, others: bool = False, split_nr: bool = False
) -> Iterator[tuple[int, str, str, list[tuple[Any, ...]]]]:
    """(time ns, IPv4 source, destination, chunks) per SCTP packet of a pcap; a chunk is
    ("DATA", tsn) or ("SACK", cum, gap blocks + nr-gap blocks as (start, end) offsets), with
    `dac` one more field: whether the SACK's CMT DAC flag says it covers two packets (bit 7:
    both stacks write the count in bits 6-7, FreeBSD's `cmt_dac_pkts_rcvd << 6`). With `split_nr`
    a SACK is ("SACK", cum, gap blocks, nr-gap blocks) instead (an NR-SACK's two lists apart,
    RFC draft-natarajan-tsvwg-sctp-nrsack §4). With `others` every other chunk too, as (name,)
    (`CHUNK_NAMES`, else "chunk N")."""
    for t, b in pcapread.records(path):
        if len(b) < 20 or b[9] != SCTP:
            continue
        src, dst = ".".join(map(str, b[12:16])), ".".join(map(str, b[16:20]))
        s = b[(b[0] & 0xF) * 4 :]
        off, out = 12, []
        while off + 4 <= len(s):
            kind, length = s[off], struct.unpack_from(">H", s, off + 2)[0]
            if length < 4:
                break
            v = s[off + 4 : off + length]
            if kind == DATA:
                out.append(("DATA", struct.unpack_from(">I", v, 0)[0]))
            elif kind in (SACK, NR_SACK):
                cum, _rwnd, n_gap = struct.unpack_from(">IIH", v, 0)
                n_nr, at = (struct.unpack_from(">H", v, 10)[0], 16) if kind == NR_SACK else (0, 12)
                blocks = [struct.unpack_from(">HH", v, at + 4 * i) for i in range(n_gap + n_nr)]
                flags = s[off + 1]
                if split_nr:
                    out.append(("SACK", cum, blocks[:n_gap], blocks[n_gap:]))
                else:
                    out.append(("SACK", cum, blocks, bool(flags & 0x80)) if dac else ("SACK", cum, blocks))
            elif others:
                out.append((CHUNK_NAMES.get(kind, f"chunk {kind}"),))
            off += (length + 3) & ~3
        yield t, src, dst, out


def transfer_view(out: Path) -> tuple[dict[int, list[int]], dict[int, list[int]], list[tuple[int, tuple[Any, ...]]]]:
    """A run's transfer from the pcaps at S and R (`out/pcap/node_{S,R}.pcap`): each TSN's
    sending times at S, its arrival times at R (in capture order), and the SACKs S received as
    (time, chunk), in order."""
    sent: dict[int, list[int]] = collections.defaultdict(list)
    arrived: dict[int, list[int]] = collections.defaultdict(list)
    sacks: list[tuple[int, tuple[Any, ...]]] = []
    sender = None
    for t, src, _, chunks in sctp_chunks(out / "pcap" / "node_S.pcap"):
        for c in chunks:
            if c[0] == "DATA":
                sender = src
                sent[c[1]].append(t)
            elif c[0] == "SACK" and src != sender:
                sacks.append((t, c))
    for t, _, _, chunks in sctp_chunks(out / "pcap" / "node_R.pcap"):
        for c in chunks:
            if c[0] == "DATA":
                arrived[c[1]].append(t)
    return sent, arrived, sacks


def after(a: int, b: int) -> bool:
    """TSN a is after TSN b (serial arithmetic, RFC 1982)."""
    return a != b and (a - b) % 2**32 < 2**31


def covers(sack: tuple[Any, ...], tsn: int) -> bool:
    _, cum, blocks = sack
    if not after(tsn, cum):
        return True
    off = (tsn - cum) % 2**32
    return any(lo <= off <= hi for lo, hi in blocks)


def reports_above(sack: tuple[Any, ...], tsn: int) -> bool:
    """The SACK reports a TSN above `tsn` received (in a gap block)."""
    _, cum, blocks = sack
    return any(after((cum + hi) % 2**32, tsn) for _, hi in blocks)


LINE_NS = 120_000  # one 1 500-byte packet at 100 Mb/s


def queued_at(samples: list[tuple[int, float]], t: int) -> float:
    """Packets in the sender's access queue at the last sample at or before `t`."""
    i = bisect.bisect_right(samples, (t, float("inf"))) - 1
    return samples[i][1] if i >= 0 else 0.0


def send_instants(out_dir: Path, first_tsn: int) -> dict[int, list[int]] | None:
    """Each TSN's send instants (ns) from a rexmit run's trace, None without one. The trace
    numbers TSNs from the association's first; `first_tsn` is the first on the wire."""
    path = out_dir / "trace_sent.parquet"
    if not path.exists():
        return None
    import pyarrow.parquet as pq

    rows = pq.read_table(path, columns=["t_ns", "start", "end"]).to_pylist()
    base = min(r["start"] for r in rows)
    out: dict[int, list[int]] = collections.defaultdict(list)
    for r in rows:
        for k in range(r["start"], r["end"]):
            out[(k - base + first_tsn) % 2**32].append(r["t_ns"])
    return out


def classify(
    out_dir: Path,
    sender_node: str = "S",
    receiver_node: str = "R",
    queue: list[tuple[int, float]] | None = None,
) -> collections.Counter[str]:
    """`queue`: S's access-queue samples (single-homed); a rexmit run's trace in `out_dir`
    (trace_sent.parquet) gives the send instants instead."""
    at_s = list(sctp_chunks(out_dir / "pcap" / f"node_{sender_node}.pcap"))
    at_r = list(sctp_chunks(out_dir / "pcap" / f"node_{receiver_node}.pcap"))
    sender = {src for _, src, _, ch in at_s if any(c[0] == "DATA" for c in ch)}
    sent: dict[int, list[int]] = collections.defaultdict(list)
    sacks: list[tuple[int, tuple[Any, ...]]] = []
    for t, src, _, ch in at_s:
        for c in ch:
            if src in sender and c[0] == "DATA":
                sent[c[1]].append(t)
            elif src not in sender and c[0] == "SACK":
                sacks.append((t, c))
    arrived: dict[int, list[int]] = collections.defaultdict(list)
    for t, src, _, ch in at_r:
        for c in ch:
            if src in sender and c[0] == "DATA":
                arrived[c[1]].append(t)
    decided = send_instants(out_dir, min(sent)) if sent else None
    kinds: collections.Counter[str] = collections.Counter()
    for tsn, times in arrived.items():
        tx = sent[tsn]
        # Each copy after the first arrival was sent after it (one copy per extra arrival).
        late = [x for x in tx if x > times[0]]
        for k in range(len(times) - 1):
            if k >= len(late):
                kinds["other"] += 1
                continue
            dup_tx = late[k]
            cover = next((t for t, s in sacks if times[0] < t < dup_tx and covers(s, tsn)), None)
            if cover is not None:
                if decided is not None:
                    before = decided[tsn][tx.index(dup_tx)] < cover
                    kinds[f"sacked-before, sent {'before' if before else 'after'} the SACK (trace)"] += 1
                    continue
                queued = queue is not None and dup_tx - cover <= (queued_at(queue, cover) + 1) * LINE_NS
                kinds["sacked-before, still queued at S" if queued else "sacked-before"] += 1
                continue
            i = tx.index(dup_tx)
            if i < 2:
                missing = any(tx[0] < t < dup_tx and not covers(s, tsn) and reports_above(s, tsn) for t, s in sacks)
                kinds["first copy not lost, reported missing" if missing else "other"] += 1
                continue
            # The copy before it was itself a retransmission: how often did the cumulative ack
            # move between the two?
            prev, moves = None, 0
            for t, s in sacks:
                if t <= tx[i - 1]:
                    prev = s[1]
                    continue
                if t > dup_tx:  # the SACK that triggers it arrives at the same instant
                    break
                moves += prev is not None and after(s[1], prev)
                prev = s[1]
            kinds[f"re-fast-retransmitted after {moves} cum-ack advances"] += 1
    return kinds


def seeds(text: str) -> list[int]:
    lo, _, hi = text.partition("-")
    return list(range(int(lo), int(hi or lo) + 1))


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "case",
        help="a case of validation/usrsctp.py (sack-burst, cmt-sack, ...) or seed000:KIND:LOAD:ACK "
        "(usrsctp_seed000.py at the INF buffer, e.g. seed000:sctp:low:SACK)",
    )
    ap.add_argument("--stack", default="usrsctp", choices=("usrsctp", "rexmit", "rexmit-defaults"))
    ap.add_argument("--seeds", default="1", help="one seed or a range, e.g. 1-10")
    ap.add_argument("--duration", type=float, default=60.0)
    ap.add_argument(
        "--queue-sample",
        default="100us",
        help="sampling interval of S's access queue (10us resolves bursts queued within 100 µs of a SACK; ~1 GB more)",
    )
    ns = ap.parse_args(argv)
    import usrsctp

    import rexmit

    total: collections.Counter[str] = collections.Counter()
    for seed in seeds(ns.seeds):
        if ns.case.startswith("seed000:"):
            import usrsctp_seed000

            _, kind, load, ack = ns.case.split(":")
            stack = {"rexmit": "rexmit-freebsd", "rexmit-defaults": "rexmit"}.get(ns.stack, ns.stack)
            data = usrsctp_seed000.build(kind, load, "INF", ack, stack, seed)
            s = rexmit.Scenario.from_dict(data)
            app = data["apps"][0]
            ends = (app["from"], app["to"])
        else:
            s = usrsctp.scenario(usrsctp.CASES[ns.case], ns.stack, seed, ns.duration)
            app, ends = {"name": "assoc"}, ("S", "R")
        for node in ends:
            s.pcap(node=node)
        if ns.stack != "usrsctp":
            s.trace(app["name"])
        s.timeseries("queue_packets", ns.queue_sample, link=f"{ends[0]}->R1")
        with tempfile.TemporaryDirectory() as tmp:
            r = rexmit.run(s, out_dir=tmp)
            queue = None
            if sum(1 for link in r.links if link["name"].startswith(f"{ends[0]}->")) == 1:
                t, v = next(v for k, v in r.series.items() if f"{ends[0]}->R1" in k)
                queue = [(ti, x) for ti, x in zip(t, v, strict=True) if x == x]
            kinds = classify(Path(tmp), *ends, queue=queue)
        dup = r.flow(app["name"]).get("dup_tsns_received")
        print(f"seed {seed}: {dup:.0f} duplicate TSNs: {dict(kinds)}")
        total += kinds
    print(f"all: {sum(total.values())}: {dict(total)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
