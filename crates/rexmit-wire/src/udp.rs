//! UDP datagram (RFC 768).

use crate::payload::Payload;

pub const UDP_HEADER_LEN: usize = 8;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UdpDatagram {
    pub src_port: u16,
    pub dst_port: u16,
    pub payload: Payload,
}

impl UdpDatagram {
    pub fn wire_len(&self) -> usize {
        UDP_HEADER_LEN + self.payload.len()
    }
}
