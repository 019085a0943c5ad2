//! Restart after idle (`tcp.idle_restart`): RFC 5681 §4.1, "a TCP SHOULD set cwnd to no more
//! than RW before beginning transmission if the TCP has not sent data in an interval exceeding
//! the retransmission timeout", RW = min(IW, cwnd); or Linux's tcp_cwnd_restart (called from
//! tcp_event_data_sent when nothing is in flight and the last transmission is more than an RTO
//! old), which halves cwnd once per RTO of idleness down to RW and first raises ssthresh to
//! 3/4 of cwnd. The controller applies it (`on_idle_restart`). CUBIC's epoch over the idle
//! period (RFC 9438 §5.8) is not handled here.

use super::Sender;
use crate::cc::IdleRestart;
use crate::config::IdleRestartRule;
use rexmit_time::Time;

impl Sender {
    /// Before choosing what to send at `now`: restart the window if the connection has been
    /// idle (nothing outstanding, no data sent) for longer than the RTO and has data to send.
    pub(super) fn restart_after_idle(&mut self, now: Time) {
        if self.idle_restart == IdleRestartRule::Off
            || self.snd_una != self.snd_max
            || !self.has_unsent()
        {
            return;
        }
        let Some(last) = self.last_data_sent else {
            return;
        };
        let idle = now.saturating_since(last);
        let rto = self.rtt.rto();
        if idle <= rto {
            return;
        }
        let cwnd = self.cc.window();
        let rw = self.initial_window.min(cwnd);
        let (restart_window, ssthresh_floor) = match self.idle_restart {
            IdleRestartRule::Linux => {
                // tcp_cwnd_restart: while (delta -= rto) > 0 && cwnd > restart_cwnd, halve;
                // tcp_current_ssthresh outside recovery: max(ssthresh, cwnd/2 + cwnd/4).
                let mut w = cwnd;
                let mut left = idle.as_nanos();
                while left > rto.as_nanos() && w > rw {
                    left -= rto.as_nanos();
                    w >>= 1;
                }
                (w.max(rw), (cwnd >> 1) + (cwnd >> 2))
            }
            _ => (rw, 0),
        };
        // Once per idle period: the restart counts as the start of transmission.
        self.last_data_sent = Some(now);
        self.cc.on_idle_restart(&IdleRestart {
            now,
            idle,
            restart_window,
            ssthresh_floor,
        });
    }
}
