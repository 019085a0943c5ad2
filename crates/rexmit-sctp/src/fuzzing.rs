//! Fuzzing harness for the SCTP core, shared by the cargo-fuzz target `sctp_core` and the
//! corpus replay under plain `cargo test` (`tests/fuzz_corpus.rs`). Not a stable API.
//!
//! The input is a program: a configuration, a start (active open, passive open, or an
//! established association), then operations on an association `a` under test and a
//! well-behaved peer `b`, both multihomed with two addresses, joined by a network the program
//! controls — send, consume, shut down, abort, renege, deliver, drop, reorder or duplicate
//! packets, advance time, fire timers, and inject packets into `a`: copies of `b`'s packets
//! with changed chunks, or arbitrary decodable bytes. Every packet a core emits goes through
//! the wire codec and back.
//!
//! Panics mean a bug: the core's own invariant checks (debug builds), a fast "nothing to send"
//! answer of `poll_transmit` that the full path contradicts (`poll_transmit_checked`), a timer
//! still due right after `handle_timeout`, a core that never stops transmitting, or `b`
//! delivering a message `a`'s application never sent, with other bytes, or twice.

use crate::config::{MaxBurstRule, RenegePolicy, RtxPolicy, SctpConfig};
use crate::event::{Event, Transmit};
use crate::Association;
use rexmit_time::{Duration, Time};
use rexmit_wire::fuzzing::{decodable_sctp, encodable_sctp, through_the_wire_sctp, Cursor};
use rexmit_wire::{Chunk, DataChunk, GapBlock, InitChunk, Payload, SackChunk, SctpPacket};
use std::collections::{HashMap, HashSet, VecDeque};
use std::net::Ipv4Addr;

/// Operations per input, so that every input runs in bounded time.
const MAX_STEPS: usize = 2_000;
/// Packets one `poll_transmit` loop may produce before the core counts as runaway.
const MAX_BURST: usize = 20_000;
const A_PORT: u16 = 5_000;
const B_PORT: u16 = 6_000;
const A_TAG: u32 = 0x1111_1111;
const B_TAG: u32 = 0x2222_2222;
const A_ADDRS: [Ipv4Addr; 2] = [Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 1, 0, 1)];
const B_ADDRS: [Ipv4Addr; 2] = [Ipv4Addr::new(10, 0, 0, 2), Ipv4Addr::new(10, 1, 0, 2)];

/// The bytes of message `msg`: a pattern that catches misplaced or mixed-up fragments.
fn message(msg: u32, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (u64::from(msg) * 31 + i as u64 * 7) as u8)
        .collect()
}

fn config(c: &mut Cursor) -> SctpConfig {
    let (f0, f1, f2) = (c.u8(), c.u8(), c.u8());
    let bit = |f: u8, i: u32| f >> i & 1 != 0;
    let pmtu = 576 + u32::from(c.u8()) * 8;
    let payload = u64::from(pmtu - 48);
    let mut cfg = SctpConfig {
        pmtu,
        send_buffer: payload + u64::from(c.u16()),
        recv_buffer: 1_500 + u32::from(c.u16()),
        auto_consume: bit(f0, 0),
        outbound_streams: 1 + u16::from(c.u8() % 8),
        nr_sack: bit(f0, 1),
        renege: if bit(f0, 2) {
            RenegePolicy::Never
        } else {
            RenegePolicy::UnderMemoryPressure
        },
        max_burst_rule: if bit(f0, 3) {
            MaxBurstRule::ClampCwnd
        } else {
            MaxBurstRule::LimitPackets
        },
        immediate_sack_on_gap: bit(f0, 4),
        sack_freq: 1 + u32::from(bit(f0, 5)),
        hb_interval: bit(f0, 6).then(|| Duration::from_secs(1)),
        assoc_max_retrans: 6,
        path_max_retrans: 3,
        max_init_retransmits: 4,
        ..SctpConfig::default()
    };
    cfg.cmt.enabled = bit(f1, 0);
    cfg.cmt.sfr = bit(f1, 1);
    cfg.cmt.cuc = bit(f1, 2);
    // No flag bit is left: DAC follows CUC and PF (every combination but CUC without PF).
    cfg.cmt.dac = !bit(f1, 2) || bit(f1, 3);
    cfg.cmt.pf = bit(f1, 3);
    cfg.cmt.rtx_policy = [
        RtxPolicy::Same,
        RtxPolicy::Asap,
        RtxPolicy::Cwnd,
        RtxPolicy::Ssthresh,
    ][usize::from(f1 >> 4 & 3)];
    cfg.thin.timer_restart_correction = bit(f2, 0);
    cfg.thin.linear_timeouts = bit(f2, 1);
    cfg.thin.fast_rtx_first_indication = bit(f2, 2);
    cfg.thin.early_fast_retransmit = bit(f2, 3);
    cfg.thin.early_retransmit_rfc5827 = bit(f2, 4);
    cfg.thin.rto_min_200ms = bit(f2, 5);
    cfg.thin.thin_loss_rate_term = bit(f2, 6);
    // RACK is single-path only (config validation refuses it with CMT).
    cfg.rack.enabled = bit(f2, 7) && !cfg.cmt.enabled;
    cfg.rack.tlp = bit(f1, 6);
    cfg.rack.burst_mitigation = if bit(f1, 7) {
        crate::config::BurstMitigation::MaxBurst
    } else {
        crate::config::BurstMitigation::Adaptive
    };
    cfg
}

