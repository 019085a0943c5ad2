//! What the runner does with times, blocking calls and mismatches, and what a failing script
//! reports (packetdrill's shape: the script line, the expected and the actual packet or value,
//! the time).

use rexmit_script::{run_str, Outcome, Status};

/// A passive open with an RFC-profile core (no timestamps, IW 3) and a data write of 3000.
const OPEN: &str = "--profile=rfc
0   socket(..., SOCK_STREAM, IPPROTO_TCP) = 3
+0  bind(3, ..., ...) = 0
+0  listen(3, 1) = 0
+0  < S 0:0(0) win 65535 <mss 1000>
+0  > S. 0:0(0) ack 1 <mss 1460>
+.1 < . 1:1(0) ack 1 win 65535
+0  accept(3, ..., ...) = 4
";

fn run(tail: &str) -> Outcome {
    run_str(&format!("{OPEN}{tail}"), "t.pkt")
}

fn has(o: &Outcome, text: &str) {
    assert!(o.report.contains(text), "{text:?} not in:\n{}", o.report);
}

fn starts(o: &Outcome, text: &str) {
    assert!(
        o.report.starts_with(text),
        "{text:?} does not start:\n{}",
        o.report
    );
}

#[test]
fn a_passing_script_has_an_empty_report() {
    let o = run("+0 write(4, ..., 3000) = 3000\n+0 > . 1:3001(3000) ack 1 win 65535\n");
    assert_eq!((o.status, o.report.as_str()), (Status::Passed, ""));
}

#[test]
fn a_wrong_field_names_it_with_both_packets_and_times() {
    let o = run("+0 write(4, ..., 1000) = 1000\n+0 > . 1:1001(1000) ack 2\n");
    assert_eq!(o.status, Status::Failed);
    starts(&o, "t.pkt:10: bad outbound TCP ack: expected 2, actual 1\n");
    has(&o, "script packet: 0.100000 . 1:1001(1000) ack 2");
    has(&o, "actual packet: 0.100000 . 1:1001(1000) ack 1 win 65535");
}

#[test]
fn timing_is_checked_with_the_tolerance_and_ranges() {
    // Sent at 0.1, expected at 0.15: outside packetdrill's 4 ms.
    let o = run("+0 write(4, ..., 1000) = 1000\n+.05 > . 1:1001(1000) ack 1\n");
    assert_eq!(o.status, Status::Failed);
    has(
        &o,
        "timing error: expected outbound packet between 0.146000 and 0.154000, sent at 0.100000",
    );
    // Within a larger tolerance, within a range, and at any time.
    let slack = format!("--tolerance_usecs=60000\n{OPEN}+0 write(4, ..., 1000) = 1000\n+.05 > . 1:1001(1000) ack 1\n");
    assert_eq!(run_str(&slack, "t.pkt").status, Status::Passed);
    let range = run("+0 write(4, ..., 1000) = 1000\n+0~+.05 > . 1:1001(1000) ack 1\n");
    assert_eq!(range.status, Status::Passed, "{}", range.report);
    // The RTO (1 s) resend, found by `*`; the next relative time counts from it.
    let any = run("+0 write(4, ..., 1000) = 1000\n+0 > . 1:1001(1000) ack 1\n* > . 1:1001(1000) ack 1\n+0 %{ assert rexmit_timeouts == 1 }%\n");
    assert_eq!(any.status, Status::Passed, "{}", any.report);
}

#[test]
fn a_packet_nobody_expected_fails_the_script() {
    let early = run("+0 write(4, ..., 1000) = 1000\n+0 < . 1:1(0) ack 1 win 65535\n");
    assert_eq!(early.status, Status::Failed);
    has(
        &early,
        "unexpected outbound packet: the core sent it before this line",
    );
    let at_end = run("+0 write(4, ..., 1000) = 1000\n");
    has(&at_end, "the script ended without a line for it");
    has(&at_end, "actual packet: 0.100000 . 1:1001(1000) ack 1");
    let missing = run("+0 > . 1:1001(1000) ack 1\n");
    has(
        &missing,
        "expected outbound packet not sent by 0.104000 (the core has no timer running)",
    );
}

#[test]
fn assertions_report_the_values_they_read() {
    // RFC profile, SMSS 1000: IW 4 segments.
    let o = run("+0 %{ x = 2\nassert tcpi_snd_cwnd == x + 1, tcpi_snd_cwnd * 2 }%\n");
    assert_eq!(o.status, Status::Failed);
    has(
        &o,
        "assertion failed at 0.100000: assert tcpi_snd_cwnd == x + 1, tcpi_snd_cwnd * 2",
    );
    has(&o, "  tcpi_snd_cwnd = 4\n  x = 2\n  message: 8");
    let unknown = run("+0 %{ assert tcpi_nope == 1 }%\n");
    assert_eq!(unknown.status, Status::Malformed);
    starts(&unknown, "t.pkt:9:14: error: unknown name 'tcpi_nope'");
}

#[test]
fn system_call_results_and_errnos_are_checked() {
    let o = run("+0 write(4, ..., 1000) = 999\n");
    assert_eq!(o.status, Status::Failed);
    has(&o, "expected: 999\nactual:   1000");
    let o = run("+0 read(4, ..., 10) = -1 EAGAIN\n");
    has(&o, "read would block at 0.100000");
    let o = run("+0 fcntl(4, F_SETFL, O_RDWR|O_NONBLOCK) = 0\n+0 read(4, ..., 10) = -1 EAGAIN (Resource temporarily unavailable)\n+0 read(9, ..., 10) = -1 EBADF\n");
    assert_eq!(o.status, Status::Passed, "{}", o.report);
}

