//! The SCTP core under a script: a `rexmit_sctp::Association` between 192.168.0.1 (ours) and
//! 192.0.2.1 (the script's), one path. Inbound lines get the verification tag RFC 9260 §8.5
//! asks for (0 for INIT, the peer's tag for a T-flagged ABORT or SHUTDOWN COMPLETE, ours
//! otherwise); outbound packets must carry the tag the script's INIT or INIT ACK gave. `write`
//! sends one message on stream 0; `read` returns delivered messages. Assertions read the
//! primary path's state (`sctpi_*`, `VARS`).

use crate::ast::{Dir, EventKind};
use crate::host::{ConnError, Proto, Wire};
use crate::sctp_chunks::{self, Numbering};
use crate::settings::{SetResult, Settings, SockVal};
use rexmit_sctp::{AbortReason, Association, AssociationState, Event, SctpConfig, SendError};
use rexmit_time::Time;
use rexmit_wire::{Chunk, Payload, SctpPacket};
use std::collections::VecDeque;
use std::net::Ipv4Addr;

const LOCAL_IP: Ipv4Addr = Ipv4Addr::new(192, 168, 0, 1);
const REMOTE_IP: Ipv4Addr = Ipv4Addr::new(192, 0, 2, 1);
const SERVER_PORT: u16 = 8080;
const CLIENT_PORT: u16 = 40_000;
/// Our verification tag and first TSN (the script writes TSNs from 1 unless its INIT line
/// names another).
const LOCAL_TAG: u32 = 0x5c71_0001;
const LOCAL_TSN: u32 = 3_000_000;

/// (name, meaning) of every variable an SCTP script's assertions read.
pub const VARS: &[(&str, &str)] = &[
    ("sctpi_state", "SCTP_CLOSED 1, SCTP_COOKIE_WAIT 2, SCTP_COOKIE_ECHOED 3, SCTP_ESTABLISHED 4, SCTP_SHUTDOWN_PENDING 5, SCTP_SHUTDOWN_SENT 6, SCTP_SHUTDOWN_RECEIVED 7, SCTP_SHUTDOWN_ACK_SENT 8 (Linux's numbers)"),
    ("sctpi_cwnd", "primary path's cwnd, bytes"),
    ("sctpi_ssthresh", "primary path's ssthresh, bytes"),
    ("sctpi_pba", "primary path's partial_bytes_acked, bytes"),
    ("sctpi_flight", "bytes in flight, all paths"),
    ("sctpi_mtu", "path MTU, bytes"),
    ("sctpi_rto", "primary path's RTO with backoff, microseconds"),
    ("sctpi_srtt", "primary path's SRTT, microseconds (0 before a sample)"),
    ("sctpi_rttvar", "primary path's RTTVAR, microseconds"),
    ("sctpi_error_count", "primary path's error counter"),
    ("sctpi_unacked", "DATA chunks sent and not cumulatively acknowledged (nr-acked ones included)"),
    ("sctpi_gap_acked", "of those, gap-acked (renegable)"),
    ("sctpi_rtxq_bytes", "bytes the retransmission queue holds (nr-acked chunks are freed)"),
    ("sctpi_in_fast_recovery", "1 while in fast recovery"),
    ("sctpi_retransmissions", "DATA chunks retransmitted"),
    ("sctpi_fast_retransmits", "fast retransmit events"),
    ("sctpi_timeouts", "T3-rtx expiries"),
    ("sctpi_sacks_sent", "SACK chunks sent"),
    ("sctpi_nr_sacks_sent", "NR-SACK chunks sent"),
    ("sctpi_data_chunks_sent", "DATA chunks sent (first transmissions and retransmissions)"),
];

const CONSTANTS: &[(&str, f64)] = &[
    ("SCTP_CLOSED", 1.0),
    ("SCTP_COOKIE_WAIT", 2.0),
    ("SCTP_COOKIE_ECHOED", 3.0),
    ("SCTP_ESTABLISHED", 4.0),
    ("SCTP_SHUTDOWN_PENDING", 5.0),
    ("SCTP_SHUTDOWN_SENT", 6.0),
    ("SCTP_SHUTDOWN_RECEIVED", 7.0),
    ("SCTP_SHUTDOWN_ACK_SENT", 8.0),
];

/// A Linux SCTP constant by name.
pub fn constant(name: &str) -> Option<f64> {
    CONSTANTS.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
}

#[derive(Default)]
pub struct SctpHost {
    assoc: Option<Association>,
    cfg: Option<SctpConfig>,
    local_port: u16,
    remote_port: u16,
    established: bool,
    peer_closed: bool,
    closed_by_app: bool,
    error: Option<ConnError>,
    /// The peer's tag from its INIT or INIT ACK line.
    peer_tag: Option<u32>,
    numbering: Numbering,
    /// Lengths of delivered messages not read yet.
    delivered: VecDeque<usize>,
}

impl SctpHost {
    pub fn new() -> Self {
        SctpHost {
            numbering: Numbering {
                tsn_offset: LOCAL_TSN.wrapping_sub(1),
                ..Numbering::default()
            },
            ..SctpHost::default()
        }
    }

