//! Congestion control behind one trait, `CongestionControl`, shaped as quinn-proto's
//! `congestion::Controller` and s2n-quic's `CongestionController`: the controller owns its
//! window. The sender asks (`window`, `ssthresh`, `pacing_rate`) and tells (events: the
//! handshake, ACKs, congestion events with their cause, timeouts, recovery entry and exit, and
//! the named window changes loss recovery makes); it never writes a controller's state. Which
//! event comes when, and in which order, is in docs/congestion_control.md.
//!
//! Owns: each built-in algorithm's cwnd and ssthresh (one file each, sharing the arithmetic of
//! `window.rs`), the RFC default of every loss-recovery window change (the trait's default
//! methods), and the factories that build controllers. Does not own: loss detection, the
//! recovery episode or PRR's accounting (`recovery`), nor when each event is raised (`sender`).

mod aimd;
mod bbr;
mod bbr_lt;
pub mod bic;
mod cubic;
pub mod dctcp;
mod declared;
pub mod defaults;
mod delay;
mod events;
pub mod highspeed;
pub mod htcp;
pub mod hybla;
pub mod hystart;
pub mod illinois;
pub mod ledbat;
pub mod lp;
mod minmax;
mod paced;
pub mod registry;
mod reno;
pub mod scalable;
pub mod vegas;
pub mod veno;
mod westwood;
mod window;
pub mod yeah;

pub use aimd::{Aimd, Law};
pub use bbr::{Bbr, Mode as BbrMode};
pub use cubic::Cubic;
pub use events::{
    AckSample, CaState, CongestionCause, CongestionEvent, Connected, EcnEcho, IdleRestart, RateAck,
    RecoveryEnd, RecoveryStart, Timeout, TxStart, Undo, UndoCause,
};
pub use paced::Paced;
pub use reno::reno;
pub use westwood::Westwood;
pub use window::Window;

/// Proof that a write of cwnd or ssthresh comes from one of `CongestionControl`'s own default
/// methods. Only code in this module can make one, so the sender — or anything else holding
/// a controller — cannot call `store_cwnd` / `store_ssthresh`: it tells events, and the
/// controller decides. An implementation receives it and ignores it.
#[derive(Debug)]
pub struct OwnWrite(());

const OWN: OwnWrite = OwnWrite(());

/// A congestion controller. All quantities are bytes. Object-safe: the sender holds a
/// `Box<dyn CongestionControl>`, built by a `ControllerFactory`.
///
/// A new controller must say what its window is (`window`, `ssthresh`, `name`), where the
/// default methods store a window (`store_cwnd`, `store_ssthresh`), how it grows (`on_ack`) and
/// how it responds to congestion (`on_congestion_event`); every other event has a default:
/// nothing for the notifications, RFC 5681 / 6582 / 6937 behaviour for the window changes of
/// loss recovery and the timeout.
pub trait CongestionControl: std::fmt::Debug + Send {
    // ---- What the sender asks ----

    /// The congestion window, cwnd.
    fn window(&self) -> u64;
    /// The slow-start threshold (reported in statistics; the default window changes of loss
    /// recovery deflate to it).
    fn ssthresh(&self) -> u64;
    /// Pace transmissions at this many bytes per second; `None`: send as the window allows.
    fn pacing_rate(&self) -> Option<u64> {
        None
    }
    /// Whether the sender should keep delivery-rate samples and call `on_rate_ack`. Asked
    /// once, when the handshake completes.
    fn wants_rate_samples(&self) -> bool {
        false
    }
    fn name(&self) -> &str;

    // ---- Where the default methods store a window ----

    /// Store cwnd (only the trait's default methods can call this: `OwnWrite`).
    fn store_cwnd(&mut self, cwnd: u64, _: OwnWrite);
    /// Store ssthresh (only the default `on_timeout` calls this).
    fn store_ssthresh(&mut self, ssthresh: u64, _: OwnWrite);

    // ---- The connection ----

