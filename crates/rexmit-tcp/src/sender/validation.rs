//! Growth only while the flow is cwnd-limited (`tcp.cwnd_limited_growth`): RFC 7661 §4.3 (a
//! window that is not used is not validated: "the sender SHOULD NOT increase cwnd" when it is
//! not cwnd-limited), as Linux decides it. Linux tracks, per window of data
//! (tcp_cwnd_validate, after each tcp_write_xmit that sent or found cwnd full), whether cwnd
//! was the limit and the most data outstanding; congestion avoidance and slow start grow only
//! when tcp_is_cwnd_limited: cwnd was the limit in the current window, or in slow start cwnd
//! is below twice the most data outstanding. The controller's `on_ack` is not called otherwise
//! (as for an ECN echo); `on_delivery` still is.

use super::Sender;

/// Linux's is_cwnd_limited, max_packets_out (in bytes) and cwnd_usage_seq.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CwndUse {
    limited: bool,
    max_outstanding: u64,
    /// snd_nxt when the window being tracked began; snd_una past it starts a new one.
    window_end: u64,
}

impl Sender {
    /// After a transmission decision: `sent` a segment, or nothing went. Linux
    /// tcp_cwnd_validate, called when something was sent or cwnd is full.
    pub(super) fn cwnd_validate(&mut self, sent: bool) {
        let Some(u) = self.cwnd_use else {
            return;
        };
        // cwnd is full: no further full-sized segment fits (Linux: in flight >= cwnd, packets).
        let limited = self.pipe() + self.smss > self.cc.window();
        if !sent && !limited {
            return;
        }
        let outstanding = self.snd_max - self.snd_una;
        if self.snd_una >= u.window_end
            || limited
            || (!u.limited && outstanding > u.max_outstanding)
        {
            self.cwnd_use = Some(CwndUse {
                limited,
                max_outstanding: outstanding,
                window_end: self.snd_nxt,
            });
        }
    }

    /// Whether an ACK of new data may grow the window (always, without the option).
    pub(super) fn cwnd_limited(&self) -> bool {
        let Some(u) = self.cwnd_use else {
            return true;
        };
        // Linux tcp_is_cwnd_limited; in slow start "ensure cwnd grows to twice what was
        // ACKed".
        u.limited
            || (self.cc.window() < self.cc.ssthresh() && self.cc.window() < 2 * u.max_outstanding)
    }
}
