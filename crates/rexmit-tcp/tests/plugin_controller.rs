//! A congestion controller written outside the crate, through the public trait only
//! (`rexmit_tcp::cc::CongestionControl`), plugged into a connection with
//! `Connection::with_controller`. It keeps its own cwnd and ssthresh (no `cc::Window`),
//! implements only what the trait requires plus the notifications it logs, and so gets loss
//! recovery's window changes and the timeout from the trait's RFC defaults, which write
//! through its `store_cwnd` / `store_ssthresh` (logged too). The tests read the log as a
//! timeline of what the sender told it (docs/congestion_control.md gives the order).

mod common;
use common::*;
use rexmit_tcp::cc::{
    AckSample, CcParams, CongestionCause, CongestionControl, CongestionEvent, Connected,
    ControllerFactory, OwnWrite, RecoveryEnd, RecoveryStart, Undo, UndoCause,
};
use rexmit_tcp::{Connection, DecreaseBase, RecoveryAlgorithm, TcpConfig};
use rexmit_time::Time;
use std::sync::{Arc, Mutex};

/// What the controller was told, or stored through the trait's defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Call {
    Connected {
        smss: u64,
    },
    /// Growth (`on_ack`) by this many acknowledged bytes.
    Grow(u64),
    Congestion(CongestionCause, u64),
    Start(CongestionCause),
    End {
        by_timeout: bool,
    },
    /// A reduction found spurious, with the cwnd before it.
    Undo(UndoCause, u64),
    /// A default method stored cwnd / ssthresh.
    Cwnd(u64),
    Ssthresh(u64),
}

type Log = Arc<Mutex<Vec<Call>>>;

/// RFC 5681 §3.1 in a few lines: slow start and congestion avoidance counting ACKs, and
/// ssthresh = cwnd = max(base/2, 2·SMSS) at a congestion event.
#[derive(Debug)]
struct HalfOnLoss {
    cwnd: u64,
    ssthresh: u64,
    smss: u64,
    log: Log,
}

impl HalfOnLoss {
    fn note(&self, c: Call) {
        self.log.lock().unwrap().push(c);
    }
}

impl CongestionControl for HalfOnLoss {
    fn window(&self) -> u64 {
        self.cwnd
    }
    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }
    fn name(&self) -> &str {
        "half-on-loss"
    }
    fn store_cwnd(&mut self, cwnd: u64, _: OwnWrite) {
        self.note(Call::Cwnd(cwnd));
        self.cwnd = cwnd;
    }
    fn store_ssthresh(&mut self, ssthresh: u64, _: OwnWrite) {
        self.note(Call::Ssthresh(ssthresh));
        self.ssthresh = ssthresh;
    }
    fn on_connected(&mut self, ev: &Connected) {
        self.note(Call::Connected { smss: ev.smss });
    }
    fn on_ack(&mut self, ack: &AckSample) {
        self.note(Call::Grow(ack.acked));
        self.cwnd += if self.cwnd < self.ssthresh {
            ack.acked.min(self.smss)
        } else {
            (self.smss * self.smss / self.cwnd).max(1)
        };
    }
    fn on_congestion_event(&mut self, ev: &CongestionEvent) {
        self.note(Call::Congestion(ev.cause, ev.base));
        self.ssthresh = (ev.base / 2).max(2 * ev.smss);
        self.cwnd = self.ssthresh;
    }
    fn on_recovery_start(&mut self, ev: &RecoveryStart) {
        self.note(Call::Start(ev.cause));
    }
    fn on_recovery_end(&mut self, ev: &RecoveryEnd) {
        self.note(Call::End {
            by_timeout: ev.by_timeout,
        });
    }
    /// Its own response: half of what was taken back.
    fn on_undo(&mut self, ev: &Undo) {
        self.note(Call::Undo(ev.cause, ev.prior_cwnd));
        self.cwnd = self.cwnd.max((self.cwnd + ev.prior_cwnd) / 2);
        self.ssthresh = self.ssthresh.max(ev.prior_ssthresh);
    }
}

#[derive(Debug, Default)]
struct Factory {
    log: Log,
}

impl ControllerFactory for Factory {
    fn build(&self, p: &CcParams) -> Box<dyn CongestionControl> {
        Box::new(HalfOnLoss {
            cwnd: p.initial_cwnd,
            ssthresh: p.initial_ssthresh,
            smss: p.smss,
            log: self.log.clone(),
        })
    }
}

/// Two connections with `c`; A's controller is the plugin, logging to the returned log, and
/// A writes `bytes` then closes.
fn net_with_plugin(c: TcpConfig, bytes: u64) -> (Net, Log) {
    let log = Log::default();
    let mut n = Net::new(c.clone(), c.clone());
    n.a = Connection::connect(c, 10, 80, n.iss_a, Time::ZERO)
        .with_controller(Arc::new(Factory { log: log.clone() }));
    n.a.send(Time::ZERO, bytes as usize);
    n.a.close(Time::ZERO);
    (n, log)
}

fn take(log: &Log) -> Vec<Call> {
    std::mem::take(&mut *log.lock().unwrap())
}

