//! Tests of the queue as the channel drives it (each discipline's own rules are tested in its
//! file), and the packet builders those tests share.

use super::*;
use rexmit_engine::StreamFactory;
use rexmit_wire::{IpPacket, Payload, Transport, UdpDatagram};
use std::net::Ipv4Addr;

/// A UDP packet of `size` IP bytes from port `port`, enqueued at `t`.
pub(crate) fn flow_pkt(port: u16, size: u32, t: Time) -> Box<Packet> {
    let udp = UdpDatagram {
        src_port: port,
        dst_port: 9,
        payload: Payload::zeros(size - 28),
    };
    let ip = IpPacket::new(
        Ipv4Addr::new(10, 0, 0, 1),
        Ipv4Addr::new(10, 0, 1, 1),
        Transport::Udp(udp),
    );
    Box::new(Packet {
        uid: 0,
        created: t,
        size: ip.wire_len() as u32,
        enqueued: t,
        dst_owner: None,
        dst_agent: None,
        ip,
    })
}

/// A packet of `size` bytes enqueued at `t`.
pub(crate) fn pkt_at(t: Time, size: u32) -> Box<Packet> {
    flow_pkt(1, size, t)
}

/// A 500-byte packet enqueued at 0.
pub(crate) fn udp() -> Box<Packet> {
    pkt_at(Time::ZERO, 500)
}

fn ect0(mut p: Box<Packet>) -> Box<Packet> {
    p.ip.header.set_ecn(Ecn::Ect0);
    p
}

fn aqm(limit: QueueLimit, aqm: Aqm, ecn: bool) -> OutputQueue {
    OutputQueue::new(
        QueueConfig {
            limit,
            discipline: QueueDiscipline::Aqm(AqmConfig { aqm, ecn }),
        },
        Rate::from_mbps(10),
        42,
    )
}

fn rng() -> RngStream {
    StreamFactory::new(1).stream("t")
}

#[test]
fn step_marking_marks_ect_packets_above_k_and_drops_the_others() {
    // RFC 8257 §3.1 with K = 3 packets: the 4th packet and later see a queue above K.
    let mut q = aqm(
        QueueLimit::Packets(10),
        Aqm::StepMark(QueueLimit::Packets(3)),
        true,
    );
    let mut r = rng();
    for i in 0..6 {
        q.enqueue(Time::ZERO, ect0(udp()), &mut r).unwrap();
        let marked = q.stats().unwrap().ecn_marked;
        assert_eq!(marked, i.max(2) - 2, "after {} packets", i + 1);
    }
    // A Not-ECT packet above K is dropped in place of a mark (RFC 3168 §5); below K it queues.
    let (_, why) = q.enqueue(Time::ZERO, udp(), &mut r).unwrap_err();
    assert_eq!(why, QueueDrop::Early);
    assert_eq!(q.len_packets(), 6);
    assert_eq!(q.stats().unwrap().ecn_marked, 3);
    let ce: Vec<bool> = (0..6)
        .map(|_| q.dequeue(Time::ZERO).unwrap().ip.header.ecn() == Ecn::Ce)
        .collect();
    assert_eq!(ce, [false, false, false, true, true, true]);
    q.enqueue(Time::ZERO, udp(), &mut r).unwrap();
    assert_eq!(q.dequeue(Time::ZERO).unwrap().ip.header.ecn(), Ecn::NotEct);
    // The limit still drops, and a refused packet is not counted as marked.
    for _ in 0..10 {
        q.enqueue(Time::ZERO, ect0(udp()), &mut r).unwrap();
    }
    let (_, why) = q.enqueue(Time::ZERO, ect0(udp()), &mut r).unwrap_err();
    assert_eq!(why, QueueDrop::Overflow);
    assert_eq!(q.stats().unwrap().ecn_marked, 3 + 7);
}

#[test]
fn step_marking_in_bytes() {
    // K = 1200 bytes: with 500-byte packets, the third arrival makes 1500 > 1200.
    let mut q = aqm(
        QueueLimit::Packets(10),
        Aqm::StepMark(QueueLimit::Bytes(1200)),
        true,
    );
    let mut r = rng();
    for _ in 0..3 {
        q.enqueue(Time::ZERO, ect0(udp()), &mut r).unwrap();
    }
    assert_eq!(q.stats().unwrap().ecn_marked, 1);
}

fn red_params() -> RedParams {
    RedParams {
        min_th: 2.0,
        max_th: 4.0,
        max_p: 0.5,
        weight: 1.0,
        gentle: false,
        mean_packet_size: 500,
    }
}

