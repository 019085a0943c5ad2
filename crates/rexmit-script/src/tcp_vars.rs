//! The names a TCP script's assertions read: Linux's `tcp_info` fields (`tcpi_*`, in Linux's
//! units, from `Connection::info`), rexmit's own counters (`rexmit_*`) and Linux's constants
//! (`TCP_CA_Loss`, `TCP_ESTABLISHED`, ...). `VARS` is the list docs/scripts.md documents (a test
//! keeps the two in step).

use rexmit_tcp::connection::{linux_state_number, InfoCaState};
use rexmit_tcp::Connection;

/// (name, unit and meaning) of every variable.
pub const VARS: &[(&str, &str)] = &[
    ("tcpi_state", "Linux state number (TCP_ESTABLISHED = 1 ... TCP_CLOSING = 11)"),
    ("tcpi_ca_state", "TCP_CA_Open 0, TCP_CA_Disorder 1, TCP_CA_Recovery 3, TCP_CA_Loss 4 (CWR 2 is not modelled)"),
    ("tcpi_retransmits", "consecutive retransmission timeouts of the data at SND.UNA"),
    ("tcpi_backoff", "RTO backoffs in force"),
    ("tcpi_options", "TCPI_OPT_TIMESTAMPS 1 | TCPI_OPT_SACK 2 | TCPI_OPT_WSCALE 4, as negotiated"),
    ("tcpi_snd_wscale", "window-scale shift applied to the peer's window"),
    ("tcpi_rcv_wscale", "window-scale shift applied to our window"),
    ("tcpi_rto", "current RTO with backoff, microseconds"),
    ("tcpi_snd_mss", "SMSS in use, bytes"),
    ("tcpi_advmss", "MSS we announced, bytes"),
    ("tcpi_unacked", "segments between SND.UNA and SND.MAX (packets)"),
    ("tcpi_sacked", "of those, SACKed (packets)"),
    ("tcpi_lost", "of those, marked lost and not SACKed (packets; RACK clears the mark on resend)"),
    ("tcpi_retrans", "of those, retransmitted and not SACKed or marked lost again (packets)"),
    ("tcpi_rtt", "smoothed RTT, microseconds (0 before a sample)"),
    ("tcpi_rttvar", "RTT variation (RFC 6298 RTTVAR; Linux estimator: mdev), microseconds"),
    ("tcpi_min_rtt", "smallest RTT sample, microseconds"),
    ("tcpi_snd_cwnd", "congestion window, packets (bytes / SMSS rounded down)"),
    ("tcpi_cwnd", "alias of tcpi_snd_cwnd"),
    ("tcpi_snd_ssthresh", "slow-start threshold, packets (2147483647 while 'infinite')"),
    ("tcpi_ssthresh", "alias of tcpi_snd_ssthresh"),
    ("tcpi_reordering", "DupThresh in force, packets"),
    ("tcpi_total_retrans", "segments retransmitted over the connection's life"),
    ("tcpi_snd_wnd", "peer's window, bytes (scaled)"),
    ("tcpi_notsent_bytes", "bytes written and never sent"),
    ("tcpi_pacing_rate", "pacing rate, bytes per second (0 when not pacing)"),
    ("tcpi_bytes_acked", "bytes cumulatively acknowledged"),
    ("tcpi_bytes_received", "in-order bytes received"),
    ("tcpi_segs_out", "segments sent (all kinds)"),
    ("tcpi_segs_in", "segments received"),
    ("tcpi_data_segs_out", "segments sent with data"),
    ("tcpi_dsack_dups", "D-SACK blocks received"),
    ("rexmit_cwnd_bytes", "cwnd in bytes, exactly"),
    ("rexmit_ssthresh_bytes", "ssthresh in bytes, exactly"),
    ("rexmit_pipe", "RFC 6675 pipe (RACK: bytes in flight; without SACK: FlightSize), bytes"),
    ("rexmit_flight_size", "RFC 5681 FlightSize (SND.MAX - SND.UNA), bytes"),
    ("rexmit_in_recovery", "1 during a loss-recovery episode (fast recovery, or SACK recovery after an RTO)"),
    ("rexmit_recoveries", "fast-recovery episodes begun"),
    ("rexmit_fast_retransmits", "fast retransmits (recovery entries by duplicate ACKs, SACK or RACK)"),
    ("rexmit_timeouts", "retransmission timeouts (SYN and data)"),
    ("rexmit_rtx_fast", "segments retransmitted in dupack/SACK recovery"),
    ("rexmit_rtx_timeout", "segments retransmitted after a timeout"),
    ("rexmit_rtx_rack", "segments retransmitted because RACK marked them lost"),
    ("rexmit_rtx_tlp", "tail loss probes that retransmitted a segment"),
    ("rexmit_rescue_retransmits", "RFC 6675 NextSeg (4) rescue retransmissions"),
    ("rexmit_tlp_probes", "tail loss probes sent (new data or a retransmission)"),
    ("rexmit_tlp_repairs", "probes that repaired a loss (RFC 8985 §7.4)"),
    ("rexmit_undos_dsack", "reductions undone: every retransmission reported by D-SACK (RFC 3708)"),
    ("rexmit_undos_timestamps", "reductions undone: an echoed timestamp older than the retransmission (RFC 3522)"),
    ("rexmit_undos_frto", "timeouts undone by F-RTO (RFC 5682 §3)"),
    ("rexmit_dsacks_sent", "D-SACK blocks we sent"),
    ("rexmit_ooo_bytes", "bytes held out of order at the receiver"),
    ("rexmit_ecn_ce_received", "data segments that arrived marked CE (RFC 3168)"),
    ("rexmit_ecn_ece_received", "ACKs that arrived with ECE, ECN negotiated"),
    ("rexmit_ecn_reductions", "window reductions for ECE (at most one per window of data)"),
    ("rexmit_ecn_cwr_sent", "data segments sent with CWR"),
];

