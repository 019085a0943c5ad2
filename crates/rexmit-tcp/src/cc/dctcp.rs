//! DCTCP, Data Center TCP (RFC 8257): the sender keeps α, an estimate of the fraction of its
//! data that met congestion, updated once per window of data from the bytes acknowledged by
//! ACKs with ECE (§3.3 steps 1–9: α ← (1 − g)·α + g·F), and answers an echo by cwnd ←
//! cwnd·(1 − α/2) (§3.3 step 10) instead of halving — at most once per window of data, as the
//! sender's ECN rules allow one reduction per window (RFC 3168 §6.1.2; `crate::ecn`). Growth,
//! losses and timeouts are Reno's (§3.4: "a DCTCP sender MUST deal with loss episodes in the
//! same way as conventional TCP").
//!
//! Receivers echo every mark (§3.2, `ecn::Feedback::Dctcp`), so DCTCP needs ECN: it is
//! registered with that feedback, and `tcp.ecn` must be "on" (`TcpConfig` refuses otherwise).
//! Its parameters are ns-3.44's TcpDctcp defaults: g = 1/16 (DctcpShiftG; RFC 8257 §4.2
//! suggests 1/16) and α = 1 at the start (DctcpAlphaOnInit; §3.3 step 1 leaves it to the
//! implementation, Linux starts at 1 too).

use super::declared::Declared;
use super::registry::{CcPlugin, ParamSpec};
use super::window::window_in_field_w;
use super::{AckSample, CongestionControl, CongestionEvent, EcnEcho, Window};
use crate::ecn::Feedback;
use std::sync::Arc;

pub(crate) fn plugin() -> Arc<dyn CcPlugin> {
    Declared {
        name: "dctcp",
        doc: "DCTCP (RFC 8257): cwnd·(1 − α/2) per window with ECN marks; needs ecn = \"on\"",
        params: vec![
            ParamSpec::new(
                "g",
                "weight of a window's marked fraction in α",
                0.0625,
                0.0,
                1.0,
            )
            .open_min(),
            ParamSpec::new("alpha_init", "α before the first window", 1.0, 0.0, 1.0),
        ],
        build: |w, v| Box::new(Dctcp::new(w, v[0], v[1])),
    }
    .registered_with_ecn(Feedback::Dctcp)
}

#[derive(Clone, Debug)]
pub struct Dctcp {
    w: Window,
    g: f64,
    /// DCTCP.Alpha.
    alpha: f64,
    /// DCTCP.WindowEnd: the observation window ends when snd_una reaches it.
    window_end: u64,
    /// DCTCP.BytesAcked and DCTCP.BytesMarked of the current observation window.
    bytes_acked: u64,
    bytes_marked: u64,
}

impl Dctcp {
    pub fn new(w: Window, g: f64, alpha_init: f64) -> Self {
        Dctcp {
            w,
            g,
            alpha: alpha_init,
            // §3.3: WindowEnd starts at SND.NXT, the first data byte (offset 1): the first ACK
            // of data ends the first window.
            window_end: 1,
            bytes_acked: 0,
            bytes_marked: 0,
        }
    }

    /// DCTCP.Alpha.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }
}

