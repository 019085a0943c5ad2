//! `WireError`: why a packet could not be encoded or decoded. Every message names the layer and
//! the field at fault, so a failed decode of untrusted bytes can be logged as is.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WireError {
    /// Fewer bytes than the structure `what` needs.
    Truncated {
        what: &'static str,
        needed: usize,
        available: usize,
    },
    /// A checksum did not verify. `what` names it, e.g. "IPv4: header checksum".
    ChecksumMismatch {
        what: &'static str,
        computed: u32,
        found: u32,
    },
    /// A length field inconsistent with the structure, e.g. "TCP option SACK" / "length 11 is not 2+8n".
    BadLength { what: String, detail: String },
    /// A field value this codec cannot represent or does not support.
    Unsupported { what: &'static str, detail: String },
    /// Encoding would overflow a header field (e.g. the 16-bit IPv4 total length).
    TooLong {
        what: &'static str,
        len: usize,
        max: usize,
    },
}

impl WireError {
    pub(crate) fn bad_length(what: impl Into<String>, detail: impl Into<String>) -> Self {
        WireError::BadLength {
            what: what.into(),
            detail: detail.into(),
        }
    }
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WireError::Truncated {
                what,
                needed,
                available,
            } => {
                write!(
                    f,
                    "{what}: truncated, need {needed} bytes but only {available} available"
                )
            }
            WireError::ChecksumMismatch {
                what,
                computed,
                found,
            } => {
                write!(
                    f,
                    "{what} mismatch (computed {computed:#x}, found {found:#x})"
                )
            }
            WireError::BadLength { what, detail } => write!(f, "{what}: {detail}"),
            WireError::Unsupported { what, detail } => write!(f, "{what}: {detail}"),
            WireError::TooLong { what, len, max } => {
                write!(f, "{what}: length {len} exceeds the maximum {max}")
            }
        }
    }
}

impl std::error::Error for WireError {}

/// Bounds-checked big-endian reads over a byte slice. Every read either succeeds or returns
/// `WireError::Truncated` naming `what`; nothing here can panic.
#[derive(Clone, Copy)]
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
    what: &'static str,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(bytes: &'a [u8], what: &'static str) -> Self {
        Reader { bytes, what }
    }
    pub(crate) fn remaining(&self) -> usize {
        self.bytes.len()
    }
    pub(crate) fn rest(&self) -> &'a [u8] {
        self.bytes
    }
    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8], WireError> {
        if n > self.bytes.len() {
            return Err(WireError::Truncated {
                what: self.what,
                needed: n,
                available: self.bytes.len(),
            });
        }
        let (head, tail) = self.bytes.split_at(n);
        self.bytes = tail;
        Ok(head)
    }
    pub(crate) fn u8(&mut self) -> Result<u8, WireError> {
        Ok(self.take(1)?[0])
    }
    pub(crate) fn u16(&mut self) -> Result<u16, WireError> {
        let b = self.take(2)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }
    pub(crate) fn u32(&mut self) -> Result<u32, WireError> {
        let b = self.take(4)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }
}

/// Fail unless a length field has the one value its structure allows.
pub(crate) fn expect_len(
    what: impl FnOnce() -> String,
    len: usize,
    want: usize,
) -> Result<(), WireError> {
    if len == want {
        Ok(())
    } else {
        Err(WireError::bad_length(
            what(),
            format!("length {len}, expected {want}"),
        ))
    }
}

/// Convert a length to a 16-bit header field, or fail naming the field.
pub(crate) fn len16(what: &'static str, len: usize) -> Result<u16, WireError> {
    u16::try_from(len).map_err(|_| WireError::TooLong {
        what,
        len,
        max: u16::MAX as usize,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reader_reports_truncation_instead_of_panicking() {
        let mut r = Reader::new(&[1, 2, 3], "test");
        assert_eq!(r.u16().unwrap(), 0x0102);
        let e = r.u32().unwrap_err();
        assert_eq!(
            e.to_string(),
            "test: truncated, need 4 bytes but only 1 available"
        );
        assert_eq!(r.u8().unwrap(), 3);
    }

    #[test]
    fn len16_rejects_overflow() {
        assert_eq!(len16("x", 65535).unwrap(), 65535);
        assert!(len16("x", 65536).is_err());
    }
}
