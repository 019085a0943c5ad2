//! Application-to-application message latency, split by how many retransmissions a message
//! needed (seed 004 §6, Fig. 8: average, 99th percentile and maximum latency per
//! retransmission; seed 002 §IV: application-to-application delay).
//!
//! The log is ground truth shared by a flow's two adapters: the sender records when the
//! application handed over each message and how often each of its chunks or bytes went on the
//! wire; the receiver records when the message reached its application. A message's
//! retransmission count is the most transmissions of any of its chunks (SCTP) or bytes (TCP)
//! before it was delivered, minus one.

use crate::truth::TxCounts;
use rexmit_time::{Duration, Time};
use std::collections::VecDeque;

/// Retransmission-count buckets of the metrics: 0, 1, 2, 3 and 4 or more.
pub const RTX_BUCKETS: usize = 5;

#[derive(Clone, Copy, Debug)]
struct Sent {
    at: Time,
    size: u32,
    /// Most transmissions of any of the message's chunks so far.
    max_tx: u32,
}

/// One message that reached the receiving application.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delivery {
    pub msg: u64,
    pub sent: Time,
    pub latency: Duration,
    pub rtx: u32,
    pub size: u32,
}

/// Integer columns of one per-flow table (e.g. `messages`), for the results.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlowTable {
    pub table: &'static str,
    pub columns: Vec<(&'static str, Vec<u64>)>,
}

/// Something an app's adapters share that yields per-flow tables after the run.
pub trait Tables {
    fn tables(&self) -> Vec<FlowTable>;
    /// What the user should know about these tables (e.g. a trace cut short), one line each.
    fn warnings(&self) -> Vec<String> {
        Vec::new()
    }
}

/// Messages of one flow: when each was sent and, once delivered, its latency.
#[derive(Clone, Debug, Default)]
pub struct MessageLog {
    /// Indexed by message number.
    sent: Vec<Sent>,
    delivered: Vec<Delivery>,
    /// Statistics count messages sent at or after this time (the warm-up).
    measure_from: Time,
}

impl MessageLog {
    pub fn new(measure_from: Time) -> Self {
        MessageLog {
            measure_from,
            ..Self::default()
        }
    }

    /// The application handed message `msg` (numbered from 0 in sending order) of `size` bytes
    /// to the transport at `at`.
    pub fn on_send(&mut self, msg: u64, at: Time, size: u32) {
        let i = msg as usize;
        if i >= self.sent.len() {
            self.sent.resize(
                i + 1,
                Sent {
                    at,
                    size,
                    max_tx: 0,
                },
            );
        }
        self.sent[i] = Sent {
            at,
            size,
            max_tx: 0,
        };
    }

    /// A chunk of message `msg` went on the wire for the `transmissions`-th time.
    pub fn on_transmission(&mut self, msg: u64, transmissions: u32) {
        if let Some(s) = self.sent.get_mut(msg as usize) {
            s.max_tx = s.max_tx.max(transmissions);
        }
    }

    /// The message number whose low 32 bits are `low` (an SCTP PPID): the latest one sent.
    pub fn unwrap_msg(&self, low: u32) -> u64 {
        unwrap_low32(self.sent.len().saturating_sub(1) as u64, low)
    }

    /// Message `msg` reached the receiving application at `now`; its retransmission count is
    /// taken from the transmissions recorded so far.
    pub fn on_delivery(&mut self, msg: u64, now: Time) {
        let rtx = self
            .sent
            .get(msg as usize)
            .map_or(0, |s| s.max_tx.saturating_sub(1));
        self.on_delivery_with_rtx(msg, now, rtx);
    }

    /// Message `msg` reached the receiving application at `now` after `rtx` retransmissions.
    pub fn on_delivery_with_rtx(&mut self, msg: u64, now: Time, rtx: u32) {
        let Some(s) = self.sent.get(msg as usize) else {
            return;
        };
        self.delivered.push(Delivery {
            msg,
            sent: s.at,
            latency: now.saturating_since(s.at),
            rtx,
            size: s.size,
        });
    }

    pub fn sent(&self) -> u64 {
        self.sent.len() as u64
    }

    pub fn delivered(&self) -> &[Delivery] {
        &self.delivered
    }