    fn packet(&mut self, p: &crate::ast::SctpPacket) -> Result<SctpPacket, String> {
        let mut chunks = Vec::new();
        for c in &p.chunks {
            let chunk = sctp_chunks::build(c, &self.numbering)?;
            if let Chunk::Init(i) | Chunk::InitAck(i) = &chunk {
                self.peer_tag = Some(i.initiate_tag);
            }
            chunks.push(chunk);
        }
        let vtag = match chunks.first() {
            Some(Chunk::Init(_)) => 0,
            Some(Chunk::Abort { t_bit: true, .. })
            | Some(Chunk::ShutdownComplete { t_bit: true }) => self.peer_tag.unwrap_or(0),
            _ => LOCAL_TAG,
        };
        Ok(SctpPacket {
            src_port: self.remote_port,
            dst_port: self.local_port,
            verification_tag: vtag,
            chunks,
        })
    }
}

impl Proto for SctpHost {
    fn exists(&self) -> bool {
        self.assoc.is_some()
    }

    fn listen(&mut self, settings: &Settings) -> SetResult<()> {
        let cfg = settings.sctp_config()?;
        self.local_port = SERVER_PORT;
        self.remote_port = CLIENT_PORT;
        self.assoc = Some(Association::listen(
            cfg.clone(),
            vec![LOCAL_IP],
            SERVER_PORT,
            LOCAL_TAG,
            LOCAL_TSN,
        ));
        self.cfg = Some(cfg);
        Ok(())
    }

    fn connect(&mut self, settings: &Settings, now: Time) -> SetResult<()> {
        let cfg = settings.sctp_config()?;
        self.local_port = CLIENT_PORT;
        self.remote_port = SERVER_PORT;
        self.assoc = Some(Association::connect(
            cfg.clone(),
            vec![LOCAL_IP],
            CLIENT_PORT,
            vec![REMOTE_IP],
            SERVER_PORT,
            LOCAL_TAG,
            LOCAL_TSN,
            now,
        ));
        self.cfg = Some(cfg);
        Ok(())
    }

    fn established(&self) -> bool {
        self.established
    }

    fn error(&self) -> Option<ConnError> {
        self.error
    }

