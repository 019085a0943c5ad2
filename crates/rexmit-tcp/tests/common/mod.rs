//! A two-endpoint test network for packet-by-packet tests: A (client, sender of bulk data) and
//! B (server). Each direction is a link with a rate and a one-way delay; a test chooses which
//! segments are dropped or delayed and reads back a timeline of everything sent.
#![allow(dead_code)]

use rexmit_tcp::{Connection, Event, State, TcpConfig};
use rexmit_time::{Duration, Rate, Time};
use rexmit_wire::{TcpFlags, TcpSegment};

pub const MSS: u64 = 1000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    AtoB,
    BtoA,
}

/// One transmitted segment, as the timeline records it.
#[derive(Clone, Debug)]
pub struct Sent {
    pub t: Time,
    pub dir: Dir,
    pub seg: TcpSegment,
    pub dropped: bool,
}

pub type DropFn = Box<dyn FnMut(Dir, &TcpSegment) -> bool>;
pub type DelayFn = Box<dyn FnMut(Dir, &TcpSegment) -> Duration>;

pub struct Net {
    pub now: Time,
    pub a: Connection,
    pub b: Connection,
    pub rate: Rate,
    pub delay: Duration,
    link_free: [Time; 2],
    queue: Vec<(Time, u64, Dir, TcpSegment)>,
    order: u64,
    pub log: Vec<Sent>,
    pub drop: DropFn,
    pub extra_delay: DelayFn,
    pub received: Vec<u8>,
    /// What A's application read (data from B).
    pub a_received: Vec<u8>,
    pub b_events: Vec<Event>,
    pub a_events: Vec<Event>,
    /// Close B once A's FIN arrived.
    pub b_closes: bool,
    /// B's application reads everything as soon as it is delivered.
    pub b_reads: bool,
    pub iss_a: u32,
    pub iss_b: u32,
}

impl Net {
    pub fn new(cfg_a: TcpConfig, cfg_b: TcpConfig) -> Self {
        Net::with_iss(cfg_a, cfg_b, 1_000, 5_000)
    }

    pub fn with_iss(cfg_a: TcpConfig, cfg_b: TcpConfig, iss_a: u32, iss_b: u32) -> Self {
        cfg_a.validate().expect("config a");
        cfg_b.validate().expect("config b");
        Net {
            now: Time::ZERO,
            a: Connection::connect(cfg_a, 10, 80, iss_a, Time::ZERO),
            b: Connection::listen(cfg_b, 80, iss_b),
            rate: Rate::from_mbps(8),
            delay: Duration::from_millis(50),
            link_free: [Time::ZERO; 2],
            queue: Vec::new(),
            order: 0,
            log: Vec::new(),
            drop: Box::new(|_, _| false),
            extra_delay: Box::new(|_, _| Duration::ZERO),
            received: Vec::new(),
            a_received: Vec::new(),
            b_events: Vec::new(),
            a_events: Vec::new(),
            b_closes: true,
            b_reads: true,
            iss_a,
            iss_b,
        }
    }

    /// Packet number (1-based, seed 003 style) of a data segment from A.
    pub fn pkt(&self, seg: &TcpSegment) -> u64 {
        (seg.seq.wrapping_sub(self.iss_a).wrapping_sub(1) as u64) / MSS + 1
    }

    fn flush(&mut self) {
        for dir in [Dir::AtoB, Dir::BtoA] {
            loop {
                let conn = if dir == Dir::AtoB {
                    &mut self.a
                } else {
                    &mut self.b
                };
                let Some(seg) = conn.poll_transmit(self.now) else {
                    break;
                };
                let dropped = (self.drop)(dir, &seg);
                self.log.push(Sent {
                    t: self.now,
                    dir,
                    seg: seg.clone(),
                    dropped,
                });
                let i = dir as usize;
                let depart =
                    self.now.max(self.link_free[i]) + self.rate.tx_time(seg.wire_len() as u64 + 20);
                self.link_free[i] = depart;
                if !dropped {
                    let extra = (self.extra_delay)(dir, &seg);
                    self.order += 1;
                    self.queue
                        .push((depart + self.delay + extra, self.order, dir, seg));
                }
            }
        }
    }

    fn drain_events(&mut self) {
        while let Some(e) = self.a.poll_event() {
            self.a_events.push(e);
        }
        loop {
            let p = self.a.recv(usize::MAX);
            if p.is_empty() {
                break;
            }
            p.write_to(&mut self.a_received);
        }
        while let Some(e) = self.b.poll_event() {
            if e == Event::PeerClosed && self.b_closes {
                self.b.close(self.now);
            }
            self.b_events.push(e);
        }
        while self.b_reads {
            let p = self.b.recv(usize::MAX);
            if p.is_empty() {
                break;
            }
            p.write_to(&mut self.received);
        }
    }

