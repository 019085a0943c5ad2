//! Segment construction for a connection: what `poll_transmit` puts on the wire (SYN, SYN-ACK,
//! data, pure ACKs, resets) with its options — MSS, window scale, SACK-permitted, timestamps,
//! SACK blocks —, the advertised window, the ECN flags (ECE, CWR) and the codepoint of the IP
//! packet that carries it (RFC 3168 §6.1).

use super::{Connection, State};
use crate::ecn::Ecn;
use crate::sender::DataTx;
use crate::timers::Timer;
use rexmit_time::Time;
use rexmit_wire::{Payload, SackBlock, TcpFlags, TcpOptions, TcpSegment, Timestamps};

impl Connection {
    /// The next segment to put on the wire, if any. Call until `None`. An adapter that writes
    /// IP headers calls `poll_transmit_ecn` instead.
    #[inline]
    pub fn poll_transmit(&mut self, now: Time) -> Option<TcpSegment> {
        self.poll_transmit_ecn(now).map(|(seg, _)| seg)
    }

    /// The next segment and the ECN codepoint for the IP header that carries it: ECT(0) on
    /// new data once ECN is negotiated, Not-ECT on everything else — SYNs (RFC 3168 §6.1.1),
    /// pure ACKs (§6.1.4), retransmissions (§6.1.5), window probes (§6.1.6) and resets —
    /// unless the controller needs ECN (DCTCP's feedback, `ect_everywhere`).
    #[inline]
    pub fn poll_transmit_ecn(&mut self, now: Time) -> Option<(TcpSegment, Ecn)> {
        if self.nothing_to_send(now) {
            return None;
        }
        self.poll_segment(now)
    }

    /// Whether `poll_transmit` would certainly answer `None` and change nothing (hot path: the
    /// poll after each received segment usually finds nothing). Conservative, `false` meaning
    /// "maybe"; it follows `next_segment` step by step, and `Sender::nothing_to_send` follows
    /// `Sender::next_tx`.
    #[inline]
    pub fn nothing_to_send(&self, now: Time) -> bool {
        if self.rst_pending.is_some() || self.ack_pending.is_some() {
            return false;
        }
        match self.state {
            State::Closed | State::Listen => true,
            State::SynSent | State::SynReceived => !self.syn_pending,
            State::Established
            | State::CloseWait
            | State::FinWait1
            | State::Closing
            | State::LastAck => !self.rcv.ack_due() && self.snd.nothing_to_send(now, &self.timers),
            State::FinWait2 | State::TimeWait => !self.rcv.ack_due(),
        }
    }

    /// `poll_transmit` without the fast test.
    pub(super) fn poll_segment(&mut self, now: Time) -> Option<(TcpSegment, Ecn)> {
        let (seg, ecn) = self.next_segment(now)?;
        self.stats.segments_sent += 1;
        if !seg.payload.is_empty() {
            self.stats.data_segments_sent += 1;
        }
        if seg.flags.contains(TcpFlags::CWR) && !seg.flags.contains(TcpFlags::SYN) {
            self.stats.ecn_cwr_sent += 1;
        }
        self.refresh_send_gauges();
        self.check_invariants(Some(now));
        Some((seg, ecn))
    }

