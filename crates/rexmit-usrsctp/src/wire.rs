//! Between the stack's packets and the simulated wire.
//!
//! Inside the stack, `usrsctp_conninput(addr, …)` takes `addr` as both the source and the
//! destination of a packet, so both ends of a path share one AF_CONN address (a token) and are
//! told apart by port. Each path of an association is one token, mapped here to the pair of IPv4
//! addresses it joins on the simulated network. The two endpoints have ports of their own inside
//! the stack (a run has one stack, and rexmit's apps use the same port at both ends); on the
//! wire both carry the app's port. Converting rewrites the ports, and the CRC32c is computed
//! afresh by rexmit's encoder, so the bytes on the wire are valid SCTP with the app's ports.

use rexmit_wire::{IpPacket, SctpPacket, Transport, WireError};
use std::net::Ipv4Addr;

/// One path: its AF_CONN token and the two IPv4 addresses it joins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Path {
    pub token: usize,
    pub local: Ipv4Addr,
    pub remote: Ipv4Addr,
}

/// How one endpoint's packets are named inside the stack and on the wire.
#[derive(Clone, Debug)]
pub struct WireMap {
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
    /// The packet the stack sent to AF_CONN address `token`, as it goes on the wire.
    pub fn outgoing(&self, token: usize, bytes: &[u8]) -> Result<IpPacket, Dropped> {
        let path = self
            .paths
            .iter()
            .find(|p| p.token == token)
            .ok_or(Dropped::UnknownPath)?;
        let mut sctp = SctpPacket::decode(bytes).map_err(Dropped::Undecodable)?;
        sctp.src_port = self.wire_port;
        sctp.dst_port = self.wire_port;
        Ok(IpPacket::new(
            path.local,
            path.remote,
            Transport::Sctp(sctp),
        ))
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
    use rexmit_wire::Chunk;

    fn map() -> WireMap {
        WireMap {
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
        let ip = m.outgoing(8, &bytes).unwrap();
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
        assert_eq!(m.outgoing(99, &bytes).unwrap_err(), Dropped::UnknownPath);
        assert!(matches!(
            m.outgoing(7, &bytes[..10]),
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
