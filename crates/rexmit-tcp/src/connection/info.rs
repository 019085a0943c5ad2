//! A read-only snapshot of a connection in the shape of Linux's `struct tcp_info`
//! (`getsockopt(TCP_INFO)`), for scripts (`rexmit-script`) and tests that want to assert on the
//! sender's state the way packetdrill scripts do on a kernel.
//!
//! Owns nothing: every field is read from the sender, the scoreboard, the RTT estimator and the
//! statistics at the time of the call. Units are Linux's: windows and segment counts in
//! packets, times in microseconds. Where rexmit's state differs from what the kernel keeps, the
//! field's doc says what it holds here.

use super::{Connection, State};
use crate::config::RecoveryAlgorithm;

/// Linux's `TCP_INFINITE_SSTHRESH`: what `tcpi_snd_ssthresh` shows before the first decrease.
pub const INFINITE_SSTHRESH: u64 = 0x7fff_ffff;

/// Linux's congestion-avoidance states (`enum tcp_ca_state`, `tcpi_ca_state`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CaState {
    /// 0: no loss suspected.
    Open = 0,
    /// 1: SACKed data is outstanding but recovery has not started.
    Disorder = 1,
    /// 3: fast recovery (duplicate ACKs, SACK or RACK).
    Recovery = 3,
    /// 4: recovery after a retransmission timeout, until the data outstanding at the timeout is
    /// acknowledged (without SACK: until an ACK advances SND.UNA).
    Loss = 4,
}

/// Linux's `tcpi_state` numbers (`TCP_ESTABLISHED` = 1 ... `TCP_CLOSING` = 11).
pub fn linux_state_number(s: State) -> u8 {
    match s {
        State::Established => 1,
        State::SynSent => 2,
        State::SynReceived => 3,
        State::FinWait1 => 4,
        State::FinWait2 => 5,
        State::TimeWait => 6,
        State::Closed => 7,
        State::CloseWait => 8,
        State::LastAck => 9,
        State::Listen => 10,
        State::Closing => 11,
    }
}

/// The `tcp_info` view of a connection (`Connection::info`). Field names follow Linux's
/// `tcpi_` fields without the prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpInfo {
    pub state: State,
    pub ca_state: CaState,
    /// Consecutive retransmission timeouts of the data at SND.UNA (Linux icsk_retransmits).
    pub retransmits: u32,
    /// RTO backoffs in force (Linux icsk_backoff).
    pub backoff: u32,
    pub timestamps: bool,
    pub sack: bool,
    /// Window-scale shifts in use (0 when not negotiated).
    pub snd_wscale: u8,
    pub rcv_wscale: u8,
    /// Current RTO including backoff, microseconds.
    pub rto_us: u64,
    /// SMSS in use, bytes.
    pub snd_mss: u64,
    /// The MSS we announce, bytes.
    pub advmss: u64,
    /// Segments between SND.UNA and SND.MAX (Linux packets_out).
    pub unacked: u64,
    /// Of those, SACKed.
    pub sacked: u64,
    /// Of those, marked lost and not SACKed. With RACK a retransmission clears the mark (so this
    /// counts lost segments not yet resent); with RFC 6675 the mark stays (IsLost).
    pub lost: u64,
    /// Of those, retransmitted and neither SACKed nor marked lost again since.
    pub retrans: u64,
    /// Smoothed RTT, its variation (RFC 6298 RTTVAR; Linux estimator: mdev) and the minimum
    /// RTT seen, microseconds (0 before the first sample).
    pub rtt_us: u64,
    pub rttvar_us: u64,
    pub min_rtt_us: u64,
    /// cwnd and ssthresh in packets (bytes / SMSS, rounded down; ssthresh
    /// `INFINITE_SSTHRESH` while it is above that).
    pub snd_cwnd: u64,
    pub snd_ssthresh: u64,
    /// The same in bytes, exactly (rexmit's windows are bytes).
    pub cwnd_bytes: u64,
    pub ssthresh_bytes: u64,
    /// DupThresh in force, segments (Linux tp->reordering; rexmit does not adapt it).
    pub reordering: u64,
    /// Segments retransmitted over the connection's life.
    pub total_retrans: u64,
    /// The peer's window, bytes (scaled).
    pub snd_wnd: u64,
    /// Bytes written but never sent.
    pub notsent_bytes: u64,
    /// Pacing rate, bytes per second (0 when the controller does not pace).
    pub pacing_rate: u64,
}

impl Connection {
    /// The connection as Linux's `getsockopt(TCP_INFO)` would describe it (`TcpInfo`).
    pub fn info(&self) -> TcpInfo {
        let snd = &self.snd;
        let smss = snd.smss.max(1);
        let rack = self.cfg.rack && self.sack_ok && self.cfg.recovery == RecoveryAlgorithm::Sack;
        let (mut unacked, mut sacked, mut lost, mut retrans) = (0, 0, 0, 0);
        for s in snd.sb.segments() {
            unacked += 1;
            if s.sacked {
                sacked += 1;
                continue;
            }
            if s.lost {
                lost += 1;
            }
            if s.rexmits > 0 && !(rack && s.lost) {
                retrans += 1;
            }
        }
        let us = |d: rexmit_time::Duration| d.as_nanos() / 1_000;
        let ssthresh = snd.cc.ssthresh();
        TcpInfo {
            state: self.state,
            ca_state: self.ca_state(sacked),
            retransmits: snd.consecutive_timeouts,
            backoff: snd.rtt.backoffs(),
            timestamps: self.ts_ok,
            sack: self.sack_ok,
            snd_wscale: self.snd_wscale,
            rcv_wscale: self.rcv_wscale,
            rto_us: us(snd.rtt.rto()),
            snd_mss: snd.smss,
            advmss: self.cfg.mss as u64,
            unacked,
            sacked,
            lost,
            retrans,
            rtt_us: snd.rtt.srtt().map_or(0, us),
            rttvar_us: us(snd.rtt.rttvar()),
            min_rtt_us: snd.rtt.min_rtt().map_or(0, us),
            snd_cwnd: snd.cc.window() / smss,
            snd_ssthresh: (ssthresh / smss).min(INFINITE_SSTHRESH),
            cwnd_bytes: snd.cc.window(),
            ssthresh_bytes: ssthresh,
            reordering: snd.effective_dup_thresh() as u64,
            total_retrans: self.stats.retransmits(),
            snd_wnd: snd.snd_wnd(),
            notsent_bytes: snd.buf.end().saturating_sub(snd.snd_max),
            pacing_rate: snd.cc.pacing_rate().unwrap_or(0),
        }
    }

