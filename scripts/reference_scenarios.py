#!/usr/bin/env python3
"""Write the reference scenarios (tests/reference/*.toml) whose result digests check that a
restructuring changes nothing (`scripts/digests.sh`). They cover every TCP recovery algorithm
and congestion controller, RACK-TLP, PRR, limited/early retransmit, thin-stream options,
timestamps, finite transfers, the timer variants, competing flows on drop-tail and RED, and SCTP
with SACK/NR-SACK, ordered/unordered, CMT (with each retransmission policy), thin-stream
modifications, RACK for SCTP, reneging, messages, plus HTTP and UDP cross traffic.

    .venv/bin/python scripts/reference_scenarios.py     (rewrites tests/reference/*.toml)
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
import rexmit  # noqa: E402

OUT = ROOT / "tests" / "reference"


def lossy_chain(
    secs: int, errors: list[dict], seed: int = 1, rate: str = "4Mbps", delay: str = "50ms"
) -> rexmit.Scenario:
    s = rexmit.Scenario(stop_time=f"{secs}s", seed=seed)
    q = {"packets": 100}
    s.chain(
        ["S", "G1", "G2", "D"],
        [
            {"rate": "10Mbps", "delay": "0.1ms", "queue": q},
            {"rate": rate, "delay": delay, "queue": q, "errors": errors},
            {"rate": "10Mbps", "delay": "0.1ms", "queue": q},
        ],
    )
    return s


UNIFORM = [{"kind": "uniform", "rate": 0.01, "direction": "forward"}]
BURST = [{"kind": "burst", "rate": 0.002, "size": {"min": 2, "max": 5}, "direction": "forward"}]
REORDER = {"probability": 0.05, "mean_delay": "10ms"}


def tcp_cases() -> dict[str, rexmit.Scenario]:
    out: dict[str, rexmit.Scenario] = {}
    for rec in ["tahoe", "reno", "newreno", "sack"]:
        for cc in ["reno", "cubic", "westwood", "highspeed", "scalable"]:
            s = lossy_chain(20, UNIFORM if cc in ("reno", "cubic") else BURST)
            s.app(
                "bulk",
                "tcp_bulk",
                "S",
                "D",
                tcp={"recovery": rec, "cc": cc, "send_buffer": "1MiB", "recv_buffer": "1MiB"},
            )
            out[f"tcp_{rec}_{cc}"] = s
    s = lossy_chain(20, UNIFORM)
    s.app(
        "bulk",
        "tcp_bulk",
        "S",
        "D",
        tcp={
            "recovery": "sack",
            "cc": "aimd",
            "aimd_a": 2.0,
            "aimd_b": 0.25,
            "send_buffer": "1MiB",
            "recv_buffer": "1MiB",
        },
    )
    out["tcp_sack_aimd"] = s
    extras = {
        "rack_prr_ts": {"recovery": "sack", "rack": True, "tlp": True, "prr": True, "timestamps": True, "dsack": True},
        "lt_er": {"recovery": "newreno", "limited_transmit": True, "early_retransmit": True, "sack": False},
        "thin": {"recovery": "newreno", "thin_linear_timeouts": True, "thin_dupack": True, "nagle": False},
        "new_ack": {"recovery": "sack", "rto_rearm": "new_ack", "initial_cwnd_segments": 10},
        "every_rtx": {"recovery": "sack", "rto_rearm": "every_retransmit", "byte_counting": True},
        "tahoe_ns3": {"recovery": "tahoe", "tahoe_recover_guard": False},
        "bbr": {"recovery": "sack", "cc": "bbr", "rack": True, "tlp": True},
        "cubic_hystart": {"recovery": "sack", "cc": "cubic", "hystart": True},
        "linux_profile": {"profile": "linux", "cc": "cubic"},
    }
    for name, tcp in extras.items():
        s = lossy_chain(20, BURST + UNIFORM[:0] if name != "rack_prr_ts" else UNIFORM)
        if name == "rack_prr_ts":
            s.data["topology"]["links"][1]["reorder"] = REORDER
        s.app("bulk", "tcp_bulk", "S", "D", tcp={**tcp, "send_buffer": "256KiB", "recv_buffer": "64KiB"})
        out[f"tcp_{name}"] = s
    # A finite transfer with a small window, and a message stream.
    s = lossy_chain(30, UNIFORM)
    s.app(
        "xfer",
        "tcp_bulk",
        "S",
        "D",
        bytes="2MB",
        tcp={"recovery": "sack", "recv_buffer": "20KB", "window_scaling": False},
    )
    s.app(
        "msgs",
        "tcp_messages",
        "S",
        "D",
        interarrival={"kind": "exponential", "mean": "50ms"},
        size={"kind": "fixed", "value": 300},
    )
    out["tcp_finite_and_messages"] = s
    # Competing flows on drop-tail and on RED, round-number delays (ties).
    for qd, queue in [("droptail", {"packets": 30}), ("red", {"packets": 60, "red": {"min_th": 5, "max_th": 15}})]:
        s = rexmit.Scenario(stop_time="30s", seed=3)
        left = [{"name": f"S{i}", "rate": "100Mbps", "delay": f"{d}ms"} for i, d in enumerate([11, 20, 30, 49])]
        right = [{"name": f"D{i}", "rate": "100Mbps", "delay": "1ms"} for i in range(4)]
        s.dumbbell({"rate": "10Mbps", "delay": "10ms", "queue": queue}, left, right)
        for i, rec in enumerate(["sack", "newreno", "reno", "sack"]):
            s.app(
                f"f{i}",
                "tcp_bulk",
                f"S{i}",
                f"D{i}",
                start=f"{300 * i}ms",
                tcp={"recovery": rec, "cc": "cubic" if i == 3 else "reno"},
            )
        out[f"tcp_competing_{qd}"] = s
    return out


def sctp_cases() -> dict[str, rexmit.Scenario]:
    out: dict[str, rexmit.Scenario] = {}
    q = {"packets": 833}
    access = {"rate": "100Mbps", "delay": "14ms", "queue": q}
    for nr in [False, True]:
        for unordered in [True, False]:
            s = rexmit.Scenario(stop_time="10s", seed=2)
            s.dumbbell(
                {
                    "rate": "100Mbps",
                    "delay": "2ms",
                    "queue": q,
                    "errors": [{"kind": "uniform", "rate": 0.01, "direction": "forward"}],
                },
                [{"name": "S", **access}],
                [{"name": "R", **access}],
            )
            s.app("assoc", "sctp_bulk", "S", "R", unordered=unordered, sctp={"nr_sack": nr, "send_buffer": "64KiB"})
            out[f"sctp_{'nrsack' if nr else 'sack'}_{'unordered' if unordered else 'ordered'}"] = s
    lossy = lambda r, d: {
        "rate": "100Mbps",
        "delay": d,
        "queue": q,
        "errors": [{"kind": "uniform", "rate": r, "direction": "forward"}],
    }
    path = lambda left, right, loss, d: {
        "left_router": left,
        "right_router": right,
        "bottleneck": lossy(loss, d),
        "left": [],
        "right": [],
    }
    for policy in ["same", "asap", "cwnd", "ssthresh"]:
        s = rexmit.Scenario(stop_time="10s", seed=4)
        s.dual_dumbbell(
            [path("R1", "R2", 0.02, "2ms"), path("R3", "R4", 0.001, "30ms")],
            [
                {"name": "S", "side": "left", "links": [access, access]},
                {"name": "R", "side": "right", "links": [access, access]},
            ],
        )
        s.app(
            "assoc",
            "sctp_bulk",
            "S",
            "R",
            unordered=True,
            sctp={
                "nr_sack": policy != "same",
                "send_buffer": "128KiB",
                "cmt": {"enabled": True, "rtx_policy": policy, "pf": True},
            },
        )
        out[f"sctp_cmt_{policy}"] = s
    thin = {"all": {"all": True}, "efr": {"early_fast_retransmit": True}, "er": {"early_retransmit_rfc5827": True}}
    for name, t in thin.items():
        s = rexmit.Scenario(stop_time="120s", seed=5)
        s.chain(
            ["S", "R"],
            [
                {
                    "rate": "10Mbps",
                    "delay": "50ms",
                    "errors": [{"kind": "uniform", "rate": 0.05, "direction": "forward"}],
                }
            ],
        )
        s.app(
            "thin",
            "sctp_messages",
            "S",
            "R",
            interarrival={"kind": "fixed", "value": "250ms"},
            size={"kind": "fixed", "value": 100},
            sctp={"sack_freq": 1, "thin": t},
        )
        out[f"sctp_thin_{name}"] = s
    for mitigation in ["max_burst", "adaptive"]:
        s = rexmit.Scenario(stop_time="20s", seed=6)
        s.chain(
            ["S", "R"],
            [
                {
                    "rate": "10Mbps",
                    "delay": "20ms",
                    "reorder": REORDER,
                    "errors": [{"kind": "uniform", "rate": 0.01, "direction": "forward"}],
                }
            ],
        )
        s.app(
            "sig",
            "sctp_messages",
            "S",
            "R",
            source="signalling",
            sctp={"rack": {"enabled": True, "tlp": True, "burst_mitigation": mitigation}},
        )
        s.app(
            "bulk", "sctp_bulk", "S", "R", sctp={"rack": {"enabled": True, "tlp": True, "burst_mitigation": mitigation}}
        )
        out[f"sctp_rack_{mitigation}"] = s
    s = rexmit.Scenario(stop_time="10s", seed=7)
    s.chain(
        ["S", "R"],
        [{"rate": "10Mbps", "delay": "10ms", "errors": [{"kind": "uniform", "rate": 0.02, "direction": "forward"}]}],
    )
    s.app(
        "assoc",
        "sctp_bulk",
        "S",
        "R",
        sctp={"renege": "under_memory_pressure", "recv_buffer": "32KiB", "send_buffer": "256KiB"},
    )
    out["sctp_renege"] = s
    return out


def mixed_cases() -> dict[str, rexmit.Scenario]:
    s = rexmit.Scenario(stop_time="20s", seed=8)
    s.dumbbell(
        {"rate": "10Mbps", "delay": "5ms", "queue": {"packets": 100}},
        [{"name": "S", "rate": "100Mbps", "delay": "1ms"}, {"name": "U", "rate": "100Mbps", "delay": "3ms"}],
        [{"name": "C", "rate": "100Mbps", "delay": "20ms"}, {"name": "V", "rate": "100Mbps", "delay": "2ms"}],
    )
    s.app("web", "http", "S", "C")
    s.app(
        "cbr",
        "udp_onoff",
        "U",
        "V",
        rate="4Mbps",
        packet_size=1000,
        on={"kind": "exponential", "mean": "1s"},
        off={"kind": "exponential", "mean": "1s"},
    )
    s.app("bulk", "tcp_bulk", "U", "V", tcp={"recovery": "sack"})
    return {"mixed_http_udp_tcp": s}


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    for f in OUT.glob("*.toml"):
        f.unlink()
    cases = {**tcp_cases(), **sctp_cases(), **mixed_cases()}
    for name, s in cases.items():
        s.validate()
        (OUT / f"{name}.toml").write_text(s.to_toml())
    print(f"wrote {len(cases)} scenarios to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
