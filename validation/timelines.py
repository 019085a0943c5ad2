"""Scripted-drop retransmission timelines: rexmit against ns-2.35 and ns-3.44 (issue 7).

The peers' `drops1` (segment 100) and `drops3` (segments 100-102) runs in validation/results/
list every retransmission's send time at S and when each drop happened. Here rexmit runs the
same path configured like each peer (compare.py's mirrors), with a scripted error model on
G1->G2 that drops the FIRST transmission of the same 0-based data segments (matched by TCP
sequence number; the ISS is read from a probe run's SYN), and the two timelines are set side by
side.

Times. ns-2's agents have no handshake (data starts at t = 0); ns-3 and rexmit open the
connection first (one RTT, ~100.8 ms). Every time is therefore given relative to the first
transmission of the first data segment ("since data"), and each retransmission also relative to
the first drop ("since drop", when the dropped packet would have reached G2). The verdict
compares the since-drop times. rexmit's send time is the start of serialisation on S->G1 (the
pcap tap); the peers report the agent's send (ns-3 `Tx` trace, ns-2 enqueue at S). The two
differ only if a packet waited in S's queue: such rows are flagged `queued at S`.

ns-3's point-to-point devices add a 2-byte PPP header to every packet's link time (1502 byte
times per 1500-byte packet, N + 2 per ACK of N bytes); the ns-3 mirrors here give rexmit's links
`framing_bytes = 2`, the same (`ppp=False` turns that off).

    python validation/timelines.py [--peer NAME] [--json F]     (prints the markdown tables)
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import rexmit

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import compare  # noqa: E402
import pcapread  # noqa: E402

RESULTS = HERE / "results"
NS = 1e-9

# Which peer runs have a timeline to compare, and the tolerance (seconds) of "agree" on each
# retransmission's since-drop time. Where rexmit and the peer run the same specified algorithm
# the tolerance is a few serialisation times of a 1500-byte packet at 4 Mb/s (3 ms each).
EXACT_TOL_S = 0.0005


@dataclass
class Timeline:
    first_data_s: float
    rtx: list[tuple[float, int]]  # (send time s, seg)
    drops: list[tuple[float, int]]  # (time the dropped packet would have reached G2, seg)
    queued_at_s: set[int] = field(default_factory=set)  # indices into rtx that waited at S
    goodput_bps: float | None = None
    retransmissions: int | None = None
    timeouts: int | None = None


def framing(ppp: bool) -> int:
    """rexmit's `framing_bytes` on every link: ns-3's 2-byte PPP header, or none."""
    return 2 if ppp else 0


def path_scenario(
    m: compare.Mirror, seed: int, secs: float, ppp: bool, errors: list[dict[str, Any]]
) -> rexmit.Scenario:
    s = rexmit.Scenario(stop_time=f"{secs:g}s", seed=seed)
    q = {"packets": 100}
    fr = {"framing_bytes": framing(ppp)} if ppp else {}
    s.chain(
        ["S", "G1", "G2", "D"],
        [
            {"rate": "10Mbps", "delay": "0.1ms", "queue": q, **fr},
            {"rate": "4Mbps", "delay": "50ms", "queue": q, "errors": errors, **fr},
            {"rate": "10Mbps", "delay": "0.1ms", "queue": q, **fr},
        ],
    )
    s.app("bulk", "tcp_bulk", "S", "D", tcp=m.tcp)
    return s


def probe_iss(m: compare.Mirror, seed: int, ppp: bool) -> tuple[int, int]:
    """rexmit's initial send sequence number and payload bytes per full segment for this mirror
    and seed (the ISS comes from the app's own named random stream, so a short probe run without
    losses finds the same one)."""
    s = path_scenario(m, seed, 0.3, ppp, [])
    s.pcap(link="S->G1")
    with tempfile.TemporaryDirectory() as d:
        res = rexmit.run(s, out_dir=d)
        segs = pcapread.tcp_segments(Path(res.pcap_files[0]))
    syn = next(x for x in segs if x.syn)
    payload = max(x.payload for x in segs)
    return syn.seq, payload


def seqs_for(segs: list[int], iss: int, payload: int) -> list[int]:
    """Relative sequence numbers (as scenarios take them: the SYN is 0, the first data byte 1)
    of the 0-based data segments `segs`; `iss` is kept for callers that map absolute ones back."""
    del iss
    return [1 + k * payload for k in segs]


def scripted_error(segs: list[int], iss: int, payload: int) -> dict[str, Any]:
    """Drop the first transmission of each 0-based data segment in `segs` (TCP app `bulk`)."""
    return {"kind": "scripted", "app": "bulk", "tcp_seqs": seqs_for(segs, iss, payload), "direction": "forward"}


def rexmit_timeline(
    m: compare.Mirror, segs: list[int], secs: float = 10.0, seed: int = 1, ppp: bool = False
) -> Timeline:
    iss, payload = probe_iss(m, seed, ppp)
    s = path_scenario(m, seed, secs, ppp, [scripted_error(segs, iss, payload)])
    s.pcap(link="S->G1")
    s.pcap(link="G1->G2")
    with tempfile.TemporaryDirectory() as d:
        res = rexmit.run(s, out_dir=d)
        files = {Path(p).name: Path(p) for p in res.pcap_files}
        sent = pcapread.tcp_segments(files["link_S-G1.pcap"])
        bottleneck = pcapread.tcp_segments(files["link_G1-G2.pcap"])
    f = res.flow("bulk")

    def seg_of(x: pcapread.TcpSeg) -> int:
        return ((x.seq - iss - 1) % (1 << 32)) // payload

    data = [x for x in sent if x.payload > 0]
    tx_s = lambda x: (x.ip_len + framing(ppp)) * 8 / 10e6
    high = -1
    rtx: list[tuple[float, int]] = []
    queued: set[int] = set()
    prev_end = -1.0
    for x in sent:
        t = x.t_ns * NS
        if x.payload > 0:
            k = seg_of(x)
            if k <= high:
                if abs(t - prev_end) < 2e-9:  # started the instant the previous packet ended
                    queued.add(len(rtx))
                rtx.append((round(t, 9), k))
            high = max(high, k)
        prev_end = t + tx_s(x)
    # The first bottleneck transmission of each dropped segment; it would have reached G2 after
    # its serialisation and the 50 ms delay.
    drops = []
    pending = set(segs)
    for x in bottleneck:
        if x.payload > 0 and seg_of(x) in pending:
            pending.discard(seg_of(x))
            drops.append((round(x.t_ns * NS + (x.ip_len + framing(ppp)) * 8 / 4e6 + 0.050, 9), seg_of(x)))
    return Timeline(
        first_data_s=data[0].t_ns * NS,
        rtx=rtx,
        drops=drops,
        queued_at_s=queued,
        goodput_bps=f["goodput_bps"],
        retransmissions=f["retransmissions"],
        timeouts=f["timeouts"],
    )


def peer_timeline(doc: dict[str, Any]) -> Timeline:
    r = doc["runs"][0]
    if doc["script"] == "ns2_tcp.py":
        first = 0.0  # one-way agent: the first segment is sent at t = 0
    else:
        first = float(r["first_data_s"]) if "first_data_s" in r else None  # type: ignore[assignment]
    return Timeline(
        first_data_s=first if first is not None else float("nan"),
        rtx=[(float(t), int(k)) for t, k in r["rtx"]],
        drops=[(float(t), int(k)) for t, k in r["drops"] if int(k) >= 0],
        goodput_bps=r.get("goodput_bps"),
        retransmissions=r.get("retransmissions"),
        timeouts=r.get("timeouts"),
    )


# The scripted-drop runs the peers made (run_peers.sh): tag -> 0-based segments dropped once.
CASES = {"drops1": [100], "drops3": [100, 101, 102]}

# Tolerance on the since-drop time of each retransmission of a dropped segment: one
# serialisation of a 1500-byte packet at 4 Mb/s plus slack, for both peers, because both
# acknowledge the first data segment of a connection at once (ns-3.44 primes its delayed-ACK
# counter on entering ESTABLISHED; ns-2's DelAck sink ACKs its first packet alone). Their
# delayed-ACK pairs are then (odd, even) segments where rexmit's are (even, odd), so a loss takes
# one ACK more or less to detect depending on the lost segment's parity, and ns-3's slow-start
# ACK clock runs one segment ahead. Later retransmissions agree to about 0.1 ms.
TOL_NS2_S = 0.0031
TOL_NS3_S = 0.0031


@dataclass(frozen=True)
class PeerCase:
    same_algorithm: bool
    why: str


PEERS = {
    "ns3-newreno-sack-classic": PeerCase(
        False,
        "RFC 6675 in both, but ns-3.44 sets ssthresh to half the RFC 6675 pipe, not half the FlightSize (RFC 5681 eq. (4), RFC 6675 step (4.2)): 2 or more segments smaller",
    ),
    "ns3-newreno-sack-classic-fs": PeerCase(
        True,
        "RFC 6675 in both; ns-3 given rexmit's ssthresh = FlightSize/2, limited-transmit data included (cc=newreno-flightsize)",
    ),
    "ns3-newreno-sack-classic-rfc": PeerCase(
        True,
        "RFC 6675 in both; ns-3 given RFC 5681's ssthresh (limited-transmit data left out of FlightSize, cc=newreno-rfc); rexmit counts that data (docs/validation.md), so it should agree once rexmit is fixed",
    ),
    "ns3-newreno-sack-prr": PeerCase(
        False,
        "RFC 6675 + RFC 6937 PRR in both, but ns-3.44's PRR adds one SMSS per duplicate ACK to prr_delivered even with SACK (double counting) and takes RecoverFS = pipe: it sends one segment per ACK where RFC 6937 sends one per two",
    ),
    "ns3-newreno-sack-prr-fs": PeerCase(
        False, "as ns3-newreno-sack-prr, with ssthresh = FlightSize/2: the PRR deviation remains"
    ),
    "ns3-newreno-nosack-classic": PeerCase(True, "RFC 6582 NewReno in both"),
    "ns3-cubic": PeerCase(
        False, "CUBIC with PRR: ns-3's PRR deviation as above; ns-3 also runs HyStart (rexmit does not)"
    ),
    "ns3-westwoodplus": PeerCase(
        False, "Westwood+: ssthresh from the bandwidth estimate, whose filter and sampling differ"
    ),
    "ns2-sack1": PeerCase(
        False, "ns-2 Sack1 is Fall & Floyd's 1996 SACK (pipe, one retransmission per ACK), rexmit runs RFC 6675"
    ),
    "ns2-newreno": PeerCase(
        True,
        "RFC 6582 NewReno in both, including the Impatient timer (re-armed on the first partial ACK only, RFC 6582 section 3.2 step 5 and section 4)",
    ),
    "ns2-reno": PeerCase(
        False,
        "RFC 5681 Reno in both, but ns-2's bugFix_ (default on) applies RFC 6582's `recover` check to Reno: no second fast retransmit in one window, so ns-2 waits for an RTO",
    ),
    "ns2-reno-nobugfix": PeerCase(True, "RFC 5681 Reno in both (ns-2 with bugFix_ false)"),
    "ns2-tahoe": PeerCase(True, "Tahoe in both"),
}


def pair_rtx(peer: list[tuple[float, int]], ours: list[tuple[float, int]]) -> list[tuple[int | None, int | None]]:
    """Pairs the k-th retransmission of each segment in the two lists (indices into each), in
    the order of the peer's list, then rexmit's unpaired ones."""

    def keyed(xs: list[tuple[float, int]]) -> dict[tuple[int, int], int]:
        seen: dict[int, int] = {}
        out = {}
        for i, (_, s) in enumerate(xs):
            n = seen.get(s, 0)
            seen[s] = n + 1
            out[(s, n)] = i
        return out

    kp, ko = keyed(peer), keyed(ours)
    pairs: list[tuple[int | None, int | None]] = [(i, ko.get(k)) for k, i in sorted(kp.items(), key=lambda kv: kv[1])]
    used = {j for _, j in pairs if j is not None}
    pairs += [(None, j) for j in sorted(ko.values()) if j not in used]
    return pairs


def compare_case(
    peer_doc: dict[str, Any], segs: list[int], max_rows: int = 12, ppp: bool | None = None
) -> dict[str, Any]:
    """rexmit's timeline for one peer run, and the rows of the comparison."""
    name = peer_doc["name"]
    m = compare.mirror(name)
    if m is None:
        return {"peer": name, "skipped": "no rexmit mirror"}
    is_ns3 = name.startswith("ns3")
    ppp = is_ns3 if ppp is None else ppp
    secs = float(peer_doc["options"].get("duration", 10))
    ours = rexmit_timeline(m, segs, secs=secs, ppp=ppp)
    r = peer_doc["runs"][0]
    peer_rtx = [(float(t), int(k)) for t, k in r.get("rtx_wire", r["rtx"])]
    peer_first = float(r.get("first_data_wire_s", r.get("first_data_s", 0.0 if not is_ns3 else float("nan"))))
    peer_drops = [(float(t), int(k)) for t, k in r["drops"] if int(k) >= 0]
    pd0 = peer_drops[0][0] if peer_drops else float("nan")
    od0 = ours.drops[0][0] if ours.drops else float("nan")
    rows = []
    for i, j in pair_rtx(peer_rtx, ours.rtx)[:max_rows]:
        p = peer_rtx[i] if i is not None else None
        o = ours.rtx[j] if j is not None else None
        row = {"seg": (p or o)[1]}  # type: ignore[index]
        if p:
            row.update(peer_since_data=p[0] - peer_first, peer_since_drop=p[0] - pd0)
        if o:
            row.update(
                rexmit_since_data=o[0] - ours.first_data_s,
                rexmit_since_drop=o[0] - od0,
                queued_at_s=j in ours.queued_at_s,
            )
        if p and o:
            row["diff_since_drop"] = row["rexmit_since_drop"] - row["peer_since_drop"]
            row["diff_since_data"] = row["rexmit_since_data"] - row["peer_since_data"]
        rows.append(row)
    pc = PEERS.get(name, PeerCase(False, ""))
    tol = TOL_NS3_S if is_ns3 else TOL_NS2_S
    judged = [r for r in rows if r["seg"] in segs and "diff_since_drop" in r]
    n_peer = sum(1 for _, k in peer_rtx if k in segs)
    n_ours = sum(1 for _, k in ours.rtx if k in segs)
    worst = max((abs(r["diff_since_drop"]) for r in judged), default=float("nan"))
    agree = n_peer == n_ours and len(judged) == n_peer and worst <= tol
    return {
        "verdict": "agree" if agree else ("differs (explained)" if pc.why else "differs"),
        "tolerance_s": tol,
        "max_abs_diff_s": worst,
        "dropped_seg_rtx": [n_peer, n_ours],
        "peer": name,
        "segs": segs,
        "ppp_framing": ppp,
        "same_algorithm": pc.same_algorithm,
        "why": pc.why,
        "peer_first_data_s": peer_first,
        "rexmit_first_data_s": ours.first_data_s,
        "peer_drops_since_data": [(t - peer_first, k) for t, k in peer_drops],
        "rexmit_drops_since_data": [(t - ours.first_data_s, k) for t, k in ours.drops],
        "peer_rtx_count": len(peer_rtx),
        "rexmit_rtx_count": len(ours.rtx),
        "peer_goodput_bps": r.get("goodput_bps"),
        "rexmit_goodput_bps": ours.goodput_bps,
        "peer_timeouts": r.get("timeouts"),
        "rexmit_timeouts": ours.timeouts,
        "rows": rows,
    }


