"""scripts/cache_profile.py reads callgrind_annotate's table: counts with and without
percentages, '.' for zero, and file:function names with spaces."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))

import cache_profile  # noqa: E402

SAMPLE = """\
--------------------------------------------------------------------------------
Ir                  Dr                 Dw                 I1mr             D1mr             D1mw             ILmr         DLmr             DLmw              file:function
--------------------------------------------------------------------------------
 5,109,050 ( 0.88%) 1,521,040 ( 0.88%) 1,146,623 ( 0.97%)  17,885 ( 0.25%) 291,019 ( 4.90%)  11,219 ( 0.58%)   1 ( 0.01%) 258,923 ( 6.50%)   9,300 ( 0.60%)  {root}/crates/rexmit-net/src/channel.rs:rexmit_net::sim::World::forward [/bin/x]
   871,794 ( 0.15%)   373,626 ( 0.22%)         0                0          212,238 ( 3.58%)       0            0          196,938 ( 4.95%)       .           /rustc/0123abcd/library/core/src/ptr/mod.rs:<A as B>::drop [/bin/x]
   100 (100.0%) 1 1 1 1 1 1 1 1  {root}/crates/rexmit-net/src/channel.rs:rexmit_net::sim::World::forward [/bin/x]
"""


def test_per_function_sums_and_names() -> None:
    got = cache_profile.per_function(SAMPLE.format(root=ROOT))
    fwd = got["rexmit-net/src/channel.rs:rexmit_net::sim::World::forward"]
    assert fwd == [5_109_150, 1_521_041, 1_146_624, 17_886, 291_020, 11_220, 2, 258_924, 9_301]
    drop = got["core/src/ptr/mod.rs:<A as B>::drop"]
    assert drop == [871_794, 373_626, 0, 0, 212_238, 0, 0, 196_938, 0]
    assert len(got) == 2


def test_hops_of_reads_the_run_line() -> None:
    assert cache_profile.hops_of("wall 0.15 s, hops 168560, events 252742\n") == 168_560
