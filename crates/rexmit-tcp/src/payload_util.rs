//! Slicing `Payload`s without turning synthetic zeros into real bytes (joining is
//! `rexmit_wire::payload::PayloadJoiner`).

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_slice_is_the_payload_itself() {
        let p = Payload::from_bytes(&[1, 2, 3]);
        assert_eq!(slice(&p, 0, 3).to_vec(), vec![1, 2, 3]);
        assert_eq!(slice(&p, 1, 1).to_vec(), vec![2]);
        assert_eq!(slice(&Payload::zeros(5), 1, 3).len(), 3);
    }
}