impl CongestionControl for Dctcp {
    /// RFC 8257 §3.3 steps 3–9, on every ACK.
    fn on_delivery(&mut self, ack: &AckSample) {
        self.bytes_acked += ack.acked;
        if ack.ece {
            self.bytes_marked += ack.acked;
        }
        // Step 6: the window ends once snd_una reaches WindowEnd, every byte outstanding at
        // its start acknowledged (as Linux's dctcp_update_alpha and ns-3's TcpDctcp compare).
        if ack.snd_una < self.window_end {
            return;
        }
        if self.bytes_acked > 0 {
            let f = self.bytes_marked as f64 / self.bytes_acked as f64;
            self.alpha = (1.0 - self.g) * self.alpha + self.g * f;
        }
        self.window_end = ack.snd_nxt;
        self.bytes_acked = 0;
        self.bytes_marked = 0;
    }
    /// RFC 5681 growth, as Reno.
    fn on_ack(&mut self, ack: &AckSample) {
        self.w.grow(ack.acked, 1.0);
    }
    /// §3.4: a loss halves the window as Reno.
    fn on_congestion_event(&mut self, ev: &CongestionEvent) {
        self.w.decrease(ev.base, 0.5);
    }
    /// §3.3 step 10: cwnd ← cwnd·(1 − α/2), ssthresh with it (at least 2 SMSS).
    fn on_ecn_echo(&mut self, _ev: &EcnEcho) {
        self.w.decrease(self.w.cwnd, 1.0 - self.alpha / 2.0);
    }
    window_in_field_w!();
    fn name(&self) -> &str {
        "dctcp"
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_events::sample;
    use super::*;
    use rexmit_time::Time;

    const SMSS: u64 = 1000;

    fn dctcp(alpha: f64) -> Dctcp {
        Dctcp::new(
            Window::new(20 * SMSS, u64::MAX / 2, SMSS),
            1.0 / 16.0,
            alpha,
        )
    }

    /// One ACK of `acked` bytes leaving snd_una at `una`, snd_nxt at `nxt`.
    fn ack(c: &mut Dctcp, acked: u64, ece: bool, una: u64, nxt: u64) {
        c.on_delivery(&AckSample {
            ece,
            snd_una: una,
            snd_nxt: nxt,
            ..sample(0, acked)
        });
    }

    #[test]
    fn alpha_after_a_window_with_half_its_bytes_marked() {
        let mut c = dctcp(1.0);
        // The first ACK ends the first observation window (WindowEnd = SND.NXT at the start)
        // with nothing marked: α = 15/16; the next window ends when snd_una reaches 10 001.
        ack(&mut c, SMSS, false, 1 + SMSS, 10_001);
        assert_eq!(c.alpha(), 0.9375);
        let mut c = dctcp(1.0);
        c.window_end = 10_001;
        // Ten segments, the first five acknowledged with ECE: F = 0.5, α = 15/16 + 1/32.
        for i in 1..=10 {
            ack(&mut c, SMSS, i <= 5, 1 + i * SMSS, 20_001);
            if i < 10 {
                assert_eq!(c.alpha(), 1.0, "no update before the window ends");
            }
        }
        assert_eq!(c.alpha(), 0.96875);
        assert_eq!(
            (c.window_end, c.bytes_acked, c.bytes_marked),
            (20_001, 0, 0)
        );
    }

    #[test]
    fn an_echo_reduces_by_half_alpha_and_a_loss_halves() {
        let echo = EcnEcho {
            now: Time::ZERO,
            base: 30 * SMSS,
            smss: SMSS,
        };
        // α = 0.25: cwnd 20 → 17.5 segments, whatever the base.
        let mut c = dctcp(0.25);
        c.on_ecn_echo(&echo);
        assert_eq!((c.window(), c.ssthresh()), (17_500, 17_500));
        // α = 1 halves (RFC 3168's response); α = 0 leaves cwnd and ends slow start.
        let mut c = dctcp(1.0);
        c.on_ecn_echo(&echo);
        assert_eq!(c.window(), 10_000);
        let mut c = dctcp(0.0);
        c.on_ecn_echo(&echo);
        assert_eq!((c.window(), c.ssthresh()), (20_000, 20_000));
        // Never below 2 SMSS.
        let mut c = Dctcp::new(Window::new(2 * SMSS, u64::MAX / 2, SMSS), 0.0625, 1.0);
        c.on_ecn_echo(&echo);
        assert_eq!(c.window(), 2 * SMSS);
        // A loss is Reno's: half the base.
        let mut c = dctcp(0.1);
        c.on_congestion_event(&super::super::test_events::loss(
            Time::ZERO,
            16 * SMSS,
            SMSS,
        ));
        assert_eq!(c.window(), 8 * SMSS);
    }
}
