"""The tutorial scripts in examples/ run as a reader would run them, so that they never rot
(issue 15 §3): each must finish, print its numbers and write its figure."""

import re
import subprocess
import sys

from conftest import EXAMPLES


def _tutorial(name: str, tmp_path) -> tuple[str, object]:
    out = tmp_path / "out"
    r = subprocess.run(
        [sys.executable, str(EXAMPLES / f"{name}.py"), "--out", str(out)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr
    return r.stdout, out


def test_tcp_variants_vs_loss(tmp_path):
    stdout, out = _tutorial("tcp_variants_vs_loss", tmp_path)
    rows = {
        float(m.group(1)): [float(x) for x in m.group(2).split()]
        for m in re.finditer(r"^\s+([0-9.e-]+)\s+((?:[0-9.]+\s+){5})Mb/s$", stdout, re.M)
    }
    assert sorted(rows) == [1e-4, 1e-3, 1e-2]
    # Every variant loses goodput as the loss rate grows from 1e-4 to 1e-2.
    assert all(hi < lo for lo, hi in zip(rows[1e-4], rows[1e-2]))
    svg = next((out / "figures").glob("flow.bulk.goodput_bps_vs_*.svg")).read_text()
    for text in ("Goodput (Mb/s)", "Packet error rate", "Tahoe", "Westwood+"):
        assert f"<!-- {text} -->" in svg
    assert (out / "report.html").is_file()


def test_nrsack_vs_sack_cmt(tmp_path):
    stdout, out = _tutorial("nrsack_vs_sack_cmt", tmp_path)
    goodput = {
        (m.group(1), m.group(2)): float(m.group(3))
        for m in re.finditer(r"(\d+KiB)\s+(NR-SACK|SACK)\s+([0-9.]+) Mb/s", stdout)
    }
    assert len(goodput) == 6
    # Seed 000 §V.B.3: with small send buffers NR-SACK's CMT goodput beats SACK's.
    assert all(goodput[(b, "NR-SACK")] > goodput[(b, "SACK")] for b in ("64KiB", "128KiB"))
    svg = next((out / "figures").glob("flow.cmt.goodput_bps_vs_*.svg")).read_text()
    for text in ("Send buffer (KiB)", "Goodput (Mb/s)", "SACK", "NR-SACK"):
        assert f"<!-- {text} -->" in svg


def test_thin_stream_latency_cdf(tmp_path):
    stdout, out = _tutorial("thin_stream_latency_cdf", tmp_path)
    p99 = {
        m.group(1).strip(): int(m.group(2))
        for m in re.finditer(r"^(.+): \d+ messages, median \d+ ms, 99th percentile (\d+) ms", stdout, re.M)
    }
    # Seed 004: the modifications cut the tail of the latency distribution.
    assert p99["all modifications"] < p99["lksctp (default SCTP)"]
    assert (out / "latency_cdf.png").is_file() and "<!-- Message latency (ms) -->" in (
        out / "latency_cdf.svg"
    ).read_text()
    assert (out / "messages.parquet").is_file()
