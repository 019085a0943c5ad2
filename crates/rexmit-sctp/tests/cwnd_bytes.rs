//! What cwnd and flightsize count (`cwnd_bytes`, issue 39): user-data bytes with a full chunk's
//! payload as RFC 9260 §7.2's MTU ("payload", pmtu 1500: 1452), or FreeBSD's DATA chunk bytes
//! (payload + 16 per chunk) with the path MTU itself (1500) as the MTU ("chunk"). The same
//! exchange under both; A sends full 1452-byte chunks.

mod common;
use common::*;
use rexmit_sctp::{Association, CwndBytes, SctpConfig};
use rexmit_time::{Duration, Time};
use rexmit_wire::Payload;

const T: u32 = 1452;

fn pair(unit: CwndBytes) -> (Association, Association) {
    let a = SctpConfig {
        cwnd_bytes: unit,
        hb_interval: None,
        send_buffer: 1 << 20,
        ..SctpConfig::default()
    };
    let b = SctpConfig {
        hb_interval: None,
        recv_buffer: 1 << 20,
        ..SctpConfig::default()
    };
    connect_pair(a, b, 1, 1, false)
}

fn fill(a: &mut Association, now: Time, n: usize) {
    for _ in 0..n {
        a.send(now, 0, Payload::zeros(T), true).unwrap();
    }
}

/// RFC 9260 §7.2.1's initial cwnd, min(4·MTU, max(2·MTU, 4380)), is 4380 bytes either way.
/// Counted in payload bytes four full chunks fit below it (3 × 1452 = 4356 < 4380); counted
/// in chunk bytes three (3 × 1468 = 4404 ≥ 4380), as FreeBSD sends them; flightsize and the
/// peer's window are debited 1468 per chunk.
#[test]
fn the_initial_window_holds_three_chunks_counted_as_freebsd_counts_them() {
    for (unit, chunks, per_chunk) in [(CwndBytes::Payload, 4, 1452), (CwndBytes::Chunk, 3, 1468)] {
        let (mut a, _b) = pair(unit);
        fill(&mut a, Time::ZERO, 10);
        let sent = data_tsns(&drain(&mut a, Time::ZERO));
        assert_eq!(sent.len(), chunks, "{unit:?}");
        assert_eq!(a.paths()[0].cc().cwnd(), 4380, "{unit:?}");
        assert_eq!(a.flight_size(), chunks as u64 * per_chunk, "{unit:?}");
    }
}

/// §7.2.1: a SACK in slow start grows cwnd by min(bytes acknowledged, MTU). B SACKs every
/// second packet: its first SACK acknowledges two chunks, 2 × 1452 = 2904 or 2 × 1468 = 2936
/// bytes, capped at 1452 or at 1500.
#[test]
fn slow_start_grows_by_the_path_mtu_in_chunk_bytes() {
    for (unit, mtu) in [(CwndBytes::Payload, 1452), (CwndBytes::Chunk, 1500)] {
        let (mut a, mut b) = pair(unit);
        fill(&mut a, Time::ZERO, 10);
        let t1 = Time::from_millis(10);
        let mut sacks = Vec::new();
        for t in drain(&mut a, Time::ZERO) {
            deliver(&mut b, t1, &t);
            sacks.extend(drain(&mut b, t1));
        }
        let first = sacks.first().expect("B SACKs the second packet");
        let flight = a.flight_size();
        deliver(&mut a, Time::from_millis(20), first);
        assert_eq!(a.paths()[0].cc().cwnd(), 4380 + mtu, "{unit:?}");
        let chunk = if unit == CwndBytes::Chunk { 1468 } else { 1452 };
        assert_eq!(a.flight_size(), flight - 2 * chunk, "{unit:?}");
    }
}

/// §7.2.3: a T3-rtx expiry sets ssthresh = max(cwnd/2, 4·MTU) and cwnd = 1 MTU; a second
/// expiry with nothing acknowledged leaves cwnd at 1 MTU and ssthresh at 4·MTU. FreeBSD's MTU
/// is the path MTU (its `net->mtu`: cwnd falls to 1500 there).
#[test]
fn a_timeout_cuts_cwnd_to_one_path_mtu_in_chunk_bytes() {
    for (unit, mtu) in [(CwndBytes::Payload, 1452), (CwndBytes::Chunk, 1500)] {
        let (a, b) = pair(unit);
        let mut net = Net::new(a, b);
        let mut lose_all = |_: &rexmit_sctp::Transmit, _: Time| None::<Duration>;
        let mut app = |now: Time, eps: &mut [Association; 2]| {
            if now == Time::ZERO {
                fill(&mut eps[0], now, 10);
            }
        };
        net.run(Time::from_secs(10), &mut lose_all, &mut app);
        let a = &net.eps[0];
        assert!(a.stats().timeouts >= 2, "{unit:?}: {}", a.stats().timeouts);
        let cc = a.paths()[0].cc();
        assert_eq!((cc.cwnd(), cc.ssthresh()), (mtu, 4 * mtu), "{unit:?}");
    }
}

/// Whatever the unit, every byte crosses once under loss (the invariants of debug builds check
/// flightsize against the chunks in flight at every step, in the unit chosen).
#[test]
fn a_lossy_transfer_counted_in_chunk_bytes_delivers_everything() {
    let (a, b) = pair(CwndBytes::Chunk);
    let mut net = Net::new(a, b);
    let mut rng = Rng::new(7);
    let mut fate =
        |_: &rexmit_sctp::Transmit, _: Time| (!rng.chance(20)).then_some(Duration::from_millis(10));
    let mut app = |now: Time, eps: &mut [Association; 2]| {
        if now == Time::ZERO {
            fill(&mut eps[0], now, 400);
        }
    };
    net.run(Time::from_secs(60), &mut fate, &mut app);
    let [a, b] = &net.eps;
    assert!(a.stats().retransmissions > 0);
    assert_eq!(b.stats().bytes_delivered, 400 * T as u64);
    assert_eq!(a.flight_size(), 0);
}