    /// The handshake completed, with its RTT estimates.
    fn on_connected(&mut self, _ev: &Connected) {}
    /// The SYN or SYN-ACK was retransmitted (raised right after `on_connected`). RFC 5681 §3.1:
    /// "the initial window used by a sender after a correctly transmitted SYN MUST be one
    /// segment". Default: cwnd = 1 SMSS.
    fn on_lost_syn(&mut self, smss: u64) {
        defaults::on_lost_syn(self, smss)
    }
    /// The connection restarts after an idle period (`tcp.idle_restart`: RFC 5681 §4.1,
    /// Linux tcp_cwnd_restart), before the first segment goes. Default: ssthresh = max(ssthresh,
    /// floor), cwnd = min(cwnd, RW).
    fn on_idle_restart(&mut self, ev: &IdleRestart) {
        defaults::on_idle_restart(self, ev)
    }
    /// New data goes out with nothing outstanding (Linux's CA_EVENT_TX_START), after the idle
    /// restart if any. CUBIC moves its epoch (`cubic_idle_epoch`).
    fn on_tx_start(&mut self, _ev: &TxStart) {}

    // ---- ACKs ----

    /// An ACK of new data or a duplicate ACK, before loss recovery handles it: estimators
    /// (Westwood+'s bandwidth, HyStart's RTT samples).
    fn on_delivery(&mut self, _ack: &AckSample) {}
    /// New data was cumulatively acknowledged and loss recovery lets the window grow (outside
    /// a recovery episode, or in the slow start after a timeout): grow cwnd (RFC 5681 §3.1).
    fn on_ack(&mut self, ack: &AckSample);
    /// Every ACK that does not move snd_una backwards, after loss recovery handled it, with
    /// its delivery-rate sample (only if `wants_rate_samples`; as Linux calls cong_control).
    fn on_rate_ack(&mut self, _ack: &RateAck) {}

    // ---- Congestion ----

    /// Loss detected (duplicate ACKs, SACK, RACK), or a tail-loss probe repaired one: set
    /// ssthresh and reduce cwnd (RFC 5681 §3.1 eq. 4, §3.2 step 2: ssthresh = max(base/2,
    /// 2·SMSS), cwnd = ssthresh; each controller has its own decrease).
    fn on_congestion_event(&mut self, ev: &CongestionEvent);
    /// Retransmission timeout. Default: the congestion event's decrease for ssthresh (RFC 5681
    /// §3.1 eq. 4; cause `Timeout`), the ssthresh RFC 5681 §3.1 lets stand
    /// (`Timeout::ssthresh_to_keep`), then cwnd = the loss window LW = 1 SMSS.
    fn on_timeout(&mut self, ev: &Timeout) {
        defaults::on_timeout(self, ev)
    }
    /// The peer echoed a congestion mark (ECE; RFC 3168 §6.1.2), at most once per window of
    /// data and never during a loss recovery. Default: as a loss without a retransmission —
    /// the congestion event's decrease (cause `EcnEcho`), cwnd at most ssthresh.
    fn on_ecn_echo(&mut self, ev: &EcnEcho) {
        defaults::on_ecn_echo(self, ev)
    }
    /// A loss-recovery episode began: a fast retransmit (right after its `on_congestion_event`,
    /// before the window inflation) or, for SACK, the timeout's (after `on_timeout`).
    fn on_recovery_start(&mut self, _ev: &RecoveryStart) {}
    /// The loss-recovery episode ended (after the deflation that ends it, if any).
    fn on_recovery_end(&mut self, _ev: &RecoveryEnd) {}
    /// The last reduction was spurious (`tcp.undo`, `tcp.frto`): before `on_recovery_end` if
    /// the undo ends the episode. Default (RFC 4015's response, as Linux's
    /// tcp_undo_cwnd_reduction with tcp_reno_undo_cwnd): cwnd = max(cwnd, prior cwnd),
    /// ssthresh = max(ssthresh, prior ssthresh).
    fn on_undo(&mut self, ev: &Undo) {
        defaults::on_undo(self, ev)
    }

    // ---- The window changes of loss recovery (defaults: the RFC's) ----

