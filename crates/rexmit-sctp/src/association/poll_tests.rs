//! Tests of the fast "nothing to send" answer of `poll_transmit` (`nothing_to_send`): lossy
//! transfers in several configurations polled through `poll_transmit_checked` (where the test
//! says "nothing", a copy takes the full path and must end equal), and the situations each
//! clause stands for.

use super::*;
use crate::config::MaxBurstRule;
use crate::event::Transmit;
use rexmit_time::Duration;

const A: [Ipv4Addr; 2] = [Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 1, 1)];
const B: [Ipv4Addr; 2] = [Ipv4Addr::new(10, 1, 0, 1), Ipv4Addr::new(10, 1, 1, 1)];
const MSG: u32 = 1_000;

/// Whether `a`'s next poll ends in the fast test (its first step, `begin_poll`, is the poll's
/// own first step, so taking it early changes nothing).
fn fast(a: &mut Association, now: Time) -> bool {
    a.begin_poll(now);
    a.nothing_to_send(now)
}

/// Sender `a` and receiver `b`, both with two addresses, after a lossless handshake at t = 0.
fn pair(cfg: &SctpConfig) -> (Association, Association) {
    let mut a = Association::connect(
        cfg.clone(),
        A.to_vec(),
        5000,
        B.to_vec(),
        6000,
        1,
        100,
        Time::ZERO,
    );
    let mut b = Association::listen(cfg.clone(), B.to_vec(), 6000, 2, 900);
    for _ in 0..4 {
        while let Some(t) = a.poll_transmit_checked(Time::ZERO) {
            b.handle_packet(Time::ZERO, t.src, t.dst, &t.packet);
        }
        while let Some(t) = b.poll_transmit_checked(Time::ZERO) {
            a.handle_packet(Time::ZERO, t.src, t.dst, &t.packet);
        }
    }
    assert!(a.is_established() && b.is_established());
    (a, b)
}

/// Two associations joined by a 20 ms path that loses packets in bursts (a fixed
/// pseudo-random pattern, both directions); every poll goes through `poll_transmit_checked`.
struct Lossy {
    a: Association,
    b: Association,
    /// (arrival, to `b`?, packet) in send order: one delay keeps it sorted.
    wire: VecDeque<(Time, bool, Transmit)>,
    rng: u64,
    burst: u32,
    /// Polls answered by the fast test, and polls left to the full path.
    fast: u64,
    full: u64,
}

impl Lossy {
    fn poll(&mut self, now: Time) {
        for to_b in [true, false] {
            loop {
                let x = if to_b { &mut self.a } else { &mut self.b };
                if fast(x, now) {
                    self.fast += 1;
                } else {
                    self.full += 1;
                }
                let Some(t) = x.poll_transmit_checked(now) else {
                    break;
                };
                self.rng ^= self.rng << 13;
                self.rng ^= self.rng >> 7;
                self.rng ^= self.rng << 17;
                if self.burst == 0 && self.rng % 100 < 3 {
                    self.burst = 1 + (self.rng >> 8) as u32 % 4;
                }
                if self.burst > 0 {
                    self.burst -= 1;
                } else {
                    self.wire
                        .push_back((now + Duration::from_millis(20), to_b, t));
                }
            }
        }
    }
}

/// `msgs` messages from `a` to `b`, whose application reads every 50 ms when `auto_consume`
/// is off, then a graceful shutdown. Returns the fast answers and the full-path polls.
fn lossy_transfer(cfg: SctpConfig, msgs: u64) -> (u64, u64) {
    let (a, b) = pair(&cfg);
    let mut l = Lossy {
        a,
        b,
        wire: VecDeque::new(),
        rng: 0x2545_f491_4f6c_dd1d,
        burst: 0,
        fast: 0,
        full: 0,
    };
    let (mut sent, mut now, mut next_read) = (0, Time::ZERO, Time::ZERO);
    for _ in 0..400_000 {
        while sent < msgs && l.a.send(now, 0, Payload::zeros(MSG), false).is_ok() {
            sent += 1;
        }
        if sent == msgs && l.a.state() == State::Established && l.a.tx.drained() {
            l.a.shutdown(now);
        }
        if now >= next_read {
            l.b.consume(l.b.unread_bytes());
            next_read = now + Duration::from_millis(50);
        }
        l.poll(now);
        while l.a.poll_event().is_some() || l.b.poll_event().is_some() {}
        if l.a.state() == State::Closed && l.b.state() == State::Closed {
            assert_eq!(l.b.stats().messages_delivered, msgs);
            return (l.fast, l.full);
        }
        let reader = (!cfg.auto_consume).then_some(next_read);
        let arrival = l.wire.front().map(|w| w.0);
        let timers = [arrival, l.a.poll_timeout(), l.b.poll_timeout(), reader];
        now = timers
            .into_iter()
            .flatten()
            .min()
            .expect("something pending");
        while let Some((_, to_b, t)) = l.wire.front().filter(|w| w.0 <= now).cloned() {
            l.wire.pop_front();
            let x = if to_b { &mut l.b } else { &mut l.a };
            x.handle_packet(now, t.src, t.dst, &t.packet);
        }
        for x in [&mut l.a, &mut l.b] {
            if x.poll_timeout().is_some_and(|t| t <= now) {
                x.handle_timeout(now);
            }
        }
    }
    panic!(
        "transfer did not finish: {:?} {:?}",
        l.a.state(),
        l.b.state()
    );
}

