"""rexmit.buffer_model: seed 003 §III against hand computations.

Symbols as in the paper: C (packets/s), RTTm (s), B (packets), a (window increase per ACK),
b (decrease fraction); X = C·RTTm + B, N = a·X lost packets, W(t2) = X + 1 + N.
"""

import math

import pytest

import rexmit
from rexmit import buffer_model as m


def test_small_link_matches_hand_computation():
    # C = 1000 pkt/s, RTTm = 0.1 s, B = 50, a = 0.02, b = 0.125:
    # X = 100 + 50 = 150; N = 0.02 * 150 = 3; W(t0) = 151; W(t2) = 151 + 3 = 154.
    # b W(t2) = 19.25; per RTT of NewReno recovery X - b W(t2) = 130.75 new packets; 1/a + 1 = 51.
    # Eq. 3: U_1 = 154 + 130.75 = 284.75; U_2 = 154 + 261.5 - 51 = 364.5;
    #        U_3 = 154 + 392.25 - 102 = 444.25 (the maximum, n = N).
    # SACK: U_1 = 154 + 150 - 19.25 - 3 = 281.75.
    # i: (1 - b) W(t2) = 134.75 <= 150; ii: B = 50 >= b W(t2) = 19.25.
    args = (1000, 0.1, 50)
    assert m.pipe_size(*args) == pytest.approx(150)
    assert m.loss_count(*args, 0.02) == pytest.approx(3)
    assert m.window_at_loss(*args) == pytest.approx(151)
    assert m.window_at_detection(*args, 0.02) == pytest.approx(154)
    assert [m.newreno_unacked(n, *args, 0.02, 0.125) for n in range(4)] == pytest.approx([154, 284.75, 364.5, 444.25])
    assert m.newreno_max_unacked(*args, 0.02, 0.125) == pytest.approx(444.25)
    assert m.sack_unacked_before_recovery_ack(*args, 0.02, 0.125) == pytest.approx(281.75)
    assert m.sack_max_unacked(*args, 0.02, 0.125) == pytest.approx(281.75)
    assert m.condition_i(*args, 0.02, 0.125) and m.condition_ii(*args, 0.02, 0.125)


def test_paper_link_table_i_row():
    # Seed 003 §IV: 200 Mb/s, 1500 B packets -> C = 200e6 / 12000 = 16666.67 pkt/s; RTTm = 0.3 s
    # -> C RTTm = 5000; B = 7000 -> X = 12000. a = 0.001, b = 0.025: N = 12; W(t2) = 12013;
    # b W(t2) = 300.325; X - b W(t2) = 11699.675; 1/a + 1 = 1001.
    # NewReno: U_12 = 12013 + 12 * 11699.675 - 11 * 1001 = 141398.1 packets
    #          = 141398.1 * 1460 B of payload = 206441226 B.
    # SACK: U_1 = 12013 + 11699.675 - 12 = 23700.675 packets = 34602985.5 B.
    q = m.required_buffers(200e6, 0.3, 7000, 1500, 0.001, 0.025)
    assert q.c_packets_per_s == pytest.approx(16666.6667)
    assert q.pipe_packets == pytest.approx(12000)
    assert q.loss_count == pytest.approx(12)
    assert q.window_at_detection == pytest.approx(12013)
    assert q.newreno_packets == pytest.approx(141398.1)
    assert q.sack_packets == pytest.approx(23700.675)
    assert q.payload_bytes == 1460
    assert q.send_buffer_bytes("newreno") == q.recv_buffer_bytes("newreno") == pytest.approx(206441226)
    assert q.send_buffer_bytes("sack") == q.recv_buffer_bytes("sack") == pytest.approx(34602985.5)
    assert q.condition_i and q.condition_ii
    # rexmit's aimd_a (segments per RTT) with the same per-ACK increase at the loss point: a X = 12.
    assert m.increase_per_rtt(q.c_packets_per_s, 0.3, 7000, 0.001) == pytest.approx(12)


