//! Incoming DATA (RFC 9260 §6.2): duplicate detection, receive-buffer limits and reneging,
//! delivery, and the decision to acknowledge. The state is one part, `Receiver`, whose methods
//! are all that may change it; the association feeds it and reports what it did (events,
//! statistics, the debug audit).

use super::timers::Timer;
use super::{Association, State};
use crate::config::{RenegePolicy, SctpConfig};
use crate::event::Event;
use crate::reassembly::{DeliveredList, Reassembly};
use crate::receiver_map::{Arrival, ReceiverMap};
use crate::sack_gen::SackGen;
use rexmit_time::Time;
use rexmit_wire::{Chunk, DataChunk};
use std::net::Ipv4Addr;

/// The data receiver: which TSNs arrived (`map`, from the peer's initial TSN on), reassembly
/// and delivery (`reasm`), the receive buffer's use (`unread`: delivered bytes the application
/// has not consumed), and when and where to acknowledge (`sack`).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Receiver {
    map: Option<ReceiverMap>,
    reasm: Reassembly,
    /// Delivered bytes the application has not consumed (`SctpConfig::auto_consume` off).
    unread: u64,
    /// a_rwnd of the last SACK sent.
    last_a_rwnd: u32,
    sack: SackGen,
}

/// What one packet's DATA chunks did at the receiver.
#[derive(Default)]
pub(super) struct DataOutcome {
    /// Messages delivered, in delivery order (inline for the usual one or two: no allocation
    /// per DATA packet, issue 40).
    pub delivered: DeliveredList,
    /// Duplicate TSNs received.
    pub dups: u64,
    /// Chunks reneged to make room.
    pub reneged: u64,
}

impl Receiver {
    pub(super) fn new(inbound_streams: u16) -> Self {
        Receiver {
            map: None,
            reasm: Reassembly::new(inbound_streams),
            unread: 0,
            last_a_rwnd: 0,
            sack: SackGen::default(),
        }
    }

    /// The association is set up (INIT / INIT ACK): TSNs count from the peer's initial TSN,
    /// and `streams` inbound streams are accepted.
    pub(super) fn start(&mut self, peer_initial_tsn: u32, streams: u16) {
        self.map = Some(ReceiverMap::new(peer_initial_tsn));
        self.reasm = Reassembly::new(streams);
    }

    /// Set up, so that DATA can be received and acknowledged.
    pub(super) fn started(&self) -> bool {
        self.map.is_some()
    }

    /// How many TSNs above the cumulative ack are held (0 before set-up).
    #[cfg(any(test, feature = "fuzzing"))]
    pub(super) fn out_of_order(&self) -> usize {
        self.map.as_ref().map_or(0, |m| m.out_of_order())
    }

    /// The cumulative TSN received (0 before set-up).
    pub(super) fn cum_tsn(&self) -> Option<u32> {
        self.map.as_ref().map(|m| m.cum_tsn())
    }

    /// `tsn` arrived (and was not reneged since).
    pub(super) fn has_received(&self, tsn: u32) -> bool {
        self.map.as_ref().is_some_and(|m| m.has_received(tsn))
    }

    /// `tsn` is held non-renegably (delivered, or acknowledged in an nr-gap block).
    pub(super) fn is_non_renegable(&self, tsn: u32) -> bool {
        self.map.as_ref().is_some_and(|m| m.is_non_renegable(tsn))
    }

    /// `ReceiverMap::non_renegable_bytes` (0 before the handshake).
    pub(super) fn non_renegable_bytes(&self, sorted: impl Iterator<Item = (u32, u32)>) -> u64 {
        self.map
            .as_ref()
            .map_or(0, |m| m.non_renegable_bytes(sorted))
    }

    /// Undelivered bytes held for reassembly.
    pub(super) fn undelivered_bytes(&self) -> u64 {
        self.reasm.bytes()
    }

    pub(super) fn unread(&self) -> u64 {
        self.unread
    }

    /// A SACK is due now (set up and asked for).
    pub(super) fn sack_due(&self) -> bool {
        self.sack.due() && self.map.is_some()
    }