    fn next_segment(&mut self, now: Time) -> Option<(TcpSegment, Ecn)> {
        if let Some(rst) = self.rst_pending.take() {
            return Some((*rst, Ecn::NotEct));
        }
        if let Some(ack) = self.ack_pending.take() {
            return Some((*ack, self.control_ecn()));
        }
        match self.state {
            State::Closed | State::Listen => return None,
            State::SynSent | State::SynReceived => {
                if !self.syn_pending {
                    return None;
                }
                self.syn_pending = false;
                if self.syn_sent_at.is_none() {
                    self.syn_sent_at = Some(now);
                }
                self.timers.set(Timer::Handshake, now + self.snd.rtt.rto());
                let ack = self.state == State::SynReceived;
                let seg = self.syn_segment(now, ack);
                // Linux sets ECT on a SYN whose controller needs ECN, and on the SYN-ACK once
                // ECN is agreed (tcp_ecn_send_syn, tcp_ecn_make_synack).
                let ecn = match ack {
                    false
                        if self.ect_everywhere() && self.cfg.ecn == crate::config::EcnMode::On =>
                    {
                        Ecn::Ect0
                    }
                    true => self.control_ecn(),
                    false => Ecn::NotEct,
                };
                return Some((seg, ecn));
            }
            _ => {}
        }
        if matches!(
            self.state,
            State::Established
                | State::CloseWait
                | State::FinWait1
                | State::Closing
                | State::LastAck
        ) {
            if let Some(tx) = self.snd.next_tx(now, &mut self.stats, &mut self.timers) {
                let payload = if tx.len == 0 {
                    Payload::empty()
                } else {
                    self.snd.buf.payload(tx.start, tx.len as usize)
                };
                let mut flags = TcpFlags::ACK;
                if tx.fin {
                    flags.insert(TcpFlags::FIN);
                }
                let ecn = self.data_ecn(&tx, &mut flags);
                return Some((self.segment(now, tx.start, flags, payload), ecn));
            }
        }
        if self.rcv.ack_due() {
            let seq = self.snd.snd_max;
            let ack = self.segment(now, seq, TcpFlags::ACK, Payload::empty());
            return Some((ack, self.control_ecn()));
        }
        None
    }

    /// Whether this connection's controller needs ECN (DCTCP, RFC 8257): then, as Linux does
    /// for such a controller (`tcp_ca_needs_ecn`, INET_ECN_xmit on the socket), every packet
    /// once ECN is agreed is ECT(0) — pure ACKs, retransmissions, window probes — so that a
    /// step-marking queue marks them instead of dropping them (RFC 3168 §5).
    fn ect_everywhere(&self) -> bool {
        self.echo.feedback() == crate::ecn::Feedback::Dctcp
    }

    /// The codepoint of a pure ACK or a SYN-ACK: Not-ECT (RFC 3168 §6.1.4) unless the
    /// controller needs ECN and ECN is agreed.
    fn control_ecn(&self) -> Ecn {
        if self.ecn_ok && self.ect_everywhere() {
            Ecn::Ect0
        } else {
            Ecn::NotEct
        }
    }

    /// The codepoint of a data segment, and its CWR flag (RFC 3168 §6.1.2: on the first new
    /// data after a window reduction). New data is ECT(0) once ECN is negotiated; a
    /// retransmission (§6.1.5) and a window probe (§6.1.6) are Not-ECT and carry no CWR.
    fn data_ecn(&mut self, tx: &DataTx, flags: &mut TcpFlags) -> Ecn {
        if !self.ecn_ok || tx.rexmit.is_some() || tx.len == 0 || tx.window_probe {
            return self.control_ecn();
        }
        if self.snd.ecn.take_cwr() {
            flags.insert(TcpFlags::CWR);
        }
        Ecn::Ect0
    }

