"""scripts/reproductions_md.py: the record of the full reproductions counts claims by their
`sanity` mark (not by their text) and shows each claim's id and the paper's number."""

import importlib.util
import json

from conftest import ROOT

spec = importlib.util.spec_from_file_location("reproductions_md", ROOT / "scripts" / "reproductions_md.py")
reproductions_md = importlib.util.module_from_spec(spec)
spec.loader.exec_module(reproductions_md)


def _claim(cid, text, holds, sanity=False, paper=None):
    return {
        "id": cid,
        "text": text,
        "holds": holds,
        "numbers": f"numbers of {cid}",
        "paper": paper,
        "sanity": sanity,
        "why": "by definition" if sanity else None,
    }


def test_sanity_checks_are_listed_apart_and_not_counted(tmp_path):
    run = tmp_path / "tcp-sack"
    run.mkdir()
    claims = [
        _claim("tcp-sack/a", "SACK beats Reno", True, paper="2.9 Mb/s"),
        _claim("tcp-sack/b", "Tahoe is the worst", False),
        # A sanity check whose text says nothing of it, and one that fails: neither is counted.
        _claim("tcp-sack/c", "throughput grows", True, sanity=True),
        _claim("tcp-sack/d", "something by construction", False, sanity=True),
    ]
    (run / "claims.json").write_text(json.dumps({"recipe": "tcp-sack", "quick": False, "claims": claims}))
    (run / "wall_s").write_text("12\n")
    lines, summary = reproductions_md.paper_section("seed 001", "tcp-sack", "title", run)
    assert summary == "seed 001: 1/2 claims hold (+ 2 sanity checks); full run 12 s"
    table = [line for line in lines if line.startswith("| ") and not line.startswith("| #")]
    assert len(table) == 2
    assert "(`tcp-sack/a`) | 2.9 Mb/s | numbers of tcp-sack/a | holds |" in table[0]
    assert table[1].endswith("| **does not hold** |")
    apart = [line for line in lines if line.startswith("- `tcp-sack/")]
    assert apart == [
        "- `tcp-sack/c`: throughput grows — holds; by definition. rexmit: numbers of tcp-sack/c",
        "- `tcp-sack/d`: something by construction — FAILS; by definition. rexmit: numbers of tcp-sack/d",
    ]


def _run(results, name, claims, rev):
    run = results / name
    run.mkdir(parents=True)
    (run / "claims.json").write_text(
        json.dumps({"recipe": name, "quick": False, "git_revision": rev, "claims": claims})
    )
    (run / "wall_s").write_text("5\n")


def test_a_paper_rerun_alone_replaces_its_section_and_keeps_the_others(tmp_path):
    out = tmp_path / "reproductions.md"
    first = tmp_path / "first"
    _run(first, "tcp-sack", [_claim("tcp-sack/a", "SACK beats Reno", False)], "aaaaaaa1234")
    _run(first, "rack-sctp", [_claim("rack-sctp/a", "RACK recovers in one RTT", False)], "aaaaaaa1234")
    reproductions_md.main(["--results", str(first), "--out", str(out)])
    again = tmp_path / "again"
    _run(again, "rack-sctp", [_claim("rack-sctp/a", "RACK recovers in one RTT", True)], "bbbbbbb5678+dirty")
    reproductions_md.main(["--results", str(again), "--out", str(out)])
    text = out.read_text()
    assert "- seed 001: 0/1 claims hold; full run 5 s" in text, "tcp-sack kept"
    assert "- seed 002: 1/1 claims hold; full run 5 s" in text, "rack-sctp replaced"
    assert "at revision aaaaaaa, bbbbbbb+dirty," in text
    seed001 = text[text.index("## seed 001") : text.index("## seed 002")]
    assert "Run at revision aaaaaaa." in seed001 and "SACK beats Reno" in seed001
    assert "Not run in full yet" in text[text.index("## seed 000") : text.index("## seed 001")]
