//! Linux's receive-window growth and quick ACKs (`TcpConfig::receive_window =
//! LinuxAutotune`, the linux profile), modelled from tcp_input.c's behaviour in Linux 6.x:
//!
//! - the advertised window starts at the largest multiple of the MSS below 64 KiB and grows by
//!   two segments per full data segment received (`tcp_grow_window`: rcv_ssthresh) until it
//!   meets the space the receive buffer offers (`tcp_space`: the free buffer times the
//!   window share of a buffered byte);
//! - every segment that grows the window is acknowledged at once (tcp_grow_window sets one
//!   quick ACK), as are the first 16 data segments (`tcp_incr_quickack` with
//!   TCP_MAX_QUICKACKS at the first data segment): during slow start the sender sees an ACK
//!   per segment, 1.2 ms apart at 10 Mb/s, which is what lets CUBIC's HyStart ACK-train
//!   detector end slow start there (docs/validation_linux.md);
//! - once per receiver RTT the buffer is resized from the bytes delivered in the last RTT
//!   (`tcp_rcv_space_adjust`, dynamic right-sizing), up to the configured receive buffer;
//! - an application read that at least doubles the window left to the peer sends a window
//!   update at once (`tcp_cleanup_rbuf`).
//!
//! Simplifications, named: the receiver RTT comes from the timestamp echo when timestamps are
//! on (`tcp_rcv_rtt_measure_ts`; a lower sample latched at once, as in Linux >= 6.16), else
//! from the time one window takes to arrive (`tcp_rcv_rtt_measure`); the buffer is resized when data is delivered, not when the
//! application reads it (the same for an application that reads at once, as rexmit's do);
//! the window share of a buffered byte is a constant (Linux measures payload / truesize per
//! device; 0.625 fits the windows of the emulation's TUN devices: docs/validation_linux.md);
//! no memory pressure; no quick
//! ACKs after an idle gap longer than the RTO.

use rexmit_time::{Duration, Time};

/// tcp_rmem[1]: the receive buffer a connection starts with.
pub const INITIAL_BUFFER: u64 = 131_072;
/// TCP_MAX_QUICKACKS.
pub const MAX_QUICK_ACKS: u32 = 16;
/// Window bytes per buffer byte, in thousandths (see the module note).
/// Linux 6.18's pcaps (seed 1 of the drop-tail rows, 1448-byte segments, window scale 10)
/// offer 79 × 1024 bytes from the sixth segment on, one segment held: a share in
/// (620, 628] per mille; 600 stopped the window's growth one segment early, and with it
/// the quick ACKs, which moved the every-second ACKs onto the start of HyStart's third round.
pub const WINDOW_PER_MILLE: u64 = 625;

fn window_of(buffer: u64) -> u64 {
    buffer * WINDOW_PER_MILLE / 1000
}

fn buffer_of(window: u64) -> u64 {
    window * 1000 / WINDOW_PER_MILLE
}

/// The receive-side state of the Linux model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Autotune {
    /// The largest buffer (the connection's `recv_buffer`, tcp_rmem[2]).
    max_buffer: u64,
    /// The buffer now (sk_rcvbuf).
    buffer: u64,
    /// The window's growth bound (rcv_ssthresh).
    rcv_ssthresh: u64,
    /// Immediate ACKs still owed (icsk_ack.quick).
    quick: u32,
    seen_data: bool,
    /// Bytes delivered per RTT at the last resize (rcvq_space.space), and where and when the
    /// current measurement began.
    space: u64,
    space_seq: u64,
    space_time: Time,
    /// Receiver RTT estimate, eight times the smoothed value (rcv_rtt_est.rtt_us), in µs.
    rtt8_us: u64,
    last_tsecr_rtt: Option<Duration>,
    /// Window-based RTT measurement: rcv_nxt to reach and when it started.
    win_seq: u64,
    win_time: Option<Time>,
}

impl Autotune {
    /// `max_buffer`: the receive buffer limit; `mss`: our advertised MSS.
    pub fn new(max_buffer: u64, mss: u64) -> Self {
        let buffer = INITIAL_BUFFER.min(max_buffer);
        let mss = mss.max(1);
        let initial = (window_of(buffer).min(65_535) / mss * mss).max(mss);
        Autotune {
            max_buffer,
            buffer,
            rcv_ssthresh: initial,
            quick: 0,
            seen_data: false,
            space: initial.min(10 * mss),
            space_seq: 0,
            space_time: Time::ZERO,
            rtt8_us: 0,
            last_tsecr_rtt: None,
            win_seq: 0,
            win_time: None,
        }
    }

    /// The window to offer with `buffered` bytes held (tcp_space capped by rcv_ssthresh).
    pub fn window(&self, buffered: u64) -> u64 {
        self.space(buffered).min(self.rcv_ssthresh)
    }