    /// Latency statistics of the messages sent from the warm-up on: overall and per
    /// retransmission count (`latency_rtx0_*` … `latency_rtx3_*`, `latency_rtx4plus_*`), each
    /// with count, mean, p99 and max (seconds).
    pub fn metrics(&self) -> Vec<(String, f64)> {
        let counted: Vec<&Delivery> = self
            .delivered
            .iter()
            .filter(|d| d.sent >= self.measure_from)
            .collect();
        let mut all: Vec<f64> = counted.iter().map(|d| d.latency.as_secs_f64()).collect();
        let mut buckets: [Vec<f64>; RTX_BUCKETS] = Default::default();
        for d in &counted {
            buckets[(d.rtx as usize).min(RTX_BUCKETS - 1)].push(d.latency.as_secs_f64());
        }
        let sent_from = self
            .sent
            .iter()
            .filter(|s| s.at >= self.measure_from)
            .count();
        let mut m = vec![
            (
                "messages_delivered".to_string(),
                self.delivered.len() as f64,
            ),
            (
                "messages_undelivered".to_string(),
                (sent_from - counted.len()) as f64,
            ),
        ];
        let (_, mean, p99, max) = summary(&mut all);
        m.extend([
            ("latency_mean_s".to_string(), mean),
            ("latency_p99_s".to_string(), p99),
            ("latency_max_s".to_string(), max),
        ]);
        for (i, b) in buckets.iter_mut().enumerate() {
            let name = if i + 1 == RTX_BUCKETS {
                format!("rtx{i}plus")
            } else {
                format!("rtx{i}")
            };
            let (n, mean, p99, max) = summary(b);
            m.extend([
                (format!("latency_{name}_count"), n),
                (format!("latency_{name}_mean_s"), mean),
                (format!("latency_{name}_p99_s"), p99),
                (format!("latency_{name}_max_s"), max),
            ]);
        }
        m
    }

    /// Every delivered message: number, send time, latency (ns), retransmissions, size.
    pub fn table(&self) -> FlowTable {
        let col = |f: fn(&Delivery) -> u64| self.delivered.iter().map(f).collect::<Vec<u64>>();
        FlowTable {
            table: "messages",
            columns: vec![
                ("msg", col(|d| d.msg)),
                ("sent_ns", col(|d| d.sent.as_nanos())),
                ("latency_ns", col(|d| d.latency.as_nanos())),
                ("rtx", col(|d| d.rtx as u64)),
                ("size", col(|d| d.size as u64)),
            ],
        }
    }
}

/// The largest number ≤ `latest` whose low 32 bits are `low` (or the smallest one, if none).
fn unwrap_low32(latest: u64, low: u32) -> u64 {
    let cand = (latest & !0xFFFF_FFFF) | low as u64;
    if cand > latest && cand >= 1 << 32 {
        cand - (1 << 32)
    } else {
        cand
    }
}

/// Count, mean, 99th percentile (nearest rank on the sorted values) and maximum; NaN when empty.
pub fn summary(v: &mut [f64]) -> (f64, f64, f64, f64) {
    if v.is_empty() {
        return (0.0, f64::NAN, f64::NAN, f64::NAN);
    }
    // Equal under total_cmp means bit-identical, so an unstable sort gives the same order.
    v.sort_unstable_by(f64::total_cmp);
    let n = v.len();
    let p99 = v[((n - 1) as f64 * 0.99).round() as usize];
    (n as f64, v.iter().sum::<f64>() / n as f64, p99, v[n - 1])
}

/// Message boundaries of a TCP byte stream and the transmissions of its bytes: the sender
/// appends messages and counts every segment it emits, the receiver reports how many bytes
/// reached its application in order, which delivers every message ending at or before them.
#[derive(Clone, Debug, Default)]
pub struct StreamTruth {
    pub log: MessageLog,
    /// Messages not yet delivered: (number, first byte offset, end offset).
    pending: VecDeque<(u64, u64, u64)>,
    /// Offsets of the bytes written so far (the next message starts here).
    written_end: u64,
    tx: TxCounts,
}

impl StreamTruth {
    pub fn new(measure_from: Time) -> Self {
        StreamTruth {
            log: MessageLog::new(measure_from),
            ..Self::default()
        }
    }

