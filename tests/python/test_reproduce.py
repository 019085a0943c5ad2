"""`rexmit reproduce tcp-sack --quick`: seed 001's figures as sweeps, reports and claims; and what
claims.json records of any recipe's claims (ids, sanity checks, the score)."""

import dataclasses
import json
import re

import pytest
from conftest import rexmit_cli

from rexmit.recipes.common import Claim
from rexmit.report import claims_table
from rexmit.reproduce import RECIPES, claim_by_id, load_claims, reproduce


def test_tcp_sack_quick_reproduction(tmp_path):
    out = tmp_path / "tcp-sack"
    r = rexmit_cli("reproduce", "tcp-sack", "--quick", "--out", str(out), "--jobs", "2")
    for fig in ["fig9_burst_rate", "fig10_per", "fig11_speed", "fig12_delay"]:
        assert (out / fig / "report.html").is_file()
        # One traced run per point, linked from the sweep's report (rexmit.views).
        assert 'href="views/point0_tsg.html"' in (out / fig / "report.html").read_text()
        assert (out / fig / "views" / "point0_tsg.html").is_file()
        assert list((out / fig / "figures").glob("*.png"))
    claims = load_claims(out / "claims.json")
    assert len(claims) == 9 and len({c["id"] for c in claims}) == 9
    # The claims that do not depend on fine details of the variants (seed 001 Figs. 9, 11, 12).
    for cid in (
        "tcp-sack/fig9-low-error-rates-fill-the-bottleneck",
        "tcp-sack/fig11-throughput-grows-with-speed",
        "tcp-sack/fig12-throughput-drops-with-delay",
    ):
        assert claim_by_id(claims, cid)["holds"], cid
    # More capacity cannot lower an uncongested transfer's throughput, and the 128 KiB windows
    # cap throughput at window/RTT: sanity checks, apart.
    sanity = [c["id"] for c in claims if c["sanity"]]
    assert sanity == ["tcp-sack/fig11-throughput-grows-with-speed", "tcp-sack/fig12-throughput-drops-with-delay"]
    score = json.loads((out / "claims.json").read_text())["score"]
    assert (score["counted"], score["sanity"]) == (7, 2)
    assert "[reproduced] tcp-sack/fig9-low-error-rates-fill-the-bottleneck: " in r.stdout
    assert "[sanity check holds] tcp-sack/fig11-throughput-grows-with-speed: " in r.stdout
    assert r.stdout.rstrip().endswith(
        f"tcp-sack: {score['held']}/7 claims reproduced"
        + (
            f" ({score['undecided']} need{'s' if score['undecided'] == 1 else ''} the full run)"
            if score["undecided"]
            else ""
        )
        + "; 2 sanity checks apart, not counted"
    )
    # index.html: the paper's figure numbers as titles, the figures with human labels, the claims.
    page = (out / "index.html").read_text()
    for title in ("Fig. 9: throughput vs burst error rate", "Fig. 12: throughput vs bottleneck delay"):
        assert f"<h3>{title}</h3>" in page
    assert page.count("data:image/svg+xml;base64,") == 4
    assert "tcp-sack/fig9-low-error-rates-fill-the-bottleneck" in page
    assert claims_table(load_claims(out / "claims.json")) in page  # the verdicts of claims.json
    svg = (out / "figures" / "fig11_speed.svg").read_text()
    for text in ("Goodput (Mb/s)", "Bottleneck speed (Mb/s)", "Tahoe", "Westwood+"):
        assert f"<!-- {text} -->" in svg
    # No raw parameter key or scale factor in any text the figure shows (matplotlib writes each
    # text as a comment; its element ids are hashes and may contain "1e6" by chance).
    texts = re.findall(r"<!-- (.*?) -->", svg)
    assert texts and not [t for t in texts if "apps[0].tcp" in t or "1e6" in t]


def test_unknown_reproduction_is_an_error(tmp_path):
    r = rexmit_cli("reproduce", "nope", "--out", str(tmp_path), check=False)
    assert r.returncode == 2 and "tcp-sack" in r.stderr


def _fake(claims):
    return lambda out, quick, jobs: claims


