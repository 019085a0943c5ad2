//! Between the stack's packets and the simulated wire.
//!
//! Inside the stack, `usrsctp_conninput(addr, …)` takes `addr` as both the source and the
//! destination of a packet, so both ends of a path share one AF_CONN address (a token) and are
//! told apart by port. Each path of an association is one token, mapped here to the pair of IPv4
//! addresses it joins on the simulated network. The two endpoints have ports of their own inside
//! the stack (a run has one stack, and rexmit's apps use the same port at both ends); on the
//! wire both carry the app's port. Converting rewrites the ports, and the CRC32c is computed
//! afresh by rexmit's encoder, so the bytes on the wire are valid SCTP with the app's ports.

use rexmit_wire::{Chunk, Ecn, IpPacket, SctpPacket, Transport, WireError};
use std::net::Ipv4Addr;

/// One path: its AF_CONN token and the two IPv4 addresses it joins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Path {
    pub token: usize,
    pub local: Ipv4Addr,
    pub remote: Ipv4Addr,
}

/// How the stack names the association's addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Addressing {
    /// One AF_CONN token per path, ports of the stack's own (one path only: see `inet.rs`).
    Conn,
    /// The nodes' IPv4 addresses and the app's port, as on the wire (multihomed associations).
    Ip,
}

/// How one endpoint's packets are named inside the stack and on the wire.
#[derive(Clone, Debug)]
pub struct WireMap {
    pub addressing: Addressing,
    /// This endpoint's paths, in the scenario's order.
    pub paths: Vec<Path>,
    /// The path data goes to first.
    pub primary: usize,
    pub local_port: u16,
    pub remote_port: u16,
    /// The app's port, both ends, on the wire.
    pub wire_port: u16,
}

/// Why a packet did not cross between the stack and the wire.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dropped {
    /// The stack sent a packet rexmit's decoder rejects (counted; should not happen).
    Undecodable(WireError),
    /// A packet to or from an address pair that is none of the association's paths.
    UnknownPath,
}

impl WireMap {
    /// The packet the stack sent (to AF_CONN address `token`, or an IPv4 packet when `token`
    /// is 0), as it goes on the wire, with the ECN field of the stack's TOS byte `tos`.
    pub fn outgoing(&self, token: usize, tos: u8, bytes: &[u8]) -> Result<IpPacket, Dropped> {
        let mut ip = if token == 0 {
            self.outgoing_ip(bytes)?
        } else {
            self.outgoing_conn(token, bytes)?
        };
        ip.header.set_ecn(Ecn::from_bits(tos));
        Ok(ip)
    }

    fn outgoing_conn(&self, token: usize, bytes: &[u8]) -> Result<IpPacket, Dropped> {
        let path = self
            .paths
            .iter()
            .find(|p| p.token == token)
            .ok_or(Dropped::UnknownPath)?;
        let mut sctp = SctpPacket::decode(bytes).map_err(Dropped::Undecodable)?;
        keep_exact_chunks(&mut sctp, bytes);
        sctp.src_port = self.wire_port;
        sctp.dst_port = self.wire_port;
        Ok(IpPacket::new(
            path.local,
            path.remote,
            Transport::Sctp(sctp),
        ))
    }

    /// An IPv4 packet the stack sent: its SCTP part as is; its source address the one of the
    /// path toward its destination. (FreeBSD's kernel takes the address of the interface its
    /// route leaves from; usrsctp has no routes and picks among the bound addresses in turn.)
    fn outgoing_ip(&self, bytes: &[u8]) -> Result<IpPacket, Dropped> {
        let at = crate::stack::ip_header_len(bytes);
        let addr = |i: usize| {
            bytes
                .get(i..i + 4)
                .map(|a| Ipv4Addr::new(a[0], a[1], a[2], a[3]))
        };
        let (Some(src), Some(dst)) = (addr(12), addr(16)) else {
            return Err(Dropped::UnknownPath);
        };
        let raw = bytes.get(at..).unwrap_or_default();
        let mut sctp = SctpPacket::decode(raw).map_err(Dropped::Undecodable)?;
        keep_exact_chunks(&mut sctp, raw);
        let src = self
            .paths
            .iter()
            .find(|p| p.remote == dst)
            .map_or(src, |p| p.local);
        Ok(IpPacket::new(src, dst, Transport::Sctp(sctp)))
    }

    /// Whether a packet from `src` to `dst` belongs to this association, and how the stack
    /// takes it: `Some(token)` for AF_CONN, `Some(0)` for IPv4.
    pub fn accepts(&self, src: Ipv4Addr, dst: Ipv4Addr) -> Option<usize> {
        match self.addressing {
            Addressing::Conn => self.path_of(src, dst).map(|p| p.token),
            Addressing::Ip => (self.paths.iter().any(|p| p.remote == src)
                && self.paths.iter().any(|p| p.local == dst))
            .then_some(0),
        }
    }

    /// The peer's addresses, the primary first, each once.
    pub fn remotes_primary_first(&self) -> Vec<Ipv4Addr> {
        let mut r: Vec<Ipv4Addr> = Vec::new();
        let k = self.primary.min(self.paths.len().saturating_sub(1));
        for p in self.paths[k..].iter().chain(&self.paths[..k]) {
            if !r.contains(&p.remote) {
                r.push(p.remote);
            }
        }
        r
    }

    /// This endpoint's addresses, in path order, each once.
    pub fn locals(&self) -> Vec<Ipv4Addr> {
        let mut l: Vec<Ipv4Addr> = Vec::new();
        for p in &self.paths {
            if !l.contains(&p.local) {
                l.push(p.local);
            }
        }
        l
    }

