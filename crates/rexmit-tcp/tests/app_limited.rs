//! Delivery-rate samples carry the application-limited mark (draft-cheng-iccrg-delivery-rate-
//! estimation §3.4, as Linux's tcp_rate_check_app_limited sets it): a controller that asks for
//! rate samples (BBR does) hears which ones were taken while the sender had no data to fill
//! the pipe. The controller here only records what it hears.

mod common;
use common::*;
use rexmit_tcp::cc::{
    AckSample, CcParams, CongestionControl, CongestionEvent, ControllerFactory, OwnWrite, RateAck,
};
use rexmit_tcp::RecoveryAlgorithm;
use std::sync::{Arc, Mutex};

type Marks = Arc<Mutex<Vec<bool>>>;

/// A fixed window of ten segments that records each rate sample's app-limited mark.
#[derive(Debug)]
struct Recorder {
    cwnd: u64,
    marks: Marks,
}

impl CongestionControl for Recorder {
    fn window(&self) -> u64 {
        self.cwnd
    }
    fn ssthresh(&self) -> u64 {
        u64::MAX / 2
    }
    fn name(&self) -> &str {
        "recorder"
    }
    fn wants_rate_samples(&self) -> bool {
        true
    }
    fn store_cwnd(&mut self, _: u64, _: OwnWrite) {}
    fn store_ssthresh(&mut self, _: u64, _: OwnWrite) {}
    fn on_ack(&mut self, _: &AckSample) {}
    fn on_congestion_event(&mut self, _: &CongestionEvent) {}
    fn on_rate_ack(&mut self, a: &RateAck) {
        if a.rs.rate().is_some() || a.rs.acked_sacked > 0 {
            self.marks.lock().unwrap().push(a.rs.is_app_limited);
        }
    }
}

#[derive(Debug)]
struct Factory(Marks);

impl ControllerFactory for Factory {
    fn build(&self, p: &CcParams) -> Box<dyn CongestionControl> {
        Box::new(Recorder {
            cwnd: 10 * p.smss,
            marks: self.0.clone(),
        })
    }
}

#[test]
fn samples_taken_while_the_application_leaves_the_pipe_short_are_marked() {
    let marks: Marks = Arc::default();
    let f = Arc::new(Factory(marks.clone()));
    // 20 segments written at once after the handshake. That write found the pipe empty, so
    // the first flight is application-limited (as in Linux, whose first write sets
    // tp->app_limited to 1): its samples are marked; the next ten, sent while the data kept
    // cwnd full, are not.
    let mut s =
        Injector::established_as(cfg(RecoveryAlgorithm::Sack), true, 20 * MSS as usize, |c| {
            c.with_controller(f)
        });
    assert_eq!(s.sent(), (1..=10).collect::<Vec<_>>());
    for (t, next) in (200..).zip(2..=11) {
        assert_eq!(s.ack(t, next, &[]), vec![next + 9]);
    }
    for (t, next) in (300..).zip(12..=21) {
        assert_eq!(s.ack(t, next, &[]), vec![]);
    }
    // Everything acknowledged. The application writes one segment with nothing unsent and the
    // pipe empty: the connection is application-limited until that segment is delivered.
    s.c.send(ms(400), MSS as usize);
    s.now = ms(400);
    assert_eq!(s.sent(), vec![21]);
    s.ack(500, 22, &[]);
    let m = marks.lock().unwrap().clone();
    assert_eq!(m.len(), 21, "{m:?}");
    assert!(
        m[..10].iter().all(|x| *x),
        "the first flight is marked: {m:?}"
    );
    assert!(
        m[10..20].iter().all(|x| !x),
        "the cwnd-limited ones are not: {m:?}"
    );
    assert!(m[20], "the lone segment's sample is");
}
