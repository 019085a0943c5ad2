//! Arming a core's single "next deadline" on the engine, whose timers cannot be cancelled.

use rexmit_net::Ctx;
use rexmit_time::Time;

/// Keeps at most one live engine event per core deadline, lazily: a deadline that moves later
/// (the retransmission timer restarted by every ACK, RFC 6298 §5.3) is not re-armed; the
/// earlier event fires, finds nothing due, and the caller re-arms for the deadline then in force.
/// A deadline that moves earlier is armed at once. The caller recognises early or stale expiries
/// by comparing with the core's current deadline.
#[derive(Default, Debug)]
pub struct DeadlineTimer {
    /// When the earliest engine event still pending for this core fires.
    armed: Option<Time>,
    /// The deadline the core gave at the last `arm` (its earliest then).
    wanted: Option<Time>,
}

impl DeadlineTimer {
    /// Make sure an engine event fires no later than `deadline` (if any).
    pub fn arm(&mut self, ctx: &mut Ctx<'_>, deadline: Option<Time>) {
        self.arm_with_token(ctx, deadline, 0);
    }

    /// `arm` for an agent that runs several cores, telling them apart by `token`.
    pub fn arm_with_token(&mut self, ctx: &mut Ctx<'_>, deadline: Option<Time>, token: u64) {
        self.wanted = deadline;
        if let Some(t) = deadline {
            let t = t.max(ctx.now);
            if self.armed.is_none_or(|a| t < a) {
                ctx.set_timer(t, token);
                self.armed = Some(t);
            }
        }
    }

    /// The deadline given at the last `arm`: the core's earliest, for a caller that arms after
    /// every call into its core.
    pub fn wanted(&self) -> Option<Time> {
        self.wanted
    }

    /// For a caller that arms after every call into its core: a wake-up before the deadline
    /// given at the last `arm` (or with none given) finds nothing due in the core, so arm that
    /// deadline again (with `token`) and return true; return false, arming nothing, when it is due.
    pub fn rearm_if_early(&mut self, ctx: &mut Ctx<'_>, token: u64) -> bool {
        if self.wanted.is_some_and(|t| t <= ctx.now) {
            return false;
        }
        self.arm_with_token(ctx, self.wanted, token);
        true
    }

    /// An expiry fired: forget the armed event if it was this one.
    pub fn fired(&mut self, now: Time) {
        if self.armed.is_some_and(|t| t <= now) {
            self.armed = None;
        }
    }
}
