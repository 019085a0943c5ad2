//! The run loop against an outside clock (emulation): events run no earlier than their time on
//! the pacer's clock, and the pacer may bring events from outside (packets of real hosts) while
//! it waits. The simulated clock of `Scheduler::run` stays as it is: this loop is only used when a
//! pacer is given, so simulation runs are untouched by it.

use crate::queue::EventQueue;
use crate::run::{Progress, RunError, RunLimits, RunOutcome, Scheduler, StopReason};
use rexmit_time::Time;

/// What `Pacer::wait` ended with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Waited {
    /// The pacer's clock reached the time asked for.
    Due,
    /// Input from outside arrived first (and was handed to `inject`).
    Input,
}

/// A clock the run loop waits on. Times are the scheduler's (`Time` since the run's origin).
pub trait Pacer<E> {
    /// Block until the clock reaches `due`, or until input from outside arrives: then hand each
    /// input to `inject` with its time (≥ `now`) and return `Waited::Input`.
    fn wait(&mut self, now: Time, due: Time, inject: &mut dyn FnMut(Time, E)) -> Waited;
    /// The event due at `at` is about to run (for lateness accounting).
    fn on_event(&mut self, at: Time);
}

impl<E, Q: EventQueue<E>> Scheduler<E, Q> {
    /// Run events until `limits.stop_time` on the pacer's clock. Unlike `run`, an empty queue does
    /// not end the run (input may still come); `max_wall` is measured as in `run`.
    pub fn run_paced<H, P>(
        &mut self,
        limits: &RunLimits,
        pacer: &mut dyn Pacer<E>,
        mut handle: H,
        mut progress: P,
    ) -> Result<RunOutcome, RunError>
    where
        H: FnMut(&mut Self, Time, E),
        P: FnMut(Progress) -> bool,
    {
        let wall_start = std::time::Instant::now();
        let mut last_report = wall_start;
        let start_events = self.processed();
        let mut injected: Vec<(Time, E)> = Vec::new();
        loop {
            let next = self.peek_time();
            let due = next.map_or(limits.stop_time, |t| t.min(limits.stop_time));
            let now = self.now();
            if pacer.wait(now, due, &mut |t, e| injected.push((t, e))) == Waited::Input {
                for (t, e) in injected.drain(..) {
                    self.schedule(t.max(now), e);
                }
            } else if next.is_none_or(|t| t > limits.stop_time) {
                self.set_now(limits.stop_time);
                return Ok(RunOutcome {
                    reason: StopReason::StopTime,
                    end_time: self.now(),
                    events: self.processed() - start_events,
                    wall: wall_start.elapsed(),
                });
            } else {
                let (t, e) = self.pop().expect("peeked");
                pacer.on_event(t);
                handle(self, t, e);
                if let Some(max) = limits.max_events {
                    if self.processed() - start_events >= max {
                        return Err(RunError::EventLimit {
                            max_events: max,
                            at: self.now(),
                        });
                    }
                }
            }
            let wall = wall_start.elapsed();
            if let Some(max) = limits.max_wall {
                if wall > max {
                    return Err(RunError::WallTimeLimit {
                        max_wall: max,
                        at: self.now(),
                    });
                }
            }
            if last_report.elapsed() >= limits.progress_every {
                last_report = std::time::Instant::now();
                let p = Progress {
                    now: self.now(),
                    stop_time: limits.stop_time,
                    events: self.processed(),
                    wall,
                };
                if !progress(p) {
                    return Err(RunError::Interrupted { at: self.now() });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scripted clock: input arrives at given times; `wait` reports how late each event ran.
    struct Script {
        clock: Time,
        inputs: Vec<(Time, &'static str)>,
        ran_at: Vec<Time>,
    }

    impl Pacer<&'static str> for Script {
        fn wait(
            &mut self,
            _now: Time,
            due: Time,
            inject: &mut dyn FnMut(Time, &'static str),
        ) -> Waited {
            if let Some(&(t, e)) = self.inputs.first().filter(|(t, _)| *t <= due) {
                self.inputs.remove(0);
                self.clock = t;
                inject(t, e);
                return Waited::Input;
            }
            self.clock = due;
            Waited::Due
        }
        fn on_event(&mut self, at: Time) {
            assert!(self.clock >= at, "an event ran before its time");
            self.ran_at.push(at);
        }
    }

    #[test]
    fn input_from_outside_runs_between_scheduled_events_and_the_run_lasts_to_stop_time() {
        let mut s: Scheduler<&str> = Scheduler::new();
        s.schedule(Time::from_millis(10), "timer");
        let mut p = Script {
            clock: Time::ZERO,
            inputs: vec![
                (Time::from_millis(4), "packet"),
                (Time::from_millis(30), "late packet"),
            ],
            ran_at: vec![],
        };
        let mut seen = Vec::new();
        let out = s
            .run_paced(
                &RunLimits::until(Time::from_millis(50)),
                &mut p,
                |_, t, e| seen.push((t, e)),
                |_| true,
            )
            .unwrap();
        assert_eq!(
            seen,
            [
                (Time::from_millis(4), "packet"),
                (Time::from_millis(10), "timer"),
                (Time::from_millis(30), "late packet")
            ]
        );
        // The queue was empty from 30 ms on: the run still lasts until the stop time.
        assert_eq!(out.reason, StopReason::StopTime);
        assert_eq!(out.end_time, Time::from_millis(50));
        assert_eq!(p.ran_at.len(), 3);
    }
}
