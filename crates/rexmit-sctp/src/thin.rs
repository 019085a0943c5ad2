//! Thin-stream detection and the timer arithmetic of seed 004 (Petlund et al., "Improving SCTP
//! retransmission delays for time-dependent thin streams") §5, plus RFC 5827's outstanding-packet
//! threshold. Owns: the list of packets in flight (highest TSN of each), the packet loss
//! estimate, the thin test of seed 004 Fig. 3, the RTO used for T3-rtx while thin, and RFC 5827's
//! ER_thresh. Does not own: when these are consulted (the association's `thin_glue`, SACK
//! processing and T3 handling) or the knobs (`config::ThinStreamConfig`).

use crate::config::ThinStreamConfig;
use crate::tsn::{tsn_gt, tsn_lt};
use rexmit_time::Duration;
use rexmit_transport::RttEstimator;
use std::collections::VecDeque;

/// Packets needed to trigger a fast retransmission (RFC 9260 §7.2.4's three miss indications,
/// seed 004 §5.1's pttfr): TCP's DupThresh, from rexmit_transport.
pub use rexmit_transport::DUP_THRESH as DUPTHRESH;

/// One DATA packet in flight, known by the highest TSN it carried (seed 004 §5.1: "a list that
/// holds the highest TSN for every packet in flight").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct SentPacket {
    highest: u32,
    /// Its highest TSN is gap-acked: it arrived, so it has left the network, though it
    /// stays outstanding until the cumulative ack passes it.
    arrived: bool,
    /// SACKs that reported `highest` missing below a higher acked TSN.
    misses: u32,
}

/// Packets in flight and the packet loss estimate of seed 004 §5.1.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PacketTracker {
    /// Packets not cumulatively acked, in send order.
    outstanding: VecDeque<SentPacket>,
    /// DATA packets sent (first transmissions and retransmissions).
    pub sent: u64,
    /// Packets whose highest TSN three SACKs reported missing (seed 004 §5.1).
    pub lost: u64,
    /// Highest TSN sent so far: a packet of TSNs above it is new data and replaces nothing.
    highest_sent: Option<u32>,
}

impl PacketTracker {
    /// A DATA packet carrying `tsns` left. A packet whose highest TSN is sent again has left
    /// the network (presumed lost): the new packet replaces it, so no chunk counts twice.
    pub fn on_packet_sent(&mut self, tsns: &[u32]) {
        let Some(highest) = tsns
            .iter()
            .copied()
            .reduce(|a, b| if tsn_gt(b, a) { b } else { a })
        else {
            return;
        };
        if self
            .highest_sent
            .is_some_and(|h| !tsns.iter().all(|&t| tsn_gt(t, h)))
        {
            self.outstanding.retain(|p| !tsns.contains(&p.highest));
        }
        if !self.highest_sent.is_some_and(|h| !tsn_gt(highest, h)) {
            self.highest_sent = Some(highest);
        }
        self.outstanding.push_back(SentPacket {
            highest,
            arrived: false,
            misses: 0,
        });
        self.sent += 1;
    }

    /// A SACK with cumulative TSN ack `cum` and gap blocks up to `highest_reported`;
    /// `gap_acked(tsn)` tells whether a TSN above `cum` is gap-acked. A packet leaves the
    /// network when the SACK acknowledges its highest TSN (seed 004 §5.1); one whose highest
    /// TSN falls in a gap gets a miss, and the third makes it lost (seed 004 §5.1, "indicated
    /// as lost by a SACK on three different occasions").
    pub fn on_sack(
        &mut self,
        cum: u32,
        highest_reported: Option<u32>,
        gap_acked: impl Fn(u32) -> bool,
    ) {
        self.outstanding.retain(|p| tsn_gt(p.highest, cum));
        for p in &mut self.outstanding {
            p.arrived = gap_acked(p.highest);
            if !p.arrived && highest_reported.is_some_and(|h| tsn_lt(p.highest, h)) {
                p.misses += 1;
                if p.misses == DUPTHRESH {
                    self.lost += 1;
                }
            }
        }
    }

    /// Packets sent whose highest TSN no SACK has acknowledged: seed 004's in_flight (the
    /// flight size counted in packets).
    pub fn in_flight(&self) -> u64 {
        self.outstanding.iter().filter(|p| !p.arrived).count() as u64
    }

    /// Packets not yet cumulatively acknowledged: RFC 5827's oflight.
    pub fn outstanding(&self) -> u64 {
        self.outstanding.len() as u64
    }

    /// Seed 004 §5.1 / Fig. 3: the stream is thin while
    /// `in_flight <= (pttfr + 1) / (1 − lossrate)` with `threshold = pttfr + 1` and
    /// lossrate = lost / sent packets; in integers, in_flight·(sent − lost) <= threshold·sent.
    pub fn is_thin(&self, threshold: u32, loss_rate_term: bool) -> bool {
        let n = self.in_flight() as u128;
        let t = threshold as u128;
        if !loss_rate_term || self.sent == 0 {
            return n <= t;
        }
        let (s, l) = (self.sent as u128, self.lost.min(self.sent) as u128);
        n * (s - l) <= t * s
    }

