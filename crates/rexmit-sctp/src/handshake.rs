//! The pieces of association setup that are pure data (RFC 9260 §5.1): INIT / INIT-ACK
//! parameters, Supported Extensions negotiation of NR-SACK (RFC 5061 §4.2.7, NR-SACK draft
//! §3), and the State Cookie with its integrity check. Owns: encoding and checking the
//! cookie. Does not own: the state machine (`association::control`).

use rexmit_wire::sctp::chunk_type;
use rexmit_wire::InitParam;
use std::net::Ipv4Addr;

/// Everything the listener needs to build its association from a COOKIE ECHO, so that it
/// keeps no state before it (RFC 9260 §5.1.3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cookie {
    pub local_tag: u32,
    pub peer_tag: u32,
    pub local_initial_tsn: u32,
    pub peer_initial_tsn: u32,
    pub peer_a_rwnd: u32,
    /// The peer's outbound streams = our inbound streams; its max inbound = our outbound.
    pub peer_outbound: u16,
    pub peer_inbound: u16,
    pub nr_sack: bool,
    /// Both ends offered ECN (RFC 9260 Appendix A).
    pub ecn: bool,
    pub created_ns: u64,
    /// The peer's addresses, the INIT's source first.
    pub peer_addrs: Vec<Ipv4Addr>,
}

fn mac(bytes: &[u8], secret: u64) -> u64 {
    // FNV-1a keyed by the secret: an integrity check against corruption and guessing, not a
    // cryptographic MAC (a simulator has no attacker).
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ secret;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h ^ secret.rotate_left(17)
}

impl Cookie {
    pub fn encode(&self, secret: u64) -> Vec<u8> {
        let mut v = Vec::with_capacity(40 + 4 * self.peer_addrs.len());
        for x in [
            self.local_tag,
            self.peer_tag,
            self.local_initial_tsn,
            self.peer_initial_tsn,
            self.peer_a_rwnd,
        ] {
            v.extend_from_slice(&x.to_be_bytes());
        }
        v.extend_from_slice(&self.peer_outbound.to_be_bytes());
        v.extend_from_slice(&self.peer_inbound.to_be_bytes());
        // One byte of flags: NR-SACK, ECN.
        v.push(self.nr_sack as u8 | (self.ecn as u8) << 1);
        v.extend_from_slice(&self.created_ns.to_be_bytes());
        v.push(self.peer_addrs.len().min(255) as u8);
        for a in self.peer_addrs.iter().take(255) {
            v.extend_from_slice(&a.octets());
        }
        let m = mac(&v, secret);
        v.extend_from_slice(&m.to_be_bytes());
        v
    }

    /// Decode and check a cookie; `None` for anything malformed or forged.
    pub fn decode(b: &[u8], secret: u64) -> Option<Cookie> {
        if b.len() < 8 {
            return None;
        }
        let (body, tail) = b.split_at(b.len() - 8);
        if u64::from_be_bytes(tail.try_into().ok()?) != mac(body, secret) {
            return None;
        }
        let u32_at = |i: usize| -> Option<u32> {
            Some(u32::from_be_bytes(body.get(i..i + 4)?.try_into().ok()?))
        };
        let u16_at = |i: usize| -> Option<u16> {
            Some(u16::from_be_bytes(body.get(i..i + 2)?.try_into().ok()?))
        };
        let n = *body.get(33)? as usize;
        let mut peer_addrs = Vec::with_capacity(n);
        for k in 0..n {
            let o: [u8; 4] = body.get(34 + 4 * k..38 + 4 * k)?.try_into().ok()?;
            peer_addrs.push(Ipv4Addr::from(o));
        }
        Some(Cookie {
            local_tag: u32_at(0)?,
            peer_tag: u32_at(4)?,
            local_initial_tsn: u32_at(8)?,
            peer_initial_tsn: u32_at(12)?,
            peer_a_rwnd: u32_at(16)?,
            peer_outbound: u16_at(20)?,
            peer_inbound: u16_at(22)?,
            nr_sack: *body.get(24)? & 1 != 0,
            ecn: *body.get(24)? & 2 != 0,
            created_ns: u64::from_be_bytes(body.get(25..33)?.try_into().ok()?),
            peer_addrs,
        })
    }
}