    /// A SACK waits (due or delayed) and goes to path `p`.
    pub(super) fn sack_pending_for(&self, p: usize) -> bool {
        self.sack.pending() && self.sack.dest == p && self.map.is_some()
    }

    /// The path the next SACK goes to, within `paths`.
    pub(super) fn sack_dest(&self, paths: usize) -> usize {
        self.sack.dest.min(paths.saturating_sub(1))
    }

    /// Acknowledge at the next opportunity.
    pub(super) fn request_sack(&mut self) {
        self.sack.request_now();
    }

    /// The delayed-SACK timer fired (or not yet: `deadline`).
    pub(super) fn on_sack_timer(&mut self, now: Time, deadline: Option<Time>) {
        self.sack.on_timeout(now, deadline);
    }

    /// The SACK (or NR-SACK) chunk to send now, advertising `a_rwnd`; it is remembered for
    /// window updates. The caller checked `sack_due` or `sack_pending_for`.
    pub(super) fn build_sack(&mut self, nr_sack: bool, dac: bool, a_rwnd: u32) -> Chunk {
        self.last_a_rwnd = a_rwnd;
        let map = self.map.as_ref().expect("caller checked");
        self.sack.build(map, nr_sack, dac, a_rwnd)
    }

    /// Receive-buffer bytes in use: undelivered data plus delivered data the application
    /// has not consumed yet.
    fn held(&self) -> u64 {
        self.reasm.bytes() + self.unread
    }

    /// Advertised receiver window: the free part of the receive buffer (RFC 9260 §6.2).
    pub(super) fn a_rwnd(&self, recv_buffer: u32) -> u32 {
        (recv_buffer as u64).saturating_sub(self.held()) as u32
    }

    /// The application read `bytes` of delivered data: the window opens, and a SACK announces
    /// it once it has grown by min(buffer/2, PMTU) since the last one (RFC 9260 §6.2 allows
    /// window-update SACKs).
    fn consume(&mut self, bytes: u64, cfg: &SctpConfig) {
        self.unread -= bytes.min(self.unread);
        let threshold = (cfg.recv_buffer / 2).min(cfg.pmtu) as u64;
        if self.map.is_some()
            && self.a_rwnd(cfg.recv_buffer) as u64 >= self.last_a_rwnd as u64 + threshold
        {
            self.sack.request_now();
        }
    }