    /// What the buffer offers with `buffered` bytes held (tcp_space).
    fn space(&self, buffered: u64) -> u64 {
        self.clamp().saturating_sub(buffered)
    }

    /// The largest window the buffer allows now (window_clamp).
    pub fn clamp(&self) -> u64 {
        window_of(self.buffer)
    }

    pub fn quick_acks(&self) -> u32 {
        self.quick
    }

    /// A data segment of `len` bytes arrived (`buffered`: bytes held after it, `rcv_mss`: the
    /// largest segment seen, `window`: the window now open to the peer). `delivered_to`: the
    /// in-order edge (rcv_nxt) after it; `tsecr_rtt`: now minus the segment's timestamp echo.
    /// Returns whether it must be acknowledged at once.
    #[allow(clippy::too_many_arguments)]
    pub fn on_data(
        &mut self,
        now: Time,
        len: u64,
        buffered: u64,
        rcv_mss: u64,
        window: u64,
        delivered_to: u64,
        tsecr_rtt: Option<Duration>,
    ) -> bool {
        if !self.seen_data {
            // tcp_event_data_recv: the first data segment starts the delayed-ACK engine in
            // quick-ACK mode (tcp_incr_quickack: at most one quick ACK per two segments of
            // window, at least 2, at most TCP_MAX_QUICKACKS).
            self.seen_data = true;
            let q = (window / (2 * rcv_mss.max(1))).max(2) as u32;
            self.quick = self.quick.max(q.min(MAX_QUICK_ACKS));
            self.space_time = now;
            self.space_seq = delivered_to.saturating_sub(len);
        }
        self.measure_rtt(now, len, rcv_mss, window, delivered_to, tsecr_rtt);
        // tcp_grow_window: room up to what the buffer offers; two segments (or twice this
        // one) per segment of at least 128 bytes, and a quick ACK for it (`quick |= 1`: while
        // the window grows, the start-up quick ACKs are not used up).
        let room = self.space(buffered).saturating_sub(self.rcv_ssthresh);
        if len >= 128 && room > 0 {
            self.rcv_ssthresh += room.min((2 * rcv_mss).max(2 * len));
            self.quick |= 1;
        }
        self.resize(now, delivered_to, rcv_mss);
        self.quick > 0
    }

    /// tcp_rcv_rtt_measure_ts (a new echo on a full segment) or tcp_rcv_rtt_measure (one window
    /// delivered).
    fn measure_rtt(
        &mut self,
        now: Time,
        len: u64,
        rcv_mss: u64,
        window: u64,
        delivered_to: u64,
        tsecr_rtt: Option<Duration>,
    ) {
        if let Some(rtt) = tsecr_rtt {
            if self.last_tsecr_rtt != Some(rtt) && len >= rcv_mss {
                // tcp_rcv_rtt_update (Linux >= 6.16): a sample below the estimate replaces it
                // at once, a larger one is smoothed in with gain 1/8. Queueing delay built up
                // in slow start so does not hold back the once-per-RTT resize.
                let m = (rtt.as_nanos() / 1000).max(1);
                self.rtt8_us = if self.rtt8_us == 0 || m << 3 < self.rtt8_us {
                    m << 3
                } else {
                    self.rtt8_us + m - (self.rtt8_us >> 3)
                };
            }
            self.last_tsecr_rtt = Some(rtt);
            return;
        }
        match self.win_time {
            Some(t) if delivered_to >= self.win_seq => {
                // A minimum over the samples.
                let m = (now.saturating_since(t).as_nanos() / 1000).max(1) << 3;
                if self.rtt8_us == 0 || m < self.rtt8_us {
                    self.rtt8_us = m;
                }
            }
            Some(_) => return,
            None => {}
        }
        self.win_seq = delivered_to + window;
        self.win_time = Some(now);
    }

    /// tcp_rcv_space_adjust, once per receiver RTT: a buffer for twice the bytes of the last
    /// RTT plus 16 segments, more while that amount is growing (slow start).
    fn resize(&mut self, now: Time, delivered_to: u64, mss: u64) {
        if self.rtt8_us == 0
            || (now.saturating_since(self.space_time).as_nanos() / 1000) < (self.rtt8_us >> 3)
        {
            return;
        }
        let copied = delivered_to.saturating_sub(self.space_seq);
        if copied > self.space {
            let mut win = 2 * copied + 16 * mss;
            let grow = win as u128 * (copied - self.space) as u128 / self.space.max(1) as u128;
            win += 2 * grow.min(u64::MAX as u128 / 4) as u64;
            let buffer = buffer_of(win).min(self.max_buffer);
            if buffer > self.buffer {
                self.buffer = buffer;
            }
            self.space = copied;
        }
        self.space_seq = delivered_to;
        self.space_time = now;
    }

