"""Linux TCP as a validation peer (issue 14): the same scenario run twice, once with rexmit's TCP
in the `linux` profile (pure simulation, `rexmit.run`) and once with the kernel's TCP in network
namespaces on the identical simulated network (`rexmit.emulate`).

Path: S_i -- R1 -- R2 -- D_i, access links 100 Mb/s 1 ms, bottleneck 10 Mb/s 20 ms each way
(RTT 44 ms + serialisation), drop-tail queue. Every app is `tcp_bulk` with
`tcp = { profile = "linux", cc = CC }`; under emulation the hosts are real and CC becomes the
socket's TCP_CONGESTION (the profile is what rexmit's TCP runs; Linux is Linux).

- `timelines`: scripted drops on R1->R2 of data segments (0-based) 30 (`drops1`), 30, 32, 34
  (`drops3`) and, in a 100-segment transfer, the last one (`tail`): every retransmission's time
  after the dropped segment's first transmission, both stacks side by side. The drop lists are
  packet numbers of the flow on that link, which differ by one between the stacks: Linux sends a
  pure ACK to finish the handshake before its data, rexmit's first data segment carries it.
- `stats`: uniform loss on the bottleneck (one flow) and a drop-tail bottleneck shared by 2 and
  4 flows: goodput, retransmissions and timeouts over SEEDS seeds, both stacks.
- `tables`: docs/validation_linux_tables.md from the JSON in validation/results/.

    python validation/linux.py timelines|stats|tables [--seeds N] [--duration S] [--quick]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import rexmit
from rexmit import emulation

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import compare  # noqa: E402  (ci95, verdict: the bands of the ns-2/ns-3 comparison)
import pcapread  # noqa: E402

RESULTS = HERE / "results"
CCS = ("reno", "cubic", "bbr")
PAYLOAD = 1448  # MSS 1460 less the timestamps option, both stacks
BAND = 0.10
# A retransmission agrees when the two stacks send it within this much of each other: Linux's
# timers tick in jiffies (CONFIG_HZ = 250 here: 4 ms) and the emulator's lateness adds ~0.1 ms.
TIMELINE_TOL_S = 0.005
DROPS = {"drops1": [30], "drops3": [30, 32, 34], "tail": [99]}
TAIL_SEGMENTS = 100


def start_of(i: int, seed: int) -> float:
    """Flow i starts 0.25·i s in, plus a per-seed draw in [0, 250 ms) for i ≥ 1 (the same in
    both stacks): competing flows' phases then differ from seed to seed, in rexmit as in Linux
    (docs/validation_linux.md: a fixed start made every rexmit seed the same run)."""
    if i == 0:
        return 0.0
    return 0.25 * i + random.Random(f"linux-start-{seed}-{i}").uniform(0.0, 0.25)


def scenario(
    cc: str,
    *,
    seed: int = 1,
    secs: float = 15.0,
    flows: int = 1,
    loss: float = 0.0,
    queue: int = 100,
    drop_segments: list[int] | None = None,
    real: bool = False,
    nbytes: int | None = None,
    warmup: float = 2.0,
) -> rexmit.Scenario:
    """One scenario of the comparison; `real` picks the packet numbers of Linux's flow for
    scripted drops (the scenario is otherwise the same for both stacks)."""
    errors: list[dict[str, Any]] = []
    if loss > 0:
        errors.append({"kind": "uniform", "rate": loss, "direction": "forward"})
    if drop_segments:
        # Packet numbers (1-based) of the flow on R1->R2: SYN first; Linux's handshake ACK next.
        first_data = 3 if real else 2
        errors.append(
            {
                "kind": "scripted",
                "app": "f0",
                "packets": [first_data + k for k in drop_segments],
                "direction": "forward",
            }
        )
    bottleneck: dict[str, Any] = {"rate": "10Mbps", "delay": "20ms", "queue": {"packets": queue}}
    if errors:
        bottleneck["errors"] = errors
    data: dict[str, Any] = {
        "seed": seed,
        "stop_time": f"{secs}s",
        "topology": {
            "kind": "dumbbell",
            "bottleneck": bottleneck,
            "left": [{"name": f"S{i}", "rate": "100Mbps", "delay": "1ms"} for i in range(flows)],
            "right": [{"name": f"D{i}", "rate": "100Mbps", "delay": "1ms"} for i in range(flows)],
        },
        "apps": [],
        "metrics": {"pcap": [{"link": "R1->R2"}]},
        "emulation": {"real_hosts": [f"S{i}" for i in range(flows)] + [f"D{i}" for i in range(flows)]},
    }
    for i in range(flows):
        app: dict[str, Any] = {
            "name": f"f{i}",
            "kind": "tcp_bulk",
            "from": f"S{i}",
            "to": f"D{i}",
            "start": f"{start_of(i, seed):.6f}s",
            "warmup": f"{warmup}s",
            "tcp": {"profile": "linux", "cc": cc},
        }
        if nbytes is not None:
            app["bytes"] = nbytes
        data["apps"].append(app)
    return rexmit.Scenario.from_dict(data)


def run(s: rexmit.Scenario, real: bool, out: Path) -> rexmit.RunResult:
    return emulation.emulate(s, out_dir=out) if real else rexmit.run(s, out_dir=out)


def flows_of(res: rexmit.RunResult) -> list[dict[str, float]]:
    # Stored tables call retransmissions "retransmits".
    keys = {
        "goodput_bps": "goodput_bps",
        "retransmits": "retransmissions",
        "timeouts": "timeouts",
        "completion_time_s": "completion_time_s",
    }
    return [{k: float(f[src]) for k, src in keys.items() if src in f and f[src] is not None} for f in res.flows]


def lateness(res: rexmit.RunResult) -> dict[str, Any] | None:
    if res.emulation is None:
        return None
    late = {k: v for k, v in res.emulation["lateness"].items() if k != "stalls"}
    return {
        **late,
        "stalls_listed": len(res.emulation["lateness"]["stalls"]),
        "load": res.emulation["load_average_after"],
    }


def data_timeline(pcap: Path, src: str, seg: int = PAYLOAD) -> tuple[dict[int, float], list[tuple[float, int]], float]:
    """First transmission time of every data segment (keyed by segment index) and every
    retransmission (time, segment index), in seconds from the flow's SYN on the link, and the
    SYN's own time (seconds of sim time). A retransmission is a segment starting below the
    highest sequence number sent before it (segment sizes may vary; the index is the start
    offset / `seg`, 1448 by default)."""
    segs = [s for s in pcapread.tcp_segments(pcap) if s.src == src]
    syn = next(s for s in segs if s.syn)
    first: dict[int, float] = {}
    rtx: list[tuple[float, int]] = []
    snd_max = 0
    for s in segs:
        if s.payload == 0:
            continue
        start = (s.seq - syn.seq - 1) % (1 << 32)
        k = start // seg
        t = (s.t_ns - syn.t_ns) / 1e9
        if start < snd_max:
            rtx.append((t, k))
        else:
            first.setdefault(k, t)
        snd_max = max(snd_max, start + s.payload)
    return first, rtx, syn.t_ns / 1e9


# A Linux timeline that differs from rexmit's is measured again when the emulator ran late by
# more than this during the recovery (see `recovery_stall`), at most TIMELINE_ATTEMPTS times.
TIMELINE_STALL_S = TIMELINE_TOL_S / 2
TIMELINE_ATTEMPTS = 3


def recovery_stall(
    res: rexmit.RunResult, firsts: dict[int, float], rtx: list[tuple[float, int]], syn_s: float
) -> float:
    """The emulator's largest lateness (seconds) while the first dropped segment's recovery was
    under way. An event that runs late delays the packets behind it, and through the ACK clock
    the packets one round trip later: a stall of 5 ms one round trip before a fast retransmit
    moved it 3.3 ms in a traced run (cubic drops3; a 12 ms stall moved it 11 ms on CI). The
    window runs back from the dropped segment's first transmission by its retransmission delay
    (at least a round trip) and ends at the last retransmission."""
    if res.emulation is None or not rtx:
        return 0.0
    t_rtx, k = rtx[0]
    lo = syn_s + firsts[k] - (t_rtx - firsts[k])
    hi = syn_s + rtx[-1][0]
    late = res.emulation["lateness"]
    return max((x["late_s"] for x in late["stalls"] if lo <= x["at_s"] <= hi), default=0.0)


def timeline_case(cc: str, case: str, linux_side: dict[str, Any] | None = None) -> dict[str, Any]:
    """Both stacks' retransmission timeline; `linux_side` reuses the Linux side of an earlier
    run (after a change to rexmit only the simulation needs rerunning). A Linux side that
    differs from rexmit's while the emulator stalled during its recovery by more than
    TIMELINE_STALL_S measured the emulator, not Linux: it is measured again (TIMELINE_ATTEMPTS
    in all), and the row keeps each discarded attempt's stall and difference. A difference
    without such a stall stands."""
    drops = DROPS[case]
    row: dict[str, Any] = {"cc": cc, "case": case, "drops": drops}
    if linux_side is not None:
        row["linux"] = linux_side
    for real in (False, True) if linux_side is None else (False,):
        nbytes = TAIL_SEGMENTS * PAYLOAD if case == "tail" else None
        s = scenario(cc, secs=3.0 if case != "tail" else 4.0, drop_segments=drops, real=real, nbytes=nbytes, warmup=0.0)
        key = "linux" if real else "rexmit"
        discarded: list[dict[str, Any]] = []
        while True:
            with tempfile.TemporaryDirectory() as d:
                res = run(s, real, Path(d))
                firsts, rtx, syn_s = data_timeline(Path(res.pcap_files[0]), "10.0.1.1")
            # Each retransmission: since the dropped segment's first transmission.
            row[key] = {
                "rtx": [{"seg": k, "since_first_tx_s": t - firsts[k], "t_s": t} for t, k in rtx],
                "flow": flows_of(res)[0],
                "lateness": lateness(res),
                "partial": res.partial,
            }
            if not real:
                break
            stall = recovery_stall(res, firsts, rtx, syn_s)
            row[key]["recovery_stall_s"] = stall
            row[key]["discarded"] = discarded
            verdict = timeline_verdict(row)
            if verdict == "agree" or stall <= TIMELINE_STALL_S or len(discarded) + 1 >= TIMELINE_ATTEMPTS:
                break
            discarded.append({"recovery_stall_s": stall, "verdict": verdict})
    row["verdict"] = timeline_verdict(row)
    return row


def timeline_verdict(row: dict[str, Any]) -> str:
    a, b = row["rexmit"]["rtx"], row["linux"]["rtx"]
    if [r["seg"] for r in a] != [r["seg"] for r in b]:
        return "differs (segments)"
    worst = max((abs(x["since_first_tx_s"] - y["since_first_tx_s"]) for x, y in zip(a, b)), default=0.0)
    if worst <= TIMELINE_TOL_S:
        return "agree"
    stall = row["linux"].get("recovery_stall_s", 0.0)
    if stall > TIMELINE_STALL_S:
        return f"emulation stalled {stall * 1e3:.1f} ms in the recovery (differs {worst * 1e3:.1f} ms)"
    return f"differs ({worst * 1e3:.1f} ms)"


STATS_CASES: list[tuple[str, dict[str, Any]]] = [
    ("uniform_0.001", {"loss": 0.001}),
    ("uniform_0.01", {"loss": 0.01}),
    ("uniform_0.02", {"loss": 0.02}),
    ("droptail_2flows", {"flows": 2, "queue": 50}),
    ("droptail_4flows", {"flows": 4, "queue": 50}),
]


def stats_case(
    cc: str,
    case: str,
    params: dict[str, Any],
    seeds: list[int],
    secs: float,
    linux_runs: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Both stacks over the seeds; `linux_runs` reuses the Linux side of an earlier run (after
    a change to rexmit only the simulation needs rerunning)."""
    row: dict[str, Any] = {"cc": cc, "case": case, "seeds": seeds, "secs": secs}
    if linux_runs is not None:
        row["linux"] = linux_runs
    for real in (False, True):
        if real and linux_runs is not None:
            continue
        runs = []
        for seed in seeds:
            with tempfile.TemporaryDirectory() as d:
                res = run(scenario(cc, seed=seed, secs=secs, **params), real, Path(d))
            fl = flows_of(res)
            g = [f["goodput_bps"] for f in fl]
            runs.append(
                {
                    "goodput_bps": sum(g),
                    "jain": sum(g) ** 2 / (len(g) * sum(x * x for x in g)) if any(g) else 0.0,
                    "retransmits": sum(f["retransmits"] for f in fl),
                    "timeouts": sum(f["timeouts"] for f in fl),
                    "lateness": lateness(res),
                    "partial": res.partial,
                }
            )
        row["linux" if real else "rexmit"] = runs
    lin = [r["goodput_bps"] for r in row["linux"]]
    ours = [r["goodput_bps"] for r in row["rexmit"]]
    row["rel_goodput"], row["verdict"] = compare.verdict(statistics.mean(lin), compare.ci95(lin), ours, BAND)
    return row


