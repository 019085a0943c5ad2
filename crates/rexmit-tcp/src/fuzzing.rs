//! Fuzzing harness for the TCP core, shared by the cargo-fuzz target `tcp_core` and the corpus
//! replay under plain `cargo test` (`tests/fuzz_corpus.rs`). Not a stable API.
//!
//! The input is a program: a configuration, a start (active open, passive open, or an
//! established connection), then operations on a connection `a` under test and a well-behaved
//! peer `b` joined by a network the program controls — send, receive, close, deliver, drop,
//! reorder or duplicate segments, advance time, fire timers, and inject segments into `a`,
//! either mutated copies of real ones or arbitrary decodable bytes. Every segment a core emits
//! goes through the wire codec and back.
//!
//! Panics mean a bug: the core's own invariant checks (debug builds), a timer still due right
//! after `handle_timeout`, a core that never stops transmitting, or `b` reading bytes other than
//! the ones `a`'s application wrote, in order.

use crate::cc::registry::ParamMap;
use crate::cc::CcAlgorithm;
use crate::config::{RecoveryAlgorithm, TcpConfig};
use crate::connection::Connection;
use rexmit_time::{Duration, Time};
use rexmit_wire::fuzzing::{decodable_tcp, encodable_tcp, through_the_wire_tcp, Cursor};
use rexmit_wire::{Payload, SackBlock, TcpFlags, TcpSegment, Timestamps};
use std::collections::VecDeque;

/// Operations per input, so that every input runs in bounded time.
const MAX_STEPS: usize = 2_000;
/// Segments one `poll_transmit` loop may produce before the core counts as runaway.
const MAX_BURST: usize = 20_000;
const A_PORT: u16 = 40_000;
const B_PORT: u16 = 80;

/// The byte at stream offset `off` of what `a` writes: a pattern that catches misplaced data.
fn pattern(off: u64) -> u8 {
    (off.wrapping_mul(7).wrapping_add(3) % 251) as u8
}

fn config(c: &mut Cursor) -> TcpConfig {
    let (f0, f1, f2) = (c.u8(), c.u8(), c.u8());
    let bit = |f: u8, i: u32| f >> i & 1 != 0;
    let mss = 88 + u16::from(c.u8()) * 8;
    let send_buffer = usize::from(mss) + usize::from(c.u16());
    let recv_buffer = usize::from(mss) + usize::from(c.u16());
    let cc = match f2 % 6 {
        0 => CcAlgorithm::Reno,
        1 => CcAlgorithm::Cubic,
        2 => CcAlgorithm::Westwood,
        3 => CcAlgorithm::HighSpeed,
        4 => CcAlgorithm::Scalable,
        _ => CcAlgorithm::Aimd,
    };
    TcpConfig {
        mss,
        recovery: [
            RecoveryAlgorithm::Tahoe,
            RecoveryAlgorithm::Reno,
            RecoveryAlgorithm::NewReno,
            RecoveryAlgorithm::Sack,
        ][usize::from(f0 & 3)],
        sack: bit(f0, 2),
        timestamps: bit(f0, 3),
        window_scaling: bit(f0, 4) || recv_buffer > 65_535,
        nagle: bit(f0, 5),
        rack: bit(f0, 6),
        tlp: bit(f0, 6),
        prr: bit(f0, 7),
        dsack: bit(f1, 0),
        limited_transmit: bit(f1, 1),
        early_retransmit: bit(f1, 2),
        thin_linear_timeouts: bit(f1, 3),
        thin_dupack: bit(f1, 4),
        immediate_ack_on_ooo: bit(f1, 5),
        byte_counting: bit(f1, 6),
        ack_every: 1 + u32::from(bit(f1, 7)),
        cc: cc.into(),
        cc_params: if cc == CcAlgorithm::Aimd {
            ParamMap::of(&[("a", 2.0), ("b", 0.25)])
        } else {
            ParamMap::default()
        },
        dup_thresh: 1 + u32::from(f2 >> 3 & 3),
        initial_cwnd_segments: u32::from(f2 >> 5),
        send_buffer,
        recv_buffer,
        time_wait: Duration::from_secs(2),
        max_retransmissions: 4,
        ..TcpConfig::default()
    }
}

