"""The bad-input table (issue 17, issue 15 §4): every input a careless or hostile user gives the
command line ends in one line `error: ...` naming the problem and exit code 2, never a
traceback, a panic or a silent no-op. The scenario-schema classes (key path and allowed range)
have their own table in crates/rexmit-scenario/tests/scenarios.rs (`BAD`)."""

from __future__ import annotations

import gzip
import pickle
import time
from pathlib import Path
from typing import Callable

import pytest

import rexmit
import rexmit.cli
from rexmit import _core
from rexmit.sweep import Sweep, SweepError

SCENARIO = """stop_time = "1s"
[topology]
kind = "chain"
nodes = ["A", "B"]
links = [{ rate = "10Mbps", delay = "1ms" }]
[[apps]]
name = "f"
kind = "udp_cbr"
from = "A"
to = "B"
rate = "1Mbps"
packet_size = 1000
"""

#: A key nested in 3000 arrays (Python's TOML reader recurses once a level).
DEEP = "x = " + "[" * 3000 + "]" * 3000 + "\n"

SWEEP = (
    "replications = 1\nseed = 1\n[base]\n"
    + SCENARIO.replace("[topology]", "[base.topology]").replace("[[apps]]", "[[base.apps]]")
    + '\n[grid]\n"apps[0].rate" = ["1Mbps", "2Mbps"]\n'
)


def write(tmp: Path, name: str, data: str | bytes) -> str:
    p = tmp / name
    p.write_bytes(data.encode() if isinstance(data, str) else data)
    return str(p)


# (class, case, argv builder(tmp) -> argv, words the one-line message must contain)
Case = tuple[str, str, Callable[[Path], list[str]], str]
TCP_SCENARIO = SCENARIO.replace('kind = "udp_cbr"', 'kind = "tcp_bulk"').replace(
    'rate = "1Mbps"\npacket_size = 1000\n', ""
)