/// Parameters of our INIT / INIT-ACK: every local address, NR-SACK in Supported Extensions
/// when we offer it, and ECN Capable when we offer ECN (RFC 9260 Appendix A).
pub fn init_params(
    local_addrs: &[Ipv4Addr],
    offer_nr_sack: bool,
    offer_ecn: bool,
) -> Vec<InitParam> {
    let mut p: Vec<InitParam> = local_addrs
        .iter()
        .map(|a| InitParam::Ipv4Address(*a))
        .collect();
    if offer_nr_sack {
        p.push(InitParam::SupportedExtensions(vec![chunk_type::NR_SACK]));
    }
    if offer_ecn {
        p.push(InitParam::EcnCapable);
    }
    p
}

/// Did the peer offer ECN (RFC 9260 Appendix A)?
pub fn peer_offers_ecn(params: &[InitParam]) -> bool {
    params.iter().any(|p| matches!(p, InitParam::EcnCapable))
}

/// Did the peer list NR-SACK among its supported extensions?
pub fn peer_offers_nr_sack(params: &[InitParam]) -> bool {
    params
        .iter()
        .any(|p| matches!(p, InitParam::SupportedExtensions(e) if e.contains(&chunk_type::NR_SACK)))
}

/// The peer's addresses: the packet's source first, then listed IPv4 addresses (RFC 9260
/// §5.1.2), without duplicates.
pub fn peer_addresses(source: Ipv4Addr, params: &[InitParam]) -> Vec<Ipv4Addr> {
    let mut v = vec![source];
    for p in params {
        if let InitParam::Ipv4Address(a) = p {
            if !v.contains(a) && !a.is_unspecified() {
                v.push(*a);
            }
        }
    }
    v
}

pub fn state_cookie(params: &[InitParam]) -> Option<&[u8]> {
    params.iter().find_map(|p| match p {
        InitParam::StateCookie(c) => Some(c.as_slice()),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cookie() -> Cookie {
        Cookie {
            local_tag: 1,
            peer_tag: 2,
            local_initial_tsn: 3,
            peer_initial_tsn: 4,
            peer_a_rwnd: 5,
            peer_outbound: 6,
            peer_inbound: 7,
            nr_sack: true,
            ecn: false,
            created_ns: 8,
            peer_addrs: vec![Ipv4Addr::new(10, 0, 0, 1), Ipv4Addr::new(10, 0, 0, 2)],
        }
    }

    #[test]
    fn cookie_round_trips_and_rejects_tampering() {
        let b = cookie().encode(42);
        assert_eq!(Cookie::decode(&b, 42), Some(cookie()));
        assert_eq!(Cookie::decode(&b, 43), None);
        let mut t = b.clone();
        t[3] ^= 1;
        assert_eq!(Cookie::decode(&t, 42), None);
        for n in 0..b.len() {
            let _ = Cookie::decode(&b[..n], 42);
        }
        let both = Cookie {
            ecn: true,
            ..cookie()
        };
        assert_eq!(Cookie::decode(&both.encode(42), 42), Some(both));
        let ecn_only = Cookie {
            nr_sack: false,
            ecn: true,
            ..cookie()
        };
        assert_eq!(Cookie::decode(&ecn_only.encode(42), 42), Some(ecn_only));
    }

    #[test]
    fn nr_sack_offer_is_read_from_supported_extensions() {
        let p = init_params(&[Ipv4Addr::new(1, 2, 3, 4)], true, false);
        assert!(peer_offers_nr_sack(&p));
        assert!(!peer_offers_ecn(&p));
        assert!(peer_offers_ecn(&init_params(&[], false, true)));
        assert!(!peer_offers_nr_sack(&init_params(&[], false, false)));
        assert_eq!(
            peer_addresses(Ipv4Addr::new(9, 9, 9, 9), &p),
            vec![Ipv4Addr::new(9, 9, 9, 9), Ipv4Addr::new(1, 2, 3, 4)]
        );
    }
}