    /// The paths' tokens, the primary first (usrsctp sends the INIT to the first address given
    /// to connectx and makes it the primary).
    pub fn tokens_primary_first(&self) -> Vec<usize> {
        let mut t: Vec<usize> = self.paths.iter().map(|p| p.token).collect();
        let k = self.primary.min(t.len().saturating_sub(1));
        t.rotate_left(k);
        t
    }

    /// The path a packet from the wire arrived on (`src` the peer's address, `dst` ours).
    pub fn path_of(&self, src: Ipv4Addr, dst: Ipv4Addr) -> Option<&Path> {
        self.paths
            .iter()
            .find(|p| p.remote == src && p.local == dst)
    }

    /// The bytes the stack gets for a packet from the wire (ports renamed, CRC32c recomputed),
    /// appended to `out`.
    pub fn incoming(&self, sctp: &mut SctpPacket, out: &mut Vec<u8>) -> Result<(), Dropped> {
        sctp.src_port = self.remote_port;
        sctp.dst_port = self.local_port;
        sctp.encode(out).map_err(Dropped::Undecodable)
    }
}

/// Make every chunk of a packet the stack sent re-encode to exactly its bytes: a control chunk
/// that rexmit's codec reads with a loss (FreeBSD's SACK carries the CMT DAC count in flag bits
/// 6–7, where rexmit's SACK has none) goes on as the raw chunk it was. DATA chunks decode
/// exactly and are not checked (their payload is most of the bytes).
pub fn keep_exact_chunks(sctp: &mut SctpPacket, raw: &[u8]) {
    let mut at = rexmit_wire::sctp::SCTP_COMMON_HEADER_LEN;
    let mut buf = Vec::new();
    for c in &mut sctp.chunks {
        let Some(h) = raw.get(at..at + 4) else { return };
        let len = usize::from(u16::from_be_bytes([h[2], h[3]]));
        let padded = rexmit_wire::sctp::pad4(len);
        if !matches!(c, Chunk::Data(_)) {
            buf.clear();
            let same = c.encode(&mut buf).is_ok() && raw.get(at..at + padded) == Some(&buf[..]);
            if !same {
                *c = Chunk::Unknown {
                    chunk_type: h[0],
                    flags: h[1],
                    value: raw.get(at + 4..at + len).unwrap_or_default().to_vec(),
                };
            }
        }
        at += padded;
    }
}

/// The paths of an association as the initiator sees them: path `i` joins the initiator's
/// address `i` (modulo their number) and the peer's address `i`, as rexmit's own SCTP pairs
/// them.
pub fn paths_by_index(local: &[Ipv4Addr], remote: &[Ipv4Addr]) -> Vec<(Ipv4Addr, Ipv4Addr)> {
    if local.is_empty() {
        return Vec::new();
    }
    remote
        .iter()
        .enumerate()
        .map(|(i, r)| (local[i % local.len()], *r))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map() -> WireMap {
        WireMap {
            addressing: Addressing::Conn,
            paths: vec![
                Path {
                    token: 7,
                    local: Ipv4Addr::new(10, 0, 0, 1),
                    remote: Ipv4Addr::new(10, 0, 1, 1),
                },
                Path {
                    token: 8,
                    local: Ipv4Addr::new(10, 1, 0, 1),
                    remote: Ipv4Addr::new(10, 1, 1, 1),
                },
            ],
            primary: 0,
            local_port: 3,
            remote_port: 4,
            wire_port: 49152,
        }
    }

    #[test]
    fn ports_are_renamed_both_ways_and_the_crc_recomputed() {
        let m = map();
        let inside = SctpPacket {
            src_port: 3,
            dst_port: 4,
            verification_tag: 0xabcd,
            chunks: vec![Chunk::CookieAck],
        };
        let bytes = {
            let mut v = Vec::new();
            inside.encode(&mut v).unwrap();
            v
        };
        let ip = m.outgoing(8, 0b10, &bytes).unwrap();
        assert_eq!(
            ip.header.ecn(),
            Ecn::Ect0,
            "the stack's ECT(0) goes on the wire"
        );
        assert_eq!(
            (ip.header.src, ip.header.dst),
            (m.paths[1].local, m.paths[1].remote)
        );
        let Transport::Sctp(mut wire) = ip.transport else {
            panic!("SCTP")
        };
        assert_eq!((wire.src_port, wire.dst_port), (49152, 49152));
        // Seen from the peer: its remote port is ours.
        let peer = WireMap {
            local_port: 4,
            remote_port: 3,
            ..m.clone()
        };
        let mut back = Vec::new();
        peer.incoming(&mut wire, &mut back).unwrap();
        assert_eq!(
            SctpPacket::decode(&back).unwrap(),
            inside,
            "CRC32c valid after renaming"
        );
        assert_eq!(m.outgoing(99, 0, &bytes).unwrap_err(), Dropped::UnknownPath);
        assert!(matches!(
            m.outgoing(7, 0, &bytes[..10]),
            Err(Dropped::Undecodable(_))
        ));
    }

    #[test]
    fn paths_pair_addresses_by_index() {
        let a = |x| Ipv4Addr::new(10, 0, 0, x);
        assert_eq!(
            paths_by_index(&[a(1), a(2)], &[a(11), a(12)]),
            vec![(a(1), a(11)), (a(2), a(12))]
        );
        assert_eq!(
            paths_by_index(&[a(1)], &[a(11), a(12)]),
            vec![(a(1), a(11)), (a(1), a(12))]
        );
    }
}