/// Packets in flight from one endpoint to the other.
type Wire = VecDeque<Transmit>;

struct Harness {
    now: Time,
    a: Association,
    b: Association,
    to_a: Wire,
    to_b: Wire,
    /// Length of every message `a`'s application sent, by message number.
    a_sent: HashMap<u32, usize>,
    /// Messages `b` delivered.
    b_delivered: HashSet<u32>,
    /// The last packet `b` sent: the template for forged packets.
    template: Option<Transmit>,
}

impl Harness {
    fn new(cfg: SctpConfig, start: u8) -> Self {
        let (a, b) = match start % 3 {
            0 | 2 => (
                Association::connect(
                    cfg.clone(),
                    A_ADDRS.to_vec(),
                    A_PORT,
                    B_ADDRS.to_vec(),
                    B_PORT,
                    A_TAG,
                    u32::MAX - 3,
                    Time::ZERO,
                ),
                Association::listen(cfg, B_ADDRS.to_vec(), B_PORT, B_TAG, 100),
            ),
            _ => (
                Association::listen(cfg.clone(), A_ADDRS.to_vec(), A_PORT, A_TAG, u32::MAX - 3),
                Association::connect(
                    cfg,
                    B_ADDRS.to_vec(),
                    B_PORT,
                    A_ADDRS.to_vec(),
                    A_PORT,
                    B_TAG,
                    100,
                    Time::ZERO,
                ),
            ),
        };
        let mut h = Harness {
            now: Time::ZERO,
            a,
            b,
            to_a: Wire::new(),
            to_b: Wire::new(),
            a_sent: HashMap::new(),
            b_delivered: HashSet::new(),
            template: None,
        };
        if start % 3 == 2 {
            // Established: a lossless exchange of the four-way handshake.
            for _ in 0..4 {
                h.poll_a();
                h.poll_b();
                while let Some(t) = h.to_b.pop_front() {
                    h.b.handle_packet(h.now, t.src, t.dst, &t.packet);
                }
                while let Some(t) = h.to_a.pop_front() {
                    h.a.handle_packet(h.now, t.src, t.dst, &t.packet);
                }
            }
        }
        h
    }

    fn poll_a(&mut self) {
        for _ in 0..MAX_BURST {
            let Some(mut t) = self.a.poll_transmit_checked(self.now) else {
                return;
            };
            t.packet = through_the_wire_sctp(&t.packet);
            self.to_b.push_back(t);
        }
        panic!("a keeps transmitting in {:?}", self.a.state());
    }

    fn poll_b(&mut self) {
        for _ in 0..MAX_BURST {
            let Some(mut t) = self.b.poll_transmit_checked(self.now) else {
                return;
            };
            t.packet = through_the_wire_sctp(&t.packet);
            self.template = Some(t.clone());
            self.to_a.push_back(t);
        }
        panic!("b keeps transmitting in {:?}", self.b.state());
    }

    fn advance(&mut self, to: Time) {
        self.now = self.now.max(to);
        for x in [&mut self.a, &mut self.b] {
            x.handle_timeout(self.now);
            if let Some(t) = x.poll_timeout() {
                assert!(
                    t > self.now,
                    "timer at {t:?} still due after handle_timeout({:?}) in {:?}: {}",
                    self.now,
                    x.state(),
                    x.timer_report()
                );
            }
        }
    }

    /// Drain both event queues; every message `b` delivers must be one `a` sent, intact and
    /// only once.
    fn events(&mut self) {
        while self.a.poll_event().is_some() {}
        while let Some(e) = self.b.poll_event() {
            if let Event::MessageDelivered { msg, payload, .. } = e {
                let len = *self
                    .a_sent
                    .get(&msg)
                    .unwrap_or_else(|| panic!("b delivered message {msg}, never sent"));
                assert_eq!(payload.to_vec(), message(msg, len), "message {msg} bytes");
                assert!(
                    self.b_delivered.insert(msg),
                    "message {msg} delivered twice"
                );
            }
        }
    }

