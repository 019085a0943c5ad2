"""`hystart_detect` (Linux's tcp_cubic module parameter): which of HyStart's two detectors may
end CUBIC's slow start (docs/validation_queues.md, "CUBIC rows")."""

from __future__ import annotations

from typing import Any

import pytest

import rexmit


def one_flow(rate: str, **tcp: Any) -> dict[str, Any]:
    """One CUBIC flow from IW 10 over a `rate` bottleneck (40 ms RTT, 200-packet queue) for 2 s
    without loss: slow start ends by HyStart or when the queue overflows. At 50 Mb/s the ACK
    train fires first; at 10 Mb/s ACKs come more than 2 ms apart and only the delay test fires."""
    data: dict[str, Any] = {
        "seed": 1,
        "stop_time": "2s",
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {"rate": rate, "delay": "18ms", "queue": {"packets": 200}},
            "left": [{"name": "S", "rate": "1Gbps", "delay": "1ms"}],
            "right": [{"name": "D", "rate": "1Gbps", "delay": "1ms"}],
        },
        "apps": [
            {
                "name": "f",
                "kind": "tcp_bulk",
                "from": "S",
                "to": "D",
                "tcp": {
                    "cc": "cubic",
                    "hystart": True,
                    "initial_cwnd_segments": 10,
                    "send_buffer": "8MiB",
                    "recv_buffer": "8MiB",
                    **tcp,
                },
            }
        ],
    }
    r = rexmit.run(rexmit.Scenario.from_dict(data))
    return {k: v for k, v in r.flow("f").items()}


@pytest.mark.parametrize("rate", ["50Mbps", "10Mbps"])
def test_both_detectors_end_slow_start_at_the_earlier_of_the_two(rate):
    train, delay, both = (one_flow(rate, hystart_detect=d) for d in (1, 2, 3))
    assert train != delay  # the detectors fire at different moments here
    assert both in (train, delay)
    # Without HyStart the window grows until the queue overflows; with it, no loss.
    assert both["retransmissions"] == 0 < one_flow(rate, hystart=False)["retransmissions"]


def test_a_detector_set_outside_1_to_3_is_refused_by_name():
    with pytest.raises(rexmit.ScenarioError, match=r"hystart_detect.*1\.\.=3"):
        one_flow("50Mbps", hystart_detect=0)
