//! The key path at a byte offset of TOML text, for the parse errors that serde cannot place: the
//! TOML reader refuses an integer too large for TOML, or nesting past its recursion limit,
//! before any key reaches serde, so `serde_path_to_error` has no path. This reads the table
//! headers above the offset and the keys and array positions of the value around it, and spells
//! the path as validation does (`topology.bottleneck.queue.packets`, `apps[0].tcp.mss`,
//! `topology.links[1].errors[0].rate`).
//!
//! It reads only what comes before the offset, which the TOML reader had accepted; on text it
//! cannot follow it gives a shorter path, never a panic. Not here: the error messages
//! (`Scenario::from_toml`).

use std::collections::HashMap;

/// Levels of inline tables and arrays named in a path; past them a path would be a long run of
/// `[0]` (nesting past the reader's recursion limit): the path stops at the key of the line.
const MAX_LEVELS: usize = 16;

/// One open inline table (its current key, once read) or array (the position of the current element).
enum Level {
    Table(Vec<String>),
    Array(usize),
}

/// The key path at byte `offset` of `text`, or None when no key precedes it.
pub(crate) fn key_path_at(text: &str, offset: usize) -> Option<String> {
    let s = text.as_bytes();
    let offset = offset.min(s.len());
    // An error at a comma is about what follows it (a line break inside an inline table): read
    // the comma, so that the path names the table, or the array's next element.
    let end = if s.get(offset) == Some(&b',') {
        offset + 1
    } else {
        offset
    };
    let mut r = Reader { s, i: 0, end };
    // The table of the current header, as path segments (`apps[1]`, `tcp`).
    let mut table: Vec<String> = Vec::new();
    // Elements so far of each array of tables, by its path with the indices of its parents.
    let mut elements: HashMap<String, usize> = HashMap::new();
    // The key of the current line (`tcp.mss` in `tcp.mss = 1`) and its open inline values.
    let mut key: Vec<String> = Vec::new();
    let mut levels: Vec<Level> = Vec::new();
    let mut in_value = false;
    while r.i < r.end {
        let c = r.s[r.i];
        if !in_value {
            match c {
                b' ' | b'\t' | b'\r' | b'\n' => r.i += 1,
                b'#' => r.skip_comment(),
                b'[' => {
                    let array = r.s.get(r.i + 1) == Some(&b'[');
                    r.i += if array { 2 } else { 1 };
                    let keys = r.keys(b']');
                    r.i += if array { 2 } else { 1 };
                    table = header(&keys, array, &mut elements);
                    key.clear();
                }
                _ => {
                    key = r.keys(b'=');
                    r.i += 1;
                    in_value = true;
                }
            }
            continue;
        }
        match c {
            b'"' | b'\'' => r.skip_string(),
            b'#' => r.skip_comment(),
            b'[' => {
                levels.push(Level::Array(0));
                r.i += 1;
            }
            b'{' => {
                levels.push(Level::Table(Vec::new()));
                r.i += 1;
                inline_key(&mut r, &mut levels);
            }
            b']' | b'}' => {
                levels.pop();
                r.i += 1;
            }
            b',' => {
                r.i += 1;
                match levels.last_mut() {
                    Some(Level::Array(n)) => *n += 1,
                    Some(Level::Table(_)) => inline_key(&mut r, &mut levels),
                    None => {}
                }
            }
            b'\n' if levels.is_empty() => {
                in_value = false;
                key.clear();
                r.i += 1;
            }
            _ => r.i += 1,
        }
    }
    let mut path = table;
    path.extend(key);
    if levels.len() <= MAX_LEVELS {
        for level in &levels {
            match level {
                Level::Table(k) => path.extend(k.iter().cloned()),
                Level::Array(n) => match path.last_mut() {
                    Some(last) => last.push_str(&format!("[{n}]")),
                    None => return None,
                },
            }
        }
    }
    (!path.is_empty()).then(|| path.join("."))
}

/// After `{` or a `,` in an inline table: read the next key (`mss` in `{ mss = 1 }`).
fn inline_key(r: &mut Reader, levels: &mut [Level]) {
    if let Some(Level::Table(key)) = levels.last_mut() {
        key.clear();
    }
    r.skip_blank();
    if r.i < r.end && r.s[r.i] != b'}' {
        let k = r.keys(b'=');
        r.i += 1;
        if let Some(Level::Table(key)) = levels.last_mut() {
            *key = k;
        }
    }
}

/// The path segments of a table header: each array of tables in it with the position of its
/// current element, a new element for `[[...]]`'s own.
fn header(keys: &[String], array: bool, elements: &mut HashMap<String, usize>) -> Vec<String> {
    let mut path: Vec<String> = Vec::new();
    for (i, k) in keys.iter().enumerate() {
        let full = if path.is_empty() {
            k.clone()
        } else {
            format!("{}.{k}", path.join("."))
        };
        let n = if array && i + 1 == keys.len() {
            let n = elements.entry(full).or_insert(0);
            *n += 1;
            Some(*n)
        } else {
            elements.get(&full).copied()
        };
        path.push(match n {
            Some(n) => format!("{k}[{}]", n - 1),
            None => k.clone(),
        });
    }
    path
}

struct Reader<'a> {
    s: &'a [u8],
    i: usize,
    end: usize,
}

