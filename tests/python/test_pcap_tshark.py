"""pcaps written by a simulation decode in tshark with no malformed packets or bad checksums.
(The wire-format check of TCP with SACK blocks and SCTP with NR-SACK chunks is
crates/rexmit-wire/tests/tshark.rs; this one checks what a whole run writes.)"""

import subprocess

import rexmit
from conftest import tshark_or_skip


def test_simulated_capture_decodes_cleanly(examples, tmp_path):
    tshark = tshark_or_skip()
    s = rexmit.Scenario.load(examples / "udp_dumbbell.toml")
    s.data["stop_time"] = "2s"
    s.pcap(node="S0")
    res = rexmit.run(s, out_dir=tmp_path)
    assert res.summary["pcap_errors"] == 0
    for pcap in res.pcap_files:
        out = subprocess.run(
            [tshark, "-n", "-r", pcap, "-o", "ip.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE", "-T", "fields", "-e", "frame.number", "-e", "_ws.expert.severity", "-e", "ip.checksum.status", "-e", "udp.checksum.status"],
            capture_output=True, text=True, check=True,
        )
        lines = [l.split("\t") for l in out.stdout.splitlines()]
        assert len(lines) > 100, pcap
        # Checksum status 1 = good (0 bad, 2 unverified); no expert info (malformed/warning) on any frame.
        assert all(l[1] == "" for l in lines), [l for l in lines if l[1]][:3]
        assert all(l[2] == "1" and l[3] == "1" for l in lines), lines[:3]
        verbose = subprocess.run([tshark, "-n", "-r", pcap, "-V"], capture_output=True, text=True, check=True).stdout
        assert "Malformed" not in verbose
        assert "User Datagram Protocol" in verbose