    /// An ACK went out for scheduled data (tcp_dec_quickack_mode).
    pub fn on_ack_sent(&mut self) {
        self.quick = self.quick.saturating_sub(1);
    }

    /// The application read; `left` is the window the peer may still fill, `offer` the one we
    /// could offer now. tcp_cleanup_rbuf: a window update at once if the read at least
    /// doubled it (and the window left is at most half the clamp).
    pub fn read_opens_window(&self, left: u64, offer: u64) -> bool {
        2 * left <= self.clamp() && offer > 0 && offer >= 2 * left
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1448;

    /// The initial window is 45 segments (65 160 bytes, as Linux's SYN-ACK carries) and grows
    /// by two segments per segment up to 0.625 × 131 072 bytes (56.6 segments).
    #[test]
    fn window_grows_two_segments_per_segment_up_to_the_buffer() {
        let mut a = Autotune::new(6 << 20, MSS);
        assert_eq!(a.window(0), 65_160);
        let t = Time::from_millis(1);
        // The first segment: quick-ACK mode (16, and 16 | 1 = 17 as the window grows by 2 MSS).
        assert!(a.on_data(t, MSS, 0, MSS, a.window(0), MSS, None));
        assert_eq!(a.quick_acks(), 17);
        assert_eq!(a.window(0), 65_160 + 2 * MSS);
        for i in 2..=10 {
            a.on_data(t, MSS, 0, MSS, a.window(0), i * MSS, None);
        }
        // Capped by the buffer: 81 920 bytes.
        assert_eq!(a.window(0), window_of(INITIAL_BUFFER));
        assert_eq!(a.window(10_000), window_of(INITIAL_BUFFER) - 10_000);
    }

    /// Quick ACKs: 16 at the start; then one per segment only while the window grows.
    #[test]
    fn quick_acks_while_the_window_grows_then_none() {
        let mut a = Autotune::new(6 << 20, MSS);
        let t = Time::from_millis(1);
        let mut immediate = 0;
        for i in 1..=40u64 {
            if a.on_data(t, MSS, 0, MSS, a.window(0), i * MSS, None) {
                immediate += 1;
                a.on_ack_sent();
            }
        }
        // The window grows for 6 segments (65 160 + 5 · 2 896 < 81 920) without using up the
        // start-up quick ACKs (16 | 1 = 17, less one per ACK), which then last 16 more.
        assert_eq!(immediate, 22);
        assert!(!a.on_data(t, MSS, 0, MSS, a.window(0), 41 * MSS, None));
    }

    /// After one receiver RTT the buffer is resized from what arrived in it, and the window
    /// grows again, with a quick ACK per segment.
    #[test]
    fn one_rtt_later_the_buffer_grows_and_so_does_the_window() {
        let mut a = Autotune::new(6 << 20, MSS);
        let rtt = Duration::from_millis(45);
        let mut now = Time::from_millis(100);
        let mut edge = 0;
        for _ in 0..40 {
            edge += MSS;
            a.on_data(now, MSS, 0, MSS, a.window(0), edge, Some(rtt));
            a.on_ack_sent();
        }
        assert_eq!(a.clamp(), window_of(INITIAL_BUFFER));
        assert_eq!(a.quick_acks(), 0);
        now += Duration::from_millis(46);
        edge += MSS;
        // This segment ends the RTT: the buffer is resized after it (as Linux resizes when the
        // application reads), so the window grows, with a quick ACK, from the next one on.
        assert!(!a.on_data(now, MSS, 0, MSS, a.window(0), edge, Some(rtt)));
        // 41 segments in an RTT against 10 before: 2·41 + 16 segments, plus twice the growth.
        assert!(a.clamp() > 4 * window_of(INITIAL_BUFFER), "{}", a.clamp());
        edge += MSS;
        assert!(a.on_data(now, MSS, 0, MSS, a.window(0), edge, Some(rtt)));
        // Never beyond the configured buffer.
        let mut small = Autotune::new(200_000, MSS);
        let mut e = 0;
        for k in 0..5u64 {
            for _ in 0..60 {
                e += MSS;
                small.on_data(
                    Time::from_millis(100 + 50 * k),
                    MSS,
                    0,
                    MSS,
                    small.window(0),
                    e,
                    Some(rtt),
                );
            }
        }
        assert_eq!(small.clamp(), window_of(200_000));
    }

    #[test]
    fn a_read_that_doubles_the_window_left_updates_it() {
        let a = Autotune::new(6 << 20, MSS);
        assert!(a.read_opens_window(10 * MSS, 20 * MSS));
        assert!(!a.read_opens_window(10 * MSS, 19 * MSS));
        assert!(!a.read_opens_window(0, 0));
    }
}