CASES: list[Case] = [
    # Congestion-control plugins (issue 36): names, parameters, plugin files.
    (
        "plugins",
        "unknown controller",
        lambda t: ["validate", write(t, "a.toml", TCP_SCENARIO + 'tcp = { cc = "nope" }\n')],
        '"nope" is not a registered congestion controller: one of',
    ),
    (
        "plugins",
        "parameter out of range",
        lambda t: ["validate", write(t, "a.toml", TCP_SCENARIO + 'tcp = { cc = "aimd", cc_params = { b = 2 } }\n')],
        "apps[0].tcp.cc_params.b: 2 is out of range: allowed (0, 1)",
    ),
    (
        "plugins",
        "parameter the controller lacks",
        lambda t: ["validate", write(t, "a.toml", TCP_SCENARIO + 'tcp = { cc = "reno", cc_params = { alpha = 2 } }\n')],
        'cc_params.alpha: 2 is out of range: allowed none: cc = "reno" has no parameters',
    ),
    (
        "plugins",
        "dctcp without ecn",
        lambda t: ["validate", write(t, "a.toml", TCP_SCENARIO + 'tcp = { cc = "dctcp" }\n')],
        'apps[0].tcp.ecn: off is out of range: allowed "on" with cc = "dctcp"',
    ),
    (
        "plugins",
        "unknown loss-detection policy",
        lambda t: ["validate", write(t, "a.toml", TCP_SCENARIO + 'tcp = { loss = "nope" }\n')],
        'apps[0].tcp.loss: "nope" is not a registered loss-detection policy: one of',
    ),
    (
        "plugins",
        "parameter the loss-detection policy lacks",
        lambda t: ["validate", write(t, "a.toml", TCP_SCENARIO + "tcp = { loss_params = { k = 4 } }\n")],
        'apps[0].tcp.loss_params.k: 4 is out of range: allowed none: loss = "rfc" has no parameters',
    ),
    (
        "plugins",
        "--plugin file missing",
        lambda t: ["validate", "--plugin", str(t / "nope.py"), write(t, "a.toml", TCP_SCENARIO)],
        "nope.py: no such file",
    ),
    (
        "plugins",
        "--plugin raising on import",
        lambda t: [
            "validate",
            "--plugin",
            write(t, "p.py", 'raise RuntimeError("broken plugin")\n'),
            write(t, "a.toml", TCP_SCENARIO),
        ],
        "importing it raised RuntimeError: broken plugin",
    ),
    (
        "plugins",
        "--plugin taking a built-in name",
        lambda t: [
            "validate",
            "--plugin",
            write(
                t, "q.py", "import rexmit\nfrom rexmit import CongestionControl as C\nrexmit.register_cc('cubic', C)\n"
            ),
            write(t, "a.toml", TCP_SCENARIO),
        ],
        '"cubic" is a built-in controller',
    ),
    # Files that are not UTF-8 text.
    (
        "not utf-8",
        "binary",
        lambda t: ["run", write(t, "a.toml", bytes(range(256))), "--out", str(t / "o")],
        "must be UTF-8 TOML text",
    ),
    (
        "not utf-8",
        "gzip",
        lambda t: ["validate", write(t, "a.toml", gzip.compress(SCENARIO.encode()))],
        "gzip-compressed",
    ),
    ("not utf-8", "utf-16", lambda t: ["validate", write(t, "a.toml", SCENARIO.encode("utf-16"))], "UTF-16"),
    (
        "not utf-8",
        "sweep file",
        lambda t: ["sweep", write(t, "s.toml", b"\xff\xfe\x00x"), "--out", str(t / "o")],
        "not a sweep file",
    ),
    ("not a file", "directory", lambda t: ["validate", str(t)], "not a file"),
    # --out that cannot be a directory.
    ("bad --out", "empty", lambda t: ["run", write(t, "a.toml", SCENARIO), "--out", ""], "--out: empty path"),
    (
        "bad --out",
        "existing file",
        lambda t: ["run", write(t, "a.toml", SCENARIO), "--out", write(t, "f", "x")],
        "is an existing file",
    ),
    (
        "bad --out",
        "under a file",
        lambda t: ["run", write(t, "a.toml", SCENARIO), "--out", str(Path(write(t, "f", "x")) / "sub")],
        "is a file, so no directory",
    ),
    (
        "bad --out",
        "sweep under a file",
        lambda t: ["sweep", write(t, "s.toml", SWEEP), "--out", str(Path(write(t, "f", "x")) / "sub")],
        "is a file, so no directory",
    ),
    # Cluster addresses: fail fast.
    (
        "bad --cluster",
        "not a url",
        lambda t: ["sweep", write(t, "s.toml", SWEEP), "--out", str(t / "o"), "--cluster", "notaurl"],
        "write it as tcp://HOST:PORT",
    ),
    (
        "bad --cluster",
        "nobody listening",
        lambda t: ["sweep", write(t, "s.toml", SWEEP), "--out", str(t / "o"), "--cluster", "tcp://127.0.0.1:1"],
        "no Dask scheduler answered",
    ),
    # Numbers and keys out of range.
    (
        "out of range",
        "integer beyond TOML",
        lambda t: [
            "validate",
            write(t, "a.toml", SCENARIO.replace("packet_size = 1000", "packet_size = 18446744073709551616")),
        ],
        "2^63-1",
    ),
    (
        "out of range",
        "duration",
        lambda t: ["validate", write(t, "a.toml", SCENARIO.replace('stop_time = "1s"', 'stop_time = "99999999999h"'))],
        "the largest duration is",
    ),
    (
        "out of range",
        "size",
        lambda t: [
            "validate",
            write(
                t,
                "a.toml",
                SCENARIO.replace('delay = "1ms" }', 'delay = "1ms", queue = { bytes = "99999999999GiB" } }'),
            ),
        ],
        "the largest size is",
    ),
    (
        "out of range",
        "sampling interval",
        lambda t: [
            "validate",
            write(t, "a.toml", SCENARIO + '[[metrics.timeseries]]\nkind = "drops"\nlink = "A->B"\ninterval = "1ns"\n'),
        ],
        "at most 10000000 per series",
    ),
    (
        "out of range",
        "years of work",
        lambda t: [
            "run",
            write(t, "a.toml", SCENARIO.replace('stop_time = "1s"', 'stop_time = "876000h"')),
            "--out",
            str(t / "o"),
        ],
        "limits.max_work",
    ),
    (
        "out of range",
        "huge key shortened",
        lambda t: ["validate", write(t, "a.toml", SCENARIO + "k" * 500_000 + " = 1\n")],
        "(500008 characters)",
    ),
    # Names and topology.
    (
        "topology",
        "node without a link",
        lambda t: [
            "validate",
            write(t, "a.toml", SCENARIO.replace('to = "B"', 'to = "X"') + '[[nodes]]\nname = "X"\n'),
        ],
        "node X has no link, so flows cannot reach it",
    ),
    (
        "topology",
        "link with 3 nodes",
        lambda t: [
            "validate",
            write(t, "a.toml", SCENARIO + '[[links]]\nbetween = ["A", "B", "C"]\nrate = "1Mbps"\ndelay = "1ms"\n'),
        ],
        "exactly 2 nodes, got 3",
    ),
    (
        "topology",
        "pcap name too long (validate runs run's checks)",
        lambda t: [
            "validate",
            write(
                t,
                "a.toml",
                SCENARIO.replace('"B"', '"' + "B" * 300 + '"') + '[[metrics.pcap]]\nnode = "' + "B" * 300 + '"\n',
            ),
        ],
        "at most 255",
    ),
    # Sweeps.
    (
        "sweep",
        "negative index",
        lambda t: ["validate", write(t, "s.toml", SWEEP.replace('"apps[0].rate"', '"apps[-1].rate"'))],
        "is not a key path",
    ),
    (
        "sweep",
        "empty key part",
        lambda t: ["validate", write(t, "s.toml", SWEEP.replace('"apps[0].rate"', '"apps[0]..rate"'))],
        "is not a key path",
    ),
    (
        "sweep",
        "string instead of a list",
        lambda t: ["validate", write(t, "s.toml", SWEEP.replace('["1Mbps", "2Mbps"]', '"1Mbps"'))],
        "non-empty list",
    ),
    (
        "sweep",
        "pcap in the base",
        lambda t: [
            "sweep",
            write(t, "s.toml", SWEEP.replace("[grid]", '[[base.metrics.pcap]]\nnode = "A"\n[grid]')),
            "--out",
            str(t / "o"),
        ],
        "does not write packet captures",
    ),
    (
        "sweep",
        "too many runs",
        lambda t: [
            "sweep",
            write(t, "s.toml", SWEEP.replace("replications = 1", "replications = 100000000000")),
            "--out",
            str(t / "o"),
        ],
        "exceed max_runs",
    ),
    (
        "sweep",
        "sweep file given to run",
        lambda t: ["run", write(t, "s.toml", SWEEP), "--out", str(t / "o")],
        "use `rexmit sweep`",
    ),
    (
        "report",
        "--metric on a run directory",
        lambda t: ["report", _run_dir(t), "--metric", "flow.nope.x"],
        "--metric flow.nope.x refused: --metric and --x choose what a sweep report plots",
    ),
    # Nesting deeper than a TOML reader follows: the scenario's (Rust) and the sweep file's (Python).
    (
        "too deep",
        "validate",
        lambda t: ["validate", write(t, "a.toml", SCENARIO + DEEP)],
        "x: recursion limit exceeded",
    ),
    (
        "too deep",
        "run",
        lambda t: ["run", write(t, "a.toml", DEEP + SCENARIO), "--out", str(t / "o")],
        "nested too deeply",
    ),
    (
        "too deep",
        "sweep",
        lambda t: ["sweep", write(t, "s.toml", DEEP + SWEEP), "--out", str(t / "o")],
        "not valid TOML: arrays or inline tables nested too deeply",
    ),
    (
        "too deep",
        "validate a sweep file",
        lambda t: ["validate", write(t, "s.toml", "x = " + "{ a = " * 3000 + "1" + " }" * 3000 + "\n" + SWEEP)],
        "nested too deeply",
    ),
    # The TOML reader's messages of two lines ("invalid inline table" / "expected `}`") are one.
    (
        "syntax",
        "inline table over two lines",
        lambda t: ["validate", write(t, "a.toml", SCENARIO.replace('{ rate = "10Mbps",', '{ rate = "10Mbps",\n'))],
        "topology.links[0]: invalid inline table: expected `}`",
    ),
    # An integer beyond TOML in a table: the whole key path, not the line's key.
    (
        "out of range",
        "integer beyond TOML in an inline table",
        lambda t: [
            "validate",
            write(
                t,
                "a.toml",
                SCENARIO.replace('delay = "1ms" }', 'delay = "1ms", queue = { packets = 2' + "0" * 19 + " } }"),
            ),
        ],
        "topology.links[0].queue.packets: number too large",
    ),
    (
        "out of range",
        "integer beyond TOML in a sub-table",
        lambda t: ["validate", write(t, "a.toml", SCENARIO + "[apps.tcp]\nmss = 18446744073709551616\n")],
        "apps[0].tcp.mss: number too large",
    ),
]


