//! ECN in TCP (RFC 3168 §6.1): what the handshake offers and accepts, how the receiver echoes
//! Congestion Experienced marks — RFC 3168 §6.1.3 (ECE on every ACK until a CWR arrives) or
//! DCTCP's (RFC 8257 §3.2: ECE mirrors the CE state of the data acknowledged) — and the
//! sender's half: when an echo may reduce the window (at most once per window of data,
//! §6.1.2), and the CWR flag on the first new data segment after a reduction.
//!
//! Owns: the echo state, the reduction point and the pending CWR. Does not own the window (the
//! controller reduces it, `CongestionControl::on_ecn_echo`), the segments' flags (the
//! connection sets them from these answers) nor the IP header: the adapter reads the codepoint
//! of an arriving packet into `Connection::handle_segment_ecn` and writes the one
//! `Connection::poll_transmit_ecn` gives.

pub use rexmit_wire::Ecn;
use rexmit_wire::{TcpFlags, TcpSegment};

/// How a receiver echoes CE marks (the controller of the connection decides:
/// `registry::CcPlugin::ecn_feedback`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feedback {
    /// RFC 3168 §6.1.3: after a CE mark, ECE on every ACK until a segment with CWR arrives.
    Rfc3168,
    /// RFC 8257 §3.2: ECE set exactly when the last data segment was CE, an immediate ACK
    /// whenever that changes (and, for data not yet acknowledged, first an ACK with the old
    /// state: the "two ACKs" the RFC allows, so the sender counts every mark).
    Dctcp,
}

/// RFC 3168 §6.1.1: an ECN-setup SYN carries ECE and CWR.
pub fn is_setup_syn(seg: &TcpSegment) -> bool {
    seg.flags.contains(TcpFlags::ECE | TcpFlags::CWR)
}

/// RFC 3168 §6.1.1: an ECN-setup SYN-ACK carries ECE but not CWR.
pub fn is_setup_syn_ack(seg: &TcpSegment) -> bool {
    seg.flags.contains(TcpFlags::ECE) && !seg.flags.contains(TcpFlags::CWR)
}

/// The receiver's echo of CE marks, once ECN is negotiated.
#[derive(Clone, Debug)]
pub struct Echo {
    feedback: Feedback,
    /// RFC 3168: a CE mark arrived and no CWR since. DCTCP: DCTCP.CE, the CE state of the
    /// last data segment.
    ece: bool,
}

/// What a data segment's codepoint asks of the receiver (`Echo::on_data`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EchoChange {
    /// DCTCP: the CE state changed, so the data received before this segment is acknowledged
    /// first with the old state (if any is unacknowledged), then this segment at once.
    pub flipped: bool,
}

impl Echo {
    pub fn new(feedback: Feedback) -> Self {
        Echo {
            feedback,
            ece: false,
        }
    }

    /// How our ACKs echo marks: DCTCP's feedback also means our controller needs ECN.
    pub fn feedback(&self) -> Feedback {
        self.feedback
    }

    /// Whether our ACKs carry ECE now.
    pub fn ece(&self) -> bool {
        self.ece
    }

    /// A data segment arrived with codepoint `ecn` and flags `flags`.
    pub fn on_data(&mut self, ecn: Ecn, flags: TcpFlags) -> EchoChange {
        let ce = ecn == Ecn::Ce;
        match self.feedback {
            Feedback::Rfc3168 => {
                // RFC 3168 §6.1.3: CWR ends the echo, then a CE mark in this very segment
                // starts it again.
                if flags.contains(TcpFlags::CWR) {
                    self.ece = false;
                }
                self.ece |= ce;
                EchoChange::default()
            }
            Feedback::Dctcp => {
                // RFC 8257 §3.2 steps 1 and 2 (step 3: otherwise nothing changes).
                let flipped = ce != self.ece;
                self.ece = ce;
                EchoChange { flipped }
            }
        }
    }
}

/// The sender's reaction to echoes: whether one may reduce the window, and the CWR flag.
#[derive(Clone, Debug, Default)]
pub struct Reaction {
    /// ECN was negotiated: echoes count and new data carries ECT(0).
    active: bool,
    /// snd_max at the last window reduction of any kind: an echo arriving before snd_una
    /// passes it is for data of the window already reduced for (RFC 3168 §6.1.2).
    point: u64,
    /// The last reduction answered an echo (not a loss), so a loss in its window is the same
    /// congestion (§6.1.2: "reduced only once in response to a series of dropped and/or CE
    /// packets from a single window of data").
    by_echo: bool,
    /// §6.1.2: a reduction happened and no new data segment has carried CWR yet.
    cwr_pending: bool,
}