    /// RFC 5827 §3.2 (packet-based early retransmit, which SCTP uses): ER_thresh = oflight − 1
    /// miss indications with 2 or 3 packets outstanding and no previously unsent data that can
    /// be sent (rexmit_transport's rule, the same as TCP's). With one packet outstanding no
    /// miss indication can arrive (its chunks are lost together), so ER does not apply; this
    /// used to answer 1, with the same effect.
    pub fn er_threshold(&self, new_data_sendable: bool) -> Option<u32> {
        rexmit_transport::early_retransmit_threshold(
            self.outstanding(),
            new_data_sendable,
            DUPTHRESH,
        )
    }
}

/// The RTO for T3-rtx on a path. While thin, seed 004 §5.2 lowers RTO.Min to
/// `thin_rto_min` and §5.3 drops the exponential backoff; otherwise RFC 9260 §6.3.1/§6.3.3.
pub fn t3_rto(rtt: &RttEstimator, cfg: &ThinStreamConfig, thin: bool) -> Duration {
    let lower_min = thin && cfg.rto_min_200ms;
    let linear = thin && cfg.linear_timeouts;
    if !lower_min && !linear {
        return rtt.rto();
    }
    let c = rtt.config();
    let base = match rtt.srtt() {
        // RFC 9260 §6.3.1 C3 with the lowered minimum.
        Some(srtt) if lower_min => {
            let rto = srtt + (rtt.rttvar() * 4).max(c.granularity);
            rto.max(cfg.thin_rto_min.min(c.min)).min(c.max)
        }
        _ => rtt.base_rto(),
    };
    if linear {
        return base;
    }
    let mut rto = base;
    for _ in 0..rtt.backoffs() {
        rto = rto.saturating_add(rto);
        if rto >= c.max {
            return c.max;
        }
    }
    rto
}

#[cfg(test)]
mod tests {
    use super::*;
    use rexmit_transport::RtoConfig;

    #[test]
    fn fig3_thin_test_counts_packets_and_scales_with_the_loss_rate() {
        let mut t = PacketTracker::default();
        for tsn in 1..=4 {
            t.on_packet_sent(&[tsn]);
        }
        assert!(t.is_thin(4, true), "4 <= (3 + 1) / (1 - 0)");
        t.on_packet_sent(&[5]);
        assert!(!t.is_thin(4, true), "5 packets in flight, no loss");
        t.lost = 1; // 1 of 5 packets lost: 5·(5−1) = 20 <= 4·5
        assert!(t.is_thin(4, true), "5 <= 4 / (1 - 0.2)");
        assert!(!t.is_thin(4, false), "without the loss-rate term");
    }

    #[test]
    fn sacks_take_packets_out_of_flight_and_three_gap_reports_make_a_loss() {
        let mut t = PacketTracker::default();
        for tsn in 1..=3 {
            t.on_packet_sent(&[tsn]);
        }
        for n in 1..=3 {
            t.on_sack(0, Some(3), |tsn| tsn == 3);
            assert_eq!(t.lost, if n == 3 { 2 } else { 0 });
        }
        assert_eq!((t.in_flight(), t.outstanding()), (2, 3), "packet 3 arrived");
        t.on_sack(2, Some(3), |tsn| tsn == 3);
        assert_eq!((t.in_flight(), t.outstanding(), t.lost), (0, 1, 2));
    }

    #[test]
    fn a_retransmission_replaces_the_packets_it_resends() {
        let mut t = PacketTracker::default();
        t.on_packet_sent(&[1]);
        t.on_packet_sent(&[2]);
        t.on_packet_sent(&[3]);
        t.on_packet_sent(&[1, 2]);
        assert_eq!(t.in_flight(), 2, "packets {{3}} and {{1,2}}");
        assert_eq!(t.sent, 4);
    }

    #[test]
    fn rfc5827_threshold_is_outstanding_minus_one_below_four_packets() {
        let mut t = PacketTracker::default();
        t.on_packet_sent(&[1]);
        assert_eq!(
            t.er_threshold(false),
            None,
            "one packet: no miss indication can come"
        );
        t.on_packet_sent(&[2]);
        assert_eq!(t.er_threshold(false), Some(1));
        t.on_packet_sent(&[3]);
        assert_eq!(t.er_threshold(false), Some(2));
        assert_eq!(t.er_threshold(true), None, "new data could be sent");
        t.on_packet_sent(&[4]);
        assert_eq!(t.er_threshold(false), None);
    }

    #[test]
    fn thin_rto_lowers_the_minimum_and_drops_backoff() {
        let mut rtt = RttEstimator::new(RtoConfig::sctp());
        rtt.on_sample(Duration::from_millis(20)); // RTO = 20 + 4·10 = 60 ms -> RTO.Min
        rtt.back_off();
        rtt.back_off();
        let on = ThinStreamConfig {
            rto_min_200ms: true,
            ..ThinStreamConfig::default()
        };
        assert_eq!(t3_rto(&rtt, &on, false), Duration::from_secs(4));
        assert_eq!(t3_rto(&rtt, &on, true), Duration::from_millis(800));
        let both = ThinStreamConfig {
            linear_timeouts: true,
            ..on
        };
        assert_eq!(t3_rto(&rtt, &both, true), Duration::from_millis(200));
        let linear = ThinStreamConfig {
            linear_timeouts: true,
            ..ThinStreamConfig::default()
        };
        assert_eq!(t3_rto(&rtt, &linear, true), Duration::from_secs(1));
    }
}