    /// Fast recovery begins (Reno, NewReno), after the congestion event: RFC 5681 §3.2 step 3,
    /// "set cwnd to ssthresh plus 3*SMSS" — `dupacks` · SMSS, DupThresh duplicates having
    /// arrived.
    fn on_recovery_inflate(&mut self, dupacks: u32, smss: u64) {
        defaults::on_recovery_inflate(self, dupacks, smss)
    }
    /// A further duplicate ACK in fast recovery: RFC 5681 §3.2 step 4 and RFC 6582 §3.2 step 4,
    /// cwnd += SMSS.
    fn on_recovery_dupack(&mut self, smss: u64) {
        defaults::on_recovery_dupack(self, smss)
    }
    /// Fast recovery ends: cwnd = ssthresh (RFC 5681 §3.2 step 6; RFC 6582 §3.2 step 3 option
    /// (2) at the full ACK; RFC 6937 §3 at the end of PRR).
    fn on_recovery_deflate(&mut self) {
        defaults::on_recovery_deflate(self)
    }
    /// A partial ACK in NewReno recovery acknowledged `acked` bytes: RFC 6582 §3.2 step 5,
    /// "deflate the congestion window by the amount of new data acknowledged", add back one
    /// SMSS if at least one SMSS was acknowledged; never below one SMSS.
    fn on_partial_ack(&mut self, acked: u64, smss: u64) {
        defaults::on_partial_ack(self, acked, smss)
    }
    /// An ACK during SACK recovery with PRR (RFC 6937 §3, computed by `recovery::prr` from this
    /// controller's ssthresh): cwnd = pipe + sndcnt.
    fn on_prr(&mut self, pipe: u64, sndcnt: u64) {
        defaults::on_prr(self, pipe, sndcnt)
    }
    /// Tahoe's fast retransmit, after the congestion event: slow start again from cwnd =
    /// 1 SMSS, resending everything after the lost segment (go-back-N).
    fn on_go_back(&mut self, smss: u64) {
        defaults::on_go_back(self, smss)
    }
}

/// Builds a controller for a connection (quinn-proto's `ControllerFactory`): the sender asks
/// when it is created and again when the handshake changes the segment size, before any
/// event reaches the controller.
pub trait ControllerFactory: std::fmt::Debug + Send + Sync {
    fn build(&self, p: &CcParams) -> Box<dyn CongestionControl>;
}

/// A built-in with its default parameters.
impl ControllerFactory for CcAlgorithm {
    fn build(&self, p: &CcParams) -> Box<dyn CongestionControl> {
        let plugin = registry::lookup(rexmit_options::Choice::name(*self))
            .expect("built-ins are always registered");
        let values = registry::resolve(plugin.as_ref(), &registry::ParamMap::default())
            .expect("a built-in's defaults are in its ranges");
        CcAlgorithm::build(self, p, &values)
    }
}

/// The built-in controllers, registered as any plugin is (`registry::register`): one line each.
pub(crate) fn builtins() -> Vec<std::sync::Arc<dyn registry::CcPlugin>> {
    use registry::{Builtin, ParamSpec};
    let b = |alg, doc, params| std::sync::Arc::new(Builtin { alg, doc, params }) as _;
    vec![
        b(
            CcAlgorithm::Reno,
            "RFC 5681 AIMD: a = 1 segment per RTT, b = 1/2",
            vec![],
        ),
        b(
            CcAlgorithm::Aimd,
            "Generalised AIMD (seed 003): a segments per RTT, cwnd ← (1 − b)·cwnd at a loss",
            vec![
                ParamSpec::new(
                    "a",
                    "additive increase, segments per RTT",
                    1.0,
                    0.0,
                    AIMD_A_MAX,
                )
                .open_min(),
                ParamSpec::new("b", "multiplicative decrease fraction", 0.5, 0.0, 1.0)
                    .open_min()
                    .open_max(),
            ],
        ),
        b(
            CcAlgorithm::Scalable,
            "Scalable TCP (Kelly 2003): a = 0.01 per ACK, b = 0.125",
            vec![],
        ),
        b(CcAlgorithm::HighSpeed, "HighSpeed TCP (RFC 3649)", vec![]),
        b(CcAlgorithm::Cubic, "CUBIC (RFC 9438)", vec![]),
        b(
            CcAlgorithm::Westwood,
            "Westwood+ (seed 001): ssthresh from the bandwidth estimate",
            vec![],
        ),
        b(
            CcAlgorithm::Bbr,
            "BBR v1 as Linux's tcp_bbr (paced)",
            vec![],
        ),
        vegas::plugin(),
        veno::plugin(),
        illinois::plugin(),
        htcp::plugin(),
        hybla::plugin(),
        yeah::plugin(),
        bic::plugin(),
        lp::plugin(),
        ledbat::plugin(),
        dctcp::plugin(),
    ]
}

