"""Seed 003's analytical model of the TCP buffers needed during loss recovery.

One TCP flow through one bottleneck of rate C (packets/s) and buffer B (packets), round-trip
propagation delay RTTm (seed 003 Fig. 3), with the generalised AIMD of §II: on every ACK
cwnd ← cwnd + a (Eq. 1, a in segments per ACK: a = 1/cwnd is Reno, a = 0.01 Scalable TCP), on
DupThresh duplicate ACKs cwnd ← (1 − b)·cwnd (Eq. 2). When the window overflows the bottleneck,
a·(C·RTTm + B) more packets are lost before the sender notices (§III), and the sender must hold
every unacknowledged packet (retransmission buffer) while the receiver holds every packet above
the first hole (out-of-order buffer) until recovery ends. §III.A (NewReno, Eq. 3) and §III.B (SACK)
give the largest number of unacknowledged packets U, hence both buffer sizes Q ≥ max U (point iii).

Owns the arithmetic only (pure functions of the paper's symbols). Windows and buffers are in
packets; :func:`required_buffers` converts them to payload bytes for given link units. It does not
simulate anything; ``rexmit reproduce buffer-sizing`` compares it with simulations.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Union

Number = Union[int, float]

# IPv4 (20 B) + TCP (20 B) headers without options: a 1500 B packet carries 1460 B of payload.
HEADER_BYTES = 40

__all__ = [
    "HEADER_BYTES",
    "BufferRequirement",
    "packet_rate",
    "pipe_size",
    "window_at_loss",
    "loss_count",
    "window_at_detection",
    "increase_per_rtt",
    "newreno_unacked",
    "newreno_max_unacked",
    "sack_unacked_before_recovery_ack",
    "sack_max_unacked",
    "condition_i",
    "condition_ii",
    "required_buffers",
]


def _check(name: str, value: Number, low: float, high: float, low_open: bool, high_open: bool = True) -> float:
    """``value`` as a float, or ValueError naming ``name`` and the allowed range."""
    shown = f"{'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name}: {value!r} is not a number (allowed range {shown})")
    v = float(value)
    too_low = v <= low if low_open else v < low
    too_high = v >= high if high_open else v > high
    if math.isnan(v) or too_low or too_high:
        raise ValueError(f"{name}: {value!r} is outside the allowed range {shown}")
    return v


def _link(c: Number, rtt_m: Number, b_buf: Number) -> tuple[float, float, float]:
    return (
        _check("C", c, 0.0, math.inf, low_open=True),
        _check("RTTm", rtt_m, 0.0, math.inf, low_open=True),
        _check("B", b_buf, 0.0, math.inf, low_open=False),
    )


def _a(a: Number) -> float:
    # a is an increase per ACK: above one segment per ACK the window would grow faster than slow start.
    return _check("a", a, 0.0, 1.0, low_open=True, high_open=False)


def _b(b: Number) -> float:
    return _check("b", b, 0.0, 1.0, low_open=True)


def packet_rate(rate_bps: Number, packet_size: Number) -> float:
    """C in packets/s (seed 003 §III) of a link of ``rate_bps`` carrying ``packet_size``-byte packets."""
    rate = _check("rate_bps", rate_bps, 0.0, math.inf, low_open=True)
    size = _check("packet_size", packet_size, HEADER_BYTES, 65535, low_open=True, high_open=False)
    if not size.is_integer():
        raise ValueError(f"packet_size: {packet_size!r} is not a whole number of bytes")
    return rate / (8.0 * size)


def pipe_size(c: Number, rtt_m: Number, b_buf: Number) -> float:
    """C·RTTm + B: the packets the path holds, in flight plus queued at the bottleneck."""
    c, rtt_m, b_buf = _link(c, rtt_m, b_buf)
    return c * rtt_m + b_buf


def window_at_loss(c: Number, rtt_m: Number, b_buf: Number) -> float:
    """W(t0) = C·RTTm + B + 1 (§III): the window when the first lost packet P is sent."""
    return pipe_size(c, rtt_m, b_buf) + 1.0


def loss_count(c: Number, rtt_m: Number, b_buf: Number, a: Number) -> float:
    """a·(C·RTTm + B) (§III): packets lost after P before DupThresh duplicate ACKs for P arrive,
    = W(t2) − W(t0): each of the C·RTTm + B ACKs received meanwhile adds a to the window, and every
    extra packet finds the bottleneck buffer full."""
    return _a(a) * pipe_size(c, rtt_m, b_buf)


def window_at_detection(c: Number, rtt_m: Number, b_buf: Number, a: Number) -> float:
    """W(t2) = W(t0) + a·(C·RTTm + B) (§III): the window when P's loss is detected."""
    return window_at_loss(c, rtt_m, b_buf) + loss_count(c, rtt_m, b_buf, a)


