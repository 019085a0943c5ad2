"""The installed extension gives the reference scenarios' recorded results (issue 40): `make
install` builds it with profile-guided optimisation (scripts/pgo.sh), which may only change
speed. The record, tests/reference/extension_digests.txt, was written by an extension built
without a profile; scripts/extension_digests.py writes it again after a behaviour change."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import extension_digests  # noqa: E402

RECORD = dict(
    line.split() for line in (ROOT / "tests" / "reference" / "extension_digests.txt").read_text().splitlines()
)


def test_every_reference_scenario_has_a_record() -> None:
    assert sorted(RECORD) == sorted(p.name for p in extension_digests.REFERENCE.glob("*.toml"))
    assert len(RECORD) >= 48


@pytest.mark.parametrize("name", sorted(RECORD))
def test_the_extension_gives_the_recorded_results(name: str) -> None:
    assert extension_digests.digest(extension_digests.REFERENCE / name) == RECORD[name]


def test_the_digest_sees_a_changed_result(tmp_path: Path) -> None:
    # A scenario with one parameter changed (the seed) gives another digest, so a build that
    # changed a result would be caught.
    src = extension_digests.REFERENCE / "tcp_thin.toml"
    text = src.read_text()
    assert "seed = 1" in text
    other = tmp_path / "tcp_thin.toml"
    other.write_text(text.replace("seed = 1", "seed = 2", 1))
    assert extension_digests.digest(other) != RECORD["tcp_thin.toml"]
