//! The real-time pacer: the run loop's events wait for the wall clock (sim time t runs at the
//! wall-clock instant origin + t), and packets the real hosts write to their TUN devices come
//! in as events at the instant they are read. Lateness, the wall-clock time an event ran minus
//! the time it was scheduled for, is recorded for every event.

use crate::sys;
use rexmit_engine::{Pacer, Waited};
use rexmit_net::sim::{Event, Simulation};
use rexmit_net::NodeId;
use rexmit_time::{Duration, Time};
use rexmit_wire::IpPacket;
use serde::Serialize;
use std::net::Ipv4Addr;
use std::os::fd::RawFd;
use std::time::Instant;

/// Event lateness over a run, and where the large ones were.
#[derive(Clone, Debug, Default)]
pub struct Lateness {
    ns: Vec<u64>,
    stalls: Vec<Stall>,
}

/// An event that ran at least [`STALL`] late: a summary alone cannot say whether a stall hit
/// the few packets a measurement depends on (a retransmission timeline), this can.
#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct Stall {
    /// The event's scheduled time, seconds of sim time.
    pub at_s: f64,
    pub late_s: f64,
}

/// Lateness from which an event is listed as a stall.
pub const STALL: Duration = Duration::from_millis(2);
/// At most this many stalls are listed (the first ones); `stalls_unlisted` counts the rest.
pub const MAX_STALLS: usize = 4096;

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct LatenessSummary {
    pub events: u64,
    pub mean_s: f64,
    pub p99_s: f64,
    pub max_s: f64,
    pub stall_s: f64,
    pub stalls: Vec<Stall>,
    pub stalls_unlisted: u64,
}

impl Lateness {
    /// An event scheduled for `at` ran `late` after it.
    pub fn record(&mut self, at: Time, late: Duration) {
        self.ns.push(late.as_nanos());
        if late >= STALL {
            self.stalls.push(Stall {
                at_s: at.as_secs_f64(),
                late_s: late.as_secs_f64(),
            });
        }
    }

    pub fn summary(&self) -> LatenessSummary {
        let mut v = self.ns.clone();
        v.sort_unstable();
        let n = v.len();
        let listed = self.stalls.len().min(MAX_STALLS);
        let (stall_s, stalls, stalls_unlisted) = (
            STALL.as_secs_f64(),
            self.stalls[..listed].to_vec(),
            (self.stalls.len() - listed) as u64,
        );
        if n == 0 {
            return LatenessSummary {
                events: 0,
                mean_s: 0.0,
                p99_s: 0.0,
                max_s: 0.0,
                stall_s,
                stalls,
                stalls_unlisted,
            };
        }
        // Nearest-rank percentile.
        let p99 = v[(n * 99).div_ceil(100).max(1) - 1];
        LatenessSummary {
            events: n as u64,
            mean_s: v.iter().map(|&x| x as f64).sum::<f64>() / n as f64 / 1e9,
            p99_s: p99 as f64 / 1e9,
            max_s: v[n - 1] as f64 / 1e9,
            stall_s,
            stalls,
            stalls_unlisted,
        }
    }
}

/// Packets read from one real host's TUN device.
#[derive(Clone, Debug, Default, Serialize)]
pub struct InputStats {
    pub packets: u64,
    pub bytes: u64,
    /// Not IPv4, or failing a length or checksum check of the wire codecs.
    pub undecodable: u64,
    /// IPv4 with a source address that is not the host's own.
    pub foreign_source: u64,
    pub first_error: Option<String>,
}

/// One real host as the pacer sees it: the TUN file to read, and the node its packets leave.
pub struct TunInput {
    pub fd: RawFd,
    pub node: NodeId,
    pub addr: Ipv4Addr,
    pub stats: InputStats,
}

pub struct RealTime {
    origin: Instant,
    inputs: Vec<TunInput>,
    fds: Vec<RawFd>,
    ready: Vec<usize>,
    buf: Vec<u8>,
    pub lateness: Lateness,
    old_slack: u64,
}

impl RealTime {
    /// Sim time zero is `origin`. The calling thread's timer slack drops to 1 ns while the
    /// pacer lives (sleeps end when asked, not up to 50 µs later).
    pub fn new(origin: Instant, inputs: Vec<TunInput>) -> Self {
        let fds = inputs.iter().map(|i| i.fd).collect();
        RealTime {
            origin,
            inputs,
            fds,
            ready: Vec::new(),
            buf: vec![0; 65_536],
            lateness: Lateness::default(),
            old_slack: sys::set_timer_slack(1),
        }
    }

    pub fn inputs(&self) -> &[TunInput] {
        &self.inputs
    }

    /// The wall clock as sim time.
    fn wall(&self) -> Time {
        Time::from_nanos(self.origin.elapsed().as_nanos() as u64)
    }

