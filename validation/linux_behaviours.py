"""The Linux behaviours of issue 38 §2 against the kernel (docs/validation_linux.md, "Linux
behaviours of issue 38 §2"): one scripted timeline per behaviour, run by rexmit in the `linux`
profile, by rexmit with the behaviour's option off, and by Linux 6.x through `rexmit.emulate` on the
same simulated network. Prints one table row per run: what decides the behaviour (cwnd before and
after the event, ssthresh, the undo and probe counters of both stacks, the time of the first
retransmission after the event) and goodput. Emulation needs root (network namespaces).

    python validation/linux_behaviours.py [--cases dsack frto ...] [--no-emulate] [--doc docs/validation_linux.md]

`--doc` writes the tables between the markers BEGIN and END below in that file (they are in
docs/validation_linux.md, "Linux behaviours of issue 38 §2"; `make validate-linux` passes it).

Cases (path S0 - R1 - R2 - D0: 100 Mb/s 1 ms access, 10 Mb/s 20 ms bottleneck of 1000
packets, CUBIC, MSS 1460 with timestamps unless a case turns them off):
  dsack   one segment (index 1500) held 20 ms on R1->R2: overtaken by ~16, a spurious fast
          retransmit; timestamps off, so only the D-SACK can undo it (RFC 3708, Linux
          TCPDSACKUndo).
  eifel   every packet put on R1->R2 in [1.5 s, 2.5 s) held 1 s: a spurious RTO; timestamps
          on, so the first ACK of an original undoes it (RFC 3522, Linux TCPLossUndo).
  frto    the same spike without timestamps: F-RTO decides (RFC 5682, TCPSpuriousRTOs).
  idle    40-segment messages once a second: each starts after more than an RTO of idleness
          (RFC 5681 §4.1 / tcp_slow_start_after_idle): the first flight after the pause.
  cwv     8-segment messages every 100 ms: an application-limited sender, whose cwnd may grow
          only while cwnd-limited (tcp_is_cwnd_limited; RFC 7661).
  tlp     100 segments, the last 3 dropped on R1->R2: a loss probe at ~2·SRTT instead of an RTO
          (RFC 8985 §7).
  epoch   300-segment messages at 3 s and 6 s, one segment of the first dropped, no restart
          after idle: CUBIC's growth after 2.5 s of silence (RFC 9438 §5.8).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import rexmit
from rexmit import emulation

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import linux  # noqa: E402  (data_timeline)
import pcapread  # noqa: E402

SENDER = "10.0.1.1"
# The option each case checks, and the value that turns it off in rexmit.
CASES: dict[str, dict[str, Any]] = {
    "dsack": {"off": {"undo": False}, "tcp": {"timestamps": False}},
    "eifel": {"off": {"undo": False, "frto": False}, "tcp": {}},
    "frto": {"off": {"frto": False}, "tcp": {"timestamps": False}},
    "idle": {"off": {"idle_restart": "off"}, "tcp": {}},
    "cwv": {"off": {"cwnd_limited_growth": False}, "tcp": {}},
    "tlp": {"off": {"tlp": False}, "tcp": {}},
    "epoch": {"off": {"cubic_idle_epoch": False}, "tcp": {"idle_restart": "off"}},
}
SPIKE = (1.5, 2.5, 1.0)  # from, until, delay (s)
DSACK_SEGMENT = 1500
TLP_SEGMENTS = 100
EPOCH_DROP = 150
# Linux's counters (nstat TcpExt) of each case, and rexmit's.
LINUX_COUNTERS = (
    "TCPDSACKUndo",
    "TCPFullUndo",
    "TCPPartialUndo",
    "TCPLossUndo",
    "TCPSpuriousRTOs",
    "TCPLossProbes",
    "TCPLossProbeRecovery",
)
REXMIT_COUNTERS = ("undos_dsack", "undos_timestamps", "undos_frto")


def seg_size(case: str) -> int:
    """Payload of a full segment: MSS 1460 less the timestamps option when it is on."""
    return 1460 if CASES[case]["tcp"].get("timestamps") is False else 1448


def data_timeline(pcap: Path, seg: int) -> tuple[dict[int, float], list[tuple[float, int]], float]:
    """`linux.data_timeline` in seconds of sim time: first transmission of each segment (by
    index), the retransmissions (time, index), and the SYN's time."""
    first, rtx, syn_s = linux.data_timeline(pcap, SENDER, seg)
    return {k: t + syn_s for k, t in first.items()}, [(t + syn_s, k) for t, k in rtx], syn_s


