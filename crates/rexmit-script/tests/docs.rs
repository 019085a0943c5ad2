//! docs/scripts.md documents every assertion variable and every skipped sysctl, and the
//! README's example script runs.

use rexmit_script::{run_str, Status, SCTP_VARS, SKIPPED_SYSCTLS, TCP_VARS};
use std::path::Path;

fn read(rel: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .join(rel),
    )
    .expect("readable")
}

#[test]
fn scripts_md_lists_every_variable_and_skipped_sysctl() {
    let doc = read("docs/scripts.md");
    let missing: Vec<&str> = TCP_VARS
        .iter()
        .chain(SCTP_VARS)
        .map(|(n, _)| *n)
        .chain(SKIPPED_SYSCTLS.iter().map(|(n, _)| *n))
        .filter(|n| !doc.contains(&format!("`{n}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/scripts.md does not mention {missing:?}"
    );
}

#[test]
fn the_readme_example_passes() {
    let readme = read("README.md");
    let start = readme
        .find("```\n--profile=rfc")
        .expect("the Scripts example")
        + 4;
    let len = readme[start..].find("```").expect("closed");
    let o = run_str(&readme[start..start + len], "README.md");
    assert_eq!(o.status, Status::Passed, "{}", o.report);
}
