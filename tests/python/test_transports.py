"""TCP and SCTP apps through the Python front."""

import pytest

import rexmit


def test_tcp_variants_from_python(examples):
    base = rexmit.Scenario.load(examples / "tcp_seed001.toml")
    base.data["stop_time"] = "20s"
    goodput = {}
    for recovery in ["tahoe", "reno", "newreno", "sack"]:
        s = base.copy().set("apps[0].tcp.recovery", recovery)
        res = rexmit.run(s)
        f = res.flow("bulk")
        assert f["bytes_acked"] <= f["bytes_delivered"]
        assert f["retransmissions"] > 0
        goodput[recovery] = f["goodput_bps"]
    assert all(0.5e6 < g < 3.894e6 for g in goodput.values()), goodput
    # SACK recovers multi-packet bursts without the timeouts Reno suffers (seed 001 Fig. 9).
    assert goodput["sack"] > goodput["reno"]


def test_tcp_goodput_counts_only_bytes_delivered_after_the_warmup(examples):
    base = rexmit.Scenario.load(examples / "tcp_seed001.toml")
    base.data["stop_time"] = "20s"
    base.data["topology"]["links"][1]["errors"] = []
    whole = rexmit.run(base).flow("bulk")
    late = rexmit.run(base.copy().set("apps[0].warmup", "10s")).flow("bulk")
    # Loss-free: the second half runs at the 3.89 Mb/s payload capacity (slow start is in the
    # first); counting the first half's bytes over the second half's time would exceed it.
    assert 0.95 * 3.894e6 < late["goodput_bps"] <= 3.894e6, late["goodput_bps"]
    assert late["goodput_bps"] > whole["goodput_bps"]


def test_sctp_goodput_counts_only_bytes_delivered_after_the_warmup(examples):
    base = rexmit.Scenario.load(examples / "sctp_nrsack.toml")
    base.data["stop_time"] = "6s"
    base.data["topology"]["bottleneck"]["errors"] = []
    no_warmup = base.copy().set("apps[0].warmup", "0s")
    whole = rexmit.run(no_warmup).flow("sctp")
    late = rexmit.run(base.copy().set("apps[0].warmup", "3s")).flow("sctp")
    # A 64 KiB send buffer over a 60 ms round trip caps the rate near 64 KiB / 60 ms ≈ 8.7 Mb/s;
    # counting the first 3 s's bytes over the last 3 s would roughly double it.
    assert late["goodput_bps"] < 1.1 * 65536 * 8 / 0.060, late["goodput_bps"]
    assert 0.9 * whole["goodput_bps"] < late["goodput_bps"] < 1.5 * whole["goodput_bps"], (
        whole["goodput_bps"],
        late["goodput_bps"],
    )


def test_sctp_nr_sack_and_latency_metrics(examples, tmp_path):
    s = rexmit.Scenario.load(examples / "sctp_nrsack.toml")
    s.data["stop_time"] = "10s"
    res = rexmit.run(s, out_dir=tmp_path)
    f = res.flow("sctp")
    assert f["nr_sack"] == 1.0
    assert f["rtxq_util"] == pytest.approx(1.0)
    assert 0 < f["latency_mean_s"] <= f["latency_p99_s"] <= f["latency_max_s"]
    assert "sctp:rtxq_bytes" in res.series


def test_bad_transport_setting_is_a_typed_error(examples):
    s = rexmit.Scenario.load(examples / "tcp_seed001.toml").set("apps[0].tcp.cc", "no_such_cc")
    with pytest.raises(rexmit.ScenarioError) as e:
        s.validate()
    assert "apps[0].tcp.cc" in str(e.value)


def test_one_metric_vocabulary_with_old_names_accepted(recwarn):
    """Issue 17: TCP and SCTP report the same quantity under the same name; TCP's old names
    still work, with a DeprecationWarning (also for a time-series value, warned in the run)."""
    s = rexmit.Scenario(stop_time="3s")
    s.chain(
        ["A", "R", "B"],
        [
            {"rate": "10Mbps", "delay": "5ms", "errors": [{"kind": "uniform", "rate": 0.02, "direction": "forward"}]},
            {"rate": "10Mbps", "delay": "5ms"},
        ],
    )
    s.app("t", "tcp_bulk", "A", "B")
    s.app("s", "sctp_bulk", "A", "B")
    s.timeseries("app", "100ms", app="t", value="rtx_queue_bytes")
    res = rexmit.run(s)
    t, sc = res.flow("t"), res.flow("s")
    for name in (
        "retransmissions",
        "timeouts",
        "fast_retransmits",
        "goodput_bps",
        "rtxq_bytes_max",
        "app_blocked_s",
        "app_blocked_fraction",
        "failure",
    ):
        assert name in t and name in sc, name
    assert t["retransmissions"] > 0 and "retransmits" not in dict.keys(t)
    assert t["retransmits"] == t["retransmissions"] and t["rtx_queue_bytes_max"] == t["rtxq_bytes_max"]
    assert any(
        issubclass(w.category, DeprecationWarning) and "'retransmits' is deprecated" in str(w.message) for w in recwarn
    )
    assert "t:rtxq_bytes" in res.series and res.series["t:rtx_queue_bytes"] == res.series["t:rtxq_bytes"]
    assert res.warnings == [
        'metrics.timeseries[0].value: "rtx_queue_bytes" is deprecated, use "rtxq_bytes" (the same value under the name TCP and SCTP share)'
    ]


@pytest.mark.parametrize("granularity, after_ms", [(None, 200), ("200ms", 300)])
def test_rto_granularity_puts_linux_floor_on_the_variance_term(granularity, after_ms):
    """RFC 6298 §2: RTO = SRTT + max(G, 4·RTTVAR). A thin TCP stream (one 100 B message every
    250 ms, RTT 100 ms, one data packet dropped) times out after RTO.min = 200 ms with the default
    G of 1 ms, and after SRTT + 200 ms = 300 ms with G = RTO.min, as Linux's TCP computes it."""
    rto = {"min": "200ms", **({"granularity": granularity} if granularity else {})}
    tcp = {"recovery": "newreno", "sack": False, "rto": rto, "ack_every": 1, "nagle": False}
    link = {
        "rate": "10Mbps",
        "delay": "50ms",
        "errors": [{"kind": "scripted", "app": "f", "packets": [40], "direction": "forward"}],
    }
    s = rexmit.Scenario.from_dict(
        {
            "stop_time": "20s",
            "seed": 1,
            "topology": {"kind": "chain", "nodes": ["A", "B"], "links": [link]},
            "apps": [
                {
                    "name": "f",
                    "kind": "tcp_messages",
                    "from": "A",
                    "to": "B",
                    "tcp": tcp,
                    "interarrival": {"kind": "fixed", "value": "250ms"},
                    "size": {"kind": "fixed", "value": 100},
                }
            ],
        }
    ).trace("f")
    res = rexmit.run(s)
    sent = res.table("trace_sent").to_pandas()
    rtx = sent[sent.cause != 0].iloc[0]
    first = sent[(sent.start == rtx.start) & (sent.cause == 0)].iloc[0]
    assert res.flow("f")["timeouts"] == 1
    assert (rtx.t_s - first.t_s) * 1000 == pytest.approx(after_ms, abs=1)