/// NewReno (RFC 6582) with one loss, packet by packet: every window change of fast recovery
/// comes from the trait's defaults, and the sender sends by the plugin's window. Decreases
/// apply to cwnd (`DecreaseBase::Cwnd`), so that a repeated timeout would compute another
/// ssthresh than the one it keeps.
#[test]
fn plugin_gets_rfc_fast_recovery_windows_from_the_trait_defaults() {
    let log = Log::default();
    let factory = Arc::new(Factory { log: log.clone() });
    let c = TcpConfig {
        initial_cwnd_segments: 10,
        decrease_base: DecreaseBase::Cwnd,
        ..cfg(RecoveryAlgorithm::NewReno)
    };
    let mut s =
        Injector::established_as(c, false, 40 * MSS as usize, |c| c.with_controller(factory));
    assert_eq!(s.c.cc_name(), "half-on-loss");
    assert_eq!(take(&log), [Call::Connected { smss: MSS }]);
    assert_eq!(s.sent(), (1..=10).collect::<Vec<_>>());
    // Packet 1 lost. RFC 6582 §3.2 step 2: the third duplicate ACK halves cwnd (10 kB);
    // step 3 (RFC 5681 §3.2 step 3): cwnd = ssthresh + 3·SMSS.
    assert_eq!(s.ack(200, 1, &[]), []);
    assert_eq!(s.ack(201, 1, &[]), []);
    assert_eq!(s.ack(202, 1, &[]), [1]);
    use Call::*;
    use CongestionCause::DuplicateAcks;
    assert_eq!(
        take(&log),
        [
            Congestion(DuplicateAcks, 10 * MSS),
            Start(DuplicateAcks),
            Cwnd(8 * MSS)
        ]
    );
    // Step 4: one SMSS per further duplicate; the eleventh packet fits at cwnd 11.
    assert_eq!(s.ack(203, 1, &[]), []);
    assert_eq!(s.ack(204, 1, &[]), []);
    assert_eq!(s.ack(205, 1, &[]), [11]);
    assert_eq!(take(&log), [Cwnd(9 * MSS), Cwnd(10 * MSS), Cwnd(11 * MSS)]);
    assert_eq!(s.c.cwnd(), 11 * MSS);
    // Step 5, partial ACK of packets 1–2: cwnd = 11 − 2 + 1 = 10 segments; packet 3 resent.
    assert_eq!(s.ack(206, 3, &[]), [3, 12]);
    assert_eq!(take(&log), [Cwnd(10 * MSS)]);
    // Step 3 of the full ACK (everything up to packet 10): deflate to ssthresh, episode ends.
    assert_eq!(s.ack(207, 11, &[]), [13, 14, 15]);
    assert_eq!(take(&log), [Cwnd(5 * MSS), End { by_timeout: false }]);
    // Congestion avoidance: the plugin's own growth, one SMSS·SMSS/cwnd per ACK.
    assert_eq!(s.ack(208, 12, &[]), [16]);
    assert_eq!(take(&log), [Grow(MSS)]);
    assert_eq!(s.c.cwnd(), 5 * MSS + 200);
    // Nothing more is acknowledged: the RTO fires. The default `on_timeout`: the plugin's
    // decrease from cwnd (5.2 kB: ssthresh 2.6 kB), that ssthresh stands, cwnd = LW = 1 SMSS.
    let rto = s.c.poll_timeout().expect("RTO armed");
    s.now = rto;
    s.c.handle_timeout(rto);
    assert_eq!(s.sent(), [12]);
    use CongestionCause::Timeout;
    assert_eq!(
        take(&log),
        [Congestion(Timeout, 5_200), Ssthresh(2_600), Cwnd(MSS)]
    );
    // A repeated timeout keeps ssthresh (RFC 5681 §3.1): the decrease from cwnd = 1 SMSS
    // computes 2 SMSS, the default stores back 2.6 kB.
    let rto = s.c.poll_timeout().expect("RTO re-armed");
    s.now = rto;
    s.c.handle_timeout(rto);
    assert_eq!(s.sent(), [12]);
    assert_eq!(
        take(&log),
        [Congestion(Timeout, MSS), Ssthresh(2_600), Cwnd(MSS)]
    );
    assert_eq!((s.c.cwnd(), s.c.ssthresh()), (MSS, 2_600));
}