#[test]
fn empty_polls_answered_fast_agree_with_the_full_path_in_lossy_transfers() {
    let base = SctpConfig::default();
    let mut cmt = base.clone();
    cmt.cmt.enabled = true;
    let mut rack = base.clone();
    rack.rack.enabled = true;
    rack.rack.tlp = true;
    let mut clamp = base.clone();
    clamp.nr_sack = true;
    clamp.max_burst_rule = MaxBurstRule::ClampCwnd;
    let mut thin = base.clone();
    thin.thin.early_retransmit_rfc5827 = true;
    thin.thin.linear_timeouts = true;
    let mut slow_reader = base.clone();
    slow_reader.auto_consume = false;
    slow_reader.recv_buffer = 8 * MSG;
    for (name, cfg) in [
        ("plain", base),
        ("cmt", cmt),
        ("rack-tlp", rack),
        ("nr-sack, clamp", clamp),
        ("thin", thin),
        ("slow reader", slow_reader),
    ] {
        let (fast, full) = lossy_transfer(cfg, 3_000);
        eprintln!("{name}: {fast} fast, {full} full");
        assert!(fast > 500, "{name}: {fast} fast, {full} full");
    }
}

/// A sender that sent its initial window of a long write, held by cwnd, and its receiver
/// with nothing to send: both answer fast (the new-data decision, nothing unsent).
#[test]
fn cwnd_limited_sender_and_idle_receiver_answer_fast() {
    let (mut a, mut b) = pair(&SctpConfig::default());
    let now = Time::from_millis(1);
    while a.send(now, 0, Payload::zeros(MSG), false).is_ok() {}
    let sent = std::iter::from_fn(|| a.poll_transmit_checked(now)).count();
    assert!(sent > 0 && !a.tx.queue().is_empty());
    assert!(fast(&mut a, now), "held by cwnd");
    assert!(fast(&mut b, now), "nothing unsent");
}

/// RFC 9260 §6.1 D: after Max.Burst packets in one opportunity the rest waits, and the poll
/// says so fast.
#[test]
fn max_burst_limited_sender_answers_fast() {
    let cfg = SctpConfig {
        initial_cwnd: Some(64 * 1_452),
        max_burst: 2,
        ..SctpConfig::default()
    };
    let (mut a, _) = pair(&cfg);
    let now = Time::from_millis(1);
    while a.send(now, 0, Payload::zeros(MSG), false).is_ok() {}
    assert_eq!(
        std::iter::from_fn(|| a.poll_transmit_checked(now)).count(),
        2
    );
    assert!(a.burst_exhausted(0) && a.paths[0].can_send());
    assert!(fast(&mut a, now));
}

/// CMT with every path full: no destination for new data, answered fast.
#[test]
fn cmt_sender_with_every_path_full_answers_fast() {
    let mut cfg = SctpConfig::default();
    cfg.cmt.enabled = true;
    cfg.max_burst = 0;
    let (mut a, _) = pair(&cfg);
    let now = Time::from_millis(1);
    while a.send(now, 0, Payload::zeros(MSG), false).is_ok() {}
    assert!(std::iter::from_fn(|| a.poll_transmit_checked(now)).count() > 0);
    assert!(a.paths.iter().all(|p| !p.can_send()));
    assert_eq!(a.new_data_destination(), None);
    assert!(fast(&mut a, now));
}

/// Outside the data states only control chunks and SACKs go: a listener answers fast.
#[test]
fn listener_answers_fast() {
    let mut b = Association::listen(SctpConfig::default(), B.to_vec(), 6000, 2, 900);
    assert!(fast(&mut b, Time::ZERO));
    assert_eq!(b.poll_transmit_checked(Time::ZERO), None);
}

/// RFC 9260 §7.2.1: the primary has been idle for more than an RTO while the peer's window
/// holds new data back (data in flight on the other path). The poll sends nothing but decays
/// the primary's cwnd, so the fast test must leave it to the full path.
#[test]
fn idle_decay_due_is_left_to_the_full_path() {
    let cfg = SctpConfig {
        initial_cwnd: Some(16 * 1_452),
        ..SctpConfig::default()
    };
    let (mut a, _) = pair(&cfg);
    // 3.5 s later (RTO.Initial 3 s) one packet goes to the second path.
    let t1 = Time::from_millis(3_500);
    a.send(t1, 0, Payload::zeros(MSG), false).unwrap();
    a.begin_poll(t1);
    assert!(a.new_data_packet_to(t1, 1, false).is_some());
    a.tx.set_peer_rwnd(0);
    a.send(t1, 0, Payload::zeros(MSG), false).unwrap();
    let cwnd = a.paths[0].cc().cwnd();
    let now = Time::from_millis(4_000);
    assert!(a.paths[0].idle_decay_due(now).is_some());
    assert!(!fast(&mut a, now));
    assert_eq!(a.poll_transmit_checked(now), None);
    assert!(a.paths[0].cc().cwnd() < cwnd, "the empty poll decayed cwnd");
}
