//! A pcap file writer (the classic libpcap format, nanosecond variant) for raw IPv4 packets, so
//! simulated traffic can be opened in Wireshark or tshark.

use rexmit_time::Time;
use std::io::{self, Write};

/// Magic of nanosecond-resolution pcap files.
pub const PCAP_MAGIC_NANOS: u32 = 0xa1b2_3c4d;
/// LINKTYPE_IPV4: each record is a raw IPv4 packet, no link-layer header.
pub const LINKTYPE_IPV4: u32 = 228;
pub const PCAP_SNAPLEN: u32 = 65535;

/// Writes the global header on creation, then one record per `write_packet`. All fields are
/// little-endian; readers detect the byte order from the magic.
pub struct PcapWriter<W: Write> {
    out: W,
}

impl<W: Write> PcapWriter<W> {
    pub fn new(mut out: W) -> io::Result<Self> {
        let mut h = Vec::with_capacity(24);
        h.extend_from_slice(&PCAP_MAGIC_NANOS.to_le_bytes());
        h.extend_from_slice(&2u16.to_le_bytes()); // version 2.4
        h.extend_from_slice(&4u16.to_le_bytes());
        h.extend_from_slice(&0i32.to_le_bytes()); // thiszone
        h.extend_from_slice(&0u32.to_le_bytes()); // sigfigs
        h.extend_from_slice(&PCAP_SNAPLEN.to_le_bytes());
        h.extend_from_slice(&LINKTYPE_IPV4.to_le_bytes());
        out.write_all(&h)?;
        Ok(PcapWriter { out })
    }

    /// Append one packet captured at simulated time `t`. Packets longer than the snap length
    /// are truncated in the file, with their original length recorded.
    pub fn write_packet(&mut self, t: Time, bytes: &[u8]) -> io::Result<()> {
        let ns = t.as_nanos();
        let secs = u32::try_from(ns / 1_000_000_000).map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "pcap: timestamp beyond the 32-bit seconds field",
            )
        })?;
        let orig_len = u32::try_from(bytes.len()).map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "pcap: packet longer than 4 GiB",
            )
        })?;
        let incl_len = orig_len.min(PCAP_SNAPLEN);
        let mut rec = Vec::with_capacity(16);
        rec.extend_from_slice(&secs.to_le_bytes());
        rec.extend_from_slice(&((ns % 1_000_000_000) as u32).to_le_bytes());
        rec.extend_from_slice(&incl_len.to_le_bytes());
        rec.extend_from_slice(&orig_len.to_le_bytes());
        self.out.write_all(&rec)?;
        self.out
            .write_all(bytes.get(..incl_len as usize).unwrap_or(bytes))
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    pub fn into_inner(self) -> W {
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_and_record_layout() {
        let mut w = PcapWriter::new(Vec::new()).unwrap();
        w.write_packet(Time::from_nanos(3_000_000_123), &[0x45, 0, 0, 20])
            .unwrap();
        let b = w.into_inner();
        #[rustfmt::skip]
        let expected = [
            0x4d, 0x3c, 0xb2, 0xa1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0xff, 0xff, 0, 0, 228, 0, 0, 0,
            3, 0, 0, 0, 123, 0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0,
            0x45, 0, 0, 20,
        ];
        assert_eq!(b, expected);
    }
}
