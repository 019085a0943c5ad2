//! Write the sample packets of `rexmit_wire::samples` to a pcap file for Wireshark/tshark.
//!
//! Usage: `cargo run -p rexmit-wire --example sample_pcap -- OUT.pcap`

use rexmit_wire::{samples::sample_packets, PcapWriter};
use std::fs::File;
use std::io::BufWriter;
use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: sample_pcap OUT.pcap");
        return ExitCode::from(2);
    };
    let run = || -> Result<usize, Box<dyn std::error::Error>> {
        let mut w = PcapWriter::new(BufWriter::new(File::create(&path)?))?;
        let packets = sample_packets();
        for (t, p) in &packets {
            w.write_packet(*t, &p.to_bytes()?)?;
        }
        w.flush()?;
        Ok(packets.len())
    };
    match run() {
        Ok(n) => {
            println!("wrote {n} packets to {}", path.to_string_lossy());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("sample_pcap: {e}");
            ExitCode::FAILURE
        }
    }
}