def messages(every: str, size: int) -> dict[str, Any]:
    """A `tcp_messages` app sending `size` bytes every `every` (fixed, so the kernel side can run it)."""
    return {
        "kind": "tcp_messages",
        "interarrival": {"kind": "fixed", "value": every},
        "size": {"kind": "fixed", "value": size},
    }


def scenario(case: str, tcp_extra: dict[str, Any], real: bool = False) -> rexmit.Scenario:
    SEG = seg_size(case)
    tcp = {"profile": "linux", "cc": "cubic", **CASES[case]["tcp"], **tcp_extra}
    errors: list[dict[str, Any]] = []
    app: dict[str, Any] = {"name": "f", "from": "S0", "to": "D0", "tcp": tcp}
    stop = 4.0
    if case == "dsack":
        seq = 1 + DSACK_SEGMENT * SEG
        errors.append({"kind": "scripted", "app": "f", "tcp_seqs": [seq], "delay": "20ms", "direction": "forward"})
        app["kind"] = "tcp_bulk"
    elif case in ("eifel", "frto"):
        lo, hi, d = SPIKE
        errors.append({"kind": "spike", "from": f"{lo}s", "until": f"{hi}s", "delay": f"{d}s", "direction": "forward"})
        app["kind"] = "tcp_bulk"
    elif case == "idle":
        app.update(messages("1s", 40 * SEG))
        stop = 4.6
    elif case == "cwv":
        app.update(messages("100ms", 8 * SEG))
        stop = 5.0
    elif case == "epoch":
        # 300-segment messages at 3 and 6 s; segment 150 of the first is dropped, so CUBIC has
        # a W_max and an epoch when the second starts after ~2.5 s of silence.
        seqs = [1 + EPOCH_DROP * SEG]
        errors.append({"kind": "scripted", "app": "f", "tcp_seqs": seqs, "direction": "forward"})
        app.update(messages("3s", 300 * SEG))
        stop = 7.0
    elif case == "tlp":
        seqs = [1 + k * SEG for k in range(TLP_SEGMENTS - 3, TLP_SEGMENTS)]
        errors.append({"kind": "scripted", "app": "f", "tcp_seqs": seqs, "direction": "forward"})
        app.update(kind="tcp_bulk", bytes=TLP_SEGMENTS * SEG)
        stop = 2.0
    bottleneck: dict[str, Any] = {"rate": "10Mbps", "delay": "20ms", "queue": {"packets": 1000}}
    if errors:
        bottleneck["errors"] = errors
    data = {
        "seed": 1,
        "stop_time": f"{stop}s",
        "topology": {
            "kind": "dumbbell",
            "bottleneck": bottleneck,
            "left": [{"name": "S0", "rate": "100Mbps", "delay": "1ms"}],
            "right": [{"name": "D0", "rate": "100Mbps", "delay": "1ms"}],
        },
        "apps": [app],
        "metrics": {"pcap": [{"link": "S0->R1"}]},
        "emulation": {"real_hosts": ["S0", "D0"], "tcp_info_interval": "2ms"},
    }
    if not real:
        # rexmit's cwnd and ssthresh from its trace; Linux's from TCP_INFO samples.
        data["metrics"]["trace"] = [{"flow": "f"}]
    return rexmit.Scenario.from_dict(data)


def cwnd_series(res: rexmit.RunResult, seg: int) -> list[tuple[float, float, float, float]]:
    """(t_s, cwnd, ssthresh, srtt_ms), windows in segments: TCP_INFO samples for Linux, the
    trace for rexmit."""
    if res.emulation is not None:
        snd = res.emulation["apps"][0]["sender"]
        return [(x["t_s"], x["snd_cwnd"], x["snd_ssthresh"], x["rtt_us"] / 1e3) for x in snd["tcp_info_samples"]]
    st = res.tables["trace_state"].to_pydict()
    return [(t, c / seg, s / seg, r / 1e6) for t, c, s, r in zip(st["t_s"], st["cwnd"], st["ssthresh"], st["srtt_ns"])]


def at(series: list[tuple[float, float, float, float]], t: float) -> tuple[float, float, float]:
    """cwnd, ssthresh and srtt in force at time t (the last sample at or before it)."""
    last = (float("nan"),) * 3
    for ts, *rest in series:
        if ts > t:
            break
        last = tuple(rest)
    return last  # type: ignore[return-value]


