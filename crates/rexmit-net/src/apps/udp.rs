//! UDP traffic: constant-bit-rate, on/off and random sources, and a sink that measures what
//! arrives.
//!
//! Sizes are IP packet sizes (what links serialize and queues count), so offered load is exactly
//! `packet_size · 8 / interval` bits per second at the IP layer.

use crate::agent::{Agent, Ctx, Metrics};
use crate::apps::dist::Dist;
use crate::packet::Packet;
use rexmit_engine::RngStream;
use rexmit_time::{Duration, Rate, Time};
use rexmit_wire::ipv4::IPV4_HEADER_LEN;
use rexmit_wire::udp::UDP_HEADER_LEN;
use rexmit_wire::{Ecn, IpPacket, Payload, Transport, UdpDatagram};
use std::net::Ipv4Addr;

/// Smallest IP packet a UDP source can send (IPv4 + UDP headers, empty payload).
pub const MIN_UDP_PACKET: u32 = (IPV4_HEADER_LEN + UDP_HEADER_LEN) as u32;

#[derive(Clone, Debug, PartialEq)]
pub struct UdpEndpoints {
    pub src_port: u16,
    pub dst: Ipv4Addr,
    pub dst_port: u16,
}

fn datagram(ctx: &Ctx<'_>, ep: &UdpEndpoints, packet_size: u32, ecn: Ecn) -> IpPacket {
    let payload = Payload::zeros(packet_size - MIN_UDP_PACKET);
    let src = ctx.addrs.first().copied().unwrap_or(Ipv4Addr::UNSPECIFIED);
    let mut ip = IpPacket::new(
        src,
        ep.dst,
        Transport::Udp(UdpDatagram {
            src_port: ep.src_port,
            dst_port: ep.dst_port,
            payload,
        }),
    );
    ip.header.set_ecn(ecn);
    ip
}

/// What a source has sent, reported as its metrics and probes.
#[derive(Default, Clone, Copy, Debug)]
struct TxCount {
    packets: u64,
    bytes: u64,
}

impl TxCount {
    fn record(&mut self, size: u32) {
        self.packets += 1;
        self.bytes += size as u64;
    }
    fn metrics(&self) -> Metrics {
        vec![
            ("tx_packets".into(), self.packets as f64),
            ("tx_bytes".into(), self.bytes as f64),
        ]
    }
    fn probe(&self, name: &str) -> Option<f64> {
        match name {
            "tx_packets" => Some(self.packets as f64),
            "tx_bytes" => Some(self.bytes as f64),
            _ => None,
        }
    }
    const PROBES: &'static [&'static str] = &["tx_packets", "tx_bytes"];
}

/// Constant bit rate: one packet of `packet_size` every `packet_size·8/rate`.
pub struct CbrSource {
    ep: UdpEndpoints,
    packet_size: u32,
    interval: Duration,
    stop: Option<Time>,
    /// Optional uniform jitter in ±jitter around each send time (0 = strictly periodic).
    jitter: Duration,
    rng: RngStream,
    next: Time,
    sent: TxCount,
    /// The ECN field of every packet (Not-ECT unless `with_ecn`).
    ecn: Ecn,
}

impl CbrSource {
    pub fn new(
        ep: UdpEndpoints,
        packet_size: u32,
        rate: Rate,
        stop: Option<Time>,
        jitter: Duration,
        rng: RngStream,
    ) -> Self {
        let interval = rate.tx_time(packet_size as u64);
        CbrSource {
            ep,
            packet_size,
            interval,
            stop,
            jitter,
            rng,
            next: Time::ZERO,
            sent: TxCount::default(),
            ecn: Ecn::NotEct,
        }
    }

    /// Send every packet with this ECN codepoint (ECT(0) or ECT(1): an ECN-capable sender, so
    /// that marking queues mark instead of dropping; RFC 3168 §5).
    pub fn with_ecn(mut self, ecn: Ecn) -> Self {
        self.ecn = ecn;
        self
    }