/// The largest additive increase of generalised AIMD (segments per RTT; seed 003's a).
pub const AIMD_A_MAX: f64 = 1000.0;

rexmit_options::choices! {
    /// The controllers `TcpConfig` can select.
    pub enum CcAlgorithm {
        /// RFC 5681 AIMD: a = 1 segment per RTT, b = 1/2.
        Reno = "reno",
        /// Generalised AIMD of seed 003: increase `a` segments per RTT, decrease by fraction
        /// `b` (`cc_params`).
        Aimd = "aimd",
        /// Scalable TCP (Kelly 2003): a = 0.01 per ACK, b = 0.125.
        Scalable = "scalable",
        /// HighSpeed TCP, RFC 3649.
        HighSpeed = "highspeed",
        /// CUBIC, RFC 9438.
        Cubic = "cubic",
        /// Westwood+ (seed 001): ssthresh from the bandwidth estimate after a loss.
        Westwood = "westwood",
        /// BBR v1 as Linux's tcp_bbr (paces its transmissions).
        Bbr = "bbr",
    }
}

/// What a controller is built with besides its algorithm (from `TcpConfig`).
#[derive(Clone, Copy, Debug)]
pub struct CcParams {
    pub initial_cwnd: u64,
    pub initial_ssthresh: u64,
    pub smss: u64,
    pub byte_counting: bool,
    /// `WindowUnit::Segments`: decreases round down to whole segments.
    pub whole_segments: bool,
    pub slow_start_limit: u64,
    /// CUBIC: HyStart (`hystart.rs`).
    pub hystart: bool,
    /// CUBIC: HyStart's detectors, Linux's hystart_detect bits (1 ACK train, 2 delay).
    pub hystart_detect: u8,
    /// CUBIC: α_cubic = 1 once W_est reaches cwnd_prior (RFC 9438 §4.3).
    pub cubic_alpha_switch: bool,
    /// CUBIC: the epoch leaves out idle time (RFC 9438 §5.8).
    pub cubic_idle_epoch: bool,
}

impl CcAlgorithm {
    /// The controller, with its parameters' `values` in the order its `registry::Builtin`
    /// declares them.
    pub fn build(&self, p: &CcParams, values: &[f64]) -> Box<dyn CongestionControl> {
        let w = Window::from_params(p);
        match *self {
            CcAlgorithm::Reno => Box::new(reno(w)),
            CcAlgorithm::Aimd => Box::new(Aimd::new(
                w,
                Law::Constant {
                    a: values[0],
                    b: values[1],
                },
            )),
            CcAlgorithm::Scalable => Box::new(Aimd::new(w, Law::Scalable)),
            CcAlgorithm::HighSpeed => Box::new(Aimd::new(w, Law::HighSpeed)),
            CcAlgorithm::Cubic => Box::new(
                Cubic::with_options(w, p.hystart, p.cubic_alpha_switch)
                    .with_idle_epoch(p.cubic_idle_epoch)
                    .with_hystart_detect(p.hystart_detect),
            ),
            CcAlgorithm::Westwood => Box::new(Westwood::new(w)),
            CcAlgorithm::Bbr => Box::new(Bbr::new(w)),
        }
    }
}

#[cfg(test)]
pub(crate) mod test_events {
    use super::*;
    use rexmit_time::{Duration, Time};