/// Linux's constants, usable by name.
const CONSTANTS: &[(&str, f64)] = &[
    ("TCP_CA_Open", 0.0),
    ("TCP_CA_Disorder", 1.0),
    ("TCP_CA_CWR", 2.0),
    ("TCP_CA_Recovery", 3.0),
    ("TCP_CA_Loss", 4.0),
    ("TCP_ESTABLISHED", 1.0),
    ("TCP_SYN_SENT", 2.0),
    ("TCP_SYN_RECV", 3.0),
    ("TCP_FIN_WAIT1", 4.0),
    ("TCP_FIN_WAIT2", 5.0),
    ("TCP_TIME_WAIT", 6.0),
    ("TCP_CLOSE", 7.0),
    ("TCP_CLOSE_WAIT", 8.0),
    ("TCP_LAST_ACK", 9.0),
    ("TCP_LISTEN", 10.0),
    ("TCP_CLOSING", 11.0),
    ("TCPI_OPT_TIMESTAMPS", 1.0),
    ("TCPI_OPT_SACK", 2.0),
    ("TCPI_OPT_WSCALE", 4.0),
];

/// A Linux constant by name.
pub fn constant(name: &str) -> Option<f64> {
    CONSTANTS.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
}

/// The value of variable `name` for connection `c`.
pub fn value(c: &Connection, name: &str) -> Option<f64> {
    let i = c.info();
    let st = c.stats();
    let ca = match i.ca_state {
        InfoCaState::Open => 0,
        InfoCaState::Disorder => 1,
        InfoCaState::Recovery => 3,
        InfoCaState::Loss => 4,
    };
    let wscale = (i.snd_wscale | i.rcv_wscale) > 0;
    let opts = (i.timestamps as u64) | ((i.sack as u64) << 1) | ((wscale as u64) << 2);
    let v: u64 = match name {
        "tcpi_state" => linux_state_number(i.state) as u64,
        "tcpi_ca_state" => ca,
        "tcpi_retransmits" => i.retransmits as u64,
        "tcpi_backoff" => i.backoff as u64,
        "tcpi_options" => opts,
        "tcpi_snd_wscale" => i.snd_wscale as u64,
        "tcpi_rcv_wscale" => i.rcv_wscale as u64,
        "tcpi_rto" => i.rto_us,
        "tcpi_snd_mss" => i.snd_mss,
        "tcpi_advmss" => i.advmss,
        "tcpi_unacked" => i.unacked,
        "tcpi_sacked" => i.sacked,
        "tcpi_lost" => i.lost,
        "tcpi_retrans" => i.retrans,
        "tcpi_rtt" => i.rtt_us,
        "tcpi_rttvar" => i.rttvar_us,
        "tcpi_min_rtt" => i.min_rtt_us,
        "tcpi_snd_cwnd" | "tcpi_cwnd" => i.snd_cwnd,
        "tcpi_snd_ssthresh" | "tcpi_ssthresh" => i.snd_ssthresh,
        "tcpi_reordering" => i.reordering,
        "tcpi_total_retrans" => i.total_retrans,
        "tcpi_snd_wnd" => i.snd_wnd,
        "tcpi_notsent_bytes" => i.notsent_bytes,
        "tcpi_pacing_rate" => i.pacing_rate,
        "tcpi_bytes_acked" => st.bytes_acked,
        "tcpi_bytes_received" => st.bytes_delivered,
        "tcpi_segs_out" => st.segments_sent,
        "tcpi_segs_in" => st.segments_received,
        "tcpi_data_segs_out" => st.data_segments_sent,
        "tcpi_dsack_dups" => st.dsacks_received,
        "rexmit_cwnd_bytes" => i.cwnd_bytes,
        "rexmit_ssthresh_bytes" => i.ssthresh_bytes,
        "rexmit_pipe" => c.pipe(),
        "rexmit_flight_size" => c.flight_size(),
        "rexmit_in_recovery" => c.in_recovery() as u64,
        "rexmit_recoveries" => st.recoveries.len() as u64,
        "rexmit_fast_retransmits" => st.fast_retransmits,
        "rexmit_timeouts" => st.timeouts,
        "rexmit_rtx_fast" => st.retransmits_fast,
        "rexmit_rtx_timeout" => st.retransmits_timeout,
        "rexmit_rtx_rack" => st.retransmits_rack,
        "rexmit_rtx_tlp" => st.retransmits_tlp,
        "rexmit_rescue_retransmits" => st.retransmits_rescue,
        "rexmit_tlp_probes" => st.tlp_probes,
        "rexmit_tlp_repairs" => st.tlp_repairs,
        "rexmit_undos_dsack" => st.undos_dsack,
        "rexmit_undos_timestamps" => st.undos_timestamps,
        "rexmit_undos_frto" => st.undos_frto,
        "rexmit_dsacks_sent" => st.dsacks_sent,
        "rexmit_ooo_bytes" => st.ooo_bytes,
        "rexmit_ecn_ce_received" => st.ecn_ce_received,
        "rexmit_ecn_ece_received" => st.ecn_ece_received,
        "rexmit_ecn_reductions" => st.ecn_reductions,
        "rexmit_ecn_cwr_sent" => st.ecn_cwr_sent,
        _ => return None,
    };
    Some(v as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rexmit_tcp::TcpConfig;
    use rexmit_time::Time;

    #[test]
    fn every_documented_name_has_a_value() {
        let c = Connection::connect(TcpConfig::default(), 1, 2, 3, Time::ZERO);
        for (n, _) in VARS {
            assert!(value(&c, n).is_some(), "{n}");
        }
        assert_eq!(value(&c, "tcpi_state"), Some(2.0));
        assert_eq!(value(&c, "nope"), None);
        assert_eq!(constant("TCP_CA_Loss"), Some(4.0));
    }
}