def flights(pcap: Path, starts: list[float], rtt: float = 0.045) -> list[int]:
    """Data segments sent within one round trip of each message's first segment (the first
    flight after each pause, read from the pcap of the sender's access link S0->R1)."""
    segs = [(x.t_ns / 1e9, x.payload) for x in pcapread.tcp_segments(pcap) if x.src == SENDER and x.payload > 0]
    out = []
    for t0 in starts:
        first = next((t for t, _ in segs if t >= t0), None)
        out.append(sum(1 for t, _ in segs if first is not None and first <= t < first + rtt))
    return out


def measure(case: str, res: rexmit.RunResult) -> dict[str, Any]:
    f = res.flow("f")
    pcap = Path(res.pcap_files[0])
    seg = seg_size(case)
    firsts, rtx, syn_s = data_timeline(pcap, seg)
    series = cwnd_series(res, seg)
    m: dict[str, Any] = {
        "goodput_mbps": f["goodput_bps"] / 1e6,
        "retransmissions": f.get("retransmissions"),
        "timeouts": f.get("timeouts"),
        "completion_ms": (f.get("completion_time_s") or float("nan")) * 1e3,
    }
    if res.emulation is not None:
        ns = res.emulation["apps"][0]["sender"]["netstat"]
        m["counters"] = {k: ns.get(k, 0) for k in LINUX_COUNTERS if ns.get(k, 0)}
        m["netstat"] = ns
        m["lateness_p99_ms"] = res.emulation["lateness"]["p99_s"] * 1e3
        m["partial"] = res.partial
    else:
        m["counters"] = {k: int(f.get(k) or 0) for k in REXMIT_COUNTERS if f.get(k)}
        # Loss probes from the trace (cause 4: a retransmitted probe, 10: one of new data),
        # Linux's TCPLossProbes.
        causes = res.tables["trace_sent"].to_pydict()["cause"]
        if probes := sum(1 for c in causes if c in (4, 10)):
            m["counters"]["tlp_probes"] = probes
    if case in ("dsack", "eifel", "frto", "tlp"):
        # The event: the delayed or first dropped segment's first transmission, or the spike's
        # start; the retransmission that answers it: the first one after it.
        if case == "dsack":
            t_ev = firsts.get(DSACK_SEGMENT)
        elif case == "tlp":
            t_ev = firsts.get(TLP_SEGMENTS - 3)
        else:
            t_ev = SPIKE[0]
        ev = [t for t, k in rtx if t_ev is not None and t >= t_ev]
        if ev:
            t_rtx = ev[0]
            m["rtx_after_event_ms"] = (t_rtx - t_ev) * 1e3
            if case == "tlp":
                # Since the last segment of the burst was sent.
                m["rtx_after_last_ms"] = (t_rtx - firsts[TLP_SEGMENTS - 1]) * 1e3
            # "After": half a second after the retransmission, or after the spike's delayed
            # packets are acknowledged (no undo can come earlier).
            t_after = t_rtx + 0.5
            if case in ("eifel", "frto"):
                t_after = max(t_after, SPIKE[0] + SPIKE[2] + 0.5)
            before = at(series, min(t_rtx, t_ev) - 0.001)
            after = at(series, t_after)
            m["cwnd_before"], m["cwnd_after"], m["ssthresh_after"] = before[0], after[0], after[1]
            m["srtt_ms"] = before[2]
            m["after/before"] = after[0] / before[0] if before[0] else None
            window = [x for x in series if t_rtx <= x[0] <= t_after]
            low = min(window, key=lambda x: x[1], default=None)
            m["cwnd_min"] = low[1] if low else None
            # When the window is back after its lowest point (an undo, or regrowth without one),
            # from the event.
            back = next((x[0] for x in series if low and x[0] > low[0] and x[1] >= 0.95 * before[0]), None)
            m["restored_ms"] = (back - t_ev) * 1e3 if back is not None else None
    if case == "idle":
        # Messages are written at 1, 2, 3, 4 s of sim time (the app starts at 0).
        starts = [float(i) - 0.001 for i in range(1, 5)]
        m["flights"] = flights(pcap, starts)
        m["cwnd_before_msgs"] = [at(series, t)[0] for t in starts]
    if case == "epoch":
        # cwnd when the second message starts, and one and two round trips later.
        m["cwnd_at_6s"], m["ssthresh_at_6s"], m["srtt_ms"] = at(series, 5.999)
        m["cwnd_6.1s"] = at(series, 6.1)[0]
        m["cwnd_6.2s"] = at(series, 6.2)[0]
        m["growth_0.2s"] = m["cwnd_6.2s"] / m["cwnd_at_6s"] if m["cwnd_at_6s"] else None
    if case == "cwv":
        m["cwnd_end"], m["ssthresh_end"], _ = at(series, 4.95)
    return m