/// Segments in flight from one endpoint to the other.
type Wire = VecDeque<TcpSegment>;

struct Harness {
    now: Time,
    a: Connection,
    b: Connection,
    to_a: Wire,
    to_b: Wire,
    /// Bytes `a`'s application wrote (accepted by the send buffer) and `b`'s application read.
    a_written: u64,
    b_read: u64,
    /// The last segment `b` sent: the template for forged segments.
    template: Option<TcpSegment>,
}

impl Harness {
    fn new(cfg: TcpConfig, start: u8) -> Self {
        let (a, b) = match start % 3 {
            0 | 2 => (
                Connection::connect(cfg.clone(), A_PORT, B_PORT, 1_000, Time::ZERO),
                Connection::listen(cfg, B_PORT, u32::MAX - 5_000),
            ),
            _ => {
                // `a` is the passive side; its "remote" port is learnt from the SYN.
                let b = Connection::connect(cfg.clone(), B_PORT, A_PORT, 7, Time::ZERO);
                let a = Connection::listen(cfg, A_PORT, u32::MAX - 10);
                (a, b)
            }
        };
        let mut h = Harness {
            now: Time::ZERO,
            a,
            b,
            to_a: Wire::new(),
            to_b: Wire::new(),
            a_written: 0,
            b_read: 0,
            template: None,
        };
        if start % 3 == 2 {
            // Established: a lossless exchange until both sides are quiet.
            for _ in 0..4 {
                h.poll_a();
                h.poll_b();
                while let Some(s) = h.to_b.pop_front() {
                    h.b.handle_segment(h.now, &s);
                }
                while let Some(s) = h.to_a.pop_front() {
                    h.a.handle_segment(h.now, &s);
                }
            }
        }
        h
    }

    fn poll_a(&mut self) {
        for _ in 0..MAX_BURST {
            let Some(s) = self.a.poll_transmit_checked(self.now) else {
                return;
            };
            self.to_b.push_back(through_the_wire_tcp(&s));
        }
        panic!("a keeps transmitting: {:?}", self.a);
    }

    fn poll_b(&mut self) {
        for _ in 0..MAX_BURST {
            let Some(s) = self.b.poll_transmit_checked(self.now) else {
                return;
            };
            let s = through_the_wire_tcp(&s);
            self.template = Some(s.clone());
            self.to_a.push_back(s);
        }
        panic!("b keeps transmitting: {:?}", self.b);
    }

    fn advance(&mut self, to: Time) {
        self.now = self.now.max(to);
        self.a.handle_timeout(self.now);
        self.a.check_no_due_timer(self.now);
        self.b.handle_timeout(self.now);
        self.b.check_no_due_timer(self.now);
    }

    /// `b`'s application reads; what it gets must be the next bytes `a`'s application wrote.
    fn read_b(&mut self, max: usize) {
        let p = self.b.recv(max);
        if let Some(bytes) = p.bytes() {
            for (i, &x) in bytes.iter().enumerate() {
                assert_eq!(x, pattern(self.b_read + i as u64), "b read a wrong byte");
            }
        }
        self.b_read += p.len() as u64;
        assert!(self.b_read <= self.a_written, "b read more than a wrote");
    }

