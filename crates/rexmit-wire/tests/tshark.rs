//! Cross-check of the encoders against Wireshark's dissectors: write the sample packets to a
//! pcap, let tshark verify every IPv4, TCP, UDP and SCTP (CRC32c) checksum, and require that it
//! finds nothing malformed, raises no expert warning or error, and dissects the NR-SACK and TCP
//! SACK blocks as intended.
//!
//! Without tshark the test is skipped, unless `REXMIT_REQUIRE_TSHARK=1` makes that a failure.

use rexmit_wire::samples::sample_packets;
use rexmit_wire::{PcapWriter, Transport};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Preferences that turn on checksum verification (names as in `tshark -G defaultprefs`).
const PREFS: [&str; 4] = [
    "sctp.checksum:CRC 32c",
    "tcp.check_checksum:TRUE",
    "udp.check_checksum:TRUE",
    "ip.check_checksum:TRUE",
];

fn tshark_available() -> bool {
    Command::new("tshark")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn tshark(pcap: &Path, extra: &[&str]) -> String {
    let mut cmd = Command::new("tshark");
    cmd.arg("-n").arg("-r").arg(pcap);
    for p in PREFS {
        cmd.args(["-o", p]);
    }
    cmd.args(extra);
    let out = cmd.output().expect("run tshark");
    assert!(
        out.status.success(),
        "tshark {extra:?} failed: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("tshark output is UTF-8")
}

fn write_sample_pcap() -> PathBuf {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("rexmit-wire-samples-{}.pcap", std::process::id()));
    let mut w =
        PcapWriter::new(std::fs::File::create(&path).expect("create pcap")).expect("pcap header");
    for (t, p) in sample_packets() {
        w.write_packet(t, &p.to_bytes().expect("sample encodes"))
            .expect("write pcap record");
    }
    w.flush().expect("flush pcap");
    path
}

fn count(haystack: &str, needle: &str) -> usize {
    haystack.matches(needle).count()
}

#[test]
fn tshark_accepts_every_sample_packet() {
    if !tshark_available() {
        if std::env::var("REXMIT_REQUIRE_TSHARK").as_deref() == Ok("1") {
            panic!("tshark not installed but REXMIT_REQUIRE_TSHARK=1");
        }
        println!(
            "skipped: tshark not installed (set REXMIT_REQUIRE_TSHARK=1 to make this a failure)"
        );
        return;
    }
    let samples = sample_packets();
    let n_sctp = samples
        .iter()
        .filter(|(_, p)| matches!(p.transport, Transport::Sctp(_)))
        .count();
    let n_tcp_udp = samples.len() - n_sctp;
    let pcap = write_sample_pcap();

    let verbose = tshark(&pcap, &["-V"]);
    for bad in [
        "Malformed",
        "[Bad",
        "incorrect",
        "Status: Bad",
        "status: Bad",
        "Expert Info (Warn",
        "Expert Info (Error",
    ] {
        assert!(
            !verbose.contains(bad),
            "tshark -V reports {bad:?}:\n{verbose}"
        );
    }
    assert_eq!(
        count(&verbose, "\nFrame "),
        samples.len() - 1,
        "every record is read"
    );
    // Checksums were really verified, not skipped.
    assert_eq!(
        count(&verbose, "[Header checksum status: Good]"),
        samples.len()
    );
    assert_eq!(
        count(&verbose, "[Checksum Status: Good]"),
        n_tcp_udp + n_sctp
    );
    assert_eq!(count(&verbose, "Checksum (CRC32C): "), n_sctp);

    // TCP: SACK-permitted on the handshake, 3 and 4 SACK blocks on the duplicate ACKs.
    assert_eq!(count(&verbose, "TCP Option - SACK permitted"), 2);
    assert!(
        verbose.contains("TCP Option - SACK 601-701 401-501 201-301"),
        "{verbose}"
    );
    assert!(
        verbose.contains("TCP Option - SACK 801-901 601-701 401-501 201-301"),
        "{verbose}"
    );
    assert!(
        verbose.contains("TCP Option - Window scale: 7 (multiply by 128)"),
        "{verbose}"
    );

    // SCTP: NR-SACK dissected as such, with its gap and nr-gap blocks and duplicate TSN.
    assert!(
        verbose.contains("Supported chunk type: NR_SACK (16)"),
        "{verbose}"
    );
    assert_eq!(count(&verbose, "Chunk type: NR_SACK (16)"), 2);
    assert!(verbose.contains("NR_SACK chunk (Cumulative TSN: 1001, a_rwnd: 129000, gaps: 1, nr-gaps: 1, duplicate TSNs: 0)"));
    assert!(
        verbose.contains("NR-Gap Acknowledgement for TSN 1005 to 1006"),
        "{verbose}"
    );
    assert!(
        verbose.contains("Number of nr-gap acknowledgement blocks: 1"),
        "{verbose}"
    );
    assert!(
        verbose.contains("Gap Acknowledgement for TSN 1003 to 1004"),
        "{verbose}"
    );
    for chunk in [
        "INIT chunk",
        "INIT_ACK chunk",
        "State cookie parameter",
        "COOKIE_ECHO chunk",
        "COOKIE_ACK chunk",
        "SACK chunk",
        "Duplicate TSN: 1000",
        "HEARTBEAT chunk",
        "HEARTBEAT_ACK chunk",
        "SHUTDOWN chunk",
        "SHUTDOWN_ACK chunk",
        "SHUTDOWN_COMPLETE chunk",
        "ABORT chunk",
        "User initiated ABORT cause",
    ] {
        assert!(
            verbose.contains(chunk),
            "no {chunk:?} in tshark -V output:\n{verbose}"
        );
    }

    // Expert summary: notes (retransmissions, duplicate ACKs) and chats are expected; no
    // warnings or errors.
    let expert = tshark(&pcap, &["-q", "-z", "expert"]);
    assert!(
        !expert.contains("Errors (") && !expert.contains("Warns ("),
        "tshark expert info:\n{expert}"
    );
    let _ = std::fs::remove_file(&pcap);
}
