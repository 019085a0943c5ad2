//! The packets usrsctp puts on the simulated wire are valid SCTP that rexmit's decoder takes:
//! every one the stack sends decodes and re-encodes to exactly its bytes, and every one in a
//! capture decodes with good IPv4 and CRC32c checksums and the app's ports.

mod common;
use common::*;
use rexmit_sctp::SctpConfig;
use rexmit_time::{Duration, Rate};
use rexmit_usrsctp::wire::{keep_exact_chunks, Addressing};
use rexmit_usrsctp::StackRun;
use rexmit_wire::{chunk_name, Chunk, IpPacket, SctpPacket, Transport};
use std::collections::BTreeMap;
use std::process::Command;

/// tshark decodes every frame without a malformed mark, with good IPv4 and CRC32c checksums,
/// and raises no expert warning. Skipped without tshark unless REXMIT_REQUIRE_TSHARK=1.
fn wireshark_accepts(pcap: &std::path::Path, frames: usize) {
    let present = Command::new("tshark")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !present {
        assert!(
            std::env::var("REXMIT_REQUIRE_TSHARK").as_deref() != Ok("1"),
            "tshark is required (REXMIT_REQUIRE_TSHARK=1) but not installed"
        );
        eprintln!("tshark check skipped: tshark not installed");
        return;
    }
    // Per frame: the malformed mark (empty), the IPv4 and CRC32c checksum statuses (1 good).
    let query = "-o ip.check_checksum:TRUE -o sctp.checksum:CRC~32c -T fields \
                 -e _ws.malformed -e ip.checksum.status -e sctp.checksum.status";
    let args = query.split_whitespace().map(|a| a.replace('~', " "));
    let out = Command::new("tshark")
        .arg("-nr")
        .arg(pcap)
        .args(args)
        .output()
        .expect("tshark runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), frames);
    for line in text.lines() {
        assert_eq!(line, "\t1\t1", "malformed or bad checksum: {line:?}");
    }
    let expert = Command::new("tshark")
        .args(["-n", "-q", "-z", "expert,warn", "-r"])
        .arg(pcap)
        .output()
        .expect("tshark runs");
    let report = String::from_utf8_lossy(&expert.stdout);
    assert!(
        !report.contains("Malformed") && !report.contains("Error") && !report.contains("Warning"),
        "{report}"
    );
}

/// A short lossy transfer with NR-SACK, recorded by the stack and captured at the sender.
fn capture(dir: &std::path::Path, addressing: Addressing) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let mut sim = lossy_chain(3, Rate::from_mbps(10), Duration::from_millis(20), 0.03);
    let run = StackRun::open(11).unwrap();
    run.record_stack_packets();
    let cfg = SctpConfig {
        nr_sack: true,
        ..SctpConfig::default()
    };
    add_association(
        &mut sim,
        &run,
        &cfg,
        &["nr_sack"],
        bulk(cfg.max_data_payload(), Some(300)),
        49152,
        "bulk",
        Some(addressing),
    );
    let s = sim.net().node_by_name("S").unwrap();
    let pcap = dir.join("usrsctp.pcap");
    sim.pcap_node(s, &pcap).unwrap();
    run_until(&mut sim, 20);
    let raw = run.take_recorded().into_iter().map(|o| o.bytes).collect();
    drop(sim);
    (raw, pcap_records(&pcap))
}

#[test]
fn ipv4_hosted_packets_decode_reencode_exactly_and_captures_decode() {
    check(Addressing::Ip, "wire-ip");
}

#[test]
fn af_conn_packets_decode_reencode_exactly_and_captures_decode() {
    check(Addressing::Conn, "wire-conn");
}

fn check(addressing: Addressing, name: &str) {
    if !usrsctp_or_skip() {
        return;
    }
    let dir = scratch_dir(name);
    let (raw, captured) = capture(&dir, addressing);
    wireshark_accepts(&dir.join("usrsctp.pcap"), captured.len());
    assert!(raw.len() > 300, "{} packets", raw.len());
    for b in &raw {
        // IPv4 hosting: the stack's IPv4 header comes first (the simulation writes its own).
        let b = match addressing {
            Addressing::Ip => &b[usize::from(b[0] & 0x0f) * 4..],
            Addressing::Conn => &b[..],
        };
        let mut p = SctpPacket::decode(b).unwrap_or_else(|e| panic!("{e}: {b:02x?}"));
        keep_exact_chunks(&mut p, b);
        let mut again = Vec::new();
        p.encode(&mut again).unwrap();
        assert_eq!(again, b, "re-encoded differently: {p:?}");
    }
    let mut kinds: BTreeMap<String, usize> = BTreeMap::new();
    for rec in &captured {
        let ip = IpPacket::decode(rec).unwrap();
        let Transport::Sctp(p) = ip.transport else {
            panic!("not SCTP")
        };
        assert_eq!((p.src_port, p.dst_port), (49152, 49152));
        for c in &p.chunks {
            *kinds.entry(chunk_name(c.chunk_type())).or_default() += 1;
            if let Chunk::Data(d) = c {
                assert_eq!(d.ppid, 0, "message numbers stay off the wire");
                // The bulk app sends unordered messages (SCTP_UNORDERED): the U bit.
                assert!(d.unordered && d.beginning && d.ending, "{d:?}");
            }
        }
    }
    for k in [
        "INIT",
        "INIT-ACK",
        "COOKIE-ECHO",
        "COOKIE-ACK",
        "DATA",
        "NR-SACK",
    ] {
        assert!(kinds.contains_key(k), "{k} missing in {kinds:?}");
    }
    assert!(!kinds.contains_key("SACK"), "NR-SACK negotiated: {kinds:?}");
    std::fs::remove_dir_all(&dir).ok();
}