def load(name: str) -> list[dict[str, Any]]:
    p = RESULTS / name
    return json.loads(p.read_text()) if p.is_file() else []


def save(name: str, rows: list[dict[str, Any]]) -> None:
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / name).write_text(json.dumps(rows, indent=1) + "\n")


def mean_ci(xs: list[float], scale: float = 1.0, digits: int = 2) -> str:
    return f"{statistics.mean(xs) / scale:.{digits}f} ± {compare.ci95(xs) / scale:.{digits}f}"


def tables(tl: list[dict[str, Any]], st: list[dict[str, Any]]) -> list[str]:
    out = ["<!-- written by validation/linux.py tables; explained in docs/validation_linux.md -->", ""]
    if tl:
        out += [
            "### Scripted drops: retransmission timelines at R1->R2",
            "",
            f"Each retransmission of a dropped segment, in ms after that segment's first transmission. Verdict `agree`: the same segments retransmitted, each within {TIMELINE_TOL_S * 1e3:.0f} ms.",
            "",
            "| cc | case | dropped | rexmit (seg: ms) | Linux (seg: ms) | verdict | RTOs rexmit / Linux |",
            "|---|---|---|---|---|---|---|",
        ]

        def fmt(r: dict[str, Any], side: str) -> str:
            return ", ".join(f"{x['seg']}: {x['since_first_tx_s'] * 1e3:.1f}" for x in r[side]["rtx"]) or "none"

        for r in tl:
            out.append(
                f"| {r['cc']} | {r['case']} | {', '.join(map(str, r['drops']))} | {fmt(r, 'rexmit')} | {fmt(r, 'linux')} | {r['verdict']} | {r['rexmit']['flow'].get('timeouts', 0):.0f} / {r['linux']['flow'].get('timeouts', 0):.0f} |"
            )
        out.append("")
    if st:
        out += [
            "### Uniform loss and drop-tail competition",
            "",
            f"Means over the seeds ± 95% confidence half-width; total over the flows. Verdict as for ns-2/ns-3: `agree` = goodput within ±{BAND:.0%} of Linux's; `CIs overlap`; `differs`. Jain = fairness index of the flows' goodputs. Lateness: the emulator's p99 over the Linux runs (worst run), and how many runs exceeded the 1 ms bound.",
            "",
            "| cc | case | seeds | goodput rexmit (Mb/s) | goodput Linux (Mb/s) | diff | verdict | rtx rexmit | rtx Linux | RTOs rexmit | RTOs Linux | Jain rexmit / Linux | lateness p99 max (ms) | partial |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for r in st:
            a, b = r["rexmit"], r["linux"]
            col = lambda rows, k: [x[k] for x in rows]
            late = [x["lateness"]["p99_s"] for x in b if x["lateness"]]
            partial = sum(1 for x in b if x["partial"])
            out.append(
                f"| {r['cc']} | {r['case']} | {len(r['seeds'])} | {mean_ci(col(a, 'goodput_bps'), 1e6)} | {mean_ci(col(b, 'goodput_bps'), 1e6)} | {r['rel_goodput']:+.1%} | {r['verdict']} "
                f"| {mean_ci(col(a, 'retransmits'), 1, 1)} | {mean_ci(col(b, 'retransmits'), 1, 1)} | {mean_ci(col(a, 'timeouts'), 1, 1)} | {mean_ci(col(b, 'timeouts'), 1, 1)} "
                f"| {statistics.mean(col(a, 'jain')):.3f} / {statistics.mean(col(b, 'jain')):.3f} | {max(late, default=0) * 1e3:.2f} | {partial}/{len(b)} |"
            )
        out.append("")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "what",
        choices=["timelines", "stats", "resim", "retimeline", "tables"],
        help="resim / retimeline: rerun only rexmit's side of the saved statistics / timelines",
    )
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--duration", type=float, default=15.0)
    ap.add_argument("--cc", action="append", help="only these controllers (repeatable)")
    ap.add_argument(
        "--fresh",
        action="store_true",
        help="rerun the cases of the selected controllers that are already in the results",
    )
    ap.add_argument("--case", action="append", help="stats: only these cases (repeatable), e.g. droptail_2flows")
    ap.add_argument("--out", default=str(HERE.parent / "docs" / "validation_linux_tables.md"))
    args = ap.parse_args(argv)
    ccs = args.cc or list(CCS)
    if args.what in ("timelines", "stats"):
        why = emulation.unavailable()
        if why is not None:
            print(f"cannot emulate on this machine: {why}", file=sys.stderr)
            return 4
    if args.what == "timelines":
        rows = [r for r in load("linux_timelines.json") if not (args.fresh and r["cc"] in ccs)]
        for cc in ccs:
            for case in DROPS:
                if any(r["cc"] == cc and r["case"] == case for r in rows):
                    continue
                r = timeline_case(cc, case)
                print(f"{cc:<6} {case:<7} {r['verdict']}", file=sys.stderr)
                rows.append(r)
                save("linux_timelines.json", rows)
    elif args.what == "stats":
        cases = args.case or [c for c, _ in STATS_CASES]
        rows = [r for r in load("linux_stats.json") if not (args.fresh and r["cc"] in ccs and r["case"] in cases)]
        seeds = list(range(1, args.seeds + 1))
        for case, params in STATS_CASES:
            if case not in cases:
                continue
            for cc in ccs:
                if any(r["cc"] == cc and r["case"] == case and len(r["seeds"]) >= len(seeds) for r in rows):
                    continue
                r = stats_case(cc, case, params, seeds, args.duration)
                print(f"{cc:<6} {case:<16} {r['rel_goodput']:+.1%} {r['verdict']}", file=sys.stderr)
                rows = [x for x in rows if not (x["cc"] == cc and x["case"] == case)] + [r]
                save("linux_stats.json", rows)
    elif args.what == "resim":
        rows = load("linux_stats.json")
        params = dict(STATS_CASES)
        rows = [
            stats_case(r["cc"], r["case"], params[r["case"]], r["seeds"], r["secs"], r["linux"])
            if r["cc"] in ccs
            else r
            for r in rows
        ]
        save("linux_stats.json", rows)
    elif args.what == "retimeline":
        rows = [
            timeline_case(r["cc"], r["case"], r["linux"]) if r["cc"] in ccs else r for r in load("linux_timelines.json")
        ]
        save("linux_timelines.json", rows)
    order = {c: i for i, c in enumerate(CCS)}
    tl = sorted(load("linux_timelines.json"), key=lambda r: (order.get(r["cc"], 9), list(DROPS).index(r["case"])))
    st = sorted(
        load("linux_stats.json"), key=lambda r: ([c for c, _ in STATS_CASES].index(r["case"]), order.get(r["cc"], 9))
    )
    Path(args.out).write_text("\n".join(tables(tl, st)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
