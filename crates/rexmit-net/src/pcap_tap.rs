//! pcap files written by channels and nodes. Several taps may share one file.

use rexmit_time::Time;
use rexmit_wire::pcap::PcapWriter;
use rexmit_wire::IpPacket;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

#[derive(Default)]
pub(crate) struct PcapTaps {
    files: Vec<(PathBuf, PcapWriter<BufWriter<File>>)>,
    buf: Vec<u8>,
    /// Packets that could not be encoded or written (reported, never silently lost).
    pub encode_errors: u64,
}

impl PcapTaps {
    pub(crate) fn open(&mut self, path: &Path) -> std::io::Result<usize> {
        if let Some(i) = self.files.iter().position(|(p, _)| p == path) {
            return Ok(i);
        }
        if let Some(dir) = path.parent() {
            if !dir.as_os_str().is_empty() {
                std::fs::create_dir_all(dir)?;
            }
        }
        let w = PcapWriter::new(BufWriter::new(File::create(path)?))?;
        self.files.push((path.to_path_buf(), w));
        Ok(self.files.len() - 1)
    }

    pub(crate) fn write(&mut self, idx: usize, t: Time, ip: &IpPacket) {
        self.buf.clear();
        let ok = ip.encode(&mut self.buf).is_ok()
            && self.files[idx].1.write_packet(t, &self.buf).is_ok();
        if !ok {
            self.encode_errors += 1;
        }
    }

    pub(crate) fn flush(&mut self) {
        for (_, w) in &mut self.files {
            if w.flush().is_err() {
                self.encode_errors += 1;
            }
        }
    }
}
