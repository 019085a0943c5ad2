//! Everything the association emits survives the wire codec, and a pcap of an NR-SACK
//! association with loss decodes in tshark with NR-SACK chunks shown and nothing malformed
//! (the tshark half runs only where tshark is installed).

mod common;
use common::*;
use rexmit_sctp::{Association, SctpConfig, Transmit};
use rexmit_time::{Duration, Time};
use rexmit_wire::{IpPacket, Payload, PcapWriter, Transport};
use std::process::Command;

#[test]
fn nr_sack_association_round_trips_the_codec_and_decodes_in_tshark() {
    let cfg = SctpConfig {
        nr_sack: true,
        hb_interval: Some(Duration::from_secs(1)),
        ..SctpConfig::default()
    };
    let (a, b) = connect_pair(cfg.clone(), cfg, 100, 200, true);
    let mut net = Net::new(a, b);
    let mut captured: Vec<(Time, Vec<u8>)> = Vec::new();
    let mut rng = Rng::new(3);
    let mut fate = |t: &Transmit, now: Time| -> Option<Duration> {
        let ip = IpPacket::new(t.src, t.dst, Transport::Sctp(t.packet.clone()));
        let bytes = ip.to_bytes().expect("every emitted packet encodes");
        assert_eq!(IpPacket::decode(&bytes).expect("and decodes"), ip);
        assert!(bytes.len() <= 1500, "within the PMTU");
        captured.push((now, bytes));
        (!rng.chance(50)).then_some(Duration::from_millis(15))
    };
    let mut written = 0;
    let mut app = |now: Time, eps: &mut [Association; 2]| {
        while written < 400
            && eps[0]
                .send(
                    now,
                    (written % 3) as u16,
                    Payload::zeros(900 + written % 1000),
                    written % 2 == 0,
                )
                .is_ok()
        {
            written += 1;
        }
    };
    net.run(Time::from_secs(30), &mut fate, &mut app);
    assert_eq!(net.eps[1].stats().messages_delivered, 400);
    assert!(net.eps[1].stats().nr_sacks_sent > 0);

    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("sctp_nr_sack.pcap");
    let mut w = PcapWriter::new(std::fs::File::create(&path).unwrap()).unwrap();
    for (t, bytes) in &captured {
        w.write_packet(*t, bytes).unwrap();
    }
    w.flush().unwrap();
    drop(w);
    // PPIDs are message numbers: decode payloads as data, not as the protocols registered
    // to those PPIDs (PPID 1 is IUA).
    let Ok(out) = Command::new("tshark")
        .arg("-r")
        .arg(&path)
        .args([
            "-V",
            "-o",
            "sctp.checksum:CRC 32c",
            "-d",
            "sctp.ppi==1-100000,data",
        ])
        .output()
    else {
        eprintln!("tshark not installed: pcap written to {}", path.display());
        return;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "tshark failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !text.contains("Malformed") && !text.contains("[Expert Info (Error"),
        "tshark reports problems"
    );
    assert!(
        text.contains("NR_SACK") || text.contains("NR-SACK"),
        "NR-SACK chunks shown"
    );
    assert!(text.contains("Checksum Status: Good") && !text.contains("Checksum Status: Bad"));
}
