//! The advertised window (`TcpConfig::receive_window`): the free buffer from the start (the
//! default), or Linux's autotuning (`rcv_autotune`), whose receiver acknowledges every segment
//! while its window grows and the first 16 of a connection (docs/validation_linux.md).

mod common;
use common::*;
use rexmit_tcp::{Connection, ReceiveWindow, RecoveryAlgorithm, TcpConfig};
use rexmit_time::Time;

fn config(rw: ReceiveWindow) -> TcpConfig {
    TcpConfig {
        receive_window: rw,
        window_scaling: true,
        recv_buffer: 6 << 20,
        ack_every: 2,
        ..cfg(RecoveryAlgorithm::Sack)
    }
}

/// Full segments 1..=n arrive 1 ms apart and the application reads each at once; returns the
/// packets after which an ACK left at once.
fn acked_at_once(rw: ReceiveWindow, n: u64) -> Vec<u64> {
    let mut r = RxInjector::new(config(rw), true, false);
    let mut out = Vec::new();
    for p in 1..=n {
        let acks = r.data(100 + p, p);
        let _ = r.c.recv(usize::MAX);
        let acks = [acks, r.acks()].concat();
        if !acks.is_empty() {
            assert_eq!(acks.last().map(|a| a.next), Some(p + 1));
            out.push(p);
        }
    }
    out
}

#[test]
fn the_buffer_is_the_default_and_linux_autotunes() {
    assert_eq!(TcpConfig::default().receive_window, ReceiveWindow::Buffer);
    assert_eq!(
        rexmit_tcp::profile::Profile::Linux.config().receive_window,
        ReceiveWindow::LinuxAutotune
    );
}

#[test]
fn the_buffer_receiver_acks_every_second_segment_from_the_start() {
    let got = acked_at_once(ReceiveWindow::Buffer, 40);
    assert_eq!(got, (1..=20).map(|k| 2 * k).collect::<Vec<_>>());
}

/// With 1000-byte segments the window starts at 65 000 bytes (the largest multiple of the MSS
/// below 64 KiB) and grows by 2 000 per segment up to 0.625 × 131 072 = 81 920 less the
/// segment held: for 8 segments, each acknowledged at once and without using up the 16 quick
/// ACKs of the connection's start, which cover the next 16. Then an ACK for every second
/// segment.
#[test]
fn the_linux_receiver_acks_each_segment_while_its_window_grows() {
    let got = acked_at_once(ReceiveWindow::LinuxAutotune, 60);
    let mut want: Vec<u64> = (1..=24).collect();
    want.extend((13..=30).map(|k| 2 * k));
    assert_eq!(got, want);
}

/// The window the SYN-ACK offers: 64 000 bytes of buffer (cfg's) as it is, or Linux's
/// initial window (the buffer's 65 000 bytes of 6 MiB start at tcp_rmem[1] = 131 072).
#[test]
fn the_syn_ack_offers_the_initial_window() {
    for (rw, want) in [
        (ReceiveWindow::Buffer, 65_535),
        (ReceiveWindow::LinuxAutotune, 65_000),
    ] {
        let mut c = Connection::listen(config(rw), 80, 3_000);
        let syn = peer_syn(
            1,
            rexmit_wire::TcpOptions {
                mss: Some(MSS as u16),
                window_scale: Some(7),
                ..Default::default()
            },
        );
        c.handle_segment(Time::ZERO, &syn);
        let synack = c.poll_transmit(Time::ZERO).expect("SYN-ACK");
        assert_eq!(synack.window, want, "{rw:?}");
    }
}

