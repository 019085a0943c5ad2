"""Sweeps that stop when the answer is known (issue 18, rexmit.ci_target): replications are
doubled per point until the 95% CI half-width of the chosen metrics is within the target, with
the same seeds in the same order, so that a rerun or a resumed sweep gives the same result."""

import json
from pathlib import Path

import pytest

import rexmit.cli
from rexmit.ci_target import parse_target
from rexmit.stats import mean_ci
from rexmit.sweep import Sweep, SweepError, derive_seed, load, run_sweep

# One TCP flow over a lossy link: goodput varies from seed to seed, more at the higher loss.
SWEEP = """name = "ci"
seed = 11
[base]
stop_time = "3s"
[base.topology]
kind = "chain"
nodes = ["A", "B"]
links = [{{ rate = "10Mbps", delay = "10ms", queue = {{ packets = 50 }}, errors = [{{ kind = "uniform", rate = 0.01, direction = "forward" }}] }}]
[[base.apps]]
name = "bulk"
kind = "tcp_bulk"
from = "A"
to = "B"
[grid]
"topology.links[0].errors[0].rate" = [0.002, 0.03]
[ci]
target = "{target}"
metrics = ["flow.bulk.goodput_bps"]
min_replications = 2
max_replications = {max}
"""


def run(tmp: Path, target: str = "8%", max_reps: int = 32) -> tuple[dict, list[dict]]:
    run_sweep(Sweep.from_toml(SWEEP.format(target=target, max=max_reps)), tmp, jobs=1)
    return json.loads((tmp / "ci.json").read_text()), load(tmp).to_pylist()


