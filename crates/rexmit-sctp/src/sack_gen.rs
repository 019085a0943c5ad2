//! When the data receiver acknowledges, and what the SACK / NR-SACK says. Owns: the delayed
//! SACK state (RFC 9260 §6.2: every `sack_freq`-th DATA packet or after `sack_delay`; at once
//! on gaps, gap fills and duplicates, §6.7) and chunk construction. Does not own: which TSNs
//! arrived (`receiver_map`).

use crate::config::SctpConfig;
use crate::receiver_map::ReceiverMap;
use rexmit_time::Time;
use rexmit_wire::{Chunk, NrSackChunk, SackChunk};

#[derive(Clone, Debug, Default, PartialEq)]
pub struct SackGen {
    /// DATA-carrying packets received since the last SACK.
    packets_unacked: u32,
    send_now: bool,
    dups: Vec<u32>,
    /// Path index the next SACK goes to: where the latest DATA came from (RFC 9260 §6.4).
    pub dest: usize,
    /// A SACK was built (`SctpConfig::sack_first_data` acknowledges until then at once).
    sacked: bool,
}

impl SackGen {
    /// Account for one received packet that carried DATA. `gaps_before` / `gaps_now`: whether
    /// out-of-order TSNs existed before / after it. `timer`: the delayed-SACK deadline (the
    /// association's timer table keeps it).
    pub fn on_data_packet(
        &mut self,
        now: Time,
        cfg: &SctpConfig,
        gaps_before: bool,
        gaps_now: bool,
        dups: &[u32],
        timer: &mut Option<Time>,
    ) {
        self.packets_unacked += 1;
        self.dups.extend_from_slice(dups);
        // CMT DAC (Iyengar et al. §4.3): keep delaying while reordering across paths opens and
        // fills holes; the SACK reports how many packets it covers instead.
        let dac = cfg.cmt.enabled && cfg.cmt.dac;
        let gap_rule = !dac && cfg.immediate_sack_on_gap && (gaps_before || gaps_now);
        // FreeBSD (`sack_first_data`): the association's first DATA is acknowledged at once.
        let first = cfg.sack_first_data && !self.sacked;
        if gap_rule || first || !dups.is_empty() || self.packets_unacked >= cfg.sack_freq {
            self.send_now = true;
        } else if timer.is_none() {
            *timer = Some(now + cfg.sack_delay);
        }
    }

    /// Ask for a SACK at the next transmit opportunity (e.g. a SHUTDOWN is being answered).
    pub fn request_now(&mut self) {
        self.send_now = true;
    }

    /// The delayed-SACK timer (`deadline`) expired by `now`: the SACK is due.
    pub fn on_timeout(&mut self, now: Time, deadline: Option<Time>) {
        if deadline.is_some_and(|d| d <= now) {
            self.send_now = true;
        }
    }

    pub fn due(&self) -> bool {
        self.send_now
    }
    /// Something is waiting to be acknowledged (due now or delayed): worth bundling with
    /// outgoing DATA (RFC 9260 §6.2).
    pub fn pending(&self) -> bool {
        self.send_now || self.packets_unacked > 0 || !self.dups.is_empty()
    }
    /// Build the acknowledgement and reset the delayed-ack state. With NR-SACK negotiated the
    /// chunk is an NR-SACK: gap blocks cover every out-of-order TSN (same meaning as in a
    /// SACK), nr-gap blocks the non-renegable ones, and the 'A' bit is set when those are
    /// all of them (seed 000 §III.A). Assumption: with 'A' set rexmit still lists the
    /// nr-gap blocks, as the figures of seed 000 show them ("N:10;2-2").
    /// The delayed-SACK timer is the caller's to stop.
    pub fn build(&mut self, map: &ReceiverMap, nr_sack: bool, dac: bool, a_rwnd: u32) -> Chunk {
        let dac_packets = if dac {
            self.packets_unacked.min(3) as u8
        } else {
            0
        };
        self.packets_unacked = 0;
        self.send_now = false;
        self.sacked = true;
        let dup_tsns = std::mem::take(&mut self.dups);
        let cum_tsn_ack = map.cum_tsn();
        let gap_blocks = map.gap_blocks();
        if nr_sack {
            Chunk::NrSack(NrSackChunk {
                all_non_renegable: !gap_blocks.is_empty() && map.all_non_renegable(),
                cum_tsn_ack,
                a_rwnd,
                gap_blocks,
                nr_gap_blocks: map.nr_gap_blocks(),
                dup_tsns,
                dac_packets,
            })
        } else {
            Chunk::Sack(SackChunk {
                cum_tsn_ack,
                a_rwnd,
                gap_blocks,
                dup_tsns,
                dac_packets,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rexmit_time::Duration;

    #[test]
    fn every_second_packet_or_after_the_delay_and_at_once_on_gaps() {
        let cfg = SctpConfig::default();
        let mut s = SackGen::default();
        let mut timer = None;
        s.on_data_packet(Time::ZERO, &cfg, false, false, &[], &mut timer);
        assert!(!s.due());
        assert_eq!(timer, Some(Time::ZERO + Duration::from_millis(200)));
        s.on_data_packet(Time::from_millis(1), &cfg, false, false, &[], &mut timer);
        assert!(s.due());
        let m = ReceiverMap::new(1);
        s.build(&m, false, false, 1000);
        timer = None;
        s.on_data_packet(Time::from_millis(2), &cfg, false, false, &[], &mut timer);
        s.on_timeout(Time::from_millis(202), timer);
        assert!(s.due());
        s.build(&m, false, false, 1000);
        timer = None;
        s.on_data_packet(Time::from_millis(3), &cfg, false, true, &[], &mut timer);
        assert!(s.due());
    }

    #[test]
    fn dac_delays_through_gaps_and_reports_the_packet_count() {
        let mut cfg = SctpConfig::default();
        cfg.cmt.enabled = true;
        cfg.cmt.dac = true;
        let mut s = SackGen::default();
        let mut timer = None;
        s.on_data_packet(Time::ZERO, &cfg, false, true, &[], &mut timer);
        assert!(!s.due(), "a new gap does not force a SACK under DAC");
        s.on_data_packet(Time::from_millis(1), &cfg, true, true, &[], &mut timer);
        assert!(s.due(), "every second packet");
        let m = ReceiverMap::new(1);
        match s.build(&m, false, true, 1000) {
            Chunk::Sack(c) => assert_eq!(c.dac_packets, 2),
            c => panic!("{c:?}"),
        }
        s.on_data_packet(Time::from_millis(2), &cfg, true, true, &[7], &mut timer);
        assert!(s.due(), "duplicates are reported at once");
        match s.build(&m, true, true, 1000) {
            Chunk::NrSack(c) => assert_eq!(c.dac_packets, 1),
            c => panic!("{c:?}"),
        }
    }
}