    fn emit(&mut self, ctx: &mut Ctx<'_>) {
        ctx.send(datagram(ctx, &self.ep, self.packet_size, self.ecn));
        self.sent.record(self.packet_size);
        self.next += self.interval;
        let mut at = self.next;
        if !self.jitter.is_zero() {
            let j = self.rng.range_u64(0, 2 * self.jitter.as_nanos());
            at = Time::from_nanos((at.as_nanos() + j).saturating_sub(self.jitter.as_nanos()))
                .max(ctx.now);
        }
        if self.stop.is_none_or(|s| at < s) {
            ctx.set_timer(at, 0);
        }
    }
}

impl Agent for CbrSource {
    fn start(&mut self, ctx: &mut Ctx<'_>) {
        self.next = ctx.now;
        if self.stop.is_none_or(|s| ctx.now < s) {
            self.emit(ctx);
        }
    }
    fn on_packet(&mut self, _ctx: &mut Ctx<'_>, _pkt: &mut Packet) {}
    fn on_timer(&mut self, ctx: &mut Ctx<'_>, _token: u64) {
        self.emit(ctx);
    }
    fn metrics(&self, _now: Time) -> Metrics {
        self.sent.metrics()
    }
    fn probe(&self, name: &str) -> Option<f64> {
        self.sent.probe(name)
    }
    fn probe_names(&self) -> &'static [&'static str] {
        TxCount::PROBES
    }
}

/// Length distribution of on and off periods.
#[derive(Clone, Debug, PartialEq)]
pub enum PeriodDist {
    Fixed(Duration),
    Exponential {
        mean: Duration,
    },
    /// Pareto with shape `alpha` and the given mean (alpha > 1).
    Pareto {
        mean: Duration,
        alpha: f64,
    },
}

impl PeriodDist {
    fn draw(&self, rng: &mut RngStream) -> Duration {
        let ns = match *self {
            PeriodDist::Fixed(d) => return d,
            PeriodDist::Exponential { mean } => rng.exponential(mean.as_nanos() as f64),
            PeriodDist::Pareto { mean, alpha } => {
                let xm = mean.as_nanos() as f64 * (alpha - 1.0) / alpha;
                rng.pareto(alpha, xm)
            }
        };
        Duration::from_nanos(ns.round().min(u64::MAX as f64 / 2.0) as u64)
    }
}

/// On/off source: sends at `rate` during on periods, nothing during off periods. Starts "on".
pub struct OnOffSource {
    cbr: CbrSource,
    on: PeriodDist,
    off: PeriodDist,
    on_until: Time,
    rng: RngStream,
    /// Timer generation: stale send timers from a previous on period are ignored.
    generation: u64,
}

impl OnOffSource {
    pub fn new(
        ep: UdpEndpoints,
        packet_size: u32,
        rate: Rate,
        on: PeriodDist,
        off: PeriodDist,
        stop: Option<Time>,
        rng: RngStream,
    ) -> Self {
        let cbr = CbrSource::new(ep, packet_size, rate, stop, Duration::ZERO, rng.clone());
        OnOffSource {
            cbr,
            on,
            off,
            on_until: Time::ZERO,
            rng,
            generation: 0,
        }
    }

    /// Send every packet with this ECN codepoint (see `CbrSource::with_ecn`).
    pub fn with_ecn(mut self, ecn: Ecn) -> Self {
        self.cbr.ecn = ecn;
        self
    }

    fn begin_on(&mut self, ctx: &mut Ctx<'_>) {
        if self.cbr.stop.is_some_and(|s| ctx.now >= s) {
            return;
        }
        self.generation += 1;
        self.on_until = ctx.now + self.on.draw(&mut self.rng);
        self.cbr.next = ctx.now;
        self.send_and_schedule(ctx);
    }