    /// A chunk for a forged packet, its numbers near the real ones in `around`.
    fn forge_chunk(&self, c: &mut Cursor, around: &SctpPacket) -> Chunk {
        let real_cum = around.chunks.iter().find_map(|ch| match ch {
            Chunk::Sack(s) => Some(s.cum_tsn_ack),
            Chunk::NrSack(s) => Some(s.cum_tsn_ack),
            _ => None,
        });
        let real_tsn = around.chunks.iter().find_map(|ch| match ch {
            Chunk::Data(d) => Some(d.tsn),
            _ => None,
        });
        let cum = real_cum.unwrap_or(u32::MAX - 4).wrapping_add(c.step32());
        let blocks = |c: &mut Cursor| -> Vec<GapBlock> {
            (0..c.u8() % 6)
                .map(|_| GapBlock {
                    start: u16::from(c.u8()),
                    end: u16::from(c.u8()),
                })
                .collect()
        };
        match c.u8() % 12 {
            0 | 1 => Chunk::Sack(SackChunk {
                dac_packets: 0,
                cum_tsn_ack: cum,
                a_rwnd: c.u32() >> (c.u8() % 32),
                gap_blocks: blocks(c),
                dup_tsns: (0..c.u8() % 3)
                    .map(|_| cum.wrapping_add(c.step32()))
                    .collect(),
            }),
            2 => Chunk::NrSack(rexmit_wire::NrSackChunk {
                dac_packets: 0,
                all_non_renegable: c.bool(),
                cum_tsn_ack: cum,
                a_rwnd: c.u32() >> (c.u8() % 32),
                gap_blocks: blocks(c),
                nr_gap_blocks: blocks(c),
                dup_tsns: Vec::new(),
            }),
            3 | 4 => {
                let flags = c.u8();
                Chunk::Data(DataChunk {
                    immediate: flags & 8 != 0,
                    unordered: flags & 4 != 0,
                    beginning: flags & 2 != 0,
                    ending: flags & 1 != 0,
                    tsn: real_tsn.unwrap_or(100).wrapping_add(c.step32()),
                    stream_id: u16::from(c.u8() % 10),
                    ssn: u16::from(c.u8()),
                    ppid: c.u32(),
                    payload: Payload::from_bytes(c.blob(2_000)),
                })
            }
            5 => Chunk::Shutdown { cum_tsn_ack: cum },
            6 => [Chunk::ShutdownAck, Chunk::CookieAck][usize::from(c.u8() & 1)].clone(),
            7 => Chunk::ShutdownComplete { t_bit: c.bool() },
            8 => Chunk::Abort {
                t_bit: c.bool(),
                causes: c.blob(8).to_vec(),
            },
            9 => Chunk::Heartbeat {
                info: c.blob(40).to_vec(),
            },
            10 => {
                let init = InitChunk {
                    initiate_tag: c.u32(),
                    a_rwnd: c.u32(),
                    outbound_streams: c.u16(),
                    inbound_streams: c.u16(),
                    initial_tsn: c.u32(),
                    params: Vec::new(),
                };
                if c.bool() {
                    Chunk::Init(init)
                } else {
                    Chunk::InitAck(init)
                }
            }
            _ => Chunk::HeartbeatAck {
                info: c.blob(40).to_vec(),
            },
        }
    }

    /// A packet from `b` to `a` with chunks changed, added or dropped by the program.
    fn forge(&self, c: &mut Cursor) -> Transmit {
        let mut t = self.template.clone().unwrap_or(Transmit {
            src: B_ADDRS[0],
            dst: A_ADDRS[0],
            packet: SctpPacket {
                src_port: B_PORT,
                dst_port: A_PORT,
                verification_tag: A_TAG,
                chunks: Vec::new(),
            },
            ecn: rexmit_wire::Ecn::NotEct,
        });
        let what = c.u8();
        let around = t.packet.clone();
        if what & 1 != 0 {
            t.packet.chunks.clear();
        }
        for _ in 0..1 + (what >> 1 & 3) {
            let chunk = self.forge_chunk(c, &around);
            let at = usize::from(c.u8()) % (t.packet.chunks.len() + 1);
            t.packet.chunks.insert(at, chunk);
        }
        if what & 8 != 0 {
            t.packet.verification_tag = [0, A_TAG, B_TAG, c.u32()][usize::from(c.u8() & 3)];
        }
        if what & 16 != 0 {
            t.src = B_ADDRS[1];
        }
        if what & 32 != 0 {
            t.src = Ipv4Addr::from(c.u32());
        }
        t
    }