    /// The application wrote a message of `size` bytes at `at`; returns its number.
    pub fn on_message(&mut self, at: Time, size: u32) -> u64 {
        let msg = self.log.sent();
        self.log.on_send(msg, at, size);
        let start = self.written_end;
        self.written_end += size as u64;
        self.pending.push_back((msg, start, self.written_end));
        msg
    }

    /// Bytes `[start, end)` of the stream went on the wire once more.
    pub fn on_transmit(&mut self, start: u64, end: u64) {
        self.tx.add(start, end);
    }

    /// The receiving application has now read `total` bytes in order.
    pub fn on_delivered(&mut self, total: u64, now: Time) {
        while let Some(&(msg, start, end)) = self.pending.front() {
            if end > total {
                break;
            }
            let rtx = self.tx.max(start, end).saturating_sub(1);
            self.log.on_delivery_with_rtx(msg, now, rtx);
            self.pending.pop_front();
        }
        let keep_from = self
            .pending
            .front()
            .map_or(total, |&(_, start, _)| start.min(total));
        self.tx.forget_below(keep_from);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metrics_split_latency_by_retransmission_count() {
        let mut log = MessageLog::new(Time::from_millis(100));
        let ms = Time::from_millis;
        // Message 0 is sent before the warm-up: in the table, not in the statistics.
        for (i, at) in [50, 200, 300, 400, 500].into_iter().enumerate() {
            log.on_send(i as u64, ms(at), 100);
            log.on_transmission(i as u64, 1);
        }
        log.on_transmission(2, 2);
        log.on_transmission(3, 2);
        log.on_transmission(3, 6);
        log.on_delivery(0, ms(60));
        log.on_delivery(1, ms(210));
        log.on_delivery(2, ms(1310));
        log.on_delivery(3, ms(3400));
        let m: std::collections::BTreeMap<String, f64> = log.metrics().into_iter().collect();
        assert_eq!(m["messages_delivered"], 4.0);
        assert_eq!(m["messages_undelivered"], 1.0, "message 4 never arrived");
        assert_eq!(m["latency_rtx0_count"], 1.0);
        assert!((m["latency_rtx0_mean_s"] - 0.010).abs() < 1e-12);
        assert_eq!(m["latency_rtx1_count"], 1.0);
        assert!((m["latency_rtx1_max_s"] - 1.010).abs() < 1e-12);
        assert_eq!(m["latency_rtx2_count"], 0.0);
        assert!(m["latency_rtx2_mean_s"].is_nan());
        assert_eq!(
            m["latency_rtx4plus_count"], 1.0,
            "six transmissions are five retransmissions"
        );
        assert!((m["latency_max_s"] - 3.0).abs() < 1e-12);
        let t = log.table();
        assert_eq!(t.columns[0], ("msg", vec![0, 1, 2, 3]));
        assert_eq!(t.columns[3], ("rtx", vec![0, 0, 1, 5]));
    }

    #[test]
    fn ppid_low_bits_unwrap_to_the_latest_message() {
        let latest = (1 << 32) + 5;
        assert_eq!(unwrap_low32(latest, 5), (1 << 32) + 5);
        assert_eq!(
            unwrap_low32(latest, 7),
            7,
            "not sent yet in this epoch: the previous one"
        );
        assert_eq!(unwrap_low32(latest, 3), (1 << 32) + 3);
        assert_eq!(unwrap_low32(9, 3), 3);
    }

    #[test]
    fn stream_messages_take_the_most_transmitted_byte() {
        let mut s = StreamTruth::new(Time::ZERO);
        let ms = Time::from_millis;
        s.on_message(ms(0), 100); // bytes 0..100
        s.on_message(ms(10), 100); // 100..200
        s.on_message(ms(20), 50); // 200..250
        s.on_transmit(0, 150);
        s.on_transmit(150, 250);
        s.on_transmit(120, 130); // one retransmission inside message 1
        s.on_delivered(99, ms(30));
        assert!(s.log.delivered().is_empty());
        s.on_delivered(250, ms(40));
        let d = s.log.delivered();
        assert_eq!(
            d.iter()
                .map(|d| (d.msg, d.rtx, d.latency))
                .collect::<Vec<_>>(),
            vec![
                (0, 0, ms(40) - ms(0)),
                (1, 1, ms(30) - ms(0)),
                (2, 0, ms(20) - ms(0))
            ]
        );
    }
}
