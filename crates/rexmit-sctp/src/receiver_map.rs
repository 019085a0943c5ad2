//! The data receiver's view of the TSN space: the cumulative TSN ack point, the out-of-order
//! TSNs above it, and which of those are non-renegable. Owns: gap and nr-gap block
//! computation (RFC 9260 §3.3.4, NR-SACK draft §4.1) and duplicate detection. Does not own:
//! payloads (`reassembly`) or when to acknowledge (`sack_gen`).

use crate::tsn::Unwrapper;
use rexmit_wire::GapBlock;
use std::collections::BTreeMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arrival {
    /// First arrival; the position on the unwrapped TSN line.
    New(u64),
    Duplicate,
    /// Too far above the cumulative ack for a 16-bit gap offset: dropped unacknowledged.
    OutOfWindow,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ReceiverMap {
    unwrap: Unwrapper,
    /// Unwrapped cumulative TSN ack point.
    cum: u64,
    /// Out-of-order received TSNs above `cum` → non-renegable?
    ooo: BTreeMap<u64, bool>,
    /// How many of `ooo` are non-renegable.
    ooo_nr: usize,
    /// Unwrapped first TSN of FreeBSD's mapping array (`SctpConfig::tsn_map_window`): the
    /// cumulative ack plus one, rounded down to the array's 8-TSN bytes (`slide_base`).
    base: u64,
}

impl ReceiverMap {
    /// `peer_initial_tsn` is the first TSN the peer will send; the cum ack starts one below.
    pub fn new(peer_initial_tsn: u32) -> Self {
        let cum_tsn = peer_initial_tsn.wrapping_sub(1);
        let unwrap = Unwrapper::new(cum_tsn);
        let cum = unwrap.unwrap(cum_tsn);
        ReceiverMap {
            cum,
            unwrap,
            ooo: BTreeMap::new(),
            ooo_nr: 0,
            base: cum + 1,
        }
    }

    pub fn cum_tsn(&self) -> u32 {
        self.unwrap.wrap(self.cum)
    }
    pub fn cum_pos(&self) -> u64 {
        self.cum
    }
    pub fn pos(&self, tsn: u32) -> u64 {
        self.unwrap.unwrap(tsn)
    }
    pub fn tsn(&self, pos: u64) -> u32 {
        self.unwrap.wrap(pos)
    }
    /// An out-of-order TSN at `pos` is already held.
    pub fn contains_pos(&self, pos: u64) -> bool {
        self.ooo.contains_key(&pos)
    }
    /// TSNs not yet received between the cumulative ack and `pos` (exclusive).
    pub fn missing_below(&self, pos: u64) -> u64 {
        if pos <= self.cum + 1 {
            return 0;
        }
        (pos - self.cum - 1) - self.ooo.range(..pos).count() as u64
    }
    /// How many TSNs above the cumulative ack are held (the debug checks' cost measure).
    #[cfg(any(test, feature = "fuzzing"))]
    pub(crate) fn out_of_order(&self) -> usize {
        self.ooo.len()
    }

    pub fn has_gaps(&self) -> bool {
        !self.ooo.is_empty()
    }

    /// Record the arrival of `tsn`. Out-of-order TSNs start renegable unless `non_renegable`.
    pub fn on_data(&mut self, tsn: u32, non_renegable: bool) -> Arrival {
        let pos = self.pos(tsn);
        if pos <= self.cum || self.ooo.contains_key(&pos) {
            return Arrival::Duplicate;
        }
        if pos - self.cum > u16::MAX as u64 {
            return Arrival::OutOfWindow;
        }
        self.ooo.insert(pos, non_renegable);
        self.ooo_nr += usize::from(non_renegable);
        while let Some(nr) = self.ooo.remove(&(self.cum + 1)) {
            self.ooo_nr -= usize::from(nr);
            self.cum += 1;
        }
        let cum_tsn = self.cum_tsn();
        self.unwrap.advance_to(cum_tsn);
        Arrival::New(pos)
    }

    /// Whether `pos` fits a mapping array of `window` TSNs from its base (FreeBSD's receiver
    /// drops a TSN `window` or more above it unacknowledged, sctp_process_a_data_chunk).
    pub fn in_map_window(&self, pos: u64, window: u32) -> bool {
        pos < self.base + window as u64
    }

    /// Move the mapping array's base after a packet, as FreeBSD does (sctp_slide_mapping_arrays):
    /// to the cumulative ack plus one when nothing is held out of order, else by whole bytes
    /// (8 TSNs) up to the byte that holds the first missing TSN.
    pub fn slide_base(&mut self) {
        if self.ooo.is_empty() {
            self.base = self.cum + 1;
        } else {
            self.base += (self.cum + 1 - self.base) / 8 * 8;
        }
    }

    /// The TSN at `pos` was delivered (or is otherwise guaranteed): it can no longer be reneged.
    pub fn mark_non_renegable(&mut self, pos: u64) {
        if let Some(nr) = self.ooo.get_mut(&pos) {
            self.ooo_nr += usize::from(!*nr);
            *nr = true;
        }
    }

    /// The bytes of the (TSN, bytes) given, lowest TSN first, whose TSN is held non-renegably
    /// (`is_non_renegable` of each): one pass over the out-of-order map beside them instead of
    /// a lookup per TSN (issue 40: the RtxQ_Util metric asks this at every agent call, and its
    /// lookups were 25% of a seed 000 CMT run), and none past the cumulative ack while no
    /// out-of-order TSN is held non-renegably.
    pub fn non_renegable_bytes(&self, sorted: impl Iterator<Item = (u32, u32)>) -> u64 {
        let mut ooo = self.ooo.iter().peekable();
        let mut sum = 0;
        let mut last = 0;
        for (tsn, bytes) in sorted {
            let pos = self.pos(tsn);
            debug_assert!(pos >= last, "TSNs not in order");
            last = pos;
            if pos <= self.cum {
                sum += bytes as u64;
                continue;
            }
            if self.ooo_nr == 0 {
                break;
            }
            while ooo.next_if(|&(&p, _)| p < pos).is_some() {}
            if ooo.peek().is_some_and(|&(&p, &nr)| p == pos && nr) {
                sum += bytes as u64;
            }
        }
        sum
    }

    /// Received (cum-acked or held out of order).
    pub fn has_received(&self, tsn: u32) -> bool {
        let pos = self.pos(tsn);
        pos <= self.cum || self.ooo.contains_key(&pos)
    }

    /// Ground truth for the metrics layer: cum-acked or non-renegable out-of-order.
    pub fn is_non_renegable(&self, tsn: u32) -> bool {
        let pos = self.pos(tsn);
        pos <= self.cum || self.ooo.get(&pos).copied().unwrap_or(false)
    }

    /// Renegable out-of-order positions, highest first (the first to give up under pressure).
    pub fn renegable_desc(&self) -> Vec<u64> {
        self.ooo
            .iter()
            .rev()
            .filter(|(_, nr)| !**nr)
            .map(|(p, _)| *p)
            .collect()
    }

    /// Forget a renegable out-of-order TSN (RFC 9260 §6.2 reneging). Non-renegable ones stay.
    pub fn renege(&mut self, pos: u64) -> bool {
        if self.ooo.get(&pos) == Some(&false) {
            self.ooo.remove(&pos);
            true
        } else {
            false
        }
    }

    pub fn all_non_renegable(&self) -> bool {
        self.ooo.values().all(|nr| *nr)
    }

    fn blocks(&self, only_nr: bool) -> Vec<GapBlock> {
        let mut out: Vec<GapBlock> = Vec::new();
        let mut run: Option<(u64, u64)> = None;
        for (&p, &nr) in &self.ooo {
            if only_nr && !nr {
                continue;
            }
            run = match run {
                Some((s, e)) if e + 1 == p => Some((s, p)),
                Some((s, e)) => {
                    out.push(self.block(s, e));
                    Some((p, p))
                }
                None => Some((p, p)),
            };
        }
        if let Some((s, e)) = run {
            out.push(self.block(s, e));
        }
        out
    }

    fn block(&self, s: u64, e: u64) -> GapBlock {
        // on_data keeps every position within u16 of cum.
        GapBlock {
            start: (s - self.cum) as u16,
            end: (e - self.cum) as u16,
        }
    }

    /// Gap ack blocks over all out-of-order TSNs (RFC 9260 §3.3.4).
    pub fn gap_blocks(&self) -> Vec<GapBlock> {
        self.blocks(false)
    }
    /// NR gap ack blocks over the non-renegable out-of-order TSNs (NR-SACK draft §4.1).
    pub fn nr_gap_blocks(&self) -> Vec<GapBlock> {
        self.blocks(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gb(start: u16, end: u16) -> GapBlock {
        GapBlock { start, end }
    }

    #[test]
    fn gaps_and_nr_gaps_follow_arrivals() {
        let mut m = ReceiverMap::new(11);
        assert_eq!(m.cum_tsn(), 10);
        for t in [12, 13, 15] {
            assert!(matches!(m.on_data(t, false), Arrival::New(_)));
        }
        let p13 = m.pos(13);
        m.mark_non_renegable(p13);
        assert_eq!(m.gap_blocks(), vec![gb(2, 3), gb(5, 5)]);
        assert_eq!(m.missing_below(m.pos(15)), 2, "TSNs 11 and 14");
        assert_eq!(m.nr_gap_blocks(), vec![gb(3, 3)]);
        assert!(!m.all_non_renegable());
        assert_eq!(m.on_data(12, false), Arrival::Duplicate);
        m.on_data(11, false);
        assert_eq!(m.cum_tsn(), 13);
        assert_eq!(m.gap_blocks(), vec![gb(2, 2)]);
        assert!(m.is_non_renegable(12));
        assert!(!m.is_non_renegable(15));
    }

    #[test]
    fn reneging_removes_only_renegable_tsns_and_wraps() {
        let mut m = ReceiverMap::new(u32::MAX);
        m.on_data(1, false);
        m.on_data(2, true);
        assert_eq!(m.gap_blocks(), vec![gb(3, 4)]);
        assert_eq!(m.renegable_desc(), vec![m.pos(1)]);
        assert!(m.renege(m.pos(1)));
        assert!(!m.renege(m.pos(2)));
        assert_eq!(m.gap_blocks(), vec![gb(4, 4)]);
        assert_eq!(m.on_data(70_000, false), Arrival::OutOfWindow);
    }

    #[test]
    fn the_mapping_base_slides_by_whole_bytes_while_a_tsn_is_missing() {
        let mut m = ReceiverMap::new(1);
        assert!(m.in_map_window(m.pos(16), 16));
        assert!(!m.in_map_window(m.pos(17), 16));
        // TSNs 1-10 and 12 arrive, 11 is missing: the base moves a byte, to 9.
        for t in (1..=10).chain([12]) {
            m.on_data(t, false);
        }
        m.slide_base();
        assert!(m.in_map_window(m.pos(24), 16));
        assert!(!m.in_map_window(m.pos(25), 16));
        // 11 fills the gap: nothing out of order, the base is the cumulative ack plus one.
        m.on_data(11, false);
        m.slide_base();
        assert!(m.in_map_window(m.pos(28), 16));
        assert!(!m.in_map_window(m.pos(29), 16));
    }
}