/// A whole transfer between two connections: the first SYN lost (RFC 5681 §3.1: one
/// segment), SACK recovery with PRR, and a lost retransmission that only the RTO repairs.
#[test]
fn transfer_completes_with_a_plugin_controller() {
    let c = TcpConfig {
        prr: true,
        ..cfg(RecoveryAlgorithm::Sack)
    };
    let total = 300 * MSS;
    let (mut n, log) = net_with_plugin(c, total);
    let mut syn_lost = drop_first_syn();
    let mut data_lost = drop_first(&[40, 41, 120, 120], n.iss_a);
    n.drop = Box::new(move |dir, seg| syn_lost(dir, seg) || data_lost(dir, seg));
    n.run_until(ms(120_000));
    assert!(n.finished());
    assert_eq!(n.received.len() as u64, total);
    let st = n.a.stats();
    assert!(st.fast_retransmits >= 1 && st.timeouts >= 2, "{st:?}");

    let calls = take(&log);
    // Connected, then the lost SYN's one-segment window (the `on_lost_syn` default).
    assert_eq!(calls[..2], [Call::Connected { smss: MSS }, Call::Cwnd(MSS)]);
    // Episodes alternate start, end; each fast recovery starts right after its decrease.
    let episodes: Vec<Call> = calls
        .iter()
        .copied()
        .filter(|c| matches!(c, Call::Start(_) | Call::End { .. }))
        .collect();
    assert!(
        !episodes.is_empty() && episodes.len().is_multiple_of(2),
        "{episodes:?}"
    );
    for pair in episodes.chunks(2) {
        assert!(
            matches!(pair, [Call::Start(_), Call::End { .. }]),
            "{pair:?}"
        );
    }
    for (i, c) in calls.iter().enumerate() {
        match *c {
            Call::Start(cause) if cause != CongestionCause::Timeout => {
                assert!(matches!(calls[i - 1], Call::Congestion(k, _) if k == cause))
            }
            // The default `on_timeout`: decrease, ssthresh, cwnd = 1 SMSS.
            Call::Congestion(CongestionCause::Timeout, _) => {
                assert!(matches!(calls[i + 1], Call::Ssthresh(_)));
                assert_eq!(calls[i + 2], Call::Cwnd(MSS));
            }
            _ => {}
        }
    }
    // Packet 120's retransmission is lost too: the RTO ends that episode. RFC 5681 §3.1 as
    // the default applies it: the episode's smaller ssthresh stands, not half of FlightSize.
    // A SACK sender then recovers in an episode of the timeout's own.
    let windows: Vec<Call> = calls
        .iter()
        .copied()
        .filter(|c| !matches!(c, Call::Grow(_) | Call::Cwnd(_)))
        .collect();
    let Some(
        [Call::Congestion(CongestionCause::DuplicateAcks, episode_base), Call::Start(_), Call::Congestion(CongestionCause::Timeout, base), Call::Ssthresh(kept), Call::End { by_timeout: true }, Call::Start(CongestionCause::Timeout), Call::End { by_timeout: false }],
    ) = windows.last_chunk::<7>()
    else {
        panic!("{windows:?}")
    };
    assert_eq!(*kept, episode_base / 2);
    assert!(*kept < base / 2);
    let timeouts = calls
        .iter()
        .filter(|c| matches!(c, Call::Congestion(CongestionCause::Timeout, _)))
        .count();
    // The SYN's timeout counts in the statistics; the controller hears only the data's.
    assert_eq!(timeouts as u64 + 1, st.timeouts);
}

/// With RACK (RFC 8985) the congestion event and the episode say so.
#[test]
fn rack_loss_is_the_cause_the_plugin_hears() {
    let c = TcpConfig {
        rack: true,
        tlp: true,
        ..cfg(RecoveryAlgorithm::Sack)
    };
    let (mut n, log) = net_with_plugin(c, 100 * MSS);
    n.drop = drop_first(&[30], n.iss_a);
    n.run_until(ms(60_000));
    assert!(n.finished());
    let starts: Vec<Call> = take(&log)
        .into_iter()
        .filter(|c| matches!(c, Call::Start(_) | Call::Congestion(..)))
        .collect();
    assert_eq!(
        starts
            .iter()
            .map(|c| match c {
                Call::Start(k) | Call::Congestion(k, _) => *k,
                _ => unreachable!(),
            })
            .collect::<Vec<_>>(),
        [CongestionCause::Rack, CongestionCause::Rack]
    );
}

/// `tcp.undo`: a spurious fast retransmission (packet 1 only late, its retransmission
/// reported duplicate by a D-SACK, RFC 3708) reaches the plugin as `on_undo` with the window
/// of before the reduction, and the plugin's own response decides the window.
#[test]
fn the_plugin_hears_an_undo_and_chooses_the_window() {
    let log = Log::default();
    let factory = Arc::new(Factory { log: log.clone() });
    let c = TcpConfig {
        initial_cwnd_segments: 10,
        undo: true,
        ..cfg(RecoveryAlgorithm::Sack)
    };
    let mut s =
        Injector::established_as(c, true, 40 * MSS as usize, |c| c.with_controller(factory));
    s.sent();
    s.lose_first_of_flight();
    s.ack(210, 11, &[]);
    use Call::*;
    use CongestionCause::DuplicateAcks;
    let calls: Vec<Call> = take(&log)
        .into_iter()
        .filter(|c| !matches!(c, Grow(_) | Connected { .. }))
        .collect();
    assert_eq!(
        calls,
        [
            Congestion(DuplicateAcks, 10 * MSS),
            Start(DuplicateAcks),
            End { by_timeout: false }
        ]
    );
    assert_eq!(s.c.cwnd(), 5 * MSS);
    s.ack(300, 11, &[(1, 1)]);
    assert_eq!(take(&log), [Undo(UndoCause::Dsack, 10 * MSS)]);
    assert_eq!(s.c.cwnd(), 7_500);
}
