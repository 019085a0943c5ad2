"""The lean `rexmit run` path (issue 18): `import rexmit` and `rexmit run` import neither pandas
nor pyarrow, numpy or the plotting libraries, and the run's Parquet files, written by
rexmit._parquet instead of pyarrow, read back exactly as pyarrow's did (same Arrow schema, same
values, for pyarrow, polars and DuckDB). No timing is asserted here: `make bench` measures it."""

import json
import math
import os
import struct
import subprocess
import sys

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import ROOT

import rexmit
from rexmit import _parquet, results
from rexmit._arrow_schema import arrow_schema

HEAVY = [
    "pandas",
    "pyarrow",
    "numpy",
    "plotly",
    "matplotlib",
    "tqdm",
    "polars",
    "statistics",
    "multiprocessing",
    "rexmit.sweep",
    # dataclasses imports inspect and ast: 12 ms of a short run (issue 18)
    "dataclasses",
    "inspect",
]


def _loaded_after(code: str) -> list[str]:
    """The HEAVY modules a fresh interpreter holds after running ``code``."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_rexmit_loads_no_dataframe_or_plotting_library():
    assert _loaded_after("import rexmit") == []


def test_rexmit_run_command_loads_no_dataframe_or_plotting_library(tmp_path):
    scenario = ROOT / "tests" / "reference" / "tcp_finite_and_messages.toml"
    code = f"from rexmit.cli import main\nassert main(['run', {str(scenario)!r}, '--out', {str(tmp_path / 'out')!r}, '--quiet']) == 0"
    assert _loaded_after(code) == []
    # ... and it wrote the results, the per-flow message table included.
    assert {
        "flows.parquet",
        "links.parquet",
        "nodes.parquet",
        "timeseries.parquet",
        "messages.parquet",
        "summary.json",
    } <= {p.name for p in (tmp_path / "out").iterdir()}


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["run", "--help"]])
def test_version_and_help_load_no_dataframe_or_plotting_library(argv):
    assert _loaded_after(f"from rexmit.cli import main\ntry:\n    main({argv!r})\nexcept SystemExit:\n    pass") == []


def test_the_lazy_package_attributes_are_the_modules():
    import rexmit.buffer_model
    import rexmit.emulation
    import rexmit.report

    assert rexmit.report is sys.modules["rexmit.report"] and rexmit.buffer_model is sys.modules["rexmit.buffer_model"]
    assert rexmit.emulate is rexmit.emulation.emulate
    from rexmit.sweep import Sweep, SweepResult, run_sweep

    assert (rexmit.Sweep, rexmit.SweepResult, rexmit.run_sweep) == (Sweep, SweepResult, run_sweep)
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        rexmit.nope  # noqa: B018


def _same(a: pa.Table, b: pa.Table) -> bool:
    """Same schema and values (NaN equal to NaN)."""

    def rows(t: pa.Table) -> list:
        return [
            {k: "NaN" if isinstance(v, float) and math.isnan(v) else v for k, v in r.items()} for r in t.to_pylist()
        ]

    return a.schema.equals(b.schema) and rows(a) == rows(b)


COLUMNS = {
    "s": ["a", None, "bé", "", None, "x" * 300],
    "i": [1, None, -5, 2**63 - 1, -(2**63), 0],
    "d": [1.5, None, 2, float("nan"), -0.0, 1e300],
    "b": [True, False, None, True, True, False],
    "n": [None] * 6,
}


def test_each_kind_reads_back_as_pyarrow_infers_it_from_the_list(tmp_path):
    cols = [_parquet.Column(k, _parquet.infer(v), v) for k, v in COLUMNS.items()]
    cols.append(_parquet.Column("u", _parquet.UINT64, struct.pack("<6Q", 0, 1, 2**64 - 1, 5, 6, 7)))
    cols.append(_parquet.Column("dd", _parquet.DOUBLE, struct.pack("<6d", 0, 1, 2, 5, 6, 7.5)))
    _parquet.write(tmp_path / "t.parquet", cols)
    expected = pa.table(
        {
            **{k: pa.array(v) for k, v in COLUMNS.items()},
            "u": pa.array([0, 1, 2**64 - 1, 5, 6, 7], pa.uint64()),
            "dd": pa.array([0.0, 1, 2, 5, 6, 7.5]),
        }
    )
    assert _same(pq.read_table(tmp_path / "t.parquet"), expected)
    # The Arrow schema travels in the metadata as pyarrow writes it: polars keeps the null column.
    pq.write_table(expected, tmp_path / "by_pyarrow.parquet")
    assert pl.read_parquet(tmp_path / "t.parquet").schema == pl.read_parquet(tmp_path / "by_pyarrow.parquet").schema
    assert duckdb.sql(f"SELECT count(*), count(s), sum(i) FROM '{tmp_path / 't.parquet'}'").fetchall() == [(6, 4, -5)]


def test_an_empty_table_keeps_its_column(tmp_path):
    _parquet.write(tmp_path / "e.parquet", [_parquet.Column("name", _parquet.STRING, [])])
    t = pq.read_table(tmp_path / "e.parquet")
    assert t.num_rows == 0 and t.schema.equals(pa.schema([("name", pa.string())]))


def test_columns_of_different_lengths_are_refused(tmp_path):
    with pytest.raises(ValueError, match="columns of different lengths: a 2, b 1"):
        _parquet.encode([_parquet.Column("a", _parquet.INT64, [1, 2]), _parquet.Column("b", _parquet.INT64, [1])])


@pytest.mark.parametrize(
    "values",
    [
        [1, 2],
        [1, 2.5],
        [None, 1, 2.0],
        ["a", None],
        [True, None],
        [None],
        [2**53, 0.5],
        [2**53 + 1, 0.5],
        [True, 1],
        [2**63, 1],
        [1.0, "a"],
        [[1], [2]],
        [{"a": 1}],
    ],
)
def test_infer_answers_what_pyarrow_infers_or_leaves_the_list_to_pyarrow(values):
    kind = _parquet.infer(values)
    try:
        arrow = str(pa.array(values).type)
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
        arrow = None
    if kind is None:
        assert arrow is None or arrow.startswith(("list", "struct"))
    else:
        assert kind == arrow


def test_the_arrow_schema_is_an_ipc_schema_message():
    import base64

    names = [
        ("series", "string"),
        ("t_ns", "uint64"),
        ("t_s", "double"),
        ("i", "int64"),
        ("b", "bool"),
        ("n", "null"),
        ("é" * 40, "string"),
    ]
    schema = pa.ipc.read_schema(pa.py_buffer(base64.b64decode(arrow_schema(names))))
    assert schema.equals(
        pa.schema(
            [
                ("series", pa.string()),
                ("t_ns", pa.uint64()),
                ("t_s", pa.float64()),
                ("i", pa.int64()),
                ("b", pa.bool_()),
                ("n", pa.null()),
                ("é" * 40, pa.string()),
            ]
        )
    )


def _traced_run(out):
    s = rexmit.Scenario.load(ROOT / "tests" / "reference" / "tcp_finite_and_messages.toml")
    s.trace("xfer")
    s.timeseries("queue_packets", "100ms", link="G1->G2")
    return rexmit.run(s, out_dir=out)


@pytest.mark.parametrize("lean", [True, False], ids=["small-writer", "pyarrow-for-large-tables"])
def test_run_files_read_back_as_the_tables_in_memory(tmp_path, monkeypatch, lean):
    if not lean:
        monkeypatch.setattr(results, "LEAN_MAX_ROWS", 0)
    res = _traced_run(tmp_path / "out")
    names = {"flows": "flows", "links": "links", "nodes": "nodes", "series": "timeseries", **{t: t for t in res.tables}}
    assert {"messages", "trace_sent", "trace_acks"} <= set(names)
    for table, file in names.items():
        written = pq.read_table(tmp_path / "out" / f"{file}.parquet")
        assert written.num_rows > 0, table
        assert _same(written, res.arrow(table)), table
        pq.write_table(res.arrow(table), tmp_path / "ref.parquet")
        assert (
            pl.read_parquet(tmp_path / "out" / f"{file}.parquet").schema
            == pl.read_parquet(tmp_path / "ref.parquet").schema
        ), table
    # No message needed four retransmissions: an all-null column, null in the file too.
    assert pq.read_table(tmp_path / "out" / "flows.parquet").schema.field("latency_rtx4plus_mean_s").type == pa.null()


def test_the_small_writer_is_deterministic_byte_for_byte(tmp_path):
    _traced_run(tmp_path / "a")
    _traced_run(tmp_path / "b")
    for f in (tmp_path / "a").glob("*.parquet"):
        assert f.read_bytes() == (tmp_path / "b" / f.name).read_bytes(), f.name


def test_flow_tables_are_made_on_first_use_and_kept():
    res = _traced_run(None)
    assert isinstance(res.tables, results.FlowTables)
    first = res.tables["messages"]
    assert res.tables["messages"] is first
    assert res.tables.rows("messages") == first.num_rows
    with pytest.raises(KeyError):
        res.tables["nope"]


def test_reproduce_help_still_lists_the_reproductions(capsys):
    from rexmit.cli import main

    with pytest.raises(SystemExit) as e:
        main(["reproduce", "--help"])
    assert e.value.code == 0
    assert "nr-sack" in capsys.readouterr().out


def test_commands_names_every_command_of_the_parser():
    import argparse

    from rexmit.cli import COMMANDS, build_parser

    def choices(p: argparse.ArgumentParser) -> tuple:
        return tuple(next(a for a in p._actions if isinstance(a, argparse._SubParsersAction)).choices)

    assert choices(build_parser()) == COMMANDS
    assert all(choices(build_parser(only=c)) == (c,) for c in COMMANDS)


@pytest.mark.parametrize(
    ("name", "loss", "rate", "rate2"),
    [
        ("ns2-sack1", "burst", 0.001, None),
        ("ns2-sctp-nrsack", "uniform", 0.01, None),
        ("ns2-cmt-nrsack", "uniform", 0.02, 0.001),
    ],
)
def test_the_whole_process_bench_runs_ns_as_the_ns2_wrappers_do(tmp_path, monkeypatch, name, loss, rate, rate2):
    """validation/bench_peers.py times `ns` itself; it must get the very arguments the Python
    wrapper of the loop comparison gives it (a stand-in `ns` on PATH prints them)."""
    fake = tmp_path / "ns"
    fake.write_text(
        '#!/bin/sh\nprintf \'{"argv": [\' ; sep=\'\'; for a in "$@"; do printf \'%s"%s"\' "$sep" "$a"; sep=\',\'; done; printf \'], "duration_s": 1}\\n\'\n'
    )
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    monkeypatch.syspath_prepend(str(ROOT / "validation"))
    import bench_peers

    wrapper = subprocess.run(
        bench_peers.peer_command(name, loss, rate, rate2, 10.0, 1), capture_output=True, text=True, check=True
    )
    assert ["ns", *json.loads(wrapper.stdout.strip().splitlines()[-1])["argv"]] == bench_peers.ns2_command(
        name, loss, rate, rate2, 10.0, 1
    )
