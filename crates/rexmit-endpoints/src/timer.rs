//! Arming a core's single "next deadline" on the engine, whose timers cannot be cancelled.

use rexmit_net::Ctx;
use rexmit_time::Time;

/// Remembers the deadline last armed so that each new deadline is armed once. Stale expiries
/// (for deadlines the core has since moved) are recognised by the caller comparing with the
/// core's current deadline.
#[derive(Default, Debug)]
pub struct DeadlineTimer {
    armed: Option<Time>,
}

impl DeadlineTimer {
    /// Arm `deadline` (if any) unless it is already armed.
    pub fn arm(&mut self, ctx: &mut Ctx<'_>, deadline: Option<Time>) {
        self.arm_with_token(ctx, deadline, 0);
    }

    /// `arm` for an agent that runs several cores, telling them apart by `token`.
    pub fn arm_with_token(&mut self, ctx: &mut Ctx<'_>, deadline: Option<Time>, token: u64) {
        if let Some(t) = deadline {
            if self.armed != Some(t) {
                ctx.set_timer(t.max(ctx.now), token);
                self.armed = Some(t);
            }
        }
    }

    /// An expiry fired: forget the armed deadline if it was this one.
    pub fn fired(&mut self, now: Time) {
        if self.armed.is_some_and(|t| t <= now) {
            self.armed = None;
        }
    }
}
