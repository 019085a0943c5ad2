//! Replays the committed fuzz corpus (`fuzz/corpus/tcp_core/`) through the harness the
//! cargo-fuzz target `tcp_core` runs, so `cargo test` catches a regression without nightly or
//! libFuzzer.

#[test]
fn replay_tcp_core_corpus() {
    let n = rexmit_wire::fuzzing::replay_corpus(
        env!("CARGO_MANIFEST_DIR"),
        "tcp_core",
        rexmit_tcp::fuzzing::run,
    );
    assert!(n > 0, "empty corpus");
}