/// With timestamps agreed, Linux's passive open counts its initial window in segments of the
/// MSS less the option (tcp_openreq_init_rwin): 66 × 988 bytes here, 45 × 1448 = 65 160 in
/// the emulation's pcaps. Without them, 65 × 1000 (above).
#[test]
fn the_syn_ack_window_counts_segments_less_the_timestamp_option() {
    let cfg = TcpConfig {
        timestamps: true,
        ..config(ReceiveWindow::LinuxAutotune)
    };
    let mut c = Connection::listen(cfg, 80, 3_000);
    let syn = peer_syn(
        1,
        rexmit_wire::TcpOptions {
            mss: Some(MSS as u16),
            window_scale: Some(7),
            timestamps: Some(rexmit_wire::Timestamps { tsval: 1, tsecr: 0 }),
            ..Default::default()
        },
    );
    c.handle_segment(Time::ZERO, &syn);
    let synack = c.poll_transmit(Time::ZERO).expect("SYN-ACK");
    assert_eq!(synack.window, 66 * 988);
}

/// Full segment `pkt` arrives at `t_ms` with a timestamp echo `rtt_ms` old (the receiver's RTT
/// sample, tcp_rcv_rtt_measure_ts) and is read at once; returns whether an ACK left at once.
fn data_with_echo(r: &mut RxInjector, t_ms: u64, pkt: u64, rtt_ms: u32) -> bool {
    r.now = ms(t_ms);
    let seg = rexmit_wire::TcpSegment {
        src_port: 10,
        dst_port: 80,
        seq: r.peer_iss.wrapping_add(1 + ((pkt - 1) * MSS) as u32),
        ack: r.iss.wrapping_add(1),
        flags: rexmit_wire::TcpFlags::ACK,
        window: 65_535,
        urgent: 0,
        options: rexmit_wire::TcpOptions {
            timestamps: Some(rexmit_wire::Timestamps {
                tsval: 1 + pkt as u32,
                tsecr: t_ms as u32 - rtt_ms,
            }),
            ..Default::default()
        },
        payload: rexmit_wire::Payload::zeros(MSS as u32),
    };
    r.c.handle_segment(r.now, &seg);
    let _ = r.c.recv(usize::MAX);
    !r.acks().is_empty()
}

/// Linux ≥ 6.16's receiver RTT (tcp_rcv_rtt_update) latches a sample below the estimate and
/// smooths only larger ones, so the queue a slow-start flight builds does not stretch the
/// once-per-RTT resize (tcp_rcv_space_adjust). Flights of 10, 20 and 20 segments 1 ms apart
/// arrive from 100, 140 and 180 ms; within a flight the echo grows from 40 ms by 1 ms every
/// second segment (the queue the flight builds), and each flight starts at 40 ms again. The
/// measurement begun at 140 ms (at packet 11: 11 segments against the initial 10, nothing
/// to grow) ends at packet 31 (180 ms, whose 40 ms sample is latched): the buffer grows
/// after it, and from packet 32 on every segment widens the window, each acknowledged at
/// once. Before, the start-up quick ACKs spent (packets 1-24), every second segment. The
/// smoothed estimate rexmit had (gain 1/8 either way) widened it from packet 37 on, five
/// segments late, as the seed-1 pcaps showed (docs/validation_linux.md).
#[test]
fn the_linux_receiver_resizes_one_minimum_rtt_after_the_last_resize() {
    let cfg = TcpConfig {
        timestamps: true,
        ..config(ReceiveWindow::LinuxAutotune)
    };
    let mut r = RxInjector::new(cfg, true, true);
    let mut at_once = Vec::new();
    let flights = [(1..=10u64, 100u64), (11..=30, 140), (31..=50, 180)];
    for (pkts, start) in flights {
        let first = *pkts.start();
        for p in pkts {
            let echo = 40 + (p - first) as u32 / 2;
            if data_with_echo(&mut r, start + p - first, p, echo) {
                at_once.push(p);
            }
        }
    }
    let tail: Vec<u64> = at_once.into_iter().filter(|&p| p > 24).collect();
    let mut want: Vec<u64> = vec![26, 28, 30];
    want.extend(32..=50);
    assert_eq!(tail, want);
}
