//! Fragmentation of user messages into DATA chunk payloads and reassembly of the fragments
//! (RFC 9260 §6.9). Owns: payload splitting and joining. Does not own: TSNs, B/E flags
//! (the send queue sets them) or delivery order (`reassembly`).

use rexmit_wire::Payload;

/// A message's fragments: inline for the usual single one, so queueing a message that fits in
/// one chunk allocates nothing (issue 40).
pub type Fragments = smallvec::SmallVec<[Payload; 1]>;

/// Split `msg` into pieces of at most `max` bytes (at least one piece).
pub fn split(msg: &Payload, max: u32) -> Fragments {
    let max = max.max(1) as usize;
    let n = msg.len();
    if n <= max {
        return smallvec::smallvec![msg.clone()];
    }
    let mut out = Fragments::with_capacity(n.div_ceil(max));
    let mut off = 0;
    while off < n {
        let len = max.min(n - off);
        out.push(match msg.bytes() {
            Some(b) => Payload::from_bytes(&b[off..off + len]),
            None => Payload::zeros(len as u32),
        });
        off += len;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rexmit_wire::payload::join;

    #[test]
    fn split_then_join_restores_bytes() {
        let data: Vec<u8> = (0..=250u8).collect();
        let parts = split(&Payload::from_bytes(&data), 100);
        assert_eq!(
            parts.iter().map(|p| p.len()).collect::<Vec<_>>(),
            vec![100, 100, 51]
        );
        assert_eq!(join(&parts), Payload::from_bytes(&data));
    }

    #[test]
    fn synthetic_payloads_stay_synthetic() {
        let parts = split(&Payload::zeros(3000), 1452);
        assert_eq!(parts.len(), 3);
        let j = join(&parts);
        assert!(j.bytes().is_none());
        assert_eq!(j.len(), 3000);
    }
}