def _run_dir(t: Path) -> str:
    out = t / "run"
    rexmit.run(rexmit.Scenario.from_toml(SCENARIO), out_dir=out)
    return str(out)


@pytest.mark.parametrize("cls, case, argv, words", CASES, ids=[f"{c[0]}: {c[1]}" for c in CASES])
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, cls, case, argv, words):
    started = time.monotonic()
    code = rexmit.cli.main(argv(tmp_path))
    err = capsys.readouterr().err.strip()
    assert code == 2, f"exit {code}: {err}"
    assert err.startswith("error: ") and "\n" not in err, err
    assert words in err, err
    assert len(err) < 2_000
    assert time.monotonic() - started < 20, "fail fast"


def test_every_class_has_cases():
    counts: dict[str, int] = {}
    for c in CASES:
        counts[c[0]] = counts.get(c[0], 0) + 1
    assert all(n >= 1 for n in counts.values()) and len(counts) >= 8, counts


def test_scenario_error_pickles_for_worker_pools():
    with pytest.raises(rexmit.ScenarioError) as e:
        rexmit.Scenario.from_toml(SCENARIO.replace('"1Mbps"', '"-1Mbps"'))
    back = pickle.loads(pickle.dumps(e.value))
    assert type(back) is rexmit.ScenarioError and str(back) == str(e.value) and back.path == "apps[0].rate"


