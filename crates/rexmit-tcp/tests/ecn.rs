//! ECN in TCP segment by segment (RFC 3168 §6.1; DCTCP's echo, RFC 8257 §3.2): the
//! negotiation in SYN and SYN-ACK, which segments go out ECT(0), the receiver's ECE until CWR,
//! the sender's one reduction per window of data, and DCTCP's α through a connection. A
//! fictitious peer sends hand-made segments with the IP codepoint it chooses; every segment out
//! is read with its codepoint (`poll_transmit_ecn`).

mod common;
use common::{cfg, ms, peer_syn, MSS, PEER_PORT};
use rexmit_tcp::cc::registry::ParamMap;
use rexmit_tcp::ecn::Ecn;
use rexmit_tcp::{Connection, EcnMode, Event, RecoveryAlgorithm, TcpConfig};
use rexmit_time::Time;
use rexmit_wire::{Payload, SackBlock, TcpFlags, TcpOptions, TcpSegment};

const ECE: TcpFlags = TcpFlags::ECE;
const CWR: TcpFlags = TcpFlags::CWR;

fn ecn_cfg(ecn: EcnMode) -> TcpConfig {
    TcpConfig {
        ecn,
        ..cfg(RecoveryAlgorithm::Sack)
    }
}

/// One segment out: packet number (0 for a segment without data), codepoint, flags.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Out {
    pkt: u64,
    ecn: Ecn,
    flags: TcpFlags,
}

/// A data sender whose handshake completed with a peer that answered `synack_flags`.
struct Sender {
    c: Connection,
    now: Time,
    iss: u32,
    irs: u32,
}

impl Sender {
    /// The SYN out (checked by `check_syn`), a SYN-ACK with `synack_flags` added to SYN|ACK
    /// at 100 ms (SACK permitted), then `bytes` queued.
    fn new(cfg: TcpConfig, synack_flags: TcpFlags, bytes: usize) -> (Self, TcpSegment) {
        cfg.validate().expect("config");
        let (iss, irs) = (1_000, 9_000);
        // RFC 3168 §6.1.1: a SYN is not ECT; Linux's exception: a controller that needs ECN.
        let syn_expected = if cfg.cc.as_str() == "dctcp" && cfg.ecn == EcnMode::On {
            Ecn::Ect0
        } else {
            Ecn::NotEct
        };
        let mut c = Connection::connect(cfg, 10, PEER_PORT, iss, Time::ZERO);
        let (syn, syn_ecn) = c.poll_transmit_ecn(Time::ZERO).expect("SYN");
        assert_eq!(syn_ecn, syn_expected);
        let synack = TcpSegment {
            src_port: PEER_PORT,
            dst_port: 10,
            seq: irs,
            ack: iss + 1,
            flags: TcpFlags::SYN | TcpFlags::ACK | synack_flags,
            window: 65_535,
            urgent: 0,
            options: TcpOptions {
                mss: Some(MSS as u16),
                sack_permitted: true,
                ..Default::default()
            },
            payload: Payload::empty(),
        };
        let now = ms(100);
        c.handle_segment(now, &synack);
        assert_eq!(c.poll_event(), Some(Event::Connected));
        let mut s = Sender { c, now, iss, irs };
        let ack = s.out();
        assert!(ack.len() == 1 && ack[0].pkt == 0, "handshake ACK: {ack:?}");
        s.c.send(now, bytes);
        (s, syn)
    }

    fn pkt(&self, seg: &TcpSegment) -> u64 {
        if seg.payload.is_empty() {
            0
        } else {
            (seg.seq.wrapping_sub(self.iss + 1) as u64) / MSS + 1
        }
    }

    fn wire(&self, pkt: u64) -> u32 {
        self.iss + 1 + ((pkt - 1) * MSS) as u32
    }

    fn out(&mut self) -> Vec<Out> {
        let mut v = Vec::new();
        while let Some((seg, ecn)) = self.c.poll_transmit_ecn(self.now) {
            v.push(Out {
                pkt: self.pkt(&seg),
                ecn,
                flags: seg.flags,
            });
        }
        v
    }

    /// At `t_ms` an ACK asking for packet `next` (SACK blocks as inclusive packet ranges), with
    /// `flags` added to ACK; what goes out at once.
    fn ack(&mut self, t_ms: u64, next: u64, sacks: &[(u64, u64)], flags: TcpFlags) -> Vec<Out> {
        self.now = ms(t_ms);
        let mut options = TcpOptions::default();
        for &(a, b) in sacks {
            options.sack_blocks.push(SackBlock {
                left: self.wire(a),
                right: self.wire(b + 1),
            });
        }
        let seg = TcpSegment {
            src_port: PEER_PORT,
            dst_port: 10,
            seq: self.irs + 1,
            ack: self.wire(next),
            flags: TcpFlags::ACK | flags,
            window: 65_535,
            urgent: 0,
            options,
            payload: Payload::empty(),
        };
        self.c.handle_segment_ecn(self.now, &seg, Ecn::NotEct);
        self.out()
    }
}

