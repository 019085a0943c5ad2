//! Incoming DATA (RFC 9260 §6.2): duplicate detection, receive-buffer limits and reneging,
//! delivery, and the decision to acknowledge.

use super::timers::Timer;
use super::{Association, State};
use crate::config::RenegePolicy;
use crate::event::Event;
use crate::receiver_map::Arrival;
use rexmit_time::Time;
use rexmit_wire::DataChunk;
use std::net::Ipv4Addr;

impl Association {
    /// Receive-buffer bytes in use: undelivered data plus delivered data the application
    /// has not consumed yet.
    fn recv_held(&self) -> u64 {
        self.reasm.bytes() + self.unread
    }

    /// Advertised receiver window: the free part of the receive buffer (RFC 9260 §6.2).
    pub(super) fn a_rwnd(&self) -> u32 {
        (self.cfg.recv_buffer as u64).saturating_sub(self.recv_held()) as u32
    }

    /// The application read `bytes` of delivered data (only with `auto_consume` off): the
    /// window opens, and a SACK announces it once it has grown by min(buffer/2, PMTU) since
    /// the last one (RFC 9260 §6.2 allows window-update SACKs).
    pub fn consume(&mut self, bytes: u64) {
        self.unread -= bytes.min(self.unread);
        self.check_invariants(None);
        let threshold = (self.cfg.recv_buffer / 2).min(self.cfg.pmtu) as u64;
        if self.rmap.is_some() && self.a_rwnd() as u64 >= self.last_a_rwnd as u64 + threshold {
            self.sack.request_now();
        }
    }

    /// Delivered data not yet consumed by the application.
    pub fn unread_bytes(&self) -> u64 {
        self.unread
    }

    pub(super) fn on_data(&mut self, now: Time, from: Ipv4Addr, chunks: &[&DataChunk]) {
        if !self.state.receives_data() {
            return;
        }
        let Some(map) = self.rmap.as_ref() else {
            return;
        };
        let gaps_before = map.has_gaps();
        let never_renege = self.cfg.renege == RenegePolicy::Never;
        let mut dups = Vec::new();
        for d in chunks {
            // §6.2: a DATA chunk without user data is a protocol violation; rexmit ignores it.
            if d.payload.is_empty() {
                continue;
            }
            let map = self.rmap.as_ref().expect("checked above");
            let (pos, cum_pos) = (map.pos(d.tsn), map.cum_pos());
            if pos <= cum_pos || map.contains_pos(pos) {
                dups.push(d.tsn);
                continue;
            }
            let len = d.payload.len() as u64;
            if never_renege && pos > cum_pos + 1 {
                // A receiver that never reneges keeps room for the TSNs still missing below
                // this one (at most one full chunk each), else a late-arriving chunk could
                // find the buffer full of data it may not drop and the association would
                // stall: possible whenever the sender overruns the window (reordered SACKs,
                // zero-window probes).
                let reserve = map.missing_below(pos) * self.cfg.max_data_payload() as u64;
                if self.recv_held() + len + reserve > self.cfg.recv_buffer as u64 {
                    continue;
                }
            }
            if self.recv_held() + len > self.cfg.recv_buffer as u64 {
                if self.cfg.renege == RenegePolicy::UnderMemoryPressure && pos == cum_pos + 1 {
                    self.renege_for(len);
                }
                if self.recv_held() + len > self.cfg.recv_buffer as u64 {
                    // §6.2: no room: drop without acknowledging.
                    continue;
                }
            }
            let map = self.rmap.as_mut().expect("checked above");
            let in_stream = d.stream_id < self.reasm.streams();
            match map.on_data(d.tsn, never_renege || !in_stream) {
                Arrival::Duplicate => dups.push(d.tsn),
                Arrival::OutOfWindow => {}
                Arrival::New(pos) => {
                    if !in_stream {
                        // §6.8 Invalid Stream Identifier: acknowledged and discarded (the
                        // ERROR chunk is not sent).
                        continue;
                    }
                    for m in self.reasm.insert(pos, (*d).clone()) {
                        if !m.unordered {
                            self.audit_ordered_delivery(m.stream, m.ssn);
                        }
                        let map = self.rmap.as_mut().expect("checked above");
                        for p in m.positions.clone() {
                            map.mark_non_renegable(p);
                        }
                        if !self.cfg.auto_consume {
                            self.unread += m.payload.len() as u64;
                        }
                        self.stats.messages_delivered += 1;
                        self.stats.bytes_delivered += m.payload.len() as u64;
                        self.events.push_back(Event::MessageDelivered {
                            stream: m.stream,
                            ssn: m.ssn,
                            unordered: m.unordered,
                            msg: m.ppid,
                            ppid: m.ppid,
                            payload: m.payload,
                        });
                    }
                }
            }
        }
        self.stats.dup_tsns_received += dups.len() as u64;
        let gaps_now = self.rmap.as_ref().is_some_and(|m| m.has_gaps());
        if let Some(p) = self.path_of(from) {
            self.sack.dest = p;
        }
        self.sack.on_data_packet(
            now,
            &self.cfg,
            gaps_before,
            gaps_now,
            &dups,
            self.timers.slot_mut(Timer::DelayedSack),
        );
        if chunks.iter().any(|d| d.immediate) {
            // RFC 9260 §6.2 (I bit, from RFC 7053): the sender asks for a SACK at once.
            self.sack.request_now();
        }
        if matches!(self.state, State::ShutdownSent) {
            // §9.2: keep acknowledging promptly while shutting down.
            self.sack.request_now();
        }
    }

    /// Drop renegable out-of-order data, highest TSN first, until `need` bytes fit
    /// (RFC 9260 §6.2: reneging under memory pressure).
    fn renege_for(&mut self, need: u64) {
        self.renege_down_to((self.cfg.recv_buffer as u64).saturating_sub(need + self.unread));
    }

    /// Renege until at most `held` bytes are held (or nothing renegable is left).
    pub(super) fn renege_down_to(&mut self, held: u64) {
        let Some(map) = self.rmap.as_mut() else {
            return;
        };
        for pos in map.renegable_desc() {
            if self.reasm.bytes() <= held {
                break;
            }
            if map.renege(pos) {
                self.reasm.renege(pos);
                self.stats.reneged_chunks += 1;
            }
        }
    }
}
