//! Inputs that made the `tcp_core` fuzz target fail, replayed as ordinary tests. Each names
//! the bug it found; the fix has its own unit test next to the code.

use rexmit_tcp::fuzzing::run;

/// The delayed-ACK timer stayed armed at the instant it fired (`Receiver::on_timeout`), so
/// `poll_timeout` kept reporting work `handle_timeout` had already done.
#[test]
fn fuzz_delayed_ack_deadline_left_in_past() {
    run(include_bytes!(
        "../../../fuzz/regressions/tcp_core/delayed-ack-deadline-left-in-past"
    ));
}
