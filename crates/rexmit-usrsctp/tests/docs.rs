//! The option table of docs/usrsctp.md (between its `<!-- options -->` markers) is rendered from
//! `rexmit_usrsctp::OPTIONS`: this test fails when the file is not what the list gives.
//! `REXMIT_BLESS=1 cargo test -p rexmit-usrsctp --test docs` rewrites that part.

use rexmit_usrsctp::{Counterpart, OPTIONS};
use std::path::Path;

const START: &str = "<!-- options: generated from rexmit_usrsctp::OPTIONS -->\n";
const END: &str = "<!-- /options -->\n";

fn render() -> String {
    let mut s =
        String::from("| `sctp` key | with `stack = \"usrsctp\"` | counterpart |\n|---|---|---|\n");
    for (key, c) in OPTIONS {
        let key = match *key {
            "thin" | "rack" => format!("`{key}.*`"),
            k => format!("`{k}`"),
        };
        let (how, what) = match c {
            Counterpart::Socket(t) => ("socket option, both ends", *t),
            Counterpart::StackWide(t) => ("sysctl `net.inet.sctp.*`: one value per run", *t),
            Counterpart::BuiltIn(t) => ("built in: only FreeBSD's value", *t),
            Counterpart::None(t) => ("refused", *t),
        };
        s.push_str(&format!(
            "| {key} | {how} | {} |\n",
            what.replace('|', "\\|")
        ));
    }
    s
}

#[test]
fn docs_usrsctp_md_lists_every_option_as_mapped() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/usrsctp.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let (a, rest) = text.split_once(START).expect("start marker");
    let (old, b) = rest.split_once(END).expect("end marker");
    let new = render();
    if std::env::var("REXMIT_BLESS").as_deref() == Ok("1") {
        std::fs::write(&path, format!("{a}{START}{new}{END}{b}")).unwrap();
        return;
    }
    assert_eq!(
        old, new,
        "docs/usrsctp.md is stale: REXMIT_BLESS=1 cargo test -p rexmit-usrsctp --test docs"
    );
}
