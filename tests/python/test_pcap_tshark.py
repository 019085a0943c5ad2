"""pcaps written by a simulation decode in tshark with no malformed packets or bad checksums.
(The wire-format check of TCP with SACK blocks and SCTP with NR-SACK chunks is
crates/rexmit-wire/tests/tshark.rs; this one checks what a whole run writes.)"""

import subprocess

from conftest import tshark_or_skip

import rexmit


def test_simulated_capture_decodes_cleanly(examples, tmp_path):
    tshark = tshark_or_skip()
    s = rexmit.Scenario.load(examples / "udp_dumbbell.toml")
    s.data["stop_time"] = "2s"
    s.pcap(node="S0")
    res = rexmit.run(s, out_dir=tmp_path)
    assert res.summary["pcap_errors"] == 0
    for pcap in res.pcap_files:
        out = subprocess.run(
            [
                tshark,
                "-n",
                "-r",
                pcap,
                "-o",
                "ip.check_checksum:TRUE",
                "-o",
                "udp.check_checksum:TRUE",
                "-T",
                "fields",
                "-e",
                "frame.number",
                "-e",
                "_ws.expert.severity",
                "-e",
                "ip.checksum.status",
                "-e",
                "udp.checksum.status",
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        lines = [line.split("\t") for line in out.stdout.splitlines()]
        assert len(lines) > 100, pcap
        # Checksum status 1 = good (0 bad, 2 unverified); no expert info (malformed/warning) on any frame.
        assert all(row[1] == "" for row in lines), [row for row in lines if row[1]][:3]
        assert all(row[2] == "1" and row[3] == "1" for row in lines), lines[:3]
        verbose = subprocess.run([tshark, "-n", "-r", pcap, "-V"], capture_output=True, text=True, check=True).stdout
        assert "Malformed" not in verbose
        assert "User Datagram Protocol" in verbose


def test_tcp_sctp_and_http_captures_decode_as_plain_data(tmp_path):
    """Issue 17: with tshark's default settings nothing decodes as another protocol (TCP port
    5000 used to be GSM A-bis RSL, SCTP PPIDs 1-3 IUA/M2UA/M3UA) and no frame is malformed."""
    tshark = tshark_or_skip()
    s = rexmit.Scenario(stop_time="8s")
    s.chain(
        ["A", "R", "B"],
        [
            {"rate": "10Mbps", "delay": "2ms"},
            {"rate": "20Mbps", "delay": "10ms", "errors": [{"kind": "uniform", "rate": 0.02}]},
        ],
    )
    s.app("tcp", "tcp_bulk", "A", "B")
    s.app("sctp", "sctp_bulk", "A", "B")
    s.app("msgs", "sctp_messages", "A", "B", source="game")
    s.app("web", "http", "B", "A")
    s.pcap(link="R->B")
    res = rexmit.run(s, out_dir=tmp_path)
    out = subprocess.run(
        [tshark, "-n", "-r", res.pcap_files[0], "-T", "fields", "-e", "frame.protocols", "-e", "_ws.malformed"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    protocols = {line.split("\t")[0] for line in out.splitlines()}
    assert protocols <= {"ip:tcp", "ip:tcp:data", "ip:sctp", "ip:sctp:data"}, protocols
    assert {"ip:tcp:data", "ip:sctp:data"} <= protocols
    assert all(line.split("\t")[1] == "" for line in out.splitlines())
    # The message apps still match deliveries to their send times (the PPID is kept off the wire).
    assert res.flow("msgs")["messages_delivered"] > 0 and res.table("messages", "msgs").num_rows > 0