#[test]
fn a_blocking_read_returns_when_data_arrives_within_its_window() {
    let ok = run("+0...0.2 read(4, ..., 1000) = 500\n+.1 < . 1:501(500) ack 1 win 65535\n+.2 > . 1:1(0) ack 501\n");
    assert_eq!(ok.status, Status::Passed, "{}", ok.report);
    // Declared to return at 0.5: it returned at 0.2.
    let late = run("+0...0.5 read(4, ..., 1000) = 500\n+.1 < . 1:501(500) ack 1 win 65535\n+.2 > . 1:1(0) ack 501\n");
    has(&late, "timing error: read returned at 0.200000");
    let never = run("+0...0.5 read(4, ..., 1000) = 500\n");
    has(&never, "read never returned");
}

#[test]
fn malformed_scripts_name_line_and_column() {
    let o = run_str(
        "0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 `sysctl -q net.ipv4.tcp_nothing=1`\n",
        "m.pkt",
    );
    assert_eq!(o.status, Status::Malformed);
    starts(&o, "m.pkt:2:1: error: unknown sysctl net.ipv4.tcp_nothing");
    let o = run_str(
        "0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 > S 0:0(0) mss\n",
        "m.pkt",
    );
    starts(&o, "m.pkt:");
    let o = run(".05 write(4, ..., 1) = 1\n");
    has(&o, "time 0.050000 is before the previous event at 0.100000");
    // The RFC profile has Nagle off: asking for it (TCP_NODELAY 0) after the core exists.
    let o = run("+0 setsockopt(4, SOL_TCP, TCP_NODELAY, [0], 4) = 0\n");
    has(&o, "setsockopt TCP_NODELAY after listen() or connect()");
    let o = run_str("0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 < sctp: DATA[flgs=BE, len=1016, tsn=1]\n+0 < . 1:1(0) ack 1 win 1\n", "m.pkt");
    has(&o, "TCP and SCTP packet lines in one script");
    let o = run_str(
        "0 socket(..., SOCK_STREAM, IPPROTO_SCTP) = 3\n+0 < sctp: DATA[flgs=BE, tsm=1]\n",
        "m.pkt",
    );
    starts(&o, "m.pkt:2:26: error: DATA has no field tsm");
}

#[test]
fn one_multi_segment_line_matches_a_same_instant_burst() {
    // IW 4 segments of 1000 bytes as Linux's TSO would send them: one line.
    let o = run("+0 write(4, ..., 5000) = 5000\n+0 > . 1:4001(4000) ack 1\n");
    assert_eq!(o.status, Status::Passed, "{}", o.report);
    // A line longer than the burst names how many segments it saw.
    let o = run("+0 write(4, ..., 6000) = 6000\n+0 > . 1:5001(5000) ack 1\n");
    has(
        &o,
        "payload length: expected 5000, actual 4000 (4 segments)",
    );
}

#[test]
fn sctp_chunks_are_compared_field_by_field() {
    let script = "0 socket(..., SOCK_STREAM, IPPROTO_SCTP) = 3
+0 fcntl(3, F_SETFL, O_RDWR|O_NONBLOCK) = 0
+0 connect(3, ..., ...) = -1 EINPROGRESS
+0 > sctp: INIT[flgs=0, tag=1, a_rwnd=65536, os=10, is=2048, tsn=1, ...]
+.1 < sctp: INIT_ACK[flgs=0, tag=2, a_rwnd=65536, os=10, is=10, tsn=1, STATE_COOKIE[len=12, val=...]]
+0 > sctp: COOKIE_ECHO[flgs=0, len=12, val=...]
+.1 < sctp: COOKIE_ACK[flgs=0]
+0 write(3, ..., 1000) = 1000
+0 > sctp: DATA[flgs=BE, len=1016, tsn=2, sid=0, ssn=0, ppid=...]
";
    let o = run_str(script, "s.pkt");
    assert_eq!(o.status, Status::Failed);
    starts(
        &o,
        "s.pkt:9: bad outbound SCTP DATA tsn: expected 2, actual 1",
    );
    has(
        &o,
        "actual packet: 0.200000 sctp: DATA[flgs=BE, len=1016, tsn=1, sid=0, ssn=0, ppid=0]",
    );
}

#[test]
fn blocking_connect_accept_and_write_return_when_the_core_allows() {
    let connect = "--profile=rfc
0   socket(..., SOCK_STREAM, IPPROTO_TCP) = 3
+0...0.2 connect(3, ..., ...) = 0
+0  > S 0:0(0) <...>
+.2 < S. 0:0(0) ack 1 win 65535 <mss 1000>
+0  > . 1:1(0) ack 1
";
    let o = run_str(connect, "c.pkt");
    assert_eq!(o.status, Status::Passed, "{}", o.report);
    // A 3000-byte write into a 2000-byte send buffer returns when an ACK frees room.
    let accept_write = "--profile=rfc
--tcp.send_buffer=2000
0   socket(..., SOCK_STREAM, IPPROTO_TCP) = 3
+0  bind(3, ..., ...) = 0
+0  listen(3, 1) = 0
+0...0.1 accept(3, ..., ...) = 4
+0  < S 0:0(0) win 65535 <mss 1000>
+0  > S. 0:0(0) ack 1 <mss 1460>
+.1 < . 1:1(0) ack 1 win 65535
+0...0.2 write(4, ..., 3000) = 3000
+0  > . 1:2001(2000) ack 1
+.1 < . 1:1(0) ack 2001 win 65535
+0  > . 2001:3001(1000) ack 1
";
    let o = run_str(accept_write, "a.pkt");
    assert_eq!(o.status, Status::Passed, "{}", o.report);
    let o = run_str(
        &accept_write.replace("+0...0.2 write", "+0...0.3 write"),
        "a.pkt",
    );
    has(&o, "timing error: write returned at 0.200000");
}