    /// Run until `end` or until nothing is left to do.
    pub fn run_until(&mut self, end: Time) {
        for _ in 0..2_000_000 {
            self.drain_events();
            self.flush();
            let next_arrival = self.queue.iter().map(|q| (q.0, q.1)).min();
            let mut next = next_arrival.map(|x| x.0);
            for t in [self.a.poll_timeout(), self.b.poll_timeout()]
                .into_iter()
                .flatten()
            {
                next = Some(next.map_or(t, |n| n.min(t)));
            }
            let Some(t) = next else { return };
            if t > end {
                self.now = end;
                return;
            }
            self.now = self.now.max(t);
            if let Some((at, ord)) = next_arrival {
                if at <= self.now {
                    let i = self
                        .queue
                        .iter()
                        .position(|q| q.0 == at && q.1 == ord)
                        .expect("queued");
                    let (_, _, dir, seg) = self.queue.remove(i);
                    match dir {
                        Dir::AtoB => self.b.handle_segment(self.now, &seg),
                        Dir::BtoA => self.a.handle_segment(self.now, &seg),
                    }
                    continue;
                }
            }
            if self.a.poll_timeout().is_some_and(|x| x <= self.now) {
                self.a.handle_timeout(self.now);
            }
            if self.b.poll_timeout().is_some_and(|x| x <= self.now) {
                self.b.handle_timeout(self.now);
            }
        }
        panic!("event loop did not settle");
    }

    /// Data segments A sent: (time, packet number, dropped).
    pub fn data_from_a(&self) -> Vec<(Time, u64, bool)> {
        self.log
            .iter()
            .filter(|s| s.dir == Dir::AtoB && !s.seg.payload.is_empty())
            .map(|s| (s.t, self.pkt(&s.seg), s.dropped))
            .collect()
    }

    /// Packet numbers A sent more than once, in the order of their retransmissions, with times.
    pub fn retransmissions(&self) -> Vec<(Time, u64)> {
        let mut seen = std::collections::BTreeSet::new();
        let mut out = Vec::new();
        for (t, p, _) in self.data_from_a() {
            if !seen.insert(p) {
                out.push((t, p));
            }
        }
        out
    }

    pub fn finished(&self) -> bool {
        matches!(self.a.state(), State::TimeWait | State::Closed) && self.b.state() == State::Closed
    }
}

/// A config for timeline tests: MSS 1000, no timestamps, no delayed ACKs unless asked.
pub fn cfg(recovery: rexmit_tcp::RecoveryAlgorithm) -> TcpConfig {
    TcpConfig {
        mss: MSS as u16,
        recovery,
        window_scaling: false,
        recv_buffer: 64_000,
        send_buffer: 1 << 20,
        ack_every: 1,
        timestamps: false,
        ..TcpConfig::default()
    }
}

/// Drop the first transmission of each listed packet number from A.
pub fn drop_first(pkts: &[u64], iss_a: u32) -> DropFn {
    let mut pending: Vec<u64> = pkts.to_vec();
    Box::new(move |dir, seg| {
        if dir != Dir::AtoB || seg.payload.is_empty() {
            return false;
        }
        let p = (seg.seq.wrapping_sub(iss_a).wrapping_sub(1) as u64) / MSS + 1;
        if let Some(i) = pending.iter().position(|&x| x == p) {
            pending.remove(i);
            true
        } else {
            false
        }
    })
}

/// xorshift64*: the tests' own deterministic random stream (no global RNG).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Drop the first SYN (of either side).
pub fn drop_first_syn() -> DropFn {
    let mut first = true;
    Box::new(move |_, s| {
        let d = first && s.flags.contains(TcpFlags::SYN);
        first &= !d;
        d
    })
}

pub fn ms(x: u64) -> Time {
    Time::from_millis(x)
}

pub fn is_syn(s: &TcpSegment) -> bool {
    s.flags.contains(TcpFlags::SYN)
}

/// Drives one connection (the data sender) with hand-made segments from a fictitious peer.
pub struct Injector {
    pub c: Connection,
    pub now: Time,
    pub iss: u32,
    pub irs: u32,
    pub peer_window: u16,
    /// With timestamps (`established_ts`): the TSecr the next ACKs echo, in ms.
    pub echo: Option<u32>,
}

pub const PEER_PORT: u16 = 80;

impl Injector {
    /// Complete the handshake at t = 0 (SYN-ACK at 100 ms, MSS 1000, SACK if `sack`) and queue
    /// `bytes` of data.
    pub fn established(cfg: TcpConfig, sack: bool, bytes: usize) -> Self {
        Injector::established_as(cfg, sack, bytes, |c| c)
    }

