//! Application payload carried by UDP datagrams, TCP segments and SCTP DATA chunks.
//!
//! Bulk transfers in a simulator do not need real bytes: `Payload::zeros(n)` stands for `n` zero
//! bytes and costs nothing to carry; it encodes to exactly those bytes on the wire. Real bytes
//! (from decoding, or from an application that wants them checked) are shared, so cloning a
//! packet never copies its payload.

use std::sync::Arc;

#[derive(Clone, Debug)]
pub struct Payload(Repr);

#[derive(Clone, Debug)]
enum Repr {
    Zeros(u32),
    Bytes(Arc<[u8]>),
}

impl Payload {
    pub fn empty() -> Self {
        Payload(Repr::Zeros(0))
    }
    /// `len` zero bytes, carried without allocation.
    pub fn zeros(len: u32) -> Self {
        Payload(Repr::Zeros(len))
    }
    pub fn from_bytes(b: &[u8]) -> Self {
        Payload(Repr::Bytes(Arc::from(b)))
    }
    pub fn len(&self) -> usize {
        match &self.0 {
            Repr::Zeros(n) => *n as usize,
            Repr::Bytes(b) => b.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The real bytes, if this payload has them (`None` for synthetic zeros).
    pub fn bytes(&self) -> Option<&[u8]> {
        match &self.0 {
            Repr::Zeros(_) => None,
            Repr::Bytes(b) => Some(b),
        }
    }
    /// Append the wire bytes of this payload.
    pub fn write_to(&self, out: &mut Vec<u8>) {
        match &self.0 {
            Repr::Zeros(n) => out.resize(out.len() + *n as usize, 0),
            Repr::Bytes(b) => out.extend_from_slice(b),
        }
    }
    /// The bytes this payload puts on the wire.
    pub fn to_vec(&self) -> Vec<u8> {
        let mut v = Vec::with_capacity(self.len());
        self.write_to(&mut v);
        v
    }
}

impl Default for Payload {
    fn default() -> Self {
        Payload::empty()
    }
}

/// Two payloads are equal when they put the same bytes on the wire.
impl PartialEq for Payload {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (Repr::Zeros(a), Repr::Zeros(b)) => a == b,
            (Repr::Bytes(a), Repr::Bytes(b)) => a == b,
            (Repr::Zeros(n), Repr::Bytes(b)) | (Repr::Bytes(b), Repr::Zeros(n)) => {
                b.len() == *n as usize && b.iter().all(|&x| x == 0)
            }
        }
    }
}
impl Eq for Payload {}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn zeros_equal_their_decoded_bytes() {
        assert_eq!(Payload::zeros(3), Payload::from_bytes(&[0, 0, 0]));
        assert_ne!(Payload::zeros(3), Payload::from_bytes(&[0, 1, 0]));
        assert_eq!(Payload::zeros(5).to_vec(), vec![0; 5]);
    }
}