def test_replications_grow_per_point_until_the_ci_is_narrow(tmp_path: Path) -> None:
    record, rows = run(tmp_path)
    for p in record["points"]:
        n = p["replications"]
        assert n in (2, 4, 8, 16, 32), n
        ordered = sorted((r for r in rows if r["point"] == p["point"]), key=lambda r: r["replication"])
        mine = [r["flow.bulk.goodput_bps"] for r in ordered]
        assert len(mine) == n
        # The seeds are the sweep's usual ones, in order.
        assert sorted(r["seed"] for r in rows if r["point"] == p["point"]) == sorted(
            derive_seed(11, i) for i in range(n)
        )
        e = mean_ci(mine)
        rel = e.half_width / e.mean
        assert rel == pytest.approx(p["relative_half_width"]["flow.bulk.goodput_bps"])
        if p["met"]:
            assert rel <= 0.08
        if n > 2:
            # It doubled because the first half of its replications missed the target.
            half = mean_ci(mine[: n // 2])
            assert half.half_width / half.mean > 0.08
        else:
            assert n == 32 and rel > 0.08
    # The noisier point needed more replications than the quieter one.
    reps = {p["point"]: p["replications"] for p in record["points"]}
    assert reps[1] > reps[0] > 2
    assert [p["met"] for p in record["points"]] == [True, False]


def test_a_rerun_and_a_resumed_sweep_give_the_same_result(tmp_path: Path) -> None:
    a, rows_a = run(tmp_path / "a")
    b, rows_b = run(tmp_path / "b")
    assert a == b and rows_a == rows_b
    # Resuming in the same directory runs nothing new and decides the same.
    result = run_sweep(Sweep.from_toml(SWEEP.format(target="8%", max=32)), tmp_path / "a", jobs=1)
    assert result.ran == 0 and result.ci == a


def test_a_target_out_of_reach_stops_at_max_replications(tmp_path: Path) -> None:
    record, _ = run(tmp_path, target="0.01%", max_reps=4)
    assert [p["replications"] for p in record["points"]] == [4, 4]
    assert not any(p["met"] for p in record["points"])


def test_cli_ci_target_prints_what_each_point_needed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "s.toml"
    f.write_text(SWEEP.format(target="50%", max=8))
    assert (
        rexmit.cli.main(["sweep", str(f), "--out", str(tmp_path / "out"), "--ci-target", "20%", "-j", "1", "-q"]) == 0
    )
    record = json.loads((tmp_path / "out" / "ci.json").read_text())
    assert record["target"] == pytest.approx(0.2)
    assert rexmit.cli.main(["sweep", str(f), "--out", str(tmp_path / "out2"), "--ci-target", "20%", "-j", "1"]) == 0
    assert "ci target 20.00% on flow.bulk.goodput_bps: " in capsys.readouterr().out


@pytest.mark.parametrize(
    "table, words",
    [
        ({"target": "0%"}, "ci.target: '0%' is out of range"),
        ({"target": "150%"}, "ci.target: '150%' is out of range"),
        ({"target": "fast"}, "ci.target: 'fast' is not a relative half-width"),
        ({"target": "2%", "metrics": []}, "ci.metrics: [] must be a non-empty list"),
        (
            {"target": "2%", "metrics": ["flow.x.y"], "min_replications": 1},
            "ci.min_replications: 1 must be an integer >= 2",
        ),
        (
            {"target": "2%", "metrics": ["flow.x.y"], "min_replications": 8, "max_replications": 4},
            "ci.max_replications: 4 is below min_replications = 8",
        ),
        ({"target": "2%", "metrics": ["flow.x.y"], "tagret": 1}, "ci.tagret: unknown key"),
    ],
)
def test_bad_ci_tables_name_the_key(table: dict, words: str) -> None:
    spec = Sweep.from_toml(SWEEP.format(target="5%", max=8))
    with pytest.raises(SweepError) as e:
        spec.set_ci(table)
    assert words in str(e.value)


def test_a_metric_that_is_not_a_result_column_is_named(tmp_path: Path) -> None:
    spec = Sweep.from_toml(SWEEP.format(target="5%", max=8)).set_ci({"target": "5%", "metrics": ["flow.bulk.nope"]})
    with pytest.raises(SweepError, match="ci.metrics: 'flow.bulk.nope' is not a result column"):
        run_sweep(spec, tmp_path, jobs=1)


def test_parse_target() -> None:
    assert (
        parse_target("2%") == pytest.approx(0.02)
        and parse_target(0.02) == 0.02
        and parse_target(" 5 %".replace(" ", "")) == pytest.approx(0.05)
    )


# --- in recipes: `rexmit reproduce NAME --ci-target` ----------------------------------------
RECIPE_SWEEP = SWEEP.format(target="", max=0).split("[ci]")[0] + '[report]\nmetrics = ["flow.bulk.goodput_bps"]\n'


@pytest.fixture
def ci_recipe(monkeypatch: pytest.MonkeyPatch) -> str:
    """A recipe of one sweep of 8 replications per point, run as the recipes run theirs."""
    import rexmit.reproduce
    from rexmit.recipes.common import Claim, run_recipe_sweep

    def recipe(out: Path, quick: bool, jobs: object) -> list:
        spec = Sweep.from_toml(RECIPE_SWEEP.replace('name = "ci"', 'name = "ci"\nreplications = 8'))
        run_recipe_sweep(spec, out / "sweep", jobs=1)
        rows = load(out / "sweep").to_pylist()
        return [
            Claim("ci-test/some-runs", "the sweep ran", bool(rows), f"{len(rows)} runs"),
            Claim("ci-test/alike", "the points are alike (CIs overlap)", True, "", overlap=True),
        ]

    monkeypatch.setitem(rexmit.reproduce.RECIPES, "ci-test", recipe)
    return "ci-test"


def _runs_per_point(out: Path) -> list[int]:
    rows = load(out / "sweep").to_pylist()
    return [sum(1 for r in rows if r["point"] == p) for p in (0, 1)]


def test_a_recipe_with_a_ci_target_runs_up_to_its_own_replications(tmp_path: Path, ci_recipe: str) -> None:
    from rexmit.reproduce import reproduce

    reproduce(ci_recipe, tmp_path / "plain")
    assert _runs_per_point(tmp_path / "plain") == [8, 8]
    assert json.loads((tmp_path / "plain" / "claims.json").read_text())["ci"] is None
    reproduce(ci_recipe, tmp_path / "ci", ci_target="20%")
    # The quiet point stops early; the noisy one stops at the recipe's 8, never beyond.
    quiet, noisy = _runs_per_point(tmp_path / "ci")
    assert (quiet, noisy) == (6, 8)  # 3 runs: ±45% at the quiet point, 6: ±15%
    doc = json.loads((tmp_path / "ci" / "claims.json").read_text())
    assert doc["replications"] == {"sweep": 8}
    # An "alike" verdict by overlapping intervals is easier with fewer runs: it needs the full run.
    holds = {c["id"]: c["holds"] for c in doc["claims"]}
    assert holds == {"ci-test/some-runs": True, "ci-test/alike": None}
    assert {c["id"]: c["holds"] for c in json.loads((tmp_path / "plain" / "claims.json").read_text())["claims"]} == {
        "ci-test/some-runs": True,
        "ci-test/alike": True,
    }
    assert doc["ci"] == {
        "sweep": {
            "target": 0.2,
            "metrics": ["flow.bulk.goodput_bps"],
            "runs": 14,
            "max_runs": 16,
            "points_met": 1,
            "points": 2,
        }
    }
    # The runs it made are the plain run's first ones, seed for seed.
    plain = {
        (r["point"], r["replication"]): r["flow.bulk.goodput_bps"]
        for r in load(tmp_path / "plain" / "sweep").to_pylist()
    }
    assert all(
        plain[(r["point"], r["replication"])] == r["flow.bulk.goodput_bps"]
        for r in load(tmp_path / "ci" / "sweep").to_pylist()
    )
    # Outside the block the recipes run as they are again.
    reproduce(ci_recipe, tmp_path / "again")
    assert _runs_per_point(tmp_path / "again") == [8, 8]


def test_a_recipe_runs_at_least_the_replications_asked_for(tmp_path: Path, ci_recipe: str) -> None:
    """`--replications N`: the paper's count, for instance. It only raises counts, and the
    first runs are the plain run's, seed for seed."""
    from rexmit.reproduce import reproduce

    reproduce(ci_recipe, tmp_path / "plain")
    reproduce(ci_recipe, tmp_path / "more", replications=11)
    assert _runs_per_point(tmp_path / "more") == [11, 11]
    doc = json.loads((tmp_path / "more" / "claims.json").read_text())
    assert doc["replications"] == {"sweep": 11} and doc["replications_at_least"] == 11
    more = {
        (r["point"], r["replication"]): r["flow.bulk.goodput_bps"]
        for r in load(tmp_path / "more" / "sweep").to_pylist()
    }
    plain = {
        (r["point"], r["replication"]): r["flow.bulk.goodput_bps"]
        for r in load(tmp_path / "plain" / "sweep").to_pylist()
    }
    assert all(more[k] == v for k, v in plain.items())
    assert len(set(more.values())) > len(set(plain.values()))  # the added runs are new seeds
    # Fewer than the recipe's own: it keeps its 8.
    reproduce(ci_recipe, tmp_path / "fewer", replications=3)
    assert _runs_per_point(tmp_path / "fewer") == [8, 8]
    # With a CI target, the raised count is the most a point may run.
    reproduce(ci_recipe, tmp_path / "both", ci_target="20%", replications=11)
    assert json.loads((tmp_path / "both" / "claims.json").read_text())["replications"] == {"sweep": 11}
    # Outside the block the recipes run as they are again.
    reproduce(ci_recipe, tmp_path / "again")
    assert _runs_per_point(tmp_path / "again") == [8, 8]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--ci-target", "0%"], "--ci-target: '0%' is out of range"),
        (["--ci-target", "5%", "--ci-min", "1"], "--ci-min: 1 must be an integer >= 2"),
        (["--ci-min", "4"], "--ci-min: needs --ci-target"),
        (["--replications", "0"], "--replications: 0 must be an integer >= 1"),
        (["--replications", "30", "--quick"], "--replications: not with --quick"),
    ],
)
def test_reproduce_names_a_bad_ci_option_before_running(
    tmp_path: Path, ci_recipe: str, capsys: pytest.CaptureFixture[str], args: list, message: str
) -> None:
    assert rexmit.cli.main(["reproduce", ci_recipe, "--out", str(tmp_path / "out"), *args]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "out" / "sweep").exists()
