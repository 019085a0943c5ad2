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

/// Concatenates payloads as they come: one part is returned as it is, synthetic parts stay a
/// byte count, and a buffer is only built once a part with real bytes joins others.
#[derive(Default)]
pub struct PayloadJoiner {
    parts: usize,
    len: usize,
    first: Option<Payload>,
    bytes: Option<Vec<u8>>,
}

impl PayloadJoiner {
    pub fn push(&mut self, p: Payload) {
        self.parts += 1;
        if self.parts == 1 {
            self.len = p.len();
            self.first = Some(p);
            return;
        }
        if self.bytes.is_none() {
            let first_real = self.first.as_ref().is_some_and(|f| f.bytes().is_some());
            if first_real || p.bytes().is_some() {
                let mut v = Vec::with_capacity(self.len + p.len());
                match self.first.take() {
                    Some(f) => f.write_to(&mut v),
                    None => v.resize(self.len, 0),
                }
                self.bytes = Some(v);
            } else {
                self.first = None;
            }
        }
        if let Some(v) = self.bytes.as_mut() {
            p.write_to(v);
        }
        self.len += p.len();
    }

    pub fn finish(self) -> Payload {
        match (self.parts, self.first, self.bytes) {
            (0, _, _) => Payload::empty(),
            (1, Some(p), _) => p,
            (_, _, Some(v)) => Payload::from_bytes(&v),
            _ => Payload::zeros(self.len as u32),
        }
    }
}

/// Concatenation of `parts`; stays synthetic when every part is.
pub fn join(parts: &[Payload]) -> Payload {
    let mut j = PayloadJoiner::default();
    for p in parts {
        j.push(p.clone());
    }
    j.finish()
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
    fn joiner_keeps_synthetic_parts_synthetic_and_real_bytes_in_order() {
        assert_eq!(join(&[]).len(), 0);
        let z = join(&[Payload::zeros(3), Payload::zeros(4)]);
        assert_eq!((z.len(), z.bytes().is_none()), (7, true));
        let one = Payload::from_bytes(&[7, 8]);
        assert_eq!(join(std::slice::from_ref(&one)).to_vec(), vec![7, 8]);
        let mixed = join(&[
            Payload::zeros(2),
            Payload::from_bytes(&[1, 2]),
            Payload::zeros(1),
            Payload::from_bytes(&[3]),
        ]);
        assert_eq!(mixed.to_vec(), vec![0, 0, 1, 2, 0, 3]);
        let real_first = join(&[Payload::from_bytes(&[9]), Payload::zeros(2)]);
        assert_eq!(real_first.to_vec(), vec![9, 0, 0]);
    }

    #[test]
    fn zeros_equal_their_decoded_bytes() {
        assert_eq!(Payload::zeros(3), Payload::from_bytes(&[0, 0, 0]));
        assert_ne!(Payload::zeros(3), Payload::from_bytes(&[0, 1, 0]));
        assert_eq!(Payload::zeros(5).to_vec(), vec![0; 5]);
    }
}