/// ECN negotiated, initial window 10 segments, 40 segments to send.
fn window_of_ten(c: TcpConfig) -> Sender {
    let c = TcpConfig {
        initial_cwnd_segments: 10,
        ..c
    };
    Sender::new(c, ECE, 40 * MSS as usize).0
}

fn pkts(v: &[Out]) -> Vec<u64> {
    v.iter().map(|o| o.pkt).collect()
}

fn data(pkt: u64, ecn: Ecn) -> Out {
    Out {
        pkt,
        ecn,
        flags: TcpFlags::ACK,
    }
}

#[test]
fn negotiated_ecn_sends_new_data_ect0_after_an_ecn_setup_syn_ack() {
    let c = TcpConfig {
        initial_cwnd_segments: 3,
        ..ecn_cfg(EcnMode::On)
    };
    let (mut s, syn) = Sender::new(c, ECE, 10 * MSS as usize);
    // RFC 3168 §6.1.1: the ECN-setup SYN carries ECE and CWR.
    assert!(syn.flags.contains(ECE | CWR));
    assert!(s.c.stats().ecn_negotiated);
    assert_eq!(
        s.out(),
        (1..=3).map(|p| data(p, Ecn::Ect0)).collect::<Vec<_>>()
    );
    // Pure ACKs are never ECT (§6.1.4): data from the peer is acknowledged Not-ECT.
    s.now = ms(150);
    let seg = TcpSegment {
        src_port: PEER_PORT,
        dst_port: 10,
        seq: s.irs + 1,
        ack: s.wire(1),
        flags: TcpFlags::ACK,
        window: 65_535,
        urgent: 0,
        options: TcpOptions::default(),
        payload: Payload::zeros(100),
    };
    s.c.handle_segment_ecn(s.now, &seg, Ecn::Ect0);
    s.c.recv(usize::MAX);
    s.now = ms(400);
    s.c.handle_timeout(s.now);
    assert_eq!(
        s.out(),
        vec![Out {
            pkt: 0,
            ecn: Ecn::NotEct,
            flags: TcpFlags::ACK
        }]
    );
}

#[test]
fn a_peer_that_is_not_ecn_capable_gets_no_ect() {
    // A SYN-ACK without ECE, and one with ECE and CWR (not an ECN-setup SYN-ACK, §6.1.1).
    for flags in [TcpFlags(0), ECE | CWR] {
        let (mut s, _) = Sender::new(ecn_cfg(EcnMode::On), flags, 10 * MSS as usize);
        assert!(!s.c.stats().ecn_negotiated);
        let out = s.out();
        assert_eq!(pkts(&out), vec![1, 2, 3, 4]);
        assert!(out.iter().all(|o| o.ecn == Ecn::NotEct), "{out:?}");
        // ECE from a peer that did not negotiate ECN means nothing.
        s.ack(200, 2, &[], ECE);
        assert_eq!(s.c.stats().ecn_ece_received, 0);
    }
}

#[test]
fn off_and_accept_never_offer_ecn() {
    for mode in [EcnMode::Off, EcnMode::Accept] {
        let (mut s, syn) = Sender::new(ecn_cfg(mode), ECE, 10 * MSS as usize);
        assert!(
            !syn.flags.contains(ECE) && !syn.flags.contains(CWR),
            "{mode:?}"
        );
        assert!(s.out().iter().all(|o| o.ecn == Ecn::NotEct));
    }
}

/// A listener with `mode` answers a SYN with `syn_flags`: the SYN-ACK's ECE and CWR.
fn syn_ack_to(mode: EcnMode, syn_flags: TcpFlags) -> (bool, bool) {
    let mut c = Connection::listen(ecn_cfg(mode), 80, 3_000);
    let mut syn = peer_syn(
        70_000,
        TcpOptions {
            mss: Some(MSS as u16),
            ..Default::default()
        },
    );
    syn.flags.insert(syn_flags);
    c.handle_segment(Time::ZERO, &syn);
    let (synack, ecn) = c.poll_transmit_ecn(Time::ZERO).expect("SYN-ACK");
    assert_eq!(ecn, Ecn::NotEct, "RFC 3168 §6.1.1: a SYN-ACK is never ECT");
    (synack.flags.contains(ECE), synack.flags.contains(CWR))
}