def increase_per_rtt(c: Number, rtt_m: Number, b_buf: Number, a: Number) -> float:
    """The per-ACK increase a as segments per RTT at the loss point, a·(C·RTTm + B).

    rexmit's ``cc = "aimd"`` takes ``aimd_a`` in segments per RTT (cwnd grows aimd_a/cwnd per
    ACK); with this value its per-ACK increase equals a when cwnd = C·RTTm + B, so it loses the same
    a·(C·RTTm + B) packets per episode as the paper's constant-a sender."""
    return loss_count(c, rtt_m, b_buf, a)


def newreno_unacked(n: Number, c: Number, rtt_m: Number, b_buf: Number, a: Number, b: Number) -> float:
    """U_n, unacknowledged packets when NewReno retransmits its n-th lost packet (§III.A).

    U_0 = W(t2); for n ≥ 1, Eq. (3): U_n = W(t2) + n·(C·RTTm + B − b·W(t2)) − (n − 1)·(1/a + 1):
    each RTT of fast recovery sends C·RTTm + B − b·W(t2) new packets while the cumulative ACK moves
    up to the next hole, 1/a + 1 packets further. ``n`` may be fractional, as the paper evaluates
    Eq. (3) at n = a·(C·RTTm + B)."""
    n = _check("n", n, 0.0, math.inf, low_open=False)
    a, b = _a(a), _b(b)
    w2 = window_at_detection(c, rtt_m, b_buf, a)
    if n == 0:
        return w2
    return w2 + n * (pipe_size(c, rtt_m, b_buf) - b * w2) - (n - 1) * (1.0 / a + 1.0)


def newreno_max_unacked(c: Number, rtt_m: Number, b_buf: Number, a: Number, b: Number) -> float:
    """max U_n over the recovery, n from 0 to N = a·(C·RTTm + B) (§III.A point iii).

    Eq. (3) is linear in n for n ≥ 1, so the maximum is at U_0, U_1 or U_N; the paper's Q ≥ U_N is
    the usual case, where U_n increases with n."""
    n_last = loss_count(c, rtt_m, b_buf, a)
    candidates = [newreno_unacked(0, c, rtt_m, b_buf, a, b)]
    if n_last >= 1:
        candidates += [newreno_unacked(1, c, rtt_m, b_buf, a, b), newreno_unacked(n_last, c, rtt_m, b_buf, a, b)]
    return max(candidates)


def sack_unacked_before_recovery_ack(c: Number, rtt_m: Number, b_buf: Number, a: Number, b: Number) -> float:
    """U_1 of SACK (§III.B): unacknowledged packets just before the ACK of P arrives,
    W(t2) + (C·RTTm + B − b·W(t2) − a·(C·RTTm + B)): one RTT brings C·RTTm + B duplicate ACKs; the
    first b·W(t2) send nothing (the window was cut) and a·(C·RTTm + B) trigger retransmissions,
    the rest send new packets. Every loss is repaired in this RTT."""
    _b(b)
    x = pipe_size(c, rtt_m, b_buf)
    w2 = window_at_detection(c, rtt_m, b_buf, a)
    return w2 + x - b * w2 - loss_count(c, rtt_m, b_buf, a)


