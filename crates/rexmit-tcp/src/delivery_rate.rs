//! Delivery-rate samples (draft-cheng-iccrg-delivery-rate-estimation-02, as Linux's
//! tcp_rate.c): each transmitted segment remembers how much had been delivered when it was
//! sent; when it is delivered (cumulatively or by SACK), the data delivered in between over
//! the longer of the send and ACK intervals is one bandwidth sample. BBR runs on them.
//!
//! Owns: the per-segment send state (keyed by the segment's end offset, which retransmissions
//! keep) and the connection-wide `delivered` counters. Only kept when the congestion controller
//! asks for samples, so other controllers' runs never pay for it.

use rexmit_time::{Duration, Time};
use std::collections::BTreeMap;

/// What a segment carried away when it was (last) sent (draft §3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct TxState {
    len: u64,
    sent_at: Time,
    /// C.delivered when sent.
    delivered: u64,
    /// C.delivered_time when sent.
    delivered_time: Time,
    /// C.first_sent_time when sent.
    first_sent_time: Time,
    retransmitted: bool,
    /// Sent while the connection was application-limited (draft §3.2 P.is_app_limited).
    is_app_limited: bool,
}

/// One ACK's rate sample (draft §3.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct RateSample {
    /// Bytes delivered over `interval` (0 with no valid sample).
    pub delivered: u64,
    /// max(send interval, ACK interval); zero when the sample is invalid.
    pub interval: Duration,
    /// C.delivered when the most recently sent delivered segment left.
    pub prior_delivered: u64,
    /// Bytes this ACK newly delivered (cumulative + SACKed).
    pub acked_sacked: u64,
    /// Bytes in flight before the ACK was processed.
    pub prior_in_flight: u64,
    /// RTT of the most recently sent delivered segment that was never retransmitted.
    pub rtt: Option<Duration>,
    /// The most recently sent delivered segment left while the connection was
    /// application-limited (draft §3.3 rs.is_app_limited): the rate may be below what the
    /// path carries.
    pub is_app_limited: bool,
}

impl RateSample {
    /// Bytes per second, if the sample is valid.
    pub fn rate(&self) -> Option<u64> {
        (!self.interval.is_zero() && self.delivered > 0).then(|| {
            (self.delivered as u128 * 1_000_000_000 / self.interval.as_nanos() as u128) as u64
        })
    }
}

#[derive(Clone, Debug, Default)]
pub struct DeliveryRate {
    /// C.delivered: bytes delivered so far.
    pub delivered: u64,
    delivered_time: Time,
    first_sent_time: Time,
    in_flight: BTreeMap<u64, TxState>,
    /// The sample being built by the current ACK.
    current: Option<(TxState, u64)>,
    acked_sacked: u64,
    /// C.app_limited (draft §3.4, Linux tp->app_limited): while non-zero the connection is
    /// application-limited, until `delivered` passes it; 0 when not.
    app_limited: u64,
}

impl DeliveryRate {
    /// A segment ending at `end` of `len` bytes was (re)sent at `now` with `pipe` bytes in
    /// flight before it (draft §3.2: an idle connection restarts both clocks).
    pub fn on_send(&mut self, now: Time, end: u64, len: u64, pipe: u64, retransmission: bool) {
        if pipe == 0 {
            self.first_sent_time = now;
            self.delivered_time = now;
        }
        self.in_flight.insert(
            end,
            TxState {
                len,
                sent_at: now,
                delivered: self.delivered,
                delivered_time: self.delivered_time,
                first_sent_time: self.first_sent_time,
                retransmitted: retransmission,
                is_app_limited: self.app_limited != 0,
            },
        );
    }

    /// The application wrote while less than a segment was unsent, with room in cwnd and every
    /// lost segment resent (the sender decides: draft §3.4, Linux tcp_rate_check_app_limited):
    /// the bubble in the pipe lasts until what is now in flight is delivered.
    pub fn mark_app_limited(&mut self, in_flight: u64) {
        self.app_limited = (self.delivered + in_flight).max(1);
    }

    fn on_delivered(&mut self, now: Time, tx: TxState) {
        self.delivered += tx.len;
        self.acked_sacked += tx.len;
        self.delivered_time = now;
        // Draft §3.3: the sample follows the most recently sent of the delivered segments.
        let newer = match &self.current {
            None => true,
            Some((cur, _)) => {
                tx.delivered > cur.delivered
                    || (tx.delivered == cur.delivered && tx.sent_at > cur.sent_at)
            }
        };
        if newer {
            self.first_sent_time = tx.sent_at;
            self.current = Some((tx, 0));
        }
    }

    /// Every segment ending at or below `ack` is delivered.
    pub fn on_cum_ack(&mut self, now: Time, ack: u64) {
        while let Some((&end, _)) = self.in_flight.first_key_value() {
            if end > ack {
                break;
            }
            let tx = self.in_flight.remove(&end).expect("first key");
            self.on_delivered(now, tx);
        }
    }

    /// The segment ending at `end` was newly SACKed.
    pub fn on_sacked(&mut self, now: Time, end: u64) {
        if let Some(tx) = self.in_flight.remove(&end) {
            self.on_delivered(now, tx);
        }
    }