#[test]
fn a_listener_accepts_an_ecn_setup_syn_with_ece_only() {
    assert_eq!(syn_ack_to(EcnMode::On, ECE | CWR), (true, false));
    assert_eq!(syn_ack_to(EcnMode::Accept, ECE | CWR), (true, false));
    assert_eq!(syn_ack_to(EcnMode::Off, ECE | CWR), (false, false));
    // ECE alone is not an ECN-setup SYN.
    assert_eq!(syn_ack_to(EcnMode::On, ECE), (false, false));
    assert_eq!(syn_ack_to(EcnMode::Accept, TcpFlags(0)), (false, false));
}

/// A data receiver (listener) that accepted ECN from a fictitious sender.
struct Receiver {
    c: Connection,
    now: Time,
    peer_iss: u32,
    /// The codepoint of its pure ACKs: Not-ECT (RFC 3168 §6.1.4), ECT(0) when its controller
    /// needs ECN (DCTCP, as Linux).
    ack_ecn: Ecn,
}

impl Receiver {
    fn new(cfg: TcpConfig) -> Self {
        let peer_iss = 70_000;
        let ack_ecn = if cfg.cc.as_str() == "dctcp" {
            Ecn::Ect0
        } else {
            Ecn::NotEct
        };
        let mut c = Connection::listen(cfg, 80, 3_000);
        let mut syn = peer_syn(
            peer_iss,
            TcpOptions {
                mss: Some(MSS as u16),
                ..Default::default()
            },
        );
        syn.flags.insert(ECE | CWR);
        c.handle_segment(Time::ZERO, &syn);
        c.poll_transmit(Time::ZERO).expect("SYN-ACK");
        let mut r = Receiver {
            c,
            now: Time::ZERO,
            peer_iss,
            ack_ecn,
        };
        r.segment(100, 0, Ecn::NotEct, TcpFlags::ACK);
        assert_eq!(r.c.poll_event(), Some(Event::Connected));
        r
    }

    fn segment(&mut self, t_ms: u64, pkt: u64, ecn: Ecn, flags: TcpFlags) -> Vec<(u64, bool)> {
        self.now = ms(t_ms);
        let off = if pkt == 0 { 1 } else { 1 + (pkt - 1) * MSS };
        let seg = TcpSegment {
            src_port: 10,
            dst_port: 80,
            seq: self.peer_iss + off as u32,
            ack: 3_001,
            flags,
            window: 65_535,
            urgent: 0,
            options: TcpOptions::default(),
            payload: Payload::zeros(if pkt == 0 { 0 } else { MSS as u32 }),
        };
        self.c.handle_segment_ecn(self.now, &seg, ecn);
        self.c.recv(usize::MAX);
        self.acks()
    }

    /// The ACKs out: (packet asked for next, ECE).
    fn acks(&mut self) -> Vec<(u64, bool)> {
        let mut v = Vec::new();
        while let Some((s, ecn)) = self.c.poll_transmit_ecn(self.now) {
            assert_eq!(
                ecn, self.ack_ecn,
                "§6.1.4: pure ACKs are not ECT, except DCTCP's"
            );
            let next = (s.ack.wrapping_sub(self.peer_iss + 1) as u64) / MSS + 1;
            v.push((next, s.flags.contains(ECE)));
        }
        v
    }

    fn data(&mut self, t_ms: u64, pkt: u64, ecn: Ecn) -> Vec<(u64, bool)> {
        self.segment(t_ms, pkt, ecn, TcpFlags::ACK)
    }
}

#[test]
fn a_ce_mark_sets_ece_on_every_ack_until_cwr_arrives() {
    let mut r = Receiver::new(ecn_cfg(EcnMode::Accept));
    assert_eq!(r.data(200, 1, Ecn::Ect0), vec![(2, false)]);
    // RFC 3168 §6.1.3: the CE mark is echoed, and on every ACK after it, marked or not.
    assert_eq!(r.data(201, 2, Ecn::Ce), vec![(3, true)]);
    assert_eq!(r.data(202, 3, Ecn::Ect0), vec![(4, true)]);
    assert_eq!(r.data(203, 4, Ecn::Ect0), vec![(5, true)]);
    // CWR ends the echo.
    assert_eq!(
        r.segment(204, 5, Ecn::Ect0, TcpFlags::ACK | CWR),
        vec![(6, false)]
    );
    assert_eq!(r.data(205, 6, Ecn::Ect0), vec![(7, false)]);
    // A CE mark in the CWR segment itself starts it again.
    assert_eq!(r.data(206, 7, Ecn::Ce), vec![(8, true)]);
    assert_eq!(
        r.segment(207, 8, Ecn::Ce, TcpFlags::ACK | CWR),
        vec![(9, true)]
    );
    assert_eq!(r.c.stats().ecn_ce_received, 3);
}

