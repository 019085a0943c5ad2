//! RACK for SCTP (seed 002 §III): the shared RFC 8985 RACK-TLP (`rexmit_transport::rack`)
//! applied per DATA chunk, tail loss probes (§II.C) and seed 002 §V.A burst mitigation in the
//! recovery a probe triggers. Owns: when RACK runs on a SACK or a timer, the probe's content,
//! tail-recovery bookkeeping and the burst credit. Does not own: RACK's arithmetic (shared
//! with TCP), the fast-retransmit marking and congestion response (`sender`), packet assembly
//! (`transmit`).
//!
//! RACK replaces the three-miss-indication rule while it is on; the SACK's duplicate TSNs act
//! as D-SACKs (seed 002 §III: "SCTP reports missing packets as well as duplicate packets by
//! default"). RACK runs per association and single-path (config validation refuses CMT):
//! RACK.rtt comes from each delivered chunk, min_RTT is the lowest over all paths and SRTT is
//! the primary path's.

use super::timers::Timer;
use super::Association;
use crate::burst::{AdaptiveBurst, BurstCredit, Q};
use crate::config::BurstMitigation;
use crate::event::Transmit;
use crate::rtx_queue::TsnState;
use crate::stats::RtxCause;
use rexmit_time::{Duration, Time};
use rexmit_transport::rack::{Delivered, PersistFrom, Rack};
use rexmit_wire::sctp::{pad4, DATA_CHUNK_HEADER_LEN};
use rexmit_wire::Chunk;

// RFC 6675 DupThresh, below which RACK keeps its reordering window (RFC 8985 §6.2 step 4).
use rexmit_transport::DUP_THRESH;

/// A recovery that began when the acknowledgement of a tail loss probe revealed losses.
#[derive(Clone, Debug, PartialEq)]
struct TailRecovery {
    start: Time,
    /// End of the recovery's first round trip (start + SRTT), seed 002 §V.A.
    first_rtt_end: Time,
    lost_first: bool,
    lost_later: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SctpRack {
    pub(crate) rack: Rack,
    /// RACK's reordering timer (RFC 8985 §6.3) and the probe timeout (§7.2).
    /// The PTO expired: the next data packet is a probe.
    probe_due: bool,
    /// A probe went out and no recovery has started since.
    probed: bool,
    tail: Option<TailRecovery>,
    adaptive: AdaptiveBurst,
    credit: BurstCredit,
}

impl SctpRack {
    pub(crate) fn new(persist_from: PersistFrom) -> Self {
        SctpRack {
            rack: Rack::with_persistence(persist_from),
            probe_due: false,
            probed: false,
            tail: None,
            adaptive: AdaptiveBurst::default(),
            credit: BurstCredit::default(),
        }
    }

    /// The adaptive limits now, in MTUs (initial, increase).
    pub(crate) fn burst_limits(&self) -> (f64, f64) {
        self.adaptive.limits()
    }
}

impl Association {
    /// First unacknowledged chunk in first-transmission order (RACK's SND.UNA).
    fn unacked_seq(&self) -> u64 {
        self.tx
            .rtxq()
            .iter()
            .next()
            .map_or(self.tx.next_seq(), |e| e.seq)
    }

    fn rack_rtts(&self) -> (Option<Duration>, Option<Duration>) {
        let min = self.paths.iter().filter_map(|p| p.rtt().min_rtt()).min();
        let srtt = self.paths.get(self.primary).and_then(|p| p.rtt().srtt());
        (min, srtt)
    }

    /// Chunks in flight, counted up to two: the probe timeout tells only none, one and more
    /// apart (RFC 8985 §7.2), and a full count walked the whole queue at every SACK (issue 18).
    fn chunks_in_flight_up_to_two(&self) -> usize {
        self.tx
            .rtxq()
            .iter()
            .filter(|e| e.state == TsnState::InFlight)
            .take(2)
            .count()
    }

    /// RFC 8985 §6.2 steps 2–5 and §7.4 on a SACK that newly acknowledged `delivered`;
    /// `dup_reported`: it listed duplicate TSNs.
    pub(super) fn rack_on_sack(&mut self, now: Time, delivered: &[Delivered], dup_reported: bool) {
        let (min_rtt, _) = self.rack_rtts();
        let (una, max) = (self.unacked_seq(), self.tx.next_seq());
        let Some(r) = self.rack.as_mut() else {
            return;
        };
        r.rack
            .on_ack(now, delivered, min_rtt, dup_reported, una, max);
        if r.rack.tlp_loss_repaired(una, dup_reported) && self.tx.fast_recovery().is_none() {
            // RFC 8985 §7.4: only the retransmitted probe arrived, so it repaired a loss:
            // the congestion response of a fast recovery, without one.
            let p = self.primary;
            self.paths[p]
                .cc_mut()
                .on_loss(now, rexmit_tcp::cc::CongestionCause::TlpRepair, None);
        }
        self.rack_detect(now);
    }

