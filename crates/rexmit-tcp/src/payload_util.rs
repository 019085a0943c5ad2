//! Slicing and joining `Payload`s without turning synthetic zeros into real bytes.

use rexmit_wire::Payload;

/// Bytes `[from, from + len)` of `p`.
pub fn slice(p: &Payload, from: usize, len: usize) -> Payload {
    if from == 0 && len == p.len() {
        return p.clone();
    }
    match p.bytes() {
        Some(b) => Payload::from_bytes(&b[from..from + len]),
        None => Payload::zeros(len as u32),
    }
}

/// Concatenates payloads as they come: one part is returned as it is, synthetic parts stay a
/// byte count, and a buffer is only built once a part with real bytes joins others.
#[derive(Default)]
pub struct Joiner {
    parts: usize,
    len: usize,
    first: Option<Payload>,
    bytes: Option<Vec<u8>>,
}

impl Joiner {
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
#[cfg(test)]
pub fn join(parts: &[Payload]) -> Payload {
    let mut j = Joiner::default();
    for p in parts {
        j.push(p.clone());
    }
    j.finish()
}

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
        let mixed = join(&[Payload::zeros(2), Payload::from_bytes(&[1, 2]), Payload::zeros(1), Payload::from_bytes(&[3])]);
        assert_eq!(mixed.to_vec(), vec![0, 0, 1, 2, 0, 3]);
        let real_first = join(&[Payload::from_bytes(&[9]), Payload::zeros(2)]);
        assert_eq!(real_first.to_vec(), vec![9, 0, 0]);
    }

    #[test]
    fn whole_slice_is_the_payload_itself() {
        let p = Payload::from_bytes(&[1, 2, 3]);
        assert_eq!(slice(&p, 0, 3).to_vec(), vec![1, 2, 3]);
        assert_eq!(slice(&p, 1, 1).to_vec(), vec![2]);
        assert_eq!(slice(&Payload::zeros(5), 1, 3).len(), 3);
    }
}
