//! Proportional Rate Reduction (RFC 6937): during SACK loss recovery the window follows the
//! data delivered, so that by the end of recovery cwnd has come down to ssthresh smoothly
//! instead of at once, with slow-start reduction bound (PRR-SSRB) when pipe falls below it.

/// PRR state for one recovery episode (RFC 6937 §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prr {
    /// RecoverFS: FlightSize at the start of recovery.
    pub recover_fs: u64,
    pub prr_delivered: u64,
    pub prr_out: u64,
    /// What the proportional part rounds up to: 1 byte (RFC 6937 in bytes) or one segment
    /// (`WindowUnit::Segments`: Linux's tcp_cwnd_reduction counts packets, so one packet
    /// delivered at β = 1/2 already releases ⌈1/2⌉ = 1 packet).
    pub unit: u64,
}

impl Prr {
    pub fn new(recover_fs: u64, unit: u64) -> Self {
        Prr {
            recover_fs: recover_fs.max(1),
            prr_delivered: 0,
            prr_out: 0,
            unit: unit.max(1),
        }
    }

    /// RFC 6937 §3, on every ACK in recovery: returns the new cwnd = pipe + sndcnt.
    pub fn on_ack(&mut self, delivered_data: u64, pipe: u64, ssthresh: u64, smss: u64) -> u64 {
        self.prr_delivered += delivered_data;
        let sndcnt = if pipe > ssthresh {
            // Proportional part: CEIL(prr_delivered · ssthresh / RecoverFS) − prr_out.
            ((self.prr_delivered * ssthresh)
                .div_ceil(self.recover_fs)
                .div_ceil(self.unit)
                * self.unit)
                .saturating_sub(self.prr_out)
        } else {
            // PRR-SSRB: limit = MAX(prr_delivered − prr_out, DeliveredData) + MSS.
            let limit = self
                .prr_delivered
                .saturating_sub(self.prr_out)
                .max(delivered_data)
                + smss;
            (ssthresh - pipe).min(limit)
        };
        pipe + sndcnt
    }

    /// Data sent (new or retransmitted) during recovery.
    pub fn on_sent(&mut self, bytes: u64) {
        self.prr_out += bytes;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_segment_per_two_acks_when_halving() {
        // RFC 6937 §3 example shape: RecoverFS 20, ssthresh 10, one segment delivered per ACK.
        let mut p = Prr::new(20, 1);
        let mut sent = Vec::new();
        let mut pipe = 19;
        for _ in 0..6 {
            let cwnd = p.on_ack(1, pipe, 10, 1);
            let n = cwnd.saturating_sub(pipe);
            p.on_sent(n);
            sent.push(n);
            pipe = pipe - 1 + n;
        }
        assert_eq!(sent, vec![1, 0, 1, 0, 1, 0]);
    }

    #[test]
    fn slow_start_reduction_bound_when_pipe_below_ssthresh() {
        let mut p = Prr::new(20, 1);
        // Heavy loss: pipe 4 < ssthresh 10; 3 segments delivered by this ACK → at most
        // MAX(3 − 0, 3) + 1 = 4 segments, and not beyond ssthresh.
        assert_eq!(p.on_ack(3, 4, 10, 1), 8);
    }

    #[test]
    fn in_whole_segments_the_first_delivered_segment_releases_one() {
        // RecoverFS 20 segments of 1000 B, ssthresh 10: the first ACK delivering one segment
        // allows ⌈1000 · 10 / 20⌉ = 500 B in bytes (nothing to send yet) but ⌈1/2⌉ = 1
        // segment when counted in segments, as Linux's tcp_cwnd_reduction does.
        let (mut bytes, mut segs) = (Prr::new(20_000, 1), Prr::new(20_000, 1000));
        assert_eq!(bytes.on_ack(1000, 19_000, 10_000, 1000), 19_500);
        assert_eq!(segs.on_ack(1000, 19_000, 10_000, 1000), 20_000);
        segs.on_sent(1000);
        // Second ACK: ⌈2 · 10 / 20⌉ = 1 segment in total, already sent.
        assert_eq!(segs.on_ack(1000, 19_000, 10_000, 1000), 19_000);
        // Over a round both send half of what was delivered.
        for _ in 0..18 {
            let c = segs.on_ack(1000, 19_000, 10_000, 1000);
            segs.on_sent(c - 19_000);
        }
        assert_eq!(segs.prr_out, 10_000);
    }
}