    /// One operation of the program.
    fn step(&mut self, c: &mut Cursor) {
        match c.u8() % 15 {
            0 => {
                let stream = u16::from(c.u8() % 10);
                let len = 1 + usize::from(c.u16()) % 6_000;
                let unordered = c.bool();
                // The message number is the next one `send` will hand out, mod 2^32.
                let next = self.a.stats().messages_sent as u32;
                let msg = Payload::from_bytes(&message(next, len));
                if let Ok(id) = self.a.send(self.now, stream, msg, unordered) {
                    assert_eq!(id as u32, next, "message numbers are consecutive");
                    self.a_sent.insert(next, len);
                }
            }
            1 => {
                let len = 1 + usize::from(c.u16()) % 6_000;
                let _ = self.b.send(
                    self.now,
                    u16::from(c.u8() % 4),
                    Payload::zeros(len as u32),
                    c.bool(),
                );
            }
            2 => self.poll_a(),
            3 => self.poll_b(),
            4 => {
                if let Some(t) = c.network(&mut self.to_b) {
                    self.b.handle_packet(self.now, t.src, t.dst, &t.packet);
                }
            }
            5 => {
                if let Some(t) = c.network(&mut self.to_a) {
                    self.a.handle_packet(self.now, t.src, t.dst, &t.packet);
                }
            }
            6 => {
                let dt = u64::from(c.u16()) << (c.u8() % 22);
                self.advance(self.now + Duration::from_nanos(dt));
            }
            7 => {
                let next = [self.a.poll_timeout(), self.b.poll_timeout()]
                    .into_iter()
                    .flatten()
                    .min();
                if let Some(t) = next {
                    self.advance(t);
                }
            }
            8 => {
                let t = self.forge(c);
                if let Some(p) = encodable_sctp(&t.packet) {
                    self.a.handle_packet(self.now, t.src, t.dst, &p);
                }
            }
            9 => {
                if let Some(mut p) = decodable_sctp(c.blob(300)) {
                    if c.bool() {
                        p.src_port = B_PORT;
                        p.dst_port = A_PORT;
                        p.verification_tag = A_TAG;
                    }
                    self.a.handle_packet(self.now, B_ADDRS[0], A_ADDRS[0], &p);
                }
            }
            10 => {
                let n = u64::from(c.u16());
                self.a.consume(n);
                self.b.consume(n);
            }
            11 => match c.u8() % 8 {
                0 => self.a.abort(self.now),
                1 | 2 => self.a.shutdown(self.now),
                3 => self.b.abort(self.now),
                _ => self.b.shutdown(self.now),
            },
            12 => {
                let n = u64::from(c.u16());
                if c.bool() {
                    self.a.renege(n);
                } else {
                    self.b.renege(n);
                }
            }
            13 => {
                let p = usize::from(c.u8() & 1);
                self.a.set_primary(p);
                self.b.set_primary(p);
            }
            _ => self.events(),
        }
    }
}

/// Run one fuzz program (see the module docs).
pub fn run(data: &[u8]) {
    run_counting(data);
}

/// `run`, returning (messages `a`'s application sent, messages `b` delivered).
fn run_counting(data: &[u8]) -> (usize, usize) {
    let mut c = Cursor::new(data);
    let cfg = config(&mut c);
    if cfg.validate().is_err() {
        return (0, 0);
    }
    let start = c.u8();
    let mut h = Harness::new(cfg, start);
    c.run_ops(MAX_STEPS, |c| h.step(c));
    h.events();
    (h.a_sent.len(), h.b_delivered.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn harness_program_delivers_messages_over_an_established_association() {
        // Auto-consume, NR-SACK; pmtu 1376; established; a sends five messages on stream 1,
        // then ten rounds of poll / deliver / events with a timer jump every other round.
        let mut p = vec![0x03, 0, 0, 100, 0x40, 0, 0x40, 0, 3, 2];
        for i in 0..5u8 {
            p.extend([0, 1, 0x07, 0xd0 + i, 0]);
        }
        for i in 0..10 {
            p.push(2);
            p.extend([4, 0, 0].repeat(8));
            p.push(3);
            p.extend([5, 0, 0].repeat(8));
            p.push(14);
            if i % 2 == 1 {
                p.push(7);
            }
        }
        assert_eq!(run_counting(&p), (5, 5));
    }
}
