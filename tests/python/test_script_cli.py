"""`rexmit script` (issue 38 §1): a suite script passes (exit 0), the same script with one wrong
expectation fails (exit 1) with packetdrill's report, a malformed one exits 2; and the Python
entry point `rexmit.script.run`."""

from conftest import ROOT, rexmit_cli

from rexmit import script

PASSING = ROOT / "tests" / "scripts" / "tcp" / "reno" / "fast-retransmit-recovery.pkt"


def test_a_suite_script_passes(tmp_path):
    r = rexmit_cli("script", str(PASSING))
    assert r.returncode == 0
    assert r.stderr == ""
    res = script.run(PASSING)
    assert res.passed and res.report == "" and res.exit_code == 0


def test_a_failing_script_reports_line_expected_and_actual(tmp_path):
    # The fast retransmission is expected one segment too late in the sequence space.
    bad = tmp_path / "bad.pkt"
    text = PASSING.read_text()
    assert "+0  > . 1001:2001(1000) ack 1\n" in text
    bad.write_text(text.replace("+0  > . 1001:2001(1000) ack 1\n", "+0  > . 2001:3001(1000) ack 1\n", 1))
    r = rexmit_cli("script", str(bad), check=False)
    assert r.returncode == 1
    lines = r.stderr.splitlines()
    assert lines[0].startswith(f"{bad}:") and "bad outbound TCP sequence number: expected 2001, actual 1001" in lines[0]
    assert any(line.startswith("script packet: 0.200000 . 2001:3001(1000) ack 1") for line in lines)
    assert any(line.startswith("actual packet: 0.200000 . 1001:2001(1000) ack 1") for line in lines)
    res = script.run(bad, trace=True)
    assert res.status == "failed" and res.exit_code == 1
    assert any("> . 1001:2001(1000) ack 1" in t for t in res.trace)


def test_a_malformed_script_exits_2_naming_line_and_column(tmp_path):
    bad = tmp_path / "malformed.pkt"
    bad.write_text("0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 `sysctl -q net.ipv4.tcp_bogus=1`\n")
    r = rexmit_cli("script", str(bad), "--trace", check=False)
    assert r.returncode == 2
    assert r.stderr.startswith(f"{bad}:2:1: error: unknown sysctl net.ipv4.tcp_bogus")
    assert script.run_text("0 nonsense(", "x.pkt").status == "malformed"
    missing = rexmit_cli("script", str(tmp_path / "nope.pkt"), check=False)
    assert missing.returncode == 2 and "nope.pkt" in missing.stderr