    /// Read every waiting packet of input `i`; returns how many became events.
    fn drain(&mut self, i: usize, now: Time, inject: &mut dyn FnMut(Time, Event)) -> usize {
        let mut n = 0;
        loop {
            let r = unsafe {
                libc::read(
                    self.inputs[i].fd,
                    self.buf.as_mut_ptr() as *mut libc::c_void,
                    self.buf.len(),
                )
            };
            if r <= 0 {
                return n;
            }
            let t = self.wall().max(now);
            let input = &mut self.inputs[i];
            let bytes = &self.buf[..r as usize];
            match IpPacket::decode(bytes) {
                Ok(ip) if ip.header.src == input.addr => {
                    input.stats.packets += 1;
                    input.stats.bytes += r as u64;
                    inject(t, Simulation::external_packet(input.node, ip));
                    n += 1;
                }
                Ok(_) => input.stats.foreign_source += 1,
                Err(e) => {
                    input.stats.undecodable += 1;
                    input.stats.first_error.get_or_insert_with(|| e.to_string());
                }
            }
        }
    }
}

impl Drop for RealTime {
    fn drop(&mut self) {
        sys::set_timer_slack(self.old_slack);
    }
}

impl Pacer<Event> for RealTime {
    fn wait(&mut self, now: Time, due: Time, inject: &mut dyn FnMut(Time, Event)) -> Waited {
        loop {
            let timeout = due.saturating_since(self.wall());
            let mut ready = std::mem::take(&mut self.ready);
            // A failing poll (it does not, on valid descriptors) degrades to waiting by time.
            let _ = sys::poll_readable(
                &self.fds,
                std::time::Duration::from_nanos(timeout.as_nanos()),
                &mut ready,
            );
            let mut got = 0;
            for &i in &ready {
                got += self.drain(i, now, inject);
            }
            self.ready = ready;
            if got > 0 {
                return Waited::Input;
            }
            if self.wall() >= due {
                return Waited::Due;
            }
        }
    }

    fn on_event(&mut self, at: Time) {
        self.lateness.record(at, self.wall().saturating_since(at));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lateness_summary_is_nearest_rank() {
        let mut l = Lateness::default();
        for us in 1..=200u64 {
            l.record(Time::from_micros(us), Duration::from_micros(us));
        }
        let s = l.summary();
        assert_eq!(s.events, 200);
        assert!((s.mean_s - 100.5e-6).abs() < 1e-12);
        assert_eq!(s.p99_s, 198e-6);
        assert_eq!(s.max_s, 200e-6);
        assert!(s.stalls.is_empty());
    }

    #[test]
    fn stalls_list_when_and_how_late() {
        let mut l = Lateness::default();
        l.record(Time::from_millis(5), Duration::from_micros(1_999));
        l.record(Time::from_millis(7), Duration::from_millis(12));
        for _ in 0..MAX_STALLS {
            l.record(Time::from_millis(9), STALL);
        }
        let s = l.summary();
        assert_eq!(s.stalls.len(), MAX_STALLS);
        assert_eq!(
            s.stalls[0],
            Stall {
                at_s: 0.007,
                late_s: 0.012
            }
        );
        assert_eq!(s.stalls_unlisted, 1);
        assert_eq!(s.max_s, 0.012);
    }

    /// With no input, the pacer holds every event until its wall-clock time: an event 20 ms
    /// after origin runs no earlier than 20 ms of wall time.
    #[test]
    fn events_wait_for_the_wall_clock() {
        let mut s: rexmit_engine::Scheduler<Event> = rexmit_engine::Scheduler::new();
        s.schedule(
            Time::from_millis(20),
            Simulation::external_packet(NodeId(0), sample_packet()),
        );
        let origin = Instant::now();
        let mut p = RealTime::new(origin, Vec::new());
        let mut ran = None;
        s.run_paced(
            &rexmit_engine::RunLimits::until(Time::from_millis(30)),
            &mut p,
            |_, t, _| ran = Some((t, origin.elapsed())),
            |_| true,
        )
        .unwrap();
        let (t, wall) = ran.expect("event ran");
        assert_eq!(t, Time::from_millis(20));
        assert!(
            wall >= std::time::Duration::from_millis(20),
            "ran at {wall:?}"
        );
        assert!(
            origin.elapsed() >= std::time::Duration::from_millis(30),
            "the run lasts until the stop time"
        );
        assert_eq!(p.lateness.summary().events, 1);
    }

    fn sample_packet() -> IpPacket {
        use rexmit_wire::{Payload, Transport, UdpDatagram};
        IpPacket::new(
            Ipv4Addr::new(10, 0, 0, 1),
            Ipv4Addr::new(10, 0, 0, 2),
            Transport::Udp(UdpDatagram {
                src_port: 1,
                dst_port: 2,
                payload: Payload::zeros(10),
            }),
        )
    }
}
