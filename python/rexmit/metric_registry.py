"""Every metric a run reports, in one registry.

:data:`METRICS` lists each metric by the last part of its column (``flow.<app>.<name>``,
``link.<a->b>.<name>``, ``node.<name>.<name>``, ``summary.<name>``) or of its time series
(``<app>:<name>``, ``<name>:<link>``): the label a figure gives it, the SI unit of its values
and where it appears. :mod:`rexmit.labels` takes names and units from it, and
tests/python/test_metric_registry.py runs every kind of app through ``rexmit.run`` and checks
that the registry names exactly what the simulator emits. On the Rust side they come from the
adapters' ``metrics`` and ``probe_names`` (crates/rexmit-endpoints: tcp.rs, sctp.rs, http.rs,
latency.rs; crates/rexmit-net/src/apps/udp.rs), the link and node rows of
crates/rexmit-scenario/src/run.rs and the summary of results.rs. Old names that results still
answer to are :data:`rexmit.metric_names.DEPRECATED`. Not imported by ``import rexmit`` (a short
run needs no labels).
"""

from __future__ import annotations

from dataclasses import dataclass

#: Where a name appears: a column of the flow, link or node rows, of the summary, or a time
#: series (an app's value or a link's ``kind`` in ``[[metrics.timeseries]]``).
PLACES = ("flow", "link", "node", "summary", "series")
#: The text columns of each table (labels, not metrics).
LABEL_COLUMNS = {
    "flow": ("name", "kind", "from", "to", "stack"),
    "link": ("name", "from", "to"),
    "node": ("name", "forwarding"),
    "summary": ("partial",),
}


@dataclass(frozen=True)
class Metric:
    """One metric: ``name`` (the last part of its column or series), ``label`` (a figure's axis
    text), ``unit`` (the SI unit of its values: ``bit/s``, ``s``, ``B``, or ``""`` for counts,
    fractions and flags), ``places`` (where it appears, of :data:`PLACES`) and ``not_simulated``:
    empty for what a simulated run emits, else why none does (the registry test's only
    exceptions)."""

    name: str
    label: str
    unit: str
    places: tuple[str, ...]
    not_simulated: str = ""


_F, _L, _S = ("flow",), ("link",), ("series",)
_LINUX = "emulation only: the flow row of an app between real Linux hosts (crates/rexmit-emulate, linux_row)"
_RECIPE = "computed by the nr-sack recipe over its trace window (rexmit.recipes.nr_sack_runs), not by a run"
_ORDINALS = {"0": "no", "1": "1st", "2": "2nd", "3": "3rd", "4plus": "4th or later"}
_STATS = {"mean": "Mean", "p99": "99th-percentile", "max": "Maximum"}


def _rtx_bucket(b: str) -> str:
    return f"{_ORDINALS[b]} retransmission" + (" needed" if b == "0" else "")