    /// Linux's ca_state from rexmit's recovery state: an open fast-recovery episode is in the
    /// statistics (`TcpStats::recoveries`); an episode without one began at a timeout.
    fn ca_state(&self, sacked: u64) -> CaState {
        let fast = self
            .stats
            .recoveries
            .last()
            .is_some_and(|e| e.end.is_none());
        if self.snd.in_recovery() {
            if fast {
                CaState::Recovery
            } else {
                CaState::Loss
            }
        } else if self.snd.consecutive_timeouts > 0 {
            CaState::Loss
        } else if sacked > 0 {
            CaState::Disorder
        } else {
            CaState::Open
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::TcpConfig;
    use rexmit_time::{Duration, Time};
    use rexmit_wire::{Payload, SackBlock, TcpFlags, TcpOptions, TcpSegment};

    const ISS: u32 = 1000;

    fn seg(flags: TcpFlags, seq: u32, ack: u32, sack: &[(u32, u32)]) -> TcpSegment {
        let mut options = TcpOptions::default();
        if flags.contains(TcpFlags::SYN) {
            options.mss = Some(1000);
            options.sack_permitted = true;
        }
        for &(l, r) in sack {
            options.sack_blocks.push(SackBlock {
                left: ISS + l,
                right: ISS + r,
            });
        }
        TcpSegment {
            src_port: 80,
            dst_port: 4000,
            seq,
            ack,
            flags,
            window: 60_000,
            urgent: 0,
            options,
            payload: Payload::empty(),
        }
    }

    /// A client with 4 segments of 1000 bytes out; the peer (ISN 0) acknowledged the SYN after
    /// 100 ms.
    fn client() -> Connection {
        let cfg = TcpConfig {
            mss: 1000,
            initial_cwnd_segments: 4,
            ..TcpConfig::default()
        };
        let mut c = Connection::connect(cfg, 4000, 80, ISS, Time::ZERO);
        c.poll_transmit(Time::ZERO).expect("SYN");
        let t = Time::from_millis(100);
        c.handle_segment(t, &seg(TcpFlags::SYN | TcpFlags::ACK, 0, ISS + 1, &[]));
        c.send(t, 4000);
        while c.poll_transmit(t).is_some() {}
        c
    }

    #[test]
    fn info_counts_packets_and_microseconds_as_linux_does() {
        let c = client();
        let i = c.info();
        assert_eq!(i.state, State::Established);
        assert_eq!(linux_state_number(i.state), 1);
        assert_eq!((i.snd_cwnd, i.cwnd_bytes), (4, 4000));
        assert_eq!(i.snd_ssthresh, INFINITE_SSTHRESH);
        assert_eq!((i.unacked, i.sacked, i.lost, i.retrans), (4, 0, 0, 0));
        // RFC 6298 §2.2: SRTT = R = 100 ms, RTTVAR = R/2, RTO = SRTT + 4·RTTVAR → 1 s floor.
        assert_eq!((i.rtt_us, i.rttvar_us), (100_000, 50_000));
        assert_eq!(i.rto_us, 1_000_000);
        assert_eq!(i.ca_state, CaState::Open);
        assert!(i.sack && !i.timestamps);
    }

    #[test]
    fn sack_blocks_move_the_state_to_disorder_then_recovery() {
        let mut c = client();
        let t = Time::from_millis(200);
        let ack = |sack: &[(u32, u32)]| seg(TcpFlags::ACK, 1, ISS + 1, sack);
        c.handle_segment(t, &ack(&[(1001, 2001)]));
        let i = c.info();
        assert_eq!((i.ca_state, i.sacked), (CaState::Disorder, 1));
        c.handle_segment(t, &ack(&[(1001, 4001)]));
        let i = c.info();
        // RFC 6675 §5: three SACKed segments above the first: it is lost, recovery begins.
        assert_eq!((i.ca_state, i.sacked, i.lost), (CaState::Recovery, 3, 1));
        while c.poll_transmit(t).is_some() {}
        assert_eq!(c.info().retrans, 1);
    }

    #[test]
    fn a_timeout_is_the_loss_state_with_backoff() {
        let mut c = client();
        let rto = c.poll_timeout().expect("RTO armed");
        c.handle_timeout(rto);
        let i = c.info();
        assert_eq!(
            (i.ca_state, i.retransmits, i.backoff),
            (CaState::Loss, 1, 1)
        );
        assert_eq!(i.rto_us, 2_000_000);
        assert_eq!((i.snd_cwnd, i.lost), (1, 4));
        assert!(rto >= Time::ZERO + Duration::from_secs(1));
    }
}
