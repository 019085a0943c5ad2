//! Nothing a script says makes the runner panic (issue 38 §1): random text and random edits of
//! the suite's own scripts either run or come back Failed/Malformed with a position.

use proptest::prelude::*;
use rexmit_script::{parser, run_str, Status};
use std::path::Path;

/// A few scripts of the suite, TCP and SCTP, as seeds for the mutations.
fn seeds() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/scripts");
    [
        "tcp/rfc6675/rescue-retransmission.pkt",
        "tcp/tlp/repair-reduces-window.pkt",
        "tcp/handshake/tcp-info-getsockopt.pkt",
        "tcp/close/passive-close.pkt",
        "sctp/recovery/fast-retransmit.pkt",
        "sctp/nr-sack/receiver-blocks.pkt",
    ]
    .iter()
    .map(|p| std::fs::read_to_string(root.join(p)).expect("suite script"))
    .collect()
}

/// Pieces of the grammar to splice in: times, punctuation, keywords, numbers at the edges.
const PIECES: &[&str] = &[
    "+",
    "-",
    "*",
    "...",
    "~",
    "<",
    ">",
    "%{",
    "}%",
    "`",
    "[",
    "]",
    "{",
    "}",
    "(",
    ")",
    ",",
    ":",
    ";",
    "=",
    "\n",
    " ",
    "0",
    "+0",
    "+.1",
    "4294967295",
    "18446744073709551616",
    "0x",
    "99999999999.9999999999",
    "S.",
    "F.",
    "R",
    ".",
    "ack",
    "win",
    "<...>",
    "sack",
    "TS val",
    "ecr",
    "mss",
    "wscale",
    "sackOK",
    "nop",
    "sctp:",
    "DATA[",
    "SACK[",
    "gaps=[",
    "len=",
    "tsn=",
    "INIT[",
    "flgs=BE",
    "assert",
    "tcpi_snd_cwnd",
    " / 0",
    "//",
    "/*",
    "*/",
    "\"",
    "write(4, ..., 1000) = 1000",
    "read(4, ..., 9) = 9",
    "close(4) = 0",
    "socket(..., SOCK_STREAM, IPPROTO_SCTP) = 3",
    "--profile=rfc\n",
    "--tcp.mss=1\n",
    "`sysctl -q net.ipv4.tcp_sack=0`",
    "é",
    "\u{0}",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn random_text_never_panics(s in "\\PC{0,200}") {
        let _ = parser::parse(&s);
        let o = run_str(&s, "fuzz.pkt");
        prop_assert!(o.status != Status::Passed || !o.report.contains("panicked"));
    }

    #[test]
    fn edited_suite_scripts_never_panic(
        which in 0usize..6,
        edits in prop::collection::vec((0usize..10_000, 0usize..8, 0usize..PIECES.len()), 1..6),
    ) {
        let mut s = seeds()[which].clone();
        for (at, del, piece) in edits {
            let mut i = at % (s.len() + 1);
            while !s.is_char_boundary(i) {
                i -= 1;
            }
            let mut j = (i + del).min(s.len());
            while !s.is_char_boundary(j) {
                j += 1;
            }
            s.replace_range(i..j, PIECES[piece]);
        }
        let o = run_str(&s, "fuzz.pkt");
        match o.status {
            Status::Passed => prop_assert!(o.report.is_empty()),
            // Every report names the script and a line.
            _ => prop_assert!(o.report.starts_with("fuzz.pkt:"), "{}", o.report),
        }
    }

    /// Whole lines dropped, repeated or taken from another script: scripts that parse but do
    /// odd things at run time (packets before sockets, calls on closed sockets, TCP lines in
    /// an SCTP script, times going backwards).
    #[test]
    fn shuffled_lines_never_panic(
        which in 0usize..6,
        ops in prop::collection::vec((0usize..200, 0usize..6, 0usize..200, 0usize..3), 1..8),
    ) {
        let all = seeds();
        let mut lines: Vec<String> = all[which].lines().map(str::to_string).collect();
        for (at, from, line, op) in ops {
            let i = at % (lines.len() + 1);
            let donor: Vec<&str> = all[from].lines().collect();
            let l = donor[line % donor.len()].to_string();
            match op {
                0 => lines.insert(i, l),
                1 if i < lines.len() => {
                    lines.remove(i);
                }
                _ if i < lines.len() => lines[i] = l,
                _ => {}
            }
        }
        let o = run_str(&lines.join("\n"), "fuzz.pkt");
        if o.status != Status::Passed {
            prop_assert!(o.report.starts_with("fuzz.pkt:"), "{}", o.report);
        }
    }
}
