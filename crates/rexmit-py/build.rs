//! Records the git revision the extension is built from as `REXMIT_GIT_REVISION` (exposed as
//! `rexmit._core.__git_revision__` and printed by `rexmit --version`): `git rev-parse --short
//! HEAD`, or "unknown" outside a git checkout
//! (a source archive, an sdist) or without git.

use std::path::PathBuf;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!text.is_empty()).then_some(text)
}

fn main() {
    let revision = git(&["rev-parse", "--short", "HEAD"]);
    println!(
        "cargo:rustc-env=REXMIT_GIT_REVISION={}",
        revision.as_deref().unwrap_or("unknown")
    );
    // Rebuild when HEAD moves (a commit, a checkout) or a branch ref is packed; in a worktree
    // HEAD lives in its own git dir and the refs in the common one, which --git-path resolves.
    let mut watched = vec!["HEAD".to_string(), "packed-refs".to_string()];
    if let Some(reference) = git(&["rev-parse", "--symbolic-full-name", "HEAD"]) {
        watched.push(reference);
    }
    for name in watched {
        if let Some(path) = git(&["rev-parse", "--git-path", &name]) {
            let path = PathBuf::from(path);
            if path.exists() {
                println!("cargo:rerun-if-changed={}", path.display());
            }
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
