//! The simulated side of a real host: an agent on the host's node that receives every packet
//! addressed to it and writes the packet's bytes (re-encoded by rexmit's wire codecs) to the
//! host's TUN device, where the kernel takes it. The other direction (the kernel's packets into
//! the simulation) is read by the pacer (`clock`), which knows when they arrive.

use rexmit_net::{Agent, Ctx, Metrics, Packet};
use rexmit_time::Time;
use std::fs::File;
use std::io::Write;

pub struct TunOutput {
    tun: File,
    buf: Vec<u8>,
    packets: u64,
    bytes: u64,
    /// The kernel refused the write (its TUN queue full) or encoding failed: the packet is lost.
    write_errors: u64,
}

impl TunOutput {
    pub fn new(tun: File) -> Self {
        TunOutput {
            tun,
            buf: Vec::with_capacity(65_536),
            packets: 0,
            bytes: 0,
            write_errors: 0,
        }
    }
}

impl Agent for TunOutput {
    fn start(&mut self, _ctx: &mut Ctx<'_>) {}

    fn on_packet(&mut self, _ctx: &mut Ctx<'_>, pkt: &mut Packet) {
        self.buf.clear();
        let ok = pkt.ip.encode(&mut self.buf).is_ok()
            && self.tun.write(&self.buf).is_ok_and(|n| n == self.buf.len());
        if ok {
            self.packets += 1;
            self.bytes += self.buf.len() as u64;
        } else {
            self.write_errors += 1;
        }
    }

    fn on_timer(&mut self, _ctx: &mut Ctx<'_>, _token: u64) {}

    fn metrics(&self, _now: Time) -> Metrics {
        vec![
            ("tun_packets_out".into(), self.packets as f64),
            ("tun_bytes_out".into(), self.bytes as f64),
            ("tun_write_errors".into(), self.write_errors as f64),
        ]
    }

    fn probe(&self, _name: &str) -> Option<f64> {
        None
    }

    fn probe_names(&self) -> &'static [&'static str] {
        &[]
    }
}
