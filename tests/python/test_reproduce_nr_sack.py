"""`rexmit reproduce nr-sack --quick` (seed 000): SCTP and CMT with SACKs vs NR-SACKs over
cross traffic, through the CLI; and the seed-000 setup the recipe builds its runs from."""

import random

import pyarrow.parquet as pq
import pytest
from conftest import rexmit_cli

from rexmit.recipes import seed000_setup as setup
from rexmit.reproduce import claim_by_id, load_claims


@pytest.mark.slow
def test_nr_sack_quick_reproduction(tmp_path):
    out = tmp_path / "nr-sack"
    r = rexmit_cli("reproduce", "nr-sack", "--quick", "--out", str(out), "--jobs", "2")
    for sweep in ("sctp", "cmt"):
        assert (out / sweep / "report.html").is_file()
        assert list((out / sweep / "figures").glob("*.png"))
    index = (out / "index.html").read_text()
    assert "Fig. 8" in index and "Fig. 14" in index and "Figs. 10-11" in index
    # `make demo` runs this: its index page never says NO for a claim the quick run cannot decide.
    assert "<td>NO</td>" not in index and "<td>needs the full run</td>" in index
    claims = load_claims(out / "claims.json")
    assert all(c["numbers"] for c in claims)
    # The core claim of seed 000 §V.A (Figs. 8-9): SACK's RtxQ_Util is below 1 once there are
    # losses (heavy load) and falls with the load, for SCTP and for CMT; NR-SACK's is 1 by
    # definition, a sanity check reported apart.
    for cid in (
        "nr-sack/sctp-sack-rtxq-util-falls-with-load",
        "nr-sack/cmt-sack-rtxq-util-falls-with-load",
        "nr-sack/nr-sack-rtxq-util-is-one",
    ):
        assert claim_by_id(claims, cid)["holds"], claim_by_id(claims, cid)
    assert {c["id"] for c in claims if c["sanity"]} == {
        "nr-sack/nr-sack-rtxq-util-is-one",
        "nr-sack/setup-loss-in-paper-range",
    }
    assert "<h3>Fig. 14: goodput of CMT</h3>" in index
    # The paper's names (CMT-SACK, CMT-NR-SACK) in the legends, goodput in Mb/s, the sweeps'
    # own figures named by the recipe's labels.
    svg = (out / "figures" / "fig14_cmt_goodput.svg").read_text()
    for text in (
        "CMT-SACK, 128K",
        "CMT-NR-SACK, 128K",
        "Goodput over the trace window (Mb/s)",
        "Cross-traffic load on path 1 (path 2: low)",
    ):
        assert f"<!-- {text} -->" in svg, text
    sweep_svg = next((out / "sctp" / "figures").glob("*rtxq_util_vs_load.svg")).read_text()
    for text in ("Cross-traffic load", "RtxQ_Util", "Send buffer = 64K, NR-SACK"):
        assert f"<!-- {text} -->" in sweep_svg, text
    # The numbers themselves, not only the verdict.
    rows = pq.read_table(out / "sctp" / "results.parquet").to_pylist()
    util = {(row["param.load"], row["param.ack"]): row["flow.sctp.rtxq_util"] for row in rows}
    assert util[("heavy", "NR-SACK")] == 1.0
    assert util[("heavy", "SACK")] < 0.95
    assert "[reproduced] nr-sack/sctp-sack-rtxq-util-falls-with-load: " in r.stdout
    assert "[sanity check holds] nr-sack/nr-sack-rtxq-util-is-one: " in r.stdout


def test_cross_traffic_follows_the_paper():
    # Seed 000 §IV.A: every left edge to every right edge and back, HTTP + video + FTP per pair,
    # one FTP flow in ten with 576 B packets.
    apps = setup.cross_traffic("", setup.LOADS["mild"])
    pairs = {(a["from"], a["to"]) for a in apps}
    assert len(pairs) == 18 and all((b, a) in pairs for a, b in pairs)
    ftp = [a for a in apps if a["name"].startswith("ftp_")]
    flows = {576: 0, 1500: 0}
    for a in ftp:
        flows[a["tcp"]["mss"] + 40] += a["max_connections"]
    assert flows[576] + flows[1500] == 2 * 9 * setup.LOADS["mild"].ftp
    assert flows[576] == 2 * round(9 * setup.LOADS["mild"].ftp / 10)


def test_start_times_come_from_the_seed():
    timing = setup.Timing()
    topo, apps = setup.topology1(setup.LOADS["low"])
    data = setup.scenario("t", topo, [setup.sctp_app("64KiB", True, cmt=False), *apps], timing)
    a, b, c = (setup.draw_starts(data, seed, timing) for seed in (5, 5, 6))
    assert a == b and a != c
    sctp = a["apps"][0]
    start = float(sctp["start"][:-2]) / 1e9
    # §IV.A: the SCTP flow starts 18-20 s in; measurements start 20 s later.
    assert 18 <= start < 20 and float(sctp["warmup"][:-2]) / 1e9 == start + 20
    rng = random.Random(5)
    assert start == round(rng.uniform(18, 20) * 1e9) / 1e9
    cross = [x for x in a["apps"] if x["name"].startswith(("http_", "video_"))]
    assert all(0 <= float(x["start"][:-2]) / 1e9 < 5 for x in cross)
