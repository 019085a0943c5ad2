//! Serial-number arithmetic for TSNs (32 bit) and SSNs (16 bit), RFC 9260 §1.6 (RFC 1982
//! with SERIAL_BITS = 32 / 16), and an unwrapper that maps TSNs to a monotone 64-bit line so
//! that ordered maps never see a wrap.

/// a < b in TSN serial arithmetic.
#[inline]
pub fn tsn_lt(a: u32, b: u32) -> bool {
    a != b && (b.wrapping_sub(a) as i32) > 0
}
#[inline]
pub fn tsn_le(a: u32, b: u32) -> bool {
    a == b || tsn_lt(a, b)
}
#[inline]
pub fn tsn_gt(a: u32, b: u32) -> bool {
    tsn_lt(b, a)
}
#[inline]
pub fn tsn_ge(a: u32, b: u32) -> bool {
    tsn_le(b, a)
}

/// Maps a 32-bit TSN to a 64-bit position relative to a moving reference (the cumulative TSN),
/// valid while the TSN is within 2^31 of the reference, which the receive window guarantees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unwrapper {
    ref_tsn: u32,
    ref_pos: u64,
}

impl Unwrapper {
    /// `tsn` maps to position 2^32 so that TSNs below it stay positive.
    pub fn new(tsn: u32) -> Self {
        Unwrapper {
            ref_tsn: tsn,
            ref_pos: 1 << 32,
        }
    }
    pub fn unwrap(&self, tsn: u32) -> u64 {
        let d = tsn.wrapping_sub(self.ref_tsn) as i32 as i64;
        (self.ref_pos as i64 + d) as u64
    }
    pub fn wrap(&self, pos: u64) -> u32 {
        self.ref_tsn
            .wrapping_add(pos.wrapping_sub(self.ref_pos) as u32)
    }
    /// Move the reference forward (to keep later TSNs within range).
    pub fn advance_to(&mut self, tsn: u32) {
        let pos = self.unwrap(tsn);
        self.ref_tsn = tsn;
        self.ref_pos = pos;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serial_comparison_wraps() {
        assert!(tsn_lt(1, 2));
        assert!(tsn_lt(u32::MAX, 0));
        assert!(tsn_gt(3, u32::MAX - 2));
        assert!(!tsn_lt(5, 5));
        assert!(tsn_le(5, 5));
    }

    #[test]
    fn unwrapper_is_monotone_across_wrap() {
        let mut u = Unwrapper::new(u32::MAX - 1);
        let a = u.unwrap(u32::MAX - 1);
        let b = u.unwrap(u32::MAX);
        let c = u.unwrap(0);
        assert!(a < b && b < c);
        u.advance_to(0);
        assert_eq!(u.unwrap(1), c + 1);
        assert_eq!(u.wrap(c + 1), 1);
    }
}