def sack_max_unacked(c: Number, rtt_m: Number, b_buf: Number, a: Number, b: Number) -> float:
    """max(U_0, U_1) for SACK (§III.B point iii): after the ACK of P, U falls to (1 − b)·W(t2)."""
    return max(window_at_detection(c, rtt_m, b_buf, a), sack_unacked_before_recovery_ack(c, rtt_m, b_buf, a, b))


def condition_i(c: Number, rtt_m: Number, b_buf: Number, a: Number, b: Number) -> bool:
    """Point i (§III.A): no losses during recovery, (1 − b)·W(t2) ≤ C·RTTm + B,
    i.e. 1 − b ≤ 1/(1 + a + 1/(C·RTTm + B)) ≈ 1/(1 + a)."""
    return (1.0 - _b(b)) * window_at_detection(c, rtt_m, b_buf, a) <= pipe_size(c, rtt_m, b_buf)


def condition_ii(c: Number, rtt_m: Number, b_buf: Number, a: Number, b: Number) -> bool:
    """Point ii (§III.A): full link utilisation, the bottleneck buffer outlasts the sender's pause,
    B/C ≥ b·W(t2)/C, i.e. b ≲ B/(C·RTTm + B) for a ≪ 1."""
    _, _, b_buf_f = _link(c, rtt_m, b_buf)
    return b_buf_f >= _b(b) * window_at_detection(c, rtt_m, b_buf, a)


@dataclass(frozen=True)
class BufferRequirement:
    """Seed 003 Table I for one setting: what the model predicts, in packets and payload bytes.

    The retransmission (send) buffer and the out-of-order (receive) buffer must both hold the
    largest number of unacknowledged packets (point iii), so each recovery has one size for both."""

    c_packets_per_s: float
    pipe_packets: float
    loss_count: float
    window_at_loss: float
    window_at_detection: float
    newreno_packets: float
    sack_packets: float
    payload_bytes: int
    condition_i: bool
    condition_ii: bool

    @property
    def newreno_bytes(self) -> float:
        """Send buffer = receive buffer needed by NewReno, payload bytes."""
        return self.newreno_packets * self.payload_bytes

    @property
    def sack_bytes(self) -> float:
        """Send buffer = receive buffer needed by SACK, payload bytes."""
        return self.sack_packets * self.payload_bytes

    def send_buffer_bytes(self, recovery: str) -> float:
        return self._bytes(recovery)

    def recv_buffer_bytes(self, recovery: str) -> float:
        return self._bytes(recovery)

    def _bytes(self, recovery: str) -> float:
        if recovery not in ("newreno", "sack"):
            raise ValueError(f"recovery: {recovery!r} is not modelled (allowed: newreno, sack)")
        return self.newreno_bytes if recovery == "newreno" else self.sack_bytes


def required_buffers(
    rate_bps: Number, rtt_m_s: Number, b_packets: Number, packet_size: Number, a: Number, b: Number
) -> BufferRequirement:
    """Table I for a link of ``rate_bps`` (bit/s), round-trip propagation delay ``rtt_m_s`` (s),
    bottleneck buffer ``b_packets`` (packets), ``packet_size`` (bytes, IP), per-ACK increase ``a``
    and decrease ``b``."""
    c = packet_rate(rate_bps, packet_size)
    _link(c, rtt_m_s, b_packets)
    return BufferRequirement(
        c_packets_per_s=c,
        pipe_packets=pipe_size(c, rtt_m_s, b_packets),
        loss_count=loss_count(c, rtt_m_s, b_packets, a),
        window_at_loss=window_at_loss(c, rtt_m_s, b_packets),
        window_at_detection=window_at_detection(c, rtt_m_s, b_packets, a),
        newreno_packets=newreno_max_unacked(c, rtt_m_s, b_packets, a, b),
        sack_packets=sack_max_unacked(c, rtt_m_s, b_packets, a, b),
        payload_bytes=int(packet_size) - HEADER_BYTES,
        condition_i=condition_i(c, rtt_m_s, b_packets, a, b),
        condition_ii=condition_ii(c, rtt_m_s, b_packets, a, b),
    )
