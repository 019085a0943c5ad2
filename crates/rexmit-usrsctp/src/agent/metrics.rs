//! What a usrsctp agent reports: the stack's own view (SCTP_STATUS, SCTP_GET_PEER_ADDR_INFO per
//! path, and its retransmission and timeout counters, which usrsctp keeps only stack-wide and the
//! run credits to the endpoint whose call changed them) beside the simulator's ground truth
//! (DATA chunks on the wire, duplicates at the receiver, bytes and messages delivered, latency).
//! Names follow rexmit's SCTP agent where the quantity is the same.

use super::{Role, UsrsctpAgent};
use rexmit_endpoints::sctp::SctpApp;
use rexmit_net::Metrics;
use rexmit_time::Time;

/// Paths reported one by one (`path0_…` to `path3_…`).
const PATH_METRICS: usize = 4;

pub(crate) fn metrics(a: &UsrsctpAgent, now: Time) -> Metrics {
    let mut m: Vec<(String, f64)> = Vec::new();
    let mut put = |k: &str, v: f64| m.push((k.to_string(), v));
    let (undecodable, unknown_path) = a.dropped();
    match &a.role {
        Role::Sender(s) => {
            let log = &a.truth.borrow().log;
            if let SctpApp::Messages(g) = &s.app {
                put("messages_generated", g.gen.generated() as f64);
                put("messages_waiting", s.backlog.len() as f64);
            }
            put("messages_refused", s.refused as f64);
            put("messages_sent", log.sent() as f64);
            put("data_chunks_sent", s.data_chunks_sent as f64);
            // Ground truth: DATA chunks whose TSN had been on the wire before.
            put("retransmissions", s.retransmissions as f64);
            let c = a.run.counters(a.ep);
            put("fast_retransmits", c.fast_retransmits as f64);
            put("timeouts", c.timeouts as f64);
            put("stack_retransmitted_chunks", c.retransmitted_chunks as f64);
            // Timer ticks in which several endpoints retransmitted (their counters could not
            // be split; 0 with one association per run).
            put(
                "stack_timeouts_unattributed",
                a.run.unattributed().timeouts as f64,
            );
            if let Some(e) = s.ecn {
                // rexmit's SCTP names: echoes heard and CWRs sent counted on the wire, window
                // reductions by the stack (one per window, sctp_handle_ecn_echo).
                put("ecn_ece_received", e.ecne_received as f64);
                put("ecn_reductions", c.ecn_reductions as f64);
                put("ecn_cwr_sent", e.cwr_sent as f64);
            }
            let mut blocked = s.blocked;
            if let Some(since) = s.blocked_since {
                blocked = blocked.saturating_add(now.saturating_since(since));
            }
            let life = a.lifetime(now).as_secs_f64();
            put("app_blocked_s", blocked.as_secs_f64());
            put(
                "app_blocked_fraction",
                if life > 0.0 {
                    blocked.as_secs_f64() / life
                } else {
                    0.0
                },
            );
            if let Some(st) = a.status() {
                put("peer_rwnd", st.sstat_rwnd as f64);
                put("unacked_chunks", st.sstat_unackdata as f64);
            }
            for (i, p) in a.path_info().iter().enumerate().take(PATH_METRICS) {
                let Some(p) = p else { continue };
                put(&format!("path{i}_cwnd"), p.spinfo_cwnd as f64);
                put(&format!("path{i}_srtt_s"), p.spinfo_srtt as f64 / 1000.0);
                put(&format!("path{i}_rto_s"), p.spinfo_rto as f64 / 1000.0);
                put(
                    &format!("path{i}_active"),
                    (p.spinfo_state & crate::ffi::SCTP_ACTIVE != 0) as u8 as f64,
                );
            }
        }
        Role::Receiver(r) => {
            put("bytes_delivered", r.bytes_delivered as f64);
            let window = now.saturating_since(a.measure_from).as_secs_f64();
            let counted =
                r.bytes_delivered - r.delivered_before_measure.unwrap_or(r.bytes_delivered);
            put(
                "goodput_bps",
                if window > 0.0 {
                    counted as f64 * 8.0 / window
                } else {
                    0.0
                },
            );
            // Ground truth: DATA chunks that arrived a second time (spurious retransmissions).
            put("dup_tsns_received", r.dup_tsns as f64);
            if let Some(ce) = r.ce_received {
                put("ecn_ce_received", ce as f64);
            }
        }
    }
    // A flow's row joins the sender's metrics and the receiver's: each name once (the
    // receiver's own counters end in `_rx`).
    if matches!(a.role, Role::Sender(_)) {
        put("failure", a.failure() as f64);
        put("undecodable_packets", undecodable as f64);
        put("unknown_path_packets", unknown_path as f64);
        put("random_seeded", a.run.random_seeded() as u8 as f64);
    } else {
        put("failure_rx", a.failure() as f64);
        put("undecodable_packets_rx", undecodable as f64);
        put("unknown_path_packets_rx", unknown_path as f64);
        // messages_delivered and latency by retransmission count (seed 004 Fig. 8).
        m.extend(a.truth.borrow().log.metrics());
    }
    m
}

pub(crate) fn probe(a: &UsrsctpAgent, name: &str) -> Option<f64> {
    if name == "bytes_delivered" {
        return Some(a.bytes_delivered() as f64);
    }
    let st = a.status()?;
    Some(match name {
        "cwnd_primary" => st.sstat_primary.spinfo_cwnd as f64,
        "srtt_primary_s" => st.sstat_primary.spinfo_srtt as f64 / 1000.0,
        "rto_primary_s" => st.sstat_primary.spinfo_rto as f64 / 1000.0,
        "peer_rwnd" => st.sstat_rwnd as f64,
        "unacked_chunks" => st.sstat_unackdata as f64,
        "pending_chunks" => st.sstat_penddata as f64,
        _ => return None,
    })
}

pub(crate) fn probe_names(a: &UsrsctpAgent) -> &'static [&'static str] {
    match a.role {
        Role::Sender(_) => &[
            "cwnd_primary",
            "srtt_primary_s",
            "rto_primary_s",
            "peer_rwnd",
            "unacked_chunks",
            "pending_chunks",
        ],
        Role::Receiver(_) => &["bytes_delivered"],
    }
}
