//! TCP on a simulated node: a bulk sender (an application that keeps the send buffer full, for
//! a given number of bytes or forever) and a sink that reads everything.

use crate::timer::DeadlineTimer;
use crate::truth::ArrivedRanges;
use rexmit_net::{Agent, Ctx, Metrics, Packet};
use rexmit_tcp::{Connection, Event, TcpConfig};
use rexmit_time::Time;
use rexmit_wire::{IpPacket, Transport};
use std::net::Ipv4Addr;

/// What the sending application does.
#[derive(Clone, Debug, PartialEq)]
pub struct BulkApp {
    /// Bytes to send; `None` keeps the send buffer full until the run ends.
    pub bytes: Option<u64>,
    /// Close the connection (FIN) once everything is acknowledged.
    pub close_when_done: bool,
}

enum Role {
    Sender { app: BulkApp, remote: Ipv4Addr, remote_port: u16, written: u64, done_at: Option<Time> },
    Receiver { measure_from: Time },
}

/// Ground truth at the receiving side: which data arrived, and how much of it twice.
#[derive(Default)]
struct RxTruth {
    /// Sequence number of the peer's SYN (offset 0 is the byte after it).
    peer_isn: Option<u32>,
    /// Last offset seen, to unwrap 32-bit sequence numbers.
    last_offset: u64,
    arrived: ArrivedRanges,
    data_segments: u64,
    duplicate_segments: u64,
    duplicate_bytes: u64,
    first_delivery: Option<Time>,
    last_delivery: Option<Time>,
}

impl RxTruth {
    fn unwrap(&mut self, seq: u32) -> Option<u64> {
        let isn = self.peer_isn?;
        let rel = seq.wrapping_sub(isn.wrapping_add(1));
        let last = self.last_offset;
        // Choose the 64-bit offset congruent to `rel` nearest to the last one seen.
        let base = last & !0xFFFF_FFFF;
        let cands = [base.wrapping_sub(1 << 32), base, base + (1 << 32)];
        let off = cands
            .iter()
            .map(|b| b.wrapping_add(rel as u64))
            .min_by_key(|o| o.abs_diff(last))
            .expect("three candidates");
        self.last_offset = self.last_offset.max(off);
        Some(off)
    }

    fn on_segment(&mut self, seq: u32, syn: bool, len: u64) {
        if syn {
            self.peer_isn = Some(seq);
            return;
        }
        if len == 0 {
            return;
        }
        if let Some(off) = self.unwrap(seq) {
            self.data_segments += 1;
            let dup = self.arrived.insert(off, off + len);
            self.duplicate_bytes += dup;
            if dup == len {
                self.duplicate_segments += 1;
            }
        }
    }
}

/// A TCP endpoint with its application.
pub struct TcpAgent {
    cfg: TcpConfig,
    local_port: u16,
    iss: u32,
    conn: Option<Connection>,
    role: Role,
    timer: DeadlineTimer,
    local: Ipv4Addr,
    peer: Option<Ipv4Addr>,
    start: Time,
    truth: RxTruth,
    delivered: u64,
}

impl TcpAgent {
    /// An active opener that sends with `app` to `remote:remote_port`. `iss` should come from a
    /// named random stream.
    pub fn sender(cfg: TcpConfig, local_port: u16, remote: Ipv4Addr, remote_port: u16, iss: u32, app: BulkApp) -> Self {
        let role = Role::Sender { app, remote, remote_port, written: 0, done_at: None };
        Self::new(cfg, local_port, iss, role)
    }

    /// A passive opener that reads everything; goodput is measured from `measure_from`.
    pub fn receiver(cfg: TcpConfig, local_port: u16, iss: u32, measure_from: Time) -> Self {
        Self::new(cfg, local_port, iss, Role::Receiver { measure_from })
    }

    fn new(cfg: TcpConfig, local_port: u16, iss: u32, role: Role) -> Self {
        TcpAgent {
            cfg,
            local_port,
            iss,
            conn: None,
            role,
            timer: DeadlineTimer::default(),
            local: Ipv4Addr::UNSPECIFIED,
            peer: None,
            start: Time::ZERO,
            truth: RxTruth::default(),
            delivered: 0,
        }
    }

    pub fn connection(&self) -> Option<&Connection> {
        self.conn.as_ref()
    }

    /// Let the application write, send what the core emits, handle its events, arm its timer.
    fn pump(&mut self, ctx: &mut Ctx<'_>) {
        let Some(conn) = self.conn.as_mut() else { return };
        let now = ctx.now;
        loop {
            let mut progress = false;
            if let Role::Sender { app, written, .. } = &mut self.role {
                let want = app.bytes.map_or(u64::MAX, |b| b - *written);
                let room = conn.send_buffer_free() as u64;
                if want > 0 && room > 0 {
                    let n = conn.send(now, want.min(room) as usize) as u64;
                    *written += n;
                    progress |= n > 0;
                }
            }
            while let Some(seg) = conn.poll_transmit(now) {
                let dst = self.peer.expect("a connection only transmits once its peer is known");
                ctx.send(IpPacket::new(self.local, dst, Transport::Tcp(seg)));
            }
            while let Some(ev) = conn.poll_event() {
                if let Event::Delivered { .. } = ev {
                    let got = conn.recv(usize::MAX).len() as u64;
                    if got > 0 {
                        self.delivered += got;
                        self.truth.first_delivery.get_or_insert(now);
                        self.truth.last_delivery = Some(now);
                        progress = true;
                    }
                }
            }
            if let Role::Sender { app, written, done_at, .. } = &mut self.role {
                if done_at.is_none() && app.bytes.is_some_and(|b| *written == b) && conn.all_acked() {
                    *done_at = Some(now);
                    if app.close_when_done {
                        conn.close(now);
                        progress = true;
                    }
                }
            }
            if !progress {
                break;
            }
        }
        self.timer.arm(ctx, conn.poll_timeout());
    }
}