    fn syn_segment(&mut self, now: Time, ack: bool) -> TcpSegment {
        let mut options = TcpOptions {
            mss: Some(self.cfg.mss),
            ..TcpOptions::default()
        };
        // RFC 7323 §2.2 / RFC 2018 §2: a SYN-ACK carries an option only if the SYN did.
        let offer = !ack;
        if self.cfg.window_scaling && (offer || self.snd_wscale > 0 || self.rcv_wscale > 0) {
            options.window_scale = Some(self.rcv_wscale);
        }
        options.sack_permitted = self.cfg.sack && (offer || self.sack_ok);
        if self.cfg.timestamps && (offer || self.ts_ok) {
            options.timestamps = Some(Timestamps {
                tsval: crate::timers::ts_clock(now),
                tsecr: if ack { self.ts_recent } else { 0 },
            });
        }
        let mut flags = TcpFlags::SYN;
        // RFC 3168 §6.1.1: an ECN-setup SYN carries ECE and CWR, an ECN-setup SYN-ACK ECE.
        if !ack && self.cfg.ecn == crate::config::EcnMode::On {
            flags.insert(TcpFlags::ECE | TcpFlags::CWR);
        } else if ack && self.ecn_ok {
            flags.insert(TcpFlags::ECE);
        }
        let mut ack_no = 0;
        let mut window = self.rcv.window().min(65_535) as u16;
        if ack {
            flags.insert(TcpFlags::ACK);
            ack_no = self.irs.wire(self.rcv.rcv_nxt);
            let (wnd, _) = self.rcv.on_ack_sent(false, 0, &mut self.timers);
            self.last_ack_sent = self.rcv.rcv_nxt;
            // RFC 7323 §2.2: the window in a SYN is never scaled.
            window = wnd.min(65_535) as u16;
        }
        TcpSegment {
            src_port: self.local_port,
            dst_port: self.remote_port,
            seq: self.iss.wire(0),
            ack: ack_no,
            flags,
            window,
            urgent: 0,
            options,
            payload: Payload::empty(),
        }
    }

    /// A non-SYN segment: every one carries ACK, our window, (if negotiated) SACK blocks, and
    /// ECE while the receiver echoes a congestion mark (RFC 3168 §6.1.3, RFC 8257 §3.2).
    pub(super) fn segment(
        &mut self,
        now: Time,
        seq: u64,
        mut flags: TcpFlags,
        payload: Payload,
    ) -> TcpSegment {
        if self.ecn_ok && self.echo.ece() {
            flags.insert(TcpFlags::ECE);
        }
        let mut options = TcpOptions::default();
        if self.ts_ok {
            options.timestamps = Some(Timestamps {
                tsval: crate::timers::ts_clock(now),
                tsecr: self.ts_recent,
            });
        }
        let max_blocks = options.max_sack_blocks();
        let (wnd, blocks) = self
            .rcv
            .on_ack_sent(self.sack_ok, max_blocks, &mut self.timers);
        if blocks.first().is_some_and(|&(l, r)| {
            r <= self.rcv.rcv_nxt || blocks.get(1).is_some_and(|&(l2, r2)| l >= l2 && r <= r2)
        }) {
            self.stats.dsacks_sent += 1;
        }
        for &(l, r) in &blocks {
            options.sack_blocks.push(SackBlock {
                left: self.irs.wire(l),
                right: self.irs.wire(r),
            });
        }
        self.last_ack_sent = self.rcv.rcv_nxt;
        TcpSegment {
            src_port: self.local_port,
            dst_port: self.remote_port,
            seq: self.iss.wire(seq),
            ack: self.irs.wire(self.rcv.rcv_nxt),
            flags,
            window: (wnd >> self.rcv_wscale).min(65_535) as u16,
            urgent: 0,
            options,
            payload,
        }
    }