impl Reaction {
    /// The handshake negotiated ECN.
    pub fn activate(&mut self) {
        self.active = true;
    }

    pub fn active(&self) -> bool {
        self.active
    }

    /// Whether an ACK with ECE leaving snd_una at `snd_una` reduces the window: not during a
    /// loss recovery (its reduction covers the window), and only once snd_una has passed the
    /// data outstanding at the last reduction (RFC 3168 §6.1.2: once per window of data).
    pub fn reduces(&self, snd_una: u64, in_recovery: bool) -> bool {
        self.active && !in_recovery && snd_una > self.point
    }

    /// The window was reduced for an echo, with `snd_max` outstanding.
    pub fn on_echo_reduction(&mut self, snd_max: u64) {
        self.point = snd_max;
        self.by_echo = true;
        self.cwr_pending = self.active;
    }

    /// The window was reduced for a loss (fast retransmit, timeout, TLP repair) with
    /// `snd_max` outstanding: RFC 3168 §6.1.2 "reduces its congestion window for any reason"
    /// — the next new data carries CWR too.
    pub fn on_loss_reduction(&mut self, snd_max: u64) {
        self.point = self.point.max(snd_max);
        self.by_echo = false;
        self.cwr_pending = self.active;
    }

    /// Whether a loss detected with snd_una at `snd_una` is in the window an echo already
    /// reduced for (its lost segment was sent before that reduction): no second decrease.
    pub fn covers_loss(&self, snd_una: u64) -> bool {
        self.active && self.by_echo && snd_una < self.point
    }

    /// A new data segment is about to go: whether it carries CWR (and the flag is spent).
    pub fn take_cwr(&mut self) -> bool {
        std::mem::take(&mut self.cwr_pending)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3168_echo_holds_until_cwr_and_restarts_on_ce_in_the_same_segment() {
        let mut e = Echo::new(Feedback::Rfc3168);
        e.on_data(Ecn::Ect0, TcpFlags::ACK);
        assert!(!e.ece());
        e.on_data(Ecn::Ce, TcpFlags::ACK);
        e.on_data(Ecn::Ect0, TcpFlags::ACK);
        assert!(e.ece(), "§6.1.3: ECE continues after non-CE data");
        e.on_data(Ecn::Ect0, TcpFlags::ACK | TcpFlags::CWR);
        assert!(!e.ece());
        e.on_data(Ecn::Ce, TcpFlags::ACK | TcpFlags::CWR);
        assert!(e.ece(), "CWR first, then the segment's own CE mark");
    }

    #[test]
    fn dctcp_echo_mirrors_the_ce_state_and_reports_each_change() {
        let mut e = Echo::new(Feedback::Dctcp);
        let steps = [
            (Ecn::Ect0, false, false),
            (Ecn::Ce, true, true),
            (Ecn::Ce, true, false),
            (Ecn::Ect0, false, true),
        ];
        for (ecn, ece, flipped) in steps {
            assert_eq!(e.on_data(ecn, TcpFlags::ACK), EchoChange { flipped });
            assert_eq!(e.ece(), ece);
        }
        // CWR means nothing to a DCTCP receiver.
        e.on_data(Ecn::Ce, TcpFlags::ACK);
        e.on_data(Ecn::Ce, TcpFlags::ACK | TcpFlags::CWR);
        assert!(e.ece());
    }

    #[test]
    fn one_reduction_per_window_and_a_loss_in_that_window_is_not_another() {
        let mut r = Reaction::default();
        assert!(!r.reduces(10, false), "not negotiated");
        r.activate();
        assert!(r.reduces(10, false));
        assert!(!r.reduces(10, true), "in loss recovery");
        r.on_echo_reduction(50);
        assert!(r.take_cwr() && !r.take_cwr());
        assert!(!r.reduces(50, false), "snd_una has not passed the point");
        assert!(r.covers_loss(40));
        assert!(r.reduces(51, false));
        assert!(!r.covers_loss(50));
        r.on_loss_reduction(80);
        assert!(!r.covers_loss(60), "only an echo's window covers a loss");
        assert!(r.take_cwr(), "§6.1.2: CWR after a loss reduction too");
        assert!(!r.reduces(80, false) && r.reduces(81, false));
    }
}