    /// Close the current ACK's sample. Samples whose interval is below `min_rtt` are invalid
    /// (draft §3.3, Linux tcp_rate_gen: they would overestimate the rate).
    pub fn take_sample(
        &mut self,
        now: Time,
        prior_in_flight: u64,
        min_rtt: Option<Duration>,
    ) -> RateSample {
        let acked_sacked = std::mem::take(&mut self.acked_sacked);
        // Draft §3.3 (Linux tcp_rate_gen): the bubble is gone once it is delivered.
        if self.app_limited != 0 && self.delivered > self.app_limited {
            self.app_limited = 0;
        }
        let Some((tx, _)) = self.current.take() else {
            return RateSample {
                acked_sacked,
                prior_in_flight,
                ..RateSample::default()
            };
        };
        let send_elapsed = tx.sent_at.saturating_since(tx.first_sent_time);
        let ack_elapsed = self.delivered_time.saturating_since(tx.delivered_time);
        let interval = send_elapsed.max(ack_elapsed);
        let rtt = (!tx.retransmitted).then(|| now.saturating_since(tx.sent_at));
        let valid = !interval.is_zero() && min_rtt.is_none_or(|m| interval >= m);
        RateSample {
            delivered: if valid {
                self.delivered - tx.delivered
            } else {
                0
            },
            interval: if valid { interval } else { Duration::ZERO },
            prior_delivered: tx.delivered,
            acked_sacked,
            prior_in_flight,
            rtt,
            is_app_limited: tx.is_app_limited,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(m: u64) -> Time {
        Time::from_millis(m)
    }

    /// The first flight from idle: ten 1000-byte segments sent 1 ms apart, ACKed one by one
    /// 100 ms later. Each was sent before anything was delivered, so its sample spans the whole
    /// round trip (draft §3.3: the ACK interval, 100 + i ms, is the longer one). The second
    /// flight's samples measure one window per round trip, 10 000 B per 110 ms.
    #[test]
    fn the_first_flight_from_idle_spans_the_round_trip_and_the_second_sees_the_rate() {
        let mut r = DeliveryRate::default();
        for i in 0..10u64 {
            r.on_send(ms(i), (i + 1) * 1000, 1000, i * 1000, false);
        }
        let mut rates = Vec::new();
        for i in 0..10u64 {
            r.on_cum_ack(ms(100 + i), (i + 1) * 1000);
            let s = r.take_sample(ms(100 + i), (10 - i) * 1000, Some(Duration::from_millis(5)));
            assert_eq!(s.acked_sacked, 1000);
            assert_eq!(s.rtt, Some(Duration::from_millis(100)));
            rates.push(s.rate());
        }
        // Segment i: (i+1)·1000 B delivered over max(i ms, 100 + i ms).
        assert_eq!(rates[0], Some(1000 * 1000 / 100));
        assert_eq!(rates[9], Some(10_000 * 1000 / 109));
        // Second flight: sent 1 ms apart while the first one's ACKs came 1 ms apart.
        for i in 0..10u64 {
            r.on_send(ms(110 + i), 11_000 + i * 1000, 1000, 1000, false);
        }
        let mut last = None;
        for i in 0..10u64 {
            r.on_cum_ack(ms(210 + i), 11_000 + i * 1000);
            last = r
                .take_sample(ms(210 + i), 1000, Some(Duration::from_millis(5)))
                .rate();
        }
        // Segment 19 left at 119 ms when 10 000 B had been delivered (clock 109 ms); at 219 ms
        // 20 000 B are: 10 000 B over 110 ms.
        assert_eq!(last, Some(10_000 * 1000 / 110));
    }

    /// A SACKed segment counts as delivered; the later cumulative ACK does not count it twice.
    #[test]
    fn sacked_segments_are_delivered_once() {
        let mut r = DeliveryRate::default();
        for i in 0..3u64 {
            r.on_send(ms(i), (i + 1) * 1000, 1000, i * 1000, false);
        }
        r.on_sacked(ms(50), 3000);
        let s = r.take_sample(ms(50), 3000, None);
        assert_eq!((s.acked_sacked, r.delivered), (1000, 1000));
        r.on_cum_ack(ms(60), 3000);
        let s = r.take_sample(ms(60), 2000, None);
        assert_eq!((s.acked_sacked, r.delivered), (2000, 3000));
    }

    /// Draft §3.4: segments sent after the application left the pipe short carry the mark, and
    /// so does the sample they end; once what was in flight then is delivered, it is gone.
    #[test]
    fn samples_of_segments_sent_while_app_limited_carry_the_mark_until_the_bubble_is_delivered() {
        let mut r = DeliveryRate::default();
        r.on_send(ms(0), 1000, 1000, 0, false);
        r.on_cum_ack(ms(100), 1000);
        assert!(!r.take_sample(ms(100), 1000, None).is_app_limited);
        // The application writes one segment with nothing in flight: C.app_limited = 1000 + 0.
        r.mark_app_limited(0);
        r.on_send(ms(100), 2000, 1000, 0, false);
        r.on_send(ms(101), 3000, 1000, 1000, false);
        r.on_cum_ack(ms(200), 2000);
        assert!(r.take_sample(ms(200), 2000, None).is_app_limited);
        // Delivered (2000) passed the mark: segments sent from now on are not marked.
        r.on_send(ms(200), 4000, 1000, 1000, false);
        r.on_cum_ack(ms(201), 3000);
        assert!(
            r.take_sample(ms(201), 2000, None).is_app_limited,
            "sent at 101 ms"
        );
        r.on_cum_ack(ms(300), 4000);
        assert!(!r.take_sample(ms(300), 1000, None).is_app_limited);
    }

    #[test]
    fn a_retransmitted_segment_gives_no_rtt() {
        let mut r = DeliveryRate::default();
        r.on_send(ms(0), 1000, 1000, 0, false);
        r.on_send(ms(300), 1000, 1000, 1000, true);
        r.on_cum_ack(ms(310), 1000);
        assert_eq!(r.take_sample(ms(310), 1000, None).rtt, None);
    }
}
