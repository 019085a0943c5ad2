//! The guard of schema restructurings: what `rexmit normalize` prints (the scenario with every
//! default written out, `Scenario::with_defaults`) for every scenario file of the repository and
//! for fuzz-generated scenarios over the whole option space. A restructuring must leave it
//! unchanged, byte for byte.
//!
//! `REXMIT_NORMALIZE_SNAPSHOT=FILE cargo test --release -p rexmit-scenario --test
//! normalize_snapshot -- --ignored` writes the snapshot (`REXMIT_NORMALIZE_SEEDS`, default
//! 20 000 generated scenarios); run it before and after a change and compare the two files.
//! The default test run checks that the snapshot is stable within one build (a scenario read
//! back from its normalized form normalizes to the same text).

#[allow(dead_code)] // the generator's delivery expectations are the wide fuzz test's
mod fuzz_gen;

use rexmit_scenario::Scenario;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every `*.toml` scenario of the repository (examples, reference scenarios, validation).
fn scenario_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in ["examples", "tests/reference", "validation"] {
        let Ok(rd) = std::fs::read_dir(repo().join(dir)) else {
            continue;
        };
        let mut files: Vec<PathBuf> = rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.extension().is_some_and(|x| x == "toml")
                    && !p.to_string_lossy().ends_with(".sweep.toml")
            })
            .collect();
        files.sort();
        out.extend(files);
    }
    out
}

/// The normalized text of a scenario, or its error.
fn normalized(s: Result<Scenario, rexmit_scenario::ScenarioError>) -> String {
    match s.and_then(|s| s.with_defaults()) {
        Ok(s) => s.to_toml(),
        Err(e) => format!("error: {e}\n"),
    }
}

fn snapshot(seeds: u64) -> String {
    let mut out = String::new();
    for f in scenario_files() {
        let text = std::fs::read_to_string(&f).unwrap();
        let rel = f.strip_prefix(repo()).unwrap_or(&f).display().to_string();
        let _ = write!(out, "### {rel}\n{}", normalized(Scenario::from_toml(&text)));
    }
    for seed in 0..seeds {
        let (v, _) = fuzz_gen::scenario(seed);
        let json = serde_json::to_string(&v).unwrap();
        let _ = write!(
            out,
            "### seed {seed}\n{}",
            normalized(Scenario::from_json(&json))
        );
    }
    out
}

#[test]
#[ignore]
fn write_normalize_snapshot() {
    let path = std::env::var("REXMIT_NORMALIZE_SNAPSHOT").expect("REXMIT_NORMALIZE_SNAPSHOT=FILE");
    let seeds = std::env::var("REXMIT_NORMALIZE_SEEDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    std::fs::write(path, snapshot(seeds)).unwrap();
}

/// A normalized scenario is a fixed point: read back, it normalizes to the same text.
#[test]
fn normalized_scenarios_are_fixed_points() {
    let files = scenario_files();
    assert!(files.len() >= 10, "scenario files found: {}", files.len());
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let Ok(s) = Scenario::from_toml(&text) else {
            continue;
        };
        let once = normalized(Ok(s));
        let twice = normalized(Scenario::from_toml(&once));
        assert_eq!(once, twice, "{}", f.display());
    }
    for seed in 0..200 {
        let (v, _) = fuzz_gen::scenario(seed);
        let once = normalized(Scenario::from_json(&serde_json::to_string(&v).unwrap()));
        if once.starts_with("error:") {
            continue;
        }
        assert_eq!(once, normalized(Scenario::from_toml(&once)), "seed {seed}");
    }
}