    fn send_and_schedule(&mut self, ctx: &mut Ctx<'_>) {
        if ctx.now >= self.on_until || self.cbr.stop.is_some_and(|s| ctx.now >= s) {
            // Off period: the next on period starts after it.
            let off = self.off.draw(&mut self.rng);
            ctx.set_timer(ctx.now + off, 1);
            return;
        }
        ctx.send(datagram(
            ctx,
            &self.cbr.ep,
            self.cbr.packet_size,
            self.cbr.ecn,
        ));
        self.cbr.sent.record(self.cbr.packet_size);
        self.cbr.next += self.cbr.interval;
        ctx.set_timer(self.cbr.next, self.generation << 1); // low bit 0: the CBR timer
    }
}

impl Agent for OnOffSource {
    fn start(&mut self, ctx: &mut Ctx<'_>) {
        self.begin_on(ctx);
    }
    fn on_packet(&mut self, _ctx: &mut Ctx<'_>, _pkt: &mut Packet) {}
    fn on_timer(&mut self, ctx: &mut Ctx<'_>, token: u64) {
        if token == 1 {
            self.begin_on(ctx);
        } else if token >> 1 == self.generation {
            self.send_and_schedule(ctx);
        }
    }
    fn metrics(&self, now: Time) -> Metrics {
        self.cbr.metrics(now)
    }
    fn probe(&self, name: &str) -> Option<f64> {
        self.cbr.probe(name)
    }
    fn probe_names(&self) -> &'static [&'static str] {
        self.cbr.probe_names()
    }
}

/// Largest UDP payload: an IP packet of 65535 bytes.
pub const MAX_UDP_PAYLOAD: u64 = 65535 - MIN_UDP_PACKET as u64;

/// Random background traffic (seed 002 §IV: "packets having a payload between 100 and 1000
/// bytes every 25 - 100 milliseconds"): payload sizes and gaps from `size` and `interarrival`.
/// The first packet goes one interarrival after the start.
pub struct RandomSource {
    ep: UdpEndpoints,
    /// UDP payload bytes (the IP packet is 28 bytes more).
    size: Dist,
    /// Nanoseconds between packets.
    interarrival: Dist,
    stop: Option<Time>,
    rng: RngStream,
    sent: TxCount,
    ecn: Ecn,
}

impl RandomSource {
    pub fn new(
        ep: UdpEndpoints,
        size: Dist,
        interarrival: Dist,
        stop: Option<Time>,
        rng: RngStream,
    ) -> Self {
        RandomSource {
            ep,
            size,
            interarrival,
            stop,
            rng,
            sent: TxCount::default(),
            ecn: Ecn::NotEct,
        }
    }

    /// Send every packet with this ECN codepoint (see `CbrSource::with_ecn`).
    pub fn with_ecn(mut self, ecn: Ecn) -> Self {
        self.ecn = ecn;
        self
    }

    fn schedule(&mut self, ctx: &mut Ctx<'_>) {
        let at = ctx.now + Duration::from_nanos(self.interarrival.draw(&mut self.rng));
        if self.stop.is_none_or(|s| at < s) {
            ctx.set_timer(at, 0);
        }
    }
}

impl Agent for RandomSource {
    fn start(&mut self, ctx: &mut Ctx<'_>) {
        self.schedule(ctx);
    }
    fn on_packet(&mut self, _ctx: &mut Ctx<'_>, _pkt: &mut Packet) {}
    fn on_timer(&mut self, ctx: &mut Ctx<'_>, _token: u64) {
        // Validation bounds the payload; the clamp only guards the packet-size arithmetic.
        let payload = self.size.draw(&mut self.rng).min(MAX_UDP_PAYLOAD) as u32;
        let size = payload + MIN_UDP_PACKET;
        ctx.send(datagram(ctx, &self.ep, size, self.ecn));
        self.sent.record(size);
        self.schedule(ctx);
    }
    fn metrics(&self, _now: Time) -> Metrics {
        self.sent.metrics()
    }
    fn probe(&self, name: &str) -> Option<f64> {
        self.sent.probe(name)
    }
    fn probe_names(&self) -> &'static [&'static str] {
        TxCount::PROBES
    }
}

