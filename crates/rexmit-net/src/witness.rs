//! The event-order witness (issue 40 step 1): a debug record of what the simulation did, in
//! order — every packet reaching a node, every offer to a channel and its outcome, every
//! transmission, every agent timer and start — so that two builds that should behave the same
//! can be compared step by step, and a change that reorders same-instant work is caught at its
//! first divergence instead of in a result digest at the end.
//!
//! A record is what happened, not how the engine scheduled it (no event counts or queue
//! positions): a redesign that keeps the behaviour and changes the events (one event per hop
//! instead of two) leaves the witness unchanged.
//!
//! File format: fixed 32-byte little-endian records (time ns u64, kind u32, target u32, item
//! u64, chain u64); `chain` is an FNV-1a hash over every record so far, so the last record's
//! chain is a digest of the whole run.

use rexmit_time::Time;
use std::fmt;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::Path;

/// What a record says happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Kind {
    /// A packet (`item` = uid) reached node `target`.
    AtNode = 1,
    /// Channel `target` started sending packet `item` at once (idle line).
    OfferSent = 2,
    /// Channel `target` queued packet `item`.
    OfferQueued = 3,
    /// Channel `target`'s queue dropped packet `item` (or marked and dropped by its AQM).
    OfferDropped = 4,
    /// Channel `target` put packet `item` on the line; it will arrive.
    TxDeliver = 5,
    /// Channel `target` put packet `item` on the line; its error model loses it.
    TxLost = 6,
    /// Agent `target`'s timer `item` (its token) fired.
    Timer = 7,
    /// Agent `target` started.
    Start = 8,
    /// Series `target` took a sample.
    Sample = 9,
    /// A packet from outside the simulation left node `target`.
    External = 10,
}

impl Kind {
    fn from_u32(v: u32) -> Option<Kind> {
        use Kind::*;
        [
            AtNode,
            OfferSent,
            OfferQueued,
            OfferDropped,
            TxDeliver,
            TxLost,
            Timer,
            Start,
            Sample,
            External,
        ]
        .into_iter()
        .find(|k| *k as u32 == v)
    }
}

/// One record of a witness file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    pub time_ns: u64,
    pub kind: u32,
    pub target: u32,
    pub item: u64,
    pub chain: u64,
}

const RECORD: usize = 32;

impl Record {
    fn to_bytes(self) -> [u8; RECORD] {
        let mut b = [0u8; RECORD];
        b[0..8].copy_from_slice(&self.time_ns.to_le_bytes());
        b[8..12].copy_from_slice(&self.kind.to_le_bytes());
        b[12..16].copy_from_slice(&self.target.to_le_bytes());
        b[16..24].copy_from_slice(&self.item.to_le_bytes());
        b[24..32].copy_from_slice(&self.chain.to_le_bytes());
        b
    }
    fn from_bytes(b: &[u8; RECORD]) -> Record {
        let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().expect("4 bytes"));
        Record {
            time_ns: u64_at(0),
            kind: u32_at(8),
            target: u32_at(12),
            item: u64_at(16),
            chain: u64_at(24),
        }
    }
}

impl fmt::Display for Record {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = self.time_ns as f64 * 1e-9;
        match Kind::from_u32(self.kind) {
            Some(k) => write!(
                f,
                "t={t:.9} s {k:?} target {} item {}",
                self.target, self.item
            ),
            None => write!(f, "t={t:.9} s kind {} (unknown)", self.kind),
        }
    }
}

fn fnv(mut h: u64, bytes: &[u8]) -> u64 {
    for b in bytes {
        h ^= *b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    h
}

/// Writes a witness file as the simulation runs.
pub struct Witness {
    out: BufWriter<File>,
    chain: u64,
    count: u64,
    error: Option<io::Error>,
}

impl Witness {
    pub fn create(path: &Path) -> io::Result<Witness> {
        Ok(Witness {
            out: BufWriter::with_capacity(1 << 16, File::create(path)?),
            chain: 0xcbf29ce484222325,
            count: 0,
            error: None,
        })
    }

    pub fn record(&mut self, now: Time, kind: Kind, target: u32, item: u64) {
        let mut r = Record {
            time_ns: now.as_nanos(),
            kind: kind as u32,
            target,
            item,
            chain: 0,
        };
        self.chain = fnv(self.chain, &r.to_bytes()[..24]);
        r.chain = self.chain;
        self.count += 1;
        if self.error.is_none() {
            if let Err(e) = self.out.write_all(&r.to_bytes()) {
                self.error = Some(e);
            }
        }
    }

    /// Flush the file; the records written and the run's digest (the last chain value), or the
    /// first write error.
    pub fn finish(&mut self) -> io::Result<(u64, u64)> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.flush()?;
        Ok((self.count, self.chain))
    }
}

