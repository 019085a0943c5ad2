//! Named sets of defaults for `TcpConfig`: the RFC defaults (`TcpConfig::default`) and the
//! Linux 6.x defaults as far as rexmit models them. Data in one place: each profile is one
//! struct literal, and a scenario's own fields override it.

use crate::cc::CcAlgorithm;
use crate::config::{
    DecreaseBase, ReceiveWindow, RecoveryAlgorithm, RtoRearm, TcpConfig, WindowUnit,
};
use rexmit_time::Duration;
use rexmit_transport::{RtoConfig, RtoEstimator};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    /// The RFC defaults (RFC 5681, 6298, 6675 ...): `TcpConfig::default()`.
    Rfc,
    /// Linux 6.x defaults (net/ipv4/tcp*.c and the sysctl defaults): what the kernel does that
    /// rexmit models. What it does that rexmit does not is listed in docs/validation.md#linux.
    Linux,
}

impl Profile {
    pub const ALL: [Profile; 2] = [Profile::Rfc, Profile::Linux];

    pub fn name(self) -> &'static str {
        match self {
            Profile::Rfc => "rfc",
            Profile::Linux => "linux",
        }
    }

    pub fn config(self) -> TcpConfig {
        match self {
            Profile::Rfc => TcpConfig::default(),
            Profile::Linux => TcpConfig {
                mss: 1460,
                // RFC 6928 (TCP_INIT_CWND).
                initial_cwnd_segments: 10,
                recovery: RecoveryAlgorithm::Sack,
                // net.ipv4.tcp_congestion_control = cubic, with HyStart (tcp_cubic.c hystart=1).
                cc: CcAlgorithm::Cubic,
                hystart: true,
                // tcp_cubic's Reno-friendly estimate grows by 3(1 − β)/(1 + β) per RTT
                // throughout: RFC 9438's switch to 1 at cwnd_prior is not in the kernel.
                cubic_alpha_switch: false,
                // RACK-TLP (tcp_recovery = 1, tcp_early_retrans = 3) replaces DupThresh
                // marking; PRR (RFC 6937) sets cwnd during recovery.
                rack: true,
                prr: true,
                // tcp_reno_ssthresh / cubictcp_recalc_ssthresh start from snd_cwnd, not
                // FlightSize (docs/validation.md#linux).
                decrease_base: DecreaseBase::Cwnd,
                // snd_cwnd and snd_ssthresh count packets (docs/validation.md#linux).
                window_unit: WindowUnit::Segments,
                // tcp_xmit_retransmit_queue re-arms the RTO when it resends the head.
                rto_rearm: RtoRearm::HeadRetransmit,
                dup_thresh: 3,
                // TCP_RTO_MIN 200 ms, TCP_TIMEOUT_INIT 1 s, TCP_RTO_MAX 120 s, and Linux's
                // estimator (tcp_rtt_estimator: RTO = srtt + the round's largest 4·mdev, at
                // least rto_min). G as rto_min gives the RFC estimator the same floor.
                rto: RtoConfig {
                    initial: Duration::from_secs(1),
                    min: Duration::from_millis(200),
                    max: Duration::from_secs(120),
                    granularity: Duration::from_millis(200),
                    estimator: RtoEstimator::Linux,
                },
                sack: true,
                dsack: true,
                timestamps: true,
                window_scaling: true,
                nagle: true,
                // An ACK for every second full segment; the delayed-ACK timer at TCP_DELACK_MIN.
                ack_every: 2,
                delayed_ack_timeout: Duration::from_millis(40),
                immediate_ack_on_ooo: true,
                // tcp_cong_avoid_ai counts acknowledged packets; tcp_slow_start has no L.
                byte_counting: true,
                slow_start_limit_segments: 0,
                // Linux counts SACKed segments out of flight (packets_in_flight = packets_out −
                // sacked_out − lost_out + retrans_out), so every duplicate ACK with a new SACK
                // block lets a new segment go before recovery starts: RFC 3042 limited transmit
                // does that for the first two (docs/validation.md#linux).
                limited_transmit: true,
                early_retransmit: false,
                // Autotuning grows the buffers up to tcp_wmem[2] = 4 MiB and tcp_rmem[2] = 6 MiB
                // (Debian's defaults); rexmit offers them from the start.
                send_buffer: 4 << 20,
                recv_buffer: 6 << 20,
                // The receive window starts below 64 KiB and grows as Linux's does, with an ACK
                // per segment while it grows (docs/validation.md#linux).
                receive_window: ReceiveWindow::LinuxAutotune,
                // tcp_retries2.
                max_retransmissions: 15,
                // tcp_syn_retries = 6: the 7th SYN timeout, 1 + 2 + ... + 64 s after the SYN.
                syn_timeout: Duration::from_secs(127),
                ..TcpConfig::default()
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_profile_is_a_valid_configuration() {
        for p in Profile::ALL {
            assert_eq!(p.config().validate(), Ok(()), "{}", p.name());
        }
        assert_eq!(Profile::Rfc.config(), TcpConfig::default());
    }

    /// Linux's RTO floor: srtt + 200 ms at least, not max(srtt + 4·rttvar, 200 ms).
    #[test]
    fn linux_rto_is_srtt_plus_rto_min() {
        let mut e = rexmit_transport::RttEstimator::new(Profile::Linux.config().rto);
        for _ in 0..50 {
            e.on_sample(Duration::from_millis(100));
        }
        assert_eq!(e.rto(), Duration::from_millis(300));
    }
}