    /// A copy of a real segment with fields changed by the program.
    fn forge(&self, c: &mut Cursor) -> TcpSegment {
        let mut s = self.template.clone().unwrap_or(TcpSegment {
            src_port: B_PORT,
            dst_port: A_PORT,
            seq: 0,
            ack: 0,
            flags: TcpFlags::ACK,
            window: 1000,
            urgent: 0,
            options: Default::default(),
            payload: Payload::empty(),
        });
        let what = c.u8();
        if what & 1 != 0 {
            s.seq = s.seq.wrapping_add(c.step32());
        }
        if what & 2 != 0 {
            s.ack = s.ack.wrapping_add(c.step32());
        }
        if what & 4 != 0 {
            s.flags = TcpFlags(s.flags.0 ^ c.u8());
        }
        if what & 8 != 0 {
            s.window = c.u16();
        }
        if what & 16 != 0 {
            let n = usize::from(c.u8() % 5);
            s.options.sack_blocks = (0..n)
                .map(|_| {
                    let left = s.ack.wrapping_add(c.step32());
                    SackBlock {
                        left,
                        right: left.wrapping_add(c.step32()),
                    }
                })
                .collect();
        }
        if what & 32 != 0 {
            s.options.timestamps = Some(Timestamps {
                tsval: c.u32(),
                tsecr: c.u32(),
            });
        }
        if what & 64 != 0 {
            s.payload = Payload::from_bytes(c.blob(3_000));
        }
        if what & 128 != 0 {
            s.options.mss = Some(c.u16());
            s.options.window_scale = Some(c.u8());
            s.options.sack_permitted = c.bool();
        }
        s
    }

    /// One operation of the program.
    fn step(&mut self, c: &mut Cursor) {
        match c.u8() % 14 {
            0 => {
                let n = usize::from(c.u16());
                let data: Vec<u8> = (0..n as u64).map(|i| pattern(self.a_written + i)).collect();
                self.a_written += self.a.send_bytes(self.now, &data) as u64;
            }
            1 => {
                self.b.send(self.now, usize::from(c.u16()));
            }
            2 => self.poll_a(),
            3 => self.poll_b(),
            4 => {
                if let Some(s) = c.network(&mut self.to_b) {
                    self.b.handle_segment(self.now, &s);
                }
            }
            5 => {
                if let Some(s) = c.network(&mut self.to_a) {
                    self.a.handle_segment(self.now, &s);
                }
            }
            6 => {
                let dt = u64::from(c.u16()) << (c.u8() % 20);
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
                if let Some(s) = encodable_tcp(&self.forge(c)) {
                    self.a.handle_segment(self.now, &s);
                }
            }
            9 => {
                if let Some(mut s) = decodable_tcp(c.blob(200)) {
                    if c.bool() {
                        s.src_port = B_PORT;
                        s.dst_port = A_PORT;
                    }
                    self.a.handle_segment(self.now, &s);
                }
            }
            10 => {
                // `a` reads whatever arrived (it may be forged, so it is not checked).
                self.a.recv(usize::from(c.u16()));
            }
            11 => self.read_b(usize::from(c.u16())),
            12 => {
                if c.bool() {
                    self.a.close(self.now);
                } else {
                    self.b.close(self.now);
                }
            }
            _ => {
                while self.a.poll_event().is_some() {}
                while let Some(e) = self.b.poll_event() {
                    if e == crate::Event::PeerClosed && c.bool() {
                        self.b.close(self.now);
                    }
                }
            }
        }
    }
}

impl Connection {
    /// Right after `handle_timeout(now)` no timer may still be due: a driver would call it
    /// again at the same instant forever.
    fn check_no_due_timer(&self, now: Time) {
        if let Some(t) = self.poll_timeout() {
            assert!(
                t > now,
                "timer at {t:?} still due after handle_timeout({now:?}) in {:?}: {}",
                self.state(),
                self.timer_report()
            );
        }
    }
}

/// Run one fuzz program (see the module docs), twice: with the fast paths
/// (`crate::fast_path`) and with the full paths only. The two runs must agree on every field
/// of both connections and every segment in flight after every operation.
pub fn run(data: &[u8]) {
    let fast = run_traced(data, None);
    let full = crate::fast_path::with_full_paths(|| run_traced(data, None));
    if fast.trace == full.trace {
        return;
    }
    let at = fast
        .trace
        .iter()
        .zip(&full.trace)
        .position(|(x, y)| x != y)
        .unwrap_or(fast.trace.len().min(full.trace.len()));
    let fast = run_traced(data, Some(at)).detail;
    let full = crate::fast_path::with_full_paths(|| run_traced(data, Some(at))).detail;
    panic!(
        "the fast paths differ from the full path after operation {at}:\nfast: {}\nfull: {}",
        fast.unwrap_or_default(),
        full.unwrap_or_default()
    );
}