#[test]
fn one_window_reduction_per_window_of_data_however_many_echoes() {
    let mut s = window_of_ten(ecn_cfg(EcnMode::On));
    assert_eq!(pkts(&s.out()), (1..=10).collect::<Vec<_>>());
    // Every ACK of the first window echoes a mark. The first halves the window once
    // (FlightSize 10 → ssthresh 4.5 segments after the ACK of packet 1: 9 / 2) and is not
    // grown from; the rest of the window's echoes change nothing.
    let out = s.ack(200, 2, &[], ECE);
    assert_eq!(s.c.stats().ecn_reductions, 1);
    assert_eq!((s.c.cwnd(), s.c.ssthresh()), (4_500, 4_500));
    assert!(out.is_empty(), "9 in flight, cwnd 4.5: {out:?}");
    for p in 3..=7 {
        assert_eq!(s.ack(200 + p, p, &[], ECE), vec![]);
    }
    // Once three segments are in flight the next goes: the first new one with CWR (§6.1.2),
    // the next ones without; all ECT(0).
    let cwr = Out {
        pkt: 11,
        ecn: Ecn::Ect0,
        flags: TcpFlags::ACK | CWR,
    };
    assert_eq!(s.ack(208, 8, &[], ECE), vec![cwr]);
    assert_eq!(s.ack(209, 9, &[], ECE), vec![data(12, Ecn::Ect0)]);
    assert_eq!(s.ack(210, 10, &[], ECE), vec![data(13, Ecn::Ect0)]);
    assert_eq!(s.c.stats().ecn_reductions, 1);
    assert_eq!(s.c.stats().ecn_ece_received, 9);
    assert_eq!(s.c.cwnd(), 4_500, "no growth on ECE ACKs");
    assert_eq!(s.c.stats().ecn_cwr_sent, 1);
    s.ack(211, 11, &[], TcpFlags(0));
    // snd_una at 11 is the data outstanding at the reduction (packet 10's end): an echo
    // acknowledging no more is still the old window.
    let cwnd = s.c.cwnd();
    s.ack(300, 11, &[], ECE);
    assert_eq!((s.c.stats().ecn_reductions, s.c.cwnd()), (1, cwnd));
    // Past it, an echo is a new congestion: a second reduction.
    s.ack(301, 12, &[], ECE);
    assert_eq!(s.c.stats().ecn_reductions, 2);
    assert!(s.c.cwnd() < cwnd);
}

#[test]
fn retransmissions_are_not_ect_and_echoes_during_recovery_do_not_reduce() {
    let mut s = window_of_ten(ecn_cfg(EcnMode::On));
    s.out();
    // Packet 1 lost: the third duplicate ACK retransmits it Not-ECT (RFC 3168 §6.1.5).
    s.ack(200, 1, &[(2, 2)], TcpFlags(0));
    s.ack(201, 1, &[(2, 3)], TcpFlags(0));
    let out = s.ack(202, 1, &[(2, 4)], TcpFlags(0));
    assert_eq!(out[0], data(1, Ecn::NotEct));
    let (cwnd, ssthresh) = (s.c.cwnd(), s.c.ssthresh());
    // Echoes inside the recovery: the loss's reduction covers the window.
    s.ack(203, 1, &[(2, 5)], ECE);
    s.ack(204, 1, &[(2, 6)], ECE);
    assert_eq!(s.c.stats().ecn_reductions, 0);
    assert_eq!(s.c.ssthresh(), ssthresh);
    assert!(s.c.cwnd() <= cwnd);
    // The loss reduction also asks for CWR on the next new data (§6.1.2: "for any reason").
    let out = s.ack(205, 1, &[(2, 7)], TcpFlags(0));
    let first_new = out
        .iter()
        .find(|o| o.pkt > 10)
        .expect("new data in recovery");
    assert!(first_new.flags.contains(CWR) && first_new.ecn == Ecn::Ect0);
}

/// A controller that needs ECN (DCTCP) sends its retransmissions ECT(0), as Linux does for such
/// a controller (`tcp_ca_needs_ecn`): a step-marking queue then marks them rather than drops
/// them (RFC 3168 §5). New data keeps RFC 3168's CWR rule.
#[test]
fn dctcp_retransmissions_are_ect() {
    let mut s = window_of_ten(TcpConfig {
        cc: "dctcp".into(),
        ..ecn_cfg(EcnMode::On)
    });
    assert!(s.out().iter().all(|o| o.ecn == Ecn::Ect0));
    s.ack(200, 1, &[(2, 2)], TcpFlags(0));
    s.ack(201, 1, &[(2, 3)], TcpFlags(0));
    let out = s.ack(202, 1, &[(2, 4)], TcpFlags(0));
    assert_eq!(out[0], data(1, Ecn::Ect0));
}

