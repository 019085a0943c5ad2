"""`rexmit reproduce rack-sctp --quick`: seed 002's figures as sweeps, reports and claims."""

import pytest
from conftest import rexmit_cli

from rexmit.reproduce import claim_by_id, load_claims


@pytest.mark.slow
def test_rack_sctp_quick_reproduces_the_core_claims(tmp_path):
    out = tmp_path / "rack"
    r = rexmit_cli("reproduce", "rack-sctp", "--quick", "--out", str(out), "--jobs", "2")
    assert r.returncode == 0, r.stderr
    for fig in ["fig2_recovery_loss", "fig3_spurious_reordering", "fig6_bulk_reordering", "fig10_tail_loss"]:
        assert (out / fig / "report.html").is_file(), fig
    claims = load_claims(out / "claims.json")
    # RACK's recovery near one RTT, the spurious-retransmission gap under reordering and the
    # tail-loss ordering are the paper's central results.
    for cid in (
        "rack-sctp/fig2-rack-recovers-in-one-rtt",
        "rack-sctp/fig3-fewer-spurious-retransmissions",
        "rack-sctp/fig10-burst-limits-cut-retransmissions",
    ):
        assert claim_by_id(claims, cid)["holds"], (cid, [c["id"] for c in claims if not c["holds"]])
    # index.html: the paper's captions as titles, RACK vs dupthresh in the legends, units on the axes.
    index = (out / "index.html").read_text()
    assert "<h3>Fig. 2: recovery time in relation to the sending rate at 1% packet loss</h3>" in index
    assert index.count("data:image/svg+xml") == 7
    svg = (out / "figures" / "fig2_recovery_loss.svg").read_text()
    for text in ("Send interval (ms)", "Recovery time (ms)", "RACK", "dupthresh"):
        assert f"<!-- {text} -->" in svg, text