_ALL = [
    # --- flows: TCP sender (crates/rexmit-endpoints/src/tcp.rs) ----------------------------
    Metric("bytes_written", "Bytes written", "B", _F),
    Metric("bytes_acked", "Bytes acknowledged", "B", ("flow", "series")),
    Metric("data_segments_sent", "Data segments sent", "", _F),
    Metric("retransmissions", "Retransmissions", "", _F),
    Metric("retransmits_fast", "Retransmissions in fast recovery", "", _F),
    Metric("retransmits_timeout", "Retransmissions after a timeout", "", _F),
    Metric("bytes_retransmitted", "Bytes retransmitted", "B", _F),
    Metric("fast_retransmits", "Fast retransmits", "", _F),
    Metric("timeouts", "Timeouts", "", _F),
    Metric("recoveries", "Loss-recovery episodes", "", _F),
    Metric("failure", "Failed", "", _F),
    Metric("recovery_mean_s", "Mean recovery episode", "s", _F),
    Metric("recovery_max_s", "Longest recovery episode", "s", _F),
    Metric("recovery_total_s", "Time in recovery", "s", _F),
    Metric("dsacks_received", "D-SACKs received", "", _F),
    Metric("rtxq_bytes_max", "Largest retransmission queue", "B", _F),
    Metric("app_blocked_s", "Application blocked", "s", _F),
    Metric("app_blocked_fraction", "Application blocked fraction", "", _F),
    Metric("completion_time_s", "Completion time", "s", _F),
    Metric("srtt_s", "Smoothed RTT", "s", ("flow", "series")),
    Metric("messages_generated", "Messages generated", "", _F),
    Metric("bytes_waiting", "Bytes waiting to be written", "B", _F),
    # ECN (tcp.ecn = "on", or negotiated by an "accept" receiver) only.
    Metric("ecn_ece_received", "ACKs with ECE received", "", _F),
    Metric("ecn_reductions", "Window reductions for ECN", "", _F),
    Metric("ecn_cwr_sent", "Segments sent with CWR", "", _F),
    Metric("reordering", "Reordering degree (segments)", "", _F),
    Metric("reordering_seen", "Reordering seen", "", _F),
    # tcp.undo or tcp.frto only.
    Metric("undos_dsack", "Reductions undone by D-SACK", "", _F),
    Metric("undos_timestamps", "Reductions undone by timestamps", "", _F),
    Metric("undos_frto", "Timeouts undone by F-RTO", "", _F),
    # --- flows: TCP receiver -------------------------------------------------------------------
    Metric("bytes_delivered", "Bytes delivered", "B", ("flow", "series")),
    Metric("goodput_bps", "Goodput", "bit/s", _F),
    Metric("goodput_window_s", "Goodput window", "s", _F),
    Metric("data_segments_arrived", "Data segments arrived", "", _F),
    Metric("spurious_retransmits", "Spurious retransmissions", "", _F),
    Metric("duplicate_bytes_arrived", "Duplicate bytes arrived", "B", _F),
    Metric("ooo_bytes_max", "Largest out-of-order data", "B", _F),
    Metric("dsacks_sent", "D-SACKs sent", "", _F),
    Metric("ecn_ce_received", "Segments received marked CE", "", _F),
    # --- flows: SCTP sender (crates/rexmit-endpoints/src/sctp.rs) -------------------------
    Metric("messages_waiting", "Messages waiting", "", _F),
    Metric("messages_refused", "Messages refused", "", _F),
    Metric("messages_sent", "Messages sent", "", _F),
    Metric("data_chunks_sent", "Data chunks sent", "", _F),
    Metric("rtxq_util", "RtxQ_Util", "", _F),
    Metric("rtxq_util_l", "RtxQ_Util_L", "", _F),
    Metric("loss_recovery_s", "Time in loss recovery", "s", _F),
    Metric("rtxq_bytes_mean", "Mean retransmission queue", "B", _F),
    Metric("send_blocked_s", "Send-buffer blocked", "s", _F),
    Metric("send_blocked_fraction", "Send-buffer blocked fraction", "", _F),
    Metric("nr_sack", "NR-SACK negotiated", "", _F),
    Metric("rtx_timeout", "Retransmissions by a timeout", "", _F),
    Metric("rtx_fast", "Fast retransmissions", "", _F),
    Metric("rtx_thin_fast", "Thin-stream fast retransmissions", "", _F),
    Metric("rtx_early", "Early retransmissions", "", _F),
    Metric("rtx_efr", "Early fast retransmissions", "", _F),
    Metric("rtx_bundled", "Retransmissions bundled", "", _F),
    Metric("rtx_rack", "RACK retransmissions", "", _F),
    Metric("rtx_tlp", "Tail-loss-probe retransmissions", "", _F),
    Metric("rtx_reneged", "Retransmissions of reneged data", "", _F),
    Metric("tlp_probes", "Tail loss probes", "", _F),
    Metric("tail_recoveries", "Tail-loss recoveries", "", _F),
    Metric("dup_tsns_reported", "Duplicate TSNs reported", "", _F),
    Metric("recovery_time_mean_s", "Mean recovery time", "s", _F),
    Metric("recovery_time_max_s", "Longest recovery time", "s", _F),
    Metric("thin_s", "Time thin", "s", _F),
    *(Metric(f"path{i}_timeouts", f"Timeouts on path {i}", "", _F) for i in range(4)),
    # --- flows: SCTP receiver ------------------------------------------------------------------
    Metric("dup_tsns_received", "Spurious retransmissions (TSNs received twice)", "", _F),
    Metric("reneged_chunks", "Chunks reneged", "", _F),
    # --- flows: message latency, TCP and SCTP receivers (crates/rexmit-endpoints/src/latency.rs)
    Metric("messages_delivered", "Messages delivered", "", _F),
    Metric("messages_undelivered", "Messages undelivered", "", _F),
    Metric("latency_mean_s", "Mean latency", "s", _F),
    Metric("latency_p99_s", "99th-percentile latency", "s", _F),
    Metric("latency_max_s", "Maximum latency", "s", _F),
    *(
        m
        for b in _ORDINALS
        for m in (
            Metric(f"latency_rtx{b}_count", f"Messages, {_rtx_bucket(b)}", "", _F),
            *(Metric(f"latency_rtx{b}_{st}_s", f"{_STATS[st]} latency, {_rtx_bucket(b)}", "s", _F) for st in _STATS),
        )
    ),
    # --- flows: HTTP (crates/rexmit-endpoints/src/http.rs) ------------------------------------
    Metric("requests", "Requests", "", _F),
    Metric("responses_completed", "Responses completed", "", ("flow", "series")),
    Metric("responses_failed", "Responses failed", "", _F),
    Metric("requests_waiting", "Requests waiting", "", _F),
    Metric("connections_open", "Connections open", "", ("flow", "series")),
    Metric("completion_time_mean_s", "Mean completion time", "s", _F),
    Metric("completion_time_p99_s", "99th-percentile completion time", "s", _F),
    Metric("completion_time_max_s", "Maximum completion time", "s", _F),
    # --- flows: UDP (crates/rexmit-net/src/apps/udp.rs); links --------------------------------
    Metric("tx_packets", "Packets sent", "", ("flow", "link", "series")),
    Metric("tx_bytes", "Bytes sent", "B", ("flow", "link", "series")),
    Metric("rx_packets", "Packets received", "", ("flow", "series")),
    Metric("rx_bytes", "Bytes received", "B", ("flow", "series")),
    Metric("rx_payload_bytes", "Payload bytes received", "B", _F),
    Metric("throughput_bps", "Throughput", "bit/s", ("flow", "link")),
    Metric("first_rx_s", "First arrival", "s", _F),
    Metric("last_rx_s", "Last arrival", "s", _F),
    Metric("delay_mean_s", "Mean one-way delay", "s", _F),
    Metric("delay_std_s", "Standard deviation of one-way delay", "s", _F),
    Metric("delay_min_s", "Minimum one-way delay", "s", _F),
    Metric("delay_max_s", "Maximum one-way delay", "s", _F),
    # --- links (crates/rexmit-scenario/src/run.rs) -------------------------------------------
    Metric("rate_bps", "Link rate", "bit/s", _L),
    Metric("delay_s", "Link delay", "s", _L),
    Metric("offered_packets", "Packets offered", "", _L),
    Metric("arrived_packets", "Packets arrived", "", _L),
    Metric("drop_overflow", "Drops (queue overflow)", "", _L),
    Metric("drop_early", "Drops (early, AQM)", "", _L),
    Metric("drop_error", "Drops (error model)", "", _L),
    Metric("utilization", "Utilisation", "", _L),
    Metric("queue_packets_mean", "Mean queue (packets)", "", _L),
    Metric("queue_bytes_mean", "Mean queue", "B", _L),
    Metric("queue_packets_max", "Largest queue (packets)", "", _L),
    Metric("queue_bytes_max", "Largest queue", "B", _L),
    Metric("queue_delay_mean_s", "Mean queueing delay", "s", _L),
    # An active queue's (queue = { aqm, ecn, ecn_threshold }) only.
    Metric("queue_delay_p99_s", "99th-percentile queueing delay", "s", _L),
    Metric("ecn_marked", "Packets marked CE", "", _L),
    Metric("scripted_unfired", "Scripted drops that never matched", "", _L),
    # --- nodes -----------------------------------------------------------------------------------
    Metric("no_route", "Packets without a route", "", ("node",)),
    Metric("no_listener", "Packets without a listener", "", ("node",)),
    Metric("ttl_expired", "Packets whose TTL expired", "", ("node",)),
    Metric("not_for_us", "Packets for another node", "", ("node",)),
    # --- the summary (crates/rexmit-scenario/src/results.rs) ---------------------------------
    Metric("seed", "Seed", "", ("summary",)),
    Metric("stop_time_s", "Stop time", "s", ("summary",)),
    Metric("end_time_s", "End time", "s", ("summary",)),
    Metric("events", "Events", "", ("summary",)),
    Metric("wall_time_s", "Wall time", "s", ("summary",)),
    Metric("packet_hops", "Packet hops", "", ("summary",)),
    Metric("pcap_errors", "Capture write errors", "", ("summary",)),
    # --- time series only: an app's values (probe_names) and a link's kinds --------------------
    Metric("cwnd", "Congestion window", "B", _S),
    Metric("ssthresh", "Slow-start threshold", "B", _S),
    Metric("pipe", "Pipe (data in flight)", "B", _S),
    Metric("rtxq_bytes", "Retransmission queue", "B", _S),
    Metric("send_buffer_bytes", "Send buffer used", "B", _S),
    Metric("rto_s", "Retransmission timeout", "s", _S),
    Metric("ooo_bytes", "Out-of-order data", "B", _S),
    Metric("rx_ce_packets", "Packets received marked CE", "", _S),
    Metric("rtxq_necessary_bytes", "Retransmission queue the receiver needs", "B", _S),
    Metric("flight_size", "Data in flight", "B", _S),
    Metric("cwnd_primary", "Congestion window (primary path)", "B", _S),
    Metric("cwnd_room_bytes", "Room in the congestion windows", "B", _S),
    Metric("queue_packets", "Queue (packets)", "", _S),
    Metric("queue_bytes", "Queue", "B", _S),
    Metric("drops", "Drops", "", _S),
    # --- not emitted by a simulated run ----------------------------------------------------------
    Metric("cwnd_final", "Final congestion window", "B", _F, _LINUX),
    Metric("ssthresh_final_segments", "Final slow-start threshold (segments)", "", _F, _LINUX),
    Metric("rto_final_s", "Final retransmission timeout", "s", _F, _LINUX),
    Metric("min_rtt_s", "Minimum RTT", "s", _F, _LINUX),
    Metric("goodput_trace_bps", "Goodput", "bit/s", _F, _RECIPE),
    Metric("send_blocked_trace_fraction", "Send-buffer blocked fraction", "", _F, _RECIPE),
]
#: Every metric by name (the registry test checks that no name is listed twice).
METRICS: dict[str, Metric] = {m.name: m for m in _ALL}