    /// RFC 8985 §6.2 step 5 over the chunks in flight; losses go to fast retransmit.
    fn rack_detect(&mut self, now: Time) {
        let in_recovery = self.tx.fast_recovery().is_some();
        let sacked = self
            .tx
            .rtxq()
            .iter()
            .filter(|e| matches!(e.state, TsnState::GapAcked | TsnState::NrAcked))
            .count() as u32;
        let (min_rtt, srtt) = self.rack_rtts();
        let Some(r) = self.rack.as_mut() else {
            return;
        };
        let reo_wnd = r
            .rack
            .reo_wnd(in_recovery, sacked, DUP_THRESH, min_rtt, srtt);
        let mut lost: Vec<(u32, RtxCause)> = Vec::new();
        let mut relost: Vec<Time> = Vec::new();
        let scan = r.rack.detect_loss(
            now,
            reo_wnd,
            self.tx.rtxq().iter(),
            |e| (e.state == TsnState::InFlight).then_some((e.sent_at, e.seq)),
            |e| {
                lost.push((e.tsn, RtxCause::Rack));
                if e.tx_count >= 2 {
                    relost.push(e.sent_at);
                }
            },
        );
        self.timers.put(Timer::RackReorder, scan.timer);
        if lost.is_empty() {
            return;
        }
        // Seed 002 §V.A: a lost retransmission of the current tail recovery lowers the limit
        // of the round trip it was sent in (once per recovery for each).
        if let Some(t) = r.tail.as_mut() {
            for sent in relost.into_iter().filter(|s| *s >= t.start) {
                let first = sent < t.first_rtt_end;
                let seen = if first {
                    &mut t.lost_first
                } else {
                    &mut t.lost_later
                };
                if !*seen {
                    *seen = true;
                    r.adaptive.on_lost_retransmission(first);
                }
            }
        }
        let tail_starts = r.probed && !in_recovery;
        self.fast_retransmit(now, &lost);
        if self.tx.fast_recovery().is_some() {
            // RFC 8985 §7.2: no probes during recovery.
            if self.rack.is_some() {
                self.timers.stop(Timer::Pto);
            }
        }
        if tail_starts && self.tx.fast_recovery().is_some() {
            let rtt = srtt.unwrap_or_else(|| self.paths[self.primary].rtt().rto());
            if let Some(r) = self.rack.as_mut() {
                r.probed = false;
                r.tail = Some(TailRecovery {
                    start: now,
                    first_rtt_end: now + rtt,
                    lost_first: false,
                    lost_later: false,
                });
                self.stats.tail_recoveries += 1;
            }
        }
    }

    /// The fast recovery ended (RFC 9260 §7.2.4): RACK's window persistence and the tail
    /// recovery's outcome (seed 002 §II.B, §V.A).
    pub(super) fn rack_recovery_end(&mut self) {
        if let Some(r) = self.rack.as_mut() {
            r.rack.on_recovery_end();
            if let Some(t) = r.tail.take() {
                r.adaptive.on_recovery_end(t.lost_first || t.lost_later);
            }
        }
    }

    /// T3-rtx expired: the probe state is void; a tail recovery ends with loss.
    pub(super) fn rack_on_t3(&mut self) {
        if let Some(r) = self.rack.as_mut() {
            self.timers.stop(Timer::Pto);
            r.rack.tlp_end_seq = None;
            r.probe_due = false;
            r.probed = false;
            if r.tail.take().is_some() {
                r.adaptive.on_recovery_end(true);
            }
        }
    }

    /// RFC 8985 §7.2 (seed 002 §II.C): (re)arm the probe timeout when TLP is on, data is in
    /// flight, no recovery or probe is under way, and T3-rtx would not fire first.
    pub(super) fn rack_arm_pto(&mut self, now: Time) {
        if !self.cfg.rack.tlp {
            return;
        }
        let flight = self.chunks_in_flight_up_to_two();
        let srtt = self.paths.get(self.primary).and_then(|p| p.rtt().srtt());
        let t3 = (0..self.paths.len())
            .filter_map(|p| self.timers.get(Timer::T3Rtx(p)))
            .min();
        let (in_recovery, extra) = (self.tx.fast_recovery().is_some(), self.cfg.rack.pto_extra);
        let Some(r) = self.rack.as_mut() else {
            return;
        };
        self.timers.stop(Timer::Pto);
        if r.probe_due {
            return;
        }
        // RFC 8985 §7.2 puts the probe in the retransmission timer's place when the PTO would
        // come later; this SCTP keeps seed 002's behaviour of arming no probe then.
        let at = r
            .rack
            .pto_deadline(now, srtt, flight, extra, in_recovery, t3)
            .filter(|at| !t3.is_some_and(|t| *at >= t));
        self.timers.put(Timer::Pto, at);
    }