def test_validate_accepts_a_sweep_file_and_checks_every_point(tmp_path, capsys):
    ok = write(tmp_path, "s.toml", SWEEP)
    assert rexmit.cli.main(["validate", ok]) == 0
    assert "2 points x 1 replications = 2 runs" in capsys.readouterr().out
    bad = write(tmp_path, "b.toml", SWEEP.replace('["1Mbps", "2Mbps"]', '["1Mbps", "0bps"]'))
    assert rexmit.cli.main(["validate", bad]) == 2
    assert "point 1" in capsys.readouterr().err


def test_grid_strings_are_not_split_into_characters():
    base = rexmit.Scenario.from_toml(SCENARIO)
    with pytest.raises(SweepError, match="non-empty list"):
        Sweep(base=base, grid={"apps[0].rate": "1Mbps"}).plan()


@pytest.mark.parametrize("fn", ["convert", "with_defaults"])
def test_the_extension_names_an_unknown_output_format(fn):
    """`_core.convert` and `_core.with_defaults` share one renderer; a bad `to_format` is a
    ValueError naming the argument and the two allowed values, not a panic."""
    from rexmit import _core

    text = rexmit.Scenario("1s").to_json()
    with pytest.raises(ValueError, match=r'to_format must be "toml" or "json", got "yaml"'):
        getattr(_core, fn)(text, "json", "yaml")
    assert 'stop_time = "1s"' in getattr(_core, fn)(text, "json", "toml")
    assert '"stop_time":"1s"' in getattr(_core, fn)(text, "json", "json").replace(" ", "")


def _scenario() -> rexmit.Scenario:
    return rexmit.Scenario.from_toml(SCENARIO)


# The Python entry points that take a callback: a value that is not one is a TypeError naming
# the argument, before anything runs (a short run never calls its progress callback).
API_CASES = [
    ("rexmit.run", lambda: rexmit.run(_scenario(), progress=5)),  # type: ignore[arg-type]
    ("rexmit.emulate", lambda: rexmit.emulate(_scenario(), progress="often")),  # type: ignore[arg-type]
    ("_core.run", lambda: _core.run(SCENARIO, progress=[])),  # type: ignore[arg-type]
]


@pytest.mark.parametrize("call", [c[1] for c in API_CASES], ids=[c[0] for c in API_CASES])
def test_a_callback_that_is_not_callable_is_a_type_error(call):
    with pytest.raises(
        TypeError,
        match=r"^progress: expected a function progress\(now_s, stop_s, events, wall_s\) or None, not (int|str|list)$",
    ):
        call()
