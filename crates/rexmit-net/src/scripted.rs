//! The scripted error model: exact drops for timeline tests, chosen by packet ordinal, by TCP
//! sequence number or by SCTP TSN among the packets of one flow.
//!
//! Sequence numbers and TSNs in a scenario are *relative*, as Wireshark shows them, because
//! every connection draws a random initial sequence number (RFC 9293 §3.4.1) and initial TSN
//! (RFC 9260 §5.1): a TCP SYN is relative sequence 0 and the first data byte is 1; an SCTP
//! association's first DATA chunk is relative TSN 1. The model learns each connection's base
//! from the SYN / INIT / INIT ACK of the flow it matches, as they cross this link direction.
//! Drops that never fire are reported at the end of the run (`unfired`), never ignored.

use crate::fast_map::FastMap;
use crate::packet::{FlowKey, FlowMatch, Packet};
use rexmit_wire::{Chunk, TcpFlags, Transport};

/// One scripted drop: the first `times` transmissions carrying `value` are dropped.
#[derive(Clone, Debug, PartialEq)]
pub struct ScriptedValue {
    pub value: u64,
    pub times: u32,
}

/// What a scripted model selects, among the packets matching its flow filter.
#[derive(Clone, Debug, PartialEq)]
pub enum ScriptSelect {
    /// 1-based ordinal numbers of matching packets on this link direction.
    PacketNumbers(Vec<u64>),
    /// TCP segments (with payload or SYN/FIN) whose relative sequence number is listed.
    TcpSeqs(Vec<ScriptedValue>),
    /// SCTP packets carrying a DATA chunk whose relative TSN is listed.
    SctpTsns(Vec<ScriptedValue>),
}

pub(crate) struct Scripted {
    flow: FlowMatch,
    select: ScriptSelect,
    /// Matching packets seen so far (the ordinal of the last one).
    seen: u64,
    /// Initial sequence number / initial TSN of each connection seen, by its flow key (SCTP:
    /// without the source address, which a multihomed sender may change).
    bases: FastMap<FlowKey, u32>,
    /// Segments or DATA packets of the flow seen before their connection's SYN/INIT.
    without_base: u64,
}

impl Scripted {
    pub(crate) fn new(flow: FlowMatch, mut select: ScriptSelect) -> Self {
        if let ScriptSelect::PacketNumbers(v) = &mut select {
            v.sort_unstable();
        }
        Scripted {
            flow,
            select,
            seen: 0,
            bases: FastMap::default(),
            without_base: 0,
        }
    }

    pub(crate) fn drops(&mut self, pkt: &Packet) -> bool {
        let key = pkt.flow_key();
        if !self.flow.matches(&key) {
            return false;
        }
        self.seen += 1;
        match (&mut self.select, &pkt.ip.transport) {
            (ScriptSelect::PacketNumbers(v), _) => v.binary_search(&self.seen).is_ok(),
            (ScriptSelect::TcpSeqs(vals), Transport::Tcp(t)) => {
                if t.flags.contains(TcpFlags::SYN) {
                    self.bases.insert(key, t.seq);
                }
                if t.seq_len() == 0 {
                    return false;
                }
                match self.bases.get(&key) {
                    // RFC 9293 §3.4: the SYN occupies the ISN, so data starts at relative 1.
                    Some(isn) => take(vals, t.seq.wrapping_sub(*isn) as u64),
                    None => {
                        self.without_base += 1;
                        false
                    }
                }
            }
            (ScriptSelect::SctpTsns(vals), Transport::Sctp(s)) => {
                let key = FlowKey {
                    src: std::net::Ipv4Addr::UNSPECIFIED,
                    ..key
                };
                let mut hit = false;
                for c in &s.chunks {
                    match c {
                        Chunk::Init(i) | Chunk::InitAck(i) => {
                            self.bases.insert(key, i.initial_tsn);
                        }
                        // Every listed TSN in the packet consumes one of its drops.
                        Chunk::Data(d) => match self.bases.get(&key) {
                            Some(base) => hit |= take(vals, d.tsn.wrapping_sub(*base) as u64 + 1),
                            None => self.without_base += 1,
                        },
                        _ => {}
                    }
                }
                hit
            }
            _ => false,
        }
    }

    /// The scripted drops that have not (all) fired, one line each, e.g.
    /// `tcp_seqs 12: 2 of 2 drops never matched`.
    pub(crate) fn unfired(&self) -> Vec<String> {
        let mut out: Vec<String> = match &self.select {
            ScriptSelect::PacketNumbers(v) => v
                .iter()
                .filter(|&&n| n > self.seen)
                .map(|n| {
                    format!(
                        "packets {n}: the flow sent only {} packet(s) on this link",
                        self.seen
                    )
                })
                .collect(),
            ScriptSelect::TcpSeqs(vals) | ScriptSelect::SctpTsns(vals) => {
                let what = if matches!(self.select, ScriptSelect::TcpSeqs(_)) {
                    "tcp_seqs"
                } else {
                    "sctp_tsns"
                };
                vals.iter()
                    .filter(|v| v.times > 0)
                    .map(|v| format!("{what} {}: {} drop(s) never matched", v.value, v.times))
                    .collect()
            }
        };
        if self.without_base > 0 && !out.is_empty() {
            out.push(format!("{} packet(s) of the flow crossed this link before their connection's SYN/INIT did, so their relative numbers are unknown", self.without_base));
        }
        out
    }