def test_decreasing_u_n_takes_its_maximum_at_n_1():
    # C = 1000, RTTm = 0.1, B = 10 -> X = 110; a = 0.01, b = 0.5: N = 1.1; W(t2) = 111 + 1.1 = 112.1;
    # b W(t2) = 56.05; X - b W(t2) = 53.95 < 1/a + 1 = 101, so U_n falls after n = 1:
    # U_1 = 112.1 + 53.95 = 166.05; U_N = 112.1 + 1.1 * 53.95 - 0.1 * 101 = 161.345.
    # SACK: U_1 = 112.1 + 53.95 - 1.1 = 164.95. ii fails: B = 10 < b W(t2) = 56.05.
    args = (1000, 0.1, 10, 0.01, 0.5)
    assert m.newreno_unacked(1.1, *args) == pytest.approx(161.345)
    assert m.newreno_max_unacked(*args) == pytest.approx(166.05)
    assert m.sack_max_unacked(*args) == pytest.approx(164.95)
    assert m.condition_i(*args) and not m.condition_ii(*args)


def test_fewer_than_one_loss_needs_only_the_window():
    # X = 110, a = 0.005: N = 0.55 < 1, no loss after P: Q = U_0 = W(t2) = 111.55 for NewReno;
    # SACK's U_1 = 111.55 + 110 - 0.5 * 111.55 - 0.55 = 165.225 (the window of new data before P's ACK).
    assert m.newreno_max_unacked(1000, 0.1, 10, 0.005, 0.5) == pytest.approx(111.55)
    assert m.sack_max_unacked(1000, 0.1, 10, 0.005, 0.5) == pytest.approx(165.225)


def test_condition_i_fails_when_the_decrease_is_smaller_than_the_increase():
    # X = 110, a = 0.2, b = 0.1: W(t2) = 111 + 22 = 133; (1 - b) W(t2) = 119.7 > 110 (losses during
    # recovery); 1 - b = 0.9 > 1 / (1 + a + 1/X) = 0.8270.
    assert not m.condition_i(1000, 0.1, 10, 0.2, 0.1)
    assert 1 - 0.1 > 1 / (1 + 0.2 + 1 / 110)


def test_exported_from_the_package():
    assert rexmit.buffer_model is m


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda: m.pipe_size(0, 0.1, 10), "C"),
        (lambda: m.pipe_size(-5, 0.1, 10), "C"),
        (lambda: m.pipe_size(1000, 0, 10), "RTTm"),
        (lambda: m.pipe_size(1000, 0.1, -1), "B"),
        (lambda: m.loss_count(1000, 0.1, 10, 0), "a"),
        (lambda: m.loss_count(1000, 0.1, 10, 1.5), "a"),
        (lambda: m.loss_count(1000, 0.1, 10, math.nan), "a"),
        (lambda: m.sack_max_unacked(1000, 0.1, 10, 0.01, 0), "b"),
        (lambda: m.newreno_max_unacked(1000, 0.1, 10, 0.01, 1), "b"),
        (lambda: m.newreno_unacked(0, 1000, 0.1, 10, 0.01, 1.0), "b"),
        (lambda: m.newreno_unacked(-1, 1000, 0.1, 10, 0.01, 0.5), "n"),
        (lambda: m.packet_rate(0, 1500), "rate_bps"),
        (lambda: m.packet_rate(1e6, 40), "packet_size"),
        (lambda: m.packet_rate(1e6, 1500.5), "packet_size"),
        (lambda: m.required_buffers(1e6, 0.1, 10, 1500, "0.01", 0.5), "a"),
        (lambda: m.required_buffers(1e6, 0.1, True, 1500, 0.01, 0.5), "B"),
        (lambda: m.required_buffers(1e6, 0.1, 10, 1500, 0.01, 0.5).send_buffer_bytes("reno"), "recovery"),
    ],
)
def test_bad_parameters_name_the_field(call, field):
    with pytest.raises(ValueError) as err:
        call()
    # The message names the field first, then what is allowed.
    assert str(err.value).startswith(f"{field}: ")
    assert "allowed" in str(err.value) or "whole number" in str(err.value)