def test_claims_json_records_ids_the_score_and_sanity_checks_apart(tmp_path, monkeypatch):
    claims = [
        Claim("fake/holds", "a claim that holds", True, "1", paper="81 ms"),
        Claim("fake/fails", "a claim that fails", False, "2"),
        Claim("fake/by-definition", "a claim that cannot fail", True, "3", sanity=True, why="true by definition"),
    ]
    monkeypatch.setitem(RECIPES, "fake", _fake(claims))
    reproduce("fake", tmp_path / "full")
    doc = json.loads((tmp_path / "full" / "claims.json").read_text())
    assert doc["score"] == {"held": 1, "counted": 2, "undecided": 0, "sanity": 1}
    assert claim_by_id(doc["claims"], "fake/holds")["paper"] == "81 ms"
    assert claim_by_id(doc["claims"], "fake/by-definition") == {
        "id": "fake/by-definition",
        "text": "a claim that cannot fail",
        "holds": True,
        "numbers": "3",
        "paper": None,
        "sanity": True,
        "why": "true by definition",
        "overlap": False,
    }
    # A quick run decides no failing claim: it needs the full run.
    reproduce("fake", tmp_path / "quick", quick=True)
    doc = json.loads((tmp_path / "quick" / "claims.json").read_text())
    assert claim_by_id(doc["claims"], "fake/fails")["holds"] is None
    assert doc["score"] == {"held": 1, "counted": 2, "undecided": 1, "sanity": 1}
    with pytest.raises(KeyError, match="no claim 'fake/nope' .claims: fake/holds, fake/fails, fake/by-definition"):
        claim_by_id(doc["claims"], "fake/nope")


@pytest.mark.parametrize(
    ("claims", "message"),
    [
        ([Claim("fake/a", "x", True, ""), Claim("fake/a", "y", True, "")], "claim id fake/a appears twice"),
        ([Claim("other/a", "x", True, "")], "recipe fake: claim ids must start with fake/: other/a"),
    ],
)
def test_claim_ids_are_unique_and_name_their_recipe(tmp_path, monkeypatch, claims, message):
    monkeypatch.setitem(RECIPES, "fake", _fake(claims))
    with pytest.raises(ValueError, match=message):
        reproduce("fake", tmp_path)
    assert not (tmp_path / "claims.json").exists()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"id": "no slash"}, "claim id 'no slash': must be recipe/name"),
        ({"id": "Fake/Upper"}, "claim id 'Fake/Upper'"),
        ({"sanity": True}, "claim fake/a: a sanity check must say why it cannot fail"),
    ],
)
def test_bad_claims_are_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Claim(**{"id": "fake/a", "text": "t", "holds": True, "numbers": "", **kwargs})


def test_index_claims_table_puts_sanity_checks_last_and_never_says_no_in_a_quick_run():
    claims = [
        Claim("fake/sane", "cannot fail", True, "1", sanity=True, why="by definition"),
        Claim("fake/fails", "fails", False, "2", paper="81 ms"),
        Claim("fake/holds", "holds", True, "3"),
    ]
    full = claims_table(claims)
    order = [full.index(f"<td>{cid}</td>") for cid in ("fake/fails", "fake/holds", "fake/sane")]
    assert order == sorted(order)
    assert "<td>NO</td>" in full and "<td>81 ms</td>" in full and "<td>sanity check, not counted: yes</td>" in full
    # reproduce() records a quick run's failing claim as undecided (holds None): no NO.
    quick = claims_table([dataclasses.replace(c, holds=None) if c.holds is False else c for c in claims])
    assert "<td>NO</td>" not in quick and "<td>needs the full run</td>" in quick


def test_recipe_modules_are_not_shadowed_by_their_functions():
    # `rexmit.recipes.buffer_sizing` is the module, with the recipe function inside it; the
    # registry holds the functions.
    import types

    import rexmit.recipes as recipes

    for name, recipe in RECIPES.items():
        module = getattr(recipes, recipe.__name__)
        assert isinstance(module, types.ModuleType) and getattr(module, recipe.__name__) is recipe, name