    /// RACK's reordering timer (RFC 8985 §6.3) and the PTO (§7.3).
    pub(super) fn rack_timers(&mut self, now: Time) {
        if self.rack.is_none() {
            return;
        }
        let reo_due = self.timers.is_due(Timer::RackReorder, now);
        let pto_due = self.timers.is_due(Timer::Pto, now);
        if reo_due {
            self.stats.rack_timer_expiries += 1;
            self.rack_detect(now);
        }
        if pto_due {
            let ok = self.tx.fast_recovery().is_none() && self.chunks_in_flight_up_to_two() > 0;
            if let Some(r) = self.rack.as_mut() {
                self.timers.stop(Timer::Pto);
                r.probe_due = ok;
            }
        }
    }

    pub(super) fn probe_due(&self) -> bool {
        self.rack.as_ref().is_some_and(|r| r.probe_due)
    }

    /// RFC 8985 §7.3 (seed 002 §II.C): the probe is one packet of new data if the peer's
    /// window allows, else the most recently sent chunk again; cwnd does not apply. T3-rtx
    /// restarts after it.
    pub(super) fn probe_packet(&mut self, now: Time) -> Option<Transmit> {
        if let Some(r) = self.rack.as_mut() {
            r.probe_due = false;
        }
        let new_ok = self
            .tx
            .queue()
            .front()
            .is_some_and(|f| f.chunk.payload.len() as u64 <= self.tx.peer_rwnd());
        let (out, p, retrans) = if new_ok {
            let p = self.primary;
            (self.new_data_packet_to(now, p, true)?, p, false)
        } else {
            let (tsn, p, len) = self.tx.take_probe_chunk()?;
            self.paths[p].leave_flight(len);
            self.on_data_sent(now, tsn, p, true);
            self.after_data_packet(now, p, &[tsn]);
            let chunk = self
                .tx
                .rtxq()
                .get(tsn)
                .map(|e| Chunk::Data(e.chunk.clone()))?;
            let used = pad4(DATA_CHUNK_HEADER_LEN + len as usize);
            (self.data_out(p, used, vec![chunk]), p, true)
        };
        self.stats.tlp_probes += 1;
        let at = now + self.t3_rto(p);
        self.timers.set(Timer::T3Rtx(p), at);
        let end = self.tx.next_seq();
        if let Some(r) = self.rack.as_mut() {
            self.timers.stop(Timer::Pto);
            r.rack.tlp_end_seq = Some(end);
            r.rack.tlp_is_retrans = retrans;
            r.probed = true;
        }
        Some(out)
    }

    /// Start of a transmit opportunity: the burst credit of a tail recovery (seed 002 §V.A).
    pub(super) fn rack_open_round(&mut self, now: Time) {
        let mitigation = self.cfg.rack.burst_mitigation;
        let max_burst = self.cfg.max_burst;
        let Some(r) = self.rack.as_mut() else {
            return;
        };
        let Some(t) = r.tail.as_ref() else {
            return;
        };
        let limit_q = match mitigation {
            // Max.Burst 0 disables the limit (as everywhere else).
            BurstMitigation::None => return,
            BurstMitigation::MaxBurst if max_burst == 0 => return,
            BurstMitigation::MaxBurst => max_burst * Q,
            BurstMitigation::Adaptive => r.adaptive.limit_q(now < t.first_rtt_end),
        };
        r.credit.open(limit_q);
    }

    /// Is the burst credit of a tail recovery used up for this opportunity (seed 002 §V.A)?
    pub(super) fn burst_allows(&self) -> bool {
        let limited = match self.cfg.rack.burst_mitigation {
            BurstMitigation::None => false,
            BurstMitigation::MaxBurst => self.cfg.max_burst > 0,
            BurstMitigation::Adaptive => true,
        };
        match self.rack.as_ref() {
            Some(r) if limited && r.tail.is_some() => r.credit.allows(),
            _ => true,
        }
    }

    /// One DATA packet went out in this opportunity.
    pub(super) fn burst_take(&mut self) {
        if let Some(r) = self.rack.as_mut() {
            if r.tail.is_some() {
                r.credit.take();
            }
        }
    }

    /// Current adaptive burst limits (initial, increase) in MTUs; `None` without RACK.
    pub fn rack_burst_limits(&self) -> Option<(f64, f64)> {
        self.rack.as_ref().map(|r| r.burst_limits())
    }

    /// Current RACK reordering-window multiplier (1 = min_RTT/4), `None` without RACK.
    pub fn rack_reo_wnd_mult(&self) -> Option<u32> {
        self.rack.as_ref().map(|r| r.rack.reo_wnd_mult)
    }

    /// Seed 002 §V.B: measure the RTT of path `p` now with a heartbeat (on demand), unless
    /// one is already outstanding there. Returns whether a heartbeat was queued.
    pub fn probe_rtt(&mut self, now: Time, p: usize) -> bool {
        if !self.state.sends_heartbeats() || p >= self.paths.len() {
            return false;
        }
        if self.paths[p].heartbeat_outstanding() {
            return false;
        }
        self.send_heartbeat(now, p);
        true
    }
}