    /// As `established` with RFC 7323 timestamps negotiated: both sides announce MSS + 12, so
    /// that segments still carry MSS bytes after the 12 bytes of the option. The ACKs then
    /// echo `echo` (set it to the send time, in ms, of the segment an ACK answers).
    pub fn established_ts(cfg: TcpConfig, bytes: usize) -> Self {
        let cfg = TcpConfig {
            mss: MSS as u16 + 12,
            timestamps: true,
            ..cfg
        };
        let mut inj = Injector::handshake(cfg, true, true, |c| c);
        inj.c.send(inj.now, bytes);
        inj.echo = Some(100);
        inj
    }

    /// As `established`, with `prepare` applied to the connection before its handshake (such
    /// as `Connection::with_controller`).
    pub fn established_as(
        cfg: TcpConfig,
        sack: bool,
        bytes: usize,
        prepare: impl FnOnce(Connection) -> Connection,
    ) -> Self {
        let mut inj = Injector::handshake(cfg, sack, false, prepare);
        inj.c.send(inj.now, bytes);
        inj
    }

    fn handshake(
        cfg: TcpConfig,
        sack: bool,
        timestamps: bool,
        prepare: impl FnOnce(Connection) -> Connection,
    ) -> Self {
        cfg.validate().expect("config");
        let iss = 1_000;
        let irs = 9_000;
        let mut c = prepare(Connection::connect(cfg, 10, PEER_PORT, iss, Time::ZERO));
        let syn = c.poll_transmit(Time::ZERO).expect("SYN");
        assert!(is_syn(&syn));
        let syn_ts = syn.options.timestamps.map(|t| t.tsval);
        let mut opts = rexmit_wire::TcpOptions {
            mss: Some(MSS as u16 + if timestamps { 12 } else { 0 }),
            sack_permitted: sack,
            timestamps: timestamps.then(|| rexmit_wire::Timestamps {
                tsval: 1,
                tsecr: syn_ts.unwrap_or(0),
            }),
            ..Default::default()
        };
        opts.window_scale = None;
        let synack = TcpSegment {
            src_port: PEER_PORT,
            dst_port: 10,
            seq: irs,
            ack: iss.wrapping_add(1),
            flags: TcpFlags::SYN | TcpFlags::ACK,
            window: 65_535,
            urgent: 0,
            options: opts,
            payload: rexmit_wire::Payload::empty(),
        };
        let now = ms(100);
        c.handle_segment(now, &synack);
        assert_eq!(c.poll_event(), Some(Event::Connected));
        let mut inj = Injector {
            c,
            now,
            iss,
            irs,
            peer_window: 65_535,
            echo: None,
        };
        let ack = inj.c.poll_transmit(now).expect("handshake ACK");
        assert!(ack.payload.is_empty());
        inj
    }

    pub fn pkt_of(&self, seg: &TcpSegment) -> u64 {
        (seg.seq.wrapping_sub(self.iss).wrapping_sub(1) as u64) / MSS + 1
    }
    fn wire(&self, pkt: u64) -> u32 {
        self.iss
            .wrapping_add(1)
            .wrapping_add(((pkt - 1) * MSS) as u32)
    }

    /// Everything the connection sends at the current time, as packet numbers (data only).
    pub fn sent(&mut self) -> Vec<u64> {
        let mut out = Vec::new();
        while let Some(s) = self.c.poll_transmit(self.now) {
            if !s.payload.is_empty() {
                out.push(self.pkt_of(&s));
            }
        }
        out
    }

    /// At `t_ms`, an ACK whose cumulative field asks for packet `next`, with SACK blocks given
    /// as inclusive packet ranges, in the order the receiver sends them.
    pub fn ack(&mut self, t_ms: u64, next: u64, sacks: &[(u64, u64)]) -> Vec<u64> {
        self.now = ms(t_ms);
        let blocks = sacks
            .iter()
            .map(|&(a, b)| rexmit_wire::SackBlock {
                left: self.wire(a),
                right: self.wire(b + 1),
            })
            .collect();
        let seg = TcpSegment {
            src_port: PEER_PORT,
            dst_port: 10,
            seq: self.irs.wrapping_add(1),
            ack: self.wire(next),
            flags: TcpFlags::ACK,
            window: self.peer_window,
            urgent: 0,
            options: rexmit_wire::TcpOptions {
                sack_blocks: blocks,
                timestamps: self
                    .echo
                    .map(|tsecr| rexmit_wire::Timestamps { tsval: 2, tsecr }),
                ..Default::default()
            },
            payload: rexmit_wire::Payload::empty(),
        };
        self.c.handle_segment(self.now, &seg);
        self.sent()
    }

    /// Fire the connection's timer if it is due by `t_ms`.
    pub fn timeout(&mut self, t_ms: u64) -> Vec<u64> {
        self.now = ms(t_ms);
        if self.c.poll_timeout().is_some_and(|t| t <= self.now) {
            self.c.handle_timeout(self.now);
        }
        self.sent()
    }