    /// RFC 9293 §3.10.7.1–4: a segment (other than a RST) for a closed connection, an ACK to a
    /// listener, or an unacceptable ACK of our SYN gets a RST — so that, for example, a peer
    /// still retransmitting its FIN after our TIME-WAIT ended stops.
    pub(super) fn answer_with_reset(&mut self, seg: &TcpSegment) {
        if seg.flags.contains(TcpFlags::RST) {
            return;
        }
        let (seq, ack, flags) = if seg.flags.contains(TcpFlags::ACK) {
            (seg.ack, 0, TcpFlags::RST)
        } else {
            (
                0,
                seg.seq.wrapping_add(seg.seq_len()),
                TcpFlags::RST | TcpFlags::ACK,
            )
        };
        self.rst_pending = Some(Box::new(TcpSegment {
            src_port: self.local_port,
            dst_port: seg.src_port,
            seq,
            ack,
            flags,
            window: 0,
            urgent: 0,
            options: TcpOptions::default(),
            payload: Payload::empty(),
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::CcAlgorithm;
    use crate::config::{RecoveryAlgorithm, TcpConfig};
    use crate::stats::TcpStats;
    use rexmit_time::Duration;

    /// Two connections joined by a path with a fixed delay that loses segments in bursts (a
    /// fixed pseudo-random pattern, both directions). Every poll goes through
    /// `poll_transmit_checked`: where the fast test says "nothing", the full path must send
    /// nothing and change no field.
    struct Path {
        a: Connection,
        b: Connection,
        /// (arrival, to `b`?, segment) in send order: one delay keeps it sorted.
        wire: std::collections::VecDeque<(Time, bool, TcpSegment)>,
        rng: u64,
        burst: u32,
        /// Fast "nothing" answers, and polls left to the full path.
        fast: u64,
        full: u64,
    }

    impl Path {
        fn poll(&mut self, now: Time) {
            for to_b in [true, false] {
                loop {
                    let conn = if to_b { &mut self.a } else { &mut self.b };
                    if conn.nothing_to_send(now) {
                        self.fast += 1;
                    } else {
                        self.full += 1;
                    }
                    let Some(seg) = conn.poll_transmit_checked(now) else {
                        break;
                    };
                    self.rng ^= self.rng << 13;
                    self.rng ^= self.rng >> 7;
                    self.rng ^= self.rng << 17;
                    if self.burst == 0 && self.rng % 100 < 3 {
                        self.burst = 1 + (self.rng >> 8) as u32 % 4;
                    }
                    if self.burst > 0 {
                        self.burst -= 1;
                    } else {
                        let delay = Duration::from_millis(20);
                        self.wire.push_back((now + delay, to_b, seg));
                    }
                }
            }
        }
    }

    /// A bulk transfer of `bytes` from `a` to `b`, whose application reads what arrived at
    /// once, or every `read_every` if given.
    /// Returns `a`'s statistics, the fast "nothing" answers and the full-path polls.
    fn lossy_transfer(
        cfg: TcpConfig,
        bytes: usize,
        read_every: Option<Duration>,
    ) -> (TcpStats, u64, u64) {
        let a = Connection::connect(cfg.clone(), 1000, 80, 7, Time::ZERO);
        transfer(a, Connection::listen(cfg, 80, 90_000), bytes, read_every)
    }

    /// `lossy_transfer` between `a` and `b`.
    fn transfer(
        a: Connection,
        b: Connection,
        bytes: usize,
        read_every: Option<Duration>,
    ) -> (TcpStats, u64, u64) {
        let mut p = Path {
            a,
            b,
            wire: Default::default(),
            rng: 0x2545_f491_4f6c_dd1d,
            burst: 0,
            fast: 0,
            full: 0,
        };
        let (mut written, mut read) = (0usize, 0usize);
        let mut next_read = Time::ZERO;
        let mut now = Time::ZERO;
        for _ in 0..100_000 {
            written += p.a.send(now, bytes - written);
            if now >= next_read {
                read += p.b.recv(usize::MAX).len();
                next_read = read_every.map_or(Time::ZERO, |d| now + d);
            }
            p.poll(now);
            if read == bytes && p.a.all_acked() {
                return (p.a.stats().clone(), p.fast, p.full);
            }
            let reader = read_every.map(|_| next_read);
            let timers = [p.a.poll_timeout(), p.b.poll_timeout(), reader];
            let arrival = p.wire.front().map(|w| w.0);
            now = timers
                .into_iter()
                .flatten()
                .chain(arrival)
                .min()
                .expect("a timer or a segment");
            // As the simulator's agents do: each arrival is handled and polled at once, timers
            // due at the same instant after them.
            while p.wire.front().is_some_and(|w| w.0 <= now) {
                let (_, to_b, seg) = p.wire.pop_front().expect("checked");
                if to_b {
                    p.b.handle_segment(now, &seg);
                } else {
                    p.a.handle_segment(now, &seg);
                }
                p.poll(now);
            }
            for c in [&mut p.a, &mut p.b] {
                if c.poll_timeout().is_some_and(|t| t <= now) {
                    c.handle_timeout(now);
                }
            }
        }
        panic!("transfer did not finish: read {read} of {bytes}, {:?}", p.a);
    }

    /// Connections of one `SharedConfig` (issue 40 step 6) behave as connections that each
    /// built their own controller and loss policy from a copy of the options: the same
    /// statistics after a lossy transfer, for controllers with state, parameters and pacing.
    #[test]
    fn shared_configuration_behaves_as_a_copied_one() {
        let sack = TcpConfig {
            recovery: RecoveryAlgorithm::Sack,
            sack: true,
            send_buffer: 64 * 1024,
            recv_buffer: 64 * 1024,
            ..TcpConfig::default()
        };
        let configs = [
            TcpConfig {
                rack: true,
                tlp: true,
                timestamps: true,
                ..sack.clone()
            },
            TcpConfig {
                cc: "htcp".into(),
                cc_params: crate::cc::registry::ParamMap::of(&[("delta_l_ms", 500.0)]),
                pacing: true,
                ..sack.clone()
            },
            TcpConfig {
                recovery: RecoveryAlgorithm::NewReno,
                sack: false,
                ..sack
            },
        ];
        for cfg in configs {
            cfg.validate().expect("valid");
            let copied = lossy_transfer(cfg.clone(), 300_000, None);
            let shared = crate::SharedConfig::new(cfg);
            let a = Connection::connect_shared(shared.clone(), 1000, 80, 7);
            let b = Connection::listen_shared(shared, 80, 90_000);
            let got = transfer(a, b, 300_000, None);
            let s = &copied.0;
            assert!(
                s.retransmits_fast + s.retransmits_timeout + s.retransmits_rack > 0,
                "the path lost nothing"
            );
            assert_eq!(format!("{got:?}"), format!("{copied:?}"));
        }
    }

    #[test]
    fn fast_empty_poll_test_agrees_with_the_full_transmit_path_under_loss() {
        let base = TcpConfig {
            send_buffer: 64 * 1024,
            recv_buffer: 64 * 1024,
            ..TcpConfig::default()
        };
        let sack = TcpConfig {
            recovery: RecoveryAlgorithm::Sack,
            sack: true,
            ..base.clone()
        };
        let configs = [
            // SACK (RFC 6675 NextSeg) with timestamps and limited transmit.
            TcpConfig {
                timestamps: true,
                limited_transmit: true,
                ..sack.clone()
            },
            // RACK-TLP: tail-loss probes and RACK's marks.
            TcpConfig {
                rack: true,
                tlp: true,
                prr: true,
                ..sack.clone()
            },
            // BBR: pacing holds segments and arms the pacing timer.
            TcpConfig {
                cc: CcAlgorithm::Bbr.into(),
                ..sack
            },
            // NewReno: fast retransmissions pending regardless of cwnd.
            TcpConfig {
                recovery: RecoveryAlgorithm::NewReno,
                ..base.clone()
            },
            // Tahoe: go-back-N after every loss; Nagle holds the last small segment.
            TcpConfig {
                recovery: RecoveryAlgorithm::Tahoe,
                nagle: true,
                ..base.clone()
            },
            // Reno with a slow reader behind a small window: zero windows, persist timer,
            // window probes and SWS avoidance.
            TcpConfig {
                recovery: RecoveryAlgorithm::Reno,
                recv_buffer: 4 * 1460,
                ..base
            },
        ];
        for (i, cfg) in configs.into_iter().enumerate() {
            let slow_reader = cfg.recv_buffer < 8 * 1460;
            let read_every = slow_reader.then(|| Duration::from_millis(300));
            let (st, fast, full) = lossy_transfer(cfg, 1_000_000, read_every);
            // The transfer lost segments and most empty polls took the fast test.
            assert!(st.retransmits() > 5, "config {i}: {st:?}");
            assert!(
                fast > 100 && full > 100,
                "config {i}: fast {fast}, full {full}"
            );
        }
    }
}
