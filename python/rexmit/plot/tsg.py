"""Time-sequence graphs in the style of tcptrace/xplot and Wireshark's Stevens graph: what the
sender put on the wire (new data, retransmissions coloured by cause) against what came back
(cumulative ACK, SACK and D-SACK blocks, the receive window; for SCTP TSNs per path, the
cumulative TSN ack, gap and nr-gap blocks)."""

from __future__ import annotations

import numpy as np

from rexmit.plot.figure import Figure, Panel
from rexmit.plot.trace import BLOCKS, CAUSES, FlowTrace

#: Retransmission colours by cause code (``trace.CAUSES``); new data is blue.
CAUSE_COLORS = {
    0: "#0072B2",
    1: "#D55E00",
    2: "#CC79A7",
    3: "#882255",
    4: "#117733",
    5: "#999933",
    6: "#AA4499",
    7: "#44AA99",
    8: "#332288",
    9: "#888888",
    10: "#117733",
}
BLOCK_COLORS = {1: "#56B4E9", 2: "#009E73", 3: "#56B4E9", 4: "#009E73"}
PATH_COLORS = ["#0072B2", "#E69F00", "#44AA99", "#999933"]
ACK_COLOR = "#000000"
RWND_COLOR = "#E69F00"


def _retransmissions(panel: Panel, tr: FlowTrace, bars: bool) -> None:
    s = tr.sent
    for code in sorted(set(s["cause"].tolist()) - {0}):
        sel = s["cause"] == code
        name = f"retransmitted: {CAUSES.get(int(code), code)}"
        if bars:
            panel.add(
                "bars",
                name,
                s["t"][sel],
                s["start"][sel],
                CAUSE_COLORS.get(int(code), "#888888"),
                y2=s["end"][sel],
                marker=True,
            )
        else:
            panel.add("points", name, s["t"][sel], s["start"][sel], CAUSE_COLORS.get(int(code), "#888888"))


def _blocks(panel: Panel, tr: FlowTrace, inclusive: bool) -> None:
    b = tr.blocks
    for code in sorted(set(b["kind"].tolist())):
        sel = b["kind"] == code
        end = b["end"][sel] - (1 if inclusive else 0)
        panel.add(
            "bars",
            f"{BLOCKS.get(int(code), code)} blocks",
            b["t"][sel],
            b["start"][sel],
            BLOCK_COLORS.get(int(code), "#888888"),
            y2=end,
        )


def tsg(tr: FlowTrace) -> Figure:
    s, a = tr.sent, tr.acks
    if tr.protocol == "tcp":
        panel = Panel("Sequence number (relative, bytes)")
        _blocks(panel, tr, inclusive=False)
        panel.add("step", "cumulative ACK", a["t"], a["cum"], ACK_COLOR)
        panel.add("step", "receive window (ACK + rwnd)", a["t"], a["cum"] + a["rwnd"], RWND_COLOR, dash=True)
        new = s["cause"] == 0
        panel.add("bars", "new data", s["t"][new], s["start"][new], CAUSE_COLORS[0], y2=s["end"][new])
        _retransmissions(panel, tr, bars=True)
    else:
        panel = Panel("TSN (relative)")
        _blocks(panel, tr, inclusive=True)
        panel.add("step", "cumulative TSN ack", a["t"], a["cum"] - 1, ACK_COLOR)
        new = s["cause"] == 0
        paths = sorted(set(s["path"].tolist()))
        for p in paths:
            sel = new & (s["path"] == p)
            name = "new TSNs" if len(paths) == 1 else f"new TSNs, path {p}"
            panel.add("points", name, s["t"][sel], s["start"][sel], PATH_COLORS[int(p) % len(PATH_COLORS)])
        _retransmissions(panel, tr, bars=False)
    what = "TCP" if tr.protocol == "tcp" else "SCTP"
    panel.spans = tr.recovery_episodes()
    return Figure(f"{tr.flow}: time-sequence graph ({what})", [panel], marks=tr.timeout_times())


def sent_summary(tr: FlowTrace) -> dict[str, int]:
    """Transmissions by cause name (for captions and tests)."""
    codes, counts = np.unique(tr.sent["cause"], return_counts=True)
    return {CAUSES.get(int(c), str(c)): int(n) for c, n in zip(codes, counts)}
