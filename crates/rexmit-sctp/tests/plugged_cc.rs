//! A registered congestion controller on an SCTP association (`cc`, docs/congestion_control.md
//! "SCTP"): the adapter tells it each event where SCTP has one, in order, and the path's cwnd
//! is the controller's at every step. The controller here is the registry's Reno behind a
//! recorder that logs every event with the window before and after it.

mod common;
use common::*;
use rexmit_sctp::{Association, CwndGrowth, SctpConfig, Transmit};
use rexmit_tcp::cc::registry::{self, CcPlugin};
use rexmit_tcp::cc::{
    AckSample, CcParams, CongestionCause, CongestionControl, CongestionEvent, Connected,
    IdleRestart, OwnWrite, RateAck, RecoveryEnd, RecoveryStart, Timeout,
};
use rexmit_time::{Duration, Time};
use rexmit_wire::Payload;
use std::cell::RefCell;
use std::sync::Arc;

const MTU: u64 = 1452;

/// What the controller was told.
#[derive(Clone, Debug, PartialEq)]
enum Told {
    Connected(Connected),
    Delivery(AckSample),
    Ack(AckSample),
    Congestion(CongestionEvent),
    RecoveryStart(RecoveryStart),
    RecoveryEnd(RecoveryEnd),
    Timeout(Timeout),
    IdleRestart(IdleRestart),
    /// An event SCTP has no counterpart for (it must never come).
    Other(&'static str),
}

/// One event with (cwnd, ssthresh) before and after it.
#[derive(Clone, Debug)]
struct Entry {
    told: Told,
    before: (u64, u64),
    after: (u64, u64),
}

thread_local! {
    /// The events of the controllers built on this thread (each test is one thread and
    /// builds one recorded controller per association).
    static LOG: RefCell<Vec<Entry>> = const { RefCell::new(Vec::new()) };
}

fn log() -> Vec<Entry> {
    LOG.with(|l| l.borrow().clone())
}

/// The registry's Reno, every event logged.
#[derive(Debug)]
struct Recorder {
    inner: Box<dyn CongestionControl>,
}

impl Recorder {
    fn record(&mut self, told: Told, f: impl FnOnce(&mut dyn CongestionControl)) {
        let before = (self.inner.window(), self.inner.ssthresh());
        f(self.inner.as_mut());
        let after = (self.inner.window(), self.inner.ssthresh());
        LOG.with(|l| {
            l.borrow_mut().push(Entry {
                told,
                before,
                after,
            })
        });
    }
}

impl CongestionControl for Recorder {
    fn window(&self) -> u64 {
        self.inner.window()
    }
    fn ssthresh(&self) -> u64 {
        self.inner.ssthresh()
    }
    fn name(&self) -> &str {
        "sctp_recorder"
    }
    fn store_cwnd(&mut self, cwnd: u64, w: OwnWrite) {
        self.inner.store_cwnd(cwnd, w)
    }
    fn store_ssthresh(&mut self, ssthresh: u64, w: OwnWrite) {
        self.inner.store_ssthresh(ssthresh, w)
    }
    fn on_connected(&mut self, ev: &Connected) {
        self.record(Told::Connected(*ev), |c| c.on_connected(ev));
    }
    fn on_lost_syn(&mut self, smss: u64) {
        self.record(Told::Other("on_lost_syn"), |c| c.on_lost_syn(smss));
    }
    fn on_idle_restart(&mut self, ev: &IdleRestart) {
        self.record(Told::IdleRestart(*ev), |c| c.on_idle_restart(ev));
    }
    fn on_delivery(&mut self, ack: &AckSample) {
        self.record(Told::Delivery(*ack), |c| c.on_delivery(ack));
    }
    fn on_ack(&mut self, ack: &AckSample) {
        self.record(Told::Ack(*ack), |c| c.on_ack(ack));
    }
    fn on_rate_ack(&mut self, ack: &RateAck) {
        self.record(Told::Other("on_rate_ack"), |c| c.on_rate_ack(ack));
    }
    fn on_congestion_event(&mut self, ev: &CongestionEvent) {
        self.record(Told::Congestion(*ev), |c| c.on_congestion_event(ev));
    }
    fn on_timeout(&mut self, ev: &Timeout) {
        self.record(Told::Timeout(*ev), |c| c.on_timeout(ev));
    }
    fn on_recovery_start(&mut self, ev: &RecoveryStart) {
        self.record(Told::RecoveryStart(*ev), |c| c.on_recovery_start(ev));
    }
    fn on_recovery_end(&mut self, ev: &RecoveryEnd) {
        self.record(Told::RecoveryEnd(*ev), |c| c.on_recovery_end(ev));
    }
    fn on_recovery_inflate(&mut self, dupacks: u32, smss: u64) {
        let f = |c: &mut dyn CongestionControl| c.on_recovery_inflate(dupacks, smss);
        self.record(Told::Other("on_recovery_inflate"), f);
    }
    fn on_recovery_dupack(&mut self, smss: u64) {
        let f = |c: &mut dyn CongestionControl| c.on_recovery_dupack(smss);
        self.record(Told::Other("on_recovery_dupack"), f);
    }
    fn on_recovery_deflate(&mut self) {
        self.record(Told::Other("on_recovery_deflate"), |c| {
            c.on_recovery_deflate()
        });
    }
    fn on_partial_ack(&mut self, acked: u64, smss: u64) {
        let f = |c: &mut dyn CongestionControl| c.on_partial_ack(acked, smss);
        self.record(Told::Other("on_partial_ack"), f);
    }
    fn on_prr(&mut self, pipe: u64, sndcnt: u64) {
        self.record(Told::Other("on_prr"), |c| c.on_prr(pipe, sndcnt));
    }
    fn on_go_back(&mut self, smss: u64) {
        self.record(Told::Other("on_go_back"), |c| c.on_go_back(smss));
    }
}

struct RecorderPlugin;

impl CcPlugin for RecorderPlugin {
    fn name(&self) -> &str {
        "sctp_recorder"
    }
    fn build(&self, p: &CcParams, _values: &[f64]) -> Box<dyn CongestionControl> {
        let reno = registry::lookup("reno").expect("a built-in");
        Box::new(Recorder {
            inner: reno.build(p, &[]),
        })
    }
}

fn plugged() -> SctpConfig {
    // Tests of this file run in threads of one process: registering again replaces.
    registry::register(Arc::new(RecorderPlugin), true).unwrap();
    let c = SctpConfig {
        cc: Some("sctp_recorder".into()),
        hb_interval: None,
        max_burst: 0,
        send_buffer: 1 << 20,
        recv_buffer: 1 << 20,
        ..SctpConfig::default()
    };
    c.validate().unwrap();
    c
}

fn plain() -> SctpConfig {
    SctpConfig {
        hb_interval: None,
        recv_buffer: 1 << 20,
        ..SctpConfig::default()
    }
}

fn at(ms: u64) -> Time {
    Time::from_millis(ms)
}

/// Handshake with 10 ms each way: A's COOKIE ECHO leaves at 20 ms, its COOKIE ACK is back at
/// 40 ms (RFC 9260 §5.1).
fn handshake() -> (Association, Association) {
    handshake_with(plugged())
}

fn handshake_with(cfg: SctpConfig) -> (Association, Association) {
    LOG.with(|l| l.borrow_mut().clear());
    let mut a = Association::connect(cfg, vec![A1], PORT_A, vec![B1], PORT_B, TAG_A, 1, at(0));
    let mut b = Association::listen(plain(), vec![B1], PORT_B, TAG_B, 1);
    let mut now = at(0);
    while !(a.is_established() && b.is_established()) {
        let out = drain(&mut a, now);
        now += Duration::from_millis(10);
        out.iter().for_each(|t| deliver(&mut b, now, t));
        let back = drain(&mut b, now);
        now += Duration::from_millis(10);
        back.iter().for_each(|t| deliver(&mut a, now, t));
    }
    events(&mut a);
    events(&mut b);
    (a, b)
}

fn write(a: &mut Association, now: Time, n: usize) {
    for _ in 0..n {
        a.send(now, 0, Payload::zeros(MTU as u32), true).unwrap();
    }
}

/// The first round trips by hand: the handshake's RTT, slow start by at most one MTU per SACK
/// (RFC 9260 §7.2.1 and Reno's RFC 5681 §3.1 agree), and no growth from a SACK that finds
/// cwnd not fully used (§7.2.1) — the controller hears that one only as a delivery.
#[test]
fn reno_hears_the_handshake_rtt_and_grows_only_on_a_fully_used_window() {
    let (mut a, mut b) = handshake();
    let l = log();
    assert_eq!(l.len(), 1, "{l:?}");
    let Told::Connected(c) = l[0].told else {
        panic!("{l:?}")
    };
    assert_eq!(
        c.srtt,
        Some(Duration::from_millis(20)),
        "COOKIE ECHO → COOKIE ACK"
    );
    assert_eq!(c.smss, MTU);
    // RFC 9260 §7.2.1: IW = min(4·MTU, max(2·MTU, 4380)); ssthresh: the peer's a_rwnd.
    assert_eq!(a.paths()[0].cc().cwnd(), 4380);
    assert_eq!(a.paths()[0].cc().ssthresh(), 1 << 20);
    assert_eq!(a.paths()[0].cc().plugged_name(), Some("sctp_recorder"));

    // Four chunks fit under cwnd (flightsize 4356 < 4380 before the fourth).
    write(&mut a, at(50), 10);
    let out = drain(&mut a, at(50));
    assert_eq!(data_tsns(&out), vec![1, 2, 3, 4]);
    // B acknowledges every second packet (RFC 9260 §6.2).
    let mut sacks = Vec::new();
    for pair in out.chunks(2) {
        pair.iter().for_each(|t| deliver(&mut b, at(60), t));
        sacks.extend(drain(&mut b, at(60)));
    }
    assert_eq!(sacks.len(), 2);
    LOG.with(|l| l.borrow_mut().clear());
    deliver(&mut a, at(70), &sacks[0]);
    let l = log();
    assert_eq!(l.len(), 2, "{l:?}");
    let (Told::Delivery(d), Told::Ack(k)) = (&l[0].told, &l[1].told) else {
        panic!("{l:?}")
    };
    assert_eq!(d, k, "on_delivery and on_ack see the same sample");
    assert_eq!(k.acked, 2 * MTU);
    assert_eq!(k.rtt, Some(Duration::from_millis(20)), "50 ms → 70 ms");
    // Per-path byte counters: 4 chunks sent, 2 acknowledged.
    assert_eq!((k.snd_una, k.snd_nxt), (2 * MTU, 4 * MTU));
    assert_eq!(l[1].after.0, 4380 + MTU, "slow start: + min(acked, SMSS)");
    assert_eq!(
        a.paths()[0].cc().cwnd(),
        4380 + MTU,
        "the path's cwnd is Reno's"
    );

    // The second SACK, before A sends again: flightsize before it (2 MTU) is below cwnd, so
    // no growth (§7.2.1), a delivery only.
    LOG.with(|l| l.borrow_mut().clear());
    deliver(&mut a, at(70), &sacks[1]);
    let l = log();
    assert_eq!(l.len(), 1, "{l:?}");
    assert!(matches!(l[0].told, Told::Delivery(s) if s.acked == 2 * MTU));
    assert_eq!(a.paths()[0].cc().cwnd(), 4380 + MTU);
}

/// RFC 9260 §7.2.1 grows a fully used window on a SACK that only reports a gap block; RFC 4960
/// (`cwnd_growth = "rfc4960"`) waits for the cumulative TSN ack point to move. The adapter
/// applies the configured rule; the controller hears the delivery either way.
#[test]
fn growth_on_a_gap_only_sack_follows_cwnd_growth() {
    for (rule, grows) in [(CwndGrowth::Rfc9260, true), (CwndGrowth::Rfc4960, false)] {
        let cfg = SctpConfig {
            cwnd_growth: rule,
            ..plugged()
        };
        let (mut a, mut b) = handshake_with(cfg);
        write(&mut a, at(50), 4);
        let out = drain(&mut a, at(50));
        // TSN 1 is lost: B reports TSN 2 in a gap block at once (§6.7).
        deliver(&mut b, at(60), &out[1]);
        let sack = drain(&mut b, at(60));
        assert_eq!(sack.len(), 1);
        LOG.with(|l| l.borrow_mut().clear());
        deliver(&mut a, at(70), &sack[0]);
        let told: Vec<Told> = log().into_iter().map(|e| e.told).collect();
        assert!(
            matches!(told[0], Told::Delivery(d) if d.acked == MTU),
            "{told:?}"
        );
        assert_eq!(told.len(), if grows { 2 } else { 1 }, "{rule:?}: {told:?}");
        let cwnd = if grows { 4380 + MTU } else { 4380 };
        assert_eq!(a.paths()[0].cc().cwnd(), cwnd, "{rule:?}");
    }
}

/// A whole transfer: slow start, a fast retransmit, a T3-rtx expiry (twice), an idle restart.
/// Each event comes as the mapping says, carries the path's state, and leaves the path's
/// cwnd where Reno puts it (its own floor of 2·SMSS, not RFC 9260's 4·MTU).
#[test]
fn reno_hears_fast_recovery_timeouts_and_idle_restart_in_order() {
    let (a, b) = handshake();
    let mut net = Net::new(a, b);
    let lost_tsn = 40;
    let (mut seen_lost, mut outage_from) = (false, None);
    // DATA from A: the first transmission of TSN 40 is lost (fast retransmit); from the
    // first of TSN 200, for 2.5 s, everything is lost (T3-rtx expires, twice).
    let mut fate = |t: &Transmit, now: Time| {
        let tsns = data_tsns(std::slice::from_ref(t));
        if tsns.contains(&lost_tsn) && !seen_lost {
            seen_lost = true;
            return None;
        }
        if tsns.contains(&200) {
            outage_from.get_or_insert(now);
        }
        let outage = outage_from.is_some_and(|t0| now < t0 + Duration::from_millis(2_500));
        if !tsns.is_empty() && outage {
            return None;
        }
        Some(Duration::from_millis(10))
    };
    // After every step, the path's cwnd is the controller's last window.
    let mut observe = |_: Time, eps: &[Association; 2]| {
        if let Some(e) = LOG.with(|l| l.borrow().last().cloned()) {
            assert_eq!(eps[0].paths()[0].cc().cwnd(), e.after.0);
            assert_eq!(eps[0].paths()[0].cc().ssthresh(), e.after.1);
        }
    };
    // 300 chunks at once; once all are acknowledged and the path idles, 20 more at 20 s.
    net.now = at(40);
    write(&mut net.eps[0], net.now, 300);
    net.run_observed(at(15_000), &mut fate, &mut |_, _| {}, &mut observe);
    assert_eq!(net.eps[0].flight_size(), 0, "everything acknowledged");
    net.now = at(20_000);
    write(&mut net.eps[0], net.now, 20);
    net.run_observed(at(30_000), &mut fate, &mut |_, _| {}, &mut observe);
    assert_eq!(net.eps[0].flight_size(), 0);
    assert_eq!(net.eps[0].rtx_queue_bytes(), 0);

    let l = log();
    let mut open = false;
    let (mut congestions, mut timeouts, mut idles, mut ends) = (0, 0, 0, 0);
    for (i, e) in l.iter().enumerate() {
        let (cwnd, ssthresh) = e.before;
        match &e.told {
            Told::Other(name) => panic!("SCTP raised {name}"),
            Told::Connected(_) => assert_eq!(i, 0),
            Told::Delivery(_) => assert_eq!(e.before, e.after, "Reno estimates nothing"),
            Told::Ack(k) => {
                assert!(
                    !open || cwnd > ssthresh,
                    "no slow start in fast recovery (§7.2.1)"
                );
                let grown = e.after.0 - cwnd;
                if cwnd < ssthresh {
                    assert_eq!(grown, k.acked.min(MTU), "slow start");
                } else {
                    assert!(grown == 0 || grown == MTU, "avoidance: one MTU at a time");
                }
                // Round boundaries: bytes sent on the path, those no longer in flight.
                assert!(k.snd_una <= k.snd_nxt);
            }
            Told::Congestion(ev) => {
                congestions += 1;
                assert_eq!(ev.cause, CongestionCause::DuplicateAcks, "miss indications");
                assert_eq!(
                    (ev.base, ev.smss),
                    (cwnd, MTU),
                    "from cwnd (RFC 9260 §7.2.3)"
                );
                let want = (cwnd / 2).max(2 * MTU);
                assert_eq!(
                    e.after,
                    (want, want),
                    "Reno's decrease, its own 2·SMSS floor"
                );
                assert!(
                    matches!(l[i + 1].told, Told::RecoveryStart(s) if s.cause == ev.cause),
                    "fast recovery begins with it"
                );
            }
            Told::RecoveryStart(_) => {
                assert!(!open);
                open = true;
            }
            Told::RecoveryEnd(end) => {
                assert!(open, "an end only for an open episode");
                open = false;
                ends += 1;
                if end.by_timeout {
                    assert!(matches!(l[i - 1].told, Told::Timeout(t) if t.in_recovery));
                }
            }
            Told::Timeout(t) => {
                timeouts += 1;
                assert_eq!((t.base, t.prior_ssthresh), (cwnd, ssthresh));
                assert_eq!(t.in_recovery, open);
                assert!(t.lost_total > 0, "the chunks it marked lost count");
                // RFC 5681 §3.1: ssthresh only on the first timeout, cwnd = 1 SMSS.
                let first = (cwnd / 2).max(2 * MTU);
                let kept = if t.repeated {
                    ssthresh
                } else if t.in_recovery {
                    first.min(ssthresh)
                } else {
                    first
                };
                assert_eq!(e.after, (MTU, kept), "{t:?}");
                assert_eq!(
                    t.repeated,
                    timeouts > 1,
                    "the outage's second T3-rtx repeats"
                );
            }
            Told::IdleRestart(ev) => {
                idles += 1;
                // RFC 9260 §7.2.1: halved per RTO idle, down to 4·MTU, as RW.
                let rtos = ev.idle.as_nanos() / net.eps[0].paths()[0].rtt().rto().as_nanos();
                assert!(rtos >= 1);
                assert_eq!(
                    ev.restart_window,
                    rexmit_sctp::cc::idle_window(cwnd, MTU, rtos)
                );
                assert_eq!(
                    e.after.0,
                    cwnd.min(ev.restart_window),
                    "RFC 5681 §4.1 default"
                );
            }
        }
    }
    assert_eq!(congestions, 1, "one fast retransmit: TSN {lost_tsn}");
    assert_eq!(timeouts, 2, "{:?}", net.eps[0].stats());
    assert_eq!(net.eps[0].stats().timeouts, 2);
    assert!(ends >= 1 && !open);
    assert_eq!(idles, 1, "one restart after the idle period");
}

/// Options that write cwnd themselves, and controllers SCTP cannot feed, are refused by name.
#[test]
fn options_that_write_the_window_are_refused_with_a_plugged_controller() {
    let field = |c: SctpConfig| c.validate().unwrap_err().field;
    let clamp = SctpConfig {
        max_burst_rule: rexmit_sctp::MaxBurstRule::ClampCwnd,
        ..plugged()
    };
    assert_eq!(field(clamp), "max_burst_rule");
    let mut efr = plugged();
    efr.thin.early_fast_retransmit = true;
    assert_eq!(field(efr), "thin.early_fast_retransmit");
    // BBR needs delivery-rate samples (on_rate_ack), which SCTP does not produce.
    let bbr = SctpConfig {
        cc: Some("bbr".into()),
        ..plain()
    };
    assert_eq!(field(bbr), "cc");
    let unknown = SctpConfig {
        cc: Some("vegas9".into()),
        ..plain()
    };
    assert_eq!(field(unknown), "cc");
    let params_alone = SctpConfig {
        cc_params: rexmit_tcp::cc::registry::ParamMap::of(&[("a", 2.0)]),
        ..plain()
    };
    assert_eq!(field(params_alone), "cc_params");
    let bad_param = SctpConfig {
        cc: Some("aimd".into()),
        cc_params: rexmit_tcp::cc::registry::ParamMap::of(&[("b", 1.5)]),
        ..plain()
    };
    assert_eq!(field(bad_param), "cc_params.b");
    // Without cc, RFC 4960's clamp and EFR are the built-in's as before.
    let builtin = SctpConfig {
        max_burst_rule: rexmit_sctp::MaxBurstRule::ClampCwnd,
        ..plain()
    };
    assert_eq!(builtin.validate(), Ok(()));
}
