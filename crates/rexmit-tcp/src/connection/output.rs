//! Segment construction for a connection: what `poll_transmit` puts on the wire (SYN, SYN-ACK,
//! data, pure ACKs, resets) with its options — MSS, window scale, SACK-permitted, timestamps,
//! SACK blocks — and the advertised window.

use super::{Connection, State};
use crate::timers::Timer;
use rexmit_time::Time;
use rexmit_wire::{Payload, SackBlock, TcpFlags, TcpOptions, TcpSegment, Timestamps};

impl Connection {
    /// The next segment to put on the wire, if any. Call until `None`.
    pub fn poll_transmit(&mut self, now: Time) -> Option<TcpSegment> {
        let seg = self.next_segment(now)?;
        self.stats.segments_sent += 1;
        if !seg.payload.is_empty() {
            self.stats.data_segments_sent += 1;
        }
        self.refresh_send_gauges();
        self.check_invariants(Some(now));
        Some(seg)
    }

    fn next_segment(&mut self, now: Time) -> Option<TcpSegment> {
        if let Some(rst) = self.rst_pending.take() {
            return Some(rst);
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
                return Some(self.syn_segment(now, ack));
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
                return Some(self.segment(now, tx.start, flags, payload));
            }
        }
        if self.rcv.ack_due() {
            let seq = self.snd.snd_max;
            return Some(self.segment(now, seq, TcpFlags::ACK, Payload::empty()));
        }
        None
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
                tsval: ts_clock(now),
                tsecr: if ack { self.ts_recent } else { 0 },
            });
        }
        let mut flags = TcpFlags::SYN;
        let mut ack_no = 0;
        let mut window = self.cfg.recv_buffer.min(65_535) as u16;
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

    /// A non-SYN segment: every one carries ACK, our window and (if negotiated) SACK blocks.
    fn segment(&mut self, now: Time, seq: u64, flags: TcpFlags, payload: Payload) -> TcpSegment {
        let mut options = TcpOptions::default();
        if self.ts_ok {
            options.timestamps = Some(Timestamps {
                tsval: ts_clock(now),
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
        self.rst_pending = Some(TcpSegment {
            src_port: self.local_port,
            dst_port: seg.src_port,
            seq,
            ack,
            flags,
            window: 0,
            urgent: 0,
            options: TcpOptions::default(),
            payload: Payload::empty(),
        });
    }
}

/// RFC 7323 §5.4: a timestamp clock of 1 ms.
pub(super) fn ts_clock(now: Time) -> u32 {
    (now.as_nanos() / 1_000_000) as u32
}