    /// How many scripted drops have not fired (each `times` counts).
    pub(crate) fn unfired_count(&self) -> u64 {
        match &self.select {
            ScriptSelect::PacketNumbers(v) => v.iter().filter(|&&n| n > self.seen).count() as u64,
            ScriptSelect::TcpSeqs(vals) | ScriptSelect::SctpTsns(vals) => {
                vals.iter().map(|v| v.times as u64).sum()
            }
        }
    }
}

fn take(vals: &mut [ScriptedValue], v: u64) -> bool {
    for sv in vals.iter_mut() {
        if sv.value == v && sv.times > 0 {
            sv.times -= 1;
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use rexmit_time::Time;
    use rexmit_wire::{
        DataChunk, InitChunk, IpPacket, Payload, SctpPacket, TcpOptions, TcpSegment,
    };

    fn pkt(t: Transport) -> Packet {
        let ip = IpPacket::new([10, 0, 0, 1].into(), [10, 0, 0, 2].into(), t);
        Packet {
            uid: 0,
            created: Time::ZERO,
            size: ip.wire_len() as u32,
            enqueued: Time::ZERO,
            dst_owner: None,
            dst_agent: None,
            ip,
        }
    }

    fn tcp(seq: u32, flags: TcpFlags, len: u32) -> Packet {
        let seg = TcpSegment {
            src_port: 49152,
            dst_port: 49152,
            seq,
            ack: 0,
            flags,
            window: 0,
            urgent: 0,
            options: TcpOptions::default(),
            payload: Payload::zeros(len),
        };
        pkt(Transport::Tcp(seg))
    }

    /// A SYN with ISN 4 000 000 000 is relative 0, so the data segment at ISN + 1 (wrapping past
    /// 2^32 later) is relative 1 and its retransmission is dropped too (`times = 2`).
    #[test]
    fn tcp_seqs_count_from_the_syn_of_their_connection() {
        let isn = 4_000_000_000u32;
        let mut m = Scripted::new(
            FlowMatch::default(),
            ScriptSelect::TcpSeqs(vec![
                ScriptedValue { value: 1, times: 2 },
                ScriptedValue {
                    value: 1 + 1000 * 300_000,
                    times: 1,
                },
            ]),
        );
        assert!(
            !m.drops(&tcp(isn, TcpFlags::SYN, 0)),
            "the SYN is relative 0"
        );
        assert!(m.drops(&tcp(isn.wrapping_add(1), TcpFlags::ACK, 1000)));
        assert!(!m.drops(&tcp(isn.wrapping_add(1001), TcpFlags::ACK, 1000)));
        assert!(
            m.drops(&tcp(isn.wrapping_add(1), TcpFlags::ACK, 1000)),
            "second of two drops"
        );
        assert!(!m.drops(&tcp(isn.wrapping_add(1), TcpFlags::ACK, 1000)));
        // 300 MB on, the absolute sequence number has wrapped; the relative one has not.
        assert!(m.drops(&tcp(
            isn.wrapping_add(1 + 1000 * 300_000),
            TcpFlags::ACK,
            1000
        )));
        assert_eq!(m.unfired_count(), 0);
        assert!(m.unfired().is_empty());
    }

    #[test]
    fn sctp_tsns_count_from_the_initial_tsn_and_unmatched_ones_are_reported() {
        let data = |tsn: u32| {
            Chunk::Data(DataChunk {
                immediate: false,
                unordered: false,
                beginning: true,
                ending: true,
                tsn,
                stream_id: 0,
                ssn: 0,
                ppid: 0,
                payload: Payload::zeros(100),
            })
        };
        let sctp = |chunks: Vec<Chunk>| {
            pkt(Transport::Sctp(SctpPacket {
                src_port: 7,
                dst_port: 7,
                verification_tag: 1,
                chunks,
            }))
        };
        let mut m = Scripted::new(
            FlowMatch::default(),
            ScriptSelect::SctpTsns(vec![
                ScriptedValue { value: 2, times: 1 },
                ScriptedValue { value: 9, times: 1 },
            ]),
        );
        assert!(
            !m.drops(&sctp(vec![data(500)])),
            "no INIT seen yet: nothing is relative"
        );
        let init = InitChunk {
            initiate_tag: 1,
            a_rwnd: 1 << 16,
            outbound_streams: 1,
            inbound_streams: 1,
            initial_tsn: 1000,
            params: vec![],
        };
        assert!(!m.drops(&sctp(vec![Chunk::Init(init)])));
        assert!(
            !m.drops(&sctp(vec![data(1000)])),
            "the first DATA is relative 1"
        );
        assert!(m.drops(&sctp(vec![data(1001)])));
        assert_eq!(m.unfired_count(), 1);
        let lines = m.unfired();
        assert_eq!(lines[0], "sctp_tsns 9: 1 drop(s) never matched");
        assert!(
            lines[1].contains("before their connection's SYN/INIT"),
            "{lines:?}"
        );
    }
}