/// Receives UDP packets and measures throughput and one-way delay (from the simulator's
/// creation timestamp: ground truth, not a header field).
#[derive(Default)]
pub struct UdpSink {
    rx_packets: u64,
    rx_bytes: u64,
    rx_payload_bytes: u64,
    first_rx: Option<Time>,
    last_rx: Option<Time>,
    first_size: u64,
    delay_sum_ns: u128,
    delay_sq_sum_ns: f64,
    delay_min: Option<Duration>,
    delay_max: Duration,
    /// Arrivals a queue marked Congestion Experienced (a probe, not a metric).
    rx_ce_packets: u64,
}

impl UdpSink {
    pub fn new() -> Self {
        Self::default()
    }
}

impl Agent for UdpSink {
    fn start(&mut self, _ctx: &mut Ctx<'_>) {}
    fn on_packet(&mut self, ctx: &mut Ctx<'_>, pkt: &mut Packet) {
        if self.first_rx.is_none() {
            self.first_rx = Some(ctx.now);
            self.first_size = pkt.size as u64;
        }
        self.last_rx = Some(ctx.now);
        self.rx_packets += 1;
        self.rx_bytes += pkt.size as u64;
        if pkt.ip.header.ecn() == Ecn::Ce {
            self.rx_ce_packets += 1;
        }
        if let Transport::Udp(u) = &pkt.ip.transport {
            self.rx_payload_bytes += u.payload.len() as u64;
        }
        let d = ctx.now - pkt.created;
        self.delay_sum_ns += d.as_nanos() as u128;
        self.delay_sq_sum_ns += (d.as_nanos() as f64).powi(2);
        self.delay_min = Some(self.delay_min.map_or(d, |m| m.min(d)));
        self.delay_max = self.delay_max.max(d);
    }
    fn on_timer(&mut self, _ctx: &mut Ctx<'_>, _token: u64) {}
    fn metrics(&self, _now: Time) -> Metrics {
        let n = self.rx_packets as f64;
        // Throughput over [first arrival, last arrival]: the first packet's bytes arrived at the
        // start of that window, so they are not counted.
        let thr = match (self.first_rx, self.last_rx) {
            (Some(a), Some(b)) if b > a => {
                (self.rx_bytes - self.first_size) as f64 * 8.0 / (b - a).as_secs_f64()
            }
            _ => 0.0,
        };
        let mean = if n > 0.0 {
            self.delay_sum_ns as f64 / n
        } else {
            f64::NAN
        };
        let var = if n > 1.0 {
            (self.delay_sq_sum_ns / n - mean * mean).max(0.0)
        } else {
            0.0
        };
        vec![
            ("rx_packets".into(), n),
            ("rx_bytes".into(), self.rx_bytes as f64),
            ("rx_payload_bytes".into(), self.rx_payload_bytes as f64),
            ("throughput_bps".into(), thr),
            (
                "first_rx_s".into(),
                self.first_rx.map_or(f64::NAN, |t| t.as_secs_f64()),
            ),
            (
                "last_rx_s".into(),
                self.last_rx.map_or(f64::NAN, |t| t.as_secs_f64()),
            ),
            ("delay_mean_s".into(), mean / 1e9),
            ("delay_std_s".into(), var.sqrt() / 1e9),
            (
                "delay_min_s".into(),
                self.delay_min.map_or(f64::NAN, |d| d.as_secs_f64()),
            ),
            (
                "delay_max_s".into(),
                if n > 0.0 {
                    self.delay_max.as_secs_f64()
                } else {
                    f64::NAN
                },
            ),
        ]
    }
    fn probe(&self, name: &str) -> Option<f64> {
        match name {
            "rx_packets" => Some(self.rx_packets as f64),
            "rx_bytes" => Some(self.rx_bytes as f64),
            "rx_ce_packets" => Some(self.rx_ce_packets as f64),
            _ => None,
        }
    }
    fn probe_names(&self) -> &'static [&'static str] {
        &["rx_packets", "rx_bytes", "rx_ce_packets"]
    }
}