def run_case(case: str, real: bool, tcp_extra: dict[str, Any]) -> dict[str, Any]:
    s = scenario(case, tcp_extra, real)
    with tempfile.TemporaryDirectory() as d:
        res = emulation.emulate(s, out_dir=d) if real else rexmit.run(s, out_dir=d)
        return measure(case, res)


def fmt(v: Any) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        if v != v:
            return "–"
        if abs(v) > 1e9:
            return "∞"
        if abs(v) < 10 and v != int(v):
            return f"{v:.2f}"
        return f"{v:.1f}" if abs(v) < 100 else f"{v:.0f}"
    if isinstance(v, dict):
        return ", ".join(f"{k} {x}" for k, x in v.items()) or "none"
    if isinstance(v, list):
        return " ".join(fmt(x) for x in v)
    return str(v)


_WINDOW = ["cwnd_before", "cwnd_min", "cwnd_after", "after/before", "ssthresh_after", "restored_ms", "srtt_ms"]
COLUMNS = {
    "dsack": [*_WINDOW, "rtx_after_event_ms", "retransmissions", "counters", "goodput_mbps"],
    "eifel": [*_WINDOW, "rtx_after_event_ms", "timeouts", "retransmissions", "counters", "goodput_mbps"],
    "frto": [*_WINDOW, "rtx_after_event_ms", "timeouts", "retransmissions", "counters", "goodput_mbps"],
    "idle": ["cwnd_before_msgs", "flights", "retransmissions", "goodput_mbps"],
    "epoch": ["cwnd_at_6s", "ssthresh_at_6s", "srtt_ms", "cwnd_6.1s", "cwnd_6.2s", "growth_0.2s", "retransmissions"],
    "cwv": ["cwnd_end", "ssthresh_end", "retransmissions", "goodput_mbps"],
    "tlp": ["srtt_ms", "rtx_after_last_ms", "timeouts", "retransmissions", "counters", "completion_ms"],
}


LATE_ATTEMPTS = 3
BEGIN = "<!-- linux_behaviours.py: begin -->"
END = "<!-- linux_behaviours.py: end -->"


def write_doc(path: Path, lines: list[str]) -> None:
    text = path.read_text()
    a, b = text.index(BEGIN) + len(BEGIN), text.index(END)
    path.write_text(text[:a] + "\n" + "\n".join(lines) + "\n" + text[b:])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", nargs="+", default=list(CASES), choices=list(CASES))
    ap.add_argument("--no-emulate", action="store_true")
    ap.add_argument("--json", type=Path, help="also write every measurement here")
    ap.add_argument("--doc", type=Path, help="write the tables between the markers of this file")
    args = ap.parse_args()
    record = {}
    lines: list[str] = []

    def out(line: str) -> None:
        print(line, flush=True)
        lines.append(line)

    for case in args.cases:
        off = CASES[case]["off"]
        off_label = ", ".join(f"{k} = {json.dumps(v)}" for k, v in off.items())
        runs = [("rexmit", False, {}), (f"rexmit {off_label}", False, off)]
        if not args.no_emulate:
            runs.append(("Linux", True, {}))
        cols = COLUMNS[case]
        out(f"\n`{case}`\n")
        out("| run | " + " | ".join(cols) + " |")
        out("|---" * (len(cols) + 1) + "|")
        for label, real, extra in runs:
            m = run_case(case, real, extra)
            # A run the emulator could not keep on time measures the emulator: again, at
            # most LATE_ATTEMPTS in all (docs/validation_linux.md, "The emulator and its error").
            attempts = 1
            while real and m.get("partial") and attempts < LATE_ATTEMPTS:
                m, attempts = run_case(case, real, extra), attempts + 1
            record[f"{case}/{label}"] = m
            note = ""
            if real and m.get("partial"):
                note = f" (partial: p99 lateness {m['lateness_p99_ms']:.2f} ms)"
            out(f"| {label}{note} | " + " | ".join(fmt(m.get(c)) for c in cols) + " |")
    if args.json:
        args.json.write_text(json.dumps(record, indent=1, default=str))
    if args.doc:
        write_doc(args.doc, lines)


if __name__ == "__main__":
    main()