#[test]
fn a_loss_in_the_window_an_echo_reduced_for_is_not_reduced_again() {
    let mut s = window_of_ten(ecn_cfg(EcnMode::On));
    s.out();
    // Packet 2 was marked and packet 3 lost in the same window.
    s.ack(200, 2, &[], TcpFlags(0));
    s.ack(201, 3, &[], ECE);
    assert_eq!(s.c.stats().ecn_reductions, 1);
    let ssthresh = s.c.ssthresh();
    s.ack(202, 3, &[(4, 4)], ECE);
    s.ack(203, 3, &[(4, 5)], ECE);
    let out = s.ack(204, 3, &[(4, 6)], ECE);
    assert_eq!(out[0], data(3, Ecn::NotEct), "fast retransmit");
    assert!(s.c.in_recovery());
    // RFC 3168 §6.1.2: "reduced only once in response to a series of dropped and/or CE
    // packets from a single window of data".
    assert_eq!(s.c.ssthresh(), ssthresh);
    assert_eq!(s.c.stats().ecn_reductions, 1);
}

#[test]
fn dctcp_receiver_echoes_the_ce_state_with_an_ack_for_the_old_state_first() {
    let c = TcpConfig {
        cc: "dctcp".into(),
        ack_every: 2,
        ..ecn_cfg(EcnMode::On)
    };
    let mut r = Receiver::new(c);
    // Delayed ACKs while the state holds (RFC 8257 §3.2 state machine, state CE = 0).
    assert_eq!(r.data(200, 1, Ecn::Ect0), vec![]);
    // CE with packet 1 unacknowledged: packet 1 is acknowledged with the old state, then
    // packet 2 at once with the new one.
    assert_eq!(r.data(201, 2, Ecn::Ce), vec![(2, false), (3, true)]);
    // CE state 1 holds: delayed ACKs again, each with ECE.
    assert_eq!(r.data(202, 3, Ecn::Ce), vec![]);
    assert_eq!(r.data(203, 4, Ecn::Ce), vec![(5, true)]);
    // Back to 0 with nothing waiting: one immediate ACK, ECE clear. CWR changes nothing.
    assert_eq!(r.data(204, 5, Ecn::Ect0), vec![(6, false)]);
    assert_eq!(
        r.segment(205, 6, Ecn::Ce, TcpFlags::ACK | CWR),
        vec![(7, true)]
    );
    assert_eq!(r.c.stats().ecn_ce_received, 4);
}

#[test]
fn dctcp_reduces_by_half_alpha_once_per_window() {
    // g = 1/2 so that one window moves α visibly: α0 = 1; the first ACK (packet 1, no
    // echo) ends the first observation window: α = 1/2.
    let c = TcpConfig {
        cc: "dctcp".into(),
        cc_params: ParamMap::of(&[("g", 0.5)]),
        initial_ssthresh: 10 * MSS,
        ..ecn_cfg(EcnMode::On)
    };
    let mut s = window_of_ten(c);
    s.out();
    s.ack(200, 2, &[], TcpFlags(0));
    // cwnd 10 (congestion avoidance: + 1/10 segment). The ACK of packet 2 echoes: α is
    // still 1/2 (the window runs to packet 10 and what the ACK of 1 sent), so cwnd ←
    // cwnd · (1 − 1/4).
    let before = s.c.cwnd();
    s.ack(201, 3, &[], ECE);
    assert_eq!(s.c.stats().ecn_reductions, 1);
    assert_eq!(s.c.cwnd(), before * 3 / 4);
    // Further echoes of the window do nothing.
    s.ack(202, 4, &[], ECE);
    assert_eq!(s.c.stats().ecn_reductions, 1);
}

#[test]
fn dctcp_needs_ecn_on() {
    let c = TcpConfig {
        cc: "dctcp".into(),
        ..TcpConfig::default()
    };
    let e = c.validate().unwrap_err();
    assert_eq!(e.field, "ecn");
    assert!(e.allowed.contains("dctcp"), "{e}");
    for ecn in [EcnMode::Accept, EcnMode::On] {
        let ok = TcpConfig { ecn, ..c.clone() }.validate();
        assert_eq!(ok.is_ok(), ecn == EcnMode::On);
    }
}