/// What one run of a program did.
struct Traced {
    /// Bytes `a`'s application wrote (accepted by the send buffer) and `b`'s application read.
    written: u64,
    read: u64,
    /// A fingerprint of both connections and the wires after each operation, and the last.
    trace: Vec<u64>,
    /// The full state after operation `detail_at`, when asked.
    detail: Option<String>,
}

fn run_traced(data: &[u8], detail_at: Option<usize>) -> Traced {
    let mut out = Traced {
        written: 0,
        read: 0,
        trace: Vec::new(),
        detail: None,
    };
    let mut c = Cursor::new(data);
    let cfg = config(&mut c);
    if cfg.validate().is_err() {
        return out;
    }
    let start = c.u8();
    let mut h = Harness::new(cfg, start);
    let record = |h: &Harness, out: &mut Traced, full: bool| {
        let state = if full { h.state() } else { h.summary() };
        if detail_at == Some(out.trace.len()) {
            out.detail = Some(state.clone());
        }
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        std::hash::Hash::hash(&state, &mut hasher);
        out.trace.push(std::hash::Hasher::finish(&hasher));
    };
    c.run_ops(MAX_STEPS, |c| {
        h.step(c);
        let full = out.trace.len().is_multiple_of(FULL_STATE_EVERY);
        record(&h, &mut out, full);
    });
    // Whatever `b` has received in order must still read back correctly.
    h.read_b(usize::MAX);
    record(&h, &mut out, true);
    (out.written, out.read) = (h.a_written, h.b_read);
    out
}

/// How often (in operations) the differential run compares every field; between, the timers,
/// the wires and the newest segments on them (formatting every field every time costs 20 times
/// the run).
const FULL_STATE_EVERY: usize = 16;

impl Harness {
    /// What changes most often: the clock, both connections' next deadlines and the wires.
    fn summary(&self) -> String {
        format!(
            "{:?} {:?} {:?} {} {} {:?} {:?}",
            self.now,
            self.a.poll_timeout(),
            self.b.poll_timeout(),
            self.to_a.len(),
            self.to_b.len(),
            self.to_a.back(),
            self.to_b.back()
        )
    }

    /// Every field of both connections and every segment on the wires.
    fn state(&self) -> String {
        format!(
            "now {:?}\na {}\nb {}\nto_a {:?}\nto_b {:?}",
            self.now,
            self.a.snapshot(),
            self.b.snapshot(),
            self.to_a,
            self.to_b
        )
    }
}

/// `run` (the fast paths only), returning (bytes `a`'s application wrote, bytes `b`'s
/// application read).
#[cfg(test)]
fn run_counting(data: &[u8]) -> (u64, u64) {
    let t = run_traced(data, None);
    (t.written, t.read)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn harness_program_transfers_data_over_an_established_connection() {
        // SACK, window scaling; mss 248; buffers 16 KiB; established; a writes 8000 bytes, then
        // twelve rounds of poll / deliver / read with a timer jump every third round.
        let mut p = vec![0x17, 0x21, 0, 20, 0x40, 0, 0x40, 0, 2, 0, 0x1f, 0x40];
        for i in 0..12 {
            p.push(2);
            p.extend([4, 0, 0].repeat(6));
            p.push(3);
            p.extend([5, 0, 0].repeat(6));
            p.extend([11, 0xff, 0xff]);
            if i % 3 == 2 {
                p.push(7);
            }
        }
        assert_eq!(run_counting(&p), (8000, 8000));
    }
}