    /// One packet's DATA chunks (the association checked that its state receives data and
    /// that the map exists). `dest`: the path the packet came from, where the SACK goes;
    /// `prompt`: acknowledge at once (§9.2 while shutting down).
    fn on_data(
        &mut self,
        now: Time,
        cfg: &SctpConfig,
        chunks: &[&DataChunk],
        dest: Option<usize>,
        prompt: bool,
        delayed_sack: &mut Option<Time>,
    ) -> DataOutcome {
        let mut out = DataOutcome::default();
        let Some(map) = self.map.as_ref() else {
            return out;
        };
        let gaps_before = map.has_gaps();
        if cfg.tsn_map_window > 0 {
            // FreeBSD slides its mapping array after each packet; the same before the next.
            self.map.as_mut().expect("checked above").slide_base();
        }
        let never_renege = cfg.renege == RenegePolicy::Never;
        let mut dups = Vec::new();
        for d in chunks {
            // §6.2: a DATA chunk without user data is a protocol violation; rexmit ignores it.
            if d.payload.is_empty() {
                continue;
            }
            let map = self.map.as_ref().expect("checked above");
            let (pos, cum_pos) = (map.pos(d.tsn), map.cum_pos());
            if pos <= cum_pos || map.contains_pos(pos) {
                dups.push(d.tsn);
                continue;
            }
            if cfg.tsn_map_window > 0 && !map.in_map_window(pos, cfg.tsn_map_window) {
                // FreeBSD: beyond its mapping array, dropped unacknowledged (`tsn_map_window`).
                continue;
            }
            let len = d.payload.len() as u64;
            if never_renege && pos > cum_pos + 1 {
                // A receiver that never reneges keeps room for the TSNs still missing below
                // this one (at most one full chunk each), else a late-arriving chunk could
                // find the buffer full of data it may not drop and the association would
                // stall: possible whenever the sender overruns the window (reordered SACKs,
                // zero-window probes).
                let reserve = map.missing_below(pos) * cfg.max_data_payload() as u64;
                if self.held() + len + reserve > cfg.recv_buffer as u64 {
                    continue;
                }
            }
            if self.held() + len > cfg.recv_buffer as u64 {
                if cfg.renege == RenegePolicy::UnderMemoryPressure && pos == cum_pos + 1 {
                    let keep = (cfg.recv_buffer as u64).saturating_sub(len + self.unread);
                    out.reneged += self.renege_down_to(keep);
                }
                if self.held() + len > cfg.recv_buffer as u64 {
                    // §6.2: no room: drop without acknowledging.
                    continue;
                }
            }
            let map = self.map.as_mut().expect("checked above");
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
                        let map = self.map.as_mut().expect("checked above");
                        for p in m.positions.clone() {
                            map.mark_non_renegable(p);
                        }
                        if !cfg.auto_consume {
                            self.unread += m.payload.len() as u64;
                        }
                        out.delivered.push(m);
                    }
                }
            }
        }
        out.dups = dups.len() as u64;
        let gaps_now = self.map.as_ref().is_some_and(|m| m.has_gaps());
        if let Some(p) = dest {
            self.sack.dest = p;
        }
        self.sack
            .on_data_packet(now, cfg, gaps_before, gaps_now, &dups, delayed_sack);
        if chunks.iter().any(|d| d.immediate) {
            // RFC 9260 §6.2 (I bit, from RFC 7053): the sender asks for a SACK at once.
            self.sack.request_now();
        }
        if prompt {
            self.sack.request_now();
        }
        out
    }

    /// Renege renegable out-of-order data, highest TSN first, until at most `held` bytes are
    /// held (or nothing renegable is left; RFC 9260 §6.2: reneging under memory pressure).
    /// Returns the chunks reneged.
    pub(super) fn renege_down_to(&mut self, held: u64) -> u64 {
        let Some(map) = self.map.as_mut() else {
            return 0;
        };
        let mut reneged = 0;
        for pos in map.renegable_desc() {
            if self.reasm.bytes() <= held {
                break;
            }
            if map.renege(pos) {
                self.reasm.renege(pos);
                reneged += 1;
            }
        }
        reneged
    }
}

impl Association {
    /// Advertised receiver window: the free part of the receive buffer (RFC 9260 §6.2).
    pub(super) fn a_rwnd(&self) -> u32 {
        self.rx.a_rwnd(self.cfg.recv_buffer)
    }

    /// The application read `bytes` of delivered data (only with `auto_consume` off).
    pub fn consume(&mut self, bytes: u64) {
        self.rx.consume(bytes, &self.cfg);
        self.check_invariants(None);
    }

    /// Delivered data not yet consumed by the application.
    pub fn unread_bytes(&self) -> u64 {
        self.rx.unread()
    }

    pub(super) fn on_data(&mut self, now: Time, from: Ipv4Addr, chunks: &[&DataChunk]) {
        if !self.state.receives_data() || !self.rx.started() {
            return;
        }
        let dest = self.path_of(from);
        let prompt = matches!(self.state, State::ShutdownSent);
        let out = self.rx.on_data(
            now,
            &self.cfg,
            chunks,
            dest,
            prompt,
            self.timers.slot_mut(Timer::DelayedSack),
        );
        self.stats.reneged_chunks += out.reneged;
        for m in out.delivered {
            if !m.unordered {
                self.audit_ordered_delivery(m.stream, m.ssn);
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
        self.stats.dup_tsns_received += out.dups;
    }

    /// Renege until at most `held` bytes are held (or nothing renegable is left).
    pub(super) fn renege_down_to(&mut self, held: u64) {
        let n = self.rx.renege_down_to(held);
        self.stats.reneged_chunks += n;
    }
}
