//! Hash maps for the per-packet lookups (address owner, routes, ports). Keys are small integers,
//! so a one-multiply hash is enough; std's SipHash guards against adversarial keys, which a
//! simulator's own addresses are not. The hash is fixed (no random state): lookups are
//! deterministic, and no code iterates these maps in a way that affects results.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

#[derive(Default, Clone, Copy)]
pub struct MulHasher(u64);

const K: u64 = 0x9E37_79B9_7F4A_7C15;

impl Hasher for MulHasher {
    #[inline]
    fn finish(&self) -> u64 {
        // A product's low bits depend only on the factor's low bits, and the table indexes by
        // the low bits: addresses differing only in their last octets (10.0.x.y, bytes 2-3 of
        // the word) would all land in one bucket. Fold the well-mixed high half down.
        self.0 ^ (self.0 >> 32)
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(w));
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.write_u64(i as u64);
    }
    #[inline]
    fn write_u16(&mut self, i: u16) {
        self.write_u64(i as u64);
    }
    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.write_u64(i as u64);
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(K);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }
}

pub type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<MulHasher>>;