    pub fn cwnd_pkts(&self) -> u64 {
        self.c.cwnd() / MSS
    }

    /// Packet 1 lost, 2, 3, 4 SACKed one ACK at a time (at 200-202 ms): the third duplicate
    /// ACK starts recovery and resends 1.
    pub fn lose_first_of_flight(&mut self) {
        assert_eq!(self.ack(200, 1, &[(2, 2)]), Vec::<u64>::new());
        assert_eq!(self.ack(201, 1, &[(2, 3)]), Vec::<u64>::new());
        assert_eq!(self.ack(202, 1, &[(2, 4)]), vec![1]);
    }
}

/// A SYN from port 10 to a listener on port 80 with sequence number `seq` and `options`.
pub fn peer_syn(seq: u32, options: rexmit_wire::TcpOptions) -> TcpSegment {
    TcpSegment {
        src_port: 10,
        dst_port: 80,
        seq,
        ack: 0,
        flags: TcpFlags::SYN,
        window: 65_535,
        urgent: 0,
        options,
        payload: rexmit_wire::Payload::empty(),
    }
}

/// Drives a listening connection (the data receiver) with hand-made data segments.
pub struct RxInjector {
    pub c: Connection,
    pub now: Time,
    /// The fictitious sender's ISS.
    pub peer_iss: u32,
    pub iss: u32,
}

/// An ACK as seen by a test: cumulative packet expected next, and SACK blocks as inclusive
/// packet ranges (a D-SACK block included, as sent).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AckView {
    pub next: u64,
    pub sacks: Vec<(u64, u64)>,
}

impl RxInjector {
    pub fn new(cfg: TcpConfig, sack: bool, timestamps: bool) -> Self {
        cfg.validate().expect("config");
        let peer_iss = 70_000;
        let iss = 3_000;
        let mut c = Connection::listen(cfg, 80, iss);
        let syn = peer_syn(
            peer_iss,
            rexmit_wire::TcpOptions {
                mss: Some(MSS as u16),
                sack_permitted: sack,
                timestamps: timestamps.then_some(rexmit_wire::Timestamps { tsval: 1, tsecr: 0 }),
                ..Default::default()
            },
        );
        c.handle_segment(Time::ZERO, &syn);
        let synack = c.poll_transmit(Time::ZERO).expect("SYN-ACK");
        assert!(synack.flags.contains(TcpFlags::SYN | TcpFlags::ACK));
        assert_eq!(synack.ack, peer_iss.wrapping_add(1));
        let mut r = RxInjector {
            c,
            now: Time::ZERO,
            peer_iss,
            iss,
        };
        r.segment(100, 0, 0, TcpFlags::ACK);
        assert_eq!(r.c.poll_event(), Some(Event::Connected));
        r
    }

    fn segment(&mut self, t_ms: u64, pkt: u64, len: u64, flags: TcpFlags) {
        self.now = ms(t_ms);
        let off = if pkt == 0 { 1 } else { 1 + (pkt - 1) * MSS };
        let seg = TcpSegment {
            src_port: 10,
            dst_port: 80,
            seq: self.peer_iss.wrapping_add(off as u32),
            ack: self.iss.wrapping_add(1),
            flags,
            window: 65_535,
            urgent: 0,
            options: Default::default(),
            payload: rexmit_wire::Payload::zeros(len as u32),
        };
        self.c.handle_segment(self.now, &seg);
    }

    fn view(&self, seg: &TcpSegment) -> AckView {
        let to_pkt = |w: u32| (w.wrapping_sub(self.peer_iss).wrapping_sub(1) as u64) / MSS + 1;
        AckView {
            next: to_pkt(seg.ack),
            sacks: seg
                .options
                .sack_blocks
                .iter()
                .map(|b| (to_pkt(b.left), to_pkt(b.right) - 1))
                .collect(),
        }
    }

    /// Data packet `pkt` (full size) arrives at `t_ms`; returns the ACKs sent at once.
    pub fn data(&mut self, t_ms: u64, pkt: u64) -> Vec<AckView> {
        self.segment(t_ms, pkt, MSS, TcpFlags::ACK);
        self.acks()
    }

    pub fn acks(&mut self) -> Vec<AckView> {
        let mut out = Vec::new();
        while let Some(s) = self.c.poll_transmit(self.now) {
            out.push(self.view(&s));
        }
        out
    }

    pub fn timeout(&mut self, t_ms: u64) -> Vec<AckView> {
        self.now = ms(t_ms);
        if self.c.poll_timeout().is_some_and(|t| t <= self.now) {
            self.c.handle_timeout(self.now);
        }
        self.acks()
    }
}

pub fn ackv(next: u64, sacks: &[(u64, u64)]) -> AckView {
    AckView {
        next,
        sacks: sacks.to_vec(),
    }
}