#[test]
fn red_with_ecn_marks_random_drops_but_not_forced_ones() {
    // w = 1: the average is the queue length each arrival sees. Between the thresholds the
    // early drop is a mark for ECT packets (RFC 3168 §7); at max_th and above (gentle off) the
    // packet is dropped even with ECN.
    let mut q = aqm(QueueLimit::Packets(100), Aqm::Red(red_params()), true);
    let mut r = rng();
    for _ in 0..3 {
        q.enqueue(Time::ZERO, ect0(udp()), &mut r).unwrap();
    }
    let mut marks = 0;
    for _ in 0..50 {
        // Queue of 3: probabilistic region.
        q.enqueue(Time::ZERO, ect0(udp()), &mut r).unwrap();
        q.dequeue(Time::ZERO).unwrap();
        marks = q.stats().unwrap().ecn_marked;
    }
    assert!(marks > 10, "{marks}");
    // With ECN every arrival in the probabilistic region is queued (marked or not): 4 now.
    q.enqueue(Time::ZERO, ect0(udp()), &mut r).unwrap();
    let (_, why) = q.enqueue(Time::ZERO, ect0(udp()), &mut r).unwrap_err();
    assert_eq!(why, QueueDrop::Early);
    // Not-ECT packets in the probabilistic region are dropped, not marked.
    let mut q = aqm(QueueLimit::Packets(100), Aqm::Red(red_params()), true);
    for _ in 0..3 {
        q.enqueue(Time::ZERO, udp(), &mut r).unwrap();
    }
    let drops = (0..50)
        .filter(|_| {
            let d = q.enqueue(Time::ZERO, udp(), &mut r).is_err();
            if !d {
                q.dequeue(Time::ZERO);
            }
            d
        })
        .count();
    assert!(drops > 10);
    assert_eq!(q.stats().unwrap().ecn_marked, 0);
}

#[test]
fn codel_queue_tail_drops_at_its_limit_and_counts_dequeue_drops() {
    let mut q = aqm(
        QueueLimit::Packets(200),
        Aqm::Codel(CodelConfig::default()),
        false,
    );
    let mut r = rng();
    for _ in 0..200 {
        q.enqueue(Time::ZERO, udp(), &mut r).unwrap();
    }
    assert_eq!(
        q.enqueue(Time::ZERO, udp(), &mut r).unwrap_err().1,
        QueueDrop::Overflow
    );
    q.dequeue(Time::from_millis(10)).unwrap();
    assert_eq!(q.take_pending(), Pending::default());
    q.dequeue(Time::from_millis(110)).unwrap();
    assert_eq!(
        q.take_pending(),
        Pending {
            overflow: 0,
            early: 1
        }
    );
    assert_eq!(q.len_packets(), 197);
    assert_eq!(q.len_bytes(), 197 * 500);
}

#[test]
fn sojourn_times_are_those_of_the_packets_handed_to_the_line() {
    let mut q = aqm(QueueLimit::Packets(100), Aqm::DropTail, false);
    let mut r = rng();
    for i in 0..100u64 {
        q.enqueue(Time::from_micros(i), udp(), &mut r).unwrap();
    }
    // Departures every 100 µs from 1 ms: the i-th waited 1 ms + 99·i µs.
    for i in 0..100u64 {
        q.dequeue(Time::from_micros(1_000 + 100 * i)).unwrap();
    }
    let h = &q.stats().unwrap().sojourn;
    assert_eq!(h.count(), 100);
    // p99: the 99th smallest, 1 ms + 98·99 µs = 10.702 ms, within 1/128.
    let p99 = h.quantile(0.99).unwrap().as_nanos() as f64;
    assert!((p99 - 10_702_000.0).abs() < 10_702_000.0 / 128.0, "{p99}");
    // The queues written without `aqm` keep no statistics.
    let plain = OutputQueue::new(QueueConfig::default(), Rate::from_mbps(10), 0);
    assert!(plain.stats().is_none());
}

#[test]
fn fq_codel_overload_drops_are_pending_overflow() {
    let mut q = aqm(
        QueueLimit::Packets(4),
        Aqm::FqCodel(FqCodelConfig::default()),
        true,
    );
    let mut r = rng();
    for _ in 0..6 {
        q.enqueue(Time::ZERO, udp(), &mut r).unwrap();
    }
    assert_eq!(q.len_packets(), 4);
    assert_eq!(q.fifo_len(), 0);
    assert_eq!(
        q.take_pending(),
        Pending {
            overflow: 2,
            early: 0
        }
    );
}

#[test]
fn pie_queue_holds_the_delay_near_its_target() {
    // Arrivals at twice the departure rate (2 per ms, 1 leaves per ms): PIE, fed the
    // departures' sojourn times, raises its probability until about half the arrivals are
    // dropped and the delay settles near QDELAY_REF = 15 ms (after the burst allowance and the
    // slow start of the auto-tuned steps let a first queue build).
    let mut q = aqm(
        QueueLimit::Packets(1000),
        Aqm::Pie(PieConfig::default()),
        false,
    );
    let mut r = rng();
    let (mut drops, mut late) = (0, Vec::new());
    for ms in 0..6_000u64 {
        let now = Time::from_millis(ms);
        for _ in 0..2 {
            if q.enqueue(now, udp(), &mut r).is_err() && ms >= 3_000 {
                drops += 1;
            }
        }
        if let Some(p) = q.dequeue(now) {
            if ms >= 3_000 {
                late.push((now - p.enqueued).as_secs_f64());
            }
        }
    }
    let mean = late.iter().sum::<f64>() / late.len() as f64;
    assert!((0.010..0.025).contains(&mean), "{mean}");
    // Half of the last 6000 arrivals dropped, within a few percent.
    assert!((2_800..3_200).contains(&drops), "{drops}");
}
