//! Replays the committed fuzz corpus (`fuzz/corpus/sctp_core/`) through the harness the
//! cargo-fuzz target `sctp_core` runs, so `cargo test` catches a regression without nightly or
//! libFuzzer.

#[test]
fn replay_sctp_core_corpus() {
    let n = rexmit_wire::fuzzing::replay_corpus(
        env!("CARGO_MANIFEST_DIR"),
        "sctp_core",
        rexmit_sctp::fuzzing::run,
    );
    assert!(n > 0, "empty corpus");
}