def ms(x: float | None) -> str:
    return "" if x is None else f"{x * 1e3:.3f}"


def markdown(cases: list[dict[str, Any]]) -> list[str]:
    out = []
    for c in cases:
        if "skipped" in c:
            out += [f"#### {c['peer']} {c.get('tag', '')}: skipped ({c['skipped']})", ""]
            continue
        drops = ", ".join(f"{k} at {ms(t)}" for t, k in c["peer_drops_since_data"])
        odrops = ", ".join(f"{k} at {ms(t)}" for t, k in c["rexmit_drops_since_data"])
        out += [
            f"#### {c['peer']}, drops of segs {','.join(map(str, c['segs']))}: {c['verdict']} (largest difference {ms(c['max_abs_diff_s'])} ms, tolerance {ms(c['tolerance_s'])} ms)",
            "",
            f"{'Same algorithm' if c['same_algorithm'] else 'Known difference'}: {c['why']}.",
            "",
            f"Drops (ms since the first data segment left S): peer {drops}; rexmit {odrops}. "
            f"Retransmissions: peer {c['peer_rtx_count']}, rexmit {c['rexmit_rtx_count']}; timeouts: peer {c['peer_timeouts']}, rexmit {c['rexmit_timeouts']}; "
            f"goodput over the run: peer {c['peer_goodput_bps'] / 1e6:.3f}, rexmit {c['rexmit_goodput_bps'] / 1e6:.3f} Mb/s.",
            "",
            "| seg | peer since data (ms) | rexmit since data (ms) | peer since drop (ms) | rexmit since drop (ms) | diff since drop (ms) |",
            "|---|---|---|---|---|---|",
        ]
        for r in c["rows"]:
            flag = " (queued at S)" if r.get("queued_at_s") else ""
            out.append(
                f"| {r['seg']} | {ms(r.get('peer_since_data'))} | {ms(r.get('rexmit_since_data'))}{flag} | {ms(r.get('peer_since_drop'))} | {ms(r.get('rexmit_since_drop'))} | {ms(r.get('diff_since_drop'))} |"
            )
        out.append("")
    return out


