#![no_main]
//! cargo-fuzz target `wire_tcp`: the harness lives in the crate (`rexmit_wire::fuzzing::tcp_segment`) so the corpus replay
//! under `cargo test` runs exactly the same code.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| rexmit_wire::fuzzing::tcp_segment(data));
