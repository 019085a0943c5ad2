"""`rexmit reproduce tcp-sack --quick`: seed 001's figures as sweeps, reports and claims."""


from conftest import rexmit_cli
from rexmit.report import claims_table
from rexmit.reproduce import load_claims


def test_tcp_sack_quick_reproduction(tmp_path):
    out = tmp_path / "tcp-sack"
    r = rexmit_cli("reproduce", "tcp-sack", "--quick", "--out", str(out), "--jobs", "2")
    for fig in ["fig9_burst_rate", "fig10_per", "fig11_speed", "fig12_delay"]:
        assert (out / fig / "report.html").is_file()
        assert list((out / fig / "figures").glob("*.png"))
    claims = {c["text"]: c for c in load_claims(out / "claims.json")}
    assert len(claims) == 9
    # The claims that do not depend on fine details of the variants (seed 001 Figs. 9, 11, 12).
    for text, c in claims.items():
        if "every variant uses the bottleneck" in text or "grows with bottleneck speed" in text or "drops significantly with delay" in text:
            assert c["holds"], c
    assert "reproduced" in r.stdout
    # index.html: the paper's figure numbers as titles, the figures with human labels, the claims.
    page = (out / "index.html").read_text()
    for title in ("Fig. 9: throughput vs burst error rate", "Fig. 12: throughput vs bottleneck delay"):
        assert f"<h3>{title}</h3>" in page
    assert page.count("data:image/svg+xml;base64,") == 4
    assert "every variant uses the bottleneck" in page
    assert claims_table(load_claims(out / "claims.json")) in page  # the verdicts of claims.json
    svg = (out / "figures" / "fig11_speed.svg").read_text()
    for text in ("Goodput (Mb/s)", "Bottleneck speed (Mb/s)", "Tahoe", "Westwood+"):
        assert f"<!-- {text} -->" in svg
    assert "apps[0].tcp" not in svg and "1e6" not in svg


def test_unknown_reproduction_is_an_error(tmp_path):
    r = rexmit_cli("reproduce", "nope", "--out", str(tmp_path), check=False)
    assert r.returncode == 2 and "tcp-sack" in r.stderr