impl Reader<'_> {
    fn skip_blank(&mut self) {
        while self.i < self.end && matches!(self.s[self.i], b' ' | b'\t' | b'\r' | b'\n') {
            self.i += 1;
        }
    }

    fn skip_comment(&mut self) {
        while self.i < self.end && self.s[self.i] != b'\n' {
            self.i += 1;
        }
    }

    /// A basic or literal string, single-line or multi-line (`"""`, `'''`).
    fn skip_string(&mut self) {
        let q = self.s[self.i];
        let triple = self.s.get(self.i..self.i + 3) == Some(&[q, q, q][..]);
        self.i += if triple { 3 } else { 1 };
        while self.i < self.end {
            let c = self.s[self.i];
            if c == b'\\' && q == b'"' {
                self.i += 2;
            } else if c == q && (!triple || self.s.get(self.i..self.i + 3) == Some(&[q, q, q][..]))
            {
                self.i += if triple { 3 } else { 1 };
                return;
            } else {
                self.i += 1;
            }
        }
    }

    /// A dotted key up to `stop` (`=`, or `]` for a header), each part bare or quoted; leaves
    /// the reader on `stop`.
    fn keys(&mut self, stop: u8) -> Vec<String> {
        let mut keys = Vec::new();
        let mut part = Vec::new();
        while self.i < self.end && self.s[self.i] != stop && self.s[self.i] != b'\n' {
            match self.s[self.i] {
                b'"' | b'\'' => {
                    let start = self.i + 1;
                    self.skip_string();
                    let close = self.i.saturating_sub(1).max(start);
                    part.extend_from_slice(&self.s[start..close.min(self.s.len())]);
                }
                b'.' => {
                    keys.push(String::from_utf8_lossy(&part).into_owned());
                    part.clear();
                    self.i += 1;
                }
                b' ' | b'\t' => self.i += 1,
                c => {
                    part.push(c);
                    self.i += 1;
                }
            }
        }
        keys.push(String::from_utf8_lossy(&part).into_owned());
        keys.retain(|k| !k.is_empty());
        keys
    }
}

#[cfg(test)]
mod tests {
    use super::key_path_at;

    /// The path at the first `@` of `text` (the `@` stands where the reader stopped).
    fn at(text: &str) -> Option<String> {
        let offset = text.find('@').expect("a marker");
        key_path_at(text, offset)
    }

    #[test]
    fn top_level_key_and_dotted_key() {
        assert_eq!(at("stop_time = \"1s\"\nseed = @").as_deref(), Some("seed"));
        assert_eq!(
            at("[[apps]]\ntcp.mss = @").as_deref(),
            Some("apps[0].tcp.mss")
        );
    }

    #[test]
    fn headers_and_arrays_of_tables_count_their_elements() {
        let text = "[topology]\nkind = \"x\"\n[topology.bottleneck]\nrate = \"1Mbps\"\nqueue = { packets = @ }";
        assert_eq!(
            at(text).as_deref(),
            Some("topology.bottleneck.queue.packets")
        );
        let apps = "[[apps]]\nname = \"a\"\n[[apps]]\nname = \"b\"\n[apps.tcp]\nmss = @";
        assert_eq!(at(apps).as_deref(), Some("apps[1].tcp.mss"));
        // A nested array of tables starts again in each element of its parent.
        let nested = "[[p]]\n[[p.q]]\n[[p.q]]\n[[p]]\n[[p.q]]\nx = @";
        assert_eq!(at(nested).as_deref(), Some("p[1].q[0].x"));
    }

    #[test]
    fn inline_tables_and_arrays_give_their_keys_and_positions() {
        let text = "[topology]\nlinks = [ { rate = \"1Mbps\", delay = \"1ms\" }, { rate = \"1Mbps\", errors = [{ kind = \"u\" }, { kind = \"b\", size = { min = 2, max = @ } }] } ]";
        assert_eq!(
            at(text).as_deref(),
            Some("topology.links[1].errors[1].size.max")
        );
        let app = "[[apps]]\nname = \"a\"\ntcp = { cc = \"cubic\", rto = { min = @ } }";
        assert_eq!(at(app).as_deref(), Some("apps[0].tcp.rto.min"));
        // Between two keys of an inline table (a line break there is not TOML): the table.
        let comma = |t: &str| key_path_at(t, t.find(',').expect("a comma"));
        assert_eq!(comma("x = { a = 1,\n b = 2 }").as_deref(), Some("x"));
        assert_eq!(comma("x = [1, 2]").as_deref(), Some("x[1]"));
    }

    #[test]
    fn strings_comments_and_quoted_keys_do_not_mislead() {
        let text = "# [[apps]] in a comment\nname = \"a, b = [ { \"\ndescription = '''\n[[x]]\n'''\n\"quoted key\" = { 'v' = @ }";
        assert_eq!(at(text).as_deref(), Some("quoted key.v"));
    }

    #[test]
    fn deep_nesting_names_the_line_s_key_only() {
        let text = format!("x = {}@", "[".repeat(100));
        assert_eq!(key_path_at(&text, text.len() - 1).as_deref(), Some("x"));
        let shallow = format!("x = {}@", "[".repeat(3));
        assert_eq!(at(&shallow).as_deref(), Some("x[0][0][0]"));
    }

    #[test]
    fn nothing_before_the_offset_is_no_path() {
        assert_eq!(at("@"), None);
        assert_eq!(at("# only a comment\n@"), None);
        // Text the reader cannot follow gives some path or none, never a panic.
        for bad in [
            "[[",
            "= ",
            "[a.\"b",
            "x = [}]",
            "é = { ü = ",
            "a = '''",
            "[[a]]\n[a",
            "x = \"\\",
        ] {
            for end in 0..=bad.len() + 1 {
                let _ = key_path_at(bad, end);
            }
        }
    }
}
