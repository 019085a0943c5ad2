//! Who the two ends of the association are: our addresses and port, the peer's port, both
//! verification tags (RFC 9260 §8.5) and whether both ends offered NR-SACK. Set when the
//! association is created and completed once by the handshake (`control.rs`: `set_peer_port`,
//! `adopt_peer`); every other part only reads it.

use std::net::Ipv4Addr;

/// The association's identity: addresses, ports, verification tags, NR-SACK.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Identity {
    local_addrs: Vec<Ipv4Addr>,
    local_port: u16,
    /// 0 until known (a listener learns it from the INIT).
    peer_port: u16,
    /// Our verification tag: the peer puts it in every packet to us.
    local_tag: u32,
    /// The peer's verification tag, 0 until its INIT / INIT ACK: we put it in every packet.
    peer_tag: u32,
    /// Both ends offered NR-SACK.
    nr_sack: bool,
}

impl Identity {
    pub(super) fn new(local_addrs: Vec<Ipv4Addr>, local_port: u16, local_tag: u32) -> Self {
        Identity {
            local_addrs,
            local_port,
            peer_port: 0,
            local_tag,
            peer_tag: 0,
            nr_sack: false,
        }
    }

    pub(super) fn local_addrs(&self) -> &[Ipv4Addr] {
        &self.local_addrs
    }
    pub(super) fn local_port(&self) -> u16 {
        self.local_port
    }
    pub(super) fn peer_port(&self) -> u16 {
        self.peer_port
    }
    pub(super) fn local_tag(&self) -> u32 {
        self.local_tag
    }
    pub(super) fn peer_tag(&self) -> u32 {
        self.peer_tag
    }
    pub(super) fn nr_sack(&self) -> bool {
        self.nr_sack
    }

    /// The peer's port: given to `connect`, or learnt from its INIT or COOKIE ECHO.
    pub(super) fn set_peer_port(&mut self, port: u16) {
        self.peer_port = port;
    }

    /// The peer's INIT / INIT ACK (or the cookie that carries it): its tag, and whether both
    /// ends offered NR-SACK.
    pub(super) fn adopt_peer(&mut self, peer_tag: u32, nr_sack: bool) {
        self.peer_tag = peer_tag;
        self.nr_sack = nr_sack;
    }
}