    /// A congestion event from `base` (duplicate ACKs).
    pub fn loss(now: Time, base: u64, smss: u64) -> CongestionEvent {
        CongestionEvent {
            now,
            cause: CongestionCause::DuplicateAcks,
            base,
            smss,
        }
    }

    /// A first timeout outside recovery from `base` (nothing of the old ssthresh is kept).
    pub fn timeout(now: Time, base: u64, smss: u64) -> Timeout {
        Timeout {
            now,
            base,
            smss,
            repeated: false,
            in_recovery: false,
            prior_ssthresh: u64::MAX,
            lost_total: 0,
        }
    }

    pub fn sample(now_ms: u64, acked: u64) -> AckSample {
        AckSample {
            now: Time::from_millis(now_ms),
            acked,
            delivered: acked,
            srtt: Some(Duration::from_millis(100)),
            min_rtt: Some(Duration::from_millis(100)),
            rtt: Some(Duration::from_millis(100)),
            snd_una: 0,
            snd_nxt: 0,
            ece: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::test_events::timeout;
    use super::*;
    use rexmit_time::{Duration, Time};

    const SMSS: u64 = 1000;

    /// Only what the trait requires: every other method is its default.
    #[derive(Debug)]
    struct Minimal {
        cwnd: u64,
        ssthresh: u64,
    }

    impl CongestionControl for Minimal {
        fn window(&self) -> u64 {
            self.cwnd
        }
        fn ssthresh(&self) -> u64 {
            self.ssthresh
        }
        fn name(&self) -> &str {
            "minimal"
        }
        fn store_cwnd(&mut self, cwnd: u64, _: OwnWrite) {
            self.cwnd = cwnd;
        }
        fn store_ssthresh(&mut self, ssthresh: u64, _: OwnWrite) {
            self.ssthresh = ssthresh;
        }
        fn on_ack(&mut self, ack: &AckSample) {
            self.cwnd += ack.acked;
        }
        fn on_congestion_event(&mut self, ev: &CongestionEvent) {
            self.ssthresh = (ev.base / 2).max(2 * ev.smss);
            self.cwnd = self.ssthresh;
        }
    }

    fn at(cwnd: u64, ssthresh: u64) -> Minimal {
        Minimal { cwnd, ssthresh }
    }

    #[test]
    fn fast_recovery_defaults_inflate_and_deflate_as_rfc_5681_3_2() {
        let mut c = at(5_000, 5_000);
        c.on_recovery_inflate(3, SMSS); // step 3
        assert_eq!(c.window(), 8_000);
        c.on_recovery_dupack(SMSS); // step 4
        assert_eq!(c.window(), 9_000);
        c.on_recovery_deflate(); // step 6
        assert_eq!(c.window(), 5_000);
    }

    #[test]
    fn partial_ack_default_deflates_by_the_acked_amount_as_rfc_6582_3_2_step_5() {
        // At least one SMSS acknowledged: one SMSS added back.
        let mut c = at(9_000, 5_000);
        c.on_partial_ack(SMSS, SMSS);
        assert_eq!(c.window(), 9_000);
        c.on_partial_ack(2 * SMSS, SMSS);
        assert_eq!(c.window(), 8_000);
        // Less than one SMSS: none added back; never below one SMSS.
        c.on_partial_ack(500, SMSS);
        assert_eq!(c.window(), 7_500);
        let mut c = at(1_200, 5_000);
        c.on_partial_ack(900, SMSS);
        assert_eq!(c.window(), SMSS);
    }

    #[test]
    fn undo_default_restores_the_window_before_the_reduction() {
        let mut c = at(10_000, 5_000);
        c.on_congestion_event(&test_events::loss(Time::ZERO, 10_000, SMSS));
        assert_eq!((c.window(), c.ssthresh()), (5_000, 5_000));
        c.on_undo(&Undo {
            now: Time::ZERO,
            cause: UndoCause::Dsack,
            prior_cwnd: 10_000,
            prior_ssthresh: 8_000,
        });
        assert_eq!((c.window(), c.ssthresh()), (10_000, 8_000));
        // Never below what the window has become since.
        c.on_undo(&Undo {
            now: Time::ZERO,
            cause: UndoCause::Timestamps,
            prior_cwnd: 2_000,
            prior_ssthresh: 2_000,
        });
        assert_eq!((c.window(), c.ssthresh()), (10_000, 8_000));
    }

    #[test]
    fn prr_go_back_lost_syn_and_idle_restart_defaults() {
        let mut c = at(9_000, 5_000);
        c.on_prr(4_000, 1_500); // RFC 6937 §3: pipe + sndcnt
        assert_eq!(c.window(), 5_500);
        c.on_go_back(SMSS);
        assert_eq!(c.window(), SMSS);
        let mut c = at(10_000, 5_000);
        c.on_lost_syn(SMSS); // RFC 5681 §3.1
        assert_eq!(c.window(), SMSS);
        // RFC 5681 §4.1: cwnd no more than RW.
        let restart = |cwnd| {
            let mut c = at(cwnd, 5_000);
            c.on_idle_restart(&IdleRestart {
                now: Time::ZERO,
                idle: Duration::from_secs(2),
                restart_window: 4_000,
                ssthresh_floor: 0,
            });
            c.window()
        };
        assert_eq!((restart(10_000), restart(3_000)), (4_000, 3_000));
        assert_eq!(
            c.ssthresh(),
            5_000,
            "no default touches ssthresh but the timeout's"
        );
        // Linux tcp_cwnd_restart: ssthresh raised to the floor (3/4 of the old cwnd), never
        // lowered by it.
        let mut c = at(12_000, 5_000);
        let ev = IdleRestart {
            now: Time::ZERO,
            idle: Duration::from_secs(2),
            restart_window: 6_000,
            ssthresh_floor: 9_000,
        };
        c.on_idle_restart(&ev);
        assert_eq!((c.window(), c.ssthresh()), (6_000, 9_000));
        let mut c = at(12_000, 20_000);
        c.on_idle_restart(&ev);
        assert_eq!(c.ssthresh(), 20_000);
    }

    #[test]
    fn timeout_default_decreases_then_keeps_ssthresh_as_rfc_5681_3_1() {
        // First timeout outside recovery: the controller's decrease from FlightSize.
        let mut c = at(20_000, 30_000);
        c.on_timeout(&Timeout {
            prior_ssthresh: 30_000,
            ..timeout(Time::ZERO, 20_000, SMSS)
        });
        assert_eq!((c.window(), c.ssthresh()), (SMSS, 10_000));
        // Inside recovery (ssthresh 8 kB from the episode's decrease, FlightSize grown to
        // 24 kB by the data recovery sent): the smaller stands.
        let mut c = at(9_000, 8_000);
        c.on_timeout(&Timeout {
            in_recovery: true,
            prior_ssthresh: 8_000,
            ..timeout(Time::ZERO, 24_000, SMSS)
        });
        assert_eq!((c.window(), c.ssthresh()), (SMSS, 8_000));
        // A repeated timeout keeps ssthresh, even a smaller decrease.
        let mut c = at(SMSS, 8_000);
        c.on_timeout(&Timeout {
            repeated: true,
            prior_ssthresh: 8_000,
            ..timeout(Time::ZERO, 2_000, SMSS)
        });
        assert_eq!((c.window(), c.ssthresh()), (SMSS, 8_000));
    }

    #[test]
    fn factory_builds_the_selected_algorithm_for_the_params() {
        let p = CcParams {
            initial_cwnd: 4 * SMSS,
            initial_ssthresh: 64 * SMSS,
            smss: SMSS,
            byte_counting: false,
            whole_segments: false,
            slow_start_limit: SMSS,
            hystart: false,
            hystart_detect: 3,
            cubic_alpha_switch: true,
            cubic_idle_epoch: false,
        };
        let f: &dyn ControllerFactory = &CcAlgorithm::Cubic;
        let c = f.build(&p);
        assert_eq!(
            (c.name(), c.window(), c.ssthresh()),
            ("cubic", 4_000, 64_000)
        );
    }
}
