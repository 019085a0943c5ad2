#![no_main]
//! cargo-fuzz target `sctp_core`: the harness lives in the crate (`rexmit_sctp::fuzzing::run`) so the corpus replay
//! under `cargo test` runs exactly the same code.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| rexmit_sctp::fuzzing::run(data));
