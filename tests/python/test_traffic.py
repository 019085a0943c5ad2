"""Traffic-source app kinds through ``rexmit.run``: message latency tables (seed 004 Fig. 8's
latency per retransmission count), HTTP responses, random UDP background; the tables agree
with the flow metrics and are written to Parquet."""

from __future__ import annotations

from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import rexmit

ROOT = Path(__file__).resolve().parents[2]

SCENARIO = """
seed = 3
stop_time = "60s"
[topology]
kind = "dumbbell"
bottleneck = { rate = "10Mbps", delay = "25ms", queue = { packets = 100 }, errors = [ { kind = "uniform", rate = 0.05, direction = "forward" } ] }
left = [ { name = "S1", rate = "100Mbps", delay = "0ms" }, { name = "S2", rate = "100Mbps", delay = "0ms" }, { name = "S3", rate = "100Mbps", delay = "0ms" }, { name = "S4", rate = "100Mbps", delay = "0ms" } ]
right = [ { name = "D1", rate = "100Mbps", delay = "0ms" }, { name = "D2", rate = "100Mbps", delay = "0ms" }, { name = "D3", rate = "100Mbps", delay = "0ms" }, { name = "D4", rate = "100Mbps", delay = "0ms" } ]

[[apps]]
name = "thin"
kind = "sctp_messages"
from = "S1"
to = "D1"
interarrival = { kind = "fixed", value = "250ms" }
size = { kind = "fixed", value = 100 }

[[apps]]
name = "game"
kind = "tcp_messages"
from = "S2"
to = "D2"
source = "game"

[[apps]]
name = "bg"
kind = "udp_random"
from = "S3"
to = "D3"

[[apps]]
name = "web"
kind = "http"
from = "S4"
to = "D4"
"""

BUCKETS = ["rtx0", "rtx1", "rtx2", "rtx3"]


@pytest.fixture(scope="module")
def result(tmp_path_factory: pytest.TempPathFactory) -> tuple[rexmit.RunResult, Path]:
    out = tmp_path_factory.mktemp("traffic")
    return rexmit.run(rexmit.Scenario.from_toml(SCENARIO), out_dir=out), out


def test_message_tables_match_the_latency_metrics(result: tuple[rexmit.RunResult, Path]) -> None:
    res, _ = result
    for flow in ["thin", "game"]:
        t = res.table("messages", flow)
        assert t.num_rows == res.flow(flow)["messages_delivered"] > 0
        rtx = t["rtx"].to_pylist()
        lat = t["latency_s"].to_pylist()
        for b, name in enumerate(BUCKETS):
            sel = [x for x, r in zip(lat, rtx) if r == b]
            assert res.flow(flow)[f"latency_{name}_count"] == len(sel)
            if sel:
                assert res.flow(flow)[f"latency_{name}_mean_s"] == pytest.approx(sum(sel) / len(sel), rel=1e-12)
                assert res.flow(flow)[f"latency_{name}_max_s"] == pytest.approx(max(sel), rel=1e-12)
        # Nothing arrives faster than the 25 ms bottleneck delay; 5 % loss retransmits some.
        assert min(lat) > 0.025
        assert max(rtx) >= 1
    thin = res.table("messages", "thin")
    assert set(thin["size"].to_pylist()) == {100}
    # Message k is sent at setup + (k + 1) × 250 ms, setup being the four-way handshake (two
    # round trips of 50 ms, plus serialization).
    offsets = {s - 250_000_000 * m for s, m in zip(thin["sent_ns"].to_pylist(), thin["msg"].to_pylist())}
    assert len(offsets) == 1 and 250_000_000 + 100_000_000 < offsets.pop() < 250_000_000 + 101_000_000


def test_retransmitted_messages_wait_at_least_a_fraction_of_an_rto(result: tuple[rexmit.RunResult, Path]) -> None:
    res, _ = result
    f = res.flow("thin")
    # RTO.min is 1 s and fast retransmit needs three later messages (750 ms at 4 per second).
    assert f["latency_rtx1_mean_s"] > 0.5
    assert f["latency_rtx0_mean_s"] < f["latency_rtx1_mean_s"]


def test_http_and_udp_background(result: tuple[rexmit.RunResult, Path]) -> None:
    res, _ = result
    web = res.table("responses", "web")
    assert web.num_rows == res.flow("web")["requests"] > 20
    done = pc.sum(web["completed"]).as_py()
    assert done == res.flow("web")["responses_completed"]
    assert pc.min(web["size"]).as_py() >= 1000
    assert res.flow("web")["completion_time_mean_s"] > 0.1  # SYN, SYN-ACK, ACK, data: 4 × 25 ms at least
    bg = res.flow("bg")
    assert 0 < bg["rx_packets"] < bg["tx_packets"]
    # One packet every 62.5 ms on average (seed 002 §IV: uniform 25-100 ms).
    assert bg["tx_packets"] == pytest.approx(60 / 0.0625, rel=0.1)


def test_tables_are_written_to_parquet(result: tuple[rexmit.RunResult, Path]) -> None:
    res, out = result
    m = pq.read_table(out / "messages.parquet")
    assert set(m.column_names) >= {"flow", "msg", "sent_ns", "sent_s", "latency_ns", "latency_s", "rtx", "size"}
    assert m.equals(res.tables["messages"])
    assert sorted(set(m["flow"].to_pylist())) == ["game", "thin"]
    r = pq.read_table(out / "responses.parquet")
    assert set(r["flow"].to_pylist()) == {"web"}
    assert "completion_s" in r.column_names


def test_same_seed_same_latencies(tmp_path: Path) -> None:
    s = rexmit.Scenario.from_toml(SCENARIO).set("stop_time", "10s")
    a = rexmit.run(s).tables["messages"]
    b = rexmit.run(s).tables["messages"]
    assert a.equals(b)


def test_thin_stream_example_runs() -> None:
    res = rexmit.run(ROOT / "examples" / "thin_stream.toml")
    f = res.flow("thin")
    assert 2390 <= f["messages_delivered"] <= 2400
    assert f["latency_rtx1_count"] > 50


def test_bad_distribution_names_the_key() -> None:
    bad = SCENARIO.replace(
        'source = "game"',
        'interarrival = { kind = "uniform", min = "1s", max = "10ms" }\nsize = { kind = "fixed", value = 10 }',
    )
    with pytest.raises(rexmit.ScenarioError) as e:
        rexmit.Scenario.from_toml(bad)
    assert e.value.path == "apps[1].interarrival.max"