/// Where two witness files first differ.
#[derive(Debug, PartialEq, Eq)]
pub struct Divergence {
    /// Index of the first differing record.
    pub index: u64,
    /// The records before it (common to both), oldest first.
    pub before: Vec<Record>,
    /// The record of each file at `index` (None: that file ended there).
    pub a: Option<Record>,
    pub b: Option<Record>,
}

impl fmt::Display for Divergence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "first divergence at record {}", self.index)?;
        for r in &self.before {
            writeln!(f, "  both: {r}")?;
        }
        let show = |r: &Option<Record>| r.map_or("(end of file)".to_string(), |r| r.to_string());
        writeln!(f, "  a:    {}", show(&self.a))?;
        write!(f, "  b:    {}", show(&self.b))
    }
}

fn next(r: &mut impl Read) -> io::Result<Option<Record>> {
    let mut b = [0u8; RECORD];
    match r.read_exact(&mut b) {
        Ok(()) => Ok(Some(Record::from_bytes(&b))),
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(None),
        Err(e) => Err(e),
    }
}

/// Compare two witness files: None when they are identical, else the first divergence with
/// up to `context` common records before it.
pub fn first_divergence(a: &Path, b: &Path, context: usize) -> io::Result<Option<Divergence>> {
    let mut ra = BufReader::with_capacity(1 << 16, File::open(a)?);
    let mut rb = BufReader::with_capacity(1 << 16, File::open(b)?);
    let mut before = std::collections::VecDeque::with_capacity(context + 1);
    let mut index = 0u64;
    loop {
        let (x, y) = (next(&mut ra)?, next(&mut rb)?);
        // The chain is compared too: equal records after equal chains have equal chains, so a
        // chain difference alone means a corrupt file, which is worth reporting.
        if x != y {
            return Ok(Some(Divergence {
                index,
                before: before.into_iter().collect(),
                a: x,
                b: y,
            }));
        }
        let Some(x) = x else {
            return Ok(None);
        };
        if context > 0 {
            if before.len() == context {
                before.pop_front();
            }
            before.push_back(x);
        }
        index += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, recs: &[(u64, Kind, u32, u64)]) -> (u64, u64) {
        let mut w = Witness::create(path).unwrap();
        for &(t, k, target, item) in recs {
            w.record(Time::from_nanos(t), k, target, item);
        }
        w.finish().unwrap()
    }

    #[test]
    fn identical_runs_have_no_divergence_and_one_digest() {
        let dir = std::env::temp_dir().join(format!("witness-same-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let recs = [
            (0, Kind::Start, 0, 0),
            (5, Kind::OfferSent, 1, 0),
            (9, Kind::AtNode, 2, 0),
        ];
        let da = write(&dir.join("a"), &recs);
        let db = write(&dir.join("b"), &recs);
        assert_eq!(da, db);
        assert_eq!(da.0, 3);
        assert_eq!(
            first_divergence(&dir.join("a"), &dir.join("b"), 4).unwrap(),
            None
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Two same-instant records swapped (a reordered tie) are caught at the first of them,
    /// with the common records before it.
    #[test]
    fn a_reordered_tie_is_reported_at_its_first_record() {
        let dir = std::env::temp_dir().join(format!("witness-tie-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let common = [(0, Kind::Start, 0, 0), (5, Kind::OfferSent, 1, 0)];
        let mut a = common.to_vec();
        a.extend([(9, Kind::AtNode, 2, 0), (9, Kind::AtNode, 3, 1)]);
        let mut b = common.to_vec();
        b.extend([(9, Kind::AtNode, 3, 1), (9, Kind::AtNode, 2, 0)]);
        let da = write(&dir.join("a"), &a);
        let db = write(&dir.join("b"), &b);
        assert_ne!(da.1, db.1, "the digests differ");
        let d = first_divergence(&dir.join("a"), &dir.join("b"), 1)
            .unwrap()
            .unwrap();
        assert_eq!(d.index, 2);
        assert_eq!(d.before.len(), 1);
        assert_eq!(d.before[0].kind, Kind::OfferSent as u32);
        assert_eq!((d.a.unwrap().target, d.b.unwrap().target), (2, 3));
        let text = d.to_string();
        assert!(
            text.contains("record 2") && text.contains("AtNode target 2 item 0"),
            "{text}"
        );
        // A file that stops early diverges where it ends.
        write(&dir.join("c"), &common);
        let d = first_divergence(&dir.join("a"), &dir.join("c"), 0)
            .unwrap()
            .unwrap();
        assert_eq!((d.index, d.b), (2, None));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
