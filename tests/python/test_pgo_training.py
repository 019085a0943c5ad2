"""scripts/pgo.sh's training scenarios (scripts/pgo/*.toml) stay valid scenarios: a training run
that fails makes the build go without a profile (slower, results the same), which no other test
would notice."""

from __future__ import annotations

from pathlib import Path

import pytest

import rexmit

TRAINING = sorted((Path(__file__).resolve().parent.parent.parent / "scripts" / "pgo").glob("*.toml"))


def test_there_are_training_scenarios() -> None:
    assert [p.name for p in TRAINING] == ["seed000_cmt.toml", "seed004_http.toml", "seed004_lab.toml"]


@pytest.mark.parametrize("path", TRAINING, ids=lambda p: p.name)
def test_a_training_scenario_is_valid(path: Path) -> None:
    # `validate` checks the whole scenario against the schema (the Rust side's checks).
    rexmit.Scenario.load(path).validate()
