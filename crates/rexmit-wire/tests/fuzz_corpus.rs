//! Replays the committed fuzz corpus (`fuzz/corpus/wire_*`) through the same harnesses the
//! cargo-fuzz targets run, so `cargo test` catches a regression without nightly or libFuzzer.

use rexmit_wire::fuzzing;

#[test]
fn replay_wire_ip_corpus() {
    let n = fuzzing::replay_corpus(env!("CARGO_MANIFEST_DIR"), "wire_ip", fuzzing::ip_packet);
    assert!(n > 0, "empty corpus");
}

#[test]
fn replay_wire_tcp_corpus() {
    let n = fuzzing::replay_corpus(env!("CARGO_MANIFEST_DIR"), "wire_tcp", fuzzing::tcp_segment);
    assert!(n > 0, "empty corpus");
}

#[test]
fn replay_wire_sctp_corpus() {
    let n = fuzzing::replay_corpus(
        env!("CARGO_MANIFEST_DIR"),
        "wire_sctp",
        fuzzing::sctp_packet,
    );
    assert!(n > 0, "empty corpus");
}
