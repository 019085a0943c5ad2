//! Slicing and joining `Payload`s without turning synthetic zeros into real bytes.

use rexmit_wire::Payload;

/// Bytes `[from, from + len)` of `p`.
pub fn slice(p: &Payload, from: usize, len: usize) -> Payload {
    match p.bytes() {
        Some(b) => Payload::from_bytes(&b[from..from + len]),
        None => Payload::zeros(len as u32),
    }
}

/// Concatenation of `parts`; stays synthetic when every part is.
pub fn join(parts: &[Payload]) -> Payload {
    if parts.len() == 1 {
        return parts[0].clone();
    }
    let total: usize = parts.iter().map(|p| p.len()).sum();
    if parts.iter().all(|p| p.bytes().is_none()) {
        return Payload::zeros(total as u32);
    }
    let mut v = Vec::with_capacity(total);
    for p in parts {
        p.write_to(&mut v);
    }
    Payload::from_bytes(&v)
}