def load_peer(name: str, tag: str) -> dict[str, Any] | None:
    f = RESULTS / f"peer_{name}_{tag}.json"
    return json.loads(f.read_text()) if f.exists() else None


def run_all(peers: list[str] | None = None) -> list[dict[str, Any]]:
    out = []
    for name in peers or list(PEERS):
        for tag, segs in CASES.items():
            doc = load_peer(name, tag)
            if doc is None:
                out.append({"peer": name, "tag": tag, "skipped": f"no peer result {tag} (run validation/run_peers.sh)"})
                continue
            c = compare_case(doc, segs)
            c["tag"] = tag
            out.append(c)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--peer", action="append", help="only this peer (repeatable)")
    ap.add_argument("--json", default=None, help="also write the cases as JSON here")
    args = ap.parse_args(argv)
    cases = run_all(args.peer)
    print("\n".join(summary_table(cases) + [""] + markdown(cases)))
    if args.json:
        Path(args.json).write_text(json.dumps(cases, indent=1))
    return 0


def summary_table(cases: list[dict[str, Any]]) -> list[str]:
    out = [
        "| peer | dropped segs | verdict | largest difference (ms) | tolerance (ms) | retransmissions of the dropped segs (peer / rexmit) | all retransmissions (peer / rexmit) | RTOs (peer / rexmit) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for c in cases:
        if "skipped" in c:
            out.append(f"| {c['peer']} | {c.get('tag', '')} | skipped: {c['skipped']} | | | | | |")
            continue
        n = c["dropped_seg_rtx"]
        out.append(
            f"| {c['peer']} | {','.join(map(str, c['segs']))} | {c['verdict']} | {ms(c['max_abs_diff_s'])} | {ms(c['tolerance_s'])} | {n[0]} / {n[1]} "
            f"| {c['peer_rtx_count']} / {c['rexmit_rtx_count']} | {c['peer_timeouts']} / {c['rexmit_timeouts']:g} |"
        )
    return out


if __name__ == "__main__":
    sys.exit(main())