    fn write(&mut self, now: Time, n: usize) -> Result<usize, &'static str> {
        let Some(a) = self.assoc.as_mut() else {
            return Err("ENOTCONN");
        };
        if self.closed_by_app || self.error.is_some() {
            return Err("EPIPE");
        }
        let len = u32::try_from(n).map_err(|_| "EMSGSIZE")?;
        match a.send(now, 0, Payload::zeros(len), false) {
            Ok(_) => Ok(n),
            Err(SendError::BufferFull) => Ok(0),
            Err(SendError::MessageTooLarge) => Err("EMSGSIZE"),
            Err(SendError::EmptyMessage) => Err("EINVAL"),
            Err(_) => Err("EPIPE"),
        }
    }

    fn read(&mut self, n: usize) -> Option<usize> {
        let first = self.delivered.front_mut()?;
        if *first > n {
            *first -= n;
            return Some(n);
        }
        self.delivered.pop_front()
    }

    fn peer_closed(&self) -> bool {
        self.peer_closed
    }

    fn close(&mut self, now: Time) {
        self.closed_by_app = true;
        if let Some(a) = self.assoc.as_mut() {
            a.shutdown(now);
        }
    }

    fn sockopt(&self, name: &str) -> Option<SockVal> {
        let cfg = self.cfg.as_ref()?;
        Some(match name {
            "SO_SNDBUF" => SockVal::Int(cfg.send_buffer as i64),
            "SO_RCVBUF" => SockVal::Int(cfg.recv_buffer as i64),
            // rexmit's SCTP bundles but never delays small messages (no Nagle).
            "SCTP_NODELAY" => SockVal::Int(1),
            "SO_REUSEADDR" | "SO_REUSEPORT" => SockVal::Int(1),
            _ => return None,
        })
    }

    fn poll_timeout(&self) -> Option<Time> {
        self.assoc.as_ref()?.poll_timeout()
    }

    fn handle_timeout(&mut self, now: Time) {
        if let Some(a) = self.assoc.as_mut() {
            a.handle_timeout(now);
        }
    }

    fn drain(&mut self, now: Time, out: &mut Vec<Wire>) {
        let Some(a) = self.assoc.as_mut() else { return };
        while let Some(t) = a.poll_transmit(now) {
            out.push(Wire::Sctp(t));
        }
        while let Some(e) = a.poll_event() {
            match e {
                Event::Connected { .. } => self.established = true,
                Event::MessageDelivered { payload, .. } => self.delivered.push_back(payload.len()),
                Event::Closed => self.peer_closed = true,
                Event::Aborted { reason } => {
                    self.error = Some(match reason {
                        AbortReason::ByPeer => ConnError::Reset,
                        _ => ConnError::TimedOut,
                    })
                }
                Event::SendBufferSpace | Event::PathDown { .. } | Event::PathUp { .. } => {}
            }
        }
        if matches!(
            a.state(),
            AssociationState::ShutdownReceived | AssociationState::ShutdownAckSent
        ) {
            self.peer_closed = true;
        }
    }

    fn inject(&mut self, now: Time, pkt: &EventKind) -> Result<(), String> {
        let EventKind::Sctp(p) = pkt else {
            return Err("a TCP packet in an SCTP script".into());
        };
        debug_assert_eq!(p.dir, Dir::In);
        let packet = self.packet(p)?;
        let Some(a) = self.assoc.as_mut() else {
            return Err(
                "an inbound packet before listen() or connect(): no core to take it".into(),
            );
        };
        a.handle_packet(now, REMOTE_IP, LOCAL_IP, &packet);
        Ok(())
    }

    fn check(&mut self, expected: &EventKind, got: &[Wire]) -> Result<(), String> {
        let EventKind::Sctp(p) = expected else {
            return Err("expected a TCP packet, the core is SCTP".into());
        };
        let [Wire::Sctp(t)] = got else {
            return Err("expected one SCTP packet".into());
        };
        // The INIT and INIT ACK lines tell the peer's tag; every later packet carries it.
        let init = matches!(t.packet.chunks.first(), Some(Chunk::Init(_)));
        let want_tag = if init { Some(0) } else { self.peer_tag };
        let t_bit = matches!(
            t.packet.chunks.first(),
            Some(Chunk::Abort { t_bit: true, .. }) | Some(Chunk::ShutdownComplete { t_bit: true })
        );
        if let (Some(w), false) = (want_tag, t_bit) {
            if t.packet.verification_tag != w {
                return Err(format!(
                    "bad outbound SCTP verification tag: expected {w}, actual {}",
                    t.packet.verification_tag
                ));
            }
        }
        if p.chunks.len() != t.packet.chunks.len() {
            return Err(format!(
                "bad outbound SCTP packet: expected {} chunks, actual {}",
                p.chunks.len(),
                t.packet.chunks.len()
            ));
        }
        for (want, got) in p.chunks.iter().zip(&t.packet.chunks) {
            sctp_chunks::check(want, got, &mut self.numbering)?;
        }
        Ok(())
    }

    fn wants_more(&self, _expected: &EventKind, _got: &[Wire]) -> bool {
        false
    }

    fn format(&self, w: &Wire) -> String {
        match w {
            Wire::Sctp(t) => {
                let c: Vec<String> = t
                    .packet
                    .chunks
                    .iter()
                    .map(|c| sctp_chunks::format(c, &self.numbering))
                    .collect();
                format!("sctp: {}", c.join("; "))
            }
            Wire::Tcp(..) => "a TCP segment".into(),
        }
    }

    fn var(&self, name: &str) -> Option<f64> {
        let a = self.assoc.as_ref()?;
        let st = a.stats();
        let path = a.paths().get(a.primary_path());
        let us = |d: rexmit_time::Duration| (d.as_nanos() / 1_000) as f64;
        let state = match a.state() {
            AssociationState::Listen | AssociationState::Closed => 1,
            AssociationState::CookieWait => 2,
            AssociationState::CookieEchoed => 3,
            AssociationState::Established => 4,
            AssociationState::ShutdownPending => 5,
            AssociationState::ShutdownSent => 6,
            AssociationState::ShutdownReceived => 7,
            AssociationState::ShutdownAckSent => 8,
        };
        let v = match name {
            "sctpi_state" => state as f64,
            "sctpi_cwnd" => path?.cc().cwnd() as f64,
            "sctpi_ssthresh" => path?.cc().ssthresh() as f64,
            "sctpi_pba" => path?.cc().partial_bytes_acked() as f64,
            "sctpi_flight" => a.flight_size() as f64,
            "sctpi_mtu" => a.config().pmtu as f64,
            "sctpi_rto" => us(path?.rtt().rto()),
            "sctpi_srtt" => path?.rtt().srtt().map_or(0.0, us),
            "sctpi_rttvar" => us(path?.rtt().rttvar()),
            "sctpi_error_count" => path?.error_count() as f64,
            "sctpi_unacked" => a.rtx_queue_iter().count() as f64,
            "sctpi_gap_acked" => a.rtx_queue_gap_acked() as f64,
            "sctpi_rtxq_bytes" => a.rtx_queue_bytes() as f64,
            "sctpi_in_fast_recovery" => a.in_fast_recovery() as u8 as f64,
            "sctpi_retransmissions" => st.retransmissions as f64,
            "sctpi_fast_retransmits" => st.fast_retransmits as f64,
            "sctpi_timeouts" => st.timeouts as f64,
            "sctpi_sacks_sent" => st.sacks_sent as f64,
            "sctpi_nr_sacks_sent" => st.nr_sacks_sent as f64,
            "sctpi_data_chunks_sent" => st.data_chunks_sent as f64,
            _ => return None,
        };
        Some(v)
    }
}

/// Check every SCTP line's chunk and field names (before the script runs).
pub fn validate(p: &crate::ast::SctpPacket) -> Result<(), (crate::lexer::Pos, String)> {
    p.chunks.iter().try_for_each(sctp_chunks::validate)
}