impl Agent for TcpAgent {
    fn start(&mut self, ctx: &mut Ctx<'_>) {
        self.start = ctx.now;
        self.local = ctx.addrs.first().copied().unwrap_or(Ipv4Addr::UNSPECIFIED);
        match &self.role {
            Role::Sender { remote, remote_port, .. } => {
                self.peer = Some(*remote);
                self.conn = Some(Connection::connect(self.cfg.clone(), self.local_port, *remote_port, self.iss, ctx.now));
            }
            Role::Receiver { .. } => self.conn = Some(Connection::listen(self.cfg.clone(), self.local_port, self.iss)),
        }
        self.pump(ctx);
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, pkt: Packet) {
        let Transport::Tcp(seg) = &pkt.ip.transport else { return };
        if self.peer.is_none() {
            self.peer = Some(pkt.ip.header.src);
            self.local = pkt.ip.header.dst;
        }
        if matches!(self.role, Role::Receiver { .. }) {
            let syn = seg.flags.contains(rexmit_wire::TcpFlags::SYN);
            self.truth.on_segment(seg.seq, syn, seg.payload.len() as u64);
        }
        if let Some(conn) = self.conn.as_mut() {
            conn.handle_segment(ctx.now, seg);
        }
        self.pump(ctx);
    }

    fn on_timer(&mut self, ctx: &mut Ctx<'_>, _token: u64) {
        self.timer.fired(ctx.now);
        if let Some(conn) = self.conn.as_mut() {
            if conn.poll_timeout().is_some_and(|t| t <= ctx.now) {
                conn.handle_timeout(ctx.now);
            }
        }
        self.pump(ctx);
    }

    fn metrics(&self, now: Time) -> Metrics {
        let Some(conn) = &self.conn else { return Vec::new() };
        let st = conn.stats();
        let mut m: Vec<(&str, f64)> = Vec::new();
        match &self.role {
            Role::Sender { done_at, written, .. } => {
                let secs = now.saturating_since(self.start).as_secs_f64();
                m.extend([
                    ("bytes_written", *written as f64),
                    ("bytes_acked", st.bytes_acked as f64),
                    ("data_segments_sent", st.data_segments_sent as f64),
                    ("retransmits", st.retransmits() as f64),
                    ("retransmits_fast", st.retransmits_fast as f64),
                    ("retransmits_timeout", st.retransmits_timeout as f64),
                    ("bytes_retransmitted", st.bytes_retransmitted as f64),
                    ("fast_retransmits", st.fast_retransmits as f64),
                    ("timeouts", st.timeouts as f64),
                    ("recoveries", st.recoveries.len() as f64),
                    ("dsacks_received", st.dsacks_received as f64),
                    ("rtx_queue_bytes_max", st.rtx_queue_bytes_max as f64),
                    ("app_blocked_s", st.app_blocked.as_secs_f64()),
                    ("app_blocked_fraction", if secs > 0.0 { st.app_blocked.as_secs_f64() / secs } else { 0.0 }),
                    ("completion_time_s", done_at.map_or(f64::NAN, |t| t.saturating_since(self.start).as_secs_f64())),
                    ("srtt_s", st.srtt.map_or(f64::NAN, |d| d.as_secs_f64())),
                ]);
            }
            Role::Receiver { measure_from } => {
                let secs = now.saturating_since(*measure_from).as_secs_f64();
                m.extend([
                    ("bytes_delivered", self.delivered as f64),
                    ("goodput_bps", if secs > 0.0 { self.delivered as f64 * 8.0 / secs } else { 0.0 }),
                    ("data_segments_arrived", self.truth.data_segments as f64),
                    // Ground truth: data that arrived although an earlier copy had already arrived.
                    ("spurious_retransmits", self.truth.duplicate_segments as f64),
                    ("duplicate_bytes_arrived", self.truth.duplicate_bytes as f64),
                    ("ooo_bytes_max", st.ooo_bytes_max as f64),
                    ("dsacks_sent", st.dsacks_sent as f64),
                ]);
            }
        }
        m.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
    }

    fn probe(&self, name: &str) -> Option<f64> {
        let conn = self.conn.as_ref()?;
        let st = conn.stats();
        Some(match name {
            "cwnd" => conn.cwnd() as f64,
            "ssthresh" => conn.ssthresh().min(u64::MAX / 4) as f64,
            "pipe" => conn.pipe() as f64,
            "rtx_queue_bytes" => st.rtx_queue_bytes as f64,
            "send_buffer_bytes" => conn.send_buffer_len() as f64,
            "bytes_acked" => st.bytes_acked as f64,
            "srtt_s" => st.srtt.map_or(f64::NAN, |d| d.as_secs_f64()),
            "rto_s" => st.rto.as_secs_f64(),
            "bytes_delivered" => self.delivered as f64,
            "ooo_bytes" => st.ooo_bytes as f64,
            _ => return None,
        })
    }

    fn probe_names(&self) -> &'static [&'static str] {
        match self.role {
            Role::Sender { .. } => &["cwnd", "ssthresh", "pipe", "rtx_queue_bytes", "send_buffer_bytes", "bytes_acked", "srtt_s", "rto_s"],
            Role::Receiver { .. } => &["bytes_delivered", "ooo_bytes"],
        }
    }
}
